//! The box search's runner (docs/containers.md, "The smallest box that holds the SLO"): per cell of the plan, each
//! searched limit in turn, trials chosen by [`box_bisect`](super::box_bisect), each a fresh cell-repeat through the
//! same runner — preflight in its box, ready, phases, crash causes — in a folder of its own; a trial passes when the
//! target ran every phase and the measured ones met the `[slo]`. `box_search.json` and `summary.json` are rewritten
//! after each trial; `--resume` takes the outcome of every trial already on disk instead of running it again.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::box_bisect::{Next, next};
use super::cell::{CellRun, run_cell_rep};
use super::runner::{PreparedCell, prepare, record_rejected};
use super::store::{build_summary, needs_run};
use crate::atomic_file::write_json;
use crate::cgroup::Limits;
use crate::load::figures::threshold::Threshold;
use crate::load::format::format_rate;
use crate::load::generator::Generator;
use crate::plan::box_search::{BoxDimension, BoxSearch, SearchRange};
use crate::plan::folder::cell_folder;
use crate::plan::matrix::Cell;
use crate::plan::preflight::{EffectiveFlags, Preflight};
use crate::plan::{Axis, AxisValue, Plan};
use crate::remote::server::RemoteServer;
use crate::results::box_search::{BoxAnswer, BoxSearchRecord, BoxTrial, CellBoxSearch};
use crate::results::{RepMeta, ResultsDir, Status, read_json};

/// Where a search's trials run and are recorded.
pub struct SearchContext<'a> {
    pub plan: &'a Plan,
    pub results: &'a ResultsDir,
    pub stop: &'a Arc<AtomicBool>,
    pub server: Option<&'a RemoteServer>,
    pub generator: &'a dyn Generator,
}

/// Search every cell of `prepared` (each in the largest box, as preflighted) for the smallest box of `search`.
/// Returns true when interrupted.
pub fn run_search(context: &SearchContext<'_>, search: &BoxSearch, prepared: &[PreparedCell]) -> anyhow::Result<bool> {
    let mut record = BoxSearchRecord::default();
    let mut trial_cells: Vec<Cell> = Vec::new();
    for item in prepared {
        let mut limits = item.cell.limits;
        for range in search.ranges() {
            let mut cell_search = CellBoxSearch {
                cell: item.cell.id.clone(),
                axes: item.cell.axes.clone(),
                range,
                load: load_words(context.plan),
                slo: context.plan.slo.clone(),
                trials: Vec::new(),
                answer: None,
            };
            let mut tried: Vec<(f64, bool)> = Vec::new();
            let interrupted = loop {
                let limit = match next(&range, &tried) {
                    Next::Done(answer) => {
                        cell_search.answer = Some(answer);
                        break false;
                    }
                    Next::Try(limit) => limit,
                };
                let cell = trial_cell(context.plan, search, &item.cell, range.dimension.set(limits, limit));
                let most = BoxSearch::most_trials(&range);
                say!(
                    "jload: [box search] {} {} {}: trial {} (at most {most})",
                    item.cell.id,
                    range.dimension.key(),
                    range.dimension.label(limit),
                    tried.len() + 1
                );
                let Some((passed, failure)) = trial(context, &cell)? else { break true };
                let verdict = failure.as_deref().map_or("holds the SLO".to_string(), |why| format!("fails: {why}"));
                say!("jload:        {} {verdict}", cell.id);
                tried.push((limit, passed));
                cell_search.trials.push(BoxTrial {
                    limit,
                    cell: cell.id.clone(),
                    dir: cell.dir.clone(),
                    passed,
                    failure,
                });
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

/// The trial of `cell`: its outcome on disk if it has one that counts, else it runs now. `(passed, why not)`; None
/// when it was interrupted.
fn trial(context: &SearchContext<'_>, cell: &Cell) -> anyhow::Result<Option<(bool, Option<String>)>> {
    let results = context.results;
    if let Some(meta) = results.read_meta(&cell.dir, 1).filter(|meta| !needs_run(Some(meta))) {
        say!("jload:        {} already ran (this search or before --resume): its outcome is kept", cell.id);
        return Ok(Some(judge(context.plan, results, cell, &meta)));
    }
    if context.stop.load(Ordering::Relaxed) {
        return Ok(None);
    }
    let prepared = prepare(context.plan, vec![cell.clone()], context.server)?.pop().expect("one cell prepared");
    let meta = match &prepared.preflight {
        Preflight::Invalid(message) => {
            record_rejected(results, &prepared, 1, message)?;
            results.read_meta(&cell.dir, 1).expect("just written")
        }
        Preflight::Valid(flags) => {
            let announce = true;
            let run = CellRun {
                plan: context.plan,
                cell,
                rep: 1,
                jdk: &prepared.jdk,
                flags: Some(EffectiveFlags::clone(flags)),
                results,
                stop: context.stop,
                announce,
                show_progress: std::io::stderr().is_terminal(),
                server: context.server,
                generator: context.generator,
            };
            run_cell_rep(&run)?
        }
    };
    if meta.status == Status::Incomplete {
        return Ok(None);
    }
    Ok(Some(judge(context.plan, results, cell, &meta)))
}

/// Whether a trial that ended held the SLO, and why not: the cause of a failure or crash (`preflight: …`, `killed
/// by the memory limit …`), else the first measured phase that missed a rule of the `[slo]`, with the figure.
fn judge(plan: &Plan, results: &ResultsDir, cell: &Cell, meta: &RepMeta) -> (bool, Option<String>) {
    if meta.status != Status::Ok {
        let cause = meta.cause.clone().unwrap_or_else(|| format!("{:?}", meta.status).to_lowercase());
        return (false, Some(cause));
    }
    let rules: Vec<Threshold> = plan.slo.iter().filter_map(|expression| Threshold::parse(expression).ok()).collect();
    for phase in plan.phases.iter().filter(|phase| phase.measure) {
        let Some(record) = results.read_phase(&cell.dir, 1, &phase.name) else {
            return (false, Some(format!("phase '{}' has no record", phase.name)));
        };
        let missed: Vec<String> = rules
            .iter()
            .map(|rule| rule.judge(&record.bench))
            .filter(|outcome| !outcome.passed)
            .map(|outcome| {
                let actual = outcome.actual.map_or("no figure".to_string(), |actual| {
                    format!("{} {}", round(actual), Threshold::unit(&outcome.expression)).trim_end().to_string()
                });
                format!("{} missed ({actual})", outcome.expression)
            })
            .collect();
        if !missed.is_empty() {
            return (false, Some(format!("phase '{}': {}", phase.name, missed.join(", "))));
        }
    }
    (true, None)
}

/// A figure with at most one decimal where it is large and three where it is small.
fn round(value: f64) -> String {
    if value.abs() >= 100.0 {
        format!("{value:.0}")
    } else {
        format!("{:.3}", value).trim_end_matches('0').trim_end_matches('.').to_string()
    }
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

/// A trial's cell: the plan's cell in the box `limits`, with a label per searched limit (`gc=G1,memory=448m`) and a
/// folder of its own.
fn trial_cell(plan: &Plan, search: &BoxSearch, cell: &Cell, limits: Limits) -> Cell {
    let mut trial = Cell { limits, ..cell.clone() };
    let mut pairs: Vec<(String, String)> =
        plan.axes.iter().filter_map(|axis| Some((axis.name.clone(), cell.axes.get(&axis.name)?.clone()))).collect();
    for range in search.ranges() {
        let label = range.dimension.label(limit_of(range.dimension, &limits));
        trial.axes.insert(range.dimension.key().to_string(), label.clone());
        pairs.push((range.dimension.key().to_string(), label));
    }
    let ids: Vec<String> = pairs.iter().map(|(axis, label)| format!("{axis}={label}")).collect();
    trial.id = ids.join(",");
    let borrowed: Vec<(&str, &str)> = pairs.iter().map(|(axis, label)| (axis.as_str(), label.as_str())).collect();
    trial.dir = cell_folder(&borrowed);
    trial
}

fn limit_of(dimension: BoxDimension, limits: &Limits) -> f64 {
    match dimension {
        BoxDimension::Memory => limits.memory_bytes.unwrap_or_default() as f64,
        BoxDimension::CpusQuota => limits.cpus_quota.unwrap_or_default(),
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
            limits: range.dimension.set(Limits::default(), limit),
        })
        .collect();
    Axis { name: range.dimension.key().to_string(), values }
}
