//! A phase's ladder keys — `rates`, `capacity`, `step_warmup`, `step`, `min_requests` — checked and turned into the
//! engine's [`LadderPlan`] and [`StepTiming`], with every refused combination named at its file, line and key.
//! Documented in docs/plan.md ("Latency at equal load: ladders and capacity").

use std::ops::Range;
use std::time::Duration;

use toml::Spanned;

use super::schema::{CapacityFile, CapacityGoalFile, PhaseFile, RatesFile, SloRulesFile};
use crate::load::ladder::{CapacityGoal, LadderPlan, Rates, StepTiming};
use crate::load::threshold::Threshold;
use crate::tomlfile::Source;

/// A ladder step's warm-up when the phase sets no `step_warmup` (as `jload bench --step-warmup`).
pub const DEFAULT_STEP_WARMUP: Duration = Duration::from_secs(2);
/// A ladder step's measured window when the phase sets no `step` (as `jload bench --step`).
pub const DEFAULT_STEP: Duration = Duration::from_secs(5);
/// The requests a step's measured window must hold when the phase sets no `min_requests` (as `--min-requests`).
pub const DEFAULT_MIN_REQUESTS: u64 = 2000;
/// How close the search brackets the capacity when `capacity` sets no `precision` (as `--precision`).
pub const DEFAULT_PRECISION: f64 = 0.05;
/// The error bound a capacity search adds when none of its rules bounds errors (as `jload bench --capacity`).
pub const DEFAULT_ERRORS: &str = "0.1%";
/// The most steps a `rates = { from, to, steps }` range may have.
const MAX_RANGE_STEPS: u32 = 100;

/// What a ladder phase runs and how long each step lasts.
#[derive(Debug, Clone)]
pub struct PhaseLadder {
    pub plan: LadderPlan,
    pub timing: StepTiming,
}

impl PhaseLadder {
    /// The rate of the first step, when it is known before the run (not for a search starting from a probe).
    pub fn first_rate(&self) -> Option<f64> {
        match &self.plan {
            LadderPlan::Rates(rates) => rates.list().first().copied(),
            LadderPlan::Capacity(goal) => goal.start_rps,
        }
    }

    /// One line for `--dry-run`: the rates or the search, and the step timing.
    pub fn describe(&self) -> String {
        let timing = format!(
            "each step {} warm-up + {} measured (at least {} requests)",
            seconds(self.timing.warmup),
            seconds(self.timing.measure),
            self.timing.min_requests
        );
        match &self.plan {
            LadderPlan::Rates(rates) => {
                let list: Vec<String> = rates.list().iter().map(|rate| format!("{rate}")).collect();
                format!("open-model ladder at {} req/s; {timing}", list.join(", "))
            }
            LadderPlan::Capacity(goal) => {
                let rules: Vec<&str> = goal.slo.iter().map(Threshold::expression).collect();
                let start =
                    goal.start_rps.map_or("a probe's throughput ÷ 4".to_string(), |rate| format!("{rate} req/s"));
                let max = goal.max_rps.map(|rate| format!(", at most {rate} req/s")).unwrap_or_default();
                format!(
                    "capacity search under {} to {} precision, from {start}{max}; {timing}",
                    rules.join(", "),
                    percent(goal.precision)
                )
            }
        }
    }
}

fn seconds(duration: Duration) -> String {
    format!("{}s", duration.as_secs_f64())
}

fn percent(fraction: f64) -> String {
    format!("{}%", (fraction * 1000.0).round() / 10.0)
}

/// The phase's ladder, checked: None for a phase without `rates` or `capacity`. `plan_slo` is the plan's `[slo]` as
/// threshold expressions (what `capacity = true` and a `capacity` table without `slo` are judged on).
pub(super) fn parse_ladder(
    source: Source<'_>,
    phase: &PhaseFile,
    name: &str,
    plan_slo: &[String],
) -> anyhow::Result<Option<PhaseLadder>> {
    let at = |span: Range<usize>, message: String| source.error_at(span, format!("phase '{name}': {message}"));
    let capacity =
        phase.capacity.as_ref().filter(|capacity| !matches!(capacity.get_ref(), CapacityFile::Enabled(false)));
    let (key, span) = match (&phase.rates, capacity) {
        (Some(_), Some(capacity)) => {
            return Err(at(
                capacity.span(),
                "rates and capacity do not go together: give a list of rates, or a capacity search".to_string(),
            ));
        }
        (Some(rates), None) => ("rates", rates.span()),
        (None, Some(capacity)) => ("capacity", capacity.span()),
        (None, None) => {
            return refuse_step_keys_alone(phase).map_err(|(span, message)| at(span, message)).map(|_| None);
        }
    };
    refuse_with_ladder(phase, key).map_err(|(span, message)| at(span, message))?;
    if !phase.measure {
        return Err(at(
            span,
            format!("{key} in a phase with measure = false: a ladder is a measurement; warm up with rate and duration"),
        ));
    }
    let timing = step_timing(source, phase, name)?;
    let plan = match (&phase.rates, capacity) {
        (Some(rates), _) => {
            LadderPlan::Rates(checked_rates(rates.get_ref()).map_err(|message| at(span.clone(), message))?)
        }
        (None, Some(capacity)) => LadderPlan::Capacity(
            capacity_goal(capacity.get_ref(), plan_slo).map_err(|message| at(span.clone(), message))?,
        ),
        (None, None) => unreachable!("a ladder key was found above"),
    };
    Ok(Some(PhaseLadder { plan, timing }))
}

/// Step timing keys belong to a ladder; alone they would silently do nothing.
fn refuse_step_keys_alone(phase: &PhaseFile) -> Result<(), (Range<usize>, String)> {
    let given = [
        ("step_warmup", phase.step_warmup.as_ref().map(Spanned::span)),
        ("step", phase.step.as_ref().map(Spanned::span)),
        ("min_requests", phase.min_requests.as_ref().map(Spanned::span)),
    ];
    match given.into_iter().find_map(|(key, span)| span.map(|span| (key, span))) {
        Some((key, span)) => {
            Err((span, format!("{key} applies only to a ladder: add rates or capacity, or remove it")))
        }
        None => Ok(()),
    }
}

/// A ladder sets each step's rate and length: `rate`, `requests` and `duration` beside it are refused.
fn refuse_with_ladder(phase: &PhaseFile, key: &str) -> Result<(), (Range<usize>, String)> {
    if let Some(rate) = &phase.rate {
        return Err((rate.span(), format!("rate does not go with {key}: a ladder sets each step's rate")));
    }
    let length_keys = [
        ("requests", phase.requests.as_ref().map(Spanned::span)),
        ("duration", phase.duration.as_ref().map(Spanned::span)),
    ];
    match length_keys.into_iter().find_map(|(length, span)| span.map(|span| (length, span))) {
        Some((length, span)) => Err((
            span,
            format!(
                "{length} does not go with {key}: each step runs step_warmup, then step (extended to min_requests); \
                 set those instead"
            ),
        )),
        None => Ok(()),
    }
}

fn step_timing(source: Source<'_>, phase: &PhaseFile, name: &str) -> anyhow::Result<StepTiming> {
    let warmup = source.duration(&phase.step_warmup, &format!("phase '{name}' step_warmup"))?;
    let measure = source.duration(&phase.step, &format!("phase '{name}' step"))?;
    if let (Some(step), Some(zero)) = (&phase.step, measure.filter(Duration::is_zero)) {
        return Err(source.error_at(step.span(), format!("phase '{name}': step must be longer than {zero:?}")));
    }
    Ok(StepTiming {
        warmup: warmup.unwrap_or(DEFAULT_STEP_WARMUP),
        measure: measure.unwrap_or(DEFAULT_STEP),
        min_requests: phase.min_requests.as_ref().map_or(DEFAULT_MIN_REQUESTS, |min| *min.get_ref()),
    })
}

/// Rates are positive, and a list rises (the curve is read from light to heavy load, each step after a lighter one).
fn checked_rates(rates: &RatesFile) -> Result<Rates, String> {
    let positive = |rate: f64| rate.is_finite() && rate > 0.0;
    match rates {
        RatesFile::Listed(list) => {
            if list.is_empty() {
                return Err("rates is empty; give at least one rate, e.g. rates = [2000, 4000, 8000]".to_string());
            }
            if let Some(bad) = list.iter().find(|rate| !positive(**rate)) {
                return Err(format!("rates: {bad} is not a positive number of requests per second"));
            }
            if let Some(pair) = list.windows(2).find(|pair| pair[1] <= pair[0]) {
                return Err(format!("rates must rise from step to step: {} comes after {}", pair[1], pair[0]));
            }
            Ok(Rates::Listed(list.clone()))
        }
        RatesFile::Geometric(range) => {
            if !positive(range.from) || !(range.to.is_finite() && range.to > range.from) {
                return Err(format!(
                    "rates: from = {} and to = {} must be positive with to above from",
                    range.from, range.to
                ));
            }
            if !(2..=MAX_RANGE_STEPS).contains(&range.steps) {
                return Err(format!("rates: steps = {} must be from 2 to {MAX_RANGE_STEPS}", range.steps));
            }
            Ok(Rates::Geometric { from: range.from, to: range.to, steps: range.steps })
        }
    }
}

/// The search's goal: its SLO rules (written, else the plan's `[slo]`), an error bound (written, in the rules, else
/// [`DEFAULT_ERRORS`]), the precision and the rate bounds.
fn capacity_goal(capacity: &CapacityFile, plan_slo: &[String]) -> Result<CapacityGoal, String> {
    let empty = CapacityGoalFile { slo: None, errors: None, precision: None, start_rate: None, max_rate: None };
    let goal = match capacity {
        CapacityFile::Goal(goal) => goal,
        CapacityFile::Enabled(_) => &empty,
    };
    let written: Vec<String> = match &goal.slo {
        Some(SloRulesFile::One(rule)) => vec![rule.clone()],
        Some(SloRulesFile::Many(rules)) => rules.clone(),
        None => plan_slo.to_vec(),
    };
    if written.is_empty() {
        return Err("capacity needs an SLO to search under: write capacity = { slo = \"p99<=10ms\" }, or give the \
                    plan an [slo] section (p99 = \"10ms\")"
            .to_string());
    }
    let mut slo = Vec::new();
    for rule in &written {
        slo.push(Threshold::parse(rule).map_err(|err| format!("capacity.slo: {err}"))?);
    }
    let bounds_errors =
        |rules: &[Threshold]| rules.iter().any(|rule| rule.expression().to_ascii_lowercase().starts_with("errors"));
    match &goal.errors {
        Some(errors) => {
            slo.push(Threshold::slo_rule("errors", errors).map_err(|err| format!("capacity.errors: {err}"))?)
        }
        None if !bounds_errors(&slo) => slo.push(Threshold::slo_rule("errors", DEFAULT_ERRORS).expect("a valid rule")),
        None => {}
    }
    let precision = match &goal.precision {
        Some(text) => parse_precision(text)?,
        None => DEFAULT_PRECISION,
    };
    let rate = |key: &str, rate: Option<f64>| match rate {
        Some(rate) if !(rate.is_finite() && rate > 0.0) => {
            Err(format!("capacity.{key} = {rate} is not a positive number of requests per second"))
        }
        _ => Ok(rate),
    };
    let (start_rps, max_rps) = (rate("start_rate", goal.start_rate)?, rate("max_rate", goal.max_rate)?);
    if let (Some(start), Some(max)) = (start_rps, max_rps)
        && max <= start
    {
        return Err(format!("capacity.max_rate = {max} must be above capacity.start_rate = {start}"));
    }
    Ok(CapacityGoal { slo, precision, start_rps, max_rps })
}

/// `"5%"` → 0.05; from 0.1 % up to 50 %.
fn parse_precision(text: &str) -> Result<f64, String> {
    let fraction =
        text.trim().strip_suffix('%').and_then(|number| number.trim().parse::<f64>().ok()).map(|pct| pct / 100.0);
    match fraction {
        Some(fraction) if (0.001..=0.5).contains(&fraction) => Ok(fraction),
        _ => Err(format!("capacity.precision '{text}' must be a percentage from 0.1% to 50%, like \"5%\"")),
    }
}
