//! The recommendation of a measured phase, each line with the numbers that justify it: the best cell for
//! throughput and for p99 (with the cells not distinguishable from it, and whether their latencies were measured at
//! comparable load) — or, in a capacity phase, the highest capacity against the cheapest cell's and the cells whose
//! generator ran out — the cheapest configuration on the plan's cost axis that meets the SLO (in a capacity phase:
//! whose capacity is not distinguishable from the highest), the cells that failed the SLO, the cells the memory limit
//! killed and the cells that crashed, and for cells in a box or with native memory figures the memory each needs.
//!
//! "Cheapest" follows the cost axis (`run.cost_axis`, default the first axis): when every label on it names a JVM
//! size (`-Xmx64m`, `512m`, `2g`) the smallest size, otherwise the label listed first in the plan.

use super::curves::CurvePoint;
use super::equal_load::PhaseKind;
use super::memory::OTHER_SHARE;
use super::metrics::{CAPACITY, metric, ranked_headlines};
use super::model::{Analysis, AxisInfo, CellInfo, CellPhase, Finding, Kind, PhaseAnalysis, Problem, Recommendation};
use super::stats::{Better, Estimate, Standing};
use crate::load::record::outcomes::Side;
use crate::report::words::megabytes_up;
use crate::results::Status;
use crate::units::first_jvm_size_bytes;

/// `12345 req/s (95 % CI 12000–12700)` or `12345 req/s` with one repeat.
fn with_ci(estimate: &Estimate, key: &str, unit: &str) -> String {
    let format = metric(key).format;
    let ci = estimate
        .ci
        .map(|[low, high]| format!(" (95 % CI {}–{})", format.show(low.max(0.0)), format.show(high)))
        .unwrap_or_default();
    format!("{}{unit}{ci}", format.show(estimate.median))
}

pub fn recommend(analysis: &Analysis, phase: &PhaseAnalysis) -> Recommendation {
    let mut findings = Vec::new();
    if phase.kind == PhaseKind::Capacity {
        findings.extend(highest_capacity(analysis, phase));
        findings.extend(generator_limited(analysis, phase));
    } else {
        match all_held_the_rate(phase) {
            Some(finding) => findings.push(finding),
            None => findings.extend(best(analysis, phase, "rps", Kind::Throughput, "Best throughput", " req/s")),
        }
        match best(analysis, phase, "p99_ms", Kind::P99, "Best P99", " ms") {
            Some(mut finding) => {
                if let Some(note) = &phase.equal_load_note {
                    finding.text += &format!(". {note}");
                }
                findings.push(finding);
            }
            None => findings.extend(phase.equal_load_note.as_ref().map(|note| Finding {
                kind: Kind::P99,
                cell: None,
                text: format!("Best P99: none ranked. {note}"),
            })),
        }
        findings.extend(best_at_equal_load(analysis, phase));
    }
    findings.push(cheapest(analysis, phase));
    let slo = analysis.slo.join(", ");
    for cell in phase.cells.iter().filter(|cell| cell.slo.is_some_and(|verdict| !verdict.met) && !cell.reps.is_empty())
    {
        let verdict = cell.slo.expect("filtered");
        let info = analysis.cell(&cell.cell);
        let mut text = format!("Failed the SLO ({slo}): {} — P99 {}", info.label, figure(cell, "p99_ms", " ms"));
        text += &format!(", errors {}", figure(cell, "error_pct", " %"));
        text += &format!("; passed in {} of {} repeats", verdict.reps_passed, verdict.reps_judged);
        if info.status != Status::Ok {
            text += &format!("; {} of {} repeats ran to the end", info.reps_ok, info.reps);
        }
        findings.push(Finding { kind: Kind::FailedSlo, cell: Some(cell.cell.clone()), text });
    }
    for info in analysis.cells.iter().filter(|info| matches!(info.status, Status::Crashed | Status::Failed)) {
        for problem in &info.problems {
            findings.push(match killed_by_the_memory_limit(info, problem) {
                Some(text) => Finding { kind: Kind::MemoryLimit, cell: Some(info.id.clone()), text },
                None => {
                    let text = format!("{}: {}", info.label, problem.describe(info.reps));
                    Finding { kind: Kind::Crashed, cell: Some(info.id.clone()), text }
                }
            });
        }
    }
    findings.extend(analysis.cells.iter().filter_map(memory_needed));
    Recommendation { findings }
}

/// `-Xmx384m G1 in 512m: killed by the memory limit … (during get, in repeat 1)`: a problem whose repeats the memory
/// limit killed, with the cause as recorded. None for any other problem.
fn killed_by_the_memory_limit(info: &CellInfo, problem: &Problem) -> Option<String> {
    if !problem.memory_limit {
        return None;
    }
    let in_box = info.memory.as_ref().and_then(|memory| memory.box_label.as_ref());
    let in_box = in_box.map(|label| format!(" in {label}")).unwrap_or_default();
    let during = problem.phase.as_ref().map(|phase| format!("during {phase}, ")).unwrap_or_default();
    let reps: Vec<String> = problem.reps.iter().map(u32::to_string).collect();
    let plural = if reps.len() > 1 { "s" } else { "" };
    Some(format!("{}{in_box}: {} ({during}in repeat{plural} {})", info.label, problem.cause, reps.join(", ")))
}

/// `Memory: -Xmx128m G1 in 512m needs ≥ 445 MB: RSS peak 441 MB over the JVM's whole life, box peak 445 MB of 512 MB
/// (headroom 67 MB, 13.1 %); committed: Other 264, Java Heap 128, GC 41, other 22 MB` — for a cell with a memory
/// section that the memory limit did not kill.
fn memory_needed(info: &CellInfo) -> Option<Finding> {
    let memory = info.memory.as_ref().filter(|memory| memory.killed_reps.is_empty())?;
    let needs = megabytes_up(memory.needs?);
    let figures = &memory.figures;
    let in_box = memory.box_label.as_ref().map(|label| format!(" in {label}")).unwrap_or_default();
    let mut parts = Vec::new();
    if let Some(rss) = figures.rss_peak {
        parts.push(format!("RSS peak {} MB over the JVM's whole life", megabytes_up(rss)));
    }
    if let Some(peak) = figures.peak {
        let mut text = format!("box peak {} MB", megabytes_up(peak));
        if let (Some(limit), Some(headroom), Some(pct)) = (figures.limit, memory.headroom, memory.headroom_pct) {
            text += &format!(" of {} MB (headroom {} MB, {pct:.1} %)", limit >> 20, headroom / (1 << 20));
        }
        parts.push(text);
    }
    if let (Some(anon), Some(_)) = (memory.anon_peak, figures.peak) {
        parts.push(format!("{} MB of it anonymous, the rest page cache the kernel reclaims", megabytes_up(anon)));
    }
    let mut text = format!("Memory: {}{in_box} needs ≥ {needs} MB: {}", info.label, parts.join(", "));
    let committed = memory.committed_by_category(OTHER_SHARE);
    if !committed.is_empty() {
        let categories: Vec<String> =
            committed.iter().map(|(name, bytes)| format!("{name} {}", megabytes_up(*bytes))).collect();
        text += &format!("; native memory committed: {} MB", categories.join(", "));
    }
    Some(Finding { kind: Kind::Memory, cell: Some(info.id.clone()), text })
}

fn figure(cell: &CellPhase, key: &str, unit: &str) -> String {
    cell.figure(key).map_or("-".to_string(), |estimate| with_ci(estimate, key, unit))
}

fn best(analysis: &Analysis, phase: &PhaseAnalysis, key: &str, kind: Kind, title: &str, unit: &str) -> Option<Finding> {
    let winner = phase.cells.iter().find(|cell| cell.standing.get(key) == Some(&Standing::Best))?;
    let label = &analysis.cell(&winner.cell).label;
    let mut text = format!("{title}: {label}, {}", figure(winner, key, unit));
    let others: Vec<&CellPhase> =
        phase.cells.iter().filter(|cell| cell.standing.contains_key(key) && cell.cell != winner.cell).collect();
    let equals: Vec<String> = others
        .iter()
        .filter_map(|cell| match cell.standing[key] {
            Standing::Indistinguishable { p } => {
                Some(format!("{} ({}, p = {p:.2})", analysis.cell(&cell.cell).label, figure(cell, key, unit)))
            }
            _ => None,
        })
        .collect();
    if others.is_empty() {
        text += "; the only cell measured";
    } else {
        text += &against_the_rest(&how_the_untested_stand(winner, &others, key), &equals);
    }
    Some(Finding { kind, cell: Some(winner.cell.clone()), text })
}

/// How the cells with too few repeats to test stand beside the best on `key`: none, all more than [`LAUNCH_SPREAD`]
/// worse than the best while other cells were tested (the contenders a confirmation measured again), or in doubt.
#[derive(Debug, PartialEq)]
enum Untested {
    None,
    BeyondTheSpread(Better),
    InDoubt,
}

fn how_the_untested_stand(winner: &CellPhase, others: &[&CellPhase], key: &str) -> Untested {
    let untested: Vec<&&CellPhase> =
        others.iter().filter(|cell| cell.standing.get(key) == Some(&Standing::Unqualified)).collect();
    if untested.is_empty() {
        return Untested::None;
    }
    let tested = others.iter().any(|cell| {
        matches!(cell.standing.get(key), Some(Standing::Indistinguishable { .. } | Standing::Worse { .. }))
    });
    let best = winner.figures[key].median;
    let beyond = untested.iter().all(|cell| {
        cell.figures.get(key).is_some_and(|estimate| !within_the_launch_spread(key, estimate.median, best))
    });
    let better = metric(key).better.expect("a headline has a direction");
    if tested && beyond { Untested::BeyondTheSpread(better) } else { Untested::InDoubt }
}

/// Whether `median` is no further from `best` on `key` than [`LAUNCH_SPREAD`], on the worse side of it.
fn within_the_launch_spread(key: &str, median: f64, best: f64) -> bool {
    match metric(key).better.expect("a headline has a direction") {
        Better::Higher => median * (1.0 + LAUNCH_SPREAD) >= best,
        Better::Lower => median <= best * (1.0 + LAUNCH_SPREAD),
    }
}

/// `-Xmx256m G1 sustains 42000 req/s (95 % CI …) at p99<=10ms, 1.8× -Xmx64m G1 (23000 req/s)`: the best capacity,
/// against the cheapest cell on the cost axis with a capacity (or, when that is the best, the lowest capacity), and
/// the cells not distinguishable from it.
fn highest_capacity(analysis: &Analysis, phase: &PhaseAnalysis) -> Option<Finding> {
    let finding = best(analysis, phase, CAPACITY, Kind::Capacity, "Highest capacity", " req/s")?;
    let winner = phase.cells.iter().find(|cell| cell.standing.get(CAPACITY) == Some(&Standing::Best))?;
    let capacity = |cell: &CellPhase| cell.figure(CAPACITY).map(|estimate| estimate.median);
    let best_rps = capacity(winner)?;
    let slo = winner.capacity.as_ref().map_or(String::new(), |capacity| capacity.slo.clone());
    let label = |cell: &CellPhase| analysis.cell(&cell.cell).label.clone();
    let others: Vec<&CellPhase> =
        phase.cells.iter().filter(|cell| cell.cell != winner.cell && capacity(cell).is_some()).collect();
    let reference =
        cheapest_of(analysis, &others).filter(|cell| capacity(cell).is_some_and(|rps| rps < best_rps)).or_else(|| {
            others.iter().copied().min_by(|a, b| capacity(a).unwrap_or(0.0).total_cmp(&capacity(b).unwrap_or(0.0)))
        });
    let mut text =
        format!("Highest capacity: {} sustains {} at {slo}", label(winner), figure(winner, CAPACITY, " req/s"));
    if let Some(reference) = reference
        && let Some(rps) = capacity(reference).filter(|rps| *rps > 0.0)
    {
        let shown = metric(CAPACITY).format.show(rps);
        text += &format!(", {:.1}× {} ({shown} req/s)", best_rps / rps, label(reference));
    }
    let runner_up =
        others.iter().copied().max_by(|a, b| capacity(a).unwrap_or(0.0).total_cmp(&capacity(b).unwrap_or(0.0)));
    let untested = |cell: &&CellPhase| cell.standing.get(CAPACITY) == Some(&Standing::Unqualified);
    let qualifier = match runner_up.filter(untested) {
        Some(runner_up) => {
            let bounds = |cell: &CellPhase| cell.capacity.as_ref().map_or([None, None], |capacity| capacity.bounds);
            Some(against_the_runner_up(bounds(winner)[0], bounds(runner_up)[1], &label(runner_up), winner.reps.len()))
        }
        None => finding.text.split_once("; ").map(|(_, rest)| rest.to_string()),
    };
    if let Some(qualifier) = qualifier {
        text += &format!("; {qualifier}");
    }
    Some(Finding { text, ..finding })
}

/// How much one JVM's capacity may differ from another launch's of the same configuration on the same machine:
/// `bench/launch-spread.sh` found one kv-service launch in four 29 % faster than the other three (docs/benchmarks.md,
/// "how much one launch differs from the next"). One search per cell is one launch per cell, so its bounds tell two
/// cells apart only by more than this.
pub const LAUNCH_SPREAD: f64 = 0.3;

/// The most cells that contend for a phase's best on one figure: the best and two more.
pub const CONTENDERS_MOST: usize = 3;

/// The cells that contend for a measured phase's best on each figure it ranks, which `run.confirm` measures again:
/// the best, the cells Welch's test cannot tell from it, and the cells with too few repeats to test that are the
/// runner-up or whose median is within [`LAUNCH_SPREAD`] of the best's — at most [`CONTENDERS_MOST`] a figure, the
/// closest first. Throughput is no figure to contend on where every cell held the requested rate, nor P99 where
/// closed-model cells ran at loads too different to compare their latencies.
pub fn contenders(phase: &PhaseAnalysis) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    if !phase.measured {
        return ids;
    }
    let rate_held = all_held_the_rate(phase).is_some();
    let latency_incomparable = phase.kind == PhaseKind::Closed && phase.equal_load_note.is_some();
    let contended = |key: &&str| match *key {
        "rps" => !rate_held,
        "p99_ms" => !latency_incomparable,
        _ => true,
    };
    for key in ranked_headlines(phase.kind).filter(contended) {
        let Some(best) = phase.cells.iter().find(|cell| cell.standing.get(key) == Some(&Standing::Best)) else {
            continue;
        };
        let best_median = best.figures[key].median;
        let mut others: Vec<(&CellPhase, f64, &Standing)> = phase
            .cells
            .iter()
            .filter(|cell| cell.cell != best.cell)
            .filter_map(|cell| Some((cell, cell.figures.get(key)?.median, cell.standing.get(key)?)))
            .collect();
        others.sort_by(|a, b| (a.1 - best_median).abs().total_cmp(&(b.1 - best_median).abs()));
        // The closest is the runner-up: without it there is nothing to test the best against.
        let close = others.iter().enumerate().filter(|(index, (_, median, standing))| match standing {
            Standing::Indistinguishable { .. } => true,
            Standing::Unqualified => *index == 0 || within_the_launch_spread(key, *median, best_median),
            Standing::Best | Standing::Worse { .. } => false,
        });
        for cell in std::iter::once(best).chain(close.map(|(_, (cell, _, _))| *cell)).take(CONTENDERS_MOST) {
            if !ids.contains(&cell.cell) {
                ids.push(cell.cell.clone());
            }
        }
    }
    ids
}

/// Whether the best capacity stands apart from the runner-up's when repeats are too few to test: their searches'
/// bounds tell them apart when the best met the SLO (on every window of that rate) at a rate more than
/// [`LAUNCH_SPREAD`] above the one where the runner-up missed it; else the best cannot be told apart from the
/// runner-up.
/// `best_repeats`: how many the best has (more than one after a confirmation the runner-up was not part of).
fn against_the_runner_up(
    best_met: Option<f64>,
    runner_up_missed: Option<f64>,
    runner_up_label: &str,
    best_repeats: usize,
) -> String {
    let rate = |rps: f64| metric(CAPACITY).format.show(rps);
    let each = match best_repeats {
        0 | 1 => "one repeat each".to_string(),
        many => format!("{many} repeats of the best, one of the runner-up"),
    };
    let spread = format!("{:.0} %", LAUNCH_SPREAD * 100.0);
    match (best_met, runner_up_missed) {
        (Some(met), Some(missed)) if met > missed * (1.0 + LAUNCH_SPREAD) => format!(
            "its search met the SLO at {} req/s, {:.1}× the {} req/s where the runner-up, {runner_up_label}, missed \
             it: told apart by the searches' bounds beyond the {spread} one launch of a JVM can differ from the \
             next, {each}",
            rate(met),
            met / missed,
            rate(missed)
        ),
        (Some(met), Some(missed)) => format!(
            "the best cannot be told apart from the runner-up, {runner_up_label}: {each}, and the best met \
             the SLO at {} req/s where the runner-up missed it at {} req/s, within the {spread} one launch of a JVM \
             can differ from the next; give the plan more repeats",
            rate(met),
            rate(missed)
        ),
        _ => format!(
            "the best cannot be told apart from the runner-up, {runner_up_label}: {each}, and the runner-up's \
             search found no rate that missed the SLO; give the plan more repeats"
        ),
    }
}

/// An open-model phase (a rate, or a ladder's top rate) that every measured cell held: their throughput is the rate
/// jload asked for, so naming one of them the best would pick among equals. None when a cell fell short of it (then
/// throughput does tell them apart), with one cell, or in other phases.
fn all_held_the_rate(phase: &PhaseAnalysis) -> Option<Finding> {
    if !matches!(phase.kind, PhaseKind::Rate | PhaseKind::Ladder) {
        return None;
    }
    let load = phase.load.as_ref()?;
    let rate = load.rates.last().copied().or(load.rate)?;
    let measured: Vec<&CellPhase> = phase.cells.iter().filter(|cell| !cell.reps.is_empty()).collect();
    if measured.len() < 2 || measured.iter().any(|cell| cell.short_of_rate.is_some()) {
        return None;
    }
    let top = if phase.kind == PhaseKind::Ladder { "the top rate" } else { "the requested rate" };
    let every = if measured.len() == 2 { "both cells".to_string() } else { format!("all {} cells", measured.len()) };
    let text = format!(
        "Throughput: {every} held {top}, {} req/s (throughput does not tell them apart here; their latency does)",
        metric("rps").format.show(rate)
    );
    Some(Finding { kind: Kind::Throughput, cell: None, text })
}

/// A ladder's comparison at equal load: at the highest requested rate that two or more cells sustained, the lowest
/// P99 and the cells not distinguishable from it.
fn best_at_equal_load(analysis: &Analysis, phase: &PhaseAnalysis) -> Option<Finding> {
    let points = |rate: f64| {
        phase.cells.iter().filter_map(move |cell| {
            Some((cell, cell.curve.iter().find(|point| point.requested_rps == rate && point.standing.is_some())?))
        })
    };
    let rate = phase
        .cells
        .iter()
        .flat_map(|cell| cell.curve.iter().map(|point| point.requested_rps))
        .filter(|rate| points(*rate).count() >= 2)
        .fold(None, |highest: Option<f64>, rate| Some(highest.map_or(rate, |highest| highest.max(rate))))?;
    let show = |point: &CurvePoint| format!("{} ms", metric("p99_ms").format.show(point.p99_ms.median));
    let (winner, best_point) = points(rate).find(|(_, point)| point.standing == Some(Standing::Best))?;
    let equals: Vec<String> = points(rate)
        .filter_map(|(cell, point)| match point.standing {
            Some(Standing::Indistinguishable { p }) => {
                Some(format!("{} ({}, p = {p:.2})", analysis.cell(&cell.cell).label, show(point)))
            }
            _ => None,
        })
        .collect();
    let mut text = format!(
        "Best P99 at equal load, {} req/s (the highest rate two or more cells sustained): {}, {}",
        metric("rps").format.show(rate),
        analysis.cell(&winner.cell).label,
        show(best_point)
    );
    let untested = match points(rate).any(|(_, point)| point.standing == Some(Standing::Unqualified)) {
        true => Untested::InDoubt,
        false => Untested::None,
    };
    text += &against_the_rest(&untested, &equals);
    Some(Finding { kind: Kind::P99, cell: Some(winner.cell.clone()), text })
}

/// Every cell whose capacity search ran out on jload's side: no capacity is claimed for it.
fn generator_limited(analysis: &Analysis, phase: &PhaseAnalysis) -> Vec<Finding> {
    phase
        .cells
        .iter()
        .filter_map(|cell| {
            let capacity = cell.capacity.as_ref().filter(|capacity| capacity.limited_by == Side::Generator)?;
            let reps: Vec<String> = capacity.generator_reps.iter().map(u32::to_string).collect();
            let text = format!(
                "{}: generator-limited in repeat(s) {} — jload could not send at the rate the target might take, so no \
                 capacity is claimed for the target; give the generator more CPU (another machine, or fewer other \
                 processes) and run again. {}",
                analysis.cell(&cell.cell).label,
                reps.join(", "),
                capacity.verdicts.join("; ")
            );
            Some(Finding { kind: Kind::GeneratorLimited, cell: Some(cell.cell.clone()), text })
        })
        .collect()
}

/// The cell cheapest on the cost axis among `cells` (plan order breaks ties); None without a cost axis.
fn cheapest_of<'a>(analysis: &Analysis, cells: &[&'a CellPhase]) -> Option<&'a CellPhase> {
    let axis = cost_axis(analysis)?;
    cells.iter().copied().min_by_key(|cell| cost_rank(analysis, axis, cell))
}

fn cost_axis(analysis: &Analysis) -> Option<&AxisInfo> {
    analysis.cost_axis.as_ref().and_then(|name| analysis.axes.iter().find(|axis| &axis.name == name))
}

/// Where a cell's label on the cost axis comes, cheapest first.
fn cost_rank(analysis: &Analysis, axis: &AxisInfo, cell: &CellPhase) -> usize {
    let label = analysis.cell(&cell.cell).axes.get(&axis.name).cloned().unwrap_or_default();
    cost_order(&axis.labels).iter().position(|ordered| *ordered == label).unwrap_or(usize::MAX)
}

/// How the best cell stands against the others: too few repeats to tell, all worse, or the ones not distinguishable;
/// beside the tested ones, the cells with too few repeats that are further from it than one launch from the next.
fn against_the_rest(untested: &Untested, equals: &[String]) -> String {
    let tested = match (untested, equals.is_empty()) {
        (Untested::InDoubt, _) => return "; too few repeats to tell whether the other cells differ".to_string(),
        (Untested::None, true) => "every other cell is worse with significance".to_string(),
        (Untested::BeyondTheSpread(_), true) => {
            "every other cell measured again is worse with significance".to_string()
        }
        (_, false) => format!("not distinguishable from it: {}", equals.join(", ")),
    };
    match untested {
        Untested::BeyondTheSpread(better) => {
            let side = if *better == Better::Higher { "below" } else { "above" };
            format!(
                "; {tested}; the cells with fewer repeats are more than the {:.0} % one launch of a JVM can differ \
                 from the next {side} it",
                LAUNCH_SPREAD * 100.0
            )
        }
        _ => format!("; {tested}"),
    }
}

/// Why a phase's cells were not judged: the plan has no `[slo]`, only (perhaps) its capacity searches' own.
fn unjudged(analysis: &Analysis) -> String {
    let searches: Vec<&str> = analysis
        .phases
        .iter()
        .flat_map(|phase| phase.cells.iter().filter_map(|cell| Some(cell.capacity.as_ref()?.slo.as_str())))
        .fold(Vec::new(), |mut slos, slo| {
            if !slos.contains(&slo) {
                slos.push(slo);
            }
            slos
        });
    if searches.is_empty() {
        "The plan has no `[slo]`; add one to have cells judged.".to_string()
    } else {
        format!(
            "Only the capacity search is judged (by its own SLO, {}); add `[slo]` to the plan to have this phase's \
             cells judged too.",
            searches.join(", ")
        )
    }
}

fn cheapest(analysis: &Analysis, phase: &PhaseAnalysis) -> Finding {
    let none = |text: String| Finding { kind: Kind::Cheapest, cell: None, text };
    let Some(axis) = cost_axis(analysis) else {
        return none("No axis to economise on.".to_string());
    };
    if phase.kind == PhaseKind::Capacity {
        return cheapest_capacity(analysis, phase, axis);
    }
    let rank_of = |cell: &CellPhase| cost_rank(analysis, axis, cell);
    let no_slo = analysis.slo.is_empty();
    let eligible: Vec<&CellPhase> = phase
        .cells
        .iter()
        .filter(|cell| !cell.reps.is_empty())
        .filter(|cell| {
            if no_slo {
                analysis.cell(&cell.cell).status == Status::Ok
            } else {
                cell.slo.is_some_and(|verdict| verdict.met)
            }
        })
        .collect();
    let rps = |cell: &CellPhase| cell.figure("rps").map_or(0.0, |estimate| estimate.median);
    let choice = eligible.iter().min_by(|a, b| rank_of(a).cmp(&rank_of(b)).then(rps(b).total_cmp(&rps(a))));
    let slo = analysis.slo.join(", ");
    let Some(choice) = choice else {
        return none(if no_slo {
            format!("Cheapest {}: none; every cell crashed or failed.", axis.name)
        } else {
            format!("Cheapest {} meeting the SLO ({slo}): none; no cell met it in every repeat.", axis.name)
        });
    };
    let info = analysis.cell(&choice.cell);
    let value = info.axes.get(&axis.name).cloned().unwrap_or_default();
    let value = if value == info.label { value } else { format!("{value} ({})", info.label) };
    let mut numbers = format!("P99 {}, {}", figure(choice, "p99_ms", " ms"), figure(choice, "rps", " req/s"));
    if choice.figure(CAPACITY).is_some() {
        numbers = format!("capacity {}, {numbers}", figure(choice, CAPACITY, " req/s"));
    }
    let text = if no_slo {
        format!("Cheapest {} that ran without crashing: {value}: {numbers}. {}", axis.name, unjudged(analysis))
    } else {
        let verdict = choice.slo.expect("eligible cells have a verdict");
        format!(
            "Cheapest {} meeting the SLO ({slo}): {value}: {numbers}; met in {} of {} repeats.",
            axis.name, verdict.reps_passed, verdict.reps_judged
        )
    };
    Finding { kind: Kind::Cheapest, cell: Some(choice.cell.clone()), text: text + &memory_it_needs(info) }
}

/// ` It needs ≥ 445 MB of memory (its whole-life RSS peak), not only its heap.` — said of the cheapest cell, so that
/// a container is not sized from its heap; empty without an RSS figure, or where the cell's memory line says more.
fn memory_it_needs(info: &CellInfo) -> String {
    match (&info.memory, info.rss_life_peak) {
        (None, Some(rss)) => {
            format!(" It needs ≥ {} MB of memory (its whole-life RSS peak), not only its heap.", megabytes_up(rss))
        }
        _ => String::new(),
    }
}

/// A capacity phase's cheapest cell: the cheapest on the cost axis whose capacity is not distinguishable from the
/// highest (Welch's test over repeats, as the capacity row ranks them) — not the cheapest that met an SLO at whatever
/// rate it could take. With too few repeats to tell, only capacities equal to the highest count.
fn cheapest_capacity(analysis: &Analysis, phase: &PhaseAnalysis, axis: &AxisInfo) -> Finding {
    let capacity = |cell: &CellPhase| cell.figure(CAPACITY).map(|estimate| estimate.median);
    let best = phase.cells.iter().find(|cell| cell.standing.get(CAPACITY) == Some(&Standing::Best));
    let Some((best, best_rps)) = best.and_then(|best| Some((best, capacity(best)?))) else {
        let text = format!("Cheapest {} by capacity: none; no cell's search claimed a capacity.", axis.name);
        return Finding { kind: Kind::Cheapest, cell: None, text };
    };
    let eligible: Vec<&CellPhase> = phase
        .cells
        .iter()
        .filter(|cell| match cell.standing.get(CAPACITY) {
            Some(Standing::Best | Standing::Indistinguishable { .. }) => true,
            Some(Standing::Unqualified) => capacity(cell) == Some(best_rps),
            _ => false,
        })
        .collect();
    let choice = cheapest_of(analysis, &eligible).unwrap_or(best);
    let info = analysis.cell(&choice.cell);
    let value = info.axes.get(&axis.name).cloned().unwrap_or_default();
    let value = if value == info.label { value } else { format!("{value} ({})", info.label) };
    let slo = best.capacity.as_ref().map_or(String::new(), |capacity| format!(" at {}", capacity.slo));
    let mut text = format!(
        "Cheapest {} with a capacity not distinguishable from the highest{slo}: {value}: capacity {}",
        axis.name,
        figure(choice, CAPACITY, " req/s")
    );
    match choice.standing.get(CAPACITY) {
        Some(Standing::Indistinguishable { p }) => {
            text += &format!(
                " against {}'s {} req/s (p = {p:.2})",
                analysis.cell(&best.cell).label,
                metric(CAPACITY).format.show(best_rps)
            )
        }
        Some(Standing::Unqualified) if choice.cell != best.cell => text += " (equal to the highest)",
        _ => {}
    }
    let cheaper = phase
        .cells
        .iter()
        .any(|cell| capacity(cell).is_some() && cost_rank(analysis, axis, cell) < cost_rank(analysis, axis, choice));
    if cheaper {
        let unqualified = phase.cells.iter().any(|cell| cell.standing.get(CAPACITY) == Some(&Standing::Unqualified));
        text += if unqualified {
            "; too few repeats to tell whether a cheaper cell's capacity is as high"
        } else {
            "; every cheaper cell's capacity is lower with significance"
        };
    }
    Finding { kind: Kind::Cheapest, cell: Some(choice.cell.clone()), text: text + "." + &memory_it_needs(info) }
}

/// The labels cheapest first: by JVM size when every label names one, else as listed.
pub fn cost_order(labels: &[String]) -> Vec<String> {
    let sizes: Option<Vec<f64>> = labels.iter().map(|label| first_jvm_size_bytes(label)).collect();
    let mut ordered: Vec<(usize, &String)> = labels.iter().enumerate().collect();
    if let Some(sizes) = sizes {
        ordered.sort_by(|a, b| sizes[a.0].total_cmp(&sizes[b.0]));
    }
    ordered.into_iter().map(|(_, label)| label.clone()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(labels: &[&str]) -> Vec<String> {
        labels.iter().map(|label| label.to_string()).collect()
    }

    #[test]
    fn one_search_each_tells_the_best_apart_only_beyond_the_spread_between_launches() {
        assert_eq!(
            against_the_runner_up(Some(56_000.0), Some(40_000.0), "-Xmx64m G1", 1),
            "its search met the SLO at 56000 req/s, 1.4× the 40000 req/s where the runner-up, -Xmx64m G1, missed it: \
             told apart by the searches' bounds beyond the 30 % one launch of a JVM can differ from the next, one \
             repeat each"
        );
        assert_eq!(
            against_the_runner_up(Some(45_782.0), Some(45_025.0), "-Xmx256m Parallel", 1),
            "the best cannot be told apart from the runner-up, -Xmx256m Parallel: one repeat each, and the best met \
             the SLO at 45782 req/s where the runner-up missed it at 45025 req/s, within the 30 % one launch of a JVM \
             can differ from the next; give the plan more repeats"
        );
        // Exactly the spread between launches apart is not beyond it.
        assert!(
            against_the_runner_up(Some(52_000.0), Some(40_000.0), "x", 1).starts_with("the best cannot be told apart")
        );
        assert!(against_the_runner_up(Some(52_000.0), None, "x", 1).contains("found no rate that missed the SLO"));
        assert!(
            against_the_runner_up(Some(52_000.0), Some(45_000.0), "x", 3)
                .contains("x: 3 repeats of the best, one of the runner-up, and the best met"),
            "a best measured again without its runner-up"
        );
    }

    #[test]
    fn beside_the_contenders_measured_again_the_cells_measured_once_are_said_to_be_beyond_the_launch_spread() {
        let equal = strings(&["-Xmx128m G1 (41000 req/s (95 % CI 38000–44000), p = 0.41)"]);
        assert_eq!(
            against_the_rest(&Untested::BeyondTheSpread(Better::Higher), &equal),
            "; not distinguishable from it: -Xmx128m G1 (41000 req/s (95 % CI 38000–44000), p = 0.41); the cells \
             with fewer repeats are more than the 30 % one launch of a JVM can differ from the next below it"
        );
        assert_eq!(
            against_the_rest(&Untested::BeyondTheSpread(Better::Lower), &[]),
            "; every other cell measured again is worse with significance; the cells with fewer repeats are more \
             than the 30 % one launch of a JVM can differ from the next above it"
        );
        assert_eq!(
            against_the_rest(&Untested::InDoubt, &equal),
            "; too few repeats to tell whether the other cells differ"
        );
        assert_eq!(against_the_rest(&Untested::None, &[]), "; every other cell is worse with significance");
    }

    #[test]
    fn cheapest_first() {
        assert_eq!(
            cost_order(&strings(&["-Xmx1g", "-Xmx64m", "-Xmx256m"])),
            strings(&["-Xmx64m", "-Xmx256m", "-Xmx1g"])
        );
        // Not every label is a size: plan order.
        assert_eq!(cost_order(&strings(&["tiny", "-Xmx64m", "-Xmx32m"])), strings(&["tiny", "-Xmx64m", "-Xmx32m"]));
        assert_eq!(cost_order(&strings(&["Serial", "G1"])), strings(&["Serial", "G1"]));
    }
}
