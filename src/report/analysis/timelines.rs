//! Each cell's timeline, decided once: which repeat it shows (the one with the median req/s in the first measured
//! phase it has) and what that repeat did on the JVM's uptime: per phase its span, req/s and p99 per second and
//! every GC pause, a ladder's or search's steps where each ran, and the heap sampled in `gcstat.csv`. The HTML renderer draws it as it is.

use super::model::{CellInfo, CellTimeline, PhaseSpan, StepSpan};
use super::stats::median;
use crate::results::{CellSummary, PhaseRecord, Results, Status};

/// The timelines of every cell that has a repeat with phases, in cell order, and notes on files that could not be
/// read (a timeline without its heap says why).
pub fn timelines(results: &Results, cells: &[CellInfo]) -> (Vec<CellTimeline>, Vec<String>) {
    let mut timelines = Vec::new();
    let mut notes = Vec::new();
    for info in cells {
        let Some(cell) = results.summary.cell(&info.id) else { continue };
        let Some(rep) = typical_rep(results, cell) else { continue };
        let Some(summary) = cell.reps.iter().find(|r| r.rep == rep) else { continue };
        let phases: Vec<PhaseSpan> =
            results.summary.phases.iter().filter_map(|(name, _)| Some(span(name, summary.phases.get(name)?))).collect();
        let heap = results.heap_samples(&info.id, rep).unwrap_or_else(|err| {
            notes.push(format!("{err:#}: unreadable; the {} timeline has no heap", info.label));
            Vec::new()
        });
        let crashed = summary.status == Status::Crashed;
        timelines.push(CellTimeline { cell: info.id.clone(), rep, crashed, phases, heap });
    }
    (timelines, notes)
}

/// The repeat a cell's timeline shows: the one with the median req/s in the first measured phase it has, else its
/// first repeat with any phase.
fn typical_rep(results: &Results, cell: &CellSummary) -> Option<u32> {
    for (phase, _) in results.summary.phases.iter().filter(|(_, measured)| *measured) {
        let records = cell.measurements(phase);
        if let Some(middle) = median(records.iter().map(|(_, record)| record.bench.rps).collect()) {
            return records
                .iter()
                .min_by(|a, b| (a.1.bench.rps - middle).abs().total_cmp(&(b.1.bench.rps - middle).abs()))
                .map(|(rep, _)| *rep);
        }
    }
    cell.reps.iter().find(|rep| !rep.phases.is_empty()).map(|rep| rep.rep)
}

/// A phase on the JVM's uptime (the bench's own clock when the JVM was not watched). A ladder's per-second series
/// are its headline step's: they start where that step's measured window did (the end of its JVM window less the
/// measured duration), not at the phase's start.
fn span(name: &str, record: &PhaseRecord) -> PhaseSpan {
    let (from_s, to_s) = match &record.jvm {
        Some(jvm) => (jvm.uptime_start_s, jvm.uptime_end_s),
        None => (record.start_s, record.start_s + record.bench.duration_s),
    };
    let steps = step_spans(record);
    let origin_s = steps.iter().find(|step| step.headline).map_or(from_s, |step| step.to_s - record.bench.duration_s);
    PhaseSpan {
        name: name.to_string(),
        from_s,
        to_s,
        steps,
        seconds: record
            .bench
            .series
            .iter()
            .filter(|row| row.requests > 0)
            .map(|row| (origin_s + row.second as f64 + row.duration_s / 2.0, row.rps, row.p99_ms))
            .collect(),
        pauses: record
            .jvm
            .iter()
            .flat_map(|jvm| jvm.pauses.iter())
            .flat_map(|pauses| pauses.pauses.iter().map(|(start, ms, _)| (*start, *ms)))
            .collect(),
    }
}

/// A ladder phase's steps where each ran, from its JVM window per step (a step whose JVM was not sampled is left
/// out: where it ran is not known).
fn step_spans(record: &PhaseRecord) -> Vec<StepSpan> {
    let headline = record.headline_step();
    let steps = record.bench.steps.iter().zip(&record.step_jvm).enumerate();
    steps
        .filter_map(|(index, (step, jvm))| {
            let jvm = jvm.as_ref()?;
            Some(StepSpan {
                from_s: jvm.uptime_start_s,
                to_s: jvm.uptime_end_s,
                requested_rps: step.requested_rps,
                achieved_rps: step.achieved_rps,
                p99_ms: step.latency_ms.p99,
                meets_slo: step.meets_slo,
                headline: headline == Some(index),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::report::analysis::analyse;

    #[test]
    fn a_cells_timeline_shows_its_median_repeat_or_else_its_first_with_phases() {
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/results/sweep");
        let results = Results::open(&fixture).unwrap();
        let analysis = analyse(&results);
        let (timelines, notes) = timelines(&results, &analysis.cells);
        assert!(notes.is_empty(), "{notes:?}");
        assert_eq!(timelines.len(), 3);
        // tiny crashed during the fill in every repeat: no measurement, so its first repeat, marked crashed.
        assert_eq!((timelines[0].rep, timelines[0].crashed), (1, true));
        assert_eq!(timelines[0].phases.iter().map(|phase| phase.name.as_str()).collect::<Vec<_>>(), ["fill"]);
        // The others: the repeat whose req/s is the median in the first measured phase.
        let first_measured = &results.summary.phases.iter().find(|(_, measured)| *measured).unwrap().0;
        for timeline in &timelines[1..] {
            let cell = results.summary.cell(&timeline.cell).unwrap();
            let mut by_rps: Vec<(f64, u32)> =
                cell.measurements(first_measured).iter().map(|(rep, record)| (record.bench.rps, *rep)).collect();
            by_rps.sort_by(|a, b| a.0.total_cmp(&b.0));
            assert_eq!(timeline.rep, by_rps[1].1, "{}", timeline.cell);
            assert!(!timeline.crashed && !timeline.heap.is_empty());
            assert_eq!(timeline.phases.len(), results.summary.phases.len());
        }
    }
}
