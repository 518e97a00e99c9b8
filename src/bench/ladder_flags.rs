//! The rate-ladder and capacity-search flags of `jload bench` (`--rates`, `--capacity` and the step flags): checked
//! against each other and the single-run flags, and turned into a [`LadderPlan`] with its [`StepTiming`].

use super::BenchArgs;
use crate::error::bad_input;
use crate::load::input::settings::{
    CAPACITY, DURATION, MAX_RATE, MIN_REQUESTS, PRECISION, RATE, RATES, REQUESTS, START_RATE, STEADY_MAX,
    STEADY_TOLERANCE, STEP, STEP_WARMUP,
};
use crate::load::search::capacity::{self, DEFAULT_PRECISION};
use crate::load::search::ladder::{CapacityGoal, LadderPlan, Rates, StepTiming};
use crate::load::search::steady::{self, SteadyRule};
use crate::units::parse_duration;

/// What `--rates` or `--capacity` asked for.
pub struct LadderSetup {
    pub plan: LadderPlan,
    pub timing: StepTiming,
}

/// The ladder or search the flags ask for; None for a single run. Every conflict is one line of bad input.
pub fn ladder_setup(args: &BenchArgs) -> anyhow::Result<Option<LadderSetup>> {
    let search = !args.capacity.is_empty();
    let step_flags = [
        (STEP_WARMUP.flag_name, args.step_warmup.is_some()),
        (STEP.flag_name, args.step.is_some()),
        (MIN_REQUESTS.flag_name, args.min_requests.is_some()),
        (STEADY_MAX.flag_name, args.steady_max.is_some()),
        (STEADY_TOLERANCE.flag_name, args.steady_tolerance.is_some()),
    ];
    let search_flags = [
        (PRECISION.flag_name, args.precision.is_some()),
        (MAX_RATE.flag_name, args.max_rate.is_some()),
        (START_RATE.flag_name, args.start_rate.is_some()),
    ];
    if args.rates.is_none() && !search {
        return match step_flags.iter().chain(&search_flags).find(|(_, given)| *given) {
            Some((flag, _)) => Err(bad_input(format!("{flag} applies only with --rates or --capacity"))),
            None => Ok(None),
        };
    }
    let ladder = if search { CAPACITY.flag_name } else { RATES.flag_name };
    if args.rates.is_some() && search {
        return Err(bad_input("give --rates (a fixed ladder) or --capacity (a search), not both"));
    }
    let single_run = [
        (RATE.flag_name, args.rate.is_some(), "each step runs at its own rate"),
        (REQUESTS.flag_name, args.requests.is_some(), "each step lasts --step-warmup + --step"),
        (DURATION.flag_name, args.duration.is_some(), "each step lasts --step-warmup + --step"),
        ("--hlog", args.hlog.is_some(), "each step is a run of its own; --json holds every step"),
        ("--start-at", args.start_at.is_some(), "it starts several runs, one after the other"),
    ];
    if let Some((flag, _, why)) = single_run.iter().find(|(_, given, _)| *given) {
        return Err(bad_input(format!("{flag} does not apply with {ladder}: {why}")));
    }
    if !search && let Some((flag, _)) = search_flags.iter().find(|(_, given)| *given) {
        return Err(bad_input(format!("{flag} applies only with --capacity, not with --rates")));
    }
    let timing = step_timing(args)?;
    let plan = match &args.rates {
        Some(text) => LadderPlan::Rates(parse_rates(text)?),
        None => LadderPlan::Capacity(capacity_goal(args)?),
    };
    Ok(Some(LadderSetup { plan, timing }))
}

fn step_timing(args: &BenchArgs) -> anyhow::Result<StepTiming> {
    let default = StepTiming::DEFAULT;
    let duration = |flag: &str, text: &Option<String>, default| match text {
        Some(text) => parse_duration(flag, text),
        None => Ok(default),
    };
    let timing = StepTiming {
        warmup: duration(STEP_WARMUP.flag_name, &args.step_warmup, default.warmup)?,
        measure: duration(STEP.flag_name, &args.step, default.measure)?,
        min_requests: args.min_requests.unwrap_or(default.min_requests),
        steady: SteadyRule {
            max: duration(STEADY_MAX.flag_name, &args.steady_max, default.steady.max)?,
            tolerance: match &args.steady_tolerance {
                Some(text) => steady::parse_tolerance(text).ok_or_else(|| {
                    bad_input(format!("--steady-tolerance '{text}': give a share above 0 and at most 100 %, like 10%"))
                })?,
                None => default.steady.tolerance,
            },
        },
    };
    if timing.measure.is_zero() {
        return Err(bad_input("--step must be longer than 0s"));
    }
    Ok(timing)
}

fn capacity_goal(args: &BenchArgs) -> anyhow::Result<CapacityGoal> {
    let slo = capacity::slo_rules(&args.capacity).map_err(|err| bad_input(format!("--capacity: {err}")))?;
    let precision = args.precision.as_deref().map(parse_precision).transpose()?.unwrap_or(DEFAULT_PRECISION);
    for (flag, rate) in [(MAX_RATE.flag_name, args.max_rate), (START_RATE.flag_name, args.start_rate)] {
        if let Some(rate) = rate
            && !(rate.is_finite() && rate > 0.0)
        {
            return Err(bad_input(format!("{flag} must be a positive number of requests per second, not {rate}")));
        }
    }
    if let (Some(start), Some(max)) = (args.start_rate, args.max_rate)
        && start > max
    {
        return Err(bad_input(format!("--start-rate {start} is above --max-rate {max}; start at or below it")));
    }
    Ok(CapacityGoal { slo, precision, start_rps: args.start_rate, max_rps: args.max_rate })
}

/// `2000,4000,8000` (these rates in this order) or `1000..40000:8` (8 rates spaced geometrically, both ends included).
pub fn parse_rates(text: &str) -> anyhow::Result<Rates> {
    const FORMS: &str = "write rates like 2000,4000,8000 or 1000..40000:8 (8 steps from 1000 to 40000, geometric)";
    let unreadable = || bad_input(format!("--rates '{text}' cannot be read; {FORMS}"));
    let number = |part: &str| part.trim().parse::<f64>().map_err(|_| unreadable());
    let rates = match text.split_once("..") {
        Some((from, rest)) => {
            let (to, steps) = rest.split_once(':').ok_or_else(unreadable)?;
            let steps = steps.trim().parse::<u32>().map_err(|_| unreadable())?;
            Rates::Geometric { from: number(from)?, to: number(to)?, steps }
        }
        None => Rates::Listed(text.split(',').map(number).collect::<anyhow::Result<_>>()?),
    };
    rates.check().map_err(|problem| bad_input(format!("--rates '{text}' {problem}; {FORMS}")))?;
    Ok(rates)
}

/// `5%` or `5` (percent), above 0 and at most 100 %.
fn parse_precision(text: &str) -> anyhow::Result<f64> {
    let number = text.trim().strip_suffix('%').unwrap_or(text.trim());
    match number.trim().parse::<f64>() {
        Ok(percent) if percent > 0.0 && percent <= 100.0 => Ok(percent / 100.0),
        _ => Err(bad_input(format!("--precision '{text}': give a share above 0 and at most 100 %, like 5%"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_are_listed_or_a_geometric_range() {
        assert_eq!(parse_rates("2000,4000, 8000").unwrap().list(), [2000.0, 4000.0, 8000.0]);
        // 1000 × 2^(k/3): 1000, 1260, 1587, 2000.
        assert_eq!(parse_rates("1000..2000:4").unwrap().list(), [1000.0, 1260.0, 1587.0, 2000.0]);
        for bad in ["", "2000,,4000", "1000..40000", "1000..40000:1", "4000..1000:3", "0,100", "fast", "1..2:x"] {
            let err = parse_rates(bad).unwrap_err();
            assert!(err.downcast_ref::<crate::error::BadInput>().is_some(), "{bad}");
            assert!(err.to_string().starts_with(&format!("--rates '{bad}' ")), "{err}");
        }
    }

    #[test]
    fn precision_is_a_percentage() {
        assert_eq!(parse_precision("5%").unwrap(), 0.05);
        assert_eq!(parse_precision("2.5").unwrap(), 0.025);
        for bad in ["0%", "150%", "x", "-5%"] {
            assert!(parse_precision(bad).is_err(), "{bad}");
        }
    }
}
