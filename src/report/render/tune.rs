//! The tune section's words (a plan with `[tune]`), shared by report.md and report.html, which lay it out: per cell
//! the answer, the best configurations, which parameters mattered, and the trial history with the best figure so far.

use crate::report::analysis::{Analysis, CellTuneSection};

pub const BEST_HEAD: [&str; 7] =
    ["trial", "configuration", "options", "figure", "95 % interval", "repeats", "vs the defaults"];

pub const HISTORY_HEAD: [&str; 6] = ["trial", "source", "configuration", "options", "figure", "best so far"];

/// `x 61 %, y 28 %`: each parameter's share of the figure's variation, largest first.
pub fn shares(cell: &CellTuneSection) -> String {
    let parts: Vec<String> =
        cell.importance.iter().map(|row| format!("{} {:.0} %", row.parameter, row.share * 100.0)).collect();
    format!(
        "Share of the figure's variation each parameter explains (the model's main effects; the rest is the \
         parameters acting together): {}.",
        parts.join(", ")
    )
}

pub fn title(analysis: &Analysis, cell: &CellTuneSection) -> String {
    let objective = analysis.tune.as_ref().map_or("", |tune| tune.objective.name());
    match cell.cell.as_str() {
        "default" => format!("Tune: {objective}"),
        name => format!("Tune: {objective}, {name}"),
    }
}
