//! `jload bench` accounts for every request that fell due, against real servers on 127.0.0.1 written in the tests:
//! requests never sent and unfinished when a server freezes, timeouts in the percentiles, the exact count of due
//! requests, and a generator that cannot keep the rate reported as the limit, not the target.

use crate::common;

use std::sync::atomic::Ordering;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use common::machine;
use common::{Reply, bench_json, jload, ok, pausing_server, serve};

// The test whose generator takes a whole core on purpose and the tests whose claims need a core for the generator when
// it wants one (nothing left over at the end of a clean run, a slip of exactly the stop) hold the machine alone
// (common::machine): on a 2-core machine they never run beside another load; the others share it.

fn number(result: &serde_json::Value, path: &[&str]) -> f64 {
    let mut value = result;
    for key in path {
        value = &value[key];
    }
    value.as_f64().unwrap_or_else(|| panic!("no number at {path:?} in {result}"))
}

/// A server that answers its first `answered` requests and then freezes: every later request is read and never
/// answered (the connection stays open until the client closes it).
fn freezing_after(answered: u64) -> common::TestServer {
    serve(move |seen| if seen.index < answered { ok("x") } else { Reply::Stall })
}

#[test]
fn a_server_frozen_for_the_last_second_leaves_every_due_request_accounted_for() {
    let _machine = machine::shared();
    // 1000 req/s for 4 s on 10 connections: 4000 requests fall due. The server answers the first 3000 (due in the
    // first 3 s) and then freezes: each connection's next request is sent and never answered (10 unfinished), and
    // the other 990 due in the last second find no free connection (never sent).
    let server = freezing_after(3000);
    let (code, result, _) = bench_json(&["-R", "1000", "-d", "4s", "-c", "10", "-t", "2", &server.url("/")]);
    assert_eq!(code, 0);
    assert_eq!(result["due"], 4000);
    assert_eq!(result["requests"], 3000);
    assert_eq!(result["unfinished"], 10);
    assert_eq!(result["never_sent"], 990);
    assert_eq!(result["errors"]["total"], 0, "no timeout within the default 5 s");
    assert_eq!(server.requests.load(Ordering::SeqCst), 3010, "the server saw the answered and the unfinished");
    // Their waits are in the corrected percentiles as lower bounds: the 1000 requests due in the frozen second
    // waited from their due time to the end, evenly spread over (0, 1 s], a quarter of all 4000: the top 1 % (40)
    // waited about 960 ms and more, the top 0.1 % about 996 ms. A loaded machine starts the freeze a little late.
    let (p99, p999) = (number(&result, &["latency_ms", "p99"]), number(&result, &["latency_ms", "p999"]));
    assert!((900.0..=1010.0).contains(&p99), "corrected p99 {p99} ms, theory 960 ms");
    assert!((950.0..=1010.0).contains(&p999), "corrected p99.9 {p999} ms, theory 996 ms");
    let longest =
        number(&result, &["unfinished_longest_wait_ms"]).max(number(&result, &["never_sent_longest_wait_ms"]));
    assert!((900.0..=1010.0).contains(&longest), "the longest wait is about the frozen second: {longest} ms");
    // A loaded machine may hold the generator's loop up by milliseconds: nothing next to a tail of a second.
    assert_eq!(result["limited_by"]["side"], "target", "{}", result["limited_by"]);
}

#[test]
fn a_frozen_server_shows_in_the_printout_and_the_limit_names_the_target() {
    let _machine = machine::shared();
    let server = freezing_after(1500);
    let (output, _) = jload(&["bench", "-q", "-R", "1000", "-d", "2s", "-c", "10", "-t", "1", &server.url("/")]);
    let text = String::from_utf8_lossy(&output.stdout);
    let line = |label: &str| {
        text.lines().find(|line| line.starts_with(label)).unwrap_or_else(|| panic!("no {label} in {text}")).to_string()
    };
    assert_eq!(line("  Requests").split(", ").nth(1).unwrap(), "750.0 req/s of 1000 requested (75.0 %)");
    let bound = "ms (in the latency as lower bounds)";
    assert!(line("  Never sent    490 of 2,000 due: no free connection until the end; waited up to ").ends_with(bound));
    assert!(line("  Unfinished    10: sent, unanswered at the end; waited up to ").ends_with(bound));
    let limit = line("  Limited by    target: 750 req/s achieved of 1000 requested;");
    assert!(limit.contains("490 due requests never sent and 10 unanswered at the end (longest wait "), "{limit}");
}

#[test]
fn a_closed_model_run_against_a_frozen_server_counts_the_requests_in_flight() {
    let _machine = machine::shared();
    // Each of the 10 connections waits on an unanswered request from the freeze (1 s after the first request) to
    // the end; they are unfinished, not requests, and their waits reach the raw and corrected maxima.
    let first_request = Arc::new(OnceLock::<Instant>::new());
    let server = serve(move |_| {
        let frozen = first_request.get_or_init(Instant::now).elapsed() >= Duration::from_secs(1);
        if frozen { Reply::Stall } else { ok("x") }
    });
    let (code, result, _) = bench_json(&["-c", "10", "-t", "2", "-d", "2s", &server.url("/")]);
    assert_eq!(code, 0);
    assert_eq!(result["unfinished"], 10);
    assert_eq!(result["never_sent"], 0);
    assert_eq!(result["due"], serde_json::Value::Null, "the closed model has no schedule");
    let requests = result["requests"].as_u64().unwrap();
    assert_eq!(requests + 10, server.requests.load(Ordering::SeqCst));
    let raw_max = number(&result, &["latency_ms", "max"]);
    assert!((800.0..=1100.0).contains(&raw_max), "the unfinished waited about the frozen second: {raw_max} ms");
    assert!(number(&result, &["latency_corrected_ms", "max"]) >= raw_max);
}

#[test]
fn timeouts_are_in_the_percentiles_with_the_wait_until_they_expired() {
    let _machine = machine::shared();
    // The pausing server stops 200 ms every 2 s; with a 100 ms timeout the requests sent in the first half of each
    // pause time out. Recorded with their wait until the timeout (≥ 100 ms from their due time) they are about 5 %
    // of all, so the corrected p99 cannot fall below the timeout as it did when timeouts were left out.
    let server = pausing_server();
    let (code, result, _) =
        bench_json(&["-R", "1000", "-d", "6s", "-c", "50", "-t", "2", "--timeout", "100ms", &server.url("/")]);
    assert_eq!(code, 0);
    let timeouts = result["errors"]["timeout"].as_u64().unwrap();
    assert!(timeouts >= 100, "three pauses time out about 100 requests each: {timeouts}");
    let p99 = number(&result, &["latency_ms", "p99"]);
    assert!(p99 >= 100.0, "corrected p99 {p99} ms includes the timeouts");
    // From the send, a timeout waited exactly 100 ms and every answer less (the pause ends 100 ms after the last
    // request that could time out was sent): with more than 1 % timed out, the p99 is the timeout. When timeouts were
    // left out it was an answer's, 76–78 ms.
    let uncorrected_p99 = number(&result, &["latency_uncorrected_ms", "p99"]);
    assert!((100.0..=100.2).contains(&uncorrected_p99), "uncorrected p99 {uncorrected_p99} ms is the timeout");
}

#[test]
fn a_closed_model_timeout_is_recorded_with_the_timeout_as_its_latency() {
    let _machine = machine::shared();
    // Every request stalls: 4 connections each time out every 300 ms (noticed within 30 ms, then a reconnect), 3
    // times in 1.2 s; the raw latency of a timeout is exactly the timeout.
    let server = serve(|_| Reply::Stall);
    let (code, result, _) = bench_json(&["-d", "1200ms", "-c", "4", "-t", "1", "--timeout", "300ms", &server.url("/")]);
    assert_eq!(code, 1, "nothing succeeded");
    assert_eq!(result["errors"]["timeout"], 12, "3 timeouts on each of the 4 connections");
    assert_eq!(result["unfinished"], 4, "the fourth request of each connection was in flight at the end");
    let p50 = number(&result, &["latency_ms", "p50"]);
    assert!((300.0..=300.3).contains(&p50), "300 ms to the histogram's precision: {p50}");
    let corrected_p50 = number(&result, &["latency_corrected_ms", "p50"]);
    assert!((300.0..=300.3).contains(&corrected_p50), "no answer came, so no interval to correct: {corrected_p50}");
}

#[test]
fn due_is_the_schedule_exactly() {
    let _machine = machine::shared();
    let server = serve(|_| ok("x"));
    // With -n the schedule holds exactly N requests, and all of them complete.
    let (code, result, _) = bench_json(&["-R", "2000", "-n", "1234", "-c", "7", "-t", "2", &server.url("/")]);
    assert_eq!(code, 0);
    assert_eq!((result["due"].as_u64(), result["requests"].as_u64()), (Some(1234), Some(1234)));
    assert_eq!((result["never_sent"].as_u64(), result["unfinished"].as_u64()), (Some(0), Some(0)));
    // With -d, the requests due before the end: rate × duration. Each one completed, is unfinished or was never sent.
    let (code, result, _) = bench_json(&["-R", "1500", "-d", "2s", "-c", "7", "-t", "2", &server.url("/")]);
    assert_eq!(code, 0);
    assert_eq!(result["due"], 3000);
    let accounted = ["requests", "unfinished", "never_sent"].map(|key| result[key].as_u64().unwrap()).iter().sum();
    assert_eq!(result["due"].as_u64(), Some(accounted));
    assert_eq!(server.requests.load(Ordering::SeqCst), 1234 + 3000 - result["never_sent"].as_u64().unwrap());
}

#[test]
fn a_generator_thread_that_cannot_keep_the_rate_is_reported_as_the_limit() {
    let _machine = machine::alone();
    // One generator thread renders a body of 2,000 random digits per request (the server only buffers it) and is
    // asked for far more than it can send: it never waits for the fast server, and the result says the generator
    // ran out rather than blaming the target.
    let server = serve(|_| ok("x"));
    let body = "{rand:0..9}".repeat(2000);
    let args = ["-R", "200000", "-d", "2s", "-c", "20", "-t", "1", "-m", "POST", "--body", &body];
    let (code, result, _) = bench_json(&[&args[..], &[server.url("/").as_str()]].concat());
    assert_eq!(code, 0);
    let limit = &result["limited_by"];
    assert_eq!(limit["side"], "generator", "{result}");
    let reason = limit["reason"].as_str().unwrap();
    assert!(reason.starts_with("the busiest generator thread never waited for the target ("), "{reason}");
    assert!(number(&result["generator"], &["busiest_thread_busy_pct"]) >= 95.0);
    assert!(number(&result, &["rps"]) < 100_000.0);
}

#[test]
fn a_clean_open_model_run_prints_only_what_happened() {
    let _machine = machine::alone();
    // A fast server at a low rate: nothing is left waiting. On a loaded machine the generator's own loop may still be
    // held up now and then; the late-send lines appear exactly when the JSON counts late sends.
    let server = serve(|_| ok("x"));
    let dir = common::tempdir();
    let json = dir.join("result.json");
    let args = ["bench", "-q", "--json", json.to_str().unwrap(), "-R", "200", "-d", "1s", "-c", "10", "-t", "1"];
    let (output, _) = jload(&[&args[..], &[server.url("/").as_str()]].concat());
    let text = String::from_utf8_lossy(&output.stdout);
    let result = common::json(&json);
    assert_eq!(result["due"], 200);
    assert_eq!((result["never_sent"].as_u64(), result["requests"].as_u64()), (Some(0), Some(200)));
    for label in ["Never sent", "Unfinished"] {
        assert!(!text.contains(label), "{label} in a clean run:\n{text}");
    }
    let late = result["late"].as_u64().unwrap() + result["generator"]["slipped"].as_u64().unwrap();
    assert_eq!(text.contains("Late sends"), late > 0, "{text}");
    assert_eq!(text.contains("Limited by"), !result["limited_by"].is_null(), "{text}");
    assert!(text.contains(", 200.0 req/s of 200 requested (100.0 %)"), "{text}");
}

#[test]
fn the_generators_own_delay_is_left_out_of_the_latency_and_shown_as_its_slip() {
    let _machine = machine::alone();
    // jload itself is stopped (SIGSTOP) for 300 ms while the server is idle and every connection free: the requests
    // due meanwhile go out late by the generator's fault alone. Their latency counts from when the generator could
    // send them; the delay shows as the generator's slip.
    let server = serve(|_| ok("x"));
    let dir = common::tempdir();
    let json_path = dir.join("result.json");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_jload"))
        .args(["bench", "-q", "--json", json_path.to_str().unwrap(), "-R", "1000", "-d", "3s", "-c", "20", "-t", "1"])
        .arg(server.url("/"))
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1200));
    let pid = child.id() as libc::pid_t;
    // SAFETY: signals to the child this test started and still owns.
    unsafe { libc::kill(pid, libc::SIGSTOP) };
    std::thread::sleep(Duration::from_millis(300));
    unsafe { libc::kill(pid, libc::SIGCONT) };
    assert!(child.wait().unwrap().success());
    let result: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
    let slip_max = number(&result, &["generator", "slip_max_ms"]);
    assert!(slip_max >= 250.0, "the stop is the generator's slip: max {slip_max} ms");
    assert!(number(&result, &["generator", "slipped"]) >= 200.0, "{result}");
    let p99 = number(&result, &["latency_ms", "p99"]);
    assert!(p99 < 50.0, "the slip is not the target's latency: p99 {p99} ms");
    assert_eq!(result["limited_by"], serde_json::Value::Null, "the rate was sustained: {result}");
}
