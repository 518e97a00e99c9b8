//! The tune section's words (a plan with `[tune]`), shared by report.md and report.html, which lay it out: per cell
//! the answer, the best configurations, which parameters mattered, the frontier of memory against capacity (objective
//! "memory"), and the trial history with the best figure so far.

use crate::load::format::format_rate;
use crate::report::analysis::{Analysis, CellTuneSection};

pub const BEST_HEAD: [&str; 7] =
    ["trial", "configuration", "options", "figure", "95 % interval", "repeats", "vs the defaults"];
/// The head of the frontier's table, "memory → capacity"; its last column only with `at_rate`.
pub fn frontier_head(at_rate: Option<f64>) -> Vec<String> {
    let mut head: Vec<String> = ["memory", "capacity", "trial", "configuration"].map(String::from).into();
    if let Some(rate) = at_rate {
        head.push(format!("at_rate {} req/s", format_rate(rate)));
    }
    head
}

/// What the frontier's table lists.
pub const FRONTIER_INTRO: &str = "Memory → capacity: the frontier (the trials no other beats in both — less memory \
                                  and at least the capacity, or the memory and more), least memory first. The \
                                  memory peak of a capacity search covers its steps above the capacity too.";

/// `holds` or `below` (the frontier's last column).
pub fn holds_words(holds: bool) -> &'static str {
    if holds { "holds" } else { "below" }
}

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
