//! Statistics over a [`GcLog`], optionally restricted to a window of uptime: pauses per kind, percentiles, GC
//! throughput, allocation and promotion rates, peak heap after GC, safepoint stop time.
//!
//! Definitions (also in docs/gclog.md):
//! - percentiles are nearest-rank: the smallest value with at least p % of the values at or below it;
//! - wall time is the part of the window the log covers (first to last line with a time);
//! - GC throughput = 100 × (1 − pause time / wall time);
//! - allocation rate = heap growth between collections / time between them: for each pair of consecutive
//!   collections with heap figures (pauses, and concurrent cycles that print them), before(n) − after(n−1) over
//!   start(n) − end(n−1); summed, then divided. Concurrent collectors allocate during their cycles too, which the
//!   log does not show: for them it is a lower bound;
//! - promotion rate = old-generation growth during young pauses (`[gc,heap]` lines) / wall time;
//! - a pause logged inside another (`within_gc_id`) is part of that pause's time and is not counted again;
//! - stalls (time threads waited for the collector outside pauses) are counted apart from pauses;
//! - every figure is rounded to 6 decimals (a nanosecond for ms figures), and never `-0`.

use serde::Serialize;

use super::model::{ConcurrentCycle, GcLog, Pause, PauseKind, Stall, StallKind};

/// The summary of a log, or of one window of it. Times in ms, sizes in MB, rates in MB/s; null when the log
/// does not allow the figure.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct GcLogSummary {
    /// The uptime window (seconds) the figures are restricted to, when one was asked for.
    pub window: Option<Window>,
    /// Wall time the figures cover, in seconds.
    pub wall_s: Option<f64>,
    /// Stop-the-world pauses as the GC reports them (in JSON at the top level of the summary).
    #[serde(flatten)]
    pub pauses: DurationStats,
    pub by_kind: Vec<KindSummary>,
    /// Pauses logged inside another pause (listed with `within_gc_id`): their time is in that pause's.
    pub nested_pauses: usize,
    /// Time application threads waited for the collector outside pauses.
    pub stalls: StallSummary,
    pub gc_throughput_pct: Option<f64>,
    pub alloc_rate_mb_s: Option<f64>,
    pub promotion_rate_mb_s: Option<f64>,
    pub peak_heap_after_mb: Option<f64>,
    /// Safepoints: the time the application was stopped, GC or not.
    pub safepoints: StopSummary,
    pub concurrent: ConcurrentSummary,
    pub unparsed_lines: u64,
}

#[derive(Debug, Clone, Copy, Serialize, PartialEq)]
pub struct Window {
    pub from_s: f64,
    pub to_s: f64,
}

/// Pauses of one kind.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct KindSummary {
    pub kind: PauseKind,
    pub count: usize,
    pub total_ms: f64,
    pub mean_ms: f64,
    pub max_ms: f64,
}

/// Count, sum and distribution of a set of durations (ms); null figures when the set is empty.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct DurationStats {
    pub count: usize,
    pub total_ms: f64,
    pub mean_ms: Option<f64>,
    pub max_ms: Option<f64>,
    pub p50_ms: Option<f64>,
    pub p90_ms: Option<f64>,
    pub p99_ms: Option<f64>,
}

/// The safepoints' stop times.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct StopSummary {
    #[serde(flatten)]
    pub stops: DurationStats,
    /// Stop time as a share of wall time.
    pub stopped_pct: Option<f64>,
}

/// Stalls: ZGC allocation stalls, Shenandoah allocation-failure waits, and Shenandoah's pacing.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct StallSummary {
    #[serde(flatten)]
    pub stalls: DurationStats,
    pub by_kind: Vec<StallKindSummary>,
    /// Stall time as a share of wall time. Stalls hold up one thread each, so this can pass 100 % when many
    /// threads stall at once.
    pub stalled_pct: Option<f64>,
    /// Shenandoah's pacing delay over the whole JVM run (from its exit statistics); null with a window.
    pub pacing_total_ms: Option<f64>,
}

/// Stalls of one kind.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct StallKindSummary {
    pub kind: StallKind,
    pub count: usize,
    pub total_ms: f64,
    pub max_ms: f64,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ConcurrentSummary {
    pub count: usize,
    /// Sum of the cycles' durations (those that have one).
    pub total_ms: f64,
    pub max_ms: Option<f64>,
    pub aborted: usize,
}

/// Whether an event that starts at `start_s` belongs to `window` (uptime seconds, both ends included). Without a
/// window everything does; with one, events without a time do not.
pub fn in_window(start_s: Option<f64>, window: Option<(f64, f64)>) -> bool {
    match (window, start_s) {
        (None, _) => true,
        (Some((from, to)), Some(start)) => start >= from && start <= to,
        (Some(_), None) => false,
    }
}

impl GcLog {
    /// Statistics of the pauses, cycles and safepoints whose start falls in `window` (see [`in_window`]).
    pub fn summary(&self, window: Option<(f64, f64)>) -> GcLogSummary {
        let inside = |start_s: Option<f64>| in_window(start_s, window);
        let pauses: Vec<&Pause> =
            self.pauses.iter().filter(|pause| inside(pause.start_s) && pause.within_gc_id.is_none()).collect();
        let nested_pauses =
            self.pauses.iter().filter(|pause| inside(pause.start_s) && pause.within_gc_id.is_some()).count();
        let stalls: Vec<&Stall> = self.stalls.iter().filter(|stall| inside(stall.start_s)).collect();
        let cycles: Vec<&ConcurrentCycle> = self.concurrent.iter().filter(|cycle| inside(cycle.start_s)).collect();
        let safepoint_ms: Vec<f64> =
            self.safepoints.iter().filter(|safepoint| inside(safepoint.start_s)).map(|s| s.total_ms).collect();
        let wall_s = self.wall_seconds(window);
        let pause_stats = DurationStats::of(pauses.iter().map(|pause| pause.duration_ms).collect());
        let samples = heap_samples(&pauses, &cycles);
        GcLogSummary {
            window: window.map(|(from_s, to_s)| Window { from_s, to_s }),
            wall_s,
            gc_throughput_pct: wall_s.map(|wall| tidy((100.0 * (1.0 - pause_stats.total_ms / 1e3 / wall)).max(0.0))),
            pauses: pause_stats,
            by_kind: by_kind(&pauses),
            nested_pauses,
            stalls: stall_summary(&stalls, wall_s, if window.is_none() { self.pacing_total_ms } else { None }),
            alloc_rate_mb_s: allocation_rate(&samples).map(tidy),
            promotion_rate_mb_s: promotion_rate(&pauses, wall_s).map(tidy),
            peak_heap_after_mb: pauses
                .iter()
                .filter_map(|pause| pause.after_mb)
                .chain(cycles.iter().filter_map(|cycle| cycle.after_mb))
                .reduce(f64::max)
                .map(tidy),
            safepoints: stop_summary(safepoint_ms, wall_s),
            concurrent: concurrent_summary(&cycles),
            unparsed_lines: self.unparsed_lines,
        }
    }

    /// The part of the window that the log covers, in seconds (the whole log without a window).
    fn wall_seconds(&self, window: Option<(f64, f64)>) -> Option<f64> {
        let (mut first, mut last) = (self.first_uptime_s?, self.last_uptime_s?);
        if let Some((from, to)) = window {
            first = first.max(from);
            last = last.min(to);
        }
        (last > first).then(|| tidy(last - first))
    }
}

/// A computed figure rounded to 6 decimals (sums of decimals such as 3.1369999999999996 become 3.137), and 0
/// instead of -0.
pub fn tidy(value: f64) -> f64 {
    (value * 1e6).round() / 1e6 + 0.0
}

/// Durations in ms, sorted, with their sum.
struct Durations {
    sorted: Vec<f64>,
    total: f64,
}

impl Durations {
    fn new(mut values: Vec<f64>) -> Self {
        values.sort_by(f64::total_cmp);
        let total = tidy(values.iter().fold(0.0, |sum, value| sum + value));
        Durations { sorted: values, total }
    }

    fn max(&self) -> Option<f64> {
        self.sorted.last().copied()
    }

    fn mean(&self) -> Option<f64> {
        (!self.sorted.is_empty()).then(|| tidy(self.total / self.sorted.len() as f64))
    }

    /// Nearest rank: the value at rank ⌈p/100 × n⌉.
    fn percentile(&self, p: f64) -> Option<f64> {
        let rank = ((p / 100.0) * self.sorted.len() as f64).ceil() as usize;
        self.sorted.get(rank.max(1) - 1).copied()
    }
}

impl DurationStats {
    /// The count, sum and nearest-rank percentiles of `values` (ms).
    pub fn of(values: Vec<f64>) -> Self {
        let durations = Durations::new(values);
        DurationStats {
            count: durations.sorted.len(),
            total_ms: durations.total,
            mean_ms: durations.mean(),
            max_ms: durations.max(),
            p50_ms: durations.percentile(50.0),
            p90_ms: durations.percentile(90.0),
            p99_ms: durations.percentile(99.0),
        }
    }
}

fn by_kind(pauses: &[&Pause]) -> Vec<KindSummary> {
    PauseKind::ALL
        .iter()
        .filter_map(|&kind| {
            let durations: Vec<f64> =
                pauses.iter().filter(|pause| pause.kind == kind).map(|pause| pause.duration_ms).collect();
            let stats = Durations::new(durations);
            Some(KindSummary {
                kind,
                count: stats.sorted.len(),
                total_ms: stats.total,
                mean_ms: stats.mean()?,
                max_ms: stats.max()?,
            })
        })
        .collect()
}

fn stop_summary(stops_ms: Vec<f64>, wall_s: Option<f64>) -> StopSummary {
    let stops = DurationStats::of(stops_ms);
    StopSummary { stopped_pct: wall_s.map(|wall| tidy(100.0 * stops.total_ms / 1e3 / wall)), stops }
}

fn stall_summary(stalls: &[&Stall], wall_s: Option<f64>, pacing_total_ms: Option<f64>) -> StallSummary {
    let stats = DurationStats::of(stalls.iter().map(|stall| stall.duration_ms).collect());
    let by_kind = [StallKind::AllocationStall, StallKind::AllocationFailure]
        .into_iter()
        .filter_map(|kind| {
            let durations = Durations::new(
                stalls.iter().filter(|stall| stall.kind == kind).map(|stall| stall.duration_ms).collect(),
            );
            Some(StallKindSummary {
                kind,
                count: durations.sorted.len(),
                total_ms: durations.total,
                max_ms: durations.max()?,
            })
        })
        .collect();
    StallSummary {
        stalled_pct: wall_s.map(|wall| tidy(100.0 * stats.total_ms / 1e3 / wall)),
        stalls: stats,
        by_kind,
        pacing_total_ms,
    }
}

fn concurrent_summary(cycles: &[&ConcurrentCycle]) -> ConcurrentSummary {
    let durations: Vec<f64> = cycles.iter().filter_map(|cycle| cycle.duration_ms).collect();
    ConcurrentSummary {
        count: cycles.len(),
        total_ms: tidy(durations.iter().fold(0.0, |sum, value| sum + value)),
        max_ms: durations.iter().copied().reduce(f64::max),
        aborted: cycles.iter().filter(|cycle| cycle.aborted).count(),
    }
}

/// A collection with heap figures and known times.
struct HeapSample {
    start_s: f64,
    end_s: f64,
    before_mb: f64,
    after_mb: f64,
}

fn heap_samples(pauses: &[&Pause], cycles: &[&ConcurrentCycle]) -> Vec<HeapSample> {
    let from_pauses = pauses.iter().filter_map(|pause| {
        let start_s = pause.start_s?;
        Some(HeapSample {
            start_s,
            end_s: start_s + pause.duration_ms / 1e3,
            before_mb: pause.before_mb?,
            after_mb: pause.after_mb?,
        })
    });
    let from_cycles = cycles.iter().filter_map(|cycle| {
        let start_s = cycle.start_s?;
        Some(HeapSample {
            start_s,
            end_s: start_s + cycle.duration_ms? / 1e3,
            before_mb: cycle.before_mb?,
            after_mb: cycle.after_mb?,
        })
    });
    let mut samples: Vec<HeapSample> = from_pauses.chain(from_cycles).collect();
    // By end: the time on the line itself. Starts are computed (line time minus duration) from uptimes rounded to
    // the millisecond, and can swap two back-to-back pauses.
    samples.sort_by(|a, b| a.end_s.total_cmp(&b.end_s));
    samples
}

/// Heap growth between consecutive collections over the time between them (pairs that overlap are skipped).
/// `samples` are in order of their end.
fn allocation_rate(samples: &[HeapSample]) -> Option<f64> {
    let (grown_mb, seconds) = samples
        .windows(2)
        .filter(|pair| pair[1].start_s > pair[0].end_s)
        .map(|pair| ((pair[1].before_mb - pair[0].after_mb).max(0.0), pair[1].start_s - pair[0].end_s))
        .fold((0.0, 0.0), |(mb, s), (grown, gap)| (mb + grown, s + gap));
    (seconds > 0.0).then(|| grown_mb / seconds)
}

/// Old-generation growth during young pauses over wall time.
fn promotion_rate(pauses: &[&Pause], wall_s: Option<f64>) -> Option<f64> {
    let promoted: Vec<f64> = pauses
        .iter()
        .filter(|pause| pause.kind == PauseKind::Young)
        .filter_map(|pause| Some((pause.old_after_mb? - pause.old_before_mb?).max(0.0)))
        .collect();
    if promoted.is_empty() {
        return None;
    }
    wall_s.map(|wall| promoted.iter().sum::<f64>() / wall)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let stats = Durations::new((1..=10).rev().map(f64::from).collect());
        assert_eq!(stats.percentile(50.0), Some(5.0));
        assert_eq!(stats.percentile(90.0), Some(9.0));
        assert_eq!(stats.percentile(99.0), Some(10.0));
        assert_eq!(stats.max(), Some(10.0));
        assert_eq!(stats.mean(), Some(5.5));
        let one = Durations::new(vec![3.0]);
        assert_eq!((one.percentile(50.0), one.percentile(99.0)), (Some(3.0), Some(3.0)));
        assert_eq!(Durations::new(vec![]).percentile(50.0), None);
    }

    #[test]
    fn allocation_rate_over_the_gaps_between_collections() {
        let sample = |start_s: f64, end_s: f64, before_mb: f64, after_mb: f64| HeapSample {
            start_s,
            end_s,
            before_mb,
            after_mb,
        };
        // 10 MB -> 2 MB ending at 1.0 s; at 2.0 s the heap holds 22 MB again: 20 MB in 1 s. Then 22 -> 5 ending at
        // 2.5 s, and 45 MB at 4.5 s: 40 MB in 2 s. Together 60 MB in 3 s.
        let samples = [sample(0.9, 1.0, 10.0, 2.0), sample(2.0, 2.5, 22.0, 5.0), sample(4.5, 4.6, 45.0, 40.0)];
        assert_eq!(allocation_rate(&samples), Some(20.0));
        assert_eq!(allocation_rate(&samples[..1]), None);
    }
}
