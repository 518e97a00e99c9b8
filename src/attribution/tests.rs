//! The attribution on synthetic runs whose answers are computed by hand: a run of 10 s with a 10 ms stop at 0.5 s
//! into every second, 10,000 requests of which the store kept the slow ones, placed against the stops on purpose.

use super::*;
use crate::jvm::clock::ClockSource;

const SECOND: i64 = 1_000_000;
const RUN_US: u64 = 10 * SECOND as u64;
/// Every request below the store's threshold is at most this (µs).
const THRESHOLD_US: u64 = 1_500;

fn clock(error_ms: f64) -> UptimeClock {
    UptimeClock { zero_unix_us: 1_700_000_000_000_000, error_ms, source: ClockSource::GcLog, cross_check_ms: None }
}

/// A 10 ms stop of `kind` at 0.5 s into each of the 10 seconds.
fn every_second(kind: StopKind, offset_us: i64) -> Vec<Window> {
    (0..10)
        .map(|second| {
            let start_us = second * SECOND + SECOND / 2 + offset_us;
            Window { start_us, end_us: start_us + 10_000, kind }
        })
        .collect()
}

fn request(began_us: i64, latency_us: u32) -> SlowRequest {
    let done_us = began_us as u64 + u64::from(latency_us);
    SlowRequest { done_us, latency_us, service_us: latency_us, request: 0, failed: false }
}

/// 12 ms requests: `meeting` of them began 2 ms before a stop at 0.5 s into a second (and end with it, plus up to
/// 9 µs: it holds 10 ms of the stop), the others 12 ms requests at 0.2 s, far from any; 10 per second.
fn slow_requests(meeting: usize, total: usize) -> Vec<SlowRequest> {
    (0..total)
        .map(|index| {
            let (second, nth) = ((index / 10) as i64, (index % 10) as i64);
            let at = if index < meeting { SECOND / 2 - 2_000 } else { SECOND / 5 };
            request(second * SECOND + at + nth, 12_000)
        })
        .collect()
}

/// 100 quiet 3 ms requests, ten per second at 0.1 s + 3 ms × n: none meets a stop at 0.5 s.
fn quiet_requests() -> Vec<SlowRequest> {
    (0..100).map(|index| request((index / 10) * SECOND + SECOND / 10 + (index % 10) * 3_000, 3_000)).collect()
}

/// A run of 10,000 requests whose store kept `kept` (every one above [`THRESHOLD_US`]).
fn run(kept: Vec<SlowRequest>) -> SlowRequests {
    let mut slow = SlowRequests::with_capacity(kept.len().max(2));
    slow.threshold_us = THRESHOLD_US;
    slow.offered = 10_000;
    slow.kept = kept;
    slow
}

/// A latency as the engine's histogram reports it (the top of its bucket), in ms: 3,000 µs is 3.001 ms.
fn ms(us: u64) -> f64 {
    tails::bucket_top_us(us) as f64 / 1000.0
}

fn names() -> Vec<String> {
    vec!["GET /kv/{key}".to_string()]
}

fn attribute_slow(meeting: usize, windows: &[Window]) -> GcAttribution {
    let kept = [slow_requests(meeting, 100), quiet_requests()].concat();
    attribute(&run(kept), &names(), windows, RUN_US, clock(0.0))
}

#[test]
fn stops_are_placed_on_the_runs_clock_through_the_uptime_mapping() {
    let clock = clock(0.2);
    let stops = [
        Stop { start_s: 12.5, duration_ms: 3.25, kind: StopKind::GcPause, what: "Pause Young".to_string() },
        Stop { start_s: 9.0, duration_ms: 0.012, kind: StopKind::Safepoint, what: "ICBufferFull".to_string() },
    ];
    // The run started at uptime 10 s.
    let windows = on_run_clock(&stops, &clock, clock.zero_unix_us + 10 * SECOND);
    assert_eq!(
        windows,
        vec![
            Window { start_us: 2_500_000, end_us: 2_503_250, kind: StopKind::GcPause },
            Window { start_us: -1_000_000, end_us: -999_988, kind: StopKind::Safepoint },
        ]
    );
}

#[test]
fn a_tail_inside_the_pauses_is_blamed_on_gc() {
    let attribution = attribute_slow(100, &every_second(StopKind::GcPause, 0));
    let p99 = &attribution.p99;
    // 10,000 requests: 100 above p99 (rank 9,900), the 12 ms ones; p99 itself is the slowest 3 ms request.
    assert_eq!((p99.requests, p99.examined, p99.gc_overlap, p99.safepoint_overlap), (100, 100, 100, 0));
    assert_eq!((p99.above_ms, p99.percentile_ms), (ms(3_000), ms(3_000)));
    assert_eq!(p99.percentile_ms, 3.001, "as the histogram reports 3,000 µs: the top of its bucket");
    // Chance for 12 ms: (10 × 10 ms covered + 10 × 12 ms before them) / 10 s = 2.2 %.
    assert!((p99.gc_chance - 0.022).abs() < 1e-12, "{}", p99.gc_chance);
    assert_eq!((attribution.gc_time_share, p99.gc_time_share), (0.01, 0.01));
    assert_eq!(p99.gc_latency_share, 10.0 / 12.0, "10 ms of each 12 ms request inside a pause");
    // Without the 10 ms each held, the 12 ms requests are 2 ms: p99 (position 101) is then 2 ms, exactly (above
    // the 1.5 ms threshold); p99.9 (position 11) is a 3 ms request instead of a 12 ms one.
    assert_eq!((p99.recomputed_ms, p99.recomputed_at_most), (2.0, false));
    assert_eq!(
        (attribution.p999.requests, attribution.p999.percentile_ms, attribution.p999.recomputed_ms),
        (10, ms(12_000), ms(3_000))
    );
    let verdict = &attribution.verdict;
    assert_eq!((verdict.kind, verdict.rule), (VerdictKind::Gc, Some(VerdictRule::GcMakesTheTail)));
    assert!((verdict.p99_drop - (3.001 - 2.0) / 3.001).abs() < 1e-12, "{}", verdict.p99_drop);
    assert_eq!(
        verdict.summary,
        "p99 3.001 → 2.000 ms without GC (−33 %, at least the 10 % that makes GC a cause); 100 % of 100 requests \
         above p99 overlapped GC pauses (chance 2.2 %)"
    );
    assert_eq!(
        verdict.text,
        format!(
            "GC makes this tail: {}. Without GC pauses, p99.9 would be 3.001 ms instead of 12.01 ms",
            verdict.summary
        )
    );
}

#[test]
fn the_slowest_hundred_and_the_unexplained_requests() {
    let attribution = attribute_slow(100, &every_second(StopKind::GcPause, 0));
    let slowest = &attribution.slowest;
    assert_eq!((slowest.requests, slowest.examined, slowest.gc_overlap), (100, 100, 100));
    assert_eq!((slowest.above_ms, slowest.percentile_ms, slowest.recomputed_ms), (ms(12_000), ms(12_000), ms(3_000)));
    // The ten slowest that met nothing are 3 ms requests, the earliest first.
    assert_eq!(attribution.unexplained.len(), 10);
    assert_eq!(
        attribution.unexplained[0],
        TailRequest { at_s: 0.1, latency_ms: 3.0, request: "GET /kv/{key}".to_string() }
    );
    assert_eq!(attribution.unexplained[9].at_s, 0.127);
    assert_eq!(attribution.stops, StopCounts { gc_pauses: 10, longest_gc_pause_ms: 10.0, ..StopCounts::default() });
}

#[test]
fn a_tail_meeting_pauses_as_often_as_chance_is_not_gc() {
    // 2 of the 100 meet a pause: 2 % against 2.2 % by chance.
    let attribution = attribute_slow(2, &every_second(StopKind::GcPause, 0));
    assert_eq!(attribution.p99.gc_overlap, 2);
    assert_eq!(attribution.p99.recomputed_ms, ms(3_000), "the 98 untouched 12 ms requests hold p99 where it was");
    assert_eq!(
        (attribution.verdict.kind, attribution.verdict.rule),
        (VerdictKind::NotGc, Some(VerdictRule::AboutChance))
    );
    assert_eq!(
        attribution.verdict.text,
        "GC does not explain this tail: p99 3.001 → 3.001 ms without GC (unchanged, below the 10 % that makes GC a \
         cause); 2.0 % of 100 requests above p99 overlapped GC pauses, no more than chance gives (2.2 %)"
    );
}

#[test]
fn a_third_of_the_tail_in_the_pauses_that_leaves_p99_where_it_was_is_not_gc() {
    // 30 % of the tail met a pause, far beyond chance, but the 70 untouched 12 ms requests hold p99 where it was.
    let attribution = attribute_slow(30, &every_second(StopKind::GcPause, 0));
    assert_eq!(attribution.p99.gc_overlap, 30);
    let verdict = &attribution.verdict;
    assert_eq!((verdict.kind, verdict.rule), (VerdictKind::NotGc, Some(VerdictRule::OverlapWithoutEffect)));
    assert_eq!(verdict.p99_drop, 0.0);
    assert_eq!(
        verdict.text,
        "GC overlapped this tail but is not what makes it: p99 3.001 → 3.001 ms without GC (unchanged, below the \
         10 % that makes GC a cause); 30 % of 100 requests above p99 overlapped GC pauses, beyond chance (2.2 %), yet \
         their time is not what makes these requests slow"
    );
}

#[test]
fn a_p99_that_falls_without_gc_though_most_of_the_tail_met_none_is_partly_gc() {
    // 40 requests of 12 ms hold 10 ms of a pause each; 90 of 11 ms meet none. The p99 tail is the 40 and 60 of the
    // 90, p99 an 11 ms request; without GC the 40 are 2 ms, and p99 (position 101) is a 3 ms quiet request.
    let meeting = slow_requests(40, 40);
    let others = (0..90).map(|index| request((index / 9) * SECOND + SECOND / 5 + index % 9, 11_000));
    let kept = [meeting, others.collect(), quiet_requests()].concat();
    let attribution = attribute(&run(kept), &names(), &every_second(StopKind::GcPause, 0), RUN_US, clock(0.0));
    let p99 = &attribution.p99;
    assert_eq!((p99.examined, p99.gc_overlap), (100, 40));
    assert_eq!((p99.percentile_ms, p99.recomputed_ms), (ms(11_000), ms(3_000)));
    let verdict = &attribution.verdict;
    assert_eq!((verdict.kind, verdict.rule), (VerdictKind::PartlyGc, Some(VerdictRule::GcMakesPart)));
    assert_eq!(
        verdict.summary,
        "p99 11.01 → 3.001 ms without GC (−73 %, at least the 10 % that makes GC a cause); only 40 % of 100 requests \
         above p99 overlapped GC pauses (chance 2.1 %): the rest of the tail is slow for another reason"
    );
}

#[test]
fn a_tail_inside_other_safepoints_is_blamed_on_them() {
    // Safepoints where the slow requests are, GC pauses 100 ms later, away from them.
    let windows = [every_second(StopKind::Safepoint, 0), every_second(StopKind::GcPause, 100_000)].concat();
    let attribution = attribute_slow(100, &windows);
    let p99 = &attribution.p99;
    assert_eq!((p99.gc_overlap, p99.safepoint_overlap), (0, 100));
    assert!((p99.safepoint_chance - 0.022).abs() < 1e-12, "{}", p99.safepoint_chance);
    assert_eq!(p99.recomputed_ms, p99.percentile_ms, "only GC time is taken out");
    assert_eq!(attribution.safepoint_time_share, 0.01);
    assert_eq!(attribution.verdict.kind, VerdictKind::Safepoint);
    assert_eq!(
        attribution.verdict.text,
        "Safepoints that are not GC make this tail: 100 % of 100 requests above p99 overlapped safepoints that are \
         not GC (chance 2.2 %; the longest 10 ms); p99 3.001 → 3.001 ms without GC (unchanged, below the 10 % that \
         makes GC a cause)"
    );
    assert!(attribution.unexplained.iter().all(|request| request.latency_ms == 3.0));
}

#[test]
fn stalls_explain_a_tail_as_pauses_do() {
    let attribution = attribute_slow(100, &every_second(StopKind::GcStall, 0));
    assert_eq!(attribution.verdict.kind, VerdictKind::Gc);
    assert!(attribution.verdict.text.starts_with("GC makes this tail: p99 3.001 → 2.000 ms without GC (−33 %"));
    assert!(
        attribution.verdict.summary.ends_with("100 % of 100 requests above p99 overlapped GC stalls (chance 2.2 %)")
    );
}

#[test]
fn a_run_without_gc_stops_is_not_gc() {
    let attribution = attribute_slow(100, &[]);
    assert_eq!((attribution.p99.gc_overlap, attribution.p99.gc_chance), (0, 0.0));
    assert_eq!(attribution.verdict.kind, VerdictKind::NotGc);
    assert_eq!(attribution.verdict.text, "GC does not explain this tail: no GC pause or stall during the run");
    assert_eq!(attribution.verdict.rule, Some(VerdictRule::NoGcStop));
    assert_eq!(attribution.unexplained.len(), 10);
    assert_eq!(attribution.unexplained[0].latency_ms, 12.0, "a request's own latency, not a histogram figure");
}

#[test]
fn too_few_requests_above_p99_cannot_tell() {
    // 1,000 requests: 10 above p99.
    let mut slow = run(slow_requests(10, 10));
    slow.offered = 1_000;
    let attribution = attribute(&slow, &names(), &every_second(StopKind::GcPause, 0), RUN_US, clock(0.0));
    assert_eq!((attribution.p99.requests, attribution.p99.gc_overlap), (10, 10));
    assert_eq!(attribution.verdict.kind, VerdictKind::CannotTell);
    assert_eq!(
        attribution.verdict.text,
        "Cannot tell: 10 requests above p99, at least 20 are needed (run longer or at a higher rate)"
    );
}

/// A 10 ms stop of `kind` every 20 ms from `offset_us` on, over the whole run: half of its time.
fn every_twenty_ms(kind: StopKind, offset_us: i64) -> Vec<Window> {
    (0..500)
        .map(|n| Window { start_us: n * 20_000 + offset_us, end_us: n * 20_000 + offset_us + 10_000, kind })
        .collect()
}

#[test]
fn pauses_everywhere_that_leave_p99_where_it_was_are_saturation_not_gc() {
    // A 12 ms request meets a 10 ms pause every 20 ms (10 + 12) / 20 of the time, beyond chance's ceiling; the slow
    // requests, [0.498 s, 0.510 s] in each second (plus 0–9 µs), hold 5 ms (plus those µs) of the pause at 0.505 s:
    // 42 % of their time, less than the 50 % of the run the pauses cover.
    let attribution = attribute_slow(100, &every_twenty_ms(StopKind::GcPause, 5_000));
    assert!(attribution.p99.gc_chance >= 0.99, "{}", attribution.p99.gc_chance);
    assert_eq!(
        (attribution.p99.gc_time_share, attribution.p99.gc_latency_share),
        (0.5, (100.0 * 5_000.0 + 10.0 * 45.0) / (100.0 * 12_000.0))
    );
    let verdict = &attribution.verdict;
    assert_eq!((verdict.kind, verdict.rule), (VerdictKind::NotGc, Some(VerdictRule::Saturation)));
    assert_eq!(
        verdict.text,
        "GC overlapped this tail but is not what makes it: p99 3.001 → 3.001 ms without GC (unchanged, below the 10 % \
         that makes GC a cause); 100 % of 100 requests above p99 overlapped GC pauses, chance 100 %: saturation, \
         requests this long meet GC whatever slows them. Without GC pauses, p99.9 would be 6.999 ms instead of \
         12.01 ms"
    );
}

#[test]
fn a_tail_that_spent_most_of_its_time_in_stalls_that_are_everywhere_is_gc() {
    // The same storm of 10 ms stalls every 20 ms, now at 0.500 s: each slow request spends 10 of its 12 ms in one.
    let attribution = attribute_slow(100, &every_twenty_ms(StopKind::GcStall, 0));
    assert_eq!(attribution.p99.gc_latency_share, 10.0 / 12.0);
    // Overlap cannot tell (chance is 100 %); the GC's time can: without it p99 falls by a third.
    let verdict = &attribution.verdict;
    assert_eq!((verdict.kind, verdict.rule), (VerdictKind::Gc, Some(VerdictRule::GcMakesTheTail)), "{}", verdict.text);
    assert!(verdict.summary.ends_with("100 % of 100 requests above p99 overlapped GC stalls (chance 100 %)"));
}

#[test]
fn a_tail_that_met_gc_far_less_often_than_chance_is_not_saturation_but_about_chance() {
    // 2 ms pauses every 20 ms from 11 ms on: a 12 ms request meets one (2 + 12) / 20 = 70 % of the time by chance,
    // but the slow ones, [0.498 s, 0.510 s] in each second, fit between those at 0.491 s and 0.511 s.
    let windows: Vec<Window> = (0..500)
        .map(|n| Window { start_us: n * 20_000 + 11_000, end_us: n * 20_000 + 13_000, kind: StopKind::GcPause })
        .collect();
    let attribution = attribute_slow(100, &windows);
    assert_eq!(attribution.p99.gc_overlap, 0);
    assert!((attribution.p99.gc_chance - 0.7).abs() < 1e-3, "{}", attribution.p99.gc_chance);
    let verdict = &attribution.verdict;
    assert_eq!((verdict.kind, verdict.rule), (VerdictKind::NotGc, Some(VerdictRule::AboutChance)), "{}", verdict.text);
    assert!(
        verdict
            .summary
            .ends_with("0 % of 100 requests above p99 overlapped GC pauses, no more than chance gives (70 %)"),
        "{}",
        verdict.summary
    );
}

#[test]
fn the_clock_error_widens_the_stops_a_request_may_have_met() {
    // The pauses mapped 2 ms after the slow requests end: no overlap as mapped, but
    // with a clock known to ± 3 ms each may have met one.
    let late = every_second(StopKind::GcPause, 12_000);
    let exact = attribute_slow(100, &late);
    assert_eq!(exact.p99.gc_overlap, 0);
    let kept = [slow_requests(100, 100), quiet_requests()].concat();
    let widened = attribute(&run(kept), &names(), &late, RUN_US, clock(3.0));
    assert_eq!((widened.p99.gc_overlap, widened.clock_error_ms), (100, 3.0));
    // Chance grows alike: the windows are 16 ms wide now, (160 + 120) / 10,000.
    assert!((widened.p99.gc_chance - 0.028).abs() < 1e-12, "{}", widened.p99.gc_chance);
    // Nothing is taken out: as mapped, the requests held no pause time.
    assert_eq!(widened.p99.recomputed_ms, widened.p99.percentile_ms);
}

#[test]
fn a_hundred_thousand_request_tail_is_attributed_exactly_and_fast() {
    // 10 million requests; the store kept 200,000: 100,000 of 12 ms each holding 10 ms of a pause, and 100,000 of
    // 3 ms away from them. 10,000 pauses of 10 ms, one every 100 ms of a 1,000 s run.
    let pause_start = |n: i64| n * 100_000 + 50_000;
    let windows: Vec<Window> = (0..10_000)
        .map(|n| Window { start_us: pause_start(n), end_us: pause_start(n) + 10_000, kind: StopKind::GcPause })
        .collect();
    let meeting = (0..100_000).map(|index| request(pause_start(index / 10) - 2_000 + index % 10, 12_000));
    let quiet = (0..100_000).map(|index| request((index / 10) * 100_000 + 10_000 + (index % 10) * 3_000, 3_000));
    let mut slow = run(meeting.chain(quiet).collect());
    slow.offered = 10_000_000;
    let started = std::time::Instant::now();
    let attribution = attribute(&slow, &names(), &windows, 1_000 * SECOND as u64, clock(0.0));
    let elapsed = started.elapsed();
    let p99 = &attribution.p99;
    assert_eq!((p99.requests, p99.examined, p99.gc_overlap), (100_000, 100_000, 100_000));
    // Chance for 12 ms against 10 ms every 100 ms: 22 %.
    assert!((p99.gc_chance - 0.22).abs() < 1e-12, "{}", p99.gc_chance);
    assert_eq!((p99.percentile_ms, p99.recomputed_ms), (ms(3_000), 2.0));
    assert_eq!(attribution.verdict.kind, VerdictKind::Gc);
    // A quadratic pass (every request against every pause: 2·10⁹ tests) would take minutes even in release.
    assert!(elapsed.as_secs_f64() < 10.0, "{elapsed:?}");
}

#[test]
fn the_printout_gives_the_verdict_the_tails_the_stops_the_clock_and_the_unexplained() {
    let mut attribution = attribute_slow(100, &every_second(StopKind::GcPause, 0));
    attribution.clock = UptimeClock {
        error_ms: 0.21,
        source: ClockSource::PerfdataAndGcLog,
        cross_check_ms: Some(0.05),
        ..attribution.clock
    };
    let expected = "  Is it the GC?  GC makes this tail: p99 3.001 → 2.000 ms without GC (−33 %, at least the 10 % that makes GC a cause);
                 100 % of 100 requests above p99 overlapped GC pauses (chance 2.2 %).
                 Without GC pauses, p99.9 would be 3.001 ms instead of 12.01 ms.
                 tail         requests  overlapped GC  chance  other safepoints  chance  ms → without GC
                 p99               100    100 (100 %)   2.2 %           0 (0 %)     0 %  3.001 → 2.000
                 p99.9              10     10 (100 %)   2.2 %           0 (0 %)     0 %  12.01 → 3.001
                 slowest 100       100    100 (100 %)   2.2 %           0 (0 %)     0 %  12.01 → 3.001
                 stops in the run: 10 GC pauses (longest 10.00 ms); GC 1.0 % of the time
                 clock: uptime from PerfData and the GC log, ± 0.210 ms (sources 0.050 ms apart); stops widened by it
                 slowest requests that met no stop (look elsewhere: locks, the network, the generator):
                   at 0.100 s  3.000 ms  GET /kv/{key}
                   at 0.103 s  3.000 ms  GET /kv/{key}
                   at 0.106 s  3.000 ms  GET /kv/{key}
                   at 0.109 s  3.000 ms  GET /kv/{key}
                   at 0.112 s  3.000 ms  GET /kv/{key}
                 (10 in the JSON)
";
    assert_eq!(render(&attribution), expected);
}

#[test]
fn a_tail_the_store_kept_in_part_and_a_bounded_recomputation_are_marked_in_the_printout() {
    // A third of the tail in GC stops of both kinds, safepoints beside: the longest verdict and stops line.
    let windows = [
        every_second(StopKind::GcPause, 0),
        every_second(StopKind::GcStall, 100_000),
        every_second(StopKind::Safepoint, 200_000),
    ]
    .concat();
    let mut attribution = attribute_slow(30, &windows);
    (attribution.p99.examined, attribution.p99.gc_overlap, attribution.p99.recomputed_at_most) = (80, 80, true);
    let printed = render(&attribution);
    assert!(printed.lines().all(|line| line.chars().count() <= 120), "{printed}");
    let row = printed.lines().find(|line| line.trim_start().starts_with("p99 ")).unwrap();
    assert_eq!(
        row.split_whitespace().collect::<Vec<_>>(),
        [
            "p99", "100", "(80", "kept)", "80", "(100", "%)", "4.4", "%", "0", "(0", "%)", "2.2", "%", "3.001", "→",
            "≤", "3.001"
        ]
    );
}

/// A p99 tail of `examined` requests, `overlap` of them over GC against `chance`, p99 `measured` → `without` ms.
fn tail_of(examined: u64, overlap: u64, chance: f64, measured: f64, without: f64, at_most: bool) -> TailShare {
    TailShare {
        requests: examined,
        examined,
        above_ms: measured,
        gc_overlap: overlap,
        safepoint_overlap: 0,
        gc_time_share: 0.03,
        gc_chance: chance,
        safepoint_chance: 0.0,
        percentile_ms: measured,
        recomputed_ms: without,
        percentile_at_most: false,
        recomputed_at_most: at_most,
        gc_latency_share: 0.03,
        quota: None,
    }
}

#[test]
fn the_cases_issue_21_reported_are_judged_by_their_effect() {
    let pauses = StopCounts { gc_pauses: 40, longest_gc_pause_ms: 20.0, ..StopCounts::default() };
    let stalls = StopCounts { gc_stalls: 400, ..pauses };
    let judged = |p99: TailShare, stops: &StopCounts| {
        let verdict = verdict(&p99, &p99, stops);
        (verdict.kind, verdict.rule.unwrap())
    };
    // 10,000 connections: 83 % of the tail overlapped GC, chance 81 %, p99 454.0 → 441.9 ms: saturation, not GC.
    let c10000 = tail_of(2226, 1848, 0.81, 454.0, 441.9, false);
    assert_eq!(judged(c10000, &pauses), (VerdictKind::NotGc, VerdictRule::Saturation));
    // 1,000 connections: 89 % against 92 % by chance, 48.61 → 48.24 ms (once "partly GC").
    let c1000 = tail_of(2226, 1981, 0.92, 48.61, 48.24, false);
    assert_eq!(judged(c1000, &pauses), (VerdictKind::NotGc, VerdictRule::Saturation));
    // Tomcat, -Xmx256m Shenandoah: 70 % of 159 overlapped against 2.5 %, p99 9.496 → 9.496 ms (once "GC").
    let shenandoah = tail_of(159, 111, 0.025, 9.496, 9.496, false);
    assert_eq!(judged(shenandoah, &pauses), (VerdictKind::NotGc, VerdictRule::OverlapWithoutEffect));
    // Tomcat, -Xmx32m ZGC: 100 % against 100 %, p99 264.7 → ≤ 165.2 ms (once "not GC"): GC.
    let zgc = tail_of(159, 159, 1.0, 264.7, 165.2, true);
    let verdict = verdict(&zgc, &zgc, &stalls);
    assert_eq!((verdict.kind, verdict.rule), (VerdictKind::Gc, Some(VerdictRule::GcMakesTheTail)));
    assert!(
        verdict.summary.starts_with(
            "p99 264.7 → ≤ 165.2 ms without GC (at least −38 %, at least the 10 % that makes GC a cause); 100 % of 159 \
             requests above p99 overlapped GC pauses and stalls (chance 100 %)"
        ),
        "{}",
        verdict.summary
    );
}

#[test]
fn a_tail_inside_the_quotas_stretches_is_blamed_on_the_quota() {
    let attribution = attribute_slow(100, &every_second(StopKind::CpuThrottled, 0));
    let p99 = &attribution.p99;
    assert_eq!((p99.gc_overlap, p99.safepoint_overlap, p99.recomputed_ms), (0, 0, ms(3_000)), "no GC at all");
    let quota = p99.quota.as_ref().expect("the run had throttled stretches");
    // As with GC pauses: 100 of 100 overlapped, chance 2.2 %, and without the 10 ms each held p99 is 2 ms.
    assert_eq!((quota.overlap, quota.recomputed_ms, quota.recomputed_at_most), (100, 2.0, false));
    assert!((quota.chance - 0.022).abs() < 1e-12, "{}", quota.chance);
    assert_eq!(attribution.quota_time_share, Some(0.01));
    assert_eq!((attribution.stops.throttled_periods, attribution.stops.longest_throttled_ms), (10, 10.0));
    let verdict = &attribution.verdict;
    assert_eq!((verdict.kind, verdict.rule), (VerdictKind::CpuQuota, Some(VerdictRule::QuotaMakesTheTail)));
    assert_eq!(verdict.p99_drop, 0.0);
    assert!((verdict.quota_p99_drop.unwrap() - (3.001 - 2.0) / 3.001).abs() < 1e-12, "{:?}", verdict.quota_p99_drop);
    assert_eq!(
        verdict.summary,
        "p99 3.001 → 2.000 ms without the time the quota held the JVM back (−33 %, at least the 10 % that makes it a \
         cause); 100 % of 100 requests above p99 overlapped throttled periods (chance 2.2 %)"
    );
    assert_eq!(verdict.text, format!("The CPU quota makes this tail: {}", verdict.summary));
    // A request that waited through a throttled stretch is explained: the unexplained are the quiet ones.
    assert!(attribution.unexplained.iter().all(|request| request.latency_ms == 3.0), "{:?}", attribution.unexplained);
}

#[test]
fn an_overlap_with_the_quotas_stretches_alone_is_no_cause_and_the_verdict_does_not_mention_it() {
    // 20 µs stretches at the very end of each 12 ms request: every one overlaps, but p99 does not move.
    let windows = every_second(StopKind::CpuThrottled, 9_990)
        .into_iter()
        .map(|window| Window { end_us: window.start_us + 20, ..window })
        .collect::<Vec<_>>();
    let attribution = attribute_slow(100, &windows);
    let quota = attribution.p99.quota.as_ref().unwrap();
    assert_eq!((quota.overlap, quota.recomputed_ms), (100, ms(3_000)));
    let verdict = &attribution.verdict;
    assert_eq!((verdict.kind, verdict.rule), (VerdictKind::NotGc, Some(VerdictRule::NoGcStop)));
    assert_eq!(verdict.quota_p99_drop, Some(0.0));
    assert_eq!(verdict.text, "GC does not explain this tail: no GC pause or stall during the run");
}

#[test]
fn with_gc_pauses_and_the_quota_the_larger_drop_decides() {
    // GC holds 10 ms of each slow request; the quota 2 ms before it: without the quota the slow requests are 10 ms,
    // still above p99's 3 ms request, so only the GC's time moves p99.
    let quota: Vec<Window> = every_second(StopKind::CpuThrottled, -2_000)
        .into_iter()
        .map(|window| Window { end_us: window.start_us + 2_000, ..window })
        .collect();
    let windows = [every_second(StopKind::GcPause, 0), quota].concat();
    let attribution = attribute_slow(100, &windows);
    assert_eq!(attribution.p99.quota.as_ref().unwrap().recomputed_ms, ms(3_000));
    assert_eq!(attribution.verdict.rule, Some(VerdictRule::GcMakesTheTail));
    // And the rule on figures like issue 23's: p99 56.8 → 3.1 ms without the quota, 264 of 300 overlapped (chance 60 %).
    let mut tail = tail_of(300, 30, 0.05, 56.8, 50.0, false);
    tail.quota = Some(QuotaShare { overlap: 264, chance: 0.6, recomputed_ms: 3.1, recomputed_at_most: false });
    let verdict = verdict(&tail, &tail, &StopCounts { gc_pauses: 5, ..StopCounts::default() });
    assert_eq!((verdict.kind, verdict.rule), (VerdictKind::CpuQuota, Some(VerdictRule::QuotaMakesTheTail)));
    assert_eq!(
        verdict.summary,
        "p99 56.80 → 3.100 ms without the time the quota held the JVM back (−95 %, at least the 10 % that makes it a \
         cause); 88 % of 300 requests above p99 overlapped throttled periods (chance 60 %)"
    );
    tail.quota = Some(QuotaShare { overlap: 90, chance: 0.2, recomputed_ms: 40.0, recomputed_at_most: false });
    assert_eq!(super::verdict::rule(&tail, &StopCounts::default()), VerdictRule::QuotaMakesPart);
    tail.quota = None;
    assert_eq!(super::verdict::rule(&tail, &StopCounts::default()), VerdictRule::GcMakesPart);
}

#[test]
fn without_a_quota_the_json_holds_no_quota_figures() {
    let attribution = attribute_slow(100, &every_second(StopKind::GcPause, 0));
    let json = serde_json::to_string(&attribution).unwrap();
    assert!(!json.contains("quota") && !json.contains("throttled"), "{json}");
}

#[test]
fn jloads_own_reads_and_their_safepoints_are_counted_apart_and_never_blamed() {
    // The safepoints at 0.5 s are jload's (inside its reads there): the tail that met them met no stop of the service.
    let reads: Vec<Window> = every_second(StopKind::JloadRead, -1_000)
        .into_iter()
        .map(|window| Window { end_us: window.start_us + 12_000, ..window })
        .collect();
    let windows = [every_second(StopKind::JloadSafepoint, 0), reads].concat();
    let attribution = attribute_slow(100, &windows);
    let (stops, p99) = (&attribution.stops, &attribution.p99);
    assert_eq!((stops.jload_reads, stops.jload_safepoints, stops.safepoints), (10, 10, 0));
    assert_eq!((stops.longest_jload_read_ms, stops.longest_jload_safepoint_ms), (12.0, 10.0));
    assert_eq!((p99.gc_overlap, p99.safepoint_overlap, attribution.safepoint_time_share), (0, 0, 0.0));
    assert_eq!(attribution.verdict.rule, Some(VerdictRule::NoGcStop));
    assert_eq!(
        attribution.verdict.text,
        "GC does not explain this tail: no GC pause or stall during the run. jload's own reads of the JVM: 10 in the \
         run, 10 safepoints, the longest 10 ms (left out: they are jload's, not the service's)"
    );
    assert_eq!(attribution.unexplained.len(), 10, "the slow requests that met only jload's safepoints are unexplained");
}

#[test]
fn the_reports_gc_share_is_the_share_of_the_run_its_gc_windows_cover() {
    // The report's GC share (`JvmWindow::gc_wait_pct`) over a span of a real GC log is the share of the same span
    // the verdict's GC windows cover (`gc_time_share`): pauses from their safepoints' start and stalls, their union.
    use crate::jvm::gclog::parse_path;
    use crate::jvm::watch::window::{JvmWindow, WindowPauses};
    let fixture = |name: &str| {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/gclog").join(name);
        parse_path(&path).unwrap()
    };
    // JDK 17 ZGC in 32 MB: pauses and allocation stalls of threads at once; G1 with safepoint lines.
    for (name, from_s, to_s) in [
        ("zgc-jdk17-stalls.log", 0.30, 0.37),
        ("g1-jdk17.log", 0.03, 0.2),
        ("serial-jdk17.log", 0.0, 1.0),
        ("zgc-jdk25-stalls.log", 0.0, 2.0),
    ] {
        let log = fixture(name);
        let stops = crate::jvm::gclog::stops::stops(&log);
        assert!(stops.iter().any(|stop| stop.kind == StopKind::GcPause), "{name}");
        let clock = clock(0.0);
        let windows = on_run_clock(&stops, &clock, clock.unix_us_at(from_s));
        let span_us = ((to_s - from_s) * 1e6).round() as u64;
        let attribution = attribute(&run(quiet_requests()), &names(), &windows, span_us, clock);
        let jvm = JvmWindow {
            uptime_start_s: from_s,
            uptime_end_s: to_s,
            pauses: Some(WindowPauses::from_log(&log, from_s, to_s)),
            ..JvmWindow::default()
        };
        let share = jvm.gc_wait_pct().unwrap();
        assert!(share > 0.0, "{name}");
        // To the microsecond each end of a stop is rounded to.
        let tolerance = 2.0 * stops.len() as f64 / span_us as f64 * 100.0;
        assert!(
            (share - attribution.gc_time_share * 100.0).abs() <= tolerance,
            "{name}: {share} against {attribution:?}"
        );
    }
}
