//! The capacity search as a pure decision: given what each rate tried so far measured, the next rate to try or the
//! capacity found. It ramps up ×2 from the start rate until a rate misses the SLO (or down ÷2 until one meets it),
//! then bisects at the geometric midpoint until the lowest failing rate is within the precision of the highest
//! passing one. Neither bound is believed on one window: a rate that bounds the capacity is measured again until it
//! rests on [`Search::windows`] windows, judged on all of them pooled (so one window that caught, or missed, one of
//! the target's rare pauses does not decide), and a rate that fails far below the target's settled throughput is
//! measured again before the search bisects below it. A rate the generator limited is a ceiling: the search bisects
//! below it, and ends with no capacity claimed for the target when the ceiling is within the precision of the highest
//! pass. `ladder::run_ladder` runs the steps and pools each rate's windows.

use crate::error::bad_input;
use crate::load::figures::threshold::Threshold;
use crate::load::format::format_rate;
use crate::load::record::outcomes::{Capacity, Limit, Side, Step};
use crate::load::record::whose_limit::SUSTAINED_SHARE;

/// Stop bisecting when the failing rate is within 5 % above the passing one.
pub const DEFAULT_PRECISION: f64 = 0.05;
/// The error bound every SLO has unless its rules bound errors themselves.
pub const DEFAULT_ERRORS_RULE: &str = "errors<=0.1%";
/// Without a start rate the search starts at this share of the warm-up's settled closed-model throughput (or a short
/// closed-model probe's): the closed model runs the target at about its saturation, so the ramp meets the knee at the
/// first or second doubling, and a target whose SLO holds only far below its saturation is found by halving.
pub const PROBE_SHARE: f64 = 0.5;
/// When the start rate already misses the SLO, halve it at most this many times before giving up.
pub const MAX_HALVINGS: i32 = 4;
/// A search never runs more steps than this (a ramp of 2^30 and a bisection fit in far fewer).
pub const MAX_STEPS: usize = 40;
/// A rate that bounds a capacity rests on this many measured windows, pooled.
pub const CONFIRMING_WINDOWS: u32 = 2;
/// A rate that fails below this share of the target's settled closed-model throughput — the search's start among
/// them — is measured again before the search bisects below it (until one such failure held on every window): a
/// target that serves nearly twice the rate when every connection presses it rarely misses an SLO there, unless one
/// window caught a rare pause.
pub const SUSPECT_SHARE: f64 = 0.6;

/// What the search is looking for, and where it starts.
#[derive(Debug, Clone, PartialEq)]
pub struct Search {
    pub start_rps: f64,
    /// Stop when lowest failing ≤ highest passing × (1 + precision).
    pub precision: f64,
    /// Never try above this rate.
    pub max_rps: Option<f64>,
    /// The SLO as written (`p99<=10ms, errors<=0.1%`), for the capacity's record.
    pub slo: String,
    /// The target's settled closed-model throughput, when a warm-up measured it: a rate failing far below it is
    /// measured again ([`SUSPECT_SHARE`]).
    pub settled_rps: Option<f64>,
    /// How many windows each bound of the capacity rests on ([`CONFIRMING_WINDOWS`]; 1: every rate measured once).
    pub windows: u32,
}

impl Search {
    /// Whether `step` (a rate's windows pooled) rests on enough windows to bound the capacity.
    fn confirmed(&self, step: &Step) -> bool {
        step.windows >= self.windows
    }
}

/// The search's next move.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    Run(f64),
    Done(Capacity),
}

/// How one step counts in the search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// It sustained its rate and met the SLO.
    Pass,
    /// It missed the SLO, or the target did not sustain the rate.
    Fail,
    /// The generator could not keep the schedule and the step missed the SLO or the rate: it says nothing about the
    /// target.
    GeneratorLimited,
}

/// The one rule of how a step counts. A step that sustained its rate and met the SLO passes, even when the generator
/// was late on its own: its latency leaves the generator's delays out, and the target served the rate within the SLO. A step the generator limited that missed the SLO or the rate says nothing
/// about the target; one the target limited fails.
pub fn outcome(step: &Step) -> Outcome {
    let sustained = step.achieved_rps >= SUSTAINED_SHARE * step.requested_rps;
    let met = step.meets_slo != Some(false);
    match &step.limited_by {
        Some(Limit { side: Side::Generator, .. }) if met && sustained => Outcome::Pass,
        Some(Limit { side: Side::Generator, .. }) => Outcome::GeneratorLimited,
        Some(Limit { side: Side::Target, .. }) => Outcome::Fail,
        None if met => Outcome::Pass,
        None => Outcome::Fail,
    }
}

/// The start rate from a closed-model probe's throughput.
pub fn start_from_probe(closed_rps: f64) -> f64 {
    whole_rate(closed_rps * PROBE_SHARE)
}

/// The SLO rules of a search from rules written one per string or comma-separated (`p99<=10ms,p999<=50ms`), with
/// [`DEFAULT_ERRORS_RULE`] added when no rule bounds errors.
pub fn slo_rules(texts: &[String]) -> anyhow::Result<Vec<Threshold>> {
    let mut rules = Vec::new();
    for text in texts.iter().flat_map(|text| text.split(',')).map(str::trim) {
        if text.is_empty() {
            return Err(bad_input("an SLO rule is empty; write rules like p99<=10ms,errors<=0.1%"));
        }
        rules.push(Threshold::parse(text)?);
    }
    if rules.is_empty() {
        return Err(bad_input("an SLO needs at least one rule, like p99<=10ms"));
    }
    if !rules.iter().any(Threshold::bounds_errors) {
        rules.push(Threshold::parse(DEFAULT_ERRORS_RULE)?);
    }
    Ok(rules)
}

/// The SLO as one line (`p99<=10ms, errors<=0.1%`).
pub fn describe_slo(rules: &[Threshold]) -> String {
    rules.iter().map(Threshold::expression).collect::<Vec<_>>().join(", ")
}

/// The next rate to try after `steps` — one per rate tried, in the order first run, each judged on its windows
/// pooled (`Step::windows`) — or the capacity they establish. The next rate may be one already tried: it is measured
/// again.
pub fn decide(search: &Search, steps: &[Step]) -> Decision {
    let windows: u32 = steps.iter().map(|step| step.windows).sum();
    if windows as usize >= MAX_STEPS {
        return Decision::Done(cut_short(search, steps, &format!("the search stopped after {MAX_STEPS} steps")));
    }
    let (low, high) = bounds(steps);
    // Once a failure far below the settled throughput held on every window, the target is slower than its
    // throughput says, and the failures below it are believed too.
    let believed = steps.iter().any(|step| outcome(step) == Outcome::Fail && search.confirmed(step));
    let far_below = |high: &f64| search.settled_rps.is_some_and(|settled| *high < SUSPECT_SHARE * settled);
    let suspect = high.filter(|high| !believed && far_below(high));
    if let Some(again) = unconfirmed(search, steps, &[suspect]) {
        return Decision::Run(again);
    }
    // The generator's ceiling: the lowest rate it could not send. Below it the search goes on (bisecting between the
    // highest pass and it), since a lower rate may still find where the target fails; it ends without a capacity for
    // the target when nothing is left below the ceiling to try.
    let ceiling = steps
        .iter()
        .filter(|step| outcome(step) == Outcome::GeneratorLimited)
        .min_by(|a, b| a.requested_rps.total_cmp(&b.requested_rps));
    if let Some(ceiling) = ceiling.filter(|ceiling| high.is_none_or(|high| ceiling.requested_rps < high)) {
        let next = low.map(|low| whole_rate((low * ceiling.requested_rps).sqrt()));
        match next.filter(|next| !steps.iter().any(|step| step.requested_rps == *next)) {
            Some(next) if ceiling.requested_rps > low.unwrap_or(0.0) * (1.0 + search.precision) => {
                return Decision::Run(next);
            }
            _ => return Decision::Done(generator_limited(search, steps, ceiling)),
        }
    }
    let next = match (low, high) {
        (None, None) => search.start_rps,
        (Some(low), None) if search.max_rps.is_some_and(|max| low >= max) => {
            return confirmed(search, steps, &[Some(low)], || at_max_rate(search, low));
        }
        (Some(low), None) => 2.0 * low,
        (None, Some(high)) if high <= search.start_rps / 2f64.powi(MAX_HALVINGS) => {
            return Decision::Done(none_met(search, steps, high));
        }
        (None, Some(high)) => high / 2.0,
        (Some(low), Some(high)) if high <= low * (1.0 + search.precision) => {
            return confirmed(search, steps, &[Some(low), Some(high)], || found(search, steps, low, high));
        }
        (Some(low), Some(high)) => (low * high).sqrt(),
    };
    let next = whole_rate(search.max_rps.map_or(next, |max| next.min(max)));
    if steps.iter().any(|step| step.requested_rps == next) {
        // Whole rates leave nothing between the bounds (or the cap was tried): as precise as rates can be.
        return match (low, high) {
            (Some(low), Some(high)) => {
                confirmed(search, steps, &[Some(low), Some(high)], || found(search, steps, low, high))
            }
            (None, Some(high)) => Decision::Done(none_met(search, steps, high)),
            (Some(low), None) => confirmed(search, steps, &[Some(low)], || at_max_rate(search, low)),
            (None, None) => unreachable!("a rate was tried, so the steps bound it"),
        };
    }
    Decision::Run(next)
}

/// The capacity `found` gives, once each of `rates` rests on the search's windows; else the first to measure again.
fn confirmed(search: &Search, steps: &[Step], rates: &[Option<f64>], found: impl FnOnce() -> Capacity) -> Decision {
    match unconfirmed(search, steps, rates) {
        Some(again) => Decision::Run(again),
        None => Decision::Done(found()),
    }
}

/// The first of `rates` whose step rests on fewer windows than the search wants.
fn unconfirmed(search: &Search, steps: &[Step], rates: &[Option<f64>]) -> Option<f64> {
    rates
        .iter()
        .flatten()
        .copied()
        .find(|rate| steps.iter().find(|step| step.requested_rps == *rate).is_some_and(|step| !search.confirmed(step)))
}

/// The capacity established by `steps` when the search ends before its precision (interrupted, the target broke):
/// the highest passing rate, bounded as far as the steps go; `why` says how it ended.
pub fn cut_short(search: &Search, steps: &[Step], why: &str) -> Capacity {
    let (low, high) = bounds(steps);
    let established = match (low, high) {
        (Some(low), Some(high)) => {
            format!("capacity at least {} req/s, below {} req/s", format_rate(low), format_rate(high))
        }
        (Some(low), None) => format!("capacity at least {} req/s", format_rate(low)),
        (None, Some(high)) => format!("no rate met the SLO; {} req/s missed it", format_rate(high)),
        (None, None) => "no step was measured".to_string(),
    };
    Capacity {
        rps: low,
        slo: search.slo.clone(),
        limited_by: Side::Target,
        bounds: [low, high],
        verdict: format!("{why}: {established} (not narrowed to {})", percent(search.precision)),
    }
}

/// The highest passing rate below every failing one, and the lowest failing rate. A generator-limited step is neither.
fn bounds(steps: &[Step]) -> (Option<f64>, Option<f64>) {
    let rates =
        |wanted: Outcome| steps.iter().filter(move |step| outcome(step) == wanted).map(|step| step.requested_rps);
    let high = rates(Outcome::Fail).reduce(f64::min);
    let low = rates(Outcome::Pass).filter(|rate| high.is_none_or(|high| *rate < high)).reduce(f64::max);
    (low, high)
}

fn found(search: &Search, steps: &[Step], low: f64, high: f64) -> Capacity {
    Capacity {
        rps: Some(low),
        slo: search.slo.clone(),
        limited_by: Side::Target,
        bounds: [Some(low), Some(high)],
        verdict: format!(
            "capacity {} req/s at {}: met at {} req/s{}, missed at {} req/s ({}), within {}",
            format_rate(low),
            search.slo,
            format_rate(low),
            met(steps, low),
            format_rate(high),
            missed(steps, high),
            percent(search.precision)
        ),
    }
}

fn at_max_rate(search: &Search, low: f64) -> Capacity {
    Capacity {
        rps: Some(low),
        slo: search.slo.clone(),
        limited_by: Side::Target,
        bounds: [Some(low), None],
        verdict: format!(
            "met {} at every rate tried up to the highest allowed, {} req/s: capacity at least that",
            search.slo,
            format_rate(low)
        ),
    }
}

fn none_met(search: &Search, steps: &[Step], high: f64) -> Capacity {
    Capacity {
        rps: None,
        slo: search.slo.clone(),
        limited_by: Side::Target,
        bounds: [None, Some(high)],
        verdict: format!(
            "missed {} even at {} req/s ({}): no capacity found; start lower",
            search.slo,
            format_rate(high),
            missed(steps, high)
        ),
    }
}

/// No capacity for the target: the generator could not send at `ceiling`'s rate, and nothing is left below it to try.
fn generator_limited(search: &Search, steps: &[Step], ceiling: &Step) -> Capacity {
    let (low, high) = bounds(steps);
    let reason = ceiling.limited_by.as_ref().map_or("", |limit| limit.reason.as_str());
    let sustains = match low {
        Some(low) => format!("the target sustains at least {} req/s", format_rate(low)),
        None => "no step met the SLO before".to_string(),
    };
    Capacity {
        rps: None,
        slo: search.slo.clone(),
        limited_by: Side::Generator,
        bounds: [low, high],
        verdict: format!(
            "the generator ran out at {} req/s ({reason}): {sustains}; run the load from more threads or another \
             machine",
            format_rate(ceiling.requested_rps)
        ),
    }
}

/// What a failing step at `requested` showed: who limited it, else its p99 and errors; and the windows it pools.
fn missed(steps: &[Step], requested: f64) -> String {
    let Some(step) = steps.iter().rev().find(|step| step.requested_rps == requested) else { return String::new() };
    let shown = match &step.limited_by {
        Some(limit) => limit.reason.clone(),
        None => format!(
            "p99 {} ms, errors {:.2} %",
            crate::load::format::format_ms(step.latency_ms.p99),
            step.error_pct.unwrap_or(0.0)
        ),
    };
    match step.windows {
        1 => shown,
        _ => format!("{shown}, {}", step.pooled_windows()),
    }
}

/// What a passing step at `requested` that pools several windows showed: ` (p99 4.1 ms over 2 windows, 3.0 s)`;
/// nothing for a single window, whose figures are the step's own.
fn met(steps: &[Step], requested: f64) -> String {
    match steps.iter().rev().find(|step| step.requested_rps == requested) {
        Some(step) if step.windows > 1 => {
            format!(" (p99 {} ms {})", crate::load::format::format_ms(step.latency_ms.p99), step.pooled_windows())
        }
        _ => String::new(),
    }
}

/// A rate rounded to whole requests per second, at least 1.
pub fn whole_rate(rps: f64) -> f64 {
    rps.round().max(1.0)
}

fn percent(share: f64) -> String {
    format!("{} %", (share * 1000.0).round() / 10.0)
}

#[cfg(test)]
#[path = "capacity_tests.rs"]
mod tests;
