use super::*;
use crate::error::BadInput;
use crate::load::record::recorder::new_histogram;
use crate::load::record::summary::LatencySummary;

/// 2026-01-01T00:00:00Z in µs: the start of the first part of each test.
const T: i64 = 1_767_225_600_000_000;

/// The result of a run that began at `start_us` and answered, second by second, requests of these latencies (µs),
/// each with a 200; open model at `rate` when given.
fn part(start_us: i64, seconds: &[&[u64]], rate: Option<f64>, connections: usize, threads: usize) -> BenchResult {
    part_with_invalid_responses(start_us, seconds, rate, connections, threads, &[])
}

/// A part as [`part`] gives it that also got, in its first second, an invalid response for each of `reasons`.
fn part_with_invalid_responses(
    start_us: i64,
    seconds: &[&[u64]],
    rate: Option<f64>,
    connections: usize,
    threads: usize,
    reasons: &[&str],
) -> BenchResult {
    let mut recorder = Recorder::new(1, rate.is_some());
    let mut series = Vec::new();
    for (second, latencies) in seconds.iter().enumerate() {
        for &latency in *latencies {
            recorder.response(0, latency, latency, 200, true);
        }
        if second == 0 {
            reasons.iter().for_each(|reason| recorder.invalid_response(0, reason));
        }
        series.push(SeriesRow::of(second as u64, 1.0, &recorder.take_interval()));
    }
    let facts = RunFacts {
        url: "http://127.0.0.1:8088/get".to_string(),
        connections,
        streams: 1,
        threads,
        rate,
        duration_s: seconds.len() as f64,
        request_names: vec!["get".to_string()],
        series,
        interrupted: false,
        start_unix_us: Some(start_us),
    };
    BenchResult::build(&recorder, facts)
}

fn labelled(parts: Vec<BenchResult>) -> Vec<(String, BenchResult)> {
    parts.into_iter().enumerate().map(|(index, part)| (format!("gen{}", index + 1), part)).collect()
}

fn histogram_of(latencies: &[u64]) -> hdrhistogram::Histogram<u64> {
    let mut histogram = new_histogram();
    latencies.iter().for_each(|&latency| histogram.record(latency).unwrap());
    histogram
}

#[test]
fn counts_add_and_the_percentiles_are_those_of_every_request_together() {
    let first = part(T, &[&[1_000, 2_000], &[3_000]], None, 2, 1);
    let second = part(T, &[&[10_000], &[1_000, 1_000]], None, 3, 2);
    let merged = merge(&labelled(vec![first, second])).unwrap();
    let every_request = histogram_of(&[1_000, 2_000, 3_000, 10_000, 1_000, 1_000]);
    assert_eq!(merged.latency_ms, LatencySummary::from_histogram(&every_request));
    assert_eq!((merged.latency_ms.p50, merged.latency_ms.max), (1.0, 10.007));
    assert_eq!((merged.requests, merged.connections, merged.threads), (6, 5, 3));
    assert_eq!((merged.duration_s, merged.rps, merged.start_unix_us), (2.0, 3.0, Some(T)));
    assert_eq!(merged.status_codes.get("200"), Some(&6));
    assert_eq!(merged.series.iter().map(|row| row.requests).collect::<Vec<_>>(), vec![3, 3]);
    assert_eq!(merged.series[0].max_ms, 10.007);
    assert_eq!(
        merged.hosts.iter().map(|host| (host.label.as_str(), host.requests)).collect::<Vec<_>>(),
        [("gen1", 3), ("gen2", 3)]
    );
    let histograms = merged.histograms.expect("a merged result carries its histograms");
    assert_eq!(histogram_codec::decode(&histograms.total).unwrap(), every_request);
}

#[test]
fn a_hosts_figures_are_its_own_latencies_as_fields_of_its_json_and_read_back() {
    let first = part(T, &[&[1_000, 2_000], &[3_000]], None, 2, 1);
    let merged = merge(&labelled(vec![first.clone(), part(T, &[&[10_000]], None, 1, 1)])).unwrap();
    let host = &merged.hosts[0];
    let own = |key: &str| host.latency.get(key);
    let expected = (Some(first.latency_ms.p50), Some(first.latency_ms.p99), Some(first.latency_ms.max));
    assert_eq!((own("p50_ms"), own("p99_ms"), own("max_ms")), expected);
    assert_eq!(own("p95_ms"), None, "only the per-request view's figures are kept");
    // The record's JSON as before the figures came from the registry: the three fields between rps and errors.
    let json = serde_json::to_string(host).unwrap();
    let [p50, p99, max] = [expected.0, expected.1, expected.2].map(|ms| ms.unwrap());
    let fields = format!(r#""rps":{},"p50_ms":{p50:?},"p99_ms":{p99:?},"max_ms":{max:?},"errors":0,"#, host.rps);
    assert!(json.contains(&fields), "{json}");
    let back: crate::load::record::result::HostFigures = serde_json::from_str(&json).unwrap();
    assert_eq!(&back, host);
}

#[test]
fn a_part_that_started_2_s_later_lands_2_rows_later_and_the_run_spans_both() {
    let first = part(T, &[&[1_000], &[1_000], &[1_000]], None, 1, 1);
    // 2.4 s later: rounded to the nearest second.
    let later = part(T + 2_400_000, &[&[5_000, 5_000], &[5_000]], None, 1, 1);
    let merged = merge(&labelled(vec![first, later])).unwrap();
    assert_eq!(merged.series.iter().map(|row| row.requests).collect::<Vec<_>>(), vec![1, 1, 3, 1]);
    assert_eq!(merged.series.iter().map(|row| row.second).collect::<Vec<_>>(), vec![0, 1, 2, 3]);
    assert_eq!((merged.series[1].max_ms, merged.series[2].max_ms, merged.series[3].max_ms), (1.0, 5.003, 5.003));
    assert_eq!((merged.duration_s, merged.start_unix_us), (4.4, Some(T)));
    assert_eq!(merged.series.iter().map(|row| row.duration_s).collect::<Vec<_>>(), vec![1.0, 1.0, 1.0, 1.0]);
}

#[test]
fn open_model_rates_due_and_slips_add_and_the_busiest_thread_is_the_busiest_of_all() {
    let mut first = part(T, &[&[1_000, 1_000]], Some(100.0), 4, 1);
    let mut second = part(T, &[&[2_000]], Some(50.0), 2, 1);
    for (result, slips, due, cpu) in [(&mut first, &[500, 3_000][..], 2, 30.0), (&mut second, &[8_000][..], 1, 70.0)] {
        let histograms = result.histograms.as_mut().unwrap();
        histograms.slips = Some(histogram_codec::encode(&histogram_of(slips)));
        result.due = Some(due);
        let generator = result.generator.as_mut().unwrap();
        generator.slipped = slips.iter().filter(|&&slip| slip > 1_000).count() as u64;
        generator.busiest_thread_cpu_pct = cpu;
    }
    let merged = merge(&labelled(vec![first, second])).unwrap();
    assert_eq!((merged.rate, merged.due, merged.model.as_str()), (Some(150.0), Some(3), "open"));
    let generator = merged.generator.unwrap();
    assert_eq!((generator.slipped, generator.slip_max_ms, generator.busiest_thread_cpu_pct), (2, 8.003, 70.0));
    assert_eq!(
        merged.hosts.iter().map(|host| host.busiest_thread_cpu_pct).collect::<Vec<_>>(),
        [Some(30.0), Some(70.0)]
    );
    // 3 requests in 1 s of 150 requested: the target did not sustain the rate, recomputed on the merged figures.
    assert_eq!(merged.limited_by.map(|limit| limit.side), Some(crate::load::record::outcomes::Side::Target));
}

#[test]
fn slow_requests_move_onto_the_earliest_start() {
    let mut later = part(T + 2_000_000, &[&[9_000]], None, 1, 1);
    let slow = SlowRequest { done_us: 100, latency_us: 9_000, service_us: 9_000, request: 0, failed: false };
    later.slow = SlowRequests::from_parts(SlowRequests::default().info(), vec![slow]);
    later.slow.offered = 1;
    later.slow_requests = Some(later.slow.info());
    let merged = merge(&labelled(vec![part(T, &[&[1_000]], None, 1, 1), later])).unwrap();
    assert_eq!(merged.slow.kept.iter().map(|request| request.done_us).collect::<Vec<_>>(), vec![2_000_100]);
    assert_eq!(merged.slow_requests.map(|info| (info.kept, info.offered)), Some((1, 1)));
}

#[test]
fn a_part_read_back_from_json_leaves_the_slow_requests_unknown() {
    let mut from_json = part(T, &[&[1_000]], None, 1, 1);
    from_json.slow_requests = Some(SlowRequests::default().info());
    from_json.slow_requests.as_mut().unwrap().offered = 1;
    let merged = merge(&labelled(vec![part(T, &[&[1_000]], None, 1, 1), from_json])).unwrap();
    assert_eq!(merged.slow_requests, None);
}

fn refusal(parts: Vec<BenchResult>) -> String {
    let err = merge(&labelled(parts)).unwrap_err();
    assert!(err.downcast_ref::<BadInput>().is_some(), "bad input: {err}");
    err.to_string()
}

#[test]
fn a_part_without_histograms_a_ladder_another_model_or_other_requests_is_refused_by_name() {
    let run = || part(T, &[&[1_000]], None, 1, 1);
    let old = BenchResult { histograms: None, ..run() };
    assert!(refusal(vec![run(), old]).starts_with("gen2 has no histograms"));
    let mut old_series = run();
    old_series.series[0].histogram = None;
    assert!(refusal(vec![old_series, run()]).starts_with("gen1 has no histograms"));
    let open = part(T, &[&[1_000]], Some(10.0), 1, 1);
    assert!(refusal(vec![run(), open]).contains("gen2 is an open-model run and gen1 a closed-model one"));
    let mut mix = run();
    mix.per_request = vec![crate::load::record::result::RequestResult {
        name: "set".to_string(),
        requests: 1,
        rps: 1.0,
        latency_ms: LatencySummary::default(),
        errors: ErrorSummary::default(),
        status_codes: Default::default(),
    }];
    mix.histograms.as_mut().unwrap().per_request = vec![histogram_codec::encode(&new_histogram())];
    assert!(refusal(vec![run(), mix]).contains("gen2 sends the requests [set] and gen1 []"));
    let mut ladder = run();
    ladder.steps = vec![crate::load::record::outcomes::Step {
        requested_rps: 10.0,
        achieved_rps: 10.0,
        duration_s: 1.0,
        requests: 10,
        latency_ms: LatencySummary::default(),
        errors: ErrorSummary::default(),
        error_pct: Some(0.0),
        never_sent: 0,
        unfinished: 0,
        limited_by: None,
        meets_slo: None,
        windows: 1,
        rare: None,
    }];
    assert!(refusal(vec![run(), ladder]).starts_with("gen2 is a rate ladder or capacity search"));
    assert_eq!(refusal(Vec::new()), "nothing to merge: give the results of at least one run");
}

#[test]
fn one_part_merged_alone_keeps_its_figures() {
    let alone = part(T, &[&[1_000, 2_000, 70_000], &[3_000]], Some(4.0), 2, 1);
    let merged = merge(&labelled(vec![alone.clone()])).unwrap();
    assert_eq!((merged.latency_ms, merged.latency_uncorrected_ms), (alone.latency_ms, alone.latency_uncorrected_ms));
    assert_eq!((merged.requests, merged.rps, merged.duration_s), (alone.requests, alone.rps, alone.duration_s));
    assert_eq!((&merged.series, &merged.histograms), (&alone.series, &alone.histograms));
}

#[test]
fn invalid_responses_add_up_and_keep_the_first_parts_reason() {
    let clean = part(T, &[&[1_000]], None, 1, 1);
    let first = part_with_invalid_responses(T, &[&[1_000]], None, 1, 1, &["not an HTTP/1.x status line: 0x8f", "b"]);
    let second = part_with_invalid_responses(T, &[&[1_000]], None, 1, 1, &["invalid chunk size line: \"zz\""]);
    // As `jload merge` gets them: read back from their JSON.
    let read_back =
        |part: &BenchResult| -> BenchResult { serde_json::from_str(&serde_json::to_string(part).unwrap()).unwrap() };
    let merged = merge(&labelled(vec![read_back(&clean), read_back(&first), read_back(&second)])).unwrap();
    assert_eq!((merged.errors.classes.invalid_response, merged.errors.total, merged.requests), (3, 3, 6));
    assert_eq!(merged.errors.invalid_response_reason.as_deref(), Some("not an HTTP/1.x status line: 0x8f"));
    let merged = merge(&labelled(vec![read_back(&second), read_back(&first)])).unwrap();
    assert_eq!(merged.errors.invalid_response_reason.as_deref(), Some("invalid chunk size line: \"zz\""));
}
