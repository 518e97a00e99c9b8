//! Open-model load at several rates: a rate ladder (fixed rates, or a geometric range) and the records of its steps,
//! and the capacity a search finds (see `capacity.rs` for the search). A step is one open-model run at one requested
//! rate, with its own warm-up and measured window; what it measured is kept as a [`Step`] beside the phase's result.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::result::{ErrorSummary, LatencySummary};

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
}

/// Which side ran out first at a step: the target (it could not serve the rate within the SLO) or the generator
/// (jload itself could not send at the rate: its CPU, its schedule, its connections).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    Target,
    Generator,
}

/// Why a step did not sustain its rate, and whose limit it was.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Limit {
    pub side: Side,
    /// One line naming the evidence ("late sends: 4.1 % of requests, busiest generator thread at 99 % CPU").
    pub reason: String,
}

/// One step of a ladder or a capacity search.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    pub requested_rps: f64,
    /// Requests completed per second of the measured window.
    pub achieved_rps: f64,
    pub duration_s: f64,
    pub requests: u64,
    /// Latency from each request's intended send time (corrected for coordinated omission).
    pub latency_ms: LatencySummary,
    pub errors: ErrorSummary,
    /// Errors as a share of attempts, in percent (see `BenchResult::error_pct`).
    pub error_pct: Option<f64>,
    /// Requests that fell due in the measured window but were never sent, and ones sent but unanswered at its end.
    pub never_sent: u64,
    pub unfinished: u64,
    /// Set when the step did not sustain its rate: who ran out.
    pub limited_by: Option<Limit>,
    /// Whether the step met the SLO it was judged on (None without one).
    pub meets_slo: Option<bool>,
}

/// The outcome of a capacity search: the highest rate that met the SLO, with the steps that bound it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Capacity {
    /// The highest requested rate whose step met the SLO; None when even the first step failed it, or when the
    /// generator ran out before the target (then no capacity is claimed for the target).
    pub rps: Option<f64>,
    /// The SLO as rules (`p99<=10ms, errors<=0.1%`).
    pub slo: String,
    /// Whose limit ended the search.
    pub limited_by: Side,
    /// The highest rate that met the SLO and the lowest that did not (None when the search never got there).
    pub bounds: [Option<f64>; 2],
    /// One line saying how the search ended, for every output.
    pub verdict: String,
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
    pub slo: Vec<super::threshold::Threshold>,
    /// Stop bisecting when the failing rate is within this fraction above the passing one (0.05: 5 %).
    pub precision: f64,
    /// The first rate tried; None: found from a short closed-model probe.
    pub start_rps: Option<f64>,
    /// Never try above this rate.
    pub max_rps: Option<f64>,
}

/// Told of each step as it starts and ends (the runner marks a JVM window per step; bench shows progress).
pub trait StepObserver {
    fn step_started(&mut self, _requested_rps: f64) {}
    fn step_finished(&mut self, _step: &Step) {}
}

/// An observer that does nothing.
pub struct NoObserver;

impl StepObserver for NoObserver {}

/// Run `plan` on `spec` (its `rate` is replaced by each step's, its stop condition by `timing`), telling `observer` of
/// each step. Returns the result of the headline step (the capacity step of a search, else the last step) with
/// `steps` (and `capacity`) filled in.
pub fn run_ladder(
    spec: &super::spec::LoadSpec,
    plan: &LadderPlan,
    timing: &StepTiming,
    slo: &[super::threshold::Threshold],
    options: &super::engine::RunOptions,
    observer: &mut dyn StepObserver,
) -> anyhow::Result<super::result::BenchResult> {
    // First version, fixed rates only; the capacity search and the step rules are being built (issue 11).
    let LadderPlan::Rates(rates) = plan else { anyhow::bail!("capacity search is not built yet") };
    let mut steps = Vec::new();
    let mut last = None;
    for requested in rates.list() {
        observer.step_started(requested);
        let mut step_spec = spec.clone();
        step_spec.rate = Some(requested);
        step_spec.stop = super::spec::StopCondition { requests: None, duration: Some(timing.measure) };
        let result = super::engine::run(&step_spec, options)?;
        let judged: Vec<_> = slo.iter().map(|rule| rule.judge(&result)).collect();
        let step = Step {
            requested_rps: requested,
            achieved_rps: result.rps,
            duration_s: result.duration_s,
            requests: result.requests,
            latency_ms: result.latency_ms,
            errors: result.errors,
            error_pct: result.error_pct(),
            never_sent: result.never_sent,
            unfinished: result.unfinished,
            limited_by: super::limit::limited_by(&result, requested),
            meets_slo: (!judged.is_empty()).then(|| judged.iter().all(|outcome| outcome.passed)),
        };
        observer.step_finished(&step);
        steps.push(step);
        last = Some(result);
    }
    let mut headline = last.ok_or_else(|| anyhow::anyhow!("a ladder needs at least one rate"))?;
    headline.steps = steps;
    Ok(headline)
}
