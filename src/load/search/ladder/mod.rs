//! Open-model load at several rates: a rate ladder (fixed rates, or a geometric range) and the records of its steps,
//! and the capacity a search finds (see `capacity.rs` for the search). A step is one open-model run at one requested
//! rate, with its own warm-up and measured window; what it measured is kept as a [`Step`] beside the phase's result.
//! [`run_ladder`] runs the steps of a ladder or a search, one engine run each for the warm-up and the window, after a
//! warm-up until the target is steady and with a check after the last step (`steady.rs` has the rule,
//! `steadiness.rs` runs it and acts on it).

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::load::engine::RunOptions;
use crate::load::figures::threshold::Threshold;
use crate::load::format::format_rate;
use crate::load::generator::Generator;
use crate::load::input::spec::{LoadSpec, StopCondition};
use crate::load::merge;
use crate::load::record::outcomes::{Capacity, Steadiness, Step};
use crate::load::record::result::BenchResult;
use crate::load::record::summary::LatencySummary;
use crate::load::search::capacity;
use crate::load::search::rare::{self, Counted};
use crate::load::search::steady::SteadyRule;

mod steadiness;

/// The rates a ladder phase runs, lowest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Rates {
    /// `rates = [2000, 4000, 8000]`: these, in the order given.
    Listed(Vec<f64>),
    /// `rates = { from = 1000, to = 40000, steps = 8 }`: `steps` rates spaced geometrically from `from` to `to`.
    Geometric { from: f64, to: f64, steps: u32 },
}

impl Rates {
    /// The requested rates, in the order they run.
    pub fn list(&self) -> Vec<f64> {
        match self {
            Rates::Listed(rates) => rates.clone(),
            Rates::Geometric { from, to, steps } => geometric(*from, *to, *steps),
        }
    }

    /// What is wrong with these rates, in words a flag or a key can be named before: every rate a positive number;
    /// a geometric range rising from `from` to `to` in at least 2 steps.
    pub fn check(&self) -> Result<(), String> {
        let positive = |rate: &f64| rate.is_finite() && *rate > 0.0;
        match self {
            Rates::Listed(rates) if rates.is_empty() => Err("lists no rate".to_string()),
            Rates::Listed(rates) => match rates.iter().find(|rate| !positive(rate)) {
                Some(rate) => Err(format!("has {rate}, not a positive number of requests per second")),
                None => Ok(()),
            },
            Rates::Geometric { from, to, .. } if !positive(from) || !positive(to) || to <= from => {
                Err(format!("goes from {from} to {to}; the range must rise between two positive rates"))
            }
            Rates::Geometric { steps, .. } if *steps < 2 => Err(format!("has {steps} steps; give at least 2")),
            Rates::Geometric { .. } => Ok(()),
        }
    }
}

/// `steps` rates from `from` to `to` (both included) with a constant ratio between neighbours, rounded to whole
/// requests per second.
pub fn geometric(from: f64, to: f64, steps: u32) -> Vec<f64> {
    if steps <= 1 {
        return vec![from.round()];
    }
    let ratio = (to / from).powf(1.0 / f64::from(steps - 1));
    (0..steps).map(|index| (from * ratio.powi(index as i32)).round()).collect()
}

/// How long each step of a ladder or a capacity search lasts.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct StepTiming {
    /// Load before the measured window, at the step's rate; not recorded.
    pub warmup: Duration,
    /// The measured window, extended when needed to reach `min_requests`.
    pub measure: Duration,
    /// A step is trusted only with at least this many requests in its measured window.
    pub min_requests: u64,
    /// The warm-up until steady before the first step, and the check after the last (see `steady.rs`).
    pub steady: SteadyRule,
}

impl StepTiming {
    /// 2 s of warm-up (connections, JIT, caches and the queue settle at the new rate), then 5 s measured holding at
    /// least 2,000 requests, so that a p99 rests on 20 requests or more.
    pub const DEFAULT: StepTiming = StepTiming {
        warmup: Duration::from_secs(2),
        measure: Duration::from_secs(5),
        min_requests: 2000,
        steady: SteadyRule::DEFAULT,
    };

    /// The measured window at `rps`: `measure`, extended to hold `min_requests` requests.
    pub fn window(&self, rps: f64) -> Duration {
        self.measure.max(Duration::from_secs_f64(self.min_requests as f64 / rps))
    }
}

/// What a ladder phase runs: fixed rates, or a search for the capacity under an SLO.
#[derive(Debug, Clone)]
pub enum LadderPlan {
    Rates(Rates),
    Capacity(CapacityGoal),
}

/// A capacity search: the SLO a step must meet, and how precisely to find the highest rate that meets it.
#[derive(Debug, Clone)]
pub struct CapacityGoal {
    /// The rules a step must meet (`p99<=10ms`, `errors<=0.1%`), judged on the step's corrected figures.
    pub slo: Vec<crate::load::figures::threshold::Threshold>,
    /// Stop bisecting when the failing rate is within this fraction above the passing one (0.05: 5 %).
    pub precision: f64,
    /// The first rate tried; None: found from a short closed-model probe.
    pub start_rps: Option<f64>,
    /// Never try above this rate.
    pub max_rps: Option<f64>,
}

/// How long the closed-model probe runs that finds a search's start rate when none is given.
pub const PROBE_DURATION: Duration = Duration::from_secs(2);

/// Told of each step as it starts and ends (the runner marks a JVM window per step; bench shows progress).
pub trait StepObserver {
    fn step_started(&mut self, _requested_rps: f64) {}
    fn step_finished(&mut self, _step: &Step) {}
    /// A rate measured again is judged on all its windows at once: `pooled` (its `windows` above 1).
    fn rate_pooled(&mut self, _pooled: &Step) {}
    /// A search without a start rate probed the target in the closed model and starts at `start_rps`.
    fn probed(&mut self, _closed_rps: f64, _start_rps: f64) {}
    /// The ladder ended before its plan did (interrupted, the target broke, a step failed); `why` says which.
    fn ladder_ended(&mut self, _why: &str) {}
    /// A line about the target's steadiness: a warm-up ended, or the target changed under the steps.
    fn steadiness(&mut self, _line: &str) {}
    /// What the target has done since it started, when it can be watched (a local JVM's PerfData).
    fn target_counters(&mut self) -> Option<TargetCounters> {
        None
    }
}

/// What a target has done since it started, by its own counters: the warm-up reads them at its start and after each
/// window to find the target's rhythm and whether it still compiles.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TargetCounters {
    /// Its collections of each kind (a JVM's `young`, `full` and `concurrent` ones), always in the same order.
    pub collections: Vec<(&'static str, u64)>,
    /// Seconds its JIT compiled; None when not known.
    pub jit_compile_s: Option<f64>,
}

impl TargetCounters {
    /// The collections of each kind from these counters to `later` ones.
    pub fn collections_until(&self, later: &TargetCounters) -> Vec<(&'static str, u64)> {
        self.collections
            .iter()
            .zip(&later.collections)
            .map(|((kind, count), (_, later))| (*kind, later.saturating_sub(*count)))
            .collect()
    }
}

/// A step's window is stretched to hold a whole number of cycles of the target's rarest collections at the step's
/// rate when one cycle lasts at most this many times the plan's step.
pub const RHYTHM_STRETCH: f64 = 3.0;

/// Run `plan` on `spec` (its `rate` is replaced by each step's, its stop condition by `timing`), telling `observer` of
/// each step. Steps of a search are judged on its goal's SLO, steps of a fixed ladder on `slo` (none: not judged).
/// Returns the result of the headline step (the capacity step of a search — its highest passing step when it claims
/// no capacity — else the last step) with `steps` (and `capacity`) filled in. A step that no request succeeded in, or whose target stopped accepting connections, ends the
/// ladder with the steps so far; so does Ctrl-C (`options.stop`), which drops the step it cut short and marks the
/// result `interrupted`. An error only when no step was measured.
pub fn run_ladder(
    spec: &LoadSpec,
    plan: &LadderPlan,
    timing: &StepTiming,
    slo: &[Threshold],
    options: &RunOptions,
    observer: &mut dyn StepObserver,
    generator: &dyn Generator,
) -> anyhow::Result<BenchResult> {
    let rules = match plan {
        LadderPlan::Rates(_) => slo,
        LadderPlan::Capacity(goal) => &goal.slo,
    };
    let mut ladder = Ladder {
        spec,
        timing,
        rules,
        options,
        observer,
        generator,
        steps: Vec::new(),
        results: Vec::new(),
        counted: Vec::new(),
        steadiness: Steadiness::default(),
        current_from: 0,
    };
    let capacity = match plan {
        LadderPlan::Rates(rates) => {
            ladder.run_checked_rates(&rates.list())?;
            None
        }
        LadderPlan::Capacity(goal) => Some(ladder.search(goal)?),
    };
    ladder.headline(capacity)
}

/// The steps of one ladder as they are run.
struct Ladder<'a> {
    spec: &'a LoadSpec,
    timing: &'a StepTiming,
    rules: &'a [Threshold],
    options: &'a RunOptions,
    observer: &'a mut dyn StepObserver,
    generator: &'a dyn Generator,
    steps: Vec<Step>,
    /// The full result of each step, beside `steps`.
    results: Vec<BenchResult>,
    /// What the target did in each step's measured window, beside `steps` (None when it cannot be watched).
    counted: Vec<Option<Counted>>,
    /// The warm-ups and checks so far.
    steadiness: Steadiness,
    /// The first step of the target as it is now: the steps before it ran before the target changed under them.
    current_from: usize,
}

impl Ladder<'_> {
    /// Run every rate in order; false when the ladder ended before its last rate.
    fn run_rates(&mut self, rates: &[f64]) -> anyhow::Result<bool> {
        anyhow::ensure!(!rates.is_empty(), "a ladder needs at least one rate");
        for &rate in rates {
            if let Some(why) = self.step(rate)? {
                let ended = format!("the ladder ended after {} of {} steps: {why}", self.steps.len(), rates.len());
                self.observer.ladder_ended(&ended);
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// A short closed-model run; the search starts at a share of its throughput.
    fn probe_start(&mut self) -> anyhow::Result<f64> {
        let mut probe = self.spec.clone();
        probe.rate = None;
        probe.stop = StopCondition { requests: None, duration: Some(PROBE_DURATION) };
        let result = self.generator.run(&probe, &self.step_options())?;
        anyhow::ensure!(!result.interrupted, "interrupted during the start-rate probe: nothing measured");
        anyhow::ensure!(
            result.successes() > 0,
            "the start-rate probe ({} s in the closed model) got no successful response ({}); check the target, or \
             give a start rate",
            PROBE_DURATION.as_secs(),
            error_counts(&result)
        );
        let start = capacity::start_from_probe(result.rps);
        self.observer.probed(result.rps, start);
        Ok(start)
    }

    /// Run one step at `rate`: its warm-up, then its measured window. Some(why) when the ladder must end here.
    fn step(&mut self, rate: f64) -> anyhow::Result<Option<String>> {
        self.observer.step_started(rate);
        let (result, counted) = match self.measure(rate) {
            Ok(Some(measured)) => measured,
            Ok(None) => return Ok(Some(format!("interrupted during the step at {} req/s", format_rate(rate)))),
            Err(err) if self.steps.is_empty() => return Err(err),
            Err(err) => return Ok(Some(format!("the step at {} req/s failed: {err:#}", format_rate(rate)))),
        };
        let light_load = self.light_load(rate);
        let step = judge(rate, &result, light_load.as_ref(), self.rules);
        self.observer.step_finished(&step);
        let broken = broken(&result, rate, self.window(rate));
        self.steps.push(step);
        self.results.push(result);
        self.counted.push(counted);
        let pooled = self.pooled_at(self.current_from, rate);
        if pooled.windows > 1 {
            self.observer.rate_pooled(&pooled);
        }
        Ok(broken)
    }

    /// The target's raw latency at light load, against which a busy step at `rate` tells queueing in the target from
    /// too few connections: that of the lightest step so far (since the target last changed) that ran below `rate`
    /// and passed. None without such a step — a step's own latency is no light load to compare it with, nor is one
    /// that missed the SLO.
    fn light_load(&self, rate: f64) -> Option<LatencySummary> {
        let since_change = self.current_from.min(self.steps.len());
        self.steps[since_change..]
            .iter()
            .zip(&self.results[since_change..])
            .filter(|(step, _)| step.requested_rps < rate && capacity::outcome(step) == capacity::Outcome::Pass)
            .min_by(|(a, _), (b, _)| a.requested_rps.total_cmp(&b.requested_rps))
            .and_then(|(_, result)| result.latency_uncorrected_ms)
    }

    /// The measured window at `rate`: the timing's, stretched to a whole number of cycles of the target's rarest
    /// collections at that rate (seen in the last warm-up) when one cycle lasts at most [`RHYTHM_STRETCH`] times the
    /// plan's step. A window of a cycle and a half holds one of the rare pauses or two, and its p99 says which more
    /// than what the rate sustains; a whole number of cycles holds as many as the rate brings.
    fn window(&self, rate: f64) -> Duration {
        let window = self.timing.window(rate);
        let requests_per_cycle = self.steadiness.warmups.last().and_then(|warmup| warmup.requests_per_cycle);
        let Some(cycle_s) = requests_per_cycle.map(|requests| requests / rate) else { return window };
        if cycle_s <= 0.0 || cycle_s > RHYTHM_STRETCH * self.timing.measure.as_secs_f64() {
            return window;
        }
        Duration::from_secs_f64((window.as_secs_f64() / cycle_s).ceil() * cycle_s)
    }

    /// The steps since `from`, one per rate in the order first run: a rate measured once is its step, one measured
    /// again is judged on its windows pooled (`merge::pool`), with `windows` saying how many.
    fn pooled(&self, from: usize) -> Vec<Step> {
        let mut rates: Vec<f64> = Vec::new();
        for step in &self.steps[from..] {
            if !rates.contains(&step.requested_rps) {
                rates.push(step.requested_rps);
            }
        }
        rates.into_iter().map(|rate| self.pooled_at(from, rate)).collect()
    }

    /// The steps at `rate` since `from` (one at least) as one: the step itself when it ran once, else its windows
    /// pooled and judged as one step. When some of the windows held the target's rarest collection and others did
    /// not, its latency and its verdict are those of the windows weighed to the long run's share (`rare.rs`); its
    /// counts stay those of the windows as they ran.
    fn pooled_at(&self, from: usize, rate: f64) -> Step {
        let at: Vec<usize> = (from..self.steps.len()).filter(|&i| self.steps[i].requested_rps == rate).collect();
        let last = self.steps[*at.last().expect("a rate that was run")].clone();
        if at.len() == 1 {
            return last;
        }
        let windows: Vec<(&BenchResult, Option<&Counted>)> =
            at.iter().map(|&i| (&self.results[i], self.counted[i].as_ref())).collect();
        let counted: Vec<&Counted> = self.counted[from..].iter().flatten().collect();
        pool_rate(rate, &windows, &counted, self.light_load(rate).as_ref(), self.rules).unwrap_or(last)
    }

    /// The measured result of a step at `rate`, with what the target did in its window (when it can be watched);
    /// None when Ctrl-C cut it short.
    fn measure(&mut self, rate: f64) -> anyhow::Result<Option<(BenchResult, Option<Counted>)>> {
        if !self.timing.warmup.is_zero() {
            let warmup = self.generator.run(&at_rate(self.spec, rate, self.timing.warmup), &self.step_options())?;
            if warmup.interrupted {
                return Ok(None);
            }
        }
        let before = self.observer.target_counters();
        let result = self.generator.run(&at_rate(self.spec, rate, self.window(rate)), &self.step_options())?;
        let after = self.observer.target_counters();
        let counted = before.zip(after).map(|(before, after)| Counted {
            requests: result.requests,
            collections: before.collections_until(&after),
        });
        Ok((!result.interrupted).then_some((result, counted)))
    }

    /// The caller's options for one engine run, without an hlog (each run would overwrite the last one's).
    fn step_options(&self) -> RunOptions {
        RunOptions {
            progress: self.options.progress,
            hlog: None,
            stop: self.options.stop.clone(),
            start_at: None,
            cpus: self.options.cpus.clone(),
        }
    }

    /// The headline step's result, carrying every step and the capacity.
    fn headline(mut self, capacity: Option<Capacity>) -> anyhow::Result<BenchResult> {
        let interrupted = self.options.stop.load(std::sync::atomic::Ordering::Relaxed);
        anyhow::ensure!(
            !self.steps.is_empty(),
            "interrupted before the first step of the ladder ended: nothing measured"
        );
        let index = headline_index(&self.steps, capacity.as_ref());
        let mut headline = self.results.swap_remove(index);
        headline.steps = self.steps;
        headline.capacity = capacity.map(|mut capacity| {
            if let Some(change) = self.steadiness.changes.last() {
                capacity.verdict = format!("{}; {}", capacity.verdict, change.note);
            }
            capacity
        });
        headline.steadiness = self.timing.steady.enabled().then_some(self.steadiness);
        headline.interrupted |= interrupted;
        Ok(headline)
    }
}

/// Which of `steps` (not empty) heads the result: the capacity step of a search; with no capacity claimed (the
/// generator ran out) the highest rate that met the SLO, since the step that failed on jload's side says nothing
/// about the target; else (a ladder, or no step met the SLO) the last step.
pub fn headline_index(steps: &[Step], capacity: Option<&Capacity>) -> usize {
    capacity
        .and_then(|found| found.rps.or(found.bounds[0]))
        .and_then(|rps| steps.iter().rposition(|step| step.requested_rps == rps))
        .unwrap_or(steps.len() - 1)
}

/// `spec` as one open-model run at `rate` for `duration`.
fn at_rate(spec: &LoadSpec, rate: f64, duration: Duration) -> LoadSpec {
    LoadSpec { rate: Some(rate), stop: StopCondition { requests: None, duration: Some(duration) }, ..spec.clone() }
}

/// The record of a step: its corrected figures, who limited it (against the target's raw latency at the lightest step,
/// `light_load`), and whether it met `rules` (None without rules).
fn judge(rate: f64, result: &BenchResult, light_load: Option<&LatencySummary>, rules: &[Threshold]) -> Step {
    let outcomes: Vec<_> = rules.iter().map(|rule| rule.judge(result)).collect();
    Step {
        requested_rps: rate,
        achieved_rps: result.rps,
        duration_s: result.duration_s,
        requests: result.requests,
        latency_ms: result.latency_ms,
        errors: result.errors.clone(),
        error_pct: result.error_pct(),
        never_sent: result.never_sent,
        unfinished: result.unfinished,
        limited_by: crate::load::record::whose_limit::limited_at(result, rate, light_load),
        meets_slo: (!outcomes.is_empty()).then(|| outcomes.iter().all(|outcome| outcome.passed)),
        windows: 1,
        rare: None,
    }
}

/// One rate's `windows` (each with what the target did in it, when it was counted) judged as one step: their
/// histograms pooled. When some of them held the target's rarest collection and others did not, the step's latency
/// and verdict are those of the windows weighed to the long run's share of it over every window `counted`
/// (`rare.rs`); its counts stay those of the windows as they ran. None when a window has no histograms.
fn pool_rate(
    rate: f64,
    windows: &[(&BenchResult, Option<&Counted>)],
    counted: &[&Counted],
    light_load: Option<&LatencySummary>,
    rules: &[Threshold],
) -> Option<Step> {
    let results: Vec<&BenchResult> = windows.iter().map(|(result, _)| *result).collect();
    let step = Step { windows: windows.len() as u32, ..judge(rate, &merge::pool(&results)?, light_load, rules) };
    let counted_at: Option<Vec<&Counted>> = windows.iter().map(|(_, counted)| *counted).collect();
    let Some(share) = counted_at.and_then(|counted_at| rare::weigh(&counted_at, counted)) else { return Some(step) };
    let weighed: Vec<&BenchResult> = windows
        .iter()
        .flat_map(|(result, counted)| {
            let repeats = counted.map_or(1, |counted| rare::repeats_of(counted, &share));
            std::iter::repeat_n(*result, repeats as usize)
        })
        .collect();
    let judged = judge(rate, &merge::pool(&weighed)?, light_load, rules);
    Some(Step {
        latency_ms: judged.latency_ms,
        error_pct: judged.error_pct,
        limited_by: judged.limited_by,
        meets_slo: judged.meets_slo,
        rare: Some(share),
        ..step
    })
}

/// Why the ladder cannot go on after a step at `rate` planned to last `window`: no request succeeded, or the target
/// stopped accepting connections (the engine ends a run early when it has been unreachable for a whole timeout).
fn broken(result: &BenchResult, rate: f64, window: Duration) -> Option<String> {
    if result.successes() == 0 {
        return Some(format!("no request succeeded at {} req/s ({})", format_rate(rate), error_counts(result)));
    }
    let ended_early = result.duration_s < 0.9 * window.as_secs_f64();
    (result.errors.connection_failures() > 0 && ended_early).then(|| {
        format!(
            "the target stopped accepting connections {:.1} s into the step at {} req/s",
            result.duration_s,
            format_rate(rate)
        )
    })
}

/// Errors by class, for a one-line reason.
fn error_counts(result: &BenchResult) -> String {
    format!("errors: {}", result.errors.describe())
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_side_is_named_as_the_json_spells_it() {
        for side in [Side::Target, Side::Generator] {
            assert_eq!(serde_json::to_value(side).unwrap(), side.name());
        }
    }

    #[test]
    fn the_headline_is_the_capacity_step_or_the_highest_passing_one_when_the_generator_ran_out() {
        let step = |rate: f64| Step {
            requested_rps: rate,
            achieved_rps: rate,
            duration_s: 1.0,
            requests: rate as u64,
            latency_ms: LatencySummary::default(),
            errors: ErrorSummary::default(),
            error_pct: Some(0.0),
            never_sent: 0,
            unfinished: 0,
            limited_by: None,
            meets_slo: Some(true),
            windows: 1,
            rare: None,
        };
        let steps = [step(1000.0), step(2000.0), step(4000.0), step(3000.0)];
        let capacity = |rps: Option<f64>, limited_by: Side, bounds: [Option<f64>; 2]| Capacity {
            rps,
            slo: "p99<=10ms".into(),
            limited_by,
            bounds,
            verdict: String::new(),
        };
        let found = capacity(Some(3000.0), Side::Target, [Some(3000.0), Some(4000.0)]);
        assert_eq!(super::headline_index(&steps, Some(&found)), 3);
        let generator = capacity(None, Side::Generator, [Some(2000.0), None]);
        assert_eq!(super::headline_index(&steps, Some(&generator)), 1);
        let none_met = capacity(None, Side::Target, [None, Some(1000.0)]);
        assert_eq!(super::headline_index(&steps, Some(&none_met)), 3);
        assert_eq!(super::headline_index(&steps, None), 3);
    }

    use super::*;
    use crate::load::record::outcomes::Side;
    use crate::load::record::recorder::{Failure, Recorder};
    use crate::load::record::result::tests::result_of;
    use crate::load::record::summary::ErrorSummary;

    /// A 1-s window of 60,000 requests at 2 ms, `slow` of them at 60 ms instead.
    fn window_with_slow(slow: u64) -> BenchResult {
        let mut recorder = Recorder::new(1, true);
        for index in 0..60_000 {
            let latency_us = if index < slow { 60_000 } else { 2_000 };
            recorder.response(0, latency_us, latency_us, 200, true);
        }
        result_of(&recorder)
    }

    #[test]
    fn a_rate_whose_one_window_caught_a_rare_full_collection_is_judged_at_its_long_run_share() {
        // Eight counted windows of 60,000 requests, one full collection among them: in the first window at this
        // rate, whose full collection made 2,000 requests slow. Pooled as they ran, 1.7 % of the rate's requests are
        // slow and p99 is 60 ms; over a long run that window is one in eight, 0.4 % are slow, and p99 is 2 ms.
        let counted = |full| Counted { requests: 60_000, collections: vec![("young", 10), ("full", full)] };
        let all: Vec<Counted> = (0..8).map(|index| counted(u64::from(index == 6))).collect();
        let (caught, missed) = (window_with_slow(2_000), window_with_slow(0));
        let rules = [Threshold::parse("p99<=10ms").unwrap()];
        let windows = [(&caught, Some(&all[6])), (&missed, Some(&all[7]))];
        let step = pool_rate(60_000.0, &windows, &all.iter().collect::<Vec<_>>(), None, &rules).unwrap();
        assert_eq!((step.windows, step.requests, step.meets_slo), (2, 120_000, Some(true)));
        assert!(step.latency_ms.p99 < 2.1, "{:?}", step.latency_ms);
        let rare = step.rare.as_ref().unwrap();
        assert_eq!((rare.kind.as_str(), rare.share_pct, rare.repeats_with, rare.repeats_without), ("full", 12.5, 1, 7));
        assert_eq!(
            step.pooled_windows(),
            "over 2 windows, 2.0 s; the 1 window with a full collection weighed to 12.5 % (one per 480,000 requests)"
        );

        let uncounted = [(&caught, Some(&all[6])), (&missed, None)];
        let as_they_ran = pool_rate(60_000.0, &uncounted, &[], None, &rules).unwrap();
        assert_eq!((as_they_ran.meets_slo, as_they_ran.rare.is_none()), (Some(false), true));
        assert!(as_they_ran.latency_ms.p99 > 59.0, "{:?}", as_they_ran.latency_ms);
    }

    #[test]
    fn a_window_is_extended_to_hold_the_minimum_requests() {
        let timing = StepTiming { warmup: Duration::ZERO, measure: Duration::from_secs(5), ..StepTiming::DEFAULT };
        assert_eq!(timing.window(1000.0), Duration::from_secs(5));
        assert_eq!(timing.window(100.0), Duration::from_secs(20));
    }

    #[test]
    fn rates_must_be_positive_and_a_range_must_rise() {
        assert_eq!(Rates::Listed(vec![100.0, 200.0]).check(), Ok(()));
        assert_eq!(Rates::Listed(vec![]).check(), Err("lists no rate".to_string()));
        assert_eq!(
            Rates::Listed(vec![100.0, -1.0]).check(),
            Err("has -1, not a positive number of requests per second".to_string())
        );
        assert_eq!(Rates::Geometric { from: 10.0, to: 80.0, steps: 4 }.check(), Ok(()));
        assert_eq!(Rates::Geometric { from: 10.0, to: 80.0, steps: 4 }.list(), [10.0, 20.0, 40.0, 80.0]);
        assert!(Rates::Geometric { from: 80.0, to: 10.0, steps: 4 }.check().is_err());
        assert_eq!(
            Rates::Geometric { from: 10.0, to: 80.0, steps: 1 }.check(),
            Err("has 1 steps; give at least 2".to_string())
        );
    }

    #[test]
    fn a_step_with_no_success_breaks_the_ladder() {
        let mut recorder = Recorder::new(1, true);
        recorder.response(0, 1_000, 1_000, 503, false);
        recorder.response(0, 1_000, 1_000, 503, false);
        assert_eq!(
            broken(&result_of(&recorder), 100.0, Duration::from_secs(1)).as_deref(),
            Some("no request succeeded at 100 req/s (errors: status 2)")
        );
    }

    #[test]
    fn a_target_refusing_connections_before_the_window_ended_breaks_the_ladder() {
        let mut recorder = Recorder::new(1, true);
        recorder.response(0, 1_000, 1_000, 200, true);
        recorder.connection_failure(Failure::Connect);
        // The run lasted 1 s of a 2 s window: the engine ended it because the target was unreachable.
        assert_eq!(
            broken(&result_of(&recorder), 1500.0, Duration::from_secs(2)).as_deref(),
            Some("the target stopped accepting connections 1.0 s into the step at 1,500 req/s")
        );
        assert_eq!(broken(&result_of(&recorder), 1500.0, Duration::from_secs(1)), None, "a whole window");
    }
}
