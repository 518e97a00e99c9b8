//! One trial of a box search: its cell (the plan's cell in a box of its own, labelled by the searched limits, in a
//! folder of its own), run once through the runner — preflight in its box, ready, phases, crash causes — or, when
//! its folder already holds an outcome that counts (`--resume`, or the same box tried twice), read back; and judged:
//! it passes when the target ran every phase and the measured ones met the `[slo]`, else the one-line reason.

use std::io::IsTerminal;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::cgroup::Limits;
use crate::load::figures::threshold::Threshold;
use crate::load::generator::Generator;
use crate::plan::Plan;
use crate::plan::box_search::{BoxDimension, BoxSearch};
use crate::plan::folder::cell_folder;
use crate::plan::matrix::Cell;
use crate::plan::preflight::{EffectiveFlags, Preflight};
use crate::remote::server::RemoteServer;
use crate::results::{RepMeta, ResultsDir, Status};
use crate::run::cell::{CellRun, run_cell_rep};
use crate::run::runner::{prepare, record_rejected};
use crate::run::store::needs_run;

/// Where a search's trials run and are recorded.
pub struct SearchContext<'a> {
    pub plan: &'a Plan,
    pub results: &'a ResultsDir,
    pub stop: &'a Arc<AtomicBool>,
    pub server: Option<&'a RemoteServer>,
    pub generator: &'a dyn Generator,
}

/// The trial of `cell` under `plan`: `(passed, why not)`; None when it was interrupted.
pub fn trial(context: &SearchContext<'_>, plan: &Plan, cell: &Cell) -> anyhow::Result<Option<(bool, Option<String>)>> {
    Ok(run_once(context, plan, cell)?.map(|meta| judge(plan, context.results, cell, &meta)))
}

/// `cell` run once under `plan` — or, when its folder holds an outcome that counts, that outcome, kept: the meta of
/// its end. None when it was interrupted.
pub fn run_once(context: &SearchContext<'_>, plan: &Plan, cell: &Cell) -> anyhow::Result<Option<RepMeta>> {
    run_repeat(context, plan, cell, 1)
}

/// Repeat `rep` of `cell` under `plan`, or its outcome kept from before, as [`run_once`] does repeat 1.
pub fn run_repeat(context: &SearchContext<'_>, plan: &Plan, cell: &Cell, rep: u32) -> anyhow::Result<Option<RepMeta>> {
    let results = context.results;
    if let Some(meta) = results.read_meta(&cell.dir, rep).filter(|meta| !needs_run(Some(meta))) {
        say!("jload:        {} already ran (this search or before --resume): its outcome is kept", cell.id);
        return Ok(Some(meta));
    }
    if context.stop.load(Ordering::Relaxed) {
        return Ok(None);
    }
    let prepared = prepare(plan, vec![cell.clone()], context.server)?.pop().expect("one cell prepared");
    let meta = match &prepared.preflight {
        Preflight::Invalid(message) => {
            record_rejected(results, &prepared, rep, message)?;
            results.read_meta(&cell.dir, rep).expect("just written")
        }
        Preflight::Valid(flags) => {
            let run = CellRun {
                plan,
                cell,
                rep,
                jdk: &prepared.jdk,
                flags: Some(EffectiveFlags::clone(flags)),
                results,
                stop: context.stop,
                announce: true,
                show_progress: std::io::stderr().is_terminal(),
                server: context.server,
                generator: context.generator,
            };
            run_cell_rep(&run)?
        }
    };
    Ok(Some(meta).filter(|meta| meta.status != Status::Incomplete))
}

/// Whether a trial that ended held the SLO, and why not: the cause of a failure or crash (`preflight: …`, `killed
/// by the memory limit …`), else the first measured phase that missed a rule of the `[slo]`, with the figure.
pub fn judge(plan: &Plan, results: &ResultsDir, cell: &Cell, meta: &RepMeta) -> (bool, Option<String>) {
    if meta.status != Status::Ok {
        let cause = meta.cause.clone().unwrap_or_else(|| format!("{:?}", meta.status).to_lowercase());
        return (false, Some(cause));
    }
    let rules: Vec<Threshold> = plan.slo.iter().filter_map(|expression| Threshold::parse(expression).ok()).collect();
    for phase in plan.phases.iter().filter(|phase| phase.measure) {
        let Some(record) = results.read_phase(&cell.dir, meta.rep, &phase.name) else {
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

/// A trial's cell: the plan's cell in the box `limits`, with a label per searched limit (`gc=G1,memory=448m`) and a
/// folder of its own; `extra`, a label of its own beside them.
pub fn trial_cell(plan: &Plan, search: &BoxSearch, cell: &Cell, limits: Limits, extra: Option<(&str, &str)>) -> Cell {
    let mut trial = Cell { limits, ..cell.clone() };
    let mut pairs: Vec<(String, String)> =
        plan.axes.iter().filter_map(|axis| Some((axis.name.clone(), cell.axes.get(&axis.name)?.clone()))).collect();
    for range in search.ranges() {
        let label = range.dimension.label(limit_of(range.dimension, &limits));
        trial.axes.insert(range.dimension.key().to_string(), label.clone());
        pairs.push((range.dimension.key().to_string(), label));
    }
    if let Some((axis, label)) = extra {
        trial.axes.insert(axis.to_string(), label.to_string());
        pairs.push((axis.to_string(), label.to_string()));
    }
    let ids: Vec<String> = pairs.iter().map(|(axis, label)| format!("{axis}={label}")).collect();
    trial.id = ids.join(",");
    let borrowed: Vec<(&str, &str)> = pairs.iter().map(|(axis, label)| (axis.as_str(), label.as_str())).collect();
    trial.dir = cell_folder(&borrowed);
    trial
}

pub fn limit_of(dimension: BoxDimension, limits: &Limits) -> f64 {
    match dimension {
        BoxDimension::Memory => limits.memory_bytes.unwrap_or_default() as f64,
        BoxDimension::CpusQuota => limits.cpus_quota.unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::matrix::cells;
    use crate::plan::{PlanBase, parse_plan};

    #[test]
    fn a_trials_cell_is_the_plans_cell_labelled_by_every_searched_limit_in_a_folder_of_its_own() {
        let text = "name = \"t\"\n[target]\ncommand = \"java {jvm} -jar x.jar\"\nready = \"http://127.0.0.1:{port}/\"\n\
                    [[axis]]\nname = \"gc\"\nvalues = [\"-XX:+UseSerialGC\"]\n[[phase]]\nname = \"get\"\n\
                    url = \"http://127.0.0.1:{port}/\"\nduration = \"1s\"\nrate = 100\n[slo]\np99 = \"10ms\"\n\
                    [box_search]\nmemory = { from = \"128m\", to = \"1g\" }\ncpus_quota = { from = 0.25, to = 2 }\n";
        let plan = parse_plan("t.toml", text, &PlanBase { plan_dir: "/tmp".into(), cwd: "/tmp".into() }).unwrap();
        let search = plan.box_search.clone().unwrap();
        let cell = &cells(&plan)[0];
        let limits = Limits { memory_bytes: Some(448 << 20), cpus_quota: Some(0.75) };
        let trial = trial_cell(&plan, &search, cell, limits, None);
        assert_eq!(trial.id, "gc=-XX:+UseSerialGC,memory=448m,cpus_quota=0.75 CPU");
        assert_eq!(trial.dir, "gc=-XX_+UseSerialGC__memory=448m__cpus_quota=0.75_CPU");
        assert_eq!(trial.limits, limits);
        assert_eq!(trial.jvm, cell.jvm);
        let capacity = trial_cell(&plan, &search, cell, limits, Some(("load", "capacity")));
        assert_eq!(capacity.dir, "gc=-XX_+UseSerialGC__memory=448m__cpus_quota=0.75_CPU__load=capacity");
        assert_eq!(capacity.axes["load"], "capacity");
    }
}
