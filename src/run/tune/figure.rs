//! A tune trial's figure (docs/tune.md): per objective, the one number the search compares — the capacity its
//! capacity phase found within the SLO, the last measured phase's p99, or the memory it used over its whole life —
//! or, when it has none, why: crashed, killed, refused, no rate met the SLO, the SLO missed, a capacity below
//! `at_rate`. A memory trial on a plan with a capacity phase is judged by its capacity, not by the whole phase's
//! figures (which include the search's steps above it); its memory peak covers those steps too.

use crate::jvm::watch::gcstat_csv::read_heap_samples;
use crate::load::format::format_rate;
use crate::load::search::ladder::LadderPlan;
use crate::plan::matrix::Cell;
use crate::plan::phase_ladder::PhaseLadder;
use crate::plan::tune::AtRate;
use crate::plan::tune::Objective;
use crate::plan::{Phase, Plan};
use crate::results::{RepFiles, RepMeta, ResultsDir, Status};
use crate::run::box_search::trial::judge;
use crate::tune::search::Outcome;

/// A trial's figure in the objective's unit, or why it has none: crashed, killed, refused (the cause), no capacity
/// found, the SLO missed.
pub fn figure_of(
    objective: Objective,
    plan: &Plan,
    results: &ResultsDir,
    cell: &Cell,
    meta: &RepMeta,
) -> Result<f64, String> {
    if let Some(cause) = failure(meta) {
        return Err(cause);
    }
    if objective == Objective::Capacity {
        return capacity_of(plan, results, cell, meta);
    }
    if objective == Objective::Memory && capacity_phase(plan).is_some() {
        return memory_within_capacity(plan, results, cell, meta);
    }
    let (passed, why) = judge(plan, results, cell, meta);
    if !passed {
        return Err(why.unwrap_or_else(|| "the SLO missed".to_string()));
    }
    match objective {
        Objective::P99 => last_p99(plan, results, cell, meta.rep),
        _ => memory_of(plan, results, cell, meta.rep),
    }
}

/// What the search learns from a trial whose feasible figure (or why it has none) is `figure`: that figure scored
/// (higher is better); for a trial that ran every phase and missed a constraint — the SLO at a fixed rate, a capacity
/// below `at_rate` — the figure it measured anyway, its p99 or its memory peak, as a miss; else nothing.
pub fn search_outcome(
    objective: Objective,
    plan: &Plan,
    results: &ResultsDir,
    cell: &Cell,
    meta: &RepMeta,
    figure: &Result<f64, String>,
) -> Outcome {
    if let Ok(figure) = figure {
        return Outcome::Figure(objective.score(*figure));
    }
    let measured = match objective {
        _ if failure(meta).is_some() => None,
        Objective::Capacity => None,
        Objective::P99 => last_p99(plan, results, cell, meta.rep).ok(),
        Objective::Memory => memory_peak(plan, results, cell, meta.rep),
    };
    measured.map_or(Outcome::Infeasible, |figure| Outcome::Missed(objective.score(figure)))
}

/// The p99 of the last measured phase, ms.
fn last_p99(plan: &Plan, results: &ResultsDir, cell: &Cell, rep: u32) -> Result<f64, String> {
    let last = plan.phases.iter().filter(|phase| phase.measure).next_back().ok_or("no measured phase")?;
    let record =
        results.read_phase(&cell.dir, rep, &last.name).ok_or_else(|| format!("phase '{}' has no record", last.name))?;
    Ok(record.bench.latency_ms.p99)
}

/// What a trial of objective "memory" records besides its figure, feasible or not: its capacity (when its run ended
/// well and the plan has a capacity phase) and its memory peak — the two figures of the frontier.
pub(super) fn capacity_and_memory(
    plan: &Plan,
    results: &ResultsDir,
    cell: &Cell,
    meta: &RepMeta,
) -> (Option<f64>, Option<f64>) {
    let capacity = capacity_phase(plan).and_then(|_| capacity_of(plan, results, cell, meta).ok());
    (capacity, memory_peak(plan, results, cell, meta.rep))
}

/// The cause of a trial that did not end well (crashed, killed, refused); None when it ran every phase.
fn failure(meta: &RepMeta) -> Option<String> {
    (meta.status != Status::Ok)
        .then(|| meta.cause.clone().unwrap_or_else(|| format!("{:?}", meta.status).to_lowercase()))
}

/// Whether `phase` is a measured capacity search (`capacity = …`).
fn is_capacity_search(phase: &Phase) -> bool {
    phase.measure && matches!(phase.ladder, Some(PhaseLadder { plan: LadderPlan::Capacity(_), .. }))
}

/// The plan's measured capacity phase.
fn capacity_phase(plan: &Plan) -> Option<&Phase> {
    plan.phases.iter().find(|phase| is_capacity_search(phase))
}

/// The capacity the trial's capacity phase found, or why none. A capacity search judges the SLO step by step: its
/// capacity is the answer, not the whole phase's figures (which include the steps above it).
fn capacity_of(plan: &Plan, results: &ResultsDir, cell: &Cell, meta: &RepMeta) -> Result<f64, String> {
    if let Some(cause) = failure(meta) {
        return Err(cause);
    }
    let phase = capacity_phase(plan).ok_or("no capacity phase")?;
    match results.read_phase(&cell.dir, meta.rep, &phase.name).and_then(|record| record.bench.capacity) {
        Some(capacity) => capacity.rps.ok_or_else(|| format!("phase '{}': no rate met {}", phase.name, capacity.slo)),
        None => Err(format!("phase '{}' found no capacity", phase.name)),
    }
}

/// Objective "memory" on a plan with a capacity phase: the memory peak of a trial whose capacity reaches `at_rate`
/// (without one: whose search found a capacity) and whose other measured phases hold the SLO; else why not
/// (`capacity 40 req/s is below at_rate 60 req/s`).
fn memory_within_capacity(plan: &Plan, results: &ResultsDir, cell: &Cell, meta: &RepMeta) -> Result<f64, String> {
    let capacity = capacity_of(plan, results, cell, meta)?;
    if let Some(at_rate) = plan.tune.as_ref().and_then(|tune| tune.at_rate).map(AtRate::rate)
        && capacity < at_rate
    {
        return Err(format!(
            "capacity {} req/s is below at_rate {} req/s",
            format_rate(capacity),
            format_rate(at_rate)
        ));
    }
    let mut others = plan.clone();
    others.phases.retain(|phase| !is_capacity_search(phase));
    let (passed, why) = judge(&others, results, cell, meta);
    if !passed {
        return Err(why.unwrap_or_else(|| "the SLO missed".to_string()));
    }
    memory_of(plan, results, cell, meta.rep)
}

fn memory_of(plan: &Plan, results: &ResultsDir, cell: &Cell, rep: u32) -> Result<f64, String> {
    memory_peak(plan, results, cell, rep).ok_or_else(|| "no memory figure (no box, no RSS sample)".to_string())
}

/// The memory a trial used over its whole life, bytes: its box's peak (the kernel's, since the box was made), else
/// the highest RSS of its `gcstat.csv` and its phases' JVM windows.
fn memory_peak(plan: &Plan, results: &ResultsDir, cell: &Cell, rep: u32) -> Option<f64> {
    const MIB: f64 = (1u64 << 20) as f64;
    let records: Vec<_> =
        plan.phases.iter().filter_map(|phase| results.read_phase(&cell.dir, rep, &phase.name)).collect();
    let most = |values: &mut dyn Iterator<Item = f64>| values.reduce(f64::max);
    let box_peak = most(&mut records.iter().filter_map(|r| r.cell_box.as_ref()?.memory_peak.map(|bytes| bytes as f64)));
    let gcstat = std::fs::read_to_string(RepFiles::of(&results.rep_dir(&cell.dir, rep)).gcstat()).ok();
    let samples = gcstat.and_then(|text| read_heap_samples(&text).ok()).unwrap_or_default();
    let windows = records.iter().filter_map(|record| record.jvm.as_ref().map(|jvm| jvm.rss_mb.max));
    let rss_peak = most(&mut samples.iter().filter_map(|sample| sample.rss_mb).chain(windows));
    box_peak.or(rss_peak.map(|mib| mib * MIB))
}
