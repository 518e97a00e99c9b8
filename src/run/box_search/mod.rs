//! The box search's runner (docs/containers.md, "The smallest box that holds the SLO"): per cell of the plan — after
//! its capacity run in the largest box with `at_capacity` (`at_capacity.rs`) — each searched
//! limit in turn, the limits chosen by `bisect.rs`, each a trial of its own
//! (`trial.rs`). `box_search.json` and `summary.json` (the trials as cells, each searched limit
//! an axis) are rewritten after each trial, so `--resume` goes on from the trials on disk.

mod at_capacity;
mod bisect;
pub(super) mod trial;

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::atomic::Ordering;

use super::runner::PreparedCell;
use super::store::build_summary;
use crate::atomic_file::write_json;
use crate::cgroup::Limits;
use crate::load::format::format_rate;
use crate::plan::box_search::{BoxSearch, SearchRange};
use crate::plan::matrix::Cell;
use crate::plan::{Axis, AxisValue, Plan};
use crate::results::box_search_json::{BoxAnswer, BoxSearchRecord, BoxTrial, CapacityRun, CellBoxSearch};
use crate::results::{ResultsDir, read_json};
use at_capacity::{CapacityLoad, capacity_load};
use bisect::{Next, next};
use trial::{limit_of, trial, trial_cell};

pub use trial::SearchContext;

/// Search every cell of `prepared` (each in the largest box, as preflighted) for the smallest box of `search`.
/// Returns true when interrupted.
pub fn run_search(context: &SearchContext<'_>, search: &BoxSearch, prepared: &[PreparedCell]) -> anyhow::Result<bool> {
    let mut record = BoxSearchRecord::default();
    let mut trial_cells: Vec<Cell> = Vec::new();
    for item in prepared {
        let blank = |load: String, capacity: Option<CapacityRun>, range: SearchRange| CellBoxSearch {
            cell: item.cell.id.clone(),
            axes: item.cell.axes.clone(),
            range,
            load,
            slo: context.plan.slo.clone(),
            trials: Vec::new(),
            answer: None,
            capacity,
            not_searched: None,
        };
        let (plan, load, capacity) = match search.at_capacity {
            None => (Cow::Borrowed(context.plan), load_words(context.plan), None),
            Some(share) => match capacity_load(context, search, item, share)? {
                CapacityLoad::Interrupted => return Ok(true),
                CapacityLoad::Found { plan, words, run } => (Cow::Owned(plan), words, Some(run)),
                CapacityLoad::NotFound { why, run } => {
                    say!("jload:        {}: not searched: {why}", item.cell.id);
                    let first = search.ranges()[0];
                    let not_searched =
                        CellBoxSearch { not_searched: Some(why), ..blank(String::new(), Some(run), first) };
                    record.searches.push(not_searched);
                    write_records(context, search, &record, record.searches.last().expect("pushed"), &trial_cells)?;
                    continue;
                }
            },
        };
        let mut limits = item.cell.limits;
        for range in search.ranges() {
            let mut cell_search = blank(load.clone(), capacity.clone(), range);
            let mut tried: Vec<(f64, bool)> = Vec::new();
            let interrupted = loop {
                let limit = match next(&range, &tried) {
                    Next::Done(answer) => {
                        cell_search.answer = Some(answer);
                        break false;
                    }
                    Next::Try(limit) => limit,
                };
                let cell = trial_cell(context.plan, search, &item.cell, range.dimension.set(limits, limit), None);
                let most = BoxSearch::most_trials(&range);
                say!(
                    "jload: [box search] {} {} {}: trial {} (at most {most})",
                    item.cell.id,
                    range.dimension.key(),
                    range.dimension.label(limit),
                    tried.len() + 1
                );
                let Some((passed, failure)) = trial(context, &plan, &cell)? else { break true };
                let verdict = failure.as_deref().map_or("holds the SLO".to_string(), |why| format!("fails: {why}"));
                say!("jload:        {} {verdict}", cell.id);
                tried.push((limit, passed));
                let dir = cell.dir.clone();
                cell_search.trials.push(BoxTrial { limit, cell: cell.id.clone(), dir, passed, failure });
                trial_cells.push(cell);
                write_records(context, search, &record, &cell_search, &trial_cells)?;
            };
            let answer = cell_search.answer;
            record.searches.push(cell_search);
            write_records(context, search, &record, record.searches.last().expect("pushed"), &trial_cells)?;
            if interrupted {
                return Ok(true);
            }
            // The next limit is searched in the smallest box that held the SLO; none: it is not searched.
            match answer {
                Some(BoxAnswer::Between { lowest_passing, .. } | BoxAnswer::AtMostLowerBound { lowest_passing }) => {
                    limits = range.dimension.set(limits, lowest_passing);
                }
                _ => break,
            }
        }
    }
    Ok(context.stop.load(Ordering::Relaxed))
}

/// The searches of a finished (or interrupted) run, as recorded; empty without a box search.
pub fn read_record(results: &ResultsDir) -> BoxSearchRecord {
    read_json(&results.box_search()).unwrap_or_default()
}

/// The load the trials run, in words: the measured phases' rate (`20,000 req/s`), else their connections.
fn load_words(plan: &Plan) -> String {
    let measured: Vec<_> = plan.phases.iter().filter(|phase| phase.measure).collect();
    let rates: Vec<f64> = measured.iter().filter_map(|phase| phase.load.rate).collect();
    match rates.as_slice() {
        [rate, rest @ ..] if rates.len() == measured.len() && rest.iter().all(|other| other == rate) => {
            format!("{} req/s", format_rate(*rate))
        }
        _ => {
            let names: Vec<String> = measured.iter().map(|phase| format!("'{}'", phase.name)).collect();
            format!("the load of phase(s) {}", names.join(", "))
        }
    }
}

/// `box_search.json` with the searches done and the one under way, and `summary.json` over every trial so far: the
/// plan's axes and one per searched limit, whose labels are the limits tried.
fn write_records(
    context: &SearchContext<'_>,
    search: &BoxSearch,
    done: &BoxSearchRecord,
    current: &CellBoxSearch,
    trial_cells: &[Cell],
) -> anyhow::Result<()> {
    let mut record = done.clone();
    if record.searches.last() != Some(current) {
        record.searches.push(current.clone());
    }
    write_json(&context.results.box_search(), &record)?;
    let mut cells = trial_cells.to_vec();
    let mut seen = std::collections::HashSet::new();
    cells.retain(|cell| seen.insert(cell.id.clone()));
    // The plan's cells in the order they were searched, each one's trials smallest box first.
    let searched: Vec<&str> = search.ranges().iter().map(|range| range.dimension.key()).collect();
    let plan_cell = |cell: &Cell| -> Vec<(String, String)> {
        cell.axes
            .iter()
            .filter(|(axis, _)| !searched.contains(&axis.as_str()))
            .map(|(a, l)| (a.clone(), l.clone()))
            .collect()
    };
    let mut order: Vec<Vec<(String, String)>> = Vec::new();
    for cell in &cells {
        if !order.contains(&plan_cell(cell)) {
            order.push(plan_cell(cell));
        }
    }
    let group = |cell: &Cell| order.iter().position(|axes| *axes == plan_cell(cell)).unwrap_or_default();
    cells.sort_by(|a, b| {
        let limits = |cell: &Cell| (cell.limits.memory_bytes, cell.limits.cpus_quota);
        group(a).cmp(&group(b)).then(limits(a).partial_cmp(&limits(b)).unwrap_or(std::cmp::Ordering::Equal))
    });
    let mut plan = context.plan.clone();
    plan.run.repeats = 1;
    for range in search.ranges() {
        plan.axes.push(searched_axis(range, &cells));
    }
    write_json(&context.results.summary(), &build_summary(&plan, &cells, context.results))
}

/// The axis a searched limit adds to the summary: the limits its trials ran in, smallest first.
fn searched_axis(range: SearchRange, cells: &[Cell]) -> Axis {
    let mut limits: Vec<f64> = cells.iter().map(|cell| limit_of(range.dimension, &cell.limits)).collect();
    limits.sort_by(f64::total_cmp);
    limits.dedup();
    let values = limits
        .into_iter()
        .map(|limit| AxisValue {
            label: range.dimension.label(limit),
            jvm: Vec::new(),
            jdk: None,
            env: BTreeMap::new(),
            args: Vec::new(),
            limits: range.dimension.set(Limits::default(), limit),
        })
        .collect();
    Axis { name: range.dimension.key().to_string(), values }
}
