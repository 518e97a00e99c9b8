//! A tune trial's figure (docs/tune.md): per objective, the one number the search compares — the capacity its
//! capacity phase found within the SLO, the last measured phase's p99, or the memory it used over its whole life —
//! or, when it has none, why: crashed, killed, refused, no rate met the SLO, the SLO missed.

use super::box_trial::judge;
use crate::jvm::gcstat_csv::read_heap_samples;
use crate::load::search::ladder::LadderPlan;
use crate::plan::Plan;
use crate::plan::matrix::Cell;
use crate::plan::phase_ladder::PhaseLadder;
use crate::plan::tune::Objective;
use crate::results::{RepFiles, RepMeta, ResultsDir, Status};

/// A trial's figure in the objective's unit, or why it has none: crashed, killed, refused (the cause), no capacity
/// found, the SLO missed.
pub fn figure_of(
    objective: Objective,
    plan: &Plan,
    results: &ResultsDir,
    cell: &Cell,
    meta: &RepMeta,
) -> Result<f64, String> {
    if meta.status != Status::Ok {
        return Err(meta.cause.clone().unwrap_or_else(|| format!("{:?}", meta.status).to_lowercase()));
    }
    let measured: Vec<_> = plan.phases.iter().filter(|phase| phase.measure).collect();
    let record = |name: &str| results.read_phase(&cell.dir, meta.rep, name);
    if objective == Objective::Capacity {
        // A capacity search judges the SLO step by step: its capacity is the answer, not the whole phase's figures.
        let phase = measured
            .iter()
            .find(|phase| matches!(phase.ladder, Some(PhaseLadder { plan: LadderPlan::Capacity(_), .. })))
            .ok_or("no capacity phase")?;
        let found = record(&phase.name).and_then(|record| record.bench.capacity);
        return match found {
            Some(capacity) => {
                capacity.rps.ok_or_else(|| format!("phase '{}': no rate met {}", phase.name, capacity.slo))
            }
            None => Err(format!("phase '{}' found no capacity", phase.name)),
        };
    }
    let (passed, why) = judge(plan, results, cell, meta);
    if !passed {
        return Err(why.unwrap_or_else(|| "the SLO missed".to_string()));
    }
    match objective {
        Objective::P99 => {
            let last = measured.last().ok_or("no measured phase")?;
            let record = record(&last.name).ok_or_else(|| format!("phase '{}' has no record", last.name))?;
            Ok(record.bench.latency_ms.p99)
        }
        _ => memory_peak(plan, results, cell, meta.rep)
            .ok_or_else(|| "no memory figure (no box, no RSS sample)".to_string()),
    }
}

/// The memory a trial used over its whole life, bytes: its box's peak (the kernel's, since the box was made), else
/// the highest RSS of its `gcstat.csv` and its phases' JVM windows.
fn memory_peak(plan: &Plan, results: &ResultsDir, cell: &Cell, rep: u32) -> Option<f64> {
    const MIB: f64 = (1u64 << 20) as f64;
    let records: Vec<_> =
        plan.phases.iter().filter_map(|phase| results.read_phase(&cell.dir, rep, &phase.name)).collect();
    let most = |values: &mut dyn Iterator<Item = f64>| values.reduce(f64::max);
    let box_peak = most(&mut records.iter().filter_map(|r| r.cell_box.as_ref()?.memory_peak.map(|bytes| bytes as f64)));
    let gcstat = std::fs::read_to_string(RepFiles::of(&results.rep_dir(&cell.dir, rep)).gcstat()).ok();
    let samples = gcstat.and_then(|text| read_heap_samples(&text).ok()).unwrap_or_default();
    let windows = records.iter().filter_map(|record| record.jvm.as_ref().map(|jvm| jvm.rss_mb.max));
    let rss_peak = most(&mut samples.iter().filter_map(|sample| sample.rss_mb).chain(windows));
    box_peak.or(rss_peak.map(|mib| mib * MIB))
}
