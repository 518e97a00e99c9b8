//! The compact tables printed at the end of a run: one per measured phase, the medians the report shows (the same
//! figures from the same analysis, so the terminal and report.md never disagree), cells as columns while that fits
//! [`TERMINAL_COLUMNS`], else cells as rows.

use std::fmt::Write;

use super::metrics::metric;
use super::model::{Analysis, CellPhase};
use crate::results::Status;

/// A row: its label and the metric keys it shows, `/`-joined (`YGC/YGCT`).
const ROWS: &[(&str, &[&str])] = &[
    ("req/s", &["rps"]),
    ("p50 ms", &["p50_ms"]),
    ("p99 ms", &["p99_ms"]),
    ("max ms", &["max_ms"]),
    ("errors", &["errors"]),
    ("YGC/YGCT s", &["ygc", "ygct_s"]),
    ("FGC/FGCT s", &["fgc", "fgct_s"]),
    // Concurrent cycles: G1 and ZGC count them; Serial, Parallel and (JDK 17) Shenandoah have no counter (`-`).
    ("CGC/CGCT s", &["cgc", "cgct_s"]),
    ("GC pause %", &["pause_pct"]),
];

/// The row's value for one cell: each figure's median in its metric's format; `-` when one is missing.
fn value(cell: &CellPhase, keys: &[&str]) -> String {
    let shown: Option<Vec<String>> =
        keys.iter().map(|key| cell.figure(key).map(|estimate| metric(key).format.show(estimate.median))).collect();
    shown.map_or_else(|| "-".to_string(), |parts| parts.join("/"))
}

fn status_text(status: Status) -> String {
    format!("{status:?}").to_lowercase()
}

/// One compact table per measured phase.
pub fn phase_tables(analysis: &Analysis) -> String {
    let mut out = String::new();
    let labels: Vec<String> = analysis.cells.iter().map(|cell| cell.label.clone()).collect();
    for phase in analysis.phases.iter().filter(|phase| phase.measured) {
        let mut table: Vec<Vec<String>> =
            vec![std::iter::once(phase.name.clone()).chain(labels.iter().cloned()).collect()];
        let statuses = analysis.cells.iter().map(|cell| status_text(cell.status));
        table.push(std::iter::once("status".to_string()).chain(statuses).collect());
        for (name, keys) in ROWS {
            let mut row = vec![name.to_string()];
            for (info, cell) in analysis.cells.iter().zip(&phase.cells) {
                row.push(match info.status {
                    Status::Crashed | Status::Failed if cell.reps.is_empty() => status_text(info.status),
                    _ => value(cell, keys),
                });
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

/// Rows shown only when some cell has a value (no collector of the run counts concurrent cycles: no CGC row).
const OPTIONAL_ROWS: &[&str] = &["CGC/CGCT s"];

/// The terminal's width the tables keep to, whatever the number of cells.
pub const TERMINAL_COLUMNS: usize = 120;
const INDENT: &str = "  ";

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
