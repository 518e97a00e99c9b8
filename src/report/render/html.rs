//! report.html: one self-contained page that opens offline — no script, no external style, font or image; the
//! markdown's content plus charts as inline SVG: per measured phase throughput and P99 per cell with confidence
//! whiskers (and capacity in a capacity phase), latency against throughput over a ladder's or search's steps, the
//! latency percentile spectrum and a GC summary; per cell a timeline of its run; per measured phase "is it the GC?"
//! with, per cell, its slow requests over the JVM's stops. Built with maud, so
//! every string from the plan or the results is HTML-escaped.

use maud::{DOCTYPE, Markup, PreEscaped, html};

use super::cell_styles::cell_styles;
use super::charts::bars::{Bar, bar_chart};
use super::charts::curves::{CurveLine, curves_chart};
use super::charts::frontier::frontier_chart;
use super::charts::memory::{MemoryBar, MemoryOverTime, memory_bar, memory_over_time};
use super::charts::spectrum::{SpectrumLine, spectrum_chart};
use super::charts::style::{CellStyle, cell_swatch};
use super::charts::tail::tail_chart;
use super::charts::timeline::{Timeline, timeline_chart};
use super::grid::{grid_axes, grid_note, phase_grids};
use super::markdown::{IS_IT_GC_NOTE, header_facts, phase_shape, statistics_note};
use super::memory::{MEMORY_NOTE, killed_line, memory_cells, memory_table, title as memory_title};
use super::prose::{Part, parts};
use super::tables::{
    Entry, Layout, Mark, Table, curve_table, gc_attribution_table, mark_of, phase_table, unmeasured_table,
};
use super::tune::{BEST_HEAD, FRONTIER_INTRO, HISTORY_HEAD, frontier_head, holds_words, shares, title as tune_title};
use crate::load::format::format_ms;
use crate::report::analysis::{
    Analysis, CAPACITY, CellPhase, CurvePoint, GC_SHARE, OTHER_SHARE, PhaseAnalysis, PhaseKind, Source, metric,
};
use crate::results::tune_json::settings_words;

const STYLE: &str = r#"
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; margin: 0;
  color: #222; background: #fafafa; }
main { max-width: 1100px; margin: 0 auto; padding: 24px 32px 48px; background: #fff; }
h1 { font-size: 1.7em; margin: 0 0 6px; } h2 { margin-top: 2em; border-bottom: 2px solid #e5e5e5; padding-bottom: 4px; }
h3 { margin-bottom: 0.4em; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; font-size: 0.92em; }
dl.facts dt { font-weight: 600; color: #555; } dl.facts dd { margin: 0; overflow-wrap: anywhere; }
nav { font-size: 0.9em; margin: 14px 0; } nav a { margin-right: 14px; color: #2a5db0; }
code { font-family: ui-monospace, monospace; font-size: 0.92em; background: #eef0f4; padding: 0 3px; border-radius: 3px; }
.callout { background: #f3f6fb; border-left: 4px solid #4e79a7; padding: 8px 14px; }
.callout.warn { background: #fff6e5; border-color: #f28e2b; font-weight: 600; }
ul.findings li { margin: 4px 0; }
.scroll { overflow-x: auto; }
table.metrics { border-collapse: collapse; font-size: 0.86em; margin: 10px 0; font-variant-numeric: tabular-nums; }
table.metrics th, table.metrics td { border: 1px solid #ddd; padding: 4px 8px; text-align: center;
  vertical-align: top; }
table.metrics th:first-child { text-align: left; background: #f5f5f5; white-space: nowrap; }
table.metrics thead th { background: #eef1f6; }
table.metrics td.best { background: #e6f4e6; font-weight: 600; } table.metrics td.equal { background: #f1f8ee; }
table.metrics td.problem { color: #b3261e; font-style: italic; max-width: 240px; }
svg.swatch { vertical-align: middle; margin-right: 5px; }
small.ci { display: block; color: #666; font-weight: normal; font-size: 0.85em; }
p.note { font-size: 0.88em; color: #555; }
div.grids { display: flex; flex-wrap: wrap; gap: 0 28px; } div.grid h4 { margin: 10px 0 0; font-size: 0.95em; }
table.grid td { min-width: 4.5em; }
table.cellrows { font-size: 0.78em; } table.cellrows th, table.cellrows td { padding: 3px 4px; }
table.cellrows thead th { font-weight: 600; min-width: 3.2em; }
figure { margin: 18px 0; } figcaption { font-size: 0.85em; color: #555; }
svg.chart { max-width: 100%; height: auto; font-size: 12px; background: #fff; }
svg.chart .heading { font-size: 15px; font-weight: 600; fill: #222; }
svg.chart .grid { stroke: #e8e8e8; } svg.chart text { fill: #444; } svg.chart .title { fill: #666; }
svg.chart .whisker line { stroke: #222; stroke-width: 1.5; } svg.chart .value { fill: #222; font-weight: 600; }
svg.chart .missing, svg.chart .note { fill: #888; font-style: italic; } svg.chart .legend .note { font-size: 10px; }
svg.chart .series { fill: none; stroke-width: 2; stroke-linejoin: round; }
svg.chart .step line { stroke-width: 3; opacity: 0.5; } svg.chart .step.failed line { stroke-dasharray: 5 3; }
svg.chart .step line.step-edge { stroke: #b0b0b0; stroke-width: 0.6; stroke-dasharray: 2 2; }
svg.chart .pause { opacity: 0.65; } svg.chart .area { opacity: 0.85; }
svg.chart .band.even { fill: #f4f6fa; } svg.chart .band.odd { fill: #fbf7f0; }
svg.chart .phase { font-weight: 600; fill: #555; }
svg.chart .limit { stroke: #555; stroke-dasharray: 5 4; }
svg.chart .stop { opacity: 0.45; } svg.chart .exposure { stroke-width: 1; opacity: 0.6; }
pre.plan { background: #f5f5f5; padding: 12px; overflow-x: auto; font-size: 0.85em; }
footer { font-size: 0.8em; color: #777; margin-top: 3em; }
"#;

pub fn render(analysis: &Analysis) -> String {
    let title = format!("jload report: {}", analysis.plan);
    let measured: Vec<&PhaseAnalysis> = analysis.phases.iter().filter(|phase| phase.measured).collect();
    let page = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) }
                style { (PreEscaped(STYLE)) }
            }
            body { main {
                h1 { (title) }
                @if !analysis.description.is_empty() { p { (analysis.description) } }
                dl.facts {
                    @for (label, items) in header_facts(analysis) {
                        dt { (label) }
                        dd { @for item in &items { div { (item) } } }
                    }
                }
                nav {
                    a href="#recommendation" { "Recommendation" }
                    @if !analysis.box_searches.is_empty() { a href="#box-search" { "Smallest box" } }
                    @if analysis.tune.is_some() { a href="#tune-0" { "Tune" } }
                    @if grid_axes(analysis).is_some() { a href="#grids" { "Grids" } }
                    @for (index, phase) in measured.iter().enumerate() {
                        a href=(format!("#phase-{index}")) { "Phase " (phase.name) }
                    }
                    @for (index, sweep) in analysis.connection_sweeps.iter().enumerate() {
                        a href=(format!("#connections-{index}")) { "Connections " (sweep.title()) }
                    }
                    @if !memory_cells(analysis).is_empty() { a href="#memory" { "Memory" } }
                    a href="#timelines" { "Timelines" } a href="#is-it-gc" { "Is it the GC?" } a href="#plan" { "Plan" }
                }
                p.callout.warn[analysis.single_repeat()].callout { (prose(&statistics_note(analysis))) }
                h2 #recommendation { "Recommendation" }
                @for phase in &measured {
                    h3 { "Phase " (phase.name) }
                    ul.findings {
                        @for finding in phase.recommendation.iter().flat_map(|r| &r.findings) { li { (prose(&finding.text)) } }
                    }
                }
                (box_searches(analysis))
                (tune_section(analysis))
                (grids(analysis))
                @for (index, phase) in measured.iter().enumerate() { (phase_section(analysis, phase, index)) }
                @for (index, sweep) in analysis.connection_sweeps.iter().enumerate() {
                    h2 id=(format!("connections-{index}")) { "Connections: " (sweep.title()) }
                    p.note { (sweep.note()) }
                    (table_html(analysis, &sweep.table(analysis)))
                }
                (memory(analysis))
                (timelines(analysis))
                (is_it_gc(analysis))
                @if let Some(table) = unmeasured_table(analysis) {
                    h2 { "Phases not measured" }
                    p.note { "Fill and warm-up phases: shown, never compared." }
                    (table_html(analysis, &table))
                }
                (problems(analysis))
                h2 #plan { "Plan" }
                @match &analysis.plan_text {
                    Some(text) => details { summary { "plan.toml as run" } pre.plan { (text) } },
                    None => p { "No plan.toml in the results directory." },
                }
                footer { "Written by jload " (analysis.jload_version) " from " (analysis.results_dir)
                    "; regenerate with jload report DIR. Figures for every repeat are in report.json." }
            } }
        }
    };
    page.into_string()
}

/// A grid entry's background: white for the grid's worst figure to green for its best.
fn shading(entry: &Entry) -> Option<String> {
    entry.shade.map(|shade| format!("background:hsl(130, 45%, {:.0}%)", 97.0 - shade * 22.0))
}

/// Text that may wrap after each slash: compound figures (min/P90/P99/…) and their headers (YGC/YGCT).
fn wrapping(text: &str) -> Markup {
    html! { @for (index, part) in text.split('/').enumerate() { @if index > 0 { "/" wbr; } (part) } }
}

fn entry_html(entry: &Entry) -> Markup {
    let class = match (entry.mark, entry.problem) {
        (Some(Mark::Best), _) => "best",
        (Some(Mark::Equal), _) => "equal",
        (None, true) => "problem",
        (None, false) => "",
    };
    html! {
        td class=(class) title=[entry.detail.as_ref()] style=[shading(entry)] {
            (wrapping(&entry.text))
            @if let Some(mark) = entry.mark { " " (mark.symbol()) }
            @if let Some(ci) = &entry.ci { small.ci { "CI " (ci) } }
        }
    }
}

fn cell_style(analysis: &Analysis, index: usize) -> CellStyle {
    cell_styles(analysis)[index]
}

/// A header naming a cell: its swatch (colour and line style, as in the charts), its label, its id as tooltip.
fn cell_header(analysis: &Analysis, index: usize, label: &str) -> Markup {
    html! { th title=(analysis.cells[index].id) { (cell_swatch(&cell_style(analysis, index))) (label) } }
}

fn table_html(analysis: &Analysis, table: &Table) -> Markup {
    let layout = table.layout;
    html! {
        div.scroll { table.metrics.(format!("{layout:?}").to_lowercase()) {
            thead { tr {
                th { (table.corner) }
                @for (index, column) in table.columns.iter().enumerate() {
                    @if layout == Layout::CellColumns {
                        (cell_header(analysis, index, column))
                    } @else {
                        th { (wrapping(column)) }
                    }
                }
            } }
            tbody {
                @for (index, row) in table.rows.iter().enumerate() {
                    tr {
                        @if layout == Layout::CellRows {
                            (cell_header(analysis, index, &row.label))
                        } @else {
                            th { (row.label) }
                        }
                        @for entry in &row.entries { (entry_html(entry)) }
                    }
                }
            }
        } }
        @for note in &table.notes { p.note { (prose(note)) } }
    }
}

/// One of jload's own sentences (`report::render::prose`): its code parts in `<code>`, the rest as text.
fn prose(text: &str) -> Markup {
    html! {
        @for part in parts(text) {
            @match part {
                Part::Plain(plain) => (plain),
                Part::Code(code) => code { (code) },
            }
        }
    }
}

/// The grids section (sweeps with two or more varying axes): per measured phase, a grid per headline figure.
fn grids(analysis: &Analysis) -> Markup {
    let Some(axes) = grid_axes(analysis) else {
        return html! {};
    };
    html! {
        h2 #grids { "Grids: " (axes.rows) " × " (axes.columns) }
        p.note {
            (prose(&grid_note(&axes, analysis))) " Shading runs from the grid's worst figure (white) to its best (green)."
        }
        @for phase in analysis.phases.iter().filter(|phase| phase.measured) {
            h3 { "Phase " (phase.name) }
            div.grids {
                @for grid in phase_grids(analysis, &axes, phase) {
                    div.grid { h4 { (grid.title()) } (table_html(analysis, &grid.table)) }
                }
            }
        }
    }
}

/// Why a cell has no bar: its crash or failure, a capacity search that claimed none, or no data.
fn missing_text(analysis: &Analysis, cell: &CellPhase) -> String {
    let info = analysis.cell(&cell.cell);
    if let Some(capacity) = cell.capacity.as_ref().filter(|capacity| capacity.rps.is_none()) {
        return capacity.describe(|rps| metric(CAPACITY).format.show(rps));
    }
    match info.problems.first() {
        Some(problem) => problem.headline(""),
        None => "no data".to_string(),
    }
}

fn headline_bars(analysis: &Analysis, phase: &PhaseAnalysis, key: &str) -> Vec<Bar> {
    phase
        .cells
        .iter()
        .enumerate()
        .map(|(index, cell)| {
            let estimate = cell.figure(key);
            Bar {
                label: analysis.cell(&cell.cell).label.clone(),
                color: cell_style(analysis, index).color,
                value: estimate.map(|estimate| estimate.median),
                ci: estimate.and_then(|estimate| estimate.ci),
                mark: mark_of(analysis, cell, key),
                text: estimate.map_or(String::new(), |estimate| metric(key).format.show(estimate.median)),
                missing: missing_text(analysis, cell),
            }
        })
        .collect()
}

fn plain_bars(analysis: &Analysis, phase: &PhaseAnalysis, key: &str) -> Vec<Bar> {
    headline_bars(analysis, phase, key).into_iter().map(|bar| Bar { mark: None, ..bar }).collect()
}

fn phase_section(analysis: &Analysis, phase: &PhaseAnalysis, index: usize) -> Markup {
    let lines: Vec<SpectrumLine> = phase
        .cells
        .iter()
        .enumerate()
        .filter_map(|(index, cell)| {
            let spectrum = cell.spectrum.as_ref()?;
            let note = match spectrum.source {
                Source::Hlog => format!("{} requests", spectrum.count),
                Source::Percentiles => "stored percentiles".to_string(),
            };
            Some(SpectrumLine {
                label: analysis.cell(&cell.cell).label.clone(),
                style: cell_style(analysis, index),
                points: spectrum.points.clone(),
                note,
            })
        })
        .collect();
    let whiskers =
        if analysis.single_repeat() { "one repeat: no interval" } else { "whiskers: 95 % confidence interval" };
    html! {
        h2 id=(format!("phase-{index}")) { "Phase " (phase.name) }
        p.note { (phase_shape(phase)) }
        @if let Some(note) = &phase.equal_load_note { p.callout.warn { (prose(note)) } }
        @if let Some(hosts) = &phase.hosts { p.callout.hosts.warn[hosts.blames()] { (prose(&hosts.sentence)) } }
        (table_html(analysis, &phase_table(analysis, phase)))
        (curves_section(analysis, phase))
        @if phase.kind == PhaseKind::Capacity {
            figure {
                (bar_chart("capacity", &format!("{}: capacity per cell", phase.name),
                    "capacity, req/s at the SLO (median over repeats)", &headline_bars(analysis, phase, CAPACITY)))
                figcaption { "Higher is better. ★ best, ≈ not distinguishable from the best; " (whiskers) }
            }
        }
        figure {
            (bar_chart("throughput", &format!("{}: throughput per cell", phase.name), "req/s (median over repeats)",
                &headline_bars(analysis, phase, "rps")))
            figcaption { "★ best, ≈ not distinguishable from the best; " (whiskers) }
        }
        figure {
            (bar_chart("p99", &format!("{}: P99 latency per cell", phase.name), "P99 ms (median over repeats)",
                &headline_bars(analysis, phase, "p99_ms")))
            figcaption { "Lower is better. " (whiskers) }
        }
        @if !lines.is_empty() {
            figure {
                (spectrum_chart(&format!("{}: latency percentile spectrum", phase.name), &lines))
                figcaption {
                    "Every request of every repeat (HdrHistogram interval logs), or the medians of the stored "
                    "percentiles where a log is missing."
                }
            }
        }
        figure {
            (bar_chart("gc-time", &format!("{}: GC summary — time waited for the collector", phase.name),
                "GC share % of the phase: GC pauses and stalls (GC log; jstat's GC time where there is no log)",
                &plain_bars(analysis, phase, GC_SHARE)))
        }
        figure {
            (bar_chart("gc-pause", &format!("{}: GC summary — longest pause", phase.name), "longest GC pause, ms (GC log)",
                &plain_bars(analysis, phase, "longest_pause_ms")))
        }
    }
}

/// A ladder's or search's latency against throughput: the chart of every cell's curve and the table per requested
/// rate (nothing for a phase without steps).
fn curves_section(analysis: &Analysis, phase: &PhaseAnalysis) -> Markup {
    let Some(table) = curve_table(analysis, phase) else {
        return html! {};
    };
    let lines: Vec<CurveLine> = phase
        .cells
        .iter()
        .enumerate()
        .filter(|(_, cell)| !cell.curve.is_empty())
        .map(|(index, cell)| CurveLine {
            label: analysis.cell(&cell.cell).label.clone(),
            style: cell_style(analysis, index),
            points: median_line(cell),
            repeats: cell.reps.iter().map(|rep| repeat_path(&cell.curve, *rep)).collect(),
            note: format!("{} rates", cell.curve.len()),
        })
        .collect();
    html! {
        h3 { "Latency against throughput" }
        figure {
            (curves_chart(&format!("{}: P99 against throughput", phase.name), &lines, phase.slo_p99_ms))
            figcaption {
                "Per cell, the medians over its repeats at each rate every repeat ran, in order of the requested rate; "
                "each repeat's own steps are the faint line beside it (a capacity search bisects at different rates in "
                "each repeat). Where a line turns up, the cell stops keeping up."
            }
        }
        (table_html(analysis, &table))
    }
}

/// The cell's line: the medians at the rates every repeat ran (a search's bisection differs per repeat), or at every
/// rate when fewer than two are common.
fn median_line(cell: &CellPhase) -> Vec<(f64, f64)> {
    let median = |point: &CurvePoint| (point.achieved_rps.median, point.p99_ms.median);
    let common: Vec<(f64, f64)> = cell.common_curve().map(median).collect();
    if common.len() >= 2 { common } else { cell.curve.iter().map(median).collect() }
}

/// One repeat's steps as (achieved req/s, P99 ms), lowest requested rate first.
fn repeat_path(curve: &[CurvePoint], rep: u32) -> Vec<(f64, f64)> {
    curve
        .iter()
        .filter_map(|point| {
            let at = point.reps.iter().position(|ran| *ran == rep)?;
            Some((point.achieved_rps.values[at], point.p99_ms.values[at]))
        })
        .collect()
}

/// The memory section: per cell in a box or with native memory figures, its stacked bar, its table and its memory
/// over time (nothing for other runs).
fn memory(analysis: &Analysis) -> Markup {
    let cells = memory_cells(analysis);
    if cells.is_empty() {
        return html! {};
    }
    html! {
        h2 #memory { "Memory" }
        p.note { (prose(MEMORY_NOTE)) }
        @for (info, memory) in cells {
            @let title = memory_title(info, memory);
            @let categories = memory.committed_by_category(OTHER_SHARE);
            h3 { (title) }
            @if let Some(killed) = killed_line(memory) { p.callout.warn { (prose(&killed)) } }
            @if !categories.is_empty() {
                figure { (memory_bar(&MemoryBar {
                    title: format!("{title}: committed native memory by category"),
                    categories: &categories,
                    limit: memory.figures.limit,
                    rss_peak: memory.figures.rss_peak,
                    box_peak: memory.figures.peak,
                })) }
            }
            (table_html(analysis, &memory_table(memory)))
            @if !memory.rss.is_empty() || !memory.usage.is_empty() {
                figure { (memory_over_time(&MemoryOverTime {
                    title: format!("{title}: RSS and box usage over time"),
                    rss: &memory.rss,
                    usage: &memory.usage,
                    limit: memory.figures.limit,
                })) }
            }
        }
    }
}

fn timelines(analysis: &Analysis) -> Markup {
    let figures: Vec<Markup> = analysis
        .timelines
        .iter()
        .map(|cell| {
            let index = analysis.cells.iter().position(|info| info.id == cell.cell).expect("timelines are of cells");
            let info = &analysis.cells[index];
            let crashed = if cell.crashed { " (crashed)" } else { "" };
            timeline_chart(&Timeline {
                title: format!("{}, repeat {}{crashed}", info.label, cell.rep),
                color: cell_style(analysis, index).color,
                phases: &cell.phases,
                heap: &cell.heap,
                max_heap_mb: info.max_heap_mb,
            })
        })
        .collect();
    html! {
        h2 #timelines { "Timelines" }
        p.note {
            "Per cell, its repeat with the median req/s: req/s and p99 per second, every GC pause as a red bar as tall "
            "as it lasted (same ms scale as p99), and the heap beneath, on the JVM's uptime."
        }
        @for note in &analysis.timeline_notes { p.note { (prose(note)) } }
        @for figure in figures { figure { (figure) } }
    }
}

/// "Is it the GC?": per measured phase the table, then per cell the chart of its slow requests over the JVM's stops.
fn is_it_gc(analysis: &Analysis) -> Markup {
    html! {
        h2 #is-it-gc { "Is it the GC?" }
        p.note { (prose(IS_IT_GC_NOTE)) }
        @for phase in analysis.phases.iter().filter(|phase| phase.measured) {
            @if let Some(table) = gc_attribution_table(analysis, phase) {
                h3 { "Phase " (phase.name) }
                (table_html(analysis, &table))
                @for cell in &phase.cells {
                    @if let Some(chart) = &cell.tail_chart {
                        @let label = &analysis.cell(&cell.cell).label;
                        figure {
                            (tail_chart(&format!("{}: {label}, repeat {}", phase.name, chart.rep), chart))
                            figcaption {
                                "The " (chart.points.len()) " slowest of the " (chart.kept) " requests repeat "
                                (chart.rep) " kept one by one (the repeat with the cell's median p99), at the time "
                                "their answer came, over the JVM's stops from its GC log; the clock mapping is good to "
                                "±" (format_ms(chart.clock_error_ms)) " ms."
                                @if chart.windows_left_out > 0 {
                                    " " (chart.windows_left_out) " shorter stops are not drawn."
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

fn problems(analysis: &Analysis) -> Markup {
    let troubled: Vec<_> = analysis.cells.iter().filter(|cell| !cell.problems.is_empty()).collect();
    html! {
        @if !troubled.is_empty() {
            h2 { "Crashed, failed and incomplete cells" }
            ul {
                @for cell in troubled {
                    @for problem in &cell.problems { li { (cell.label) ": " (problem.describe(cell.reps)) } }
                }
            }
        }
        @if !analysis.notes.is_empty() {
            h2 { "Notes" }
            ul { @for note in &analysis.notes { li { (prose(note)) } } }
        }
    }
}

/// The box search's answers and each search's trials (a plan with `[box_search]`); nothing without one.
fn box_searches(analysis: &Analysis) -> Markup {
    html! {
        @if !analysis.box_searches.is_empty() {
            h2 #box-search { "Smallest box holding the SLO" }
            ul.findings { @for finding in &analysis.box_searches { li { (finding.sentence) } } }
            table {
                thead { tr { th { "cell" } th { "trial" } th { "limit" } th { "outcome" } } }
                tbody {
                    @for finding in &analysis.box_searches {
                        @for (index, trial) in finding.search.trials.iter().enumerate() {
                            tr {
                                td { (finding.search.cell) }
                                td { (index + 1) }
                                td { (finding.search.range.dimension.words(trial.limit)) }
                                td { @match &trial.failure { Some(why) => { "fails: " (why) }, None => "holds the SLO" } }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The tune section (a plan with `[tune]`, docs/tune.md); nothing without one.
fn tune_section(analysis: &Analysis) -> Markup {
    let Some(tune) = &analysis.tune else { return html! {} };
    html! {
        @for (index, cell) in tune.cells.iter().enumerate() {
            h2 id=(format!("tune-{index}")) { (tune_title(analysis, cell)) }
            ul.findings {
                li { (cell.answer) }
                @if let Some(verdict) = &cell.verdict { li { "Confirmed " (verdict) } }
            }
            @if !cell.best.is_empty() {
                h3 { "Best configurations" }
                table {
                    thead { tr { @for head in BEST_HEAD { th { (head) } } } }
                    tbody {
                        @for row in &cell.best {
                            tr {
                                td { (row.number) } td { (row.configuration) } td { code { (settings_words(&row.options, &row.args)) } }
                                td { (row.figure_words) } td { (row.interval.as_deref().unwrap_or("—")) }
                                td { (row.repeats) } td { (row.vs_default.as_deref().unwrap_or("—")) }
                            }
                        }
                    }
                }
            }
            @if let Some(note) = &cell.frontier_note { h3 { "Memory → capacity" } p.note { (note) } }
            @if cell.capacities.iter().any(|point| point.on_frontier) {
                h3 { "Memory → capacity" }
                p.note { (FRONTIER_INTRO) }
                (frontier_chart("Memory peak against capacity, per trial", &cell.capacities, tune.at_rate))
                table {
                    thead { tr { @for head in frontier_head(tune.at_rate) { th { (head) } } } }
                    tbody { @for point in cell.capacities.iter().filter(|point| point.on_frontier) { tr {
                        td { (point.memory_words) } td { (point.capacity_words) } td { (point.number) } td { (point.configuration) }
                        @if let Some(holds) = point.holds_at_rate { td { (holds_words(holds)) } }
                    } } }
                }
            }
            h3 { "Which parameters mattered" }
            p { @match &cell.importance_note { Some(note) => (note), None => (shares(cell)) } }
            h3 { "Trials" }
            table {
                thead { tr { @for head in HISTORY_HEAD { th { (head) } } } }
                tbody {
                    @for row in &cell.trials {
                        tr {
                            td { (row.number) } td { (row.source) } td { (row.configuration) }
                            td { code { (settings_words(&row.options, &row.args)) } } td { (row.outcome) }
                            td { (row.best_so_far.as_deref().unwrap_or("—")) }
                        }
                    }
                }
            }
        }
    }
}
