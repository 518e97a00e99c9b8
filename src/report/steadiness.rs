//! Whether a cell's ladder or capacity search was taken from a target that held still, as findings of its phase:
//! each repeat whose own steadiness record says the target changed under the steps (or did not settle while warming
//! up, `load::steady`), and a capacity contradicted by what the same JVM sustained within the search's SLO in another
//! phase of the same run — a JVM that served many times its "capacity" a minute later was still warming up.

use super::model::{Analysis, Finding, Kind, PhaseAnalysis};
use crate::load::capacity::slo_rules;
use crate::load::ladder::{Capacity, Side, format_rate};
use crate::load::printout::format_ms;
use crate::load::steady::times;
use crate::results::{CellSummary, PhaseRecord, Results};

/// Another phase of the same repeat that sustained this many times a cell's capacity within its SLO contradicts it.
pub const CONTRADICTION_FACTOR: f64 = 1.5;

/// The phase's steadiness findings, cell by cell: targets that changed, then contradicted capacities.
pub fn findings(results: &Results, analysis: &Analysis, phase: &PhaseAnalysis) -> Vec<Finding> {
    let mut findings = Vec::new();
    for cell in &results.summary.cells {
        let label = &analysis.cell(&cell.id).label;
        for (rep, record) in cell.measurements(&phase.name) {
            let Some(steadiness) = record.bench.steadiness.as_ref().filter(|steadiness| steadiness.target_changed())
            else {
                continue;
            };
            let what = if record.bench.capacity.is_some() { "search" } else { "ladder" };
            let text = format!(
                "{label}, repeat {rep}: this {what} was taken from a target that changed under it — {}",
                steadiness.problems().join("; ")
            );
            findings.push(Finding { kind: Kind::TargetChanged, cell: Some(cell.id.clone()), text });
        }
        findings.extend(contradictions(results, cell, &phase.name).into_iter().map(|text| Finding {
            kind: Kind::CapacityContradicted,
            cell: Some(cell.id.clone()),
            text: format!("{label}, {text}"),
        }));
    }
    findings
}

/// For each repeat of `cell` whose search in `phase` claimed a capacity (or that no rate met the SLO below a bound):
/// the other measured phases of the same repeat that served at least [`CONTRADICTION_FACTOR`] times it while meeting
/// the search's SLO.
fn contradictions(results: &Results, cell: &CellSummary, phase: &str) -> Vec<String> {
    let mut lines = Vec::new();
    for (rep, record) in cell.measurements(phase) {
        let Some(capacity) = &record.bench.capacity else { continue };
        let Some((claimed, claim)) = claim(capacity) else { continue };
        let Ok(rules) = slo_rules(std::slice::from_ref(&capacity.slo)) else { continue };
        for (other, _) in results.summary.phases.iter().filter(|(name, measured)| *measured && name != phase) {
            let Some(served) = cell.measurements(other).into_iter().find(|(other_rep, _)| *other_rep == rep) else {
                continue;
            };
            let served: &PhaseRecord = served.1;
            let bench = &served.bench;
            let within = rules.iter().all(|rule| rule.judge(bench).passed);
            if bench.steps.is_empty() && within && bench.rps >= CONTRADICTION_FACTOR * claimed {
                lines.push(format!(
                    "repeat {rep}: {claim} at {}, yet phase '{other}' of the same JVM served {} req/s within it (p99 \
                     {} ms), {} as much: the target was not in its steady state during the search (warm-up too \
                     short?) — do not take this capacity as the target's",
                    capacity.slo,
                    format_rate(bench.rps),
                    format_ms(bench.latency_ms.p99),
                    times(bench.rps / claimed)
                ));
            }
        }
    }
    lines
}

/// The rate a search claims and how it reads: `capacity 188 req/s`, or `no rate met the SLO from 200 req/s`.
fn claim(capacity: &Capacity) -> Option<(f64, String)> {
    match (capacity.limited_by, capacity.rps, capacity.bounds[1]) {
        (Side::Target, Some(rps), _) => Some((rps, format!("capacity {} req/s", format_rate(rps)))),
        (Side::Target, None, Some(high)) => Some((high, format!("no rate met the SLO at {} req/s", format_rate(high)))),
        _ => None,
    }
}
