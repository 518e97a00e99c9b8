//! `jload bench --jvm` against a real kv-service JVM that writes a GC log: the JVM block (GC deltas, occupancy, RSS,
//! CPU, GC-log pauses inside the run) agrees with what the JVM itself reports.

use crate::common;

use common::machine;
use common::{KvService, bench_json, start_kv_service, tempdir};

/// Start kv-service with a small heap and a GC log; wait until it answers.
fn start_kv(gc_log: &std::path::Path) -> (KvService, u16) {
    start_kv_service(&[
        "-Xmx64m".to_string(),
        "-XX:+UseSerialGC".to_string(),
        format!("-Xlog:gc*,safepoint:file={}:time,uptime,level,tags", gc_log.display()),
    ])
}

#[test]
fn bench_with_jvm_reports_gc_activity_and_pauses_of_the_run() {
    let _machine = machine::shared();
    let dir = tempdir();
    let gc_log = dir.join("gc.log");
    let (jvm, port) = start_kv(&gc_log);
    let url = format!("http://127.0.0.1:{port}/random_set?keyRange=20000&valueSize=2000");
    let (code, result, _) = bench_json(&["-d", "3s", "-c", "8", "--jvm", "auto", "--jvm-interval", "500ms", &url]);
    assert_eq!(code, 0);
    let window = &result["jvm"];
    assert_eq!(window["pid"].as_u64().unwrap(), u64::from(jvm.0.id()), "auto found the JVM on the URL's port");
    let young = window["ygc"].as_u64().unwrap();
    assert!(young > 0, "writing 2 KB values into a 64m heap collects: {window}");
    let pauses = &window["pauses"];
    let in_log = pauses["count"].as_u64().unwrap();
    let full = window["fgc"].as_u64().unwrap();
    // Serial logs one pause per collection, but a young collection whose promotion fails runs a full one inside the
    // same pause (its own GC id, logged within the young one): the run's stops are at least its young collections and
    // at most all of them. A sample can fall a few ms before the last pause is logged.
    assert!(in_log + 2 >= young && in_log <= young + full + 2, "GC log pauses {in_log} vs PerfData {young}+{full}");
    assert!(pauses["max_ms"].as_f64().unwrap() > 0.0);
    assert!(pauses["safepoint_total_ms"].as_f64().unwrap() >= pauses["total_ms"].as_f64().unwrap() * 0.9);
    assert!(window["rss_mb"]["max"].as_f64().unwrap() > 20.0);
    assert!(window["cpu_pct"].as_f64().unwrap() > 1.0);
    assert!(window["gc_time_pct"].as_f64().is_some());
    let samples = result["jvm_series"].as_array().unwrap();
    assert!(samples.len() >= 4, "about one sample per 500 ms: {}", samples.len());
}

#[test]
fn bench_with_jvm_refuses_a_target_that_is_not_a_jvm() {
    let _machine = machine::shared();
    let (output, _) = common::jload(&["bench", "-d", "1s", "--jvm", "999999999", "http://127.0.0.1:1/"]);
    assert_eq!(output.status.code(), Some(2), "{}", String::from_utf8_lossy(&output.stderr));
}

/// The number after `prefix` in `text` (the first place it occurs), e.g. `number_after(out, "GC pauses ")`.
fn number_after(text: &str, prefix: &str) -> f64 {
    let at = text.find(prefix).unwrap_or_else(|| panic!("no '{prefix}' in:\n{text}")) + prefix.len();
    let number: String = text[at..].chars().take_while(|c| c.is_ascii_digit() || *c == '.' || *c == ',').collect();
    number.replace(',', "").parse().unwrap_or_else(|_| panic!("no number after '{prefix}' in:\n{text}"))
}

#[test]
fn bench_with_jvm_prints_one_pause_count_longest_pause_and_gc_share_for_the_run() {
    let _machine = machine::shared();
    let dir = tempdir();
    let gc_log = dir.join("gc.log");
    let (_jvm, port) = start_kv_service(&[
        "-Xmx64m".to_string(),
        "-XX:+UseG1GC".to_string(),
        format!("-Xlog:gc*,safepoint:file={}:time,uptime,level,tags", gc_log.display()),
    ]);
    let url = format!("http://127.0.0.1:{port}/random_set?keyRange=20000&valueSize=2000");
    let json_path = dir.join("result.json");
    let (output, _) = common::jload(&[
        "bench",
        "-q",
        "-d",
        "3s",
        "-c",
        "8",
        "--jvm",
        "auto",
        "--json",
        json_path.to_str().unwrap(),
        &url,
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let text = String::from_utf8(output.stdout).unwrap();
    let result = common::json(&json_path);
    let (pauses, stops) = (&result["jvm"]["pauses"], &result["gc_attribution"]["stops"]);
    // The records: one count and one longest pause in both, from the same stops over the same span.
    let count = pauses["count"].as_u64().unwrap();
    assert!(count > 0, "writing 2 KB values into a 64m heap collects: {pauses}");
    assert_eq!(count, stops["gc_pauses"].as_u64().unwrap());
    let longest = pauses["max_ms"].as_f64().unwrap();
    assert!((longest - stops["longest_gc_pause_ms"].as_f64().unwrap()).abs() < 0.002, "{pauses} vs {stops}");
    let window = &result["jvm"];
    let seconds = window["uptime_end_s"].as_f64().unwrap() - window["uptime_start_s"].as_f64().unwrap();
    let share = pauses["total_ms"].as_f64().unwrap() / 1000.0 / seconds;
    let attribution_share = result["gc_attribution"]["gc_time_share"].as_f64().unwrap();
    // The window's span runs from mark to mark, the attribution's from the run's start to its end: a few ms apart
    // of 3 s on a busy machine, so the two shares agree within half a percent of each other.
    assert!(
        (share - attribution_share).abs() <= 0.005 * share.max(attribution_share),
        "{share} vs {attribution_share}"
    );
    // The printout: the JVM block and the attribution's stops line say the same figures, and the GC time share is
    // printed once per block (no jstat GCT share beside the GC log's).
    assert_eq!(number_after(&text, "GC pauses ") as u64, count, "{text}");
    assert_eq!(number_after(&text, "stops in the run: ") as u64, count, "{text}");
    let block = text.lines().find(|line| line.contains("GC pauses ")).unwrap();
    let block_longest = number_after(block, " ms, max ");
    let stops_longest = number_after(&text, "GC pauses (longest ");
    // Each printed to its own precision (105.95 and 105.9): they agree to the coarser one.
    assert!((block_longest - stops_longest).abs() <= 0.051, "{block_longest} vs {stops_longest}:\n{text}");
    let block_share = number_after(block, "(GC log, each from its safepoint's start): ");
    let stops_share = number_after(&text, "; GC ");
    assert!(
        (block_share - stops_share).abs() <= 0.051 * block_share.max(1.0),
        "{block_share} vs {stops_share}:\n{text}"
    );
    assert!(!text.contains("GC time"), "jstat's GCT share is printed only without a GC log:\n{text}");
}
