//! Several real `jload bench` processes started together with `--start-at` against one real server on 127.0.0.1, then
//! `jload merge`: counts add, and the merged percentiles equal those an independent HdrHistogram implementation
//! (the reference Java HdrHistogram, tests/java/HlogPercentiles.java) reads from every interval of the generators'
//! .hlog files, and from the merged .hlog. `--start-at` starts a run's clock at its instant; bad input to either
//! command is one line and exit 2.

use crate::common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use common::machine;
use common::{jload, json, ok, repo, serve, tempdir};

fn unix_us(time: SystemTime) -> i64 {
    time.duration_since(UNIX_EPOCH).unwrap().as_micros() as i64
}

/// A start time `ahead` from now, as `--start-at` takes it (unix seconds with six decimals), and in µs.
fn start_time(ahead: Duration) -> (String, i64) {
    let micros = unix_us(SystemTime::now() + ahead);
    (format!("{}.{:06}", micros / 1_000_000, micros % 1_000_000), micros)
}

/// Debian's libhdrhistogram-java (`.ci/run` installs it).
const REFERENCE_JAR: &str = "/usr/share/java/hdrhistogram.jar";

/// The figures (µs) the independent implementation reads from these interval logs, every interval added.
fn reference_figures(logs: &[&Path]) -> serde_json::Value {
    let output = Command::new("java")
        .args(["-cp", REFERENCE_JAR])
        .arg(repo().join("tests/java/HlogPercentiles.java"))
        .args(logs)
        .output()
        .expect("java runs");
    assert!(
        output.status.success(),
        "HlogPercentiles.java (needs {REFERENCE_JAR}): {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

/// A result's latency figures in µs, in the script's shape (jload's milliseconds are µs / 1000, so exact).
fn figures_of(result: &serde_json::Value) -> serde_json::Value {
    let us = |name: &str| (result["latency_ms"][name].as_f64().unwrap() * 1000.0).round() as u64;
    serde_json::json!({
        "count": result["requests"], "p50": us("p50"), "p90": us("p90"), "p99": us("p99"), "p999": us("p999"),
        "max": us("max"),
    })
}

#[test]
fn generators_of_different_rates_lengths_and_threads_merge_into_the_percentiles_of_every_request() {
    let _machine = machine::shared();
    // Answers of 0 to ~3 ms, so that the percentiles differ between the generators and within each.
    let server = serve(|seen| {
        std::thread::sleep(Duration::from_micros(seen.index % 7 * 400));
        ok("v")
    });
    let dir = tempdir();
    let (start_at, start_us) = start_time(Duration::from_secs(3));
    // -n, not -d: each run ends once its last request is answered, so every latency is in an interval of its .hlog
    // (a run cut by a duration may end with requests in flight, whose waits enter the total but no interval).
    let generators = [("300", "900", "4", "1"), ("150", "750", "6", "2"), ("400", "800", "3", "1")];
    let children: Vec<_> = generators
        .iter()
        .enumerate()
        .map(|(index, (rate, requests, connections, threads))| {
            let (json, hlog) = (dir.join(format!("gen{index}.json")), dir.join(format!("gen{index}.hlog")));
            Command::new(env!("CARGO_BIN_EXE_jload"))
                .args(["bench", "-q", "-R", rate, "-n", requests, "-c", connections, "-t", threads])
                .args(["--start-at", &start_at, "--json", json.to_str().unwrap(), "--hlog", hlog.to_str().unwrap()])
                .arg(server.url("/"))
                .stdout(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut child in children {
        assert!(child.wait().unwrap().success(), "every generator succeeds");
    }
    let parts: Vec<serde_json::Value> = (0..3).map(|index| json(&dir.join(format!("gen{index}.json")))).collect();
    for part in &parts {
        assert_eq!(part["start_unix_us"], start_us, "each run's clock started at --start-at");
    }
    let (merged_json, merged_hlog) = (dir.join("merged.json"), dir.join("merged.hlog"));
    let mut args = vec!["merge", "--json", merged_json.to_str().unwrap(), "--hlog", merged_hlog.to_str().unwrap()];
    // A rule on the merged result: all 2,450 requests, judged as bench judges one run.
    args.extend(["--threshold", "requests>=2450"]);
    let inputs: Vec<String> = (0..3).map(|index| dir.join(format!("gen{index}.json")).display().to_string()).collect();
    args.extend(inputs.iter().map(String::as_str));
    let (output, _) = jload(&args);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let printed = String::from_utf8_lossy(&output.stdout);
    assert!(printed.contains("Per host") && printed.contains("gen2.json"), "{printed}");
    let merged = json(&merged_json);
    assert_eq!(merged["requests"], 900 + 750 + 800);
    assert_eq!((merged["connections"].as_u64(), merged["threads"].as_u64()), (Some(13), Some(4)));
    assert_eq!((merged["rate"].as_f64(), merged["start_unix_us"].as_i64()), (Some(850.0), Some(start_us)));
    assert_eq!(merged["hosts"].as_array().unwrap().len(), 3);
    assert_eq!(merged["thresholds"][0]["passed"], true);
    // The 750 requests at 150/s are due over 5 s, the longest: the merged run spans it, a row a second.
    let duration_s = merged["duration_s"].as_f64().unwrap();
    assert!((4.99..6.0).contains(&duration_s), "{duration_s}");
    assert_eq!(merged["series"].as_array().unwrap().len() as f64, duration_s.ceil());
    let logs: Vec<_> = (0..3).map(|index| dir.join(format!("gen{index}.hlog"))).collect();
    let every_request = reference_figures(&logs.iter().map(|path| path.as_path()).collect::<Vec<_>>());
    assert_eq!(figures_of(&merged), every_request, "the merge equals every request's histogram");
    assert_eq!(reference_figures(&[&merged_hlog]), every_request, "the merged .hlog holds every request");
    let mut failing = vec!["merge", "--threshold", "requests>2450"];
    failing.extend(inputs.iter().map(String::as_str));
    assert_eq!(jload(&failing).0.status.code(), Some(99), "a rule the merged result fails exits 99");
}

/// A server answering every request, noting when the first one arrived (wall clock).
fn server_noting_its_first_request() -> (common::TestServer, Arc<Mutex<Option<SystemTime>>>) {
    let first_request: Arc<Mutex<Option<SystemTime>>> = Arc::default();
    let seen = first_request.clone();
    let server = serve(move |_| {
        seen.lock().unwrap().get_or_insert_with(SystemTime::now);
        ok("v")
    });
    (server, first_request)
}

#[test]
fn a_run_given_a_start_time_connects_first_and_sends_nothing_before_it() {
    let _machine = machine::shared();
    let (server, first_request) = server_noting_its_first_request();
    let (start_at, start_us) = start_time(Duration::from_secs(2));
    let (code, result, _) = common::bench_json(&["-n", "50", "-c", "2", "--start-at", &start_at, &server.url("/")]);
    assert_eq!(code, 0);
    assert_eq!(result["start_unix_us"], start_us);
    let first = unix_us(first_request.lock().unwrap().expect("requests were sent"));
    assert!(first >= start_us && first < start_us + 1_000_000, "first request {} µs after the start", first - start_us);
}

#[test]
fn a_share_of_a_load_runs_its_part_of_the_connections_and_requests() {
    let _machine = machine::shared();
    let server = serve(|_| ok("v"));
    let (code, result, _) =
        common::bench_json(&["-n", "100", "-c", "5", "-t", "2", "--share", "1/3", &server.url("/")]);
    assert_eq!(code, 0);
    // 100 requests and 5 connections among 3: the first generators take one more (34, 33, 33; 2, 2, 1).
    assert_eq!((result["requests"].as_u64(), result["connections"].as_u64()), (Some(33), Some(2)));
    assert_eq!(server.requests.load(std::sync::atomic::Ordering::SeqCst), 33);
}

#[test]
fn the_second_of_two_open_model_shares_sends_half_an_interval_after_the_first() {
    let _machine = machine::shared();
    let (server, first_request) = server_noting_its_first_request();
    let (start_at, start_us) = start_time(Duration::from_secs(2));
    // 10 req/s in total between 2 generators: each sends every 200 ms, the second 100 ms after the first.
    let args = ["-R", "10", "-n", "4", "-c", "2", "--share", "1/2", "--start-at", &start_at, &server.url("/")];
    let (code, result, _) = common::bench_json(&args);
    assert_eq!((code, result["requests"].as_u64()), (0, Some(2)));
    let first = unix_us(first_request.lock().unwrap().expect("requests were sent"));
    assert!(first >= start_us + 100_000 && first < start_us + 1_000_000, "first request {} µs in", first - start_us);
}

fn one_line_bad_input(args: &[&str]) -> String {
    let (output, _) = jload(args);
    let stderr = String::from_utf8_lossy(&output.stderr).to_string();
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    stderr
}

#[test]
fn a_start_time_in_the_past_or_a_day_ahead_is_bad_input() {
    let past = (unix_us(SystemTime::now()) / 1_000_000 - 60).to_string();
    assert!(one_line_bad_input(&["bench", "--start-at", &past, "http://127.0.0.1:1/"]).contains("s in the past"));
    let (far, _) = start_time(Duration::from_secs(25 * 3600));
    assert!(one_line_bad_input(&["bench", "--start-at", &far, "http://127.0.0.1:1/"]).contains("more than 24 h"));
    assert!(one_line_bad_input(&["bench", "--start-at", "noon", "http://127.0.0.1:1/"]).contains("RFC 3339"));
}

#[test]
fn merge_refuses_a_missing_file_a_non_result_and_a_result_without_histograms() {
    let dir = tempdir();
    let missing = dir.join("missing.json");
    assert!(one_line_bad_input(&["merge", missing.to_str().unwrap()]).contains("cannot read"));
    let toml = repo().join("Cargo.toml");
    assert!(one_line_bad_input(&["merge", toml.to_str().unwrap()]).contains("is not a load result"));
    // A phase record written before results carried histograms.
    let old = repo().join("tests/fixtures/results/sweep25/cells/heap=64m,gc=Shenandoah/rep-1/get.json");
    let stderr = one_line_bad_input(&["merge", old.to_str().unwrap()]);
    assert!(stderr.contains("get.json has no histograms"), "{stderr}");
}
