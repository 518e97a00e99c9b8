//! The report's tables as plain values, in seed 000's shape — metrics as rows, one column per cell labelled by the
//! axes that vary — for the markdown and the HTML to render: one per measured phase (a capacity phase's led by the
//! capacities), latency against throughput per requested rate for ladders and searches, one for the phases that are
//! not measured, and per measured phase "is it the GC?" (a row per cell).

use crate::attribution::{TailRequest, TailShare};
use crate::jvm::perfdata::sampler::jstat_columns_note;
use crate::load::figures::{ReportRow, ShownWhen, View};
use crate::load::format::format_ms;
use crate::report::analysis::{
    Analysis, CAPACITY, CellAttribution, CellInfo, CellPhase, Combined, CurvePoint, Format, Metric, PhaseAnalysis,
    Standing, metric, shown_in,
};
use crate::report::words::{bound_ms, kind_words, overlap_share, percent, safepoint_share};

/// Marks on headline figures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    /// The best median.
    Best,
    /// Not distinguishable from the best.
    Equal,
}

impl Mark {
    pub fn symbol(self) -> &'static str {
        match self {
            Mark::Best => "★",
            Mark::Equal => "≈",
        }
    }
}

/// One table cell.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Entry {
    pub text: String,
    pub mark: Option<Mark>,
    /// The 95 % interval, shown next to headline figures.
    pub ci: Option<String>,
    /// Every part's interval, for a hover text.
    pub detail: Option<String>,
    /// A crash or failure instead of numbers.
    pub problem: bool,
    /// The figure itself, where the entry is one number.
    pub value: Option<f64>,
    /// Its place between the worst (0) and the best (1) of its table, where shading helps reading (grids).
    pub shade: Option<f64>,
}

impl Entry {
    fn plain(text: impl Into<String>) -> Entry {
        Entry { text: text.into(), ..Entry::default() }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub label: String,
    pub entries: Vec<Entry>,
}

/// Where a table has the sweep's cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// One column per cell (in cell order), figures as rows: the seeds' shape.
    CellColumns,
    /// One row per cell (in cell order), figures as columns: the seeds' shape transposed, for many cells.
    CellRows,
    /// Rows and columns are the labels of two axes.
    Grid,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    /// Top-left cell: `metrics \ heap gc`.
    pub corner: String,
    pub columns: Vec<String>,
    pub rows: Vec<Row>,
    /// Lines under the table (partial crashes).
    pub notes: Vec<String>,
    pub layout: Layout,
}

/// Most cells shown as columns; a table with more is transposed (cells as rows) so it fits the page.
pub const MAX_CELL_COLUMNS: usize = 8;

impl Table {
    /// The same table with rows and columns swapped: `metrics \ heap gc` becomes `heap gc \ metrics`.
    pub fn transposed(self) -> Table {
        let (left, right) = self.corner.split_once(" \\ ").unwrap_or((self.corner.as_str(), ""));
        let corner = format!("{right} \\ {left}");
        let rows = self
            .columns
            .iter()
            .enumerate()
            .map(|(column, label)| Row {
                label: label.clone(),
                entries: self.rows.iter().map(|row| row.entries[column].clone()).collect(),
            })
            .collect();
        let columns = self.rows.iter().map(|row| row.label.clone()).collect();
        let layout = match self.layout {
            Layout::CellColumns => Layout::CellRows,
            Layout::CellRows => Layout::CellColumns,
            Layout::Grid => Layout::Grid,
        };
        Table { corner, columns, rows, notes: self.notes, layout }
    }

    /// Cells as columns while they fit the page, as rows beyond [`MAX_CELL_COLUMNS`].
    /// A table of this analysis's cells as columns (their labels, the plan's axes in the corner), fitted to the page.
    fn of_cells(analysis: &Analysis, rows: Vec<Row>, notes: Vec<String>) -> Table {
        Table { corner: corner(analysis), columns: columns(analysis), rows, notes, layout: Layout::CellColumns }
            .fitted()
    }

    fn fitted(self) -> Table {
        if self.layout == Layout::CellColumns && self.columns.len() > MAX_CELL_COLUMNS {
            self.transposed()
        } else {
            self
        }
    }
}

/// A row of one or more metrics joined by `/`, as the seeds write `min/P90/P99/max`.
struct RowSpec {
    label: String,
    keys: Vec<&'static str>,
    headline: bool,
    /// When the phase's table shows it ([`ReportRow::shown_when`]).
    shown_when: ShownWhen,
}

/// The rows of the report's tables among `rows` that some figure of the registry lists, each with those figures in
/// the registry's order; `headlines` marks the headline rows as such (a measured phase's).
fn row_specs(rows: &[ReportRow], headlines: bool) -> Vec<RowSpec> {
    rows.iter()
        .filter_map(|&row| {
            let figures: Vec<&Metric> = shown_in(View::Report(row)).collect();
            let labels: Vec<&str> = figures.iter().map(|figure| figure.label).collect();
            (!figures.is_empty()).then(|| RowSpec {
                label: row.label(&labels),
                keys: figures.iter().map(|figure| figure.key).collect(),
                headline: headlines && row.is_headline(),
                shown_when: row.shown_when(),
            })
        })
        .collect()
}

fn corner(analysis: &Analysis) -> String {
    let varying: Vec<&str> = analysis.axes.iter().filter(|axis| axis.varies).map(|axis| axis.name.as_str()).collect();
    let axes = if varying.is_empty() { "cell".to_string() } else { varying.join(" ") };
    format!("metrics \\ {axes}")
}

fn columns(analysis: &Analysis) -> Vec<String> {
    analysis.cells.iter().map(|cell| cell.label.clone()).collect()
}

fn interval(key: &str, ci: Option<[f64; 2]>) -> Option<String> {
    let format = metric(key).format;
    ci.map(|[low, high]| format!("{}–{}", format.show(low.max(0.0)), format.show(high)))
}

/// The mark of a cell on a headline figure; none with one repeat, which qualifies nothing.
pub fn mark_of(analysis: &Analysis, cell: &CellPhase, key: &str) -> Option<Mark> {
    mark_of_standing(analysis, cell.standing.get(key).copied())
}

/// The mark of a standing; none with one repeat.
fn mark_of_standing(analysis: &Analysis, standing: Option<Standing>) -> Option<Mark> {
    match standing {
        _ if analysis.single_repeat() => None,
        Some(Standing::Best) => Some(Mark::Best),
        Some(Standing::Indistinguishable { .. }) => Some(Mark::Equal),
        _ => None,
    }
}

/// The entry of a row for a cell that measured the phase.
fn figures_entry(analysis: &Analysis, cell: &CellPhase, spec: &RowSpec) -> Entry {
    let parts: Vec<String> = spec
        .keys
        .iter()
        .map(|key| cell.figure(key).map_or("-".to_string(), |estimate| metric(key).format.show(estimate.median)))
        .collect();
    let details: Vec<String> = spec
        .keys
        .iter()
        .filter_map(|key| {
            let estimate = cell.figure(key)?;
            Some(format!(
                "{}: {} over {} repeat(s){}",
                metric(key).label,
                metric(key).format.show(estimate.median),
                estimate.n,
                interval(key, estimate.ci).map(|ci| format!(", 95 % CI {ci}")).unwrap_or_default()
            ))
        })
        .collect();
    let mut entry =
        Entry { text: parts.join("/"), detail: (!details.is_empty()).then(|| details.join("; ")), ..Entry::default() };
    if spec.headline {
        let key = spec.keys[0];
        entry.ci = cell.figure(key).and_then(|estimate| interval(key, estimate.ci));
        entry.mark = mark_of(analysis, cell, key);
        // A latency measured short of the requested rate is shown, marked, and never ranked.
        if let (Some(why), Format::Ms) = (&cell.short_of_rate, metric(key).format) {
            entry.text += " short of rate";
            entry.detail = Some(format!("not at the requested rate: {why}"));
        }
    }
    entry
}

/// What a cell without figures for the phase shows: its crash or failure in the first row, `/` below (the seeds'
/// way), or `-` when it simply has no data.
fn missing_entry(info: &CellInfo, phase: &str, first_row: bool) -> Entry {
    let Some(problem) =
        info.problems.iter().find(|problem| problem.phase.as_deref() == Some(phase)).or(info.problems.first())
    else {
        return Entry::plain("-");
    };
    if !first_row {
        return Entry::plain("/");
    }
    let during = match &problem.phase {
        Some(during) if during != phase => format!(" during {during}"),
        _ => String::new(),
    };
    Entry { text: problem.headline(&during), problem: true, ..Entry::default() }
}

/// The rows of `specs`; a cell without figures says why in the first of them when `says_why` (else `/`).
fn rows(analysis: &Analysis, phase: &PhaseAnalysis, specs: &[RowSpec], prefix: &str, says_why: bool) -> Vec<Row> {
    let present = |spec: &&RowSpec| match spec.shown_when {
        ShownWhen::Always => true,
        ShownWhen::Present => phase.cells.iter().any(|cell| spec.keys.iter().any(|key| cell.figure(key).is_some())),
        ShownWhen::AddsToGcShare => spec.keys.iter().any(|key| phase.gc_share.shows(key)),
    };
    specs
        .iter()
        .filter(present)
        .enumerate()
        .map(|(index, spec)| Row {
            label: format!("{prefix}{}", spec.label),
            entries: phase
                .cells
                .iter()
                .map(|cell| {
                    if cell.reps.is_empty() {
                        missing_entry(analysis.cell(&cell.cell), &phase.name, says_why && index == 0)
                    } else {
                        figures_entry(analysis, cell, spec)
                    }
                })
                .collect(),
        })
        .collect()
}

/// Seed 000's table for a measured phase, with the SLO verdict when the plan has one; a capacity phase leads with
/// each cell's capacity and the steps that bound it.
pub fn phase_table(analysis: &Analysis, phase: &PhaseAnalysis) -> Table {
    let mut rows = capacity_rows(analysis, phase);
    rows.extend(self::rows(analysis, phase, &row_specs(&ReportRow::ALL, true), "", rows.is_empty()));
    if !analysis.slo.is_empty() {
        let entries = phase
            .cells
            .iter()
            .map(|cell| match cell.slo {
                Some(verdict) if !cell.reps.is_empty() => {
                    let word = if verdict.met { "met" } else { "FAILED" };
                    Entry {
                        text: format!("{word} {}/{}", verdict.reps_passed, verdict.reps_judged),
                        problem: !verdict.met,
                        ..Entry::default()
                    }
                }
                _ => Entry::plain(if cell.reps.is_empty() { "/" } else { "-" }),
            })
            .collect();
        rows.push(Row { label: format!("SLO ({})", analysis.slo.join(", ")), entries });
    }
    let mut notes: Vec<String> = phase
        .cells
        .iter()
        .filter(|cell| !cell.reps.is_empty())
        .flat_map(|cell| {
            let info = analysis.cell(&cell.cell);
            info.problems.iter().map(move |problem| {
                let reps: Vec<String> = cell.reps.iter().map(u32::to_string).collect();
                format!("{}: {}; figures from repeat(s) {}", info.label, problem.describe(info.reps), reps.join(", "))
            })
        })
        .collect();
    notes.extend(phase.cells.iter().filter_map(|cell| {
        let why = cell.short_of_rate.as_ref()?;
        Some(format!("{}: not at the requested rate, latency not ranked: {why}", analysis.cell(&cell.cell).label))
    }));
    if let Some(hosts) = &phase.hosts {
        notes.extend(hosts.cell_notes(&|cell| analysis.cell(cell).label.clone()));
    }
    notes.extend(gc_share_notes(phase));
    notes.extend(jstat_notes(analysis));
    Table::of_cells(analysis, rows, notes)
}

/// The capacity rows of a capacity phase (none otherwise): the capacity with its interval and marks, or why there is
/// none (`generator-limited: no capacity claimed`), and the rates that bound it.
fn capacity_rows(analysis: &Analysis, phase: &PhaseAnalysis) -> Vec<Row> {
    if phase.cells.iter().all(|cell| cell.capacity.is_none()) {
        return Vec::new();
    }
    let show = |rps: f64| metric(CAPACITY).format.show(rps);
    let capacity = |cell: &CellPhase| match &cell.capacity {
        Some(capacity) if capacity.rps.is_some() => figures_entry(analysis, cell, &capacity_row()),
        Some(capacity) => Entry {
            text: capacity.describe(show),
            problem: true,
            detail: Some(capacity.verdicts.join("; ")),
            ..Entry::default()
        },
        None if cell.reps.is_empty() => missing_entry(analysis.cell(&cell.cell), &phase.name, true),
        None => Entry::plain("-"),
    };
    let bounds = |cell: &CellPhase| match &cell.capacity {
        Some(capacity) => {
            Entry { detail: Some(capacity.verdicts.join("; ")), ..Entry::plain(capacity.bounds_text(show)) }
        }
        None => Entry::plain(if cell.reps.is_empty() { "/" } else { "-" }),
    };
    let slo = phase.cells.iter().find_map(|cell| Some(cell.capacity.as_ref()?.slo.clone())).unwrap_or_default();
    vec![
        Row { label: format!("capacity (req/s) at {slo}"), entries: phase.cells.iter().map(capacity).collect() },
        Row {
            label: "capacity bounds: met–failed (req/s)".to_string(),
            entries: phase.cells.iter().map(bounds).collect(),
        },
    ]
}

/// The capacity's row of a capacity phase's table (the registry's capacity figure, above the others).
fn capacity_row() -> RowSpec {
    RowSpec {
        label: metric(CAPACITY).label.to_string(),
        keys: vec![CAPACITY],
        headline: true,
        shown_when: ShownWhen::Always,
    }
}

/// Latency against throughput over a ladder's or a search's steps: one row per requested rate, per cell the P99 and
/// the rate achieved; ★/≈ among the cells that sustained the rate in every repeat, the others marked as short.
/// None for a phase without steps.
pub fn curve_table(analysis: &Analysis, phase: &PhaseAnalysis) -> Option<Table> {
    let rates_of = |points: &dyn Fn(&CellPhase) -> Vec<&CurvePoint>| {
        let mut rates: Vec<f64> =
            phase.cells.iter().flat_map(|cell| points(cell).into_iter().map(|point| point.requested_rps)).collect();
        rates.sort_by(f64::total_cmp);
        rates.dedup();
        rates
    };
    let all = rates_of(&|cell| cell.curve.iter().collect());
    if all.is_empty() {
        return None;
    }
    // The rates some cell ran in every repeat; a search's per-repeat bisection steps would make a row each.
    let common = rates_of(&|cell| cell.common_curve().collect());
    let rates = if common.is_empty() { all.clone() } else { common };
    let rows = rates
        .iter()
        .map(|rate| Row {
            label: metric("rps").format.show(*rate),
            entries: phase
                .cells
                .iter()
                .map(|cell| match cell.curve.iter().find(|point| point.requested_rps == *rate) {
                    Some(point) => curve_entry(analysis, point),
                    None => Entry::plain("-"),
                })
                .collect(),
        })
        .collect();
    let mut notes = vec![
        "Each entry: P99 (ms, corrected) / achieved req/s, medians over the repeats that ran the rate. ★/≈ compare \
         the cells that sustained the rate in every repeat; \"short\" marks a cell that fell short of it (target) or \
         whose generator ran out (generator), never ranked."
            .to_string(),
    ];
    if rates.len() < all.len() {
        notes.push(format!(
            "{} rates that only some repeats ran (a capacity search bisects at different rates in each repeat) are left \
             out here; report.json has them under each cell's curve, and report.html draws them.",
            all.len() - rates.len()
        ));
    }
    let table = Table::of_cells(analysis, rows, notes);
    Some(Table { corner: table.corner.replacen("metrics", "requested req/s", 1), ..table })
}

fn curve_entry(analysis: &Analysis, point: &CurvePoint) -> Entry {
    let p99 = metric("p99_ms").format;
    let rps = metric("rps").format;
    let mut text = format!("{} / {}", p99.show(point.p99_ms.median), rps.show(point.achieved_rps.median));
    if let Some(side) = point.limited_by() {
        text += &format!(" short: {}", side.name());
    }
    let each: Vec<String> = point.p99_ms.values.iter().map(|ms| p99.show(*ms)).collect();
    let mut detail = format!("P99 in repeats {}: {} ms", join(&point.reps), each.join(", "));
    for limit in &point.limits {
        detail += &format!("; repeat {}: {} ({})", limit.rep, limit.reason, limit.side.name());
    }
    let mark = mark_of_standing(analysis, point.standing);
    Entry { text, mark, detail: Some(detail), value: Some(point.p99_ms.median), ..Entry::default() }
}

fn join(reps: &[u32]) -> String {
    reps.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
}

/// What the GC share is (and where it is jstat's GC time), then each GC-time figure shown beside it and why.
fn gc_share_notes(phase: &PhaseAnalysis) -> Vec<String> {
    let share = &phase.gc_share;
    std::iter::once(share.definition.clone()).chain(share.beside.iter().map(|beside| beside.why.clone())).collect()
}

/// One line per collector of the run whose jstat columns do not mean what their names say.
fn jstat_notes(analysis: &Analysis) -> Vec<String> {
    let mut notes: Vec<String> = analysis
        .cells
        .iter()
        .filter_map(|cell| jstat_columns_note(cell.collector.as_deref()?))
        .map(str::to_string)
        .collect();
    notes.sort();
    notes.dedup();
    notes
}

/// Fill and warm-up phases: throughput, P99 and errors only, never compared.
pub fn unmeasured_table(analysis: &Analysis) -> Option<Table> {
    let phases: Vec<&PhaseAnalysis> = analysis.phases.iter().filter(|phase| !phase.measured).collect();
    if phases.is_empty() {
        return None;
    }
    let rows = phases
        .iter()
        .flat_map(|phase| {
            let specs = row_specs(&ReportRow::UNMEASURED, false);
            rows(analysis, phase, &specs, &format!("{}: ", phase.name), true)
        })
        .collect();
    Some(Table::of_cells(analysis, rows, Vec::new()))
}

/// "Is it the GC?" for one measured phase: a row per cell (in cell order) with its verdict and the p99 and p99.9
/// tails against GC; under it each cell's verdict in words, its slowest requests that overlapped nothing, and its
/// repeats without an attribution. None when no cell measured the phase.
pub fn gc_attribution_table(analysis: &Analysis, phase: &PhaseAnalysis) -> Option<Table> {
    if phase.cells.iter().all(|cell| cell.reps.is_empty()) {
        return None;
    }
    let columns = [
        "verdict",
        "p99 tail: requests",
        "overlapped GC %",
        "chance %",
        "other safepoints %",
        "p99 → without GC (ms)",
        "p99.9 → without GC (ms)",
        "clock error (ms)",
    ];
    let mut notes = Vec::new();
    let rows = phase
        .cells
        .iter()
        .map(|cell| {
            let info = analysis.cell(&cell.cell);
            let entries = match &cell.gc_attribution {
                CellAttribution::Found(combined) => {
                    notes.extend(attribution_notes(&info.label, combined));
                    attribution_entries(combined)
                }
                CellAttribution::Missing { why } => std::iter::once(Entry { problem: true, ..Entry::plain(why) })
                    .chain((1..columns.len()).map(|_| Entry::plain("-")))
                    .collect(),
            };
            Row { label: info.label.clone(), entries }
        })
        .collect();
    let corner = format!("{} \\ is it the GC?", corner(analysis).trim_start_matches("metrics \\ "));
    let columns = columns.iter().map(|column| column.to_string()).collect();
    Some(Table { corner, columns, rows, notes, layout: Layout::CellRows })
}

fn attribution_entries(combined: &Combined) -> Vec<Entry> {
    let (p99, p999) = (&combined.p99, &combined.p999);
    let requests = if p99.examined < p99.requests {
        format!("{} ({} examined)", p99.requests, p99.examined)
    } else {
        p99.requests.to_string()
    };
    let without = |tail: &TailShare| {
        format!(
            "{} → {}",
            bound_ms(tail.percentile_at_most, tail.percentile_ms),
            bound_ms(tail.recomputed_at_most, tail.recomputed_ms)
        )
    };
    vec![
        Entry { detail: Some(combined.verdict.text.clone()), ..Entry::plain(kind_words(combined.verdict.kind)) },
        Entry::plain(requests),
        Entry { value: Some(overlap_share(p99)), ..Entry::plain(percent(overlap_share(p99))) },
        Entry::plain(percent(p99.gc_chance)),
        Entry::plain(percent(safepoint_share(p99))),
        Entry::plain(without(p99)),
        Entry::plain(without(p999)),
        Entry::plain(format_ms(combined.clock_error_ms)),
    ]
}

/// Under the table, per cell: its verdict in words, its slowest requests that overlapped no stop (the three
/// slowest), and its repeats without an attribution.
fn attribution_notes(label: &str, combined: &Combined) -> Vec<String> {
    let mut notes = vec![format!("{label}: {}", combined.verdict.text)];
    let shown = &combined.unexplained[..combined.unexplained.len().min(3)];
    if let Some(first) = shown.first() {
        // One request (a single URL, or one request of a mix) is named once.
        let name = |request: &TailRequest| format!(" ({})", request.request);
        let one_name = shown.iter().all(|slow| slow.request.request == first.request.request);
        let requests: Vec<String> = shown
            .iter()
            .map(|slow| {
                let request = &slow.request;
                let named = if one_name { String::new() } else { name(request) };
                format!("{} ms at {:.3} s of repeat {}{named}", format_ms(request.latency_ms), request.at_s, slow.rep)
            })
            .collect();
        let named = if one_name { name(&first.request) } else { String::new() };
        notes.push(format!("{label}: slowest requests that overlapped no stop{named}: {}", requests.join(", ")));
    }
    for missing in &combined.missing {
        notes.push(format!("{label}: repeat {} not included: {}", missing.rep, missing.why));
    }
    notes
}
