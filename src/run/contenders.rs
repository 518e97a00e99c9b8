//! The sweep's confirmation (`run.confirm`, docs/plan.md "Confirming the best cell"): one launch of a JVM is one
//! sample of its configuration — launches of one configuration differ by up to the report's launch spread — so once
//! every cell has the plan's repeats, the cells that contend for a measured phase's best cell (the report's rule:
//! the best, its runner-up, the cells it cannot be told from or within the launch spread of it) are measured again
//! until each has `confirm` repeats. The report then tests them against each other as it tests any repeats. The
//! contenders are judged on the plan's repeats alone, so a `--resume` judges the same ones.

use super::store::build_summary_with_repeats;
use crate::plan::Plan;
use crate::plan::matrix::Cell;
use crate::report::Report;
use crate::results::{Results, ResultsDir};

/// The cells (indices into `cells`) that contend for some measured phase's best, judged on the plan's repeats.
pub fn contenders(plan: &Plan, cells: &[Cell], results: &ResultsDir) -> anyhow::Result<Vec<usize>> {
    let mut planned = Results::open(&results.root)?;
    planned.summary = build_summary_with_repeats(plan, cells, results, |_| plan.run.repeats);
    let ids = Report::of(planned).contenders();
    Ok(ids.iter().filter_map(|id| cells.iter().position(|cell| &cell.id == id)).collect())
}
