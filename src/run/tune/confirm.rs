//! The tune's confirmation (docs/tune.md, "What the answer promises"): a trial's figure is one run on a noisy
//! machine, and the best of a dozen noisy runs is biased upwards. Once a cell's search has spent its budget, its
//! finalists — the best trial, the runner-up, any other trial within [`CONTENDER_BAND`] of the best, and the
//! defaults — are measured again until each has `confirm` repeats (the trial is repeat 1, the others `rep-2`, … in
//! its folder, so report and compare see a cell with repeats). Each finalist's figure is then the median of its
//! repeats with the 95 % t interval of `jload report`; the confirmed best is the finalist with the best median among
//! those feasible in every repeat; and Welch's test, `jload compare`'s, says whether it beats the defaults and the
//! runner-up or cannot be told apart from them.

use std::time::Instant;

use super::figure::figure_of;
use crate::plan::Plan;
use crate::plan::matrix::Cell;
use crate::plan::tune::TunePlan;
use crate::results::tune_json::{CellTune, Confirmation, Difference, Finalist, Objective};
use crate::run::box_search::trial::{SearchContext, run_repeat};
use crate::run::store::needs_run;
use crate::stats::{Estimate, welch};

/// A trial whose figure is within this share of the best's is a contender: it is measured again with the best.
pub const CONTENDER_BAND: f64 = 0.10;
/// The most finalists besides the defaults: the best, the runner-up, one more contender.
pub const CONTENDERS_MOST: usize = 3;

/// The finalists' trial numbers: the best, the runner-up, the other trials within the band of the best (at most
/// [`CONTENDERS_MOST`] in all, best first), then the defaults where they had a figure.
pub fn finalists(objective: Objective, cell: &CellTune) -> Vec<u32> {
    let ranked = cell.top(objective, usize::MAX);
    let Some(best) = ranked.first().and_then(|best| best.figure) else { return Vec::new() };
    let mut numbers: Vec<u32> = ranked
        .iter()
        .enumerate()
        .filter(|(index, trial)| {
            *index < 2 || trial.figure.is_some_and(|figure| (figure - best).abs() <= CONTENDER_BAND * best.abs())
        })
        .map(|(_, trial)| trial.number)
        .take(CONTENDERS_MOST)
        .collect();
    let defaults = cell.trials.iter().find(|trial| trial.source == "defaults" && trial.figure.is_some());
    if let Some(defaults) = defaults
        && !numbers.contains(&defaults.number)
    {
        numbers.push(defaults.number);
    }
    numbers
}

/// The seconds a time budget keeps for the confirmation: the search's mean trial for each run it may take.
pub fn reserve_seconds(confirm: u32, cell: &CellTune) -> f64 {
    if confirm < 2 || cell.trials.is_empty() {
        return 0.0;
    }
    let mean = cell.trials.iter().map(|trial| trial.seconds).sum::<f64>() / cell.trials.len() as f64;
    mean * f64::from(confirm - 1) * (CONTENDERS_MOST + 1) as f64
}

/// What one finalist's repeats gave: its trial number, the figure per repeat, why the first infeasible one was.
pub struct Measured {
    pub trial: u32,
    pub figures: Vec<Option<f64>>,
    pub infeasible: Option<String>,
}

/// The confirmation of measured finalists: each one's median and interval, the confirmed order, and the tests of
/// the best against the defaults (`defaults`: their trial number) and against the runner-up.
pub fn settle(
    objective: Objective,
    repeats: u32,
    measured: Vec<Measured>,
    defaults: Option<u32>,
    seconds: f64,
) -> Confirmation {
    let mut finalists: Vec<Finalist> = measured
        .into_iter()
        .map(|measured| {
            let values: Vec<f64> = measured.figures.iter().flatten().copied().collect();
            let estimate = Estimate::of(values);
            Finalist {
                trial: measured.trial,
                median: estimate.as_ref().map(|estimate| estimate.median),
                // Every objective's figure is a rate, a latency or a size: an interval reaching below 0 stops there.
                interval: estimate.and_then(|estimate| estimate.ci).map(|[low, high]| [low.max(0.0), high]),
                figures: measured.figures,
                infeasible: measured.infeasible,
            }
        })
        .collect();
    // Feasible everywhere first, by median, best first; the stable sort keeps the search's order among equals.
    finalists.sort_by(|a, b| {
        let key = |finalist: &Finalist| match finalist.feasible_everywhere() {
            true => objective.score(finalist.median.expect("feasible")),
            false => f64::NEG_INFINITY,
        };
        key(b).total_cmp(&key(a))
    });
    let values = |finalist: &Finalist| finalist.figures.iter().flatten().copied().collect::<Vec<f64>>();
    let test = |best: &Finalist, other: &Finalist| {
        welch(&values(best), &values(other)).map(|test| Difference {
            trial: other.trial,
            p: test.p,
            significant: test.significant(),
        })
    };
    let best = finalists.first().filter(|best| best.feasible_everywhere());
    let others = || finalists.iter().skip(1).filter(|finalist| finalist.feasible_everywhere());
    let against_defaults = best.filter(|best| Some(best.trial) != defaults).and_then(|best| {
        let defaults = others().find(|finalist| Some(finalist.trial) == defaults)?;
        test(best, defaults)
    });
    let against_runner_up = best.and_then(|best| {
        let runner_up = others().find(|finalist| Some(finalist.trial) != defaults || Some(best.trial) == defaults)?;
        test(best, runner_up)
    });
    Confirmation { repeats, finalists, against_defaults, against_runner_up, seconds }
}

/// Measure `cell_tune`'s finalists again, each to `tune.confirm` repeats, and record the confirmation in it; the
/// trials' cells are in `cells`. Returns true when interrupted (the confirmation is then left unrecorded: a
/// `--resume` keeps every repeat already run and settles it).
pub fn confirm(
    context: &SearchContext<'_>,
    plan: &Plan,
    tune: &TunePlan,
    cell_tune: &mut CellTune,
    cells: &[Cell],
) -> anyhow::Result<bool> {
    let numbers = finalists(tune.objective, cell_tune);
    if tune.confirm < 2 || numbers.is_empty() {
        return Ok(false);
    }
    let mut measured = Vec::new();
    let mut seconds = 0.0;
    for number in numbers {
        let trial = cell_tune.trial(number).expect("a finalist is a trial").clone();
        let cell = cells.iter().find(|cell| cell.dir == trial.dir).expect("each trial has its cell");
        let mut figures = vec![trial.figure];
        let mut infeasible = None;
        for rep in 2..=tune.confirm {
            let kept = context.results.read_meta(&cell.dir, rep).filter(|meta| !needs_run(Some(meta)));
            let started = Instant::now();
            let Some(meta) = run_repeat(context, plan, cell, rep)? else { return Ok(true) };
            seconds += kept.map_or_else(|| started.elapsed().as_secs_f64(), |kept| kept.wall_seconds());
            let outcome = figure_of(tune.objective, plan, context.results, cell, &meta);
            let words = match &outcome {
                Ok(figure) => tune.objective.words(*figure),
                Err(why) => format!("infeasible: {why}"),
            };
            say!("jload: confirming trial {number} ({}), repeat {rep}/{}: {words}", trial.described, tune.confirm);
            if let Err(why) = &outcome {
                infeasible.get_or_insert_with(|| why.clone());
            }
            figures.push(outcome.ok());
        }
        measured.push(Measured { trial: number, figures, infeasible });
    }
    let defaults = cell_tune.trials.iter().find(|trial| trial.source == "defaults").map(|trial| trial.number);
    cell_tune.confirmation = Some(settle(tune.objective, tune.confirm, measured, defaults, seconds));
    Ok(false)
}

#[cfg(test)]
#[path = "confirm_tests.rs"]
mod tests;
