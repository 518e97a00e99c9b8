//! `summary.json` rebuilt from what is on disk (so it is right after a crash, an interrupt or a resume), and the
//! compact per-phase tables printed at the end of a run.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::store::{CellSummary, PhaseRecord, RepSummary, ResultsDir, SUMMARY_VERSION, Status, Summary};
use crate::load::printout::format_ms;
use crate::plan::Plan;
use crate::plan::matrix::Cell;

/// Gather every cell-repeat's meta and phase records into the summary.
pub fn build_summary(plan: &Plan, cells: &[Cell], results: &ResultsDir) -> Summary {
    let cell_summaries = cells
        .iter()
        .map(|cell| {
            let mut flags = None;
            let reps: Vec<RepSummary> = (1..=plan.run.repeats)
                .map(|rep| match results.read_meta(&cell.dir, rep) {
                    Some(meta) => {
                        flags = flags.take().or(meta.flags.clone());
                        let phases = plan
                            .phases
                            .iter()
                            .filter_map(|phase| {
                                results
                                    .read_phase(&cell.dir, rep, &phase.name)
                                    .map(|record| (phase.name.clone(), record))
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

/// Column label of a cell: the labels of the axes that vary in the plan (all of them when none varies).
pub fn cell_label(summary: &Summary, cell: &CellSummary) -> String {
    let varying: Vec<&String> = summary
        .axes
        .iter()
        .filter(|axis| {
            summary.cells.iter().map(|other| other.axes.get(*axis)).collect::<std::collections::HashSet<_>>().len() > 1
        })
        .collect();
    let shown: Vec<String> = summary
        .axes
        .iter()
        .filter(|axis| varying.is_empty() || varying.contains(axis))
        .filter_map(|axis| cell.axes.get(axis).cloned())
        .collect();
    if shown.is_empty() { cell.id.clone() } else { shown.join(" ") }
}

/// The median of the values (None when empty).
pub fn median(mut values: Vec<f64>) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let middle = values.len() / 2;
    Some(if values.len() % 2 == 1 { values[middle] } else { (values[middle - 1] + values[middle]) / 2.0 })
}

/// The phase records of a cell that count as measurements, for the terminal and every report alike: from repeats
/// that ran to the end or crashed later, and only phases that finished (not the one a crash or Ctrl-C cut short).
/// In repeat order, with the repeat number.
pub fn usable_records<'a>(cell: &'a CellSummary, phase: &str) -> Vec<(u32, &'a PhaseRecord)> {
    cell.reps
        .iter()
        .filter(|rep| matches!(rep.status, Status::Ok | Status::Crashed))
        .filter_map(|rep| rep.phases.get(phase).map(|record| (rep.rep, record)))
        .filter(|(_, record)| !record.bench.interrupted)
        .collect()
}

fn records<'a>(cell: &'a CellSummary, phase: &str) -> Vec<&'a PhaseRecord> {
    usable_records(cell, phase).into_iter().map(|(_, record)| record).collect()
}

type Row = (&'static str, fn(&[&PhaseRecord]) -> Option<String>);

fn med(records: &[&PhaseRecord], pick: fn(&PhaseRecord) -> Option<f64>) -> Option<f64> {
    median(records.iter().filter_map(|record| pick(record)).collect())
}

const ROWS: &[Row] = &[
    ("req/s", |r| med(r, |x| Some(x.bench.rps)).map(|v| format!("{v:.0}"))),
    ("p50 ms", |r| med(r, |x| Some(x.bench.latency_ms.p50)).map(format_ms)),
    ("p99 ms", |r| med(r, |x| Some(x.bench.latency_ms.p99)).map(format_ms)),
    ("max ms", |r| med(r, |x| Some(x.bench.latency_ms.max)).map(format_ms)),
    ("errors", |r| med(r, |x| Some(x.bench.errors.total as f64)).map(|v| format!("{v:.0}"))),
    ("YGC/YGCT s", |r| {
        Some(format!(
            "{:.0}/{:.3}",
            med(r, |x| x.jvm.as_ref()?.collections.ygc.map(|v| v as f64))?,
            med(r, |x| x.jvm.as_ref()?.collections.ygct_s)?
        ))
    }),
    ("FGC/FGCT s", |r| {
        Some(format!(
            "{:.0}/{:.3}",
            med(r, |x| x.jvm.as_ref()?.collections.fgc.map(|v| v as f64))?,
            med(r, |x| x.jvm.as_ref()?.collections.fgct_s)?
        ))
    }),
    // Concurrent cycles: G1 and ZGC count them; Serial, Parallel and (JDK 17) Shenandoah have no counter (`-`).
    ("CGC/CGCT s", |r| {
        Some(format!(
            "{:.0}/{:.3}",
            med(r, |x| x.jvm.as_ref()?.collections.cgc.map(|v| v as f64))?,
            med(r, |x| x.jvm.as_ref()?.collections.cgct_s)?
        ))
    }),
    // `+ 0.0` turns the -0.0 of an empty sum into 0.
    ("GC pause %", |r| med(r, |x| x.jvm.as_ref()?.paused_pct()).map(|v| format!("{:.2}", v + 0.0))),
];

/// Rows shown only when some cell has a value (no collector of the run counts concurrent cycles: no CGC row).
const OPTIONAL_ROWS: &[&str] = &["CGC/CGCT s"];

/// The terminal's width the tables keep to, whatever the number of cells.
pub const TERMINAL_COLUMNS: usize = 120;
const INDENT: &str = "  ";

/// One compact table per measured phase, medians over ok repeats: cells as columns while that fits
/// [`TERMINAL_COLUMNS`], else cells as rows (with labels shortened if even that is too wide).
pub fn phase_tables(summary: &Summary) -> String {
    let mut out = String::new();
    let labels: Vec<String> = summary.cells.iter().map(|cell| cell_label(summary, cell)).collect();
    for (phase, measured) in &summary.phases {
        if !measured {
            continue;
        }
        let mut table: Vec<Vec<String>> =
            vec![std::iter::once(phase.to_string()).chain(labels.iter().cloned()).collect()];
        let statuses = summary.cells.iter().map(|cell| format!("{:?}", cell.status).to_lowercase());
        table.push(std::iter::once("status".to_string()).chain(statuses).collect());
        for (name, compute) in ROWS {
            let mut row = vec![name.to_string()];
            for cell in &summary.cells {
                let value = match cell.status {
                    Status::Crashed | Status::Failed if records(cell, phase).is_empty() => {
                        format!("{:?}", cell.status).to_lowercase()
                    }
                    _ => compute(&records(cell, phase)).unwrap_or_else(|| "-".to_string()),
                };
                row.push(value);
            }
            let empty = row[1..].iter().all(|value| value == "-");
            if !(OPTIONAL_ROWS.contains(name) && empty) {
                table.push(row);
            }
        }
        if width(&table) > TERMINAL_COLUMNS {
            table = transpose(&table);
            shorten_first_column(&mut table);
        }
        out += &render(&table);
        out.push('\n');
    }
    out
}

fn column_widths(table: &[Vec<String>]) -> Vec<usize> {
    (0..table[0].len()).map(|column| table.iter().map(|row| row[column].chars().count()).max().unwrap_or(0)).collect()
}

/// Printed width of a table: indent, columns and the two spaces between them.
fn width(table: &[Vec<String>]) -> usize {
    let widths = column_widths(table);
    INDENT.len() + widths.iter().sum::<usize>() + 2 * widths.len().saturating_sub(1)
}

fn transpose(table: &[Vec<String>]) -> Vec<Vec<String>> {
    (0..table[0].len()).map(|column| table.iter().map(|row| row[column].clone()).collect()).collect()
}

/// Cut the first column's labels (with `…`) so the table fits [`TERMINAL_COLUMNS`].
fn shorten_first_column(table: &mut [Vec<String>]) {
    let excess = width(table).saturating_sub(TERMINAL_COLUMNS);
    if excess == 0 {
        return;
    }
    let keep = column_widths(table)[0].saturating_sub(excess).max(8);
    for row in table.iter_mut() {
        if row[0].chars().count() > keep {
            row[0] = row[0].chars().take(keep - 1).chain(std::iter::once('…')).collect();
        }
    }
}

/// Columns right-aligned, two spaces apart, indented.
fn render(table: &[Vec<String>]) -> String {
    let widths = column_widths(table);
    let mut out = String::new();
    for row in table {
        let line: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(column, cell)| {
                let pad = widths[column].saturating_sub(cell.chars().count());
                format!("{}{cell}", " ".repeat(pad))
            })
            .collect();
        let _ = writeln!(out, "{INDENT}{}", line.join("  "));
    }
    out
}
