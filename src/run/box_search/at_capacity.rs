//! A box search at the capacity found in the largest box (`[box_search] at_capacity = 0.8`): per cell, the plan runs
//! as written in the largest box first, and its measured capacity phase finds the rate; every trial then runs that
//! phase at a fixed rate — the share of that capacity — for one step's measured window.

use super::trial::{SearchContext, run_once, trial_cell};
use crate::load::format::format_rate;
use crate::plan::Plan;
use crate::plan::box_search::BoxSearch;
use crate::results::Status;
use crate::results::box_search_json::CapacityRun;
use crate::run::runner::PreparedCell;

/// What the capacity run in the largest box gave a cell's search.
pub enum CapacityLoad {
    Interrupted,
    /// The plan each trial runs, and the load in words (`90 req/s, 50% of the 180 req/s found in the largest box`).
    Found {
        plan: Plan,
        words: String,
        run: CapacityRun,
    },
    /// No rate to search at: why (the run failed or crashed, or no rate met the SLO).
    NotFound {
        why: String,
        run: CapacityRun,
    },
}

/// Run (or read back) `item`'s capacity in the largest box, and the load its trials run at `share` of it.
pub fn capacity_load(
    context: &SearchContext<'_>,
    search: &BoxSearch,
    item: &PreparedCell,
    share: f64,
) -> anyhow::Result<CapacityLoad> {
    let plan = context.plan;
    let cell = trial_cell(plan, search, &item.cell, item.cell.limits, Some(("load", "capacity")));
    say!("jload: [box search] {}: its capacity in the largest box first", item.cell.id);
    let Some(meta) = run_once(context, plan, &cell)? else { return Ok(CapacityLoad::Interrupted) };
    let phase = plan.phases.iter().find(|phase| phase.measure && phase.ladder.is_some());
    let capacity = phase
        .and_then(|phase| context.results.read_phase(&cell.dir, 1, &phase.name))
        .and_then(|record| record.bench.capacity);
    let run = CapacityRun {
        cell: cell.id.clone(),
        dir: cell.dir.clone(),
        share,
        rps: capacity.as_ref().and_then(|capacity| capacity.rps),
        verdict: capacity.as_ref().map(|capacity| capacity.verdict.clone()),
    };
    if meta.status != Status::Ok {
        let cause = meta.cause.clone().unwrap_or_else(|| format!("{:?}", meta.status).to_lowercase());
        return Ok(CapacityLoad::NotFound { why: format!("its capacity run in the largest box ended: {cause}"), run });
    }
    let Some(rps) = run.rps else {
        let verdict = run.verdict.clone().unwrap_or_else(|| "no capacity recorded".to_string());
        return Ok(CapacityLoad::NotFound { why: format!("no capacity in the largest box: {verdict}"), run });
    };
    let rate = (rps * share).round().max(1.0);
    say!("jload:        capacity {} req/s; the trials run at {} req/s", format_rate(rps), format_rate(rate));
    let words = format!(
        "{} req/s, {}% of the {} req/s found in the largest box",
        format_rate(rate),
        share * 100.0,
        format_rate(rps)
    );
    Ok(CapacityLoad::Found { plan: fixed_rate_plan(plan, rate), words, run })
}

/// `plan` with its measured capacity phase turned into a phase of one run at `rate` ([`Phase::run_at_fixed_rate`]).
///
/// [`Phase::run_at_fixed_rate`]: crate::plan::Phase::run_at_fixed_rate
fn fixed_rate_plan(plan: &Plan, rate: f64) -> Plan {
    let mut fixed = plan.clone();
    for phase in fixed.phases.iter_mut().filter(|phase| phase.measure && phase.ladder.is_some()) {
        phase.run_at_fixed_rate(rate);
    }
    fixed
}
