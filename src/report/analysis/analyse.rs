//! What a report says, computed once from a results directory: per cell its status and what went wrong; per phase
//! and cell every figure over the repeats with its confidence interval, the standings on the headline figures, the
//! SLO verdict, the GC-and-tail numbers and the latency spectrum; per measured phase the recommendation.
//! Serialised as report.json; the markdown and the HTML render it.

use std::collections::{BTreeMap, HashMap, HashSet};

use super::capacity::cell_capacity;
use super::cell_attribution::{CellAttribution, MissingRep, RepAttribution, cell_attribution, why_missing};
use super::connection_sweep::connection_sweeps;
use super::curves::{cell_curve, p99_bound, rank_at_equal_load};
use super::equal_load::{PhaseKind, phase_kind, phase_note, short_of_rate};
use super::host_effect::{phase_host_effect, rep_hosts};
use super::memory::{RepMemory, cell_memory, phase_memory, rep_memories};
use super::metrics::{CAPACITY, METRICS, RepFigures, metric, ranked_headlines};
use super::model::GcShare;
use super::model::{
    Analysis, AxisInfo, BoxSearchFinding, CellInfo, CellPhase, Finding, LoadShape, PhaseAnalysis, Problem,
    Recommendation, SloVerdict, StepsShape,
};
use super::recommend::recommend;
use super::spectrum::{self, Spectrum};
use super::stats::{CONFIDENCE, Estimate, median, rank};
use super::steadiness;
use super::tail_points::{TailChart, chart_repeat, tail_chart};
use super::timelines::timelines;
use crate::jvm::gclog::GcLog;
use crate::load::input::spec::PORT_PLACEHOLDER;
use crate::results::{CellSummary, PhaseRecord, RepSummary, Results, Status, Summary, slow_csv};

pub const REPORT_VERSION: u32 = 1;

pub fn statistics_statement() -> String {
    format!(
        "Each figure is the median over a cell's repeats; intervals are {:.0} % Student's t confidence intervals of the mean \
         over repeats; 'not distinguishable from the best' means Welch's t-test against the best cell gives p ≥ {:.2}.",
        CONFIDENCE * 100.0,
        1.0 - CONFIDENCE
    )
}

pub fn analyse(results: &Results) -> Analysis {
    let summary = &results.summary;
    let mut notes = Vec::new();
    let memories = rep_memories(results, &mut notes);
    let cells: Vec<CellInfo> = summary.cells.iter().map(|cell| cell_info(results, cell, &memories)).collect();
    let (timelines, timeline_notes) = timelines(results, &cells);
    let logs = gc_logs(results);
    let rep_hosts = rep_hosts(results);
    let label =
        |id: &str| cells.iter().find(|cell| cell.id == id).map_or_else(|| id.to_string(), |cell| cell.label.clone());
    let phases = summary
        .phases
        .iter()
        .map(|(name, measured)| {
            let mut cell_phases: Vec<CellPhase> = summary
                .cells
                .iter()
                .map(|cell| cell_phase(results, cell, name, (&logs, &memories), &mut notes))
                .collect();
            let kind = phase_kind(summary.cells.iter().flat_map(|cell| cell.measurements(name)).map(|(_, r)| r));
            rank_at_equal_load(&mut cell_phases.iter_mut().map(|cell| &mut cell.curve).collect::<Vec<_>>());
            rank_headlines(&mut cell_phases, kind);
            let equal_load_note = equal_load_note(&cells, &cell_phases, kind);
            let slo_rules = cell_phases.iter().filter_map(|cell| Some(cell.capacity.as_ref()?.slo.as_str()));
            let slo_p99_ms = p99_bound(slo_rules.chain(summary.slo.iter().map(String::as_str)));
            let hosts =
                measured.then(|| phase_host_effect(summary, name, kind, &cell_phases, &rep_hosts, &label)).flatten();
            let gc_share = GcShare::of(&cell_phases, &label);
            PhaseAnalysis {
                name: name.clone(),
                measured: *measured,
                kind,
                load: load_shape(results, name),
                equal_load_note,
                slo_p99_ms,
                cells: cell_phases,
                recommendation: None,
                hosts,
                gc_share,
            }
        })
        .collect::<Vec<PhaseAnalysis>>();
    let connection_sweeps = connection_sweeps(&phases);
    let mut analysis = Analysis {
        version: REPORT_VERSION,
        plan: summary.plan.clone(),
        description: summary.description.clone(),
        results_dir: results.dir.root.display().to_string(),
        jload_version: env!("CARGO_PKG_VERSION").to_string(),
        statistics: statistics_statement(),
        repeats: summary.cells.iter().map(|cell| cell.reps.len()).max().unwrap_or(0),
        env: results.env.clone(),
        slo: summary.slo.clone(),
        cost_axis: summary.cost_axis.clone().or_else(|| summary.axes.first().cloned()),
        axes: axes(results),
        cells,
        phases,
        connection_sweeps,
        notes: Vec::new(),
        box_searches: results
            .box_search
            .searches
            .iter()
            .map(|search| BoxSearchFinding { sentence: search.sentence(), search: search.clone() })
            .collect(),
        tune: results.tune.as_ref().map(super::tune::tune_section),
        timelines,
        timeline_notes,
        plan_text: results.plan_text.clone(),
    };
    let recommendations: Vec<Option<Recommendation>> =
        analysis.phases.iter().map(|phase| phase.measured.then(|| recommend(&analysis, phase))).collect();
    let steadiness: Vec<Vec<Finding>> =
        analysis.phases.iter().map(|phase| steadiness::findings(results, &analysis, phase)).collect();
    for ((phase, recommendation), steadiness) in analysis.phases.iter_mut().zip(recommendations).zip(steadiness) {
        // A result taken from a target that changed comes first: it qualifies every line after it.
        phase.recommendation = recommendation.map(|mut recommendation| {
            recommendation.findings.splice(0..0, steadiness);
            recommendation
        });
    }
    notes.sort();
    notes.dedup();
    analysis.notes = notes;
    analysis
}

/// Mark the best cell and its equals on each headline figure the phase can compare (`metrics::ranked_headlines`), each
/// among the cells that have it ranked (`CellPhase::ranked_figure`).
fn rank_headlines(cells: &mut [CellPhase], kind: PhaseKind) {
    for key in ranked_headlines(kind) {
        let estimates: Vec<Option<&Estimate>> = cells.iter().map(|cell| cell.ranked_figure(key)).collect();
        let standings = rank(&estimates, metric(key).better.expect("headline metrics have a direction"));
        for (cell, standing) in cells.iter_mut().zip(standings) {
            if let Some(standing) = standing {
                cell.standing.insert(key, standing);
            }
        }
    }
}

/// What the phase's table must say about comparing latency (see `equal_load::phase_note`).
fn equal_load_note(cells: &[CellInfo], phase: &[CellPhase], kind: PhaseKind) -> Option<String> {
    let short: Vec<&str> = cells
        .iter()
        .zip(phase)
        .filter(|(_, cell)| cell.short_of_rate.is_some())
        .map(|(info, _)| info.label.as_str())
        .collect();
    let rps: Vec<f64> = phase.iter().filter_map(|cell| Some(cell.figure("rps")?.median)).collect();
    phase_note(kind, &short, &rps)
}

fn axes(results: &Results) -> Vec<AxisInfo> {
    results
        .summary
        .axes
        .iter()
        .map(|name| {
            let mut labels: Vec<String> = Vec::new();
            for cell in &results.summary.cells {
                if let Some(label) = cell.axes.get(name)
                    && !labels.contains(label)
                {
                    labels.push(label.clone());
                }
            }
            AxisInfo { name: name.clone(), varies: labels.len() > 1, labels }
        })
        .collect()
}

/// Column label of a cell: the labels of the axes that vary in the plan (all of them when none varies).
fn cell_label(summary: &Summary, cell: &CellSummary) -> String {
    let varying: Vec<&String> = summary
        .axes
        .iter()
        .filter(|axis| summary.cells.iter().map(|other| other.axes.get(*axis)).collect::<HashSet<_>>().len() > 1)
        .collect();
    let shown: Vec<String> = summary
        .axes
        .iter()
        .filter(|axis| varying.is_empty() || varying.contains(axis))
        .filter_map(|axis| cell.axes.get(axis).cloned())
        .collect();
    if shown.is_empty() { cell.id.clone() } else { shown.join(" ") }
}

fn cell_info(results: &Results, cell: &CellSummary, memories: &HashMap<(String, u32), RepMemory>) -> CellInfo {
    let mut problems: Vec<Problem> = Vec::new();
    for rep in cell.reps.iter().filter(|rep| rep.status != Status::Ok) {
        let cause = rep.cause.clone().unwrap_or_else(|| "no cause recorded".to_string());
        let phase = rep.phases.iter().find(|(_, record)| record.bench.interrupted).map(|(name, _)| name.clone());
        let memory_limit = memories.get(&(cell.id.clone(), rep.rep)).is_some_and(RepMemory::killed_by_the_limit);
        match problems.iter_mut().find(|problem| {
            (problem.status, &problem.cause, &problem.phase, problem.memory_limit)
                == (rep.status, &cause, &phase, memory_limit)
        }) {
            Some(problem) => problem.reps.push(rep.rep),
            None => problems.push(Problem { status: rep.status, cause, phase, reps: vec![rep.rep], memory_limit }),
        }
    }
    CellInfo {
        id: cell.id.clone(),
        label: cell_label(&results.summary, cell),
        axes: cell.axes.clone(),
        status: cell.status,
        reps: cell.reps.len(),
        reps_ok: cell.reps.iter().filter(|rep| rep.status == Status::Ok).count(),
        problems,
        java_version: cell.flags.as_ref().map(|flags| flags.java_version.clone()),
        collector: cell.flags.as_ref().map(|flags| flags.collector.clone()),
        max_heap_mb: cell.flags.as_ref().map(|flags| flags.max_heap_bytes as f64 / (1024.0 * 1024.0)),
        memory: cell_memory(cell, memories),
        rss_life_peak: cell
            .reps
            .iter()
            .filter_map(|rep| memories.get(&(cell.id.clone(), rep.rep))?.rss_peak_mb)
            .fold(None, |peak: Option<f64>, mb| Some(peak.map_or(mb, |peak| peak.max(mb))))
            .map(|mb| (mb * 1048576.0).round() as u64),
    }
}

/// The GC log of every repeat that has phases, parsed once.
fn gc_logs(results: &Results) -> HashMap<(String, u32), GcLog> {
    let mut logs = HashMap::new();
    for cell in &results.summary.cells {
        for rep in cell.reps.iter().filter(|rep| !rep.phases.is_empty()) {
            if let Some(log) = results.gc_log(&cell.id, rep.rep) {
                logs.insert((cell.id.clone(), rep.rep), log);
            }
        }
    }
    logs
}

fn cell_phase(
    results: &Results,
    cell: &CellSummary,
    phase: &str,
    (logs, memories): (&HashMap<(String, u32), GcLog>, &HashMap<(String, u32), RepMemory>),
    notes: &mut Vec<String>,
) -> CellPhase {
    let measured = cell.measurements(phase);
    let reps: Vec<RepFigures> = measured
        .iter()
        .map(|&(rep, record)| {
            let alloc_mb_s = match (logs.get(&(cell.id.clone(), rep)), record.headline_jvm()) {
                (Some(log), Some(jvm)) => log.summary(Some((jvm.uptime_start_s, jvm.uptime_end_s))).alloc_rate_mb_s,
                _ => None,
            };
            let rss_life_peak_mb = memories.get(&(cell.id.clone(), rep)).and_then(|memory| memory.rss_peak_mb);
            RepFigures { rep, record, alloc_mb_s, rss_life_peak_mb }
        })
        .collect();
    let mut figures: BTreeMap<&'static str, Estimate> = METRICS
        .iter()
        .filter_map(|metric| {
            Some((metric.key, Estimate::of(reps.iter().filter_map(|figures| (metric.read)(figures)).collect())?))
        })
        .collect();
    let capacity = cell_capacity(&measured);
    // The cell's capacity follows the cell's rule (none when any repeat was generator-limited), not each repeat's.
    figures.remove(CAPACITY);
    if let Some(estimate) = capacity.as_ref().and_then(|capacity| capacity.estimate.clone()) {
        figures.insert(CAPACITY, estimate);
    }
    let judged: Vec<bool> = reps.iter().filter_map(|figures| figures.record.slo_passed).collect();
    let slo = (!judged.is_empty()).then(|| {
        let reps_passed = judged.iter().filter(|passed| **passed).count();
        SloVerdict {
            reps_judged: judged.len(),
            reps_passed,
            met: reps_passed == judged.len() && cell.status == Status::Ok,
        }
    });
    let (gc_attribution, tail_chart) = match measured.is_empty() {
        true => {
            let killed = |rep: &RepSummary| {
                memories.get(&(cell.id.clone(), rep.rep)).is_some_and(RepMemory::killed_by_the_limit)
            };
            let troubled = cell.reps.iter().filter(|rep| matches!(rep.status, Status::Crashed | Status::Failed));
            let killed = cell.reps.iter().any(killed) && troubled.clone().all(killed);
            (CellAttribution::Missing { why: unmeasured_why(cell.status, killed).to_string() }, None)
        }
        false => gc_attribution(results, &cell.id, phase, &measured, logs),
    };
    CellPhase {
        cell: cell.id.clone(),
        reps: reps.iter().map(|figures| figures.rep).collect(),
        figures,
        standing: BTreeMap::new(),
        slo,
        gc_attribution,
        gc_share_from_jstat: reps
            .iter()
            .filter(|figures| figures.record.headline_jvm().is_some_and(|jvm| jvm.pauses.is_none()))
            .map(|figures| figures.rep)
            .collect(),
        tail_chart,
        spectrum: cell_spectrum(results, &cell.id, phase, &reps, notes),
        short_of_rate: short_of_rate(&measured),
        capacity,
        curve: cell_curve(&measured),
        memory: phase_memory(&measured),
        profile: measured
            .iter()
            .find_map(|&(rep, record)| Some((rep, record.flight_recording.as_ref()?.profile.clone()?))),
    }
}

/// Why a cell that did not measure a phase has no answer there: its crash or failure — a kill by the memory limit
/// named as such —, else it never ran it.
fn unmeasured_why(status: Status, killed_by_the_limit: bool) -> &'static str {
    match status {
        Status::Ok => "not measured",
        Status::Crashed | Status::Failed if killed_by_the_limit => "killed by the memory limit",
        status => status.name(),
    }
}

/// The cell's "is it the GC?" over its measured repeats, and the chart of its median repeat (which needs the repeat's
/// slow requests and GC log).
fn gc_attribution(
    results: &Results,
    cell: &str,
    phase: &str,
    measured: &[(u32, &PhaseRecord)],
    logs: &HashMap<(String, u32), GcLog>,
) -> (CellAttribution, Option<TailChart>) {
    let slow_requests = |rep: u32| results.rep_files(cell, rep).map(|files| files.phase_slow_requests(phase));
    let mut found = Vec::new();
    let mut missing = Vec::new();
    for &(rep, record) in measured {
        match &record.gc_attribution {
            Some(attribution) => found.push(RepAttribution {
                rep,
                duration_s: record.bench.duration_s,
                attribution: attribution.clone(),
            }),
            None => {
                let has_slow_requests =
                    record.bench.slow_requests.is_some() && slow_requests(rep).is_some_and(|path| path.is_file());
                let has_gc_log = logs.contains_key(&(cell.to_string(), rep));
                missing.push(MissingRep { rep, why: why_missing(has_slow_requests, has_gc_log).to_string() });
            }
        }
    }
    let chart = chart_repeat(&found).and_then(|shown| {
        let record = measured.iter().find(|(rep, _)| *rep == shown.rep)?.1;
        let slow = slow_csv::read(&slow_requests(shown.rep)?)?;
        let log = logs.get(&(cell.to_string(), shown.rep))?;
        let span_ms = record.bench.duration_s * 1000.0;
        let kept = record.bench.slow_requests.map_or(slow.len() as u64, |info| info.kept);
        let run_start_unix_us = record.bench.start_unix_us?;
        Some(tail_chart(shown.rep, &shown.attribution, (&slow, kept), log, run_start_unix_us, span_ms))
    });
    (cell_attribution(found, missing), chart)
}

/// Every request's latency when each repeat has its interval log, else the stored percentiles.
fn cell_spectrum(
    results: &Results,
    cell: &str,
    phase: &str,
    reps: &[RepFigures],
    notes: &mut Vec<String>,
) -> Option<Spectrum> {
    let mut merged: Option<hdrhistogram::Histogram<u64>> = None;
    for figures in reps {
        match results.histogram(cell, figures.rep, phase) {
            Ok(Some(histogram)) => match merged.as_mut() {
                None => merged = Some(histogram),
                Some(total) => {
                    if total.add(&histogram).is_err() {
                        merged = None;
                        break;
                    }
                }
            },
            Ok(None) => {
                merged = None;
                break;
            }
            Err(err) => {
                notes.push(format!("{err:#}: unreadable; the {cell} {phase} spectrum uses the stored percentiles"));
                merged = None;
                break;
            }
        }
    }
    merged.as_ref().and_then(spectrum::from_histogram).or_else(|| spectrum::from_percentiles(reps))
}

fn load_shape(results: &Results, phase: &str) -> Option<LoadShape> {
    let records: Vec<_> = results
        .summary
        .cells
        .iter()
        .flat_map(|cell| cell.measurements(phase).into_iter().map(|(rep, record)| (&cell.id, rep, record)))
        .collect();
    let (first_cell, first_rep, first) = records.first()?;
    let durations: Vec<f64> = records.iter().map(|(_, _, record)| record.bench.duration_s).collect();
    let requests: Vec<f64> = records.iter().map(|(_, _, record)| record.bench.requests as f64).collect();
    let url = match results.port(first_cell, *first_rep) {
        Some(port) => port_placeholder(&first.bench.url, port),
        None => first.bench.url.clone(),
    };
    let with_steps: Vec<_> = records.iter().filter(|(_, _, record)| !record.bench.steps.is_empty()).collect();
    let steps = (!with_steps.is_empty()).then(|| {
        let of = |read: &dyn Fn(&PhaseRecord) -> f64| {
            median(with_steps.iter().map(|(_, _, record)| read(record)).collect()).unwrap_or(0.0)
        };
        let measured_s = |record: &PhaseRecord| record.bench.steps.iter().map(|step| step.duration_s).sum::<f64>();
        StepsShape {
            count: of(&|record| record.bench.steps.len() as f64) as usize,
            duration_s: of(&|record| {
                record.jvm.as_ref().map_or_else(|| measured_s(record), |jvm| jvm.uptime_end_s - jvm.uptime_start_s)
            }),
            requests: of(&|record| record.bench.steps.iter().map(|step| step.requests as f64).sum()) as u64,
        }
    });
    Some(LoadShape {
        url,
        model: first.bench.model.clone(),
        connections: first.bench.connections,
        rate: first.bench.rate,
        duration_s: median(durations).unwrap_or(0.0),
        requests: median(requests).unwrap_or(0.0) as u64,
        rates: first.bench.steps.iter().map(|step| step.requested_rps).collect(),
        steps,
    })
}

/// A cell's URL as the plan wrote it: the cell's own port in the authority back to `{port}` (each cell has its own),
/// so the header does not show one cell's port as if it were every cell's. Other URLs stay as they are.
fn port_placeholder(url: &str, port: u16) -> String {
    let Some(scheme_end) = url.find("://").map(|index| index + 3) else {
        return url.to_string();
    };
    let authority_end = url[scheme_end..].find(['/', '?', '#']).map_or(url.len(), |index| scheme_end + index);
    match url[scheme_end..authority_end].strip_suffix(&format!(":{port}")) {
        Some(host) => format!("{}{host}:{PORT_PLACEHOLDER}{}", &url[..scheme_end], &url[authority_end..]),
        None => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::{cell_label, port_placeholder};
    use crate::results::{CellSummary, SUMMARY_VERSION, Status, Summary};

    fn summary(cells: &[&[(&str, &str)]]) -> Summary {
        let cell = |axes: &&[(&str, &str)]| CellSummary {
            id: axes.iter().map(|(axis, label)| format!("{axis}={label}")).collect::<Vec<_>>().join(","),
            axes: axes.iter().map(|(axis, label)| (axis.to_string(), label.to_string())).collect::<BTreeMap<_, _>>(),
            status: Status::Ok,
            flags: None,
            reps: Vec::new(),
        };
        Summary {
            version: SUMMARY_VERSION,
            plan: "p".to_string(),
            description: String::new(),
            axes: vec!["heap".to_string(), "gc".to_string()],
            phases: Vec::new(),
            slo: Vec::new(),
            cost_axis: None,
            cells: cells.iter().map(cell).collect(),
        }
    }

    #[test]
    fn a_cells_label_names_the_axes_that_vary_in_plan_order() {
        let sweep = summary(&[&[("heap", "64m"), ("gc", "G1")], &[("heap", "256m"), ("gc", "G1")]]);
        assert_eq!(cell_label(&sweep, &sweep.cells[1]), "256m");
        let grid = summary(&[&[("heap", "64m"), ("gc", "G1")], &[("heap", "256m"), ("gc", "ZGC")]]);
        assert_eq!(cell_label(&grid, &grid.cells[1]), "256m ZGC");
        let single = summary(&[&[("heap", "64m"), ("gc", "G1")]]);
        assert_eq!(cell_label(&single, &single.cells[0]), "64m G1", "nothing varies: every axis");
    }

    #[test]
    fn the_cells_port_becomes_a_placeholder() {
        assert_eq!(port_placeholder("http://127.0.0.1:42959/get?k=1", 42959), "http://127.0.0.1:{port}/get?k=1");
        assert_eq!(port_placeholder("http://[::1]:8080", 8080), "http://[::1]:{port}");
        assert_eq!(port_placeholder("http://127.0.0.1:8080/a:8080", 8080), "http://127.0.0.1:{port}/a:8080");
        // A fixed port that is not the cell's stays.
        assert_eq!(port_placeholder("http://127.0.0.1:9000/x", 8080), "http://127.0.0.1:9000/x");
        assert_eq!(port_placeholder("http://127.0.0.1:18080/", 8080), "http://127.0.0.1:18080/");
    }
}
