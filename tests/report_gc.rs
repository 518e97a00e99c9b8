//! "Is it the GC?" in `jload report`, on the `gc-attribution` fixture (a real `jload run` of kv-service with a small
//! and a roomy heap, two repeats, see tests/fixtures/results/capture.sh): each cell's row combines the attribution its
//! repeats recorded (cross-checked against the phase records), report.json carries the combination and each repeat's
//! own, and a cell or a repeat without an attribution says why.

use crate::common::results_fixtures;

use results_fixtures::{copy_of, edit_summary, fixture, line_starting, median, ms, read_json, report};
use serde_json::Value;

const FIXTURE: &str = "gc-attribution";

/// A share as the table prints it: whole percent from 10 %, one decimal below.
fn percent(share: f64) -> String {
    let pct = share * 100.0;
    if pct >= 10.0 { format!("{pct:.0}") } else { format!("{pct:.1}") }
}

fn summary() -> Value {
    read_json(&fixture(FIXTURE).join("summary.json"))
}

/// The `gc_attribution` of each repeat of cell `cell` in `phase`, as summary.json holds them.
fn attributions(summary: &Value, cell: usize, phase: &str) -> Vec<Value> {
    summary["cells"][cell]["reps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|rep| rep["phases"][phase]["gc_attribution"].clone())
        .collect()
}

fn numbers(values: &[Value], pointer: &str) -> Vec<f64> {
    values.iter().map(|value| value.pointer(pointer).unwrap().as_f64().unwrap()).collect()
}

fn sum(values: &[Value], pointer: &str) -> f64 {
    numbers(values, pointer).iter().sum()
}

/// The row the table must show for a cell whose repeats recorded `reps` (verdict aside).
fn expected_figures(reps: &[Value]) -> String {
    let examined = sum(reps, "/p99/examined");
    let requests = sum(reps, "/p99/requests");
    let requests =
        if examined < requests { format!("{requests} ({examined} examined)") } else { format!("{requests}") };
    let expected_overlaps: f64 = reps
        .iter()
        .map(|rep| rep["p99"]["gc_chance"].as_f64().unwrap() * rep["p99"]["examined"].as_f64().unwrap())
        .sum();
    let without = |tail: &str| {
        format!(
            "{} → {}",
            ms(median(numbers(reps, &format!("/{tail}/percentile_ms")))),
            ms(median(numbers(reps, &format!("/{tail}/recomputed_ms"))))
        )
    };
    format!(
        "{requests}|{}|{}|{}|{}|{}|{}|",
        percent(sum(reps, "/p99/gc_overlap") / examined),
        percent(expected_overlaps / examined),
        percent(sum(reps, "/p99/safepoint_overlap") / examined),
        without("p99"),
        without("p999"),
        ms(numbers(reps, "/clock_error_ms").into_iter().fold(0.0, f64::max)),
    )
}

#[test]
fn each_cells_row_sums_its_repeats_tails_and_takes_medians_of_their_percentiles() {
    let summary = summary();
    let dir = copy_of(FIXTURE);
    let markdown = report(&dir);
    for phase in ["set", "get"] {
        let section = &markdown[markdown.find(&format!("### Phase {phase}\n\n|heap")).unwrap()..];
        for (cell, label) in ["-Xmx48m", "-Xmx512m"].iter().enumerate() {
            let reps = attributions(&summary, cell, phase);
            assert!(reps.iter().all(Value::is_object), "every repeat of the fixture has an attribution");
            let row = line_starting(section, &format!("|{label}|"));
            let figures = row.splitn(4, '|').nth(3).unwrap();
            assert_eq!(figures, expected_figures(&reps), "{phase} {label}: {row}");
        }
    }
}

/// A verdict kind as the report words it.
fn kind_words(kind: &str) -> &'static str {
    match kind {
        "gc" => "GC",
        "partly_gc" => "partly GC",
        "safepoint" => "safepoints",
        "not_gc" => "not GC",
        _ => "cannot tell",
    }
}

#[test]
fn a_cells_verdict_names_repeats_that_said_otherwise_and_its_sentence_is_under_the_table() {
    let summary = summary();
    let dir = copy_of(FIXTURE);
    let markdown = report(&dir);
    let json = read_json(&dir.join("report.json"));
    for (phase_index, phase) in [(1, "set"), (2, "get")] {
        for cell in 0..2 {
            let kinds: Vec<&str> = attributions(&summary, cell, phase)
                .iter()
                .map(|rep| kind_words(rep["verdict"]["kind"].as_str().unwrap()))
                .collect();
            let combined = &json["phases"][phase_index]["cells"][cell]["gc_attribution"];
            assert_eq!(combined["status"], "found");
            let text = combined["verdict"]["text"].as_str().unwrap();
            let differ = format!(" (the repeats differ: {} in repeat 1, {} in repeat 2)", kinds[0], kinds[1]);
            assert_eq!(text.ends_with(&differ), kinds[0] != kinds[1], "{phase} cell {cell}: {text}");
            let label = json["cells"][cell]["label"].as_str().unwrap();
            assert!(markdown.contains(&format!("\n{label}: {text}\n").replace('_', "\\_")), "{label}: {text}");
        }
    }
}

#[test]
fn a_cell_of_one_repeat_has_that_repeats_own_verdict() {
    let summary = summary();
    let dir = copy_of(FIXTURE);
    edit_summary(&dir, |summary| {
        summary["cells"][0]["reps"].as_array_mut().unwrap().truncate(1);
    });
    report(&dir);
    let json = read_json(&dir.join("report.json"));
    for (phase_index, phase) in [(1, "set"), (2, "get")] {
        // The combination of one repeat is that repeat: its tails and stops, and the verdict judged on them (the
        // fixture's own verdicts are of an older jload's rule, so the verdict is checked against its figures).
        let own = &attributions(&summary, 0, phase)[0];
        let cell = &json["phases"][phase_index]["cells"][0]["gc_attribution"];
        for field in ["p99", "p999", "slowest", "stops"] {
            assert_eq!(cell[field], own[field], "{phase}: {field}");
        }
        let verdict = &cell["verdict"];
        let p99 = &own["p99"];
        let (measured, without) = (p99["percentile_ms"].as_f64().unwrap(), p99["recomputed_ms"].as_f64().unwrap());
        assert!((verdict["p99_drop"].as_f64().unwrap() - (measured - without) / measured).abs() < 1e-12, "{verdict}");
        let summary = verdict["summary"].as_str().unwrap();
        assert!(summary.starts_with(&format!("p99 {} → {} ms without GC (", ms(measured), ms(without))), "{summary}");
        let text = verdict["text"].as_str().unwrap();
        assert!(text.contains(summary) && !text.contains("repeats differ"), "{phase}: {text}");
    }
}

#[test]
fn report_json_holds_the_combination_and_each_repeats_own_attribution() {
    let summary = summary();
    let dir = copy_of(FIXTURE);
    report(&dir);
    let json = read_json(&dir.join("report.json"));
    let set = &json["phases"][1];
    assert_eq!(set["name"], "set");
    for cell in 0..2 {
        let reps = attributions(&summary, cell, "set");
        let combined = &set["cells"][cell]["gc_attribution"];
        assert_eq!(combined["reps"], serde_json::json!([1, 2]));
        assert_eq!(combined["p99"]["requests"].as_f64().unwrap(), sum(&reps, "/p99/requests"));
        assert_eq!(combined["p999"]["gc_overlap"].as_f64().unwrap(), sum(&reps, "/p999/gc_overlap"));
        assert_eq!(combined["stops"]["gc_pauses"].as_f64().unwrap(), sum(&reps, "/stops/gc_pauses"));
        let per_repeat = combined["per_repeat"].as_array().unwrap();
        assert_eq!(per_repeat.len(), 2);
        for (index, own) in per_repeat.iter().enumerate() {
            assert_eq!(own["rep"], index as u64 + 1);
            assert_eq!(own["p99"], reps[index]["p99"], "each repeat's own, as recorded");
            assert_eq!(own["clock"], reps[index]["clock"]);
        }
    }
}

#[test]
fn a_repeat_without_its_attribution_is_left_out_and_named() {
    let summary = summary();
    let dir = copy_of(FIXTURE);
    // As if repeat 2 of -Xmx48m could not map its JVM's clock (it has slow requests and a GC log).
    edit_summary(&dir, |summary| {
        summary["cells"][0]["reps"][1]["phases"]["set"].as_object_mut().unwrap().remove("gc_attribution");
    });
    let markdown = report(&dir);
    let section = &markdown[markdown.find("### Phase set\n\n|heap").unwrap()..];
    let row = line_starting(section, "|-Xmx48m|");
    let rep_1 = &attributions(&summary, 0, "set")[..1];
    assert_eq!(row.splitn(4, '|').nth(3).unwrap(), expected_figures(rep_1), "repeat 1 alone");
    assert!(section.contains(
        "\n-Xmx48m: repeat 2 not included: no clock mapping (JVM uptime could not be put on the run's clock)\n"
    ));
}

#[test]
fn a_cell_without_gc_logs_says_so_instead_of_an_answer() {
    let dir = copy_of(FIXTURE);
    edit_summary(&dir, |summary| {
        for rep in summary["cells"][1]["reps"].as_array_mut().unwrap() {
            rep["phases"]["get"].as_object_mut().unwrap().remove("gc_attribution");
        }
    });
    for rep in ["rep-1", "rep-2"] {
        std::fs::remove_file(dir.join("cells/heap=-Xmx512m").join(rep).join("gc.log")).unwrap();
    }
    let markdown = report(&dir);
    let section = &markdown[markdown.find("### Phase get\n\n|heap").unwrap()..];
    assert_eq!(line_starting(section, "|-Xmx512m|"), "|-Xmx512m|no GC log|-|-|-|-|-|-|-|");
    let json = read_json(&dir.join("report.json"));
    assert_eq!(
        json["phases"][2]["cells"][1]["gc_attribution"],
        serde_json::json!({"status": "missing", "why": "no GC log"})
    );
}
