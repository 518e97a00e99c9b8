//! The headline figures of a sweep over two or more axes as grids, so "which heap with which collector" is one look:
//! rows are the labels of one axis, columns those of another, one grid per measured phase and figure (a capacity
//! phase's figure is the capacity). With three or more varying axes the first two (plan order) make the grid and
//! there is one grid per combination of the others.

use super::tables::{Entry, Layout, Row, Table, mark_of};
use crate::load::figures::View;
use crate::report::analysis::{
    Analysis, AxisInfo, Better, CAPACITY, CellInfo, HEADLINE, PhaseAnalysis, metric, ranked_headlines, shown_in,
};

/// The figures a phase shows as grids (metric keys), in the registry's order: those it lists for grids, less the
/// headlines this kind of phase does not rank on (a capacity phase's figure is the capacity: its steps' req/s and P99
/// are at a different rate per cell; other phases have no capacity).
fn grid_figures(phase: &PhaseAnalysis) -> Vec<&'static str> {
    let ranked: Vec<&str> = ranked_headlines(phase.kind).collect();
    shown_in(View::Grid)
        .map(|metric| metric.key)
        .filter(|key| !HEADLINE.contains(key) || ranked.contains(key))
        .collect()
}

/// Which axes a sweep's grids use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GridAxes {
    pub rows: String,
    pub columns: String,
    /// The other varying axes: one grid per combination of their labels.
    pub split: Vec<String>,
}

/// One grid: a phase, a figure, and the labels of the split axes it holds.
#[derive(Debug, Clone, PartialEq)]
pub struct Grid {
    pub phase: String,
    /// Metric key.
    pub figure: &'static str,
    /// `(axis, label)` of every split axis; empty with two varying axes.
    pub slice: Vec<(String, String)>,
    pub table: Table,
}

impl Grid {
    /// `req/s` or `req/s, jdk = 25`.
    pub fn title(&self) -> String {
        let mut title = metric_title(self.figure);
        for (axis, label) in &self.slice {
            title += &format!(", {axis} = {label}");
        }
        title
    }
}

fn metric_title(key: &str) -> String {
    let metric = metric(key);
    match metric.format {
        crate::report::analysis::Format::Ms => format!("{} (ms)", metric.label),
        _ => metric.label.to_string(),
    }
}

/// The grid axes, or None when fewer than two axes vary.
pub fn grid_axes(analysis: &Analysis) -> Option<GridAxes> {
    let varying: Vec<&AxisInfo> = analysis.axes.iter().filter(|axis| axis.varies).collect();
    match varying.as_slice() {
        [rows, columns, split @ ..] => Some(GridAxes {
            rows: rows.name.clone(),
            columns: columns.name.clone(),
            split: split.iter().map(|axis| axis.name.clone()).collect(),
        }),
        _ => None,
    }
}

/// How the grids are laid out, in one sentence.
pub fn grid_note(axes: &GridAxes, analysis: &Analysis) -> String {
    let mut note = format!("Rows: {}; columns: {}", axes.rows, axes.columns);
    if !axes.split.is_empty() {
        note += &format!("; one grid per value of {}", axes.split.join(" × "));
    }
    note += ". Each figure is the median over a cell's repeats";
    if !analysis.single_repeat() {
        note += "; ★ best, ≈ not distinguishable from the best";
    }
    note + "; a cell that crashed or failed says so, and - marks a combination with no figure."
}

fn labels<'a>(analysis: &'a Analysis, axis: &str) -> &'a [String] {
    analysis.axes.iter().find(|info| info.name == axis).map_or(&[], |info| info.labels.as_slice())
}

/// Every combination of the split axes' labels, in plan order (one empty combination without split axes).
fn slices(analysis: &Analysis, split: &[String]) -> Vec<Vec<(String, String)>> {
    let mut combinations: Vec<Vec<(String, String)>> = vec![Vec::new()];
    for axis in split {
        combinations = combinations
            .into_iter()
            .flat_map(|prefix| {
                labels(analysis, axis).iter().map(move |label| {
                    let mut combination = prefix.clone();
                    combination.push((axis.clone(), label.clone()));
                    combination
                })
            })
            .collect();
    }
    combinations
}

/// The cell at a grid position, by its axis labels.
fn cell_at<'a>(analysis: &'a Analysis, wanted: &[(&str, &str)]) -> Option<(usize, &'a CellInfo)> {
    analysis
        .cells
        .iter()
        .enumerate()
        .find(|(_, cell)| wanted.iter().all(|(axis, label)| cell.axes.get(*axis).map(String::as_str) == Some(*label)))
}

/// The grids of one measured phase: one per figure and split combination.
pub fn phase_grids(analysis: &Analysis, axes: &GridAxes, phase: &PhaseAnalysis) -> Vec<Grid> {
    let mut grids = Vec::new();
    for slice in slices(analysis, &axes.split) {
        for figure in grid_figures(phase) {
            let table = grid_table(analysis, axes, phase, &slice, figure);
            grids.push(Grid { phase: phase.name.clone(), figure, slice: slice.clone(), table });
        }
    }
    grids
}

fn grid_table(
    analysis: &Analysis,
    axes: &GridAxes,
    phase: &PhaseAnalysis,
    slice: &[(String, String)],
    figure: &'static str,
) -> Table {
    let columns = labels(analysis, &axes.columns).to_vec();
    let mut rows: Vec<Row> = labels(analysis, &axes.rows)
        .iter()
        .map(|row_label| Row {
            label: row_label.clone(),
            entries: columns
                .iter()
                .map(|column_label| {
                    let mut wanted =
                        vec![(axes.rows.as_str(), row_label.as_str()), (axes.columns.as_str(), column_label.as_str())];
                    wanted.extend(slice.iter().map(|(axis, label)| (axis.as_str(), label.as_str())));
                    match cell_at(analysis, &wanted) {
                        Some((index, info)) => grid_entry(analysis, &phase.cells[index], info, figure),
                        None => Entry {
                            text: "-".to_string(),
                            detail: Some("not in the plan".to_string()),
                            ..Entry::default()
                        },
                    }
                })
                .collect(),
        })
        .collect();
    shade(&mut rows, figure);
    Table {
        corner: format!("{} \\ {}", axes.rows, axes.columns),
        columns,
        rows,
        notes: Vec::new(),
        layout: Layout::Grid,
    }
}

fn grid_entry(analysis: &Analysis, cell: &crate::report::analysis::CellPhase, info: &CellInfo, figure: &str) -> Entry {
    let detail = Some(info.label.clone());
    match cell.figure(figure) {
        Some(estimate) => Entry {
            text: metric(figure).format.show(estimate.median),
            mark: mark_of(analysis, cell, figure),
            value: Some(estimate.median),
            detail,
            ..Entry::default()
        },
        None => match (&cell.capacity, info.problems.first()) {
            // A capacity search without a capacity says why: generator-limited, or no step met the SLO.
            (Some(capacity), _) if figure == CAPACITY => Entry {
                text: capacity.describe(|rps| metric(CAPACITY).format.show(rps)),
                detail: Some(format!("{}: {}", info.label, capacity.verdicts.join("; "))),
                problem: true,
                ..Entry::default()
            },
            (_, Some(problem)) if cell.reps.is_empty() => Entry {
                text: problem.word().to_string(),
                detail: Some(format!("{}: {}", info.label, problem.describe(info.reps))),
                problem: true,
                ..Entry::default()
            },
            _ => Entry { text: "-".to_string(), detail, ..Entry::default() },
        },
    }
}

/// Each figure's place between the grid's worst (0) and best (1), for the HTML's shading.
fn shade(rows: &mut [Row], figure: &str) {
    let Some(better) = metric(figure).better else {
        return;
    };
    let values: Vec<f64> = rows.iter().flat_map(|row| &row.entries).filter_map(|entry| entry.value).collect();
    let (low, high) =
        values.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(low, high), v| (low.min(*v), high.max(*v)));
    if values.len() < 2 || high <= low {
        return;
    }
    for entry in rows.iter_mut().flat_map(|row| row.entries.iter_mut()) {
        entry.shade = entry.value.map(|value| {
            let up = (value - low) / (high - low);
            if better == Better::Higher { up } else { 1.0 - up }
        });
    }
}
