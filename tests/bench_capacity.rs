//! `jload bench --rates` and `--capacity` against real servers on 127.0.0.1 written here: a server of known capacity
//! (one worker, a fixed service time, a queue) whose capacity the search must find and whose ladder must show the
//! knee; a ladder cut short by Ctrl-C and by a target that answers nothing; and bad flags.

use crate::common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::jdks::PortJvm;
use common::machine;
use common::queued_server::queued_server;
use common::{bench_json, jload, ok, serve, status, tempdir};

/// The service time of the known-capacity server: its capacity is 1/S = 100 req/s. Long enough that the thread
/// wake-ups of a loaded 2-core machine (measured here: p99 4 ms, up to 55 ms) stay well inside an SLO of 15 × S.
const SERVICE: Duration = Duration::from_millis(10);
const CAPACITY_RPS: f64 = 100.0;

/// A server that does not change needs no warm-up until steady: the searches and ladders here turn it off
/// (`--steady-max 0s`) except where the start rate is what is tested (tests/bench_steady.rs tests the warm-up).
/// The load tests share the machine two at a time (common::machine::shared): their servers sleep through their service times and
/// the loads are 100–1,000 req/s, so a second one beside costs each little CPU; the SLOs are 15 × S and a step the
/// generator limited is measured again (measured: 5 of 5 runs passed two at a time, 2 beside a busy loop; 52 s → 30 s).

/// How often a load test runs again when jload says the generator, not the server, limited it.
const ATTEMPTS: usize = 3;

/// `jload bench FLAGS --step 1s -c 16 -t 1` (`--json`) on a fresh known-capacity server.
/// On a loaded machine jload's own stalls can make the generator the limit of a step, which jload says
/// (`limited_by: generator`) instead of blaming the server; a run where `generator_limited` holds says nothing about
/// the server, so it runs again, at most [`ATTEMPTS`] times in all.
fn on_known_server(flags: &[&str], generator_limited: fn(&serde_json::Value) -> bool) -> (i32, serde_json::Value) {
    let url = queued_server(|_| SERVICE);
    let mut args = flags.to_vec();
    args.extend(["--step", "1s", "-c", "16", "-t", "1", &url]);
    let mut attempt = 1;
    loop {
        let (code, result, _) = bench_json(&args);
        if attempt == ATTEMPTS || !generator_limited(&result) {
            return (code, result);
        }
        eprintln!("attempt {attempt}: the generator limited a step, measuring again: {}", result["capacity"]);
        attempt += 1;
    }
}

/// A search the generator ended.
fn search_generator_limited(result: &serde_json::Value) -> bool {
    result["capacity"]["limited_by"] == "generator"
}

fn f64_of(value: &serde_json::Value) -> f64 {
    value.as_f64().unwrap_or_else(|| panic!("not a number: {value}"))
}

/// Named to sort first in its suite: tests start in name order, and the suite's longest test started first has the
/// others run beside it.
#[test]
fn a_one_worker_servers_capacity_is_found_within_ten_percent() {
    let _machine = machine::shared();
    // SLO p99 ≤ 150 ms (15 × S, loose enough for a loaded machine's stalls): below 1/S a request waits for at most
    // the few ahead of it; at (1 + e)/S the last request completed in a window of T seconds waited T·e/(1 + e) from
    // its due time (e = 0.09 over 2.75 s: 230 ms), plus up to 16 × S for the requests the warm-up left queued.
    let (code, result) = on_known_server(
        &[
            "--capacity",
            "p99<=150ms",
            "--start-rate",
            "50",
            "--step-warmup",
            "500ms",
            "--min-requests",
            "300",
            "--steady-max",
            "0s",
        ],
        search_generator_limited,
    );
    let capacity = &result["capacity"];
    assert_eq!(code, 0, "a capacity was found: {capacity}");
    assert_eq!(capacity["limited_by"], "target");
    assert_eq!(capacity["slo"], "p99<=150ms, errors<=0.1%");
    let rps = f64_of(&capacity["rps"]);
    assert!(
        (rps - CAPACITY_RPS).abs() <= 0.1 * CAPACITY_RPS,
        "capacity {rps} req/s, theory {CAPACITY_RPS}: {capacity}"
    );
    let (low, high) = (f64_of(&capacity["bounds"][0]), f64_of(&capacity["bounds"][1]));
    assert_eq!(low, rps, "the capacity is the highest passing rate");
    assert!(high > low && high <= low * 1.05 + 1.0, "bisected to 5 %: bounds {low} .. {high}");
    // The steps that bound it are in the record: the capacity step met the SLO, the one above did not.
    let steps = result["steps"].as_array().unwrap();
    let at = |rate: f64| steps.iter().rev().find(|step| step["requested_rps"] == rate).expect("a step at a bound");
    assert_eq!(at(low)["meets_slo"], true);
    assert!(at(high)["meets_slo"] == false || at(high)["limited_by"]["side"] == "target", "{}", at(high));
    // The ramp started at 50 and doubled to 200, far above the capacity; the headline figures are the capacity step's.
    let rates: Vec<f64> = steps.iter().map(|step| f64_of(&step["requested_rps"])).collect();
    assert!(rates.starts_with(&[50.0, 100.0]) && rates.contains(&200.0), "{rates:?}");
    assert_eq!(f64_of(&result["rate"]), rps);
}

#[test]
fn a_search_starting_above_a_queueing_servers_capacity_halves_and_blames_the_server() {
    let _machine = machine::shared();
    // A one-worker JDK HTTP server with a 5 ms service time (it sleeps, so the other tests' load does not stretch
    // it: capacity at most 200 req/s, less for its own overhead): at 8 connections and 250 req/s every connection is
    // busy while eight requests queue behind the worker, so the raw median is several service times at every rate
    // above the capacity. The first step has no lighter passing step to compare with: it is the server's limit, and
    // the search halves below it.
    let dir = tempdir();
    let classes = common::jdks::compiled(&dir, "SaturatedTarget.java");
    let mut java = Command::new(common::jdks::jdk17("java").join("bin/java"));
    java.args(["-XX:+UseSerialGC", "-cp"]).arg(&classes).arg("SaturatedTarget");
    java.args([
        "--port",
        "0",
        "--work-us",
        "0",
        "--sleep-us",
        "5000",
        "--garbage-kb",
        "0",
        "--exit-after-ms",
        "120000",
    ]);
    let server = PortJvm::start(java);
    let url = server.url();
    let (code, result, _) = bench_json(&[
        "-c",
        "8",
        "-t",
        "1",
        "--capacity",
        "p99<=50ms",
        "--start-rate",
        "250",
        "--step-warmup",
        "500ms",
        "--step",
        "1s",
        "--min-requests",
        "300",
        "--steady-max",
        "0s",
        &url,
    ]);
    let capacity = &result["capacity"];
    assert_eq!(code, 0, "a capacity was found: {capacity}");
    assert_eq!(capacity["limited_by"], "target", "{capacity}");
    let rps = f64_of(&capacity["rps"]);
    assert!((150.0..=230.0).contains(&rps), "capacity {rps} req/s: {capacity}");
    let steps = result["steps"].as_array().unwrap();
    assert_eq!(f64_of(&steps[0]["requested_rps"]), 250.0);
    assert_eq!(steps[0]["limited_by"]["side"], "target", "the first step: {}", steps[0]);
    assert_eq!(f64_of(&steps[1]["requested_rps"]), 125.0, "halved: {steps:?}");
    let high = f64_of(&capacity["bounds"][1]);
    // The failing bound's windows missed on the server's side: none was the generator's limit, and one at least fell
    // short of the rate or missed the SLO (the bound is judged on its windows pooled).
    let failing: Vec<&serde_json::Value> = steps.iter().filter(|step| f64_of(&step["requested_rps"]) == high).collect();
    assert!(failing.iter().all(|step| step["limited_by"]["side"] != "generator"), "{failing:?}");
    assert!(failing.iter().any(|step| step["limited_by"]["side"] == "target" || step["meets_slo"] == false));
}

#[test]
fn without_a_start_rate_the_search_starts_at_half_a_closed_model_probe() {
    let _machine = machine::shared();
    let (code, result) = on_known_server(
        &["--capacity", "p99<=1s", "--max-rate", "80", "--step-warmup", "300ms", "--min-requests", "100"],
        search_generator_limited,
    );
    assert_eq!(code, 0, "{}", result["capacity"]);
    // The closed-model probe saturates the server at 1/S = 100 req/s (less on a loaded machine): half is 50.
    let steps = result["steps"].as_array().unwrap();
    let first = f64_of(&steps[0]["requested_rps"]);
    assert!((40.0..=50.0).contains(&first), "the search started at {first} req/s");
    // It doubles to the highest rate allowed, which meets the SLO and is measured again: capacity at least that, no
    // failing bound.
    let rates: Vec<f64> = steps.iter().map(|step| f64_of(&step["requested_rps"])).collect();
    assert_eq!(rates[1..], [80.0, 80.0], "{steps:?}");
    let capacity = &result["capacity"];
    assert_eq!(capacity["rps"], 80.0);
    assert_eq!(capacity["bounds"], serde_json::json!([80.0, null]));
    assert!(capacity["verdict"].as_str().unwrap().contains("up to the highest allowed, 80 req/s"), "{capacity}");
}

#[test]
fn the_ladder_curve_shows_the_knee_at_the_servers_capacity() {
    let _machine = machine::shared();
    let (code, result) = on_known_server(
        &["--rates", "40,80,160", "--step-warmup", "500ms", "--min-requests", "120", "--steady-max", "0s"],
        |result| {
            result["steps"]
                .as_array()
                .is_some_and(|steps| steps.iter().take(2).any(|step| step["limited_by"]["side"] == "generator"))
        },
    );
    assert_eq!(code, 0);
    assert!(result.get("capacity").is_none(), "a fixed ladder claims no capacity");
    let steps = result["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 3);
    let p99: Vec<f64> = steps.iter().map(|step| f64_of(&step["latency_ms"]["p99"])).collect();
    // Below 1/S a request waits only behind the few already queued; at 160 req/s the server completes 100, so the
    // last request completed in the 1 s window was due 1 s × 60/160 = 375 ms before it.
    assert!(p99[0] < 150.0 && p99[1] < 150.0, "p99 below the knee: {p99:?}");
    assert!(p99[2] > 300.0, "p99 above the knee: {p99:?}");
    // The server completes 100 req/s, less the warm-up's queue it still serves first (at most 16 requests × 10 ms).
    let achieved = f64_of(&steps[2]["achieved_rps"]);
    assert!((80.0..=105.0).contains(&achieved), "160 req/s requested, {achieved} achieved");
    // Below the knee the target kept the rate (the generator may still be late on a loaded machine: its own verdict).
    assert!(steps[..2].iter().all(|step| step["limited_by"]["side"] != "target"), "{steps:?}");
    assert_eq!(steps[2]["limited_by"]["side"], "target");
    assert!(steps.iter().all(|step| step["meets_slo"].is_null()), "no SLO, no verdict");
    // Each window holds at least --min-requests: 120 at 40 req/s is 3 s, at 80 req/s 1.5 s; 160 req/s fills 1 s.
    let durations: Vec<f64> = steps.iter().map(|step| f64_of(&step["duration_s"])).collect();
    for (duration, expected) in durations.iter().zip([3.0, 1.5, 1.0]) {
        assert!((duration - expected).abs() < 0.1, "windows {durations:?}");
    }
    // Of the 120 due in the first window, all but those still in flight at its end (a stall can hold several).
    assert!(steps[0]["requests"].as_u64().unwrap() >= 108, "{}", steps[0]["requests"]);
    // The headline is the last step.
    assert_eq!(f64_of(&result["rate"]), 160.0);
}

#[test]
fn ctrl_c_ends_the_ladder_with_the_steps_already_measured() {
    let _machine = machine::shared();
    let server = serve(|_| ok("ok"));
    let dir = tempdir();
    let json = dir.join("result.json");
    let mut child = Command::new(env!("CARGO_BIN_EXE_jload"))
        .args(["bench", "--json", json.to_str().unwrap(), "--rates", "100,200,300", "--step-warmup", "200ms"])
        .args(["--step", "1s", "--min-requests", "0", "-c", "4", &server.url("/")])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Read stderr to its end (a reader gone would end jload by SIGPIPE); Ctrl-C once step 2 starts.
    let stderr = BufReader::new(child.stderr.take().unwrap());
    for line in stderr.lines() {
        if line.unwrap().starts_with("step 2: 200 req/s, ") {
            // SAFETY: sending a signal to the child this test started.
            unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
        }
    }
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    let result = common::json(&json);
    assert_eq!(result["interrupted"], true);
    assert_eq!(result["steps"].as_array().unwrap().len(), 1, "the step cut short is dropped");
    assert_eq!(f64_of(&result["rate"]), 100.0);
    assert!(
        stdout.contains(
            "  Ended early   the ladder ended after 1 of 3 steps: interrupted during the step at 200 req/s\n"
        ),
        "{stdout}"
    );
}

#[test]
fn a_step_with_no_success_ends_the_ladder_and_says_so() {
    let _machine = machine::shared();
    let server = serve(|_| status(503, "busy"));
    let (output, _) = jload(&[
        "bench",
        "--rates",
        "100,200",
        "--step-warmup",
        "0s",
        "--step",
        "1s",
        "--min-requests",
        "0",
        // No warm-up until steady: the requests counted below are the steps'.
        "--steady-max",
        "0s",
        "-c",
        "4",
        &server.url("/"),
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "nothing succeeded: {stdout}");
    let ended = stdout.lines().find(|line| line.starts_with("  Ended early")).unwrap_or_else(|| panic!("{stdout}"));
    assert!(
        ended.starts_with(
            "  Ended early   the ladder ended after 1 of 2 steps: no request succeeded at 100 req/s (errors: status "
        ),
        "{ended}"
    );
    assert!(server.requests.load(std::sync::atomic::Ordering::SeqCst) <= 110, "no step at 200 req/s ran");
}

#[test]
fn bad_ladder_flags_exit_2_with_one_line() {
    let url = "http://127.0.0.1:9/";
    let cases: &[(&[&str], &str)] = &[
        (&["--rates", "100,200", "-R", "100"], "-R/--rate does not apply with --rates: each step runs at its own rate"),
        (
            &["--capacity", "p99<=10ms", "-n", "100"],
            "-n/--requests does not apply with --capacity: each step lasts --step-warmup + --step",
        ),
        (
            &["--capacity", "p99<=10ms", "-d", "10s"],
            "-d/--duration does not apply with --capacity: each step lasts --step-warmup + --step",
        ),
        (
            &["--rates", "100", "--hlog", "x.hlog"],
            "--hlog does not apply with --rates: each step is a run of its own; --json holds every step",
        ),
        (
            &["--rates", "100", "--capacity", "p99<10ms"],
            "give --rates (a fixed ladder) or --capacity (a search), not both",
        ),
        (
            &["--rates", "1000..40000"],
            "--rates '1000..40000' cannot be read; write rates like 2000,4000,8000 or 1000..40000:8 (8 steps from 1000 \
             to 40000, geometric)",
        ),
        (
            &["--rates", "4000..1000:3"],
            "--rates '4000..1000:3' goes from 4000 to 1000; the range must rise between two positive rates; write rates \
             like 2000,4000,8000 or 1000..40000:8 (8 steps from 1000 to 40000, geometric)",
        ),
        (&["--precision", "5%"], "--precision applies only with --rates or --capacity"),
        (&["--step", "1s"], "--step applies only with --rates or --capacity"),
        (&["--rates", "100", "--start-rate", "50"], "--start-rate applies only with --capacity, not with --rates"),
        (
            &["--capacity", "p99<10ms", "--start-rate", "500", "--max-rate", "100"],
            "--start-rate 500 is above --max-rate 100; start at or below it",
        ),
        (
            &["--capacity", "p99<10ms", "--precision", "0%"],
            "--precision '0%': give a share above 0 and at most 100 %, like 5%",
        ),
        (&["--capacity", "p99<10ms", "--step", "0s"], "--step must be longer than 0s"),
        (&["--capacity", "p99<10ms,"], "--capacity: an SLO rule is empty; write rules like p99<=10ms,errors<=0.1%"),
    ];
    for (args, message) in cases {
        let mut all = vec!["bench"];
        all.extend_from_slice(args);
        all.push(url);
        let (output, _) = jload(&all);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr, format!("jload: {message}\n"), "{args:?}");
    }
    let (output, _) = jload(&["bench", "--capacity", "p98<1ms", url]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr.starts_with("jload: --capacity: threshold 'p98<1ms': unknown metric 'p98'")
            && stderr.lines().count() == 1
    );
}
