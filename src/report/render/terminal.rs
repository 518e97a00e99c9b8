//! The compact tables printed at the end of a run: one per measured phase, each cell's status (a kill by the memory
//! limit named as such) and box, the medians the report shows (the same figures from the same analysis, so the
//! terminal and report.md never disagree), cells as columns while that fits
//! [`TERMINAL_COLUMNS`], else cells as rows; under each, whether its repeats' spread follows their servers (sweeps over
//! several) and "is it the GC?" in one line per cell; then the connection counts a plan swept, side by side.

use crate::load::figures::{TerminalRow, View};
use crate::load::record::outcomes::Side;
use crate::report::analysis::{
    Analysis, CAPACITY, CellAttribution, CellInfo, CellPhase, Combined, GC_SHARE, Kind, PhaseAnalysis, metric, shown_in,
};
use crate::report::words::kind_words;
use crate::results::Status;
use crate::text_table::{self, Column};

/// The rows of the end-of-run table that some figure of the registry lists, each with the keys of the figures it
/// shows, `/`-joined (`YGC/YGCT`), in the registry's order.
fn rows() -> Vec<(TerminalRow, Vec<&'static str>)> {
    TerminalRow::ALL
        .into_iter()
        .map(|row| (row, shown_in(View::Terminal(row)).map(|metric| metric.key).collect::<Vec<_>>()))
        .filter(|(_, keys)| !keys.is_empty())
        .collect()
}

/// The row's value for one cell: each figure's median in its metric's format; `-` when one is missing; a capacity
/// search that claimed none says why; a P99 measured short of the requested rate says `short`.
fn value(cell: &CellPhase, keys: &[&str]) -> String {
    if let (Some(capacity), [CAPACITY]) = (&cell.capacity, keys)
        && capacity.rps.is_none()
    {
        return match (capacity.limited_by, capacity.bounds[1]) {
            (Side::Generator, _) => "generator-limited".to_string(),
            (Side::Target, Some(high)) => format!("<{}", metric(CAPACITY).format.show(high)),
            (Side::Target, None) => "none".to_string(),
        };
    }
    let shown: Option<Vec<String>> =
        keys.iter().map(|key| cell.figure(key).map(|estimate| metric(key).format.show(estimate.median))).collect();
    let text = shown.map_or_else(|| "-".to_string(), |parts| parts.join("/"));
    // A latency measured short of the requested rate, as in the report's tables.
    match (keys, &cell.short_of_rate) {
        (["p99_ms"], Some(_)) if text != "-" => format!("{text} short"),
        _ => text,
    }
}

/// A cell's status in the table: `killed by the memory limit` when that is what every problem of it was, never a
/// bare `crashed` for it.
fn status_word(cell: &CellInfo) -> &'static str {
    let killed = !cell.problems.is_empty() && cell.problems.iter().all(|problem| problem.memory_limit);
    if killed && matches!(cell.status, Status::Crashed | Status::Failed) {
        "killed by the memory limit"
    } else {
        cell.status.name()
    }
}

/// One compact table per measured phase.
pub fn phase_tables(analysis: &Analysis) -> String {
    let mut out = String::new();
    let labels: Vec<String> = analysis.cells.iter().map(|cell| cell.label.clone()).collect();
    for phase in analysis.phases.iter().filter(|phase| phase.measured) {
        let mut table: Vec<Vec<String>> =
            vec![std::iter::once(phase.name.clone()).chain(labels.iter().cloned()).collect()];
        let statuses = analysis.cells.iter().map(|cell| status_word(cell).to_string());
        table.push(std::iter::once("status".to_string()).chain(statuses).collect());
        let boxes: Vec<Option<&String>> = analysis
            .cells
            .iter()
            .map(|cell| cell.memory.as_ref().and_then(|memory| memory.box_label.as_ref()))
            .collect();
        if boxes.iter().any(Option::is_some) {
            let boxes = boxes.into_iter().map(|label| label.map_or("-".to_string(), String::clone));
            table.push(std::iter::once("box".to_string()).chain(boxes).collect());
        }
        for (name, keys) in rows() {
            let mut row = vec![name.label().to_string()];
            for (info, cell) in analysis.cells.iter().zip(&phase.cells) {
                row.push(match info.status {
                    Status::Crashed | Status::Failed if cell.reps.is_empty() => status_word(info).to_string(),
                    _ => value(cell, &keys),
                });
            }
            let empty = phase.cells.iter().all(|cell| value(cell, &keys) == "-");
            if !(name.is_optional() && empty) {
                table.push(row);
            }
        }
        if width(&table) > TERMINAL_COLUMNS {
            table = transpose(&table);
            shorten_first_column(&mut table);
        }
        out += &render(&table);
        if let Some(hosts) = &phase.hosts {
            out += &textwrap::fill(
                &hosts.sentence,
                textwrap::Options::new(TERMINAL_COLUMNS).initial_indent(INDENT).subsequent_indent(INDENT),
            );
            out.push('\n');
        }
        out += &steadiness_lines(phase);
        out += &gc_share_line(analysis, phase);
        out += &gc_lines(analysis, phase);
        out.push('\n');
    }
    out + &connection_tables(analysis)
}

/// The report's Connections tables (`connection_sweep.rs`): per count its req/s, P99 and errors, a column per cell.
fn connection_tables(analysis: &Analysis) -> String {
    let mut out = String::new();
    for sweep in &analysis.connection_sweeps {
        let table = sweep.table(analysis);
        let header = std::iter::once(format!("connections: {}", sweep.title()));
        let mut rows: Vec<Vec<String>> = vec![header.chain(table.rows.iter().map(|row| row.label.clone())).collect()];
        for (index, column) in table.columns.iter().enumerate() {
            let entries = table.rows.iter().map(|row| row.entries[index].text.clone());
            rows.push(std::iter::once(column.clone()).chain(entries).collect());
        }
        if width(&rows) > TERMINAL_COLUMNS {
            rows = transpose(&rows);
            shorten_first_column(&mut rows);
        }
        out += &render(&rows);
        out.push('\n');
    }
    out
}

/// The findings that qualify the phase's figures: a target that changed under a ladder or search, a capacity that
/// another phase contradicts; wrapped, in full.
fn steadiness_lines(phase: &PhaseAnalysis) -> String {
    let qualifying = phase
        .recommendation
        .iter()
        .flat_map(|recommendation| &recommendation.findings)
        .filter(|finding| matches!(finding.kind, Kind::TargetChanged | Kind::CapacityContradicted));
    let mut out = String::new();
    for finding in qualifying {
        let options = textwrap::Options::new(TERMINAL_COLUMNS).initial_indent(INDENT).subsequent_indent(INDENT);
        out += &textwrap::fill(&format!("NOTE {}", finding.text), options);
        out.push('\n');
    }
    out
}

/// Under a phase's table, the cells whose GC share is jstat's GC time, since they had no GC log; nothing when every
/// cell had one.
fn gc_share_line(analysis: &Analysis, phase: &PhaseAnalysis) -> String {
    let from_jstat = &phase.gc_share.from_jstat;
    if from_jstat.is_empty() {
        return String::new();
    }
    let cells: Vec<&str> = from_jstat.iter().map(|id| analysis.cell(id).label.as_str()).collect();
    let line =
        format!("NOTE {}: jstat's GC time (GCT) for {}, which had no GC log", metric(GC_SHARE).label, cells.join(", "));
    let options = textwrap::Options::new(TERMINAL_COLUMNS).initial_indent(INDENT).subsequent_indent(INDENT);
    textwrap::fill(&line, options) + "\n"
}

/// "Is it the GC?" under a phase's table: one short line per cell.
fn gc_lines(analysis: &Analysis, phase: &PhaseAnalysis) -> String {
    let mut out = format!("{INDENT}is it the GC?\n");
    for (info, cell) in analysis.cells.iter().zip(&phase.cells) {
        let answer = match &cell.gc_attribution {
            CellAttribution::Found(combined) => gc_line(combined),
            CellAttribution::Missing { why } => why.clone(),
        };
        // The verdict's line states its rule's numbers: wrapped, never cut.
        let first = format!("{INDENT}{INDENT}{}: ", info.label);
        let options = textwrap::Options::new(TERMINAL_COLUMNS)
            .initial_indent(&first)
            .subsequent_indent(CONTINUATION)
            .break_words(false);
        out += &textwrap::fill(&answer, options);
        out.push('\n');
    }
    out
}

/// The indent of a wrapped verdict line's continuation.
const CONTINUATION: &str = "      ";

/// The verdict in a few words and the numbers its rule used: `not GC: p99 454.0 → 441.9 ms without GC (−2.7 %,
/// below the 10 % that makes GC a cause); 83 % of 2226 requests above p99 overlapped GC pauses, chance 81 %:
/// saturation, …` (the attribution's own line, `Verdict::summary`).
fn gc_line(combined: &Combined) -> String {
    format!("{}: {}", kind_words(combined.verdict.kind), combined.verdict.summary)
}

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
    let columns = vec![Column::right(0).after(2); table[0].len()];
    text_table::render(&columns, table).into_iter().map(|line| format!("{INDENT}{line}\n")).collect()
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use serde_json::Value;

    use crate::load::format::format_ms;
    use crate::report::Report;
    use crate::report::analysis::CellAttribution;
    use crate::report::test_fixtures::fixture_with;
    use crate::report::words::kind_words;

    /// A copy of the `sweep` fixture's top-level files (no cell folders: figures come from summary.json alone), with
    /// `edit` applied to its summary.
    fn sweep_with(edit: impl FnOnce(&mut Value)) -> tempfile::TempDir {
        fixture_with("sweep", edit)
    }

    /// The words of the row `label` in the table of `phase`.
    fn row(tables: &str, phase: &str, label: &str) -> Vec<String> {
        let table = tables.split("\n\n").find(|table| table.trim_start().starts_with(phase)).unwrap();
        let line = table.lines().find(|line| line.trim_start().starts_with(label)).unwrap();
        line[line.find(label).unwrap() + label.len()..].split_whitespace().map(str::to_string).collect()
    }

    fn rps(summary: &Value, cell: usize, rep: usize, phase: &str) -> f64 {
        summary["cells"][cell]["reps"][rep]["phases"][phase]["rps"].as_f64().unwrap()
    }

    #[test]
    fn a_crashed_cell_without_figures_says_so_in_every_row() {
        let dir = sweep_with(|_| {});
        let tables = Report::open(dir.path()).unwrap().terminal_tables();
        assert_eq!(row(&tables, "set", "status"), ["crashed", "ok", "ok"]);
        for label in ["req/s", "p99 ms", "YGC/YGCT s", "GC share %"] {
            assert_eq!(row(&tables, "set", label)[0], "crashed", "{label}");
        }
    }

    #[test]
    fn each_cell_says_in_a_line_whether_it_is_the_gc_or_why_it_cannot_say() {
        // The sweep was captured before jload kept slow requests; its first cell crashed in its fill.
        let dir = sweep_with(|_| {});
        let tables = Report::open(dir.path()).unwrap().terminal_tables();
        let set = tables.split("\n\n").find(|table| table.trim_start().starts_with("set")).unwrap();
        let lines: Vec<&str> = set.lines().skip_while(|line| line.trim() != "is it the GC?").collect();
        assert_eq!(
            lines,
            [
                "  is it the GC?",
                "    tiny: crashed",
                "    -Xmx64m: no slow requests recorded (results of an older jload)",
                "    -Xmx256m: no slow requests recorded (results of an older jload)",
            ]
        );
    }

    #[test]
    fn a_cell_with_an_attribution_says_its_verdict_and_p99_tail_in_one_line() {
        // The gc-attribution fixture: every repeat of every cell recorded its attribution.
        let dir = fixture_with("gc-attribution", |_| {});
        let summary: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.path().join("summary.json")).unwrap()).unwrap();
        let reps: Vec<&Value> =
            (0..2).map(|rep| &summary["cells"][0]["reps"][rep]["phases"]["get"]["gc_attribution"]).collect();
        let sum = |field: &str| reps.iter().map(|rep| rep["p99"][field].as_u64().unwrap()).sum::<u64>();
        let chance = reps
            .iter()
            .map(|rep| rep["p99"]["gc_chance"].as_f64().unwrap() * rep["p99"]["examined"].as_f64().unwrap())
            .sum::<f64>()
            / sum("examined") as f64;
        let middle = |field: &str| reps.iter().map(|rep| rep["p99"][field].as_f64().unwrap()).sum::<f64>() / 2.0;
        let tables = Report::open(dir.path()).unwrap().terminal_tables();
        let get = tables.split("\n\n").find(|table| table.trim_start().starts_with("get")).unwrap();
        // The cell's line, wrapped to the terminal's width, is the verdict's kind and the numbers its rule used.
        let start = get.find("    -Xmx48m: ").unwrap();
        let mut lines = get[start..].lines();
        let lines: Vec<&str> =
            lines.next().into_iter().chain(lines.take_while(|line| line.starts_with(super::CONTINUATION))).collect();
        assert!(lines.iter().all(|line| line.chars().count() <= super::TERMINAL_COLUMNS), "{lines:?}");
        let printed = lines.iter().map(|line| line.trim()).collect::<Vec<_>>().join(" ");
        let report = Report::open(dir.path()).unwrap();
        let phase = report.analysis.phases.iter().find(|phase| phase.name == "get").unwrap();
        let CellAttribution::Found(combined) = &phase.cells[0].gc_attribution else { panic!("no attribution") };
        assert_eq!(printed, format!("-Xmx48m: {}: {}", kind_words(combined.verdict.kind), combined.verdict.summary));
        // The numbers are the repeats' combined: the medians of p99 with and without GC, the summed overlaps.
        let summary = &combined.verdict.summary;
        let effect = format!(
            "p99 {} → {} ms without GC",
            format_ms(middle("percentile_ms")),
            format_ms(middle("recomputed_ms"))
        );
        assert!(summary.contains(&effect), "{summary}");
        let share = crate::attribution::verdict::percent(sum("gc_overlap") as f64 / sum("examined") as f64);
        let overlap = format!("{share} of {} requests above p99 overlapped GC", sum("examined"));
        assert!(summary.contains(&overlap), "{summary} vs {overlap}");
        assert!(summary.contains(&crate::attribution::verdict::percent(chance)), "{summary}");
    }

    #[test]
    fn the_terminal_counts_the_repeats_the_report_counts() {
        // Repeat 2 of -Xmx64m crashed during `set`: its `get` counts, its cut-short `set` does not, in both outputs.
        let dir = sweep_with(|summary| {
            let rep = &mut summary["cells"][1]["reps"][1];
            rep["status"] = "crashed".into();
            rep["phases"]["set"]["interrupted"] = true.into();
            summary["cells"][1]["status"] = "crashed".into();
        });
        let summary: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.path().join("summary.json")).unwrap()).unwrap();
        let report = Report::open(dir.path()).unwrap();
        let tables = report.terminal_tables();
        assert_eq!(row(&tables, "set", "status"), ["crashed", "crashed", "ok"]);
        let set_median = (rps(&summary, 1, 0, "set") + rps(&summary, 1, 2, "set")) / 2.0;
        assert_eq!(row(&tables, "set", "req/s")[1], format!("{set_median:.0}"));
        let mut gets: Vec<f64> = (0..3).map(|rep| rps(&summary, 1, rep, "get")).collect();
        gets.sort_by(f64::total_cmp);
        assert_eq!(row(&tables, "get", "req/s")[1], format!("{:.0}", gets[1]));
        let phase = |name: &str| report.analysis.phases.iter().find(|phase| phase.name == name).unwrap();
        assert_eq!(phase("set").cells[1].reps, [1, 3]);
        assert_eq!(phase("set").cells[1].figure("rps").unwrap().median, set_median);
        assert_eq!(phase("get").cells[1].reps, [1, 2, 3]);
    }

    #[test]
    fn a_capacity_phase_shows_each_cells_capacity_and_a_generator_limited_cell_none() {
        // Repeat 2 of -Xmx256m ran out of generator CPU in its search: no capacity for that cell, and it says so.
        let dir = fixture_with("ladder", |summary| {
            let capacity = &mut summary["cells"][2]["reps"][1]["phases"]["set"]["capacity"];
            capacity["rps"] = Value::Null;
            capacity["limited_by"] = "generator".into();
        });
        let summary: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.path().join("summary.json")).unwrap()).unwrap();
        let mut small: Vec<f64> = (0..3)
            .map(|rep| summary["cells"][1]["reps"][rep]["phases"]["set"]["capacity"]["rps"].as_f64().unwrap())
            .collect();
        small.sort_by(f64::total_cmp);
        let tables = Report::open(dir.path()).unwrap().terminal_tables();
        assert_eq!(row(&tables, "set", "capacity"), ["crashed", &format!("{:.0}", small[1]), "generator-limited"]);
        assert!(!tables.split("\n\n").any(|table| table.trim_start().starts_with("get") && table.contains("capacity")));
    }

    #[test]
    fn a_p99_measured_short_of_the_requested_rate_says_so() {
        // The get phase as if it had asked for 39000 req/s: -Xmx64m fell short of 95 % of it in repeats 2 and 3.
        let dir = sweep_with(|summary| {
            for cell in [1, 2] {
                for rep in summary["cells"][cell]["reps"].as_array_mut().unwrap() {
                    rep["phases"]["get"]["rate"] = 39000.0.into();
                }
            }
        });
        let summary: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.path().join("summary.json")).unwrap()).unwrap();
        let p99 = |cell: usize| {
            let mut values: Vec<f64> = (0..3)
                .map(|rep| summary["cells"][cell]["reps"][rep]["phases"]["get"]["latency_ms"]["p99"].as_f64().unwrap())
                .collect();
            values.sort_by(f64::total_cmp);
            crate::load::format::format_ms(values[1])
        };
        let tables = Report::open(dir.path()).unwrap().terminal_tables();
        assert_eq!(row(&tables, "get", "p99 ms"), ["crashed".to_string(), p99(1), "short".to_string(), p99(2)]);
    }

    #[test]
    fn each_phase_over_several_servers_says_under_its_table_whether_its_spread_follows_the_host() {
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/results/hosts");
        let report = Report::open(&fixture).unwrap();
        let tables = report.terminal_tables();
        for phase in report.analysis.phases.iter().filter(|phase| phase.measured) {
            let sentence = &phase.hosts.as_ref().unwrap().sentence;
            let table = tables.split("\n\n").find(|table| table.trim_start().starts_with(&phase.name)).unwrap();
            let at = table.find("  is it the GC?").unwrap();
            let lines: Vec<&str> = table[..at].lines().rev().take_while(|line| !line.contains("GC share %")).collect();
            let text: Vec<&str> = lines.iter().rev().map(|line| line.trim()).collect();
            assert_eq!(
                text.join(" "),
                *sentence,
                "{}: the sentence, wrapped, between the table and the GC lines",
                phase.name
            );
            assert!(
                lines
                    .iter()
                    .all(|line| line.chars().count() <= super::TERMINAL_COLUMNS && line.starts_with(super::INDENT))
            );
        }
        let one_machine = Report::open(&fixture.with_file_name("sweep")).unwrap().terminal_tables();
        assert!(!one_machine.contains("Repeats ran on") && !one_machine.contains("follows"));
    }
}
