//! A phase's GC share and the GC-time figures shown beside it: the one rule every output follows.
//!
//! The GC share (`gc_wait_pct`, "GC share %") is the share of the phase the application waited for the collector:
//! its GC pauses — each from its safepoint's start when the GC log has safepoint lines, so the time to reach the
//! safepoint counts, as a request waits through it — and the time threads were stalled for it outside a pause, their
//! union. Those are the GC windows "is it the GC?" lays requests over (`jvm::gclog::stops`, `attribution`), so the share and
//! the verdict speak of the same stops. A repeat without a GC log has jstat's GC time (GCT) as its share instead,
//! and the phase says which cells that is.
//!
//! The other GC-time figures are shown only where they add something to it, each by a rule with stated margins
//! ([`GcShare::of`]): jstat's GC time where it is well above the GC pause share (concurrent work counted as GC
//! time: Shenandoah's cycles), the safepoint share where safepoints that are no GC took time, and the GC share's
//! parts — pauses, stalls — where threads stalled.

use super::metrics::Format;
use super::model::{Beside, CellPhase, GcShare};

/// The metric key of the GC share.
pub const GC_SHARE: &str = "gc_wait_pct";

/// jstat's GC time (GCT) is shown where, in some cell, it is above the GC pause share by more than this many
/// percentage points and this many times over: it then counts collector time the application did not wait for. The
/// time to reach a safepoint, which the pause share counts and GCT does not, only ever keeps GCT below it.
pub const JSTAT_ABOVE_POINTS: f64 = 1.0;
pub const JSTAT_ABOVE_RATIO: f64 = 1.5;

/// The safepoint share is shown where, in some cell, it is above the GC pause share (its GC safepoints) by more than
/// this many percentage points and this many times over: safepoints that are no GC took time of their own.
pub const SAFEPOINT_ABOVE_POINTS: f64 = 1.0;
pub const SAFEPOINT_ABOVE_RATIO: f64 = 1.25;

impl GcShare {
    /// The rule over the phase's cells (each figure its median over the cell's repeats); `label` names a cell.
    pub fn of(cells: &[CellPhase], label: &dyn Fn(&str) -> String) -> GcShare {
        let from_jstat: Vec<String> =
            cells.iter().filter(|cell| !cell.gc_share_from_jstat.is_empty()).map(|cell| cell.cell.clone()).collect();
        let mut definition = "GC share %: the share of the phase the application waited for the collector — its GC \
                              pauses, each from its safepoint's start (reaching it included) where the GC log has \
                              safepoint lines, and the time threads were stalled for it outside a pause, counted once \
                              where they overlap: the GC windows \"is it the GC?\" weighs (GC log)."
            .to_string();
        if !from_jstat.is_empty() {
            let named: Vec<String> = cells
                .iter()
                .filter(|cell| !cell.gc_share_from_jstat.is_empty())
                .map(|cell| format!("{} (repeat {})", label(&cell.cell), join(&cell.gc_share_from_jstat)))
                .collect();
            definition += &format!(
                " Without a GC log it is jstat's GC time (GCT), the collector's own time counter: {}.",
                named.join(", ")
            );
        }
        let median = |cell: &CellPhase, key: &str| cell.figure(key).map(|estimate| estimate.median);
        let mut beside = Vec::new();
        let stalled: Vec<&CellPhase> =
            cells.iter().filter(|cell| median(cell, "stall_pct").is_some_and(|pct| pct > 0.0)).collect();
        if let Some(first) = stalled.first() {
            beside.push(Beside {
                figures: vec!["pause_pct", "stall_pct", "stalled_threads", "longest_stall_ms"],
                why: format!(
                    "GC pause % and GC stall %: the GC share's two parts, the pauses alone and the time at least one \
                     thread was stalled for the collector outside a pause (ZGC allocation stalls, Shenandoah \
                     allocation failures); GC-stalled threads (mean): those stalls summed over threads, per second \
                     of the phase. Shown because threads stalled in {}.",
                    cells_named(label(&first.cell), stalled.len())
                ),
            });
        }
        let above = |key: &str, points: f64, ratio: f64| {
            let mut over: Vec<(&CellPhase, f64, f64)> = cells
                .iter()
                .filter_map(|cell| Some((cell, median(cell, key)?, median(cell, "pause_pct")?)))
                .filter(|&(_, figure, pause)| figure - pause > points && figure > pause * ratio)
                .collect();
            over.sort_by(|a, b| (b.1 - b.2).total_cmp(&(a.1 - a.2)));
            over
        };
        let jstat = above("gc_pct", JSTAT_ABOVE_POINTS, JSTAT_ABOVE_RATIO);
        if let Some(&(cell, gct, pause)) = jstat.first() {
            beside.push(Beside {
                figures: vec!["gc_pct"],
                why: format!(
                    "jstat GC time %: the collector's own time counter (jstat's GCT) as a share of the phase. Shown \
                     because it is more than {JSTAT_ABOVE_POINTS} percentage point and {JSTAT_ABOVE_RATIO}× above \
                     the GC pause share in {} ({} against {}): it counts collector work the application did not \
                     wait for (concurrent cycles); a collector that stops the world for all its work keeps it \
                     below the pause share, since it leaves out the time to reach a safepoint.",
                    cells_named(label(&cell.cell), jstat.len()),
                    percent(gct),
                    percent(pause)
                ),
            });
        }
        let safepoints = above("safepoint_pct", SAFEPOINT_ABOVE_POINTS, SAFEPOINT_ABOVE_RATIO);
        if let Some(&(cell, safepoint, pause)) = safepoints.first() {
            beside.push(Beside {
                figures: vec!["safepoint_pct"],
                why: format!(
                    "safepoint % (GC or not): the time the JVM stood at safepoints, the GC's and every other \
                     (deoptimization, code-cache sweeps, thread dumps, …), as a share of the phase (the GC log's \
                     safepoint lines). Shown because it is more than {SAFEPOINT_ABOVE_POINTS} percentage point and \
                     {SAFEPOINT_ABOVE_RATIO}× above the GC pause share in {} ({} against {}): safepoints that are \
                     no GC took time of their own.",
                    cells_named(label(&cell.cell), safepoints.len()),
                    percent(safepoint),
                    percent(pause)
                ),
            });
        }
        GcShare { figure: GC_SHARE, definition, from_jstat, beside }
    }

    /// Whether the phase's tables show the figure `key` beside the GC share.
    pub fn shows(&self, key: &str) -> bool {
        self.beside.iter().any(|beside| beside.figures.contains(&key))
    }
}

/// `-Xmx64m G1`, or `-Xmx64m G1 and 2 other cells`.
fn cells_named(first: String, count: usize) -> String {
    match count {
        0 | 1 => first,
        2 => format!("{first} and 1 other cell"),
        _ => format!("{first} and {} other cells", count - 1),
    }
}

fn join(reps: &[u32]) -> String {
    reps.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
}

/// `12.58 %`: a share as the tables show it.
fn percent(pct: f64) -> String {
    format!("{} %", Format::Percent.show(pct))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::report::analysis::cell_attribution::CellAttribution;
    use crate::report::analysis::stats::Estimate;

    /// A cell of one repeat with these figures (metric key, %).
    fn cell(id: &str, figures: &[(&'static str, f64)]) -> CellPhase {
        CellPhase {
            cell: id.to_string(),
            reps: vec![1],
            figures: figures.iter().map(|&(key, pct)| (key, Estimate::of(vec![pct]).unwrap())).collect(),
            standing: BTreeMap::new(),
            slo: None,
            gc_attribution: CellAttribution::Missing { why: "no GC log".to_string() },
            gc_share_from_jstat: Vec::new(),
            tail_chart: None,
            spectrum: None,
            short_of_rate: None,
            capacity: None,
            curve: Vec::new(),
            memory: None,
            profile: None,
        }
    }

    fn of(cells: &[CellPhase]) -> GcShare {
        GcShare::of(cells, &|id| format!("cell {id}"))
    }

    fn shown(share: &GcShare) -> Vec<&'static str> {
        share.beside.iter().flat_map(|beside| beside.figures.clone()).collect()
    }

    #[test]
    fn a_stop_the_world_collector_shows_the_gc_share_alone() {
        // Serial, 273 young collections in 4 s: jstat's GCT leaves out the time to reach each safepoint, which the
        // pause share counts; every safepoint was a GC's.
        let serial = cell(
            "serial",
            &[
                ("gc_wait_pct", 3.34),
                ("pause_pct", 3.34),
                ("gc_pct", 2.17),
                ("safepoint_pct", 3.34),
                ("stall_pct", 0.0),
            ],
        );
        let share = of(&[serial]);
        assert_eq!(share.figure, "gc_wait_pct");
        assert!(share.beside.is_empty(), "{:?}", share.beside);
        assert!(share.from_jstat.is_empty());
        assert_eq!(
            share.definition,
            "GC share %: the share of the phase the application waited for the collector — its GC pauses, each from \
             its safepoint's start (reaching it included) where the GC log has safepoint lines, and the time threads \
             were stalled for it outside a pause, counted once where they overlap: the GC windows \"is it the GC?\" \
             weighs (GC log)."
        );
    }

    #[test]
    fn jstats_gc_time_is_shown_where_it_counts_concurrent_work_above_the_pause_share() {
        let g1 = cell("g1", &[("gc_wait_pct", 7.30), ("pause_pct", 7.30), ("gc_pct", 6.73)]);
        let shenandoah = cell("shen", &[("gc_wait_pct", 0.02), ("pause_pct", 0.02), ("gc_pct", 12.58)]);
        let share = of(&[g1, shenandoah]);
        assert_eq!(shown(&share), ["gc_pct"]);
        assert_eq!(
            share.beside[0].why,
            "jstat GC time %: the collector's own time counter (jstat's GCT) as a share of the phase. Shown because it \
             is more than 1 percentage point and 1.5× above the GC pause share in cell shen (12.58 % against 0.02 %): \
             it counts collector work the application did not wait for (concurrent cycles); a collector that stops \
             the world for all its work keeps it below the pause share, since it leaves out the time to reach a \
             safepoint."
        );
    }

    #[test]
    fn jstats_gc_time_within_either_margin_is_not_shown() {
        // 1.5× but only 0.5 points above; 1 point above but only 1.2×.
        let small = cell("small", &[("pause_pct", 1.0), ("gc_pct", 1.5)]);
        let close = cell("close", &[("pause_pct", 10.0), ("gc_pct", 12.0)]);
        assert!(of(&[small, close]).beside.is_empty());
    }

    #[test]
    fn the_safepoint_share_is_shown_where_safepoints_that_are_no_gc_took_time() {
        let quiet = || cell("quiet", &[("pause_pct", 3.0), ("safepoint_pct", 3.9)]);
        let busy = cell("busy", &[("pause_pct", 4.67), ("safepoint_pct", 10.39)]);
        assert!(of(&[quiet()]).beside.is_empty(), "0.9 points of other safepoints");
        let share = of(&[quiet(), busy]);
        assert_eq!(shown(&share), ["safepoint_pct"]);
        assert!(
            share.beside[0]
                .why
                .starts_with("safepoint % (GC or not): the time the JVM stood at safepoints, the GC's and every other"),
            "{}",
            share.beside[0].why
        );
        assert!(share.beside[0].why.contains("in cell busy (10.39 % against 4.67 %)"), "{}", share.beside[0].why);
    }

    #[test]
    fn stalls_show_the_gc_shares_parts() {
        let zgc = cell("zgc", &[("gc_wait_pct", 40.0), ("pause_pct", 0.03), ("stall_pct", 39.99), ("gc_pct", 0.03)]);
        let share = of(&[zgc]);
        assert_eq!(shown(&share), ["pause_pct", "stall_pct", "stalled_threads", "longest_stall_ms"]);
        assert!(share.beside[0].why.ends_with("Shown because threads stalled in cell zgc."), "{}", share.beside[0].why);
    }

    #[test]
    fn a_cell_without_a_gc_log_is_named_as_having_jstats_gc_time_for_its_share() {
        let mut no_log = cell("no-log", &[("gc_wait_pct", 2.0), ("pause_pct", 2.0), ("gc_pct", 2.0)]);
        no_log.gc_share_from_jstat = vec![1, 3];
        let share = of(&[no_log]);
        assert_eq!(share.from_jstat, ["no-log"]);
        assert!(
            share.definition.ends_with(
                " Without a GC log it is jstat's GC time (GCT), the collector's own time counter: cell no-log (repeat \
                 1, 3)."
            ),
            "{}",
            share.definition
        );
    }
}
