//! The capacity search's decisions on hand-made step sequences, with the rates worked out by hand in each comment.

use super::*;
use crate::load::record::summary::{ErrorSummary, LatencySummary};

/// A step at `rps` that sustained its rate and met the SLO or missed it (its p99 says which).
fn step(rps: f64, meets_slo: bool) -> Step {
    let p99 = if meets_slo { 3.0 } else { 250.0 };
    Step {
        requested_rps: rps,
        achieved_rps: rps,
        duration_s: 5.0,
        requests: (rps * 5.0) as u64,
        latency_ms: LatencySummary { p50: 2.0, p99, max: p99 * 2.0, ..LatencySummary::default() },
        errors: ErrorSummary::default(),
        error_pct: Some(0.0),
        never_sent: 0,
        unfinished: 0,
        limited_by: None,
        meets_slo: Some(meets_slo),
        windows: 1,
        rare: None,
    }
}

fn limited(rps: f64, side: Side, reason: &str) -> Step {
    Step { limited_by: Some(Limit { side, reason: reason.to_string() }), ..step(rps, true) }
}

/// A step the generator limited that fell short of its rate (it sent 80 % of it) and so missed the SLO.
fn generator_short(rps: f64, reason: &str) -> Step {
    Step { achieved_rps: 0.8 * rps, meets_slo: Some(false), ..limited(rps, Side::Generator, reason) }
}

fn search(start_rps: f64) -> Search {
    Search {
        start_rps,
        precision: DEFAULT_PRECISION,
        max_rps: None,
        slo: "p99<=20ms, errors<=0.1%".to_string(),
        settled_rps: None,
        windows: 1,
    }
}

/// Drive the search against a target that meets the SLO at every rate up to `capacity`; the rates tried and the end.
fn run(search: &Search, capacity: f64) -> (Vec<f64>, Capacity) {
    let mut steps = Vec::new();
    loop {
        match decide(search, &steps) {
            Decision::Run(rps) => steps.push(step(rps, rps <= capacity)),
            Decision::Done(found) => return (steps.iter().map(|step| step.requested_rps).collect(), found),
        }
    }
}

#[test]
fn ramps_up_by_doubling_then_bisects_geometrically_to_the_precision() {
    // 100, 200, 400 meet it, 800 misses; √(400·800) = 565.7 → 566 misses; √(400·566) = 475.8 → 476 meets;
    // √(476·566) = 519.0 → 519 misses; 519/476 = 1.090 > 1.05: √(476·519) = 497.0 → 497 meets; 519/497 = 1.044 ≤
    // 1.05: done.
    let (rates, capacity) = run(&search(100.0), 500.0);
    assert_eq!(rates, [100.0, 200.0, 400.0, 800.0, 566.0, 476.0, 519.0, 497.0]);
    assert_eq!(capacity.rps, Some(497.0));
    assert_eq!(capacity.bounds, [Some(497.0), Some(519.0)]);
    assert_eq!(capacity.limited_by, Side::Target);
    assert_eq!(
        capacity.verdict,
        "capacity 497 req/s at p99<=20ms, errors<=0.1%: met at 497 req/s, missed at 519 req/s (p99 250.0 ms, errors \
         0.00 %), within 5 %"
    );
}

#[test]
fn a_start_above_the_capacity_halves_until_a_step_passes_then_bisects() {
    // 1000 and 500 miss, 250 meets; √(250·500) = 353.6 → 354 misses; √(250·354) = 297.5 → 297 meets;
    // √(297·354) = 324.3 → 324 misses; √(297·324) = 310.2 → 310 misses; 310/297 = 1.044: done.
    let (rates, capacity) = run(&search(1000.0), 300.0);
    assert_eq!(rates, [1000.0, 500.0, 250.0, 354.0, 297.0, 324.0, 310.0]);
    assert_eq!((capacity.rps, capacity.bounds), (Some(297.0), [Some(297.0), Some(310.0)]));
}

#[test]
fn a_coarser_precision_stops_sooner() {
    // As above up to 476 meeting it with 566 missing: 566/476 = 1.189 ≤ 1.25: done.
    let coarse = Search { precision: 0.25, ..search(100.0) };
    let (rates, capacity) = run(&coarse, 500.0);
    assert_eq!(rates, [100.0, 200.0, 400.0, 800.0, 566.0, 476.0]);
    assert_eq!(capacity.bounds, [Some(476.0), Some(566.0)]);
}

#[test]
fn a_target_missing_the_slo_at_every_rate_gets_no_capacity_after_four_halvings() {
    let (rates, capacity) = run(&search(1600.0), 0.0);
    assert_eq!(rates, [1600.0, 800.0, 400.0, 200.0, 100.0]);
    assert_eq!(capacity.rps, None);
    assert_eq!(capacity.bounds, [None, Some(100.0)]);
    assert_eq!(capacity.limited_by, Side::Target);
    assert!(capacity.verdict.starts_with("missed p99<=20ms, errors<=0.1% even at 100 req/s ("), "{}", capacity.verdict);
}

#[test]
fn the_search_never_goes_above_the_highest_rate_allowed() {
    // 100, 200, then 400 is capped to 300; it meets the SLO: capacity at least 300.
    let capped = Search { max_rps: Some(300.0), ..search(100.0) };
    let (rates, capacity) = run(&capped, 1e9);
    assert_eq!(rates, [100.0, 200.0, 300.0]);
    assert_eq!((capacity.rps, capacity.bounds), (Some(300.0), [Some(300.0), None]));
    assert!(capacity.verdict.contains("up to the highest allowed, 300 req/s"), "{}", capacity.verdict);
}

#[test]
fn whole_rates_end_the_bisection_when_nothing_lies_between_the_bounds() {
    // 1 meets it, 2 misses; √2 rounds to 1, already tried: capacity 1.
    let (rates, capacity) = run(&search(1.0), 1.5);
    assert_eq!(rates, [1.0, 2.0]);
    assert_eq!(capacity.bounds, [Some(1.0), Some(2.0)]);
}

#[test]
fn below_a_step_the_generator_could_not_send_the_search_bisects_and_may_still_find_the_targets_capacity() {
    let ran_out = || generator_short(400.0, "the busiest generator thread used 99 % of a core");
    let steps = [step(100.0, true), step(200.0, true), ran_out()];
    // √(200 × 400) = 283: between the highest pass and the generator's ceiling.
    assert_eq!(decide(&search(100.0), &steps), Decision::Run(283.0));
    // 283 fails on the target's side: the capacity is bracketed below the ceiling, by the target.
    let steps = [step(100.0, true), step(200.0, true), ran_out(), step(283.0, false)];
    assert_eq!(decide(&search(100.0), &steps), Decision::Run(238.0));
    let steps = [step(100.0, true), step(200.0, true), ran_out(), step(283.0, false), step(238.0, true)];
    assert_eq!(decide(&search(100.0), &steps), Decision::Run(260.0));
}

#[test]
fn a_generator_ceiling_within_the_precision_of_the_highest_pass_ends_the_search_with_no_capacity_for_the_target() {
    let ran_out = || generator_short(400.0, "the busiest generator thread used 99 % of a core");
    let steps = [step(100.0, true), step(200.0, true), ran_out(), step(283.0, true), step(336.0, true)];
    assert_eq!(decide(&search(100.0), &steps), Decision::Run(367.0));
    let steps = [
        step(100.0, true),
        step(200.0, true),
        ran_out(),
        step(283.0, true),
        step(336.0, true),
        step(367.0, true),
        step(383.0, true),
    ];
    let Decision::Done(capacity) = decide(&search(100.0), &steps) else { panic!("383 to 400 is within 5 %") };
    assert_eq!(capacity.rps, None, "no capacity is claimed for the target");
    assert_eq!(capacity.limited_by, Side::Generator);
    assert_eq!(capacity.bounds, [Some(383.0), None]);
    assert_eq!(
        capacity.verdict,
        "the generator ran out at 400 req/s (the busiest generator thread used 99 % of a core): the target sustains at \
         least 383 req/s; run the load from more threads or another machine"
    );
}

#[test]
fn a_generator_limited_first_step_claims_nothing() {
    let steps = [generator_short(100.0, "slipped")];
    let Decision::Done(capacity) = decide(&search(100.0), &steps) else { panic!("the search must end") };
    assert_eq!((capacity.rps, capacity.bounds, capacity.limited_by), (None, [None, None], Side::Generator));
    assert!(capacity.verdict.contains("no step met the SLO before"), "{}", capacity.verdict);
}

#[test]
fn a_step_the_generator_was_late_in_passes_when_it_met_the_slo_at_its_rate() {
    let late = limited(400.0, Side::Generator, "the generator itself sent 2.0 % of requests over 1 ms behind schedule");
    assert_eq!(outcome(&late), Outcome::Pass, "the target served the rate within the SLO despite the late sends");
    assert_eq!(outcome(&Step { meets_slo: Some(false), ..late.clone() }), Outcome::GeneratorLimited);
    assert_eq!(outcome(&Step { achieved_rps: 370.0, ..late.clone() }), Outcome::GeneratorLimited, "short of 95 %");
    assert_eq!(decide(&search(200.0), &[step(200.0, true), late]), Decision::Run(800.0));
}

#[test]
fn a_step_the_target_did_not_sustain_fails_even_within_the_slo() {
    let slow = limited(800.0, Side::Target, "500 req/s achieved of 800 requested");
    assert_eq!(outcome(&slow), Outcome::Fail);
    assert_eq!(outcome(&step(800.0, true)), Outcome::Pass);
    assert_eq!(outcome(&step(800.0, false)), Outcome::Fail);
    // The failing step's limit is what the verdict names.
    let steps = [step(400.0, true), slow, step(566.0, true), step(673.0, true), step(734.0, true), step(766.0, true)];
    let Decision::Done(capacity) = decide(&search(400.0), &steps) else { panic!("766 to 800 is within 5 %") };
    assert!(capacity.verdict.contains("missed at 800 req/s (500 req/s achieved of 800 requested)"), "{capacity:?}");
}

#[test]
fn a_search_cut_short_keeps_what_its_steps_established() {
    let steps = [step(100.0, true), step(200.0, true), step(400.0, false)];
    let capacity = cut_short(&search(100.0), &steps, "interrupted");
    assert_eq!((capacity.rps, capacity.bounds), (Some(200.0), [Some(200.0), Some(400.0)]));
    assert_eq!(capacity.verdict, "interrupted: capacity at least 200 req/s, below 400 req/s (not narrowed to 5 %)");
}

#[test]
fn the_search_stops_after_its_step_limit() {
    let steps: Vec<Step> = (0..MAX_STEPS).map(|index| step(2f64.powi(index as i32), true)).collect();
    let Decision::Done(capacity) = decide(&search(1.0), &steps) else { panic!("the step limit ends it") };
    assert!(capacity.verdict.starts_with("the search stopped after 40 steps: capacity at least"), "{capacity:?}");
}

#[test]
fn the_start_rate_is_half_the_closed_model_throughput() {
    assert_eq!(start_from_probe(1951.0), 976.0);
    assert_eq!(start_from_probe(1.0), 1.0);
}

/// Drive a search that measures rates again, keeping one step per rate (its windows pooled, as the ladder does):
/// `pooled_meets(rate, windows)` says whether the rate's windows together meet the SLO; the rates in the order run,
/// and the end.
fn run_pooled(search: &Search, pooled_meets: impl Fn(f64, u32) -> bool) -> (Vec<f64>, Vec<Step>, Capacity) {
    let (mut rates, mut steps): (Vec<f64>, Vec<Step>) = (Vec::new(), Vec::new());
    loop {
        match decide(search, &steps) {
            Decision::Run(rps) => {
                rates.push(rps);
                let windows = steps.iter().find(|step| step.requested_rps == rps).map_or(1, |step| step.windows + 1);
                let pooled = Step {
                    windows,
                    requests: (rps * 5.0) as u64 * u64::from(windows),
                    duration_s: 5.0 * f64::from(windows),
                    ..step(rps, pooled_meets(rps, windows))
                };
                match steps.iter_mut().find(|step| step.requested_rps == rps) {
                    Some(known) => *known = pooled,
                    None => steps.push(pooled),
                }
            }
            Decision::Done(found) => return (rates, steps, found),
        }
    }
}

fn confirming(start_rps: f64) -> Search {
    Search { windows: CONFIRMING_WINDOWS, ..search(start_rps) }
}

#[test]
fn each_bound_is_measured_again_before_the_search_ends() {
    // The course of the first test up to 497 meeting it and 519 missing it, then 497 and 519 once more each.
    let (rates, steps, capacity) = run_pooled(&confirming(100.0), |rate, _| rate <= 500.0);
    assert_eq!(rates, [100.0, 200.0, 400.0, 800.0, 566.0, 476.0, 519.0, 497.0, 497.0, 519.0]);
    assert_eq!(capacity.bounds, [Some(497.0), Some(519.0)]);
    let windows: Vec<(f64, u32)> = steps.iter().map(|step| (step.requested_rps, step.windows)).collect();
    assert_eq!(windows[6..], [(519.0, 2), (497.0, 2)]);
    assert_eq!(
        capacity.verdict,
        "capacity 497 req/s at p99<=20ms, errors<=0.1%: met at 497 req/s (p99 3.000 ms over 2 windows, 10.0 s), missed \
         at 519 req/s (p99 250.0 ms, errors 0.00 %, over 2 windows, 10.0 s), within 5 %"
    );
}

#[test]
fn a_bound_that_changes_side_when_measured_again_moves_the_capacity() {
    // 497 met it in one window but misses over two: 476 meets, 497 misses, 497/476 = 1.044: 476 is confirmed.
    let (rates, _, capacity) = run_pooled(&confirming(100.0), |rate, windows| match rate {
        497.0 => windows == 1,
        rate => rate <= 500.0,
    });
    assert_eq!(rates[7..], [497.0, 497.0, 476.0]);
    assert_eq!(capacity.bounds, [Some(476.0), Some(497.0)]);
}

#[test]
fn a_failure_far_below_the_settled_throughput_is_measured_again_before_the_search_halves() {
    // Settled at 1000 req/s: 400 failing its first window is measured again (it is below 60 % of 1000), passes over
    // both, and the ramp goes on to 800.
    let search = Search { settled_rps: Some(1000.0), ..confirming(400.0) };
    let (rates, _, _) = run_pooled(&search, |rate, windows| rate == 400.0 && windows > 1 || rate < 400.0);
    assert_eq!(rates[..3], [400.0, 400.0, 800.0]);
}

#[test]
fn once_a_far_failure_holds_on_every_window_the_failures_below_it_are_believed() {
    // 400 fails over two windows: the halving to 200 is believed without measuring 200 again.
    let search = Search { settled_rps: Some(1000.0), ..confirming(400.0) };
    let (rates, _, _) = run_pooled(&search, |rate, _| rate < 150.0);
    assert_eq!(rates[..4], [400.0, 400.0, 200.0, 100.0]);
}

#[test]
fn an_slo_gets_the_default_error_bound_unless_it_bounds_errors() {
    let expressions = |texts: &[&str]| {
        let texts: Vec<String> = texts.iter().map(|text| text.to_string()).collect();
        slo_rules(&texts).unwrap().iter().map(|rule| rule.expression().to_string()).collect::<Vec<_>>()
    };
    assert_eq!(expressions(&["p99<=10ms"]), ["p99<=10ms", "errors<=0.1%"]);
    assert_eq!(
        expressions(&["p99<=10ms, p999<=50ms", "max<1s"]),
        ["p99<=10ms", "p999<=50ms", "max<1s", "errors<=0.1%"]
    );
    assert_eq!(expressions(&["p99<=10ms,errors<1%"]), ["p99<=10ms", "errors<1%"]);
    assert_eq!(expressions(&["errors<=5"]), ["errors<=5"]);
    for bad in [&["p99<=10ms,"][..], &["p98<=1ms"], &[]] {
        let texts: Vec<String> = bad.iter().map(|text| text.to_string()).collect();
        let err = slo_rules(&texts).unwrap_err();
        assert!(err.downcast_ref::<crate::error::BadInput>().is_some(), "{bad:?}: {err}");
    }
}
