//! `jload report` and `jload compare` on results directories written by real `jload run`s against kv-service
//! (tests/fixtures/results, see capture.sh there): exact table cells, cross-checked against the per-repeat phase
//! JSONs; report.json; one GC share in every output, and the GC-time figures beside it only where they add something;
//! a crashed cell; one repeat; missing optional files; escaping; nothing else written to the directory; compare with
//! a real regression, with noise, and with two cells of one run; bad input.

use crate::common;
use crate::common::results_fixtures;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use common::{jload, tempdir};
use results_fixtures::{copy_of, edit_summary, fixture, line_starting, median, ms, read_json, report};
use serde_json::Value;

fn files_under(dir: &Path) -> BTreeSet<PathBuf> {
    let mut found = BTreeSet::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(files_under(&path));
        } else {
            found.insert(path);
        }
    }
    found
}

#[test]
fn sweep_report_has_the_seeds_tables_with_exact_cells() {
    let dir = copy_of("sweep");
    let before = files_under(&dir);
    let markdown = report(&dir);
    let added: Vec<PathBuf> = files_under(&dir).difference(&before).cloned().collect();
    assert_eq!(
        added,
        ["report.html", "report.json", "report.md"].map(|name| dir.join(name)),
        "only the reports are written"
    );

    // The set phase's table in seed 000's shape: columns are the varying axis only (gc is G1 everywhere); the
    // crashed cell shows its cause instead of numbers, `/` below it; the best cell ★, the indistinguishable one ≈.
    let oom = "OutOfMemoryError: Terminating due to java.lang.OutOfMemoryError: Java heap space";
    let expected = [
        "|metrics \\\\ heap|tiny|-Xmx64m|-Xmx256m|".to_string(),
        format!("|req/s|crashed during fill: {oom}|19730 ≈ (0–52418)|50511 ★ (12753–74095)|"),
        "|P99 (ms)|/|11.96 ≈ (1.900–18.42)|4.049 ★ (3.074–5.529)|".to_string(),
        "|RT (min/P90/P95/P99/P99.9/max) (ms)|/|0.024/0.706/2.051/11.96/36.32/103.0|0.023/0.438/0.896/4.049/12.22/44.48|".to_string(),
        "|RT (mean/median) (ms)|/|0.806/0.295|0.316/0.136|".to_string(),
        "|error/timeout|/|0/0|0/0|".to_string(),
        "|YGC/YGCT (s)|/|41/0.418|13/0.127|".to_string(),
        "|FGC/FGCT (s)|/|0/0.000|0/0.000|".to_string(),
        "|CGC/CGCT (s)|/|10/0.062|2/0.004|".to_string(),
        // The GC share: pauses (and stalls: G1 has none), jstat's GC time beside it only where it adds something
        // (below); the safepoint share because -Xmx64m stood at safepoints that are no GC for 5 points more.
        "|GC share %|/|15.64|4.38|".to_string(),
        "|safepoint % (GC or not)|/|20.55|4.83|".to_string(),
        "|longest GC pause (ms)|/|40.97|18.80|".to_string(),
        "|allocation rate (MB/s)|/|80.2|160.0|".to_string(),
        // Over the JVM's whole life (gcstat.csv and every phase's window), the get phase's peaks included.
        "|RSS peak (MB)|/|165|272|".to_string(),
        "|SLO (p99<=15ms)|/|met 3/3|met 3/3|".to_string(),
        // The phases not measured have their own short table.
        format!("|fill: req/s|crashed: {oom}|16980|19362|"),
        // Is it the GC? A row per cell; the crashed cell says so, the others (captured before jload kept slow
        // requests) why they have no answer.
        "|heap \\\\ is it the GC?|verdict|p99 tail: requests|overlapped GC %|chance %|other safepoints %|p99 → without \
         GC (ms)|p99.9 → without GC (ms)|clock error (ms)|"
            .to_string(),
        "|tiny|crashed|-|-|-|-|-|-|-|".to_string(),
    ];
    for line in expected {
        let row_label = &line[..line[1..].find('|').unwrap() + 2];
        assert_eq!(line_starting(&markdown, row_label), line);
    }
    assert!(markdown.contains("\n## Phases not measured\n"));
    assert!(!markdown.contains("## Phase fill"), "fill is not measured");
    // Recommendation with its numbers; the cheapest heap that meets the SLO (tiny crashed), with the memory it needs
    // (-Xmx64m's highest RSS over its life, rounded up): a container sized from the heap alone is too small.
    for finding in [
        "- Best throughput: -Xmx256m, 50511 req/s (95 % CI 12753–74095); not distinguishable from it: -Xmx64m \
         (19730 req/s (95 % CI 0–52418), p = 0.13)"
            .to_string(),
        "- Cheapest heap meeting the SLO (p99<=15ms): -Xmx64m: P99 11.96 ms (95 % CI 1.900–18.42), 19730 req/s \
         (95 % CI 0–52418); met in 3 of 3 repeats. It needs ≥ 168 MB of memory (its whole-life RSS peak), not only \
         its heap."
            .to_string(),
        format!("- tiny: crashed during fill in every repeat: {oom}"),
    ] {
        assert!(markdown.contains(&finding), "{finding}\n{markdown}");
    }
    assert!(markdown.contains("Student's t") && markdown.contains("Welch's t-test"), "the method is named");
}

#[test]
fn table_cells_agree_with_the_per_repeat_phase_files() {
    // Recompute two cells of the set table from cells/<cell>/rep-N/set.json, not from summary.json.
    let dir = copy_of("sweep");
    let markdown = report(&dir);
    let reps: Vec<Value> = (1..=3)
        .map(|rep| read_json(&fixture("sweep").join(format!("cells/heap=-Xmx64m,gc=G1/rep-{rep}/set.json"))))
        .collect();
    let figure = |pick: &dyn Fn(&Value) -> f64| median(reps.iter().map(pick).collect());
    let latency = |key: &'static str| move |rep: &Value| rep["latency_ms"][key].as_f64().unwrap();
    let expected_rt = ["min", "p90", "p95", "p99", "p999", "max"].map(|key| ms(figure(&latency(key)))).join("/");
    let set_rt = markdown.lines().find(|line| line.starts_with("|RT (min/P90/P95/P99/P99.9/max)")).unwrap();
    assert_eq!(set_rt.split('|').nth(3).unwrap(), expected_rt);
    // req/s: median, and the t interval mean ± 4.303 · s/√3 (t table, 2 degrees of freedom).
    let rps: Vec<f64> = reps.iter().map(|rep| rep["rps"].as_f64().unwrap()).collect();
    let mean = rps.iter().sum::<f64>() / 3.0;
    let sd = (rps.iter().map(|value| (value - mean).powi(2)).sum::<f64>() / 2.0).sqrt();
    let half = 4.302653 * sd / 3f64.sqrt();
    let expected = format!("{:.0} ≈ ({:.0}–{:.0})", median(rps.clone()), (mean - half).max(0.0), mean + half);
    assert_eq!(line_starting(&markdown, "|req/s|").split('|').nth(3).unwrap(), expected);
}

#[test]
fn p95_reaches_every_output_from_its_one_registry_entry() {
    // P95 is shown by its views in load/figures.rs alone: the report's RT row (report.md, report.html), report.json
    // and compare (for context, never judged), each with the median of the repeats' own p95.
    let dir = copy_of("sweep");
    let markdown = report(&dir);
    let cell = "heap=-Xmx64m,gc=G1";
    let p95s: Vec<f64> = (1..=3)
        .map(|rep| read_json(&fixture("sweep").join(format!("cells/{cell}/rep-{rep}/set.json"))))
        .map(|record| record["latency_ms"]["p95"].as_f64().unwrap())
        .collect();
    let p95 = ms(median(p95s.clone()));
    let set_rt = markdown.lines().find(|line| line.starts_with("|RT (min/P90/P95/P99/P99.9/max) (ms)|")).unwrap();
    assert_eq!(set_rt.split('|').nth(3).unwrap().split('/').nth(2), Some(p95.as_str()), "{set_rt}");
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(html.contains("<th>RT (min/P90/P95/P99/P99.9/max) (ms)</th>"));
    assert!(html.contains(&format!("; P95: {p95} over 3 repeat(s), 95 % CI ")), "report.html's P95 of {cell}");
    let json = read_json(&dir.join("report.json"));
    let set = json["phases"].as_array().unwrap().iter().find(|phase| phase["name"] == "set").unwrap();
    let figures = &set["cells"].as_array().unwrap().iter().find(|entry| entry["cell"] == cell).unwrap()["figures"];
    assert_eq!(figures["p95_ms"]["median"].as_f64(), Some(median(p95s.clone())));
    assert_eq!(figures["p95_ms"]["values"], serde_json::json!(p95s));

    let sweep = path("sweep");
    let (a, b) = (format!("{sweep}:{cell}"), format!("{sweep}:heap=-Xmx256m,gc=G1"));
    let (code, stdout, stderr) = compare(&[&a, &b]);
    assert_eq!(code, 0, "{stderr}");
    let line = verdict_of(&stdout, "P95 (ms)");
    assert!(line.contains(&format!("{p95} (n=3)")), "{line}");
    assert!(line.ends_with(char::is_numeric), "P95 is shown for context, without a verdict: {line}");
    assert!(!stdout.contains("judged: req/s, median, P95"), "{stdout}");
    let (_, stdout, _) = compare(&[&a, &b, "--json"]);
    let json: Value = serde_json::from_str(&stdout).unwrap();
    let lines = json["phases"][0]["lines"].as_array().unwrap();
    let keys: Vec<&str> = lines.iter().map(|line| line["metric"].as_str().unwrap()).collect();
    assert_eq!(&keys[..5], ["rps", "p50_ms", "p90_ms", "p95_ms", "p99_ms"], "beside P90 and P99");
    assert_eq!(lines[3]["verdict"], "shown");
}

/// The end-of-run tables `jload run` prints for a results directory.
fn terminal_tables(dir: &Path) -> String {
    jload::report::Report::open(dir).unwrap().terminal_tables()
}

/// The rows of a phase's table in report.md: from its heading to the next.
fn phase_section<'a>(markdown: &'a str, phase: &str) -> &'a str {
    let (_, from) = markdown.split_once(&format!("\n## Phase {phase}\n")).unwrap_or_else(|| panic!("{markdown}"));
    from.split("\n## ").next().unwrap()
}

fn row_labels(section: &str) -> Vec<&str> {
    section.lines().filter(|line| line.starts_with('|')).filter_map(|line| line.split('|').nth(1)).collect()
}

#[test]
fn the_gc_share_is_one_figure_in_the_table_the_json_the_terminal_and_compare() {
    let dir = copy_of("compare-base");
    let markdown = report(&dir);
    let json = read_json(&dir.join("report.json"));
    let get = json["phases"].as_array().unwrap().iter().find(|phase| phase["name"] == "get").unwrap();
    assert_eq!(get["gc_share"]["figure"], "gc_wait_pct");
    let median = get["cells"][0]["figures"]["gc_wait_pct"]["median"].as_f64().unwrap();
    // The GC log's pauses of each repeat (no stalls), as shares of their windows: the share is their median.
    let reps: Vec<Value> = read_json(&dir.join("summary.json"))["cells"][0]["reps"].as_array().unwrap().clone();
    let shares: Vec<f64> = reps
        .iter()
        .map(|rep| {
            let jvm = &rep["phases"]["get"]["jvm"];
            let seconds = jvm["uptime_end_s"].as_f64().unwrap() - jvm["uptime_start_s"].as_f64().unwrap();
            jvm["pauses"]["total_ms"].as_f64().unwrap() / 10.0 / seconds
        })
        .collect();
    assert!((median - self::median(shares.clone())).abs() < 1e-3, "{median} against {shares:?}");
    let shown = format!("{median:.2}");
    assert_eq!(line_starting(phase_section(&markdown, "get"), "|GC share %|"), format!("|GC share %|{shown}|"));
    // The terminal's end-of-run table, as `jload run` prints it.
    let stdout = terminal_tables(&dir);
    let row = stdout.lines().find(|line| line.trim_start().starts_with("GC share %")).unwrap();
    assert_eq!(row.split_whitespace().last(), Some(shown.as_str()), "{stdout}");
    assert!(!stdout.contains("GC pause %") && !stdout.contains("GC time"), "one GC share: {stdout}");
    // compare, for context: the same figure under the same label, and no other GC share.
    let (code, stdout, stderr) = compare(&[&path("compare-base"), &path("compare-rerun")]);
    assert_eq!(code, 0, "{stderr}");
    let line = verdict_of(&stdout, "GC share %");
    assert!(line.contains(&format!("{shown} (n=3)")), "{line}");
    assert!(!stdout.contains("GC time") && !stdout.contains("GC pause %"), "{stdout}");
    let (_, stdout, _) = compare(&[&path("compare-base"), &path("compare-rerun"), "--json"]);
    let compared: Value = serde_json::from_str(&stdout).unwrap();
    let lines = compared["phases"][0]["lines"].as_array().unwrap();
    let gc: Vec<&str> =
        lines.iter().filter_map(|line| line["metric"].as_str()).filter(|key| key.contains("pct")).collect();
    assert!(gc.contains(&"gc_wait_pct") && !gc.contains(&"gc_pct") && !gc.contains(&"pause_pct"), "{gc:?}");
}

#[test]
fn the_gc_share_is_defined_under_the_table_and_says_where_it_is_jstats() {
    let dir = copy_of("compare-base");
    // Repeat 2 of the cell had no GC log: its JVM window has no pauses, only jstat's GC time.
    edit_summary(&dir, |summary| {
        summary["cells"][0]["reps"][1]["phases"]["get"]["jvm"].as_object_mut().unwrap().remove("pauses");
    });
    let markdown = report(&dir);
    let section = phase_section(&markdown, "get");
    assert!(
        section.contains(
            "\nGC share %: the share of the phase the application waited for the collector — its GC pauses, each \
             from its safepoint's start (reaching it included) where the GC log has safepoint lines, and the time \
             threads were stalled for it outside a pause, counted once where they overlap: the GC windows \"is it the \
             GC?\" weighs (GC log). Without a GC log it is jstat's GC time (GCT), the collector's own time counter: \
             -Xmx128m (repeat 2).\n"
        ),
        "{section}"
    );
    let json = read_json(&dir.join("report.json"));
    let get = json["phases"].as_array().unwrap().iter().find(|phase| phase["name"] == "get").unwrap();
    assert_eq!(get["gc_share"]["from_jstat"], serde_json::json!(["heap=-Xmx128m"]));
    assert_eq!(get["cells"][0]["gc_share_from_jstat"], serde_json::json!([2]));
    let stdout = terminal_tables(&dir);
    assert!(
        stdout.contains("  NOTE GC share %: jstat's GC time (GCT) for -Xmx128m, which had no GC log\n"),
        "{stdout}"
    );
}

#[test]
fn the_safepoint_share_and_jstats_gc_time_are_shown_only_where_they_add_to_the_gc_share() {
    let dir = copy_of("sweep");
    let markdown = report(&dir);
    let (set, get) = (phase_section(&markdown, "set"), phase_section(&markdown, "get"));
    for section in [set, get] {
        let labels = row_labels(section);
        assert!(labels.contains(&"GC share %"), "{labels:?}");
        // G1 stops the world for its work: jstat's GC time is below the pause share by the time to reach each
        // safepoint (15.38 against 15.64 %), and G1 never stalls.
        for hidden in
            ["jstat GC time %", "GC pause %", "GC stall %", "GC-stalled threads (mean)", "longest GC stall (ms)"]
        {
            assert!(!labels.contains(&hidden), "{hidden}: {labels:?}");
        }
    }
    // In set, -Xmx64m stood at safepoints that are no GC for 4.9 points more than its pauses (1.31×); in get no
    // cell did by more than 1.25× (-Xmx64m: 6.43 against 5.37 %).
    assert!(row_labels(set).contains(&"safepoint % (GC or not)"));
    assert!(!row_labels(get).contains(&"safepoint % (GC or not)"), "{get}");
    assert!(
        set.contains(
            "\nsafepoint % (GC or not): the time the JVM stood at safepoints, the GC's and every other \
             (deoptimization, code-cache sweeps, thread dumps, …), as a share of the phase (the GC log's safepoint \
             lines). Shown because it is more than 1 percentage point and 1.25× above the GC pause share in -Xmx64m \
             (20.55 % against 15.64 %): safepoints that are no GC took time of their own.\n"
        ),
        "{set}"
    );
    assert!(!get.contains("\nsafepoint % (GC or not):"), "{get}");
}

#[test]
fn stalls_show_the_gc_shares_parts_beside_it() {
    let dir = copy_of("compare-base");
    // Every repeat's JVM had a thread stalled for 100 ms at 0.2 s into the phase, away from its pauses.
    edit_summary(&dir, |summary| {
        for rep in summary["cells"][0]["reps"].as_array_mut().unwrap() {
            let jvm = &mut rep["phases"]["get"]["jvm"];
            let start = jvm["uptime_start_s"].as_f64().unwrap() + 0.2;
            let pauses = &mut jvm["pauses"];
            pauses["stalls"] = serde_json::json!([[start, 100.0, "allocation_stall"]]);
            pauses["stall_count"] = 1.into();
            pauses["stall_total_ms"] = 100.0.into();
            pauses["stall_max_ms"] = 100.0.into();
        }
    });
    let markdown = report(&dir);
    let section = phase_section(&markdown, "get");
    let labels = row_labels(section);
    let at = labels.iter().position(|label| *label == "GC share %").unwrap();
    assert_eq!(labels[at + 1..at + 4], ["GC pause %", "GC stall %", "GC-stalled threads (mean)"], "{labels:?}");
    assert!(labels.contains(&"longest GC stall (ms)"), "{labels:?}");
    assert!(
        section.contains(
            "\nGC pause % and GC stall %: the GC share's two parts, the pauses alone and the time at least one thread \
             was stalled for the collector outside a pause (ZGC allocation stalls, Shenandoah allocation failures); \
             GC-stalled threads (mean): those stalls summed over threads, per second of the phase. Shown because \
             threads stalled in -Xmx128m.\n"
        ),
        "{section}"
    );
    // The share is the union: the pauses' share plus the stall's 100 ms of the window.
    let json = read_json(&dir.join("report.json"));
    let figures = &json["phases"][1]["cells"][0]["figures"];
    let value =
        |key: &str| figures[key]["values"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect::<Vec<_>>();
    for ((share, pause), stall) in value("gc_wait_pct").into_iter().zip(value("pause_pct")).zip(value("stall_pct")) {
        assert!((share - (pause + stall)).abs() < 1e-3, "{share} against {pause} + {stall}");
    }
}

#[test]
fn report_json_holds_every_figure_with_its_interval() {
    let dir = copy_of("sweep");
    report(&dir);
    let json = read_json(&dir.join("report.json"));
    assert_eq!(json["plan"], "sweep");
    assert!(json["statistics"].as_str().unwrap().contains("Student's t"));
    let set = json["phases"].as_array().unwrap().iter().find(|phase| phase["name"] == "set").unwrap();
    assert_eq!(set["measured"], true);
    let cells = set["cells"].as_array().unwrap();
    assert_eq!(cells[0]["cell"], "heap=tiny,gc=G1");
    assert_eq!(cells[0]["reps"].as_array().unwrap().len(), 0, "the crashed cell measured nothing");
    let big = &cells[2];
    assert_eq!(big["reps"], serde_json::json!([1, 2, 3]));
    let rps = &big["figures"]["rps"];
    assert_eq!(rps["n"], 3);
    assert_eq!(rps["values"].as_array().unwrap().len(), 3);
    let ci = rps["ci"].as_array().unwrap();
    assert!(
        ci[0].as_f64().unwrap() < rps["median"].as_f64().unwrap()
            && rps["median"].as_f64().unwrap() < ci[1].as_f64().unwrap()
    );
    assert_eq!(big["standing"]["rps"]["standing"], "best");
    assert_eq!(cells[1]["standing"]["rps"]["standing"], "indistinguishable");
    assert_eq!(big["spectrum"]["source"], "hlog", "the sweep fixture keeps its interval logs");
    assert_eq!(big["slo"]["met"], true);
    let kinds: Vec<&str> = set["recommendation"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|finding| finding["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["throughput", "p99", "cheapest", "crashed"]);
    let tiny = &json["cells"][0];
    assert_eq!((tiny["status"].as_str(), tiny["problems"][0]["phase"].as_str()), (Some("crashed"), Some("fill")));
}

#[test]
fn one_repeat_says_plainly_that_differences_are_unqualified() {
    let dir = copy_of("sweep");
    edit_summary(&dir, |summary| {
        for cell in summary["cells"].as_array_mut().unwrap() {
            cell["reps"].as_array_mut().unwrap().truncate(1);
        }
    });
    let markdown = report(&dir);
    assert!(markdown.contains("One repeat per cell: the differences between cells are unqualified"), "{markdown}");
    let rps = line_starting(&markdown, "|req/s|");
    assert!(!rps.contains('★') && !rps.contains('≈') && !rps.contains('('), "no marks, no intervals: {rps}");
    assert!(markdown.contains("too few repeats to tell whether the other cells differ"));
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(html.contains("One repeat per cell") && html.contains("one repeat: no interval"));
}

#[test]
fn a_report_from_json_alone_copes_with_missing_logs() {
    // The compare fixtures have no .hlog, gc.log or gcstat.csv.
    let dir = copy_of("compare-base");
    let markdown = report(&dir);
    assert_eq!(line_starting(&markdown, "|allocation rate (MB/s)|"), "|allocation rate (MB/s)|-|");
    assert_eq!(
        line_starting(&markdown, "|metrics"),
        "|metrics \\\\ cell|-Xmx128m|",
        "one cell: its label, no varying axis"
    );
    // No slow requests and no GC log: "is it the GC?" says why instead of guessing.
    assert_eq!(
        line_starting(&markdown, "|-Xmx128m|no slow requests"),
        "|-Xmx128m|no slow requests recorded (results of an older jload)|-|-|-|-|-|-|-|"
    );
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(html.contains("heap not sampled (no gcstat.csv)"));
    assert!(html.contains("stored percentiles"));
    assert_eq!(read_json(&dir.join("report.json"))["phases"][1]["cells"][0]["spectrum"]["source"], "percentiles");
}

#[test]
fn every_string_from_the_plan_is_escaped() {
    let dir = copy_of("sweep");
    let label = "<script>alert(\"x\")</script>|*";
    edit_summary(&dir, |summary| {
        summary["plan"] = Value::from("sweep<img src=x onerror=alert(1)>");
        summary["description"] = Value::from("<b>bold</b> & co");
        summary["cells"][1]["axes"]["heap"] = Value::from(label);
    });
    let markdown = report(&dir);
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(!markdown.contains("</"), "no closing tag reached the markdown");
    for raw in ["<script", "<img", "<b>"] {
        assert!(!html.to_lowercase().contains(raw), "{raw} reached the HTML unescaped");
        assert!(!markdown.contains(raw), "{raw} reached the markdown unescaped");
    }
    assert!(html.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;|*"));
    assert!(html.contains("&lt;b&gt;bold&lt;/b&gt; &amp; co"));
    assert!(markdown.contains("|&lt;script>alert(\"x\")&lt;/script>\\|\\*|"), "escaped column label: {markdown}");
    assert!(markdown.starts_with("# jload report: sweep&lt;img src=x onerror=alert(1)>\n"));
}

#[test]
fn report_rejects_what_is_not_a_results_directory() {
    let empty = tempdir();
    for (dir, expected) in [
        (empty.join("missing"), "no such directory"),
        (empty.to_path_buf(), "not a jload results directory (no summary.json)"),
    ] {
        let (output, _) = jload(&["report", dir.to_str().unwrap()]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
        assert!(stderr.contains(expected), "{stderr}");
    }
    std::fs::write(empty.join("summary.json"), "{\"version\": 1}").unwrap();
    let (output, _) = jload(&["report", empty.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("summary.json: cannot read it"));
}

fn compare(args: &[&str]) -> (i32, String, String) {
    let mut all = vec!["compare"];
    all.extend_from_slice(args);
    let (output, _) = jload(&all);
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).to_string(),
        String::from_utf8_lossy(&output.stderr).to_string(),
    )
}

fn path(name: &str) -> String {
    fixture(name).display().to_string()
}

fn verdict_of<'a>(stdout: &'a str, figure: &str) -> &'a str {
    stdout
        .lines()
        .find(|line| line.trim_start().starts_with(figure))
        .unwrap_or_else(|| panic!("no {figure} row in\n{stdout}"))
}

#[test]
fn compare_finds_a_real_regression_and_fails_on_it_when_asked() {
    // compare-slow is the same plan run with -Xint: about a tenth of the throughput.
    let (code, stdout, stderr) = compare(&[&path("compare-base"), &path("compare-slow")]);
    assert_eq!(code, 0, "without --fail-on-regression compare only reports: {stderr}");
    let rps = verdict_of(&stdout, "req/s");
    assert!(
        rps.contains("34329 (n=3)")
            && rps.contains("3502 (n=3)")
            && rps.contains("0.102")
            && rps.ends_with("REGRESSION"),
        "{rps}"
    );
    assert!(verdict_of(&stdout, "P99 (ms)").ends_with("REGRESSION"));
    assert!(stdout.contains("2 significant regression(s) beyond the threshold"));
    let (code, _, _) =
        compare(&[&path("compare-base"), &path("compare-slow"), "--fail-on-regression", "--threshold", "5%"]);
    assert_eq!(code, 99);
    // The other way round it is an improvement, not a regression.
    let (code, stdout, _) = compare(&[&path("compare-slow"), &path("compare-base"), "--fail-on-regression"]);
    assert_eq!(code, 0);
    assert!(verdict_of(&stdout, "req/s").ends_with("improvement"));
    // A threshold above the change: significant but within it.
    let (code, stdout, _) =
        compare(&[&path("compare-base"), &path("compare-slow"), "--threshold", "1000%", "--fail-on-regression"]);
    assert_eq!(code, 0);
    assert!(verdict_of(&stdout, "req/s").ends_with("within threshold"));
}

#[test]
fn compare_calls_noise_noise() {
    // compare-rerun is the very same plan run again.
    let (code, stdout, stderr) =
        compare(&[&path("compare-base"), &path("compare-rerun"), "--fail-on-regression", "--json"]);
    assert_eq!(code, 0, "{stderr}");
    let json: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(json["threshold"], 0.05);
    let lines = json["phases"][0]["lines"].as_array().unwrap();
    let judged: Vec<&Value> = lines.iter().filter(|line| line["verdict"] != "shown").collect();
    assert_eq!(judged.len(), 5);
    for line in judged {
        assert_eq!(line["verdict"], "not_significant", "{line}");
        assert!(line["p"].as_f64().unwrap() >= 0.05);
    }
    assert_eq!(json["phases"][0]["phase"], "get", "only measured phases are compared");
}

#[test]
fn compare_two_cells_of_one_run() {
    let sweep = path("sweep");
    let (code, stdout, stderr) =
        compare(&[&format!("{sweep}:heap=-Xmx64m,gc=G1"), &format!("{sweep}:heap=-Xmx256m,gc=G1")]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("heap=-Xmx64m,gc=G1 vs heap=-Xmx256m,gc=G1, phase set"));
    assert!(stdout.contains("heap=-Xmx64m,gc=G1 vs heap=-Xmx256m,gc=G1, phase get"));
    assert!(verdict_of(&stdout, "req/s").contains("19730 (n=3)  50511 (n=3)"));
    // A cell that is not there is named, with the cells that are.
    let (code, _, stderr) = compare(&[&format!("{sweep}:heap=-Xmx1g"), &format!("{sweep}:heap=tiny,gc=G1")]);
    assert_eq!(code, 2);
    assert!(stderr.contains("unknown cell 'heap=-Xmx1g' in A") && stderr.contains("heap=-Xmx64m,gc=G1"), "{stderr}");
}

#[test]
fn an_unknown_cell_is_reported_as_unknown_on_either_side() {
    let (sweep, big) = (path("sweep"), path("sweep25"));
    for (args, expected) in [
        // Named on A, B a whole run of many cells: not "no cell in common".
        ([format!("{big}:heap=1g,gc=G1"), big.clone()], format!("unknown cell 'heap=1g,gc=G1' in A ({big})")),
        ([big.clone(), format!("{big}:heap=32m,gc=CMS")], format!("unknown cell 'heap=32m,gc=CMS' in B ({big})")),
        // A's cell exists, but B (many cells) has no cell of that id.
        ([format!("{sweep}:heap=tiny,gc=G1"), big.clone()], format!("unknown cell 'heap=tiny,gc=G1' in B ({big})")),
    ] {
        let (code, stdout, stderr) = compare(&[&args[0], &args[1]]);
        assert_eq!(code, 2, "{args:?}: {stdout}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.starts_with(&format!("jload: {expected}; ")), "{stderr}");
        // Many cells: each axis's labels instead of 25 ids.
        assert!(
            stderr.trim_end().ends_with(
                "its 25 cells combine heap = 32m | 64m | 128m | 256m | 512m; \
                 gc = Serial | Parallel | G1 | ZGC | Shenandoah; e.g. heap=32m,gc=Serial"
            ),
            "{stderr}"
        );
    }
}

#[test]
fn compare_of_single_repeats_says_nothing_could_be_judged() {
    let big = path("sweep25");
    let (a, b) = (format!("{big}:heap=32m,gc=G1"), format!("{big}:heap=64m,gc=G1"));
    let (code, stdout, stderr) = compare(&[&a, &b]);
    assert_eq!(code, 0, "{stderr}");
    // Throughput fell to 48 % (set) with one repeat each: shown, but not called a regression nor "no regression".
    assert!(verdict_of(&stdout, "req/s").contains("6581 (n=1)   3171 (n=1)   0.482"), "{stdout}");
    assert_eq!(stdout.lines().filter(|line| line.ends_with("unqualified (1 repeat)")).count(), 10, "{stdout}");
    assert_eq!(stdout.lines().last(), Some("nothing could be judged (one repeat)"), "{stdout}");
    assert!(!stdout.contains("no significant regression"), "{stdout}");
    let (code, stdout, _) = compare(&[&a, &b, "--json"]);
    assert_eq!(code, 0);
    let json: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(json["conclusion"], "nothing could be judged (one repeat)");
    // With --fail-on-regression: the figures, then one line that says why, for all 50 phase comparisons at once.
    let (code, stdout, stderr) = compare(&[&big, &big, "--fail-on-regression"]);
    assert_eq!(code, 2);
    assert_eq!(stdout.matches(", phase ").count(), 50, "25 cells × 2 phases shown");
    assert_eq!(
        stderr,
        "jload: --fail-on-regression cannot judge: A and B have a single repeat, and significance needs at least 2 \
         repeats on each side; run with --repeats 3\n"
    );
}

#[test]
fn compare_fails_when_b_lost_a_phase_a_measured() {
    // As if every repeat of B had died with OutOfMemoryError during get.
    let crashed = copy_of("compare-rerun");
    edit_summary(&crashed, |summary| {
        summary["cells"][0]["status"] = Value::from("crashed");
        for rep in summary["cells"][0]["reps"].as_array_mut().unwrap() {
            rep["status"] = Value::from("crashed");
            rep["cause"] = Value::from("OutOfMemoryError: Java heap space");
            rep["phases"]["get"]["interrupted"] = Value::from(true);
        }
    });
    let (code, stdout, _) = compare(&[&path("compare-base"), crashed.to_str().unwrap(), "--fail-on-regression"]);
    assert_eq!(code, 99, "{stdout}");
    assert!(verdict_of(&stdout, "req/s").ends_with("MISSING in B (crashed or failed)"), "{stdout}");
}

#[test]
fn compare_refuses_what_it_cannot_judge() {
    let one_repeat = copy_of("compare-rerun");
    edit_summary(&one_repeat, |summary| summary["cells"][0]["reps"].as_array_mut().unwrap().truncate(1));
    let one = one_repeat.display().to_string();
    let (code, stdout, _) = compare(&[&path("compare-base"), &one]);
    assert_eq!(code, 0);
    assert!(verdict_of(&stdout, "req/s").ends_with("unqualified (1 repeat)"));
    assert!(stdout.ends_with("\nnothing could be judged (one repeat)\n"), "{stdout}");
    let (code, _, stderr) = compare(&[&path("compare-base"), &one, "--fail-on-regression"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--fail-on-regression cannot judge: B has a single repeat"), "{stderr}");
    for (args, expected) in [
        (vec![path("compare-base"), "/nowhere".to_string()], "not a results directory"),
        (
            vec![path("compare-base"), path("compare-rerun"), "--threshold".to_string(), "lots".to_string()],
            "--threshold 'lots'",
        ),
        (vec![path("compare-base"), path("sweep")], "no cell in common"),
    ] {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, _, stderr) = compare(&args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1);
        assert!(stderr.contains(expected), "{stderr}");
    }
}

#[test]
fn jstat_columns_are_explained_for_collectors_where_they_mislead() {
    // The sweep is G1 (no line); made Shenandoah and generational ZGC in summary.json, each gets one line under each
    // measured phase's table (set and get), and G1 still none.
    let dir = copy_of("sweep");
    let markdown = report(&dir);
    assert!(!markdown.contains("jstat's"), "G1's columns mean what they say");
    edit_summary(&dir, |summary| {
        summary["cells"][1]["flags"]["collector"] = "Shenandoah".into();
        summary["cells"][2]["flags"]["collector"] = "ZGC (generational)".into();
    });
    let markdown = report(&dir);
    let shenandoah = "Shenandoah: jstat's FGC/FGCT count every pause and every concurrent cycle";
    let zgc = "ZGC (generational): jstat's YGC/YGCT count the pauses of minor collections";
    assert_eq!(markdown.matches(shenandoah).count(), 2, "{markdown}");
    assert_eq!(markdown.matches(zgc).count(), 2, "{markdown}");
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(html.contains(shenandoah) && html.contains(zgc));
}
