//! The runner's side of the results directory: `summary.json` rebuilt from the records on disk (so it is right
//! after a crash, an interrupt or a resume), and whether a cell-repeat still needs to run (a first run or
//! `--resume`). The layout and the records themselves are [`crate::results`]'s.

use std::collections::BTreeMap;

use crate::plan::Plan;
use crate::plan::matrix::Cell;
use crate::results::{
    CellSummary, FailureKind, PhaseRecord, RepMeta, RepSummary, ResultsDir, SUMMARY_VERSION, Status, Summary,
};

/// Whether a sweep (first run or `--resume`) runs this cell-repeat: it never ran, was interrupted, or failed for a
/// reason of the environment. Cell-repeats that ran (`ok`), crashed, or failed by their configuration are kept.
pub fn needs_run(meta: Option<&RepMeta>) -> bool {
    let Some(meta) = meta else { return true };
    match meta.status {
        Status::Ok | Status::Crashed => false,
        Status::Incomplete => true,
        Status::Failed => {
            !matches!(meta.failure, Some(FailureKind::Rejected | FailureKind::StartupCrash | FailureKind::MemoryLimit))
        }
    }
}

/// Gather every cell-repeat's meta and phase records into the summary: the plan's repeats of each cell, and the
/// repeats beyond them that a confirmation ran (`run::contenders`).
pub fn build_summary(plan: &Plan, cells: &[Cell], results: &ResultsDir) -> Summary {
    build_summary_with_repeats(plan, cells, results, |cell| repeats_of(results, cell, plan.run.repeats))
}

/// The repeats of `cell` there are: `planned`, or more where a repeat after them has begun.
pub fn repeats_of(results: &ResultsDir, cell: &Cell, planned: u32) -> u32 {
    let mut repeats = planned;
    while results.read_meta(&cell.dir, repeats + 1).is_some() {
        repeats += 1;
    }
    repeats
}

/// [`build_summary`] where each cell has its own number of repeats (a tune's finalists, measured again).
pub fn build_summary_with_repeats(
    plan: &Plan,
    cells: &[Cell],
    results: &ResultsDir,
    repeats: impl Fn(&Cell) -> u32,
) -> Summary {
    let cell_summaries = cells
        .iter()
        .map(|cell| {
            let mut flags = None;
            let reps: Vec<RepSummary> = (1..=repeats(cell))
                .map(|rep| match results.read_meta(&cell.dir, rep) {
                    Some(meta) => {
                        flags = flags.take().or(meta.flags.clone());
                        let phases = plan
                            .phases
                            .iter()
                            .filter_map(|phase| {
                                results
                                    .read_phase(&cell.dir, rep, &phase.name)
                                    // The histograms stay in the phase's own record: the summary needs the figures.
                                    .map(|record| {
                                        let bench = record.bench.without_histograms();
                                        (phase.name.clone(), PhaseRecord { bench, ..record })
                                    })
                            })
                            .collect();
                        RepSummary { rep, status: meta.status, cause: meta.cause, phases }
                    }
                    None => RepSummary {
                        rep,
                        status: Status::Incomplete,
                        cause: Some("not run yet".to_string()),
                        phases: BTreeMap::new(),
                    },
                })
                .collect();
            CellSummary { id: cell.id.clone(), axes: cell.axes.clone(), status: cell_status(&reps), flags, reps }
        })
        .collect();
    Summary {
        version: SUMMARY_VERSION,
        plan: plan.name.clone(),
        description: plan.description.clone(),
        axes: plan.axes.iter().map(|axis| axis.name.clone()).collect(),
        phases: plan.phases.iter().map(|phase| (phase.name.clone(), phase.measure)).collect(),
        slo: plan.slo.clone(),
        cost_axis: plan.run.cost_axis.clone(),
        cells: cell_summaries,
    }
}

/// A cell is ok when every repeat is; otherwise it takes the most telling status among its repeats.
fn cell_status(reps: &[RepSummary]) -> Status {
    for status in [Status::Crashed, Status::Failed, Status::Incomplete] {
        if reps.iter().any(|rep| rep.status == status) {
            return status;
        }
    }
    Status::Ok
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::jdks::Jdk;

    fn meta(status: Status, failure: Option<FailureKind>) -> RepMeta {
        let jdk =
            Jdk { home: "/jdk".into(), version: "17".to_string(), implementor: String::new(), found_in: String::new() };
        let mut meta = RepMeta::begun("gc=G1".to_string(), BTreeMap::new(), 1, jdk, 0);
        (meta.status, meta.failure) = (status, failure);
        meta
    }

    #[test]
    fn resume_runs_what_never_ran_was_interrupted_or_failed_by_the_environment() {
        assert!(needs_run(None));
        assert!(needs_run(Some(&meta(Status::Incomplete, None))));
        assert!(needs_run(Some(&meta(Status::Failed, Some(FailureKind::Environment)))));
        assert!(needs_run(Some(&meta(Status::Failed, None))), "an older meta.json without a failure kind");
    }

    #[test]
    fn resume_keeps_what_ran_crashed_or_failed_by_its_configuration() {
        assert!(!needs_run(Some(&meta(Status::Ok, None))));
        assert!(!needs_run(Some(&meta(Status::Crashed, None))));
        assert!(!needs_run(Some(&meta(Status::Failed, Some(FailureKind::Rejected)))));
        assert!(!needs_run(Some(&meta(Status::Failed, Some(FailureKind::StartupCrash)))));
        assert!(!needs_run(Some(&meta(Status::Crashed, Some(FailureKind::MemoryLimit)))), "killed by its box");
        assert!(!needs_run(Some(&meta(Status::Failed, Some(FailureKind::MemoryLimit)))), "killed before ready");
    }

    fn reps(statuses: &[Status]) -> Vec<RepSummary> {
        let rep = |(index, status): (usize, &Status)| RepSummary {
            rep: index as u32 + 1,
            status: *status,
            cause: None,
            phases: BTreeMap::new(),
        };
        statuses.iter().enumerate().map(rep).collect()
    }

    #[test]
    fn a_cell_is_ok_only_when_every_repeat_is() {
        assert_eq!(cell_status(&reps(&[Status::Ok, Status::Ok])), Status::Ok);
        assert_eq!(cell_status(&reps(&[Status::Ok, Status::Incomplete])), Status::Incomplete);
    }

    #[test]
    fn a_cell_takes_the_most_telling_status_of_its_repeats() {
        assert_eq!(cell_status(&reps(&[Status::Incomplete, Status::Failed, Status::Ok])), Status::Failed);
        assert_eq!(cell_status(&reps(&[Status::Failed, Status::Crashed, Status::Incomplete])), Status::Crashed);
    }
}
