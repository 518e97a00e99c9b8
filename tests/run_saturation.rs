//! "Is it the GC?" on a saturated target (tests/java/SaturatedTarget.java: one worker thread behind the HTTP server's
//! queue, a millisecond of CPU and 64 KB of garbage per request, Serial in an 8 MB young generation): driven by 100
//! connections, every request waits in the queue for dozens of service times while small young pauses come several
//! times a second, so the pauses overlap most of the slow requests — yet taking their time out leaves p99 about where
//! it was. The verdict must be "not GC" and say why with the numbers its rule used; and the phase's p99 must be one
//! figure in every output: every 400th request is never answered, so the run ends with requests that waited seconds,
//! whose waits enter the histogram and the tail alike.

use crate::common;

use jload::load::format::format_ms;

use std::path::Path;

use common::machine;
use common::{jload, json, repo, tempdir};
use serde_json::Value;

/// The plan: a short warm-up, then the measured phase far above the single worker's capacity.
fn saturation_plan(dir: &Path) -> std::path::PathBuf {
    let text = format!(
        "name = \"saturation\"\n[target]\ncommand = \"java {{jvm}} {source} --port {{port}} --hang-every 400\"\n\
         ready = \"http://127.0.0.1:{{port}}/health\"\nstartup_timeout = \"60s\"\nstop_timeout = \"5s\"\n\
         jvm = [\"-Xms64m\", \"-Xmx64m\", \"-Xmn8m\", \"-XX:+UseSerialGC\"]\n\
         [[phase]]\nname = \"warm\"\nmeasure = false\nurl = \"http://127.0.0.1:{{port}}/\"\nconnections = 8\n\
         duration = \"2s\"\n\
         [[phase]]\nname = \"queue\"\nurl = \"http://127.0.0.1:{{port}}/\"\nconnections = 100\nduration = \"8s\"\ntimeout = \"60s\"\n\
         [run]\nrepeats = 1\ncooldown = \"0s\"\n",
        source = repo().join("tests/java/SaturatedTarget.java").display(),
    );
    let path = dir.join("saturation.toml");
    std::fs::write(&path, text).unwrap();
    path
}

fn f64_of(value: &Value) -> f64 {
    value.as_f64().unwrap_or_else(|| panic!("not a number: {value}"))
}

fn u64_of(value: &Value) -> u64 {
    value.as_u64().unwrap_or_else(|| panic!("not a count: {value}"))
}

/// The run, once for the tests that read it: its results folder and what it printed.
struct Saturated {
    _dir: common::TestDir,
    out: std::path::PathBuf,
    stdout: String,
}

fn saturated_run() -> Saturated {
    let dir = tempdir();
    let out = dir.join("results");
    let plan = saturation_plan(&dir);
    let (output, _) = jload(&["run", plan.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    Saturated { out, stdout: String::from_utf8_lossy(&output.stdout).into_owned(), _dir: dir }
}

fn queue_record(run: &Saturated) -> Value {
    json(&run.out.join("cells/default/rep-1/queue.json"))
}

/// One run for both behaviours (it is the suite's JVM).
#[test]
fn a_saturated_tail_is_not_gc_and_its_p99_is_one_figure_in_every_output() {
    let _machine = machine::shared();
    let run = saturated_run();
    gc_pauses_that_overlap_a_saturated_tail_without_making_it_are_not_gc(&run);
    the_phases_p99_is_one_figure_in_the_table_the_attribution_the_report_and_the_json(&run);
}

fn gc_pauses_that_overlap_a_saturated_tail_without_making_it_are_not_gc(run: &Saturated) {
    let record = queue_record(run);
    let attribution = &record["gc_attribution"];
    assert!(attribution.is_object(), "no gc_attribution: {record}");
    let p99 = &attribution["p99"];
    let examined = u64_of(&p99["examined"]);
    assert!(examined >= 20, "enough requests above p99 to judge: {p99}");
    // The premise: small pauses, several a second, that most of the slow requests overlapped.
    let stops = &attribution["stops"];
    assert!(u64_of(&stops["gc_pauses"]) >= 8, "young pauses several times a second: {stops}");
    assert!(u64_of(&p99["gc_overlap"]) * 2 >= examined, "most of the tail overlapped a pause: {attribution:#}");
    assert!(f64_of(&attribution["gc_time_share"]) < 0.05, "the pauses are a small share of the run: {attribution:#}");
    // The answer: taking the pauses' time out leaves p99 within 10 %: GC overlapped the tail, the queue makes it.
    let verdict = &attribution["verdict"];
    assert_eq!(verdict["kind"], "not_gc", "{attribution:#}");
    let rule = verdict["rule"].as_str().unwrap();
    assert!(["saturation", "overlap_without_effect", "about_chance"].contains(&rule), "{verdict}");
    let drop = f64_of(&verdict["p99_drop"]);
    assert!(drop < 0.10, "{verdict}");
    let (measured, without) = (f64_of(&p99["percentile_ms"]), f64_of(&p99["recomputed_ms"]));
    assert!((drop - (measured - without) / measured).abs() < 1e-9, "the drop is of the figures given: {p99}");
    assert!(measured >= 20.0, "a queue of 100 requests at a millisecond each: {p99}");
    let summary = verdict["summary"].as_str().unwrap();
    assert!(summary.contains("below the 10 % that makes GC a cause"), "the rule's threshold is named: {summary}");
    // The terminal says it in the cell's line (wrapped, never cut), with the same numbers.
    let printed = run.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(printed.contains(&format!("default: not GC: {summary}")), "{}", run.stdout);
}

fn the_phases_p99_is_one_figure_in_the_table_the_attribution_the_report_and_the_json(run: &Saturated) {
    let record = queue_record(run);
    // The run ended with requests never answered (a 60 s timeout outlasts the 8 s phase): their waits are in the
    // histogram, and in the slow requests the tail is ranked among.
    let (requests, unfinished) = (u64_of(&record["requests"]), u64_of(&record["unfinished"]));
    assert!(unfinished >= 1, "every 400th request hangs: {}", record["unfinished"]);
    let offered = u64_of(&record["slow_requests"]["offered"]);
    assert!(offered > requests && offered <= requests + unfinished, "{offered} ranked, {requests} answered");
    assert!(f64_of(&record["unfinished_longest_wait_ms"]) >= 1000.0, "a hung request waited seconds");
    // The JSON: the phase's p99 and p99.9 are the attribution's, to the digit.
    let attribution = &record["gc_attribution"];
    let latency = &record["latency_ms"];
    assert_eq!(f64_of(&latency["p99"]), f64_of(&attribution["p99"]["percentile_ms"]), "{latency} {attribution:#}");
    assert_eq!(f64_of(&latency["p999"]), f64_of(&attribution["p999"]["percentile_ms"]));
    let summary = json(&run.out.join("summary.json"));
    let in_summary = &summary["cells"][0]["reps"][0]["phases"]["queue"];
    assert_eq!(in_summary["latency_ms"]["p99"], latency["p99"], "{in_summary}");
    assert_eq!(in_summary["gc_attribution"]["p99"]["percentile_ms"], attribution["p99"]["percentile_ms"]);
    // report.json: the cell's P99 figure and its "is it the GC?" p99.
    let report = json(&run.out.join("report.json"));
    let phase = report["phases"].as_array().unwrap().iter().find(|phase| phase["name"] == "queue").unwrap();
    let cell = &phase["cells"][0];
    let p99 = f64_of(&cell["figures"]["p99_ms"]["median"]);
    assert_eq!(p99, f64_of(&cell["gc_attribution"]["p99"]["percentile_ms"]), "{cell}");
    assert_eq!(p99, f64_of(&latency["p99"]));
    // report.md and the terminal print that one figure in the phase's table and in its "is it the GC?" answer.
    let shown = format_ms(p99);
    let markdown = std::fs::read_to_string(run.out.join("report.md")).unwrap();
    assert!(markdown.contains(&format!("\n|P99 (ms)|{shown}|\n")), "{markdown}");
    assert!(markdown.contains(&format!("|{shown} → ")), "the attribution's table: {markdown}");
    assert!(
        markdown.contains(&format!("default: GC overlapped this tail but is not what makes it: p99 {shown} → "))
            || markdown.contains(&format!("default: GC does not explain this tail: p99 {shown} → ")),
        "{markdown}"
    );
    let table_row = run.stdout.lines().find(|line| line.trim_start().starts_with("p99 ms")).unwrap();
    assert_eq!(table_row.split_whitespace().last(), Some(shown.as_str()), "{}", run.stdout);
    assert!(run.stdout.contains(&format!("default: not GC: p99 {shown} → ")), "{}", run.stdout);
}
