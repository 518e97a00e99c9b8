//! Whether a cell's phase was taken from a target that held still, as findings of its phase: each repeat whose own
//! steadiness record says the target changed under a ladder's steps (or did not settle while warming up,
//! `load::search::steady`), each closed-model phase without steps whose throughput moved beyond the rule's factor from
//! its first third to its last (`load::search::steady::Trend`), and a capacity contradicted by what the same JVM
//! sustained within the search's SLO in another phase of the same run — a JVM that served many times its "capacity" a
//! minute later was still warming up.

use super::model::{Analysis, Finding, Kind, PhaseAnalysis};
use crate::load::format::{format_ms, format_rate};
use crate::load::record::outcomes::{Capacity, Side};
use crate::load::search::capacity::slo_rules;
use crate::load::search::steady::{Trend, times};
use crate::results::{CellSummary, PhaseRecord, Results};

/// Another phase of the same repeat that sustained this many times a cell's capacity within its SLO contradicts it.
/// Not less: the open model's capacity and the closed model's throughput of a warm, steady JVM differ by themselves
/// (a Spring Boot WebFlux JVM on 2 cores: capacity 33,787 req/s at p99 ≤ 10 ms, then 57,118 req/s at p99 4.5 ms with
/// 50 connections, 1.7×; docs/benchmarks.md), while a search on a cold JVM is off by 10× to 200×. Smaller changes
/// during the search itself are the steady-state check's (`load::search::steady`, 1.5×).
pub const CONTRADICTION_FACTOR: f64 = 3.0;

/// The phase's steadiness findings, cell by cell: targets that changed, then contradicted capacities.
pub fn findings(results: &Results, analysis: &Analysis, phase: &PhaseAnalysis) -> Vec<Finding> {
    let mut findings = Vec::new();
    for cell in &results.summary.cells {
        let label = &analysis.cell(&cell.id).label;
        for (rep, record) in cell.measurements(&phase.name) {
            if let Some(trend) = Trend::of_result(&record.bench).filter(Trend::changed) {
                let text = format!("{label}, repeat {rep}: {}", trend.note());
                findings.push(Finding { kind: Kind::TargetChanged, cell: Some(cell.id.clone()), text });
            }
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

#[cfg(test)]
mod tests {
    use std::path::Path;

    use serde_json::{Value, json};

    use crate::report::Report;
    use crate::report::test_fixtures::fixture_with;

    /// A copy of the `ladder` fixture's top-level files (figures from summary.json alone), with `edit` applied to its
    /// summary. Its phase `set` is a capacity search under p99<=10ms; `get` a rate ladder.
    fn ladder_with(edit: impl FnOnce(&mut Value)) -> tempfile::TempDir {
        fixture_with("ladder", edit)
    }

    /// The terminal tables, report.md, report.html and report.json of the directory.
    fn outputs(dir: &Path) -> [String; 4] {
        let report = Report::open(dir).unwrap();
        let written = report.write().unwrap();
        let read = |path: &Path| std::fs::read_to_string(path).unwrap();
        [report.terminal_tables(), read(&written.markdown), read(&written.html), read(&written.json)]
    }

    /// Each finding of `kind` in report.json: (phase, text).
    fn findings(json: &str, kind: &str) -> Vec<(String, String)> {
        let report: Value = serde_json::from_str(json).unwrap();
        let phases = report["phases"].as_array().unwrap();
        phases
            .iter()
            .flat_map(|phase| {
                let findings = phase["recommendation"]["findings"].as_array().cloned().unwrap_or_default();
                findings.into_iter().filter(|finding| finding["kind"] == kind).map(|finding| {
                    (phase["name"].as_str().unwrap().to_string(), finding["text"].as_str().unwrap().to_string())
                })
            })
            .collect()
    }

    #[test]
    fn a_capacity_far_below_what_the_same_jvm_served_within_the_slo_is_flagged_in_every_output() {
        // -Xmx64m repeat 1: its search claims 10,000 req/s; its closed-model phase `get` served 44,424 req/s at p99 5 ms.
        let dir = ladder_with(|summary| {
            let phases = &mut summary["cells"][1]["reps"][0]["phases"];
            phases["set"]["capacity"]["rps"] = json!(10000.0);
            phases["set"]["capacity"]["bounds"] = json!([10000.0, 10500.0]);
            phases["get"]["steps"] = json!([]);
            phases["get"]["rate"] = Value::Null;
            phases["get"]["latency_ms"]["p99"] = json!(5.0);
        });
        let [terminal, markdown, html, json] = outputs(dir.path());
        let text = "-Xmx64m, repeat 1: capacity 10,000 req/s at p99<=10ms, yet phase 'get' of the same JVM served \
                    44,424 req/s within it (p99 5.000 ms), 4.4× as much: the target was not in its steady state \
                    during the search (warm-up too short?) — do not take this capacity as the target's";
        assert_eq!(findings(&json, "capacity_contradicted"), [("set".to_string(), text.to_string())]);
        // How report.md and the HTML escape `<=` is their own business: the finding from its rule on.
        let after_slo = &text[text.find("yet phase").unwrap()..];
        assert!(markdown.contains("-Xmx64m, repeat 1: capacity 10,000 req/s at p99") && markdown.contains(after_slo));
        assert!(html.contains(&after_slo.replace('\'', "&#39;")) || html.contains(after_slo), "the HTML's findings");
        assert!(terminal.replace("\n  ", " ").contains(&format!("NOTE {text}")), "{terminal}");
        // Repeat 2 served 36,010 req/s at p99 87 ms: over the SLO, so no contradiction with its 18,000 req/s.
        assert!(!markdown.contains("-Xmx64m, repeat 2: capacity"), "{markdown}");
    }

    #[test]
    fn a_closed_phase_serving_less_than_three_times_the_capacity_within_the_slo_contradicts_nothing() {
        // The same closed-model phase (44,424 req/s at p99 5 ms) beside a capacity of 20,000: 2.2×, what the open and
        // the closed model of a warm JVM can differ by.
        let dir = ladder_with(|summary| {
            let phases = &mut summary["cells"][1]["reps"][0]["phases"];
            phases["set"]["capacity"]["rps"] = json!(20000.0);
            phases["set"]["capacity"]["bounds"] = json!([20000.0, 21000.0]);
            phases["get"]["steps"] = json!([]);
            phases["get"]["rate"] = Value::Null;
            phases["get"]["latency_ms"]["p99"] = json!(5.0);
        });
        let [_, _, _, json] = outputs(dir.path());
        assert!(findings(&json, "capacity_contradicted").is_empty());
    }

    #[test]
    fn a_search_taken_from_a_target_that_changed_is_flagged_and_steady_ones_are_not() {
        let dir = ladder_with(|summary| {
            summary["cells"][2]["reps"][0]["phases"]["set"]["steadiness"] = json!({
                "warmups": [{ "windows_rps": [900.0, 910.0, 905.0], "steady": true }],
                "checks_rps": [36000.0, 36500.0],
                "changes": [{ "factor": 40.0, "set_aside": 6, "researched_from": 9000.0, "note": "the target got 40× faster" }]
            });
            let steady =
                json!({ "warmups": [{ "windows_rps": [900.0, 910.0, 905.0], "steady": true }], "checks_rps": [905.0] });
            summary["cells"][2]["reps"][1]["phases"]["set"]["steadiness"] = steady;
        });
        let [terminal, markdown, _, json] = outputs(dir.path());
        let text = "-Xmx256m, repeat 1: this search was taken from a target that changed under it — the target got 40× \
                    faster";
        assert_eq!(findings(&json, "target_changed"), [("set".to_string(), text.to_string())]);
        assert!(markdown.contains(text) && terminal.contains(&format!("NOTE {text}")), "{terminal}");
        let untouched = ladder_with(|_| {});
        let [terminal, _, _, json] = outputs(untouched.path());
        assert!(findings(&json, "target_changed").is_empty() && findings(&json, "capacity_contradicted").is_empty());
        assert!(!terminal.contains("NOTE"), "{terminal}");
    }
}
