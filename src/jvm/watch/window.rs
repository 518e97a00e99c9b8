//! What a JVM did during a window of time (a bench run or a plan phase), from samples taken at its start, during
//! it and at its end: GC count and time deltas, GC time share, old-generation and RSS occupancy, CPU use; and from
//! the GC log, the pauses, stalls and safepoints inside the window.

use serde::{Deserialize, Serialize};

use std::fmt::Write;

use crate::intervals::Union;
use crate::jvm::gclog::stops::{self, Stop, StopKind};
use crate::jvm::gclog::{DurationStats, GcLog, Pause, PauseKind};
use crate::jvm::perfdata::sampler::{GcTotals, JvmSample};
use crate::jvm::procfs::ticks_per_second;

/// Start, end and extreme of a figure over the window.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq)]
pub struct Span {
    pub start: f64,
    pub end: f64,
    pub max: f64,
}

/// GC pauses inside the window, from the target's GC log.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct WindowPauses {
    pub count: u64,
    pub total_ms: f64,
    pub max_ms: f64,
    pub p50_ms: f64,
    pub p90_ms: f64,
    pub p99_ms: f64,
    /// Total time the application was stopped at safepoints (reaching + at + leaving), when the log has it.
    pub safepoint_total_ms: Option<f64>,
    pub safepoint_max_ms: Option<f64>,
    /// Each pause: uptime start (s), duration (ms), kind — for drawing pauses on the run's time line.
    pub pauses: Vec<(f64, f64, String)>,
    /// Stalls inside the window: threads waiting for the collector outside pauses (ZGC allocation stalls,
    /// Shenandoah allocation-failure waits). Summed over threads.
    #[serde(default)]
    pub stall_count: u64,
    #[serde(default)]
    pub stall_total_ms: f64,
    #[serde(default)]
    pub stall_max_ms: f64,
    /// Each stall: uptime start (s), duration (ms), kind.
    #[serde(default)]
    pub stalls: Vec<(f64, f64, String)>,
}

/// The JVM block of a bench or phase result.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct JvmWindow {
    pub pid: u32,
    pub samples: usize,
    /// JVM uptime at the window's start and end, in seconds.
    pub uptime_start_s: f64,
    pub uptime_end_s: f64,
    /// Young, full and concurrent collections in the window and their time (None where jstat prints "-").
    #[serde(flatten)]
    pub collections: GcTotals,
    /// GC time (jstat's GCT delta) as % of the window. For ZGC and Shenandoah GCT includes concurrent cycles, so
    /// this can pass 100 %; see [`JvmWindow::paused_pct`] for the time the application was stopped.
    pub gc_time_pct: Option<f64>,
    /// Old generation used, % of its capacity (jstat's O column).
    pub old_used_pct: Option<Span>,
    pub old_used_mb: Option<Span>,
    pub rss_mb: Span,
    /// Average CPU use of the target over the window, % of one core.
    pub cpu_pct: Option<f64>,
    pub threads_max: u64,
    /// Pauses from the GC log inside the window (None when the target writes no GC log jload can read).
    pub pauses: Option<WindowPauses>,
}

const MB: f64 = 1024.0 * 1024.0;

fn span(values: impl Iterator<Item = Option<f64>> + Clone, start: Option<f64>, end: Option<f64>) -> Option<Span> {
    let max = values.flatten().fold(f64::NEG_INFINITY, f64::max);
    Some(Span { start: start?, end: end?, max: max.max(start?).max(end?) })
}

impl JvmWindow {
    /// Summarise the window from `start` to `end`; `during` are the samples taken between them (any order).
    pub fn between(start: &JvmSample, end: &JvmSample, during: &[JvmSample]) -> JvmWindow {
        let all: Vec<&JvmSample> = std::iter::once(start).chain(during.iter()).chain(std::iter::once(end)).collect();
        let seconds = end.timestamp.saturating_duration_since(start.timestamp).as_secs_f64();
        let collections = end.collections.since(&start.collections);
        let old_mb = |sample: &JvmSample| sample.old.used_bytes.map(|bytes| bytes as f64 / MB);
        let rss_mb = |sample: &JvmSample| sample.rss_bytes as f64 / MB;
        let cpu_pct = (seconds > 0.0).then(|| {
            let ticks = end.cpu_ticks.saturating_sub(start.cpu_ticks) as f64;
            ticks / ticks_per_second() as f64 / seconds * 100.0
        });
        JvmWindow {
            pid: end.pid,
            samples: all.len(),
            uptime_start_s: start.uptime_s,
            uptime_end_s: end.uptime_s,
            gc_time_pct: collections.gct_s.filter(|_| seconds > 0.0).map(|gct| gct / seconds * 100.0),
            collections,
            old_used_pct: span(all.iter().map(|sample| sample.old.used_pct), start.old.used_pct, end.old.used_pct),
            old_used_mb: span(all.iter().map(|sample| old_mb(sample)), old_mb(start), old_mb(end)),
            rss_mb: span(all.iter().map(|sample| Some(rss_mb(sample))), Some(rss_mb(start)), Some(rss_mb(end)))
                .unwrap_or_default(),
            cpu_pct,
            threads_max: all.iter().map(|sample| sample.threads).max().unwrap_or(0),
            pauses: None,
        }
    }
}

impl JvmWindow {
    /// The share of the window the application was stopped by GC pauses (from the GC log), or jstat's GC time share
    /// when there is no GC log.
    pub fn paused_pct(&self) -> Option<f64> {
        self.log_share(|pauses| Some(pauses.total_ms)).or(self.gc_time_pct)
    }

    /// The share of the window (%) during which at least one thread was stalled waiting for the collector outside a
    /// pause: the stalls' union, so threads stalled at the same time count once and it never passes 100 %.
    pub fn stalled_pct(&self) -> Option<f64> {
        let pauses = self.pauses.as_ref()?;
        self.covered_pct(pauses.stalls.iter())
    }

    /// Threads stalled waiting for the collector, on average over the window: stall thread-seconds per second (the
    /// stalls summed over threads). 4.35 means four to five threads waited at any time; it is not a share of time.
    pub fn stalled_threads(&self) -> Option<f64> {
        self.log_share(|pauses| Some(pauses.stall_total_ms)).map(|pct| pct / 100.0)
    }

    /// What the application waited for the collector, as % of the window: the share during which it was paused or
    /// at least one thread was stalled (the union of pauses and stalls: at most 100 %). jstat's GC time share when
    /// there is no GC log.
    pub fn gc_wait_pct(&self) -> Option<f64> {
        match &self.pauses {
            Some(pauses) => self.covered_pct(pauses.pauses.iter().chain(&pauses.stalls)),
            None => self.paused_pct(),
        }
    }

    /// The share of the window (%) covered by the union of `stops` ((uptime start s, length ms, kind)), each clipped
    /// to the window (to the microsecond); None for a window of no length.
    fn covered_pct<'a>(&self, stops: impl Iterator<Item = &'a (f64, f64, String)>) -> Option<f64> {
        let (from, to) = (self.uptime_start_s, self.uptime_end_s);
        if to <= from {
            return None;
        }
        let micros = |seconds: f64| (seconds * 1e6).round() as i64;
        let union = Union::of(stops.map(|(start, ms, _)| (micros(*start), micros(start + ms / 1000.0))));
        let covered_us = union.covered(micros(from), micros(to));
        Some(covered_us as f64 / 1e6 / (to - from) * 100.0)
    }

    /// Time stopped at safepoints (GC or not) as % of the window, when the GC log has safepoint lines.
    pub fn safepoint_pct(&self) -> Option<f64> {
        self.log_share(|pauses| pauses.safepoint_total_ms)
    }

    /// A time (ms) from the GC log as % of the window; None without a GC log.
    fn log_share(&self, read: impl Fn(&WindowPauses) -> Option<f64>) -> Option<f64> {
        let seconds = self.uptime_end_s - self.uptime_start_s;
        let pauses = self.pauses.as_ref().filter(|_| seconds > 0.0)?;
        read(pauses).map(|ms| ms / 1000.0 / seconds * 100.0)
    }
}

impl WindowPauses {
    /// The GC pauses and stalls the window `from_s..to_s` (JVM uptime) met, and its safepoints.
    ///
    /// One source for every figure of a pause, shared with the attribution (`attribution::gather`): the JVM's stops
    /// (`jvm::gclog::stops`), where a GC pause runs from the start of its safepoint (threads held up while reaching it
    /// included, as a request waits) to its end — the pause line alone when the log has no `-Xlog:safepoint`. A stop
    /// belongs to the window when it overlaps it (as the attribution counts the stops a run met); its count, longest
    /// and percentiles are of whole stops, while `total_ms` and `stall_total_ms` count only the time inside the
    /// window, so that a time share never passes what the window held.
    pub fn from_log(log: &GcLog, from_s: f64, to_s: f64) -> WindowPauses {
        let met: Vec<Stop> = stops::stops(log)
            .into_iter()
            .filter(|stop| stop.start_s < to_s && stop.start_s + stop.duration_ms / 1e3 > from_s)
            .collect();
        let inside_ms = |stop: &Stop| {
            let end_s = (stop.start_s + stop.duration_ms / 1e3).min(to_s);
            ((end_s - stop.start_s.max(from_s)) * 1e3).max(0.0)
        };
        let of_kind = |kind: StopKind| met.iter().filter(move |stop| stop.kind == kind);
        let pause_stats = DurationStats::of(of_kind(StopKind::GcPause).map(|stop| stop.duration_ms).collect());
        let stall_stats = DurationStats::of(of_kind(StopKind::GcStall).map(|stop| stop.duration_ms).collect());
        let lines: Vec<&Pause> = log
            .pauses
            .iter()
            .filter(|pause| pause.within_gc_id.is_none())
            .filter(|pause| pause.start_s.is_some_and(|start| start + 1.0 >= from_s && start - 1.0 <= to_s))
            .collect();
        let pauses =
            of_kind(StopKind::GcPause).map(|stop| (stop.start_s, stop.duration_ms, pause_kind(&lines, stop))).collect();
        let stalls = log
            .stalls
            .iter()
            .filter(|stall| stall.start_s.is_some_and(|start| start < to_s && start + stall.duration_ms / 1e3 > from_s))
            .filter_map(|stall| Some((stall.start_s?, stall.duration_ms, stall.kind.as_str().to_string())))
            .collect();
        let summary = log.summary(Some((from_s, to_s)));
        let stops = &summary.safepoints.stops;
        WindowPauses {
            count: pause_stats.count as u64,
            total_ms: of_kind(StopKind::GcPause).map(inside_ms).sum(),
            max_ms: pause_stats.max_ms.unwrap_or(0.0),
            p50_ms: pause_stats.p50_ms.unwrap_or(0.0),
            p90_ms: pause_stats.p90_ms.unwrap_or(0.0),
            p99_ms: pause_stats.p99_ms.unwrap_or(0.0),
            safepoint_total_ms: (stops.count > 0).then_some(stops.total_ms),
            safepoint_max_ms: stops.max_ms,
            pauses,
            stall_count: stall_stats.count as u64,
            stall_total_ms: of_kind(StopKind::GcStall).map(inside_ms).sum(),
            stall_max_ms: stall_stats.max_ms.unwrap_or(0.0),
            stalls,
        }
    }
}

/// The kind of the GC pause a stop is (`young`, `remark`, …): that of the first pause line inside it; `other` for
/// a GC safepoint the log names no pause in.
fn pause_kind(lines: &[&Pause], stop: &Stop) -> String {
    let end_s = stop.start_s + stop.duration_ms / 1e3 + TIME_RESOLUTION_S;
    let first = lines
        .iter()
        .find(|pause| pause.start_s.is_some_and(|start| start >= stop.start_s - TIME_RESOLUTION_S && start <= end_s));
    first.map_or(PauseKind::Other, |pause| pause.kind).as_str().to_string()
}

/// Uptime decorations are printed to the millisecond.
const TIME_RESOLUTION_S: f64 = 0.001;

impl JvmWindow {
    /// The short block the bench summary prints under the load figures.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let gc = |count: Option<u64>, seconds: Option<f64>| match (count, seconds) {
            (Some(count), Some(seconds)) => format!("{count} ({seconds:.3} s)"),
            _ => "-".to_string(),
        };
        let totals = &self.collections;
        // One GC time share per output: the GC log's pauses when there is a log (the pause line), else jstat's GCT.
        let gc_time = match (&self.pauses, self.gc_time_pct) {
            (Some(_), _) => String::new(),
            (None, Some(pct)) => format!("  GC time {pct:.2} % of the run (jstat's GCT)"),
            (None, None) => "  GC time -".to_string(),
        };
        let _ = writeln!(
            out,
            "  JVM pid {}     YGC {}  FGC {}  CGC {}{gc_time}",
            self.pid,
            gc(totals.ygc, totals.ygct_s),
            gc(totals.fgc, totals.fgct_s),
            gc(totals.cgc, totals.cgct_s),
        );
        let old = self
            .old_used_pct
            .map_or("-".to_string(), |span| format!("{:.1} → {:.1} % (max {:.1} %)", span.start, span.end, span.max));
        let _ = writeln!(
            out,
            "                 old gen {old}   RSS {:.0} → {:.0} MB (peak {:.0})   CPU {}   threads {}",
            self.rss_mb.start,
            self.rss_mb.end,
            self.rss_mb.max,
            self.cpu_pct.map_or("-".to_string(), |pct| format!("{pct:.0} %")),
            self.threads_max
        );
        match &self.pauses {
            Some(pauses) => {
                let safepoints = match (pauses.safepoint_total_ms, pauses.safepoint_max_ms) {
                    (Some(total), Some(max)) => format!("; safepoint stops {total:.1} ms in all, longest {max:.2} ms"),
                    _ => String::new(),
                };
                let share = self.paused_pct().map_or("-".to_string(), |pct| format!("{pct:.2} %"));
                // With safepoint lines a pause runs from its safepoint's start (reaching it included); without, it is
                // the pause line's.
                let source = if pauses.safepoint_total_ms.is_some() {
                    "GC log, each from its safepoint's start"
                } else {
                    "GC log"
                };
                let _ = writeln!(
                    out,
                    "                 GC pauses {} ({source}): {share} of the run, total {:.1} ms, p50 {:.2} ms, p99 \
                     {:.2} ms, max {:.2} ms{safepoints}",
                    pauses.count, pauses.total_ms, pauses.p50_ms, pauses.p99_ms, pauses.max_ms
                );
                if pauses.stall_count > 0 {
                    let _ = writeln!(
                        out,
                        "                 GC stalls {} (threads waiting outside pauses): total {:.1} ms, max {:.2} ms",
                        pauses.stall_count, pauses.stall_total_ms, pauses.stall_max_ms
                    );
                }
            }
            None => {
                let _ = writeln!(
                    out,
                    "                 GC pauses: no GC log named in the target's command line (-Xlog:gc*:file=…)"
                );
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::jvm::gclog::parse_path;

    #[test]
    fn stalls_of_threads_in_parallel_count_once_in_the_share_of_time_and_each_in_the_threads_stalled() {
        // A 10 s window (uptime 10–20 s): a 1 s pause at 11 s; five threads stalled together 4 s from 14 s; one
        // stall from 19.5 s running 1 s past the window's end.
        let stall = |start: f64, ms: f64| (start, ms, "Allocation Stall".to_string());
        let mut stalls: Vec<_> = (0..5).map(|_| stall(14.0, 4_000.0)).collect();
        stalls.push(stall(19.5, 1_000.0));
        let window = JvmWindow {
            uptime_start_s: 10.0,
            uptime_end_s: 20.0,
            pauses: Some(WindowPauses {
                count: 1,
                total_ms: 1_000.0,
                pauses: vec![(11.0, 1_000.0, "Pause Young".to_string())],
                stall_count: 6,
                stall_total_ms: 21_000.0,
                stalls,
                ..WindowPauses::default()
            }),
            ..JvmWindow::default()
        };
        let close = |a: Option<f64>, b: f64| (a.unwrap() - b).abs() < 1e-9;
        // Threads stalled 4.5 s of the 10 (the union, the last clipped at the end): 45 %, never the summed 210 %.
        assert!(close(window.stalled_pct(), 45.0), "{:?}", window.stalled_pct());
        // 21 thread-seconds in 10 s: 2.1 threads on average.
        assert!(close(window.stalled_threads(), 2.1), "{:?}", window.stalled_threads());
        // Paused or stalled: 1 + 4.5 s of 10.
        assert!(close(window.gc_wait_pct(), 55.0), "{:?}", window.gc_wait_pct());
        assert!(close(window.paused_pct(), 10.0));
        // Without a GC log: jstat's share, and no stall figure.
        let no_log = JvmWindow { pauses: None, gc_time_pct: Some(3.0), ..window };
        assert_eq!((no_log.gc_wait_pct(), no_log.stalled_pct(), no_log.stalled_threads()), (Some(3.0), None, None));
    }

    #[test]
    fn a_phase_window_carries_the_stalls_it_met_and_counts_only_their_time_inside_it() {
        // zgc-jdk17-stalls.log (JDK 17 ZGC in 32 MB): its `Allocation Stall (main) d ms` lines (start = uptime − d)
        // that overlap the window 0.30..0.37 s; their time is counted only inside it.
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/gclog/zgc-jdk17-stalls.log");
        let text = std::fs::read_to_string(&path).unwrap();
        let (from, to) = (0.30, 0.37);
        let met: Vec<(f64, f64)> = text
            .lines()
            .filter(|line| line.contains("Allocation Stall ("))
            .filter_map(|line| {
                let uptime: f64 = line.split("][").nth(1)?.trim_end_matches('s').parse().ok()?;
                let ms: f64 = line.rsplit(' ').next()?.trim_end_matches("ms").parse().ok()?;
                let start = uptime - ms / 1e3;
                (start < to && uptime > from).then_some((start, ms))
            })
            .collect();
        assert!(met.len() >= 5, "{met:?}");
        let window = WindowPauses::from_log(&parse_path(&path).unwrap(), from, to);
        assert_eq!(window.stall_count as usize, met.len());
        assert_eq!(window.stalls.len(), met.len());
        let inside: f64 = met.iter().map(|(start, ms)| ((start + ms / 1e3).min(to) - start.max(from)) * 1e3).sum();
        assert!((window.stall_total_ms - inside).abs() < 1e-6, "{} != {inside}", window.stall_total_ms);
        assert_eq!(window.stall_max_ms, met.iter().map(|(_, ms)| *ms).fold(0.0, f64::max));
        assert!(window.stalls.iter().all(|(_, _, kind)| kind == "allocation_stall"));
        let jvm = JvmWindow { uptime_start_s: from, uptime_end_s: to, pauses: Some(window), ..JvmWindow::default() };
        // Stall thread-seconds per second of the window: the stalls' time inside it summed over threads.
        let threads = jvm.stalled_threads().unwrap();
        assert!((threads - inside / 1000.0 / (to - from)).abs() < 1e-9, "{threads}");
        // The share of time some thread was stalled is at most the sum, and at most 100 %.
        let stalled = jvm.stalled_pct().unwrap();
        assert!(stalled > 0.0 && stalled <= (threads * 100.0).min(100.0) + 1e-9, "{stalled}");
    }

    #[test]
    fn a_window_counts_the_gc_pauses_it_met_from_their_safepoints_start() {
        // A G1 log with safepoint lines: a pause is the stop jvm::gclog::stops makes of it (its safepoint, reaching it
        // included), a pause across the window's start counts, whole for its longest and only inside for its time.
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/gclog/g1-jdk17.log");
        let log = parse_path(&path).unwrap();
        let gc: Vec<Stop> = stops::stops(&log).into_iter().filter(|stop| stop.kind == StopKind::GcPause).collect();
        let second = &gc[1];
        let from = second.start_s + second.duration_ms / 2e3;
        let to = gc.last().unwrap().start_s + 1.0;
        let window = WindowPauses::from_log(&log, from, to);
        assert_eq!(window.count as usize, gc.len() - 1, "the first pause ended before the window");
        assert_eq!(window.pauses[0].0, second.start_s);
        assert_eq!(window.max_ms, gc[1..].iter().map(|stop| stop.duration_ms).fold(0.0, f64::max));
        let whole: f64 = gc[1..].iter().map(|stop| stop.duration_ms).sum();
        assert!((window.total_ms - (whole - second.duration_ms / 2.0)).abs() < 1e-6);
        assert!(window.pauses.iter().all(|(_, _, kind)| kind != "other"), "{:?}", window.pauses);
    }

    #[test]
    fn the_block_prints_one_gc_time_share_jstats_only_without_a_gc_log() {
        let without_log =
            JvmWindow { uptime_start_s: 10.0, uptime_end_s: 20.0, gc_time_pct: Some(0.97), ..JvmWindow::default() };
        let text = without_log.render();
        assert!(text.contains("GC time 0.97 % of the run (jstat's GCT)"), "{text}");
        let pauses = WindowPauses { count: 9, total_ms: 140.0, max_ms: 23.91, ..WindowPauses::default() };
        let with_log = JvmWindow { pauses: Some(pauses), ..without_log };
        let text = with_log.render();
        assert!(!text.contains("GC time"), "{text}");
        assert!(text.contains("GC pauses 9 (GC log): 1.40 % of the run, total 140.0 ms"), "{text}");
        assert!(text.contains("max 23.91 ms"), "{text}");
    }
}
