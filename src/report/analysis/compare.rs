//! `jload compare A B`: two results directories (cells matched by id), or two cells (`DIR:cell-id`), side by side per
//! common measured phase: both medians, the ratio, Welch's test over the repeats, and a verdict. A regression is a
//! figure worse in B by more than the threshold with significance (p < 0.05); only req/s, P50, P99, P99.9 and the
//! error share are judged (a maximum is one request, GC figures are causes, not outcomes), and for capacity searches
//! the capacity; rate ladders and searches are also compared step by step at each requested rate both sides ran
//! (P99 and achieved rate at equal load).

use std::fmt::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::capacity::{CellCapacity, cell_capacity};
use super::curves::cell_curve;
use super::memory::{cell_memory_of, rep_rss_life_peak_mb};
use super::metrics::{CAPACITY, METRICS, RepFigures, metric};
use super::stats::{Estimate, welch};
use crate::error::bad_input;
use crate::load::figures::{Judged, ShownWhen, View};
use crate::load::record::outcomes::Side;
use crate::results::{Results, ResultsDir};

/// The figures compared, in the registry's order, with `true` for the judged ones.
/// Whether the figure's report row is shown only where a cell has it (the box's figures).
fn only_when_present(key: &str) -> bool {
    metric(key).shown.iter().any(|view| matches!(view, View::Report(row) if row.shown_when() == ShownWhen::Present))
}

fn rows() -> impl Iterator<Item = (&'static str, bool)> {
    METRICS.iter().filter_map(|metric| {
        let judged = metric.shown_in(View::Compare(Judged::Yes));
        (judged || metric.shown_in(View::Compare(Judged::Context))).then_some((metric.key, judged))
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Worse in B beyond the threshold, with significance.
    Regression,
    /// Better in B beyond the threshold, with significance.
    Improvement,
    /// Significant but within the threshold.
    WithinThreshold,
    NotSignificant,
    /// Fewer than two repeats on a side: no test possible.
    Unqualified,
    /// A measured it, B did not (B crashed or failed before or during the phase): counts as a regression.
    MissingInB,
    /// A capacity a side cannot claim: its generator ran out in some repeat. Not compared, not a regression.
    GeneratorLimited,
    /// Not judged (shown for context).
    Shown,
}

impl Verdict {
    fn word(self) -> &'static str {
        match self {
            Verdict::Regression => "REGRESSION",
            Verdict::Improvement => "improvement",
            Verdict::WithinThreshold => "within threshold",
            Verdict::NotSignificant => "not significant",
            Verdict::Unqualified => "unqualified (1 repeat)",
            Verdict::MissingInB => "MISSING in B (crashed or failed)",
            Verdict::GeneratorLimited => "not compared: generator-limited",
            Verdict::Shown => "",
        }
    }
}

#[derive(Debug, Serialize)]
pub struct Line {
    pub metric: &'static str,
    pub a: Option<Estimate>,
    pub b: Option<Estimate>,
    /// B median / A median.
    pub ratio: Option<f64>,
    /// Two-sided p of Welch's test.
    pub p: Option<f64>,
    pub verdict: Verdict,
}

#[derive(Debug, Serialize)]
pub struct PhaseComparison {
    pub a_cell: String,
    pub b_cell: String,
    pub phase: String,
    pub lines: Vec<Line>,
    /// Each side's box (`512m / 0.5 CPU`) and the repeats its memory limit killed; None for cells without a box.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub boxes: Option<[SideBox; 2]>,
    /// Rate ladders and capacity searches: at each requested rate both sides ran, P99 and the achieved rate.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<StepComparison>,
}

/// One side's box and the repeats its memory limit killed.
#[derive(Debug, Clone, Serialize)]
pub struct SideBox {
    #[serde(rename = "box")]
    pub label: Option<String>,
    pub killed_reps: Vec<u32>,
}

impl SideBox {
    fn of(results: &Results, cell: &str) -> Option<SideBox> {
        let memory = cell_memory_of(results, results.summary.cell(cell)?)?;
        Some(SideBox { label: memory.box_label, killed_reps: memory.killed_reps })
    }
}

/// `box: A 256m / 1.5 CPU, B 384m; B killed by the memory limit in repeat 2`.
fn boxes_line([a, b]: &[SideBox; 2]) -> String {
    let label = |side: &SideBox| side.label.clone().unwrap_or_else(|| "no box".to_string());
    let mut text = format!("box: A {}, B {}", label(a), label(b));
    for (name, side) in [("A", a), ("B", b)].into_iter().filter(|(_, side)| !side.killed_reps.is_empty()) {
        let reps: Vec<String> = side.killed_reps.iter().map(u32::to_string).collect();
        let plural = if reps.len() > 1 { "s" } else { "" };
        text += &format!("; {name} killed by the memory limit in repeat{plural} {}", reps.join(", "));
    }
    text
}

/// Both sides at one requested rate (equal load).
#[derive(Debug, Serialize)]
pub struct StepComparison {
    pub requested_rps: f64,
    pub lines: Vec<Line>,
}

impl PhaseComparison {
    fn all_lines(&self) -> impl Iterator<Item = &Line> {
        self.lines.iter().chain(self.steps.iter().flat_map(|step| &step.lines))
    }
}

#[derive(Debug, Serialize)]
pub struct Comparison {
    pub a: String,
    pub b: String,
    /// Relative change that counts, e.g. 0.05.
    pub threshold: f64,
    pub phases: Vec<PhaseComparison>,
    /// The one-line conclusion the text output ends with.
    pub conclusion: String,
}

impl Comparison {
    pub fn regressions(&self) -> usize {
        let failing = |verdict: Verdict| matches!(verdict, Verdict::Regression | Verdict::MissingInB);
        self.phases.iter().flat_map(PhaseComparison::all_lines).filter(|line| failing(line.verdict)).count()
    }

    /// Lines of judged figures that could not be tested (a side with one repeat).
    fn unqualified_lines(&self) -> impl Iterator<Item = &Line> {
        self.phases.iter().flat_map(PhaseComparison::all_lines).filter(|line| line.verdict == Verdict::Unqualified)
    }

    /// Why nothing can be qualified, in one line, or None when every judged figure was tested: which side has too
    /// few repeats.
    pub fn why_unqualified(&self) -> Option<String> {
        let few = |estimate: &Option<Estimate>| estimate.as_ref().is_some_and(|estimate| estimate.n < 2);
        let (mut a_few, mut b_few) = (false, false);
        for line in self.unqualified_lines() {
            a_few |= few(&line.a);
            b_few |= few(&line.b);
        }
        let sides = match (a_few, b_few) {
            (false, false) => return None,
            (true, false) => "A has",
            (false, true) => "B has",
            (true, true) => "A and B have",
        };
        Some(format!(
            "{sides} a single repeat, and significance needs at least 2 repeats on each side; run with --repeats 3"
        ))
    }

    /// The verdict over every phase, in one line.
    fn conclude(&self) -> String {
        let settled =
            |verdict: Verdict| !matches!(verdict, Verdict::Unqualified | Verdict::Shown | Verdict::GeneratorLimited);
        let judged =
            self.phases.iter().flat_map(PhaseComparison::all_lines).filter(|line| settled(line.verdict)).count();
        let untested = self.unqualified_lines().count();
        if judged == 0 && untested > 0 {
            return "nothing could be judged (one repeat)".to_string();
        }
        let verdict = match self.regressions() {
            0 => "no significant regression beyond the threshold".to_string(),
            count => format!("{count} significant regression(s) beyond the threshold"),
        };
        let verdict = match untested {
            0 => verdict,
            _ => format!("{verdict}; {untested} figure(s) could not be tested (one repeat)"),
        };
        let lines = || self.phases.iter().flat_map(PhaseComparison::all_lines);
        match lines().filter(|line| line.verdict == Verdict::GeneratorLimited).count() {
            0 => verdict,
            count => format!("{verdict}; {count} capacity figure(s) not compared: the generator ran out"),
        }
    }
}

/// `DIR` or `DIR:cell-id` (a cell id may itself hold colons: `gc=-XX:+UseG1GC`, so the directory is the shortest
/// prefix that is a results directory).
pub fn parse_side(arg: &str) -> anyhow::Result<(PathBuf, Option<String>)> {
    if ResultsDir::new(PathBuf::from(arg)).holds_results() || Path::new(arg).is_dir() {
        return Ok((PathBuf::from(arg), None));
    }
    for (index, _) in arg.match_indices(':') {
        let dir = ResultsDir::new(PathBuf::from(&arg[..index]));
        if dir.holds_results() {
            return Ok((dir.root, Some(arg[index + 1..].to_string())));
        }
    }
    Err(bad_input(format!("{arg}: not a results directory, nor DIR:cell-id with DIR a results directory")))
}

/// Most cells whose ids an error lists; beyond, it names each axis's labels instead.
const CELLS_LISTED: usize = 8;

fn check_cell(results: &Results, side: &str, id: &str) -> anyhow::Result<()> {
    if results.summary.cells.iter().any(|cell| cell.id == id) {
        return Ok(());
    }
    Err(bad_input(format!("unknown cell '{id}' in {side} ({}); {}", results.dir.root.display(), cells_hint(results))))
}

/// The cells a run has, short enough for one line: their ids, or for many cells each axis's labels and one id.
fn cells_hint(results: &Results) -> String {
    let cells = &results.summary.cells;
    if cells.len() <= CELLS_LISTED {
        let ids: Vec<&str> = cells.iter().map(|cell| cell.id.as_str()).collect();
        return format!("its cells: {}", ids.join(" | "));
    }
    let axes: Vec<String> = results
        .summary
        .axes
        .iter()
        .map(|axis| {
            let mut labels: Vec<&str> = Vec::new();
            for label in cells.iter().filter_map(|cell| cell.axes.get(axis)) {
                if !labels.contains(&label.as_str()) {
                    labels.push(label);
                }
            }
            format!("{axis} = {}", labels.join(" | "))
        })
        .collect();
    format!("its {} cells combine {}; e.g. {}", cells.len(), axes.join("; "), cells[0].id)
}

/// The cells to compare: the named ones, or the cells both runs have (a single cell each pairs up anyway).
fn pairs(
    a: &Results,
    a_cell: Option<&str>,
    b: &Results,
    b_cell: Option<&str>,
) -> anyhow::Result<Vec<(String, String)>> {
    let ids = |results: &Results| -> Vec<String> { results.summary.cells.iter().map(|cell| cell.id.clone()).collect() };
    let (a_ids, b_ids) = (ids(a), ids(b));
    let pick_other = |named: &str, other: &[String]| -> Option<String> {
        if other.iter().any(|id| id == named) {
            Some(named.to_string())
        } else if other.len() == 1 {
            Some(other[0].clone())
        } else {
            None
        }
    };
    if let Some(a_id) = a_cell {
        check_cell(a, "A", a_id)?;
    }
    if let Some(b_id) = b_cell {
        check_cell(b, "B", b_id)?;
    }
    let found = match (a_cell, b_cell) {
        (Some(a_id), Some(b_id)) => vec![(a_id.to_string(), b_id.to_string())],
        (Some(a_id), None) => match pick_other(a_id, &b_ids) {
            Some(b_id) => vec![(a_id.to_string(), b_id)],
            None => return Err(check_cell(b, "B", a_id).expect_err("B has no such cell")),
        },
        (None, Some(b_id)) => match pick_other(b_id, &a_ids) {
            Some(a_id) => vec![(a_id, b_id.to_string())],
            None => return Err(check_cell(a, "A", b_id).expect_err("A has no such cell")),
        },
        (None, None) => {
            let common: Vec<(String, String)> =
                a_ids.iter().filter(|id| b_ids.contains(id)).map(|id| (id.clone(), id.clone())).collect();
            if common.is_empty() && a_ids.len() == 1 && b_ids.len() == 1 {
                vec![(a_ids[0].clone(), b_ids[0].clone())]
            } else {
                common
            }
        }
    };
    if found.is_empty() {
        return Err(bad_input(format!(
            "A and B have no cell in common (A: {}; B: {}); name the cells as DIR:cell-id",
            a_ids.join(" | "),
            b_ids.join(" | ")
        )));
    }
    Ok(found)
}

fn estimate(results: &Results, cell: &str, phase: &str, key: &str) -> Option<Estimate> {
    let summary = results.summary.cell(cell)?;
    let measured = summary.measurements(phase);
    let read = &metric(key).read;
    let figures = |rep: u32, record| {
        let rss_life_peak_mb = (key == "rss_peak_mb").then(|| rep_rss_life_peak_mb(results, summary, rep)).flatten();
        RepFigures { rep, record, alloc_mb_s: None, rss_life_peak_mb }
    };
    Estimate::of(measured.into_iter().filter_map(|(rep, record)| read(&figures(rep, record))).collect())
}

/// The capacities of two cells' searches, by the report's rule (`capacity.rs`): none for a side whose generator ran
/// out in any repeat, and then no verdict either. None when neither side searched.
fn capacity_line(sides: [(&Results, &str); 2], phase: &str, threshold: f64) -> Option<Line> {
    let [a, b] = sides.map(|(results, cell)| cell_capacity(&results.summary.measurements(cell, phase)));
    if a.is_none() && b.is_none() {
        return None;
    }
    let generator =
        |capacity: &Option<CellCapacity>| capacity.as_ref().is_some_and(|c| c.limited_by == Side::Generator);
    let (a_generator, b_generator) = (generator(&a), generator(&b));
    let [a, b] = [a, b].map(|capacity| capacity.and_then(|capacity| capacity.estimate));
    if a_generator || b_generator {
        return Some(Line { metric: CAPACITY, a, b, ratio: None, p: None, verdict: Verdict::GeneratorLimited });
    }
    Some(line(CAPACITY, true, a, b, threshold))
}

/// At each requested rate both sides ran in every repeat: P99 (judged) and the achieved rate (judged), at equal load.
fn step_comparisons(
    a: &Results,
    a_cell: &str,
    b: &Results,
    b_cell: &str,
    phase: &str,
    threshold: f64,
) -> Vec<StepComparison> {
    // Only rates every repeat of a side ran: a capacity search bisects at different rates in each repeat.
    let curve = |results: &Results, cell: &str| {
        let measured = results.summary.measurements(cell, phase);
        let mut curve = cell_curve(&measured);
        curve.retain(|point| point.reps.len() == measured.len());
        curve
    };
    let (a_curve, b_curve) = (curve(a, a_cell), curve(b, b_cell));
    a_curve
        .into_iter()
        .filter_map(|a_point| {
            let b_point = b_curve.iter().find(|point| point.requested_rps == a_point.requested_rps)?.clone();
            let lines = vec![
                line("p99_ms", true, Some(a_point.p99_ms), Some(b_point.p99_ms), threshold),
                line("rps", true, Some(a_point.achieved_rps), Some(b_point.achieved_rps), threshold),
            ];
            Some(StepComparison { requested_rps: a_point.requested_rps, lines })
        })
        .collect()
}

fn line(key: &'static str, judged: bool, a: Option<Estimate>, b: Option<Estimate>, threshold: f64) -> Line {
    let ratio = match (&a, &b) {
        (Some(a), Some(b)) if a.median != 0.0 => Some(b.median / a.median),
        _ => None,
    };
    let test = match (&a, &b) {
        (Some(a), Some(b)) => welch(&a.values, &b.values),
        _ => None,
    };
    let verdict = match (judged, &a, &b, test, metric(key).better) {
        (true, Some(_), None, ..) => Verdict::MissingInB,
        (false, ..) | (_, None, ..) | (.., None) => Verdict::Shown,
        (true, _, _, None, Some(_)) => Verdict::Unqualified,
        (true, Some(a), Some(b), Some(test), Some(better)) => {
            let change = if a.median == 0.0 {
                if b.median == 0.0 { 0.0 } else { f64::INFINITY }
            } else {
                (b.median - a.median).abs() / a.median
            };
            match (test.significant(), change > threshold, better.prefers(a.median, b.median)) {
                (false, ..) => Verdict::NotSignificant,
                (true, false, _) => Verdict::WithinThreshold,
                (true, true, true) => Verdict::Regression,
                (true, true, false) => Verdict::Improvement,
            }
        }
    };
    Line { metric: key, p: test.map(|test| test.p), a, b, ratio, verdict }
}

/// Compare every common measured phase of every cell pair.
pub fn compare(a_arg: &str, b_arg: &str, threshold: f64) -> anyhow::Result<Comparison> {
    let (a_dir, a_cell) = parse_side(a_arg)?;
    let (b_dir, b_cell) = parse_side(b_arg)?;
    let (a, b) = (Results::open(&a_dir)?, Results::open(&b_dir)?);
    let mut phases = Vec::new();
    for (a_id, b_id) in pairs(&a, a_cell.as_deref(), &b, b_cell.as_deref())? {
        for (phase, measured) in &a.summary.phases {
            if !measured || !b.summary.phases.iter().any(|(name, measured)| name == phase && *measured) {
                continue;
            }
            let lines = rows()
                .filter_map(|(key, judged)| match key {
                    CAPACITY => capacity_line([(&a, &a_id), (&b, &b_id)], phase, threshold),
                    _ => {
                        let (a_figure, b_figure) = (estimate(&a, &a_id, phase, key), estimate(&b, &b_id, phase, key));
                        // A box's figure neither side has (no box) is left out, as in the report's tables.
                        let absent = a_figure.is_none() && b_figure.is_none() && only_when_present(key);
                        (!absent).then(|| line(key, judged, a_figure, b_figure, threshold))
                    }
                })
                .collect();
            let boxes = match (SideBox::of(&a, &a_id), SideBox::of(&b, &b_id)) {
                (None, None) => None,
                (a_box, b_box) => {
                    let none = || SideBox { label: None, killed_reps: Vec::new() };
                    Some([a_box.unwrap_or_else(none), b_box.unwrap_or_else(none)])
                }
            };
            let steps = step_comparisons(&a, &a_id, &b, &b_id, phase, threshold);
            phases.push(PhaseComparison {
                a_cell: a_id.clone(),
                b_cell: b_id.clone(),
                phase: phase.clone(),
                lines,
                boxes,
                steps,
            });
        }
    }
    if phases.is_empty() {
        return Err(bad_input(format!("{a_arg} and {b_arg} have no measured phase in common")));
    }
    let mut comparison =
        Comparison { a: a_arg.to_string(), b: b_arg.to_string(), threshold, phases, conclusion: String::new() };
    comparison.conclusion = comparison.conclude();
    Ok(comparison)
}

fn shown(key: &str, estimate: &Option<Estimate>) -> String {
    estimate
        .as_ref()
        .map_or("-".to_string(), |estimate| format!("{} (n={})", metric(key).format.show(estimate.median), estimate.n))
}

/// The text tables.
pub fn render(comparison: &Comparison) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "A: {}\nB: {}\nthreshold {:.1} %, significance: Welch's t-test over repeats, p < 0.05; judged: {}",
        comparison.a,
        comparison.b,
        comparison.threshold * 100.0,
        judged_labels(comparison).join(", ")
    );
    for phase in &comparison.phases {
        let cells = if phase.a_cell == phase.b_cell {
            phase.a_cell.clone()
        } else {
            format!("{} vs {}", phase.a_cell, phase.b_cell)
        };
        let _ = writeln!(out, "\n{cells}, phase {}", phase.phase);
        if let Some(boxes) = &phase.boxes {
            let _ = writeln!(out, "  {}", boxes_line(boxes));
        }
        let mut rows = vec![[
            "figure".to_string(),
            "A".to_string(),
            "B".to_string(),
            "B/A".to_string(),
            "p".to_string(),
            "verdict".to_string(),
        ]];
        let steps = phase.steps.iter().flat_map(|step| {
            let rate = metric("rps").format.show(step.requested_rps);
            step.lines.iter().map(move |line| (format!("at {rate} req/s: {}", step_label(line.metric)), line))
        });
        let figures = phase.lines.iter().map(|line| (metric(line.metric).label.to_string() + unit(line.metric), line));
        for (label, line) in figures.chain(steps) {
            rows.push([
                label,
                shown(line.metric, &line.a),
                shown(line.metric, &line.b),
                line.ratio.map_or("-".to_string(), |ratio| format!("{ratio:.3}")),
                line.p.map_or("-".to_string(), |p| format!("{p:.3}")),
                verdict_word(line.verdict, phase.boxes.as_ref()).to_string(),
            ]);
        }
        let widths: Vec<usize> =
            (0..6).map(|column| rows.iter().map(|row| row[column].chars().count()).max().unwrap_or(0)).collect();
        for row in &rows {
            let cells: Vec<String> = row.iter().zip(&widths).map(|(cell, width)| format!("{cell:<width$}")).collect();
            let _ = writeln!(out, "  {}", cells.join("  ").trim_end());
        }
    }
    let _ = writeln!(out, "\n{}", comparison.conclusion);
    out
}

/// A line's verdict in words; a phase B lost because its box's memory limit killed it says so.
fn verdict_word(verdict: Verdict, boxes: Option<&[SideBox; 2]>) -> &'static str {
    match (verdict, boxes) {
        (Verdict::MissingInB, Some([_, b])) if !b.killed_reps.is_empty() => "MISSING in B (killed by the memory limit)",
        _ => verdict.word(),
    }
}

/// The judged figures' labels, capacity only when a side searched for it.
fn judged_labels(comparison: &Comparison) -> Vec<&'static str> {
    let searched = comparison.phases.iter().flat_map(|phase| &phase.lines).any(|line| line.metric == CAPACITY);
    rows().filter(|(key, judged)| *judged && (*key != CAPACITY || searched)).map(|(key, _)| metric(key).label).collect()
}

/// A step's figure: its P99, or the rate it achieved.
fn step_label(key: &str) -> String {
    match key {
        "rps" => "achieved req/s".to_string(),
        _ => metric(key).label.to_string() + unit(key),
    }
}

fn unit(key: &str) -> &'static str {
    match metric(key).format {
        super::metrics::Format::Ms => " (ms)",
        super::metrics::Format::Megabytes => " (MB)",
        _ => "",
    }
}

/// `5%`, `5` or `2.5 %` → 0.05 / 0.025.
pub fn parse_threshold(text: &str) -> anyhow::Result<f64> {
    let number = text.trim().trim_end_matches('%').trim();
    match number.parse::<f64>() {
        Ok(percent) if percent.is_finite() && percent >= 0.0 => Ok(percent / 100.0),
        _ => Err(bad_input(format!("--threshold '{text}': write a percentage such as 5% or 2.5%"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds() {
        assert_eq!(parse_threshold("5%").unwrap(), 0.05);
        assert_eq!(parse_threshold("2.5 %").unwrap(), 0.025);
        assert_eq!(parse_threshold("10").unwrap(), 0.1);
        assert!(parse_threshold("five").is_err());
        assert!(parse_threshold("-5%").is_err());
    }

    #[test]
    fn verdicts() {
        let of = |values: &[f64]| Estimate::of(values.to_vec());
        let slower = line("rps", true, of(&[100.0, 101.0, 99.0]), of(&[80.0, 81.0, 79.0]), 0.05);
        assert_eq!(slower.verdict, Verdict::Regression);
        assert!((slower.ratio.unwrap() - 0.8).abs() < 1e-12);
        let faster = line("rps", true, of(&[80.0, 81.0, 79.0]), of(&[100.0, 101.0, 99.0]), 0.05);
        assert_eq!(faster.verdict, Verdict::Improvement);
        let small = line("rps", true, of(&[100.0, 100.1, 99.9]), of(&[98.0, 98.1, 97.9]), 0.05);
        assert_eq!(small.verdict, Verdict::WithinThreshold, "2 % is real but under 5 %");
        let noise = line("p99_ms", true, of(&[10.0, 14.0, 12.0]), of(&[13.0, 9.0, 15.0]), 0.05);
        assert_eq!(noise.verdict, Verdict::NotSignificant);
        let single = line("p99_ms", true, of(&[10.0]), of(&[20.0]), 0.05);
        assert_eq!(single.verdict, Verdict::Unqualified);
        let crashed = line("rps", true, of(&[100.0, 101.0]), None, 0.05);
        assert_eq!(crashed.verdict, Verdict::MissingInB);
        let context = line("max_ms", false, of(&[10.0, 11.0]), of(&[90.0, 91.0]), 0.05);
        assert_eq!(context.verdict, Verdict::Shown);
        // Higher latency is worse: a regression.
        let slower_p99 = line("p99_ms", true, of(&[10.0, 10.5, 9.5]), of(&[20.0, 21.0, 19.0]), 0.05);
        assert_eq!(slower_p99.verdict, Verdict::Regression);
        // From no errors to some, consistently: a regression with no finite ratio.
        let errors = line("error_pct", true, of(&[0.0, 0.0, 0.0]), of(&[1.0, 1.2, 0.9]), 0.05);
        assert_eq!((errors.verdict, errors.ratio), (Verdict::Regression, None));
    }
}
