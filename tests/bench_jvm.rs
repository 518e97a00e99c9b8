//! `jload bench --jvm` against a real kv-service JVM that writes a GC log: the JVM block (GC deltas, occupancy, RSS,
//! CPU, GC-log pauses inside the run) agrees with what the JVM itself reports.

mod common;

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
    // Serial logs one pause line per collection; a sample can fall a few ms before the last pause is logged.
    assert!(
        in_log + 2 >= young + full && in_log <= young + full + 2,
        "GC log pauses {in_log} vs PerfData {young}+{full}"
    );
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
    let (output, _) = common::jload(&["bench", "-d", "1s", "--jvm", "999999999", "http://127.0.0.1:1/"]);
    assert_eq!(output.status.code(), Some(2), "{}", String::from_utf8_lossy(&output.stderr));
}
