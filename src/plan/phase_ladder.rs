//! A phase's ladder keys — `rates`, `capacity`, `step_warmup`, `step`, `min_requests`, `steady_max`,
//! `steady_tolerance` — checked and turned into the
//! engine's [`LadderPlan`] and [`StepTiming`], with every refused combination named at its file, line and key.
//! Documented in docs/plan.md ("Latency at equal load: ladders and capacity").

use std::ops::Range;
use std::time::Duration;

use toml::Spanned;

use super::schema::{CapacityFile, CapacityGoalFile, PhaseFile, RatesFile, SloRulesFile};
use crate::load::figures::threshold::Threshold;
use crate::load::input::settings::{
    CAPACITY, DURATION, MAX_RATE, MIN_REQUESTS, RATES, REQUESTS, START_RATE, STEADY_MAX, STEADY_TOLERANCE, STEP,
    STEP_WARMUP,
};
use crate::load::search::capacity::{self, DEFAULT_PRECISION};
use crate::load::search::ladder::{CapacityGoal, LadderPlan, Rates, StepTiming};
use crate::load::search::steady::{self, SteadyRule};
use crate::tomlfile::Source;

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
                    goal.start_rps.map_or("a probe's throughput ÷ 2".to_string(), |rate| format!("{rate} req/s"));
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
    let (key, span, plan) = match (&phase.rates, capacity) {
        (Some(_), Some(capacity)) => {
            return Err(at(
                capacity.span(),
                "rates and capacity do not go together: give a list of rates, or a capacity search".to_string(),
            ));
        }
        (Some(rates), None) => (RATES.key, rates.span(), checked_rates(rates.get_ref()).map(LadderPlan::Rates)),
        (None, Some(capacity)) => {
            (CAPACITY.key, capacity.span(), capacity_goal(capacity.get_ref(), plan_slo).map(LadderPlan::Capacity))
        }
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
    let plan = plan.map_err(|message| at(span, message))?;
    let timing = step_timing(source, phase, name)?;
    Ok(Some(PhaseLadder { plan, timing }))
}

/// Step timing keys belong to a ladder; alone they would silently do nothing.
fn refuse_step_keys_alone(phase: &PhaseFile) -> Result<(), (Range<usize>, String)> {
    let given = [
        (STEP_WARMUP.key, phase.step_warmup.as_ref().map(Spanned::span)),
        (STEP.key, phase.step.as_ref().map(Spanned::span)),
        (MIN_REQUESTS.key, phase.min_requests.as_ref().map(Spanned::span)),
        (STEADY_MAX.key, phase.steady_max.as_ref().map(Spanned::span)),
        (STEADY_TOLERANCE.key, phase.steady_tolerance.as_ref().map(Spanned::span)),
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
        (REQUESTS.key, phase.requests.as_ref().map(Spanned::span)),
        (DURATION.key, phase.duration.as_ref().map(Spanned::span)),
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
    let default = StepTiming::DEFAULT;
    let steady_max = source.duration(&phase.steady_max, &format!("phase '{name}' steady_max"))?;
    let tolerance = match &phase.steady_tolerance {
        Some(text) => steady::parse_tolerance(text.get_ref()).ok_or_else(|| {
            let message = format!(
                "phase '{name}': steady_tolerance '{}' must be a share above 0 and at most 100 %, like \"10%\"",
                text.get_ref()
            );
            source.error_at(text.span(), message)
        })?,
        None => default.steady.tolerance,
    };
    Ok(StepTiming {
        warmup: warmup.unwrap_or(default.warmup),
        measure: measure.unwrap_or(default.measure),
        min_requests: phase.min_requests.as_ref().map_or(default.min_requests, |min| *min.get_ref()),
        steady: SteadyRule { max: steady_max.unwrap_or(default.steady.max), tolerance },
    })
}

/// Rates as `Rates::check` wants them, and a list rising (the curve is read from light to heavy load, each step after
/// a lighter one) and a range of at most [`MAX_RANGE_STEPS`].
fn checked_rates(file: &RatesFile) -> Result<Rates, String> {
    let rates = match file {
        RatesFile::Listed(list) => Rates::Listed(list.clone()),
        RatesFile::Geometric(range) => Rates::Geometric { from: range.from, to: range.to, steps: range.steps },
    };
    rates.check().map_err(|why| format!("rates {why}"))?;
    match &rates {
        Rates::Listed(list) => match list.windows(2).find(|pair| pair[1] <= pair[0]) {
            Some(pair) => Err(format!("rates must rise from step to step: {} comes after {}", pair[1], pair[0])),
            None => Ok(rates),
        },
        Rates::Geometric { steps, .. } if *steps > MAX_RANGE_STEPS => {
            Err(format!("rates has {steps} steps; give at most {MAX_RANGE_STEPS}"))
        }
        Rates::Geometric { .. } => Ok(rates),
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
    let mut written: Vec<String> = match &goal.slo {
        Some(SloRulesFile::One(rule)) => vec![rule.clone()],
        Some(SloRulesFile::Many(rules)) => rules.clone(),
        None => plan_slo.to_vec(),
    };
    if written.is_empty() {
        return Err("capacity needs an SLO to search under: write capacity = { slo = \"p99<=10ms\" }, or give the \
                    plan an [slo] section (p99 = \"10ms\")"
            .to_string());
    }
    if let Some(errors) = &goal.errors {
        let rule = Threshold::slo_rule("errors", errors).map_err(|err| format!("capacity.errors: {err}"))?;
        written.push(rule.expression().to_string());
    }
    let slo = capacity::slo_rules(&written).map_err(|err| format!("capacity.slo: {err}"))?;
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
    let (start_rps, max_rps) = (rate(START_RATE.key, goal.start_rate)?, rate(MAX_RATE.key, goal.max_rate)?);
    if let (Some(start), Some(max)) = (start_rps, max_rps)
        && max <= start
    {
        return Err(format!("capacity.max_rate = {max} must be above capacity.start_rate = {start}"));
    }
    Ok(CapacityGoal { slo, precision, start_rps, max_rps })
}

/// `"5%"` (or `"5"`) → 0.05: a share above 0 and at most 100 %, as `jload bench --precision` takes it.
fn parse_precision(text: &str) -> Result<f64, String> {
    let number = text.trim().strip_suffix('%').unwrap_or(text.trim()).trim();
    match number.parse::<f64>().map(|pct| pct / 100.0) {
        Ok(fraction) if fraction > 0.0 && fraction <= 1.0 => Ok(fraction),
        _ => Err(format!("capacity.precision '{text}' must be a share above 0 and at most 100 %, like \"5%\"")),
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::plan::{PlanBase, parse_plan};

    const HEAD: &str =
        "name = \"p\"\n[target]\ncommand = \"java {jvm} -jar x.jar\"\nready = \"http://127.0.0.1:{port}/\"\n";
    const URL: &str = "url = \"http://127.0.0.1:{port}/\"\n";

    /// The first phase of a plan whose phase `get` has these keys (after its name and URL, from line 8), and `tail`.
    fn parse(keys: &str, tail: &str) -> anyhow::Result<crate::plan::Phase> {
        let base = PlanBase { plan_dir: "/plans".into(), cwd: "/here".into() };
        parse_plan("p.toml", &format!("{HEAD}[[phase]]\nname = \"get\"\n{URL}{keys}{tail}"), &base)
            .map(|plan| plan.phases[0].clone())
    }

    fn ladder(keys: &str) -> PhaseLadder {
        parse(keys, "").unwrap().ladder.expect("a ladder phase")
    }

    fn error(keys: &str) -> String {
        parse(keys, "").unwrap_err().to_string()
    }

    #[test]
    fn listed_rates_run_in_order_with_the_default_step_timing() {
        let phase = parse("rates = [2000, 4000, 8000.5]\n", "").unwrap();
        let ladder = phase.ladder.unwrap();
        let LadderPlan::Rates(rates) = &ladder.plan else { panic!("rates") };
        assert_eq!(rates.list(), [2000.0, 4000.0, 8000.5]);
        assert_eq!(ladder.timing, StepTiming::DEFAULT);
        assert_eq!(
            (phase.load.rate, phase.load.stop.duration),
            (Some(2000.0), Some(StepTiming::DEFAULT.measure)),
            "open model"
        );
    }

    #[test]
    fn a_rate_range_is_geometric_and_step_keys_set_the_timing() {
        let ladder = ladder(
            "rates = { from = 1000, to = 8000, steps = 4 }\nstep_warmup = \"0s\"\nstep = \"3s\"\nmin_requests = 50\n",
        );
        let LadderPlan::Rates(rates) = &ladder.plan else { panic!("rates") };
        assert_eq!(rates.list(), [1000.0, 2000.0, 4000.0, 8000.0]);
        assert_eq!(
            ladder.timing,
            StepTiming {
                warmup: Duration::ZERO,
                measure: Duration::from_secs(3),
                min_requests: 50,
                steady: SteadyRule::DEFAULT
            }
        );
    }

    #[test]
    fn steady_keys_set_the_warmup_until_steady_or_turn_it_off() {
        let given = ladder("rates = [1000]\nsteady_max = \"20s\"\nsteady_tolerance = \"5%\"\n");
        assert_eq!(given.timing.steady, SteadyRule { max: Duration::from_secs(20), tolerance: 0.05 });
        assert!(!ladder("capacity = { slo = \"p99<=1ms\" }\nsteady_max = \"0s\"\n").timing.steady.enabled());
        assert!(
            error("rates = [1000]\nsteady_tolerance = \"0%\"\n")
                .contains("line 9: phase 'get': steady_tolerance '0%' must be a share above 0")
        );
        assert!(error("duration = \"5s\"\nsteady_max = \"9s\"\n").contains("steady_max applies only to a ladder"));
    }

    #[test]
    fn a_capacity_table_gives_the_search_its_rules_precision_and_bounds() {
        let ladder = ladder(
            "capacity = { slo = [\"p99<=10ms\", \"p999 <= 50ms\"], errors = \"1%\", precision = \"2.5%\", start_rate = 500, max_rate = 9000 }\n",
        );
        let LadderPlan::Capacity(goal) = &ladder.plan else { panic!("capacity") };
        let rules: Vec<&str> = goal.slo.iter().map(Threshold::expression).collect();
        assert_eq!(rules, ["p99<=10ms", "p999 <= 50ms", "errors<=1%"]);
        assert_eq!((goal.precision, goal.start_rps, goal.max_rps), (0.025, Some(500.0), Some(9000.0)));
        assert_eq!(ladder.first_rate(), Some(500.0));
    }

    #[test]
    fn a_capacity_search_bounds_errors_at_one_in_a_thousand_unless_told() {
        let LadderPlan::Capacity(goal) = ladder("capacity = { slo = \"p99<=10ms\" }\n").plan else { panic!() };
        let rules: Vec<&str> = goal.slo.iter().map(Threshold::expression).collect();
        assert_eq!(rules, ["p99<=10ms", "errors<=0.1%"]);
        assert_eq!((goal.precision, goal.start_rps, goal.max_rps), (DEFAULT_PRECISION, None, None));
        let LadderPlan::Capacity(goal) = ladder("capacity = { slo = [\"p99<=10ms\", \"errors<5\"] }\n").plan else {
            panic!()
        };
        assert_eq!(goal.slo.len(), 2, "the rules already bound errors");
    }

    #[test]
    fn capacity_true_searches_under_the_plans_slo() {
        let phase = parse("capacity = true\n", "[slo]\np99 = \"20ms\"\nerrors = \"0.5%\"\n").unwrap();
        let Some(PhaseLadder { plan: LadderPlan::Capacity(goal), .. }) = phase.ladder else { panic!() };
        let rules: Vec<&str> = goal.slo.iter().map(Threshold::expression).collect();
        assert_eq!(rules, ["p99<=20ms", "errors<=0.5%"]);
        assert_eq!(phase.load.rate, None, "the start comes from a probe");
        assert!(parse("capacity = false\n", "").unwrap_err().to_string().contains("neither requests nor duration"));
    }

    #[test]
    fn refused_combinations_name_the_line_and_key() {
        let cases = [
            ("rates = [1000]\nrate = 5.0\n", "line 9: phase 'get': rate does not go with rates"),
            (
                "capacity = { slo = \"p99<=1ms\" }\nrequests = 5\n",
                "line 9: phase 'get': requests does not go with capacity",
            ),
            ("duration = \"5s\"\nrates = [1000]\n", "line 8: phase 'get': duration does not go with rates"),
            ("rates = [1000]\ncapacity = true\n", "line 9: phase 'get': rates and capacity do not go together"),
            ("measure = false\nrates = [1000]\n", "line 9: phase 'get': rates in a phase with measure = false"),
            ("duration = \"5s\"\n\nstep = \"2s\"\n", "line 10: phase 'get': step applies only to a ladder"),
            ("duration = \"5s\"\nmin_requests = 9\n", "line 9: phase 'get': min_requests applies only to a ladder"),
            ("rates = [1000]\nstep = \"0s\"\n", "line 9: phase 'get': step must be longer than 0ns"),
            ("rates = [1000]\nstep_warmup = \"soon\"\n", "line 9: phase 'get' step_warmup: 'soon' is not a duration"),
        ];
        for (keys, expected) in cases {
            let err = error(keys);
            assert!(err.starts_with(&format!("p.toml: {expected}")), "expected '{expected}' in {err}");
        }
    }

    #[test]
    fn bad_rates_and_goals_are_named() {
        let cases = [
            ("rates = []\n", "line 8: phase 'get': rates lists no rate"),
            ("rates = [1000, -5]\n", "rates has -5, not a positive number"),
            ("rates = [4000, 2000]\n", "rates must rise from step to step: 2000 comes after 4000"),
            ("rates = { from = 10, to = 5, steps = 3 }\n", "rates goes from 10 to 5; the range must rise"),
            ("rates = { from = 10, to = 50, steps = 1 }\n", "rates has 1 steps; give at least 2"),
            ("rates = { from = 10, to = 50, steps = 101 }\n", "rates has 101 steps; give at most 100"),
            ("rates = \"fast\"\n", "a list of rates like [2000, 4000, 8000] or a table like"),
            ("rates = { from = 1, to = 5, step = 3 }\n", "a list of rates like"),
            ("capacity = { slo = \"p98<=10ms\" }\n", "capacity.slo: threshold 'p98<=10ms': unknown metric"),
            ("capacity = { slo = \"p99<=1ms\", precision = \"0%\" }\n", "capacity.precision '0%' must be a share"),
            ("capacity = { slo = \"p99<=1ms\", errors = \"lots\" }\n", "capacity.errors:"),
            (
                "capacity = { slo = \"p99<=1ms\", start_rate = 900, max_rate = 800 }\n",
                "capacity.max_rate = 800 must be above",
            ),
            ("capacity = { slo = \"p99<=1ms\", max_rate = 0 }\n", "capacity.max_rate = 0 is not a positive number"),
            ("capacity = true\n", "line 8: phase 'get': capacity needs an SLO to search under"),
            ("capacity = { errors = \"1%\" }\n", "capacity needs an SLO to search under"),
            ("capacity = \"yes\"\n", "true or a table like"),
            (
                "capacity = { slo = \"p99<=1ms\", slow = 1 }\n",
                "capacity: unknown field `slow`, expected one of `slo`, `errors`, `precision`, `start_rate`, `max_rate`",
            ),
        ];
        for (keys, expected) in cases {
            let err = error(keys);
            assert!(err.starts_with("p.toml: line 8") && err.contains(expected), "expected '{expected}' in {err}");
        }
    }

    #[test]
    fn dry_run_describes_the_ladder() {
        let phase = parse("rates = [1000, 2000]\nstep = \"3s\"\n", "").unwrap();
        assert_eq!(
            phase.describe(),
            "get: http://127.0.0.1:{port}/ × 50 connections, open-model ladder at 1000, 2000 req/s; each step 2s \
             warm-up + 3s measured (at least 2000 requests)"
        );
        let phase = parse("capacity = { slo = \"p99<=10ms\", max_rate = 9000 }\nstep_warmup = \"1s\"\n", "").unwrap();
        assert_eq!(
            phase.describe(),
            "get: http://127.0.0.1:{port}/ × 50 connections, capacity search under p99<=10ms, errors<=0.1% to 5% \
             precision, from a probe's throughput ÷ 2, at most 9000 req/s; each step 1s warm-up + 5s measured (at \
             least 2000 requests)"
        );
    }
}
