//! What a JVM did during a window of time (a bench run or a plan phase), from samples taken at its start, during
//! it and at its end: GC count and time deltas, GC time share, old-generation and RSS occupancy, CPU use; and from
//! the GC log, the pauses, stalls and safepoints inside the window.

use serde::{Deserialize, Serialize};

use std::fmt::Write;

use super::gclog::{GcLog, in_window};
use super::procfs::ticks_per_second;
use super::sampler::{GcTotals, JvmSample};

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
    /// to the window; None for a window of no length.
    fn covered_pct<'a>(&self, stops: impl Iterator<Item = &'a (f64, f64, String)>) -> Option<f64> {
        let (from, to) = (self.uptime_start_s, self.uptime_end_s);
        if to <= from {
            return None;
        }
        let mut spans: Vec<(f64, f64)> = stops
            .map(|(start, ms, _)| (start.max(from), (start + ms / 1000.0).min(to)))
            .filter(|(start, end)| end > start)
            .collect();
        spans.sort_by(|a, b| a.0.total_cmp(&b.0));
        let (mut covered, mut reach) = (0.0, from);
        for (start, end) in spans {
            if end > reach {
                covered += end - start.max(reach);
                reach = end;
            }
        }
        Some(covered / (to - from) * 100.0)
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
    /// The log's pauses whose start (JVM uptime) falls in `from_s..=to_s`.
    pub fn from_log(log: &GcLog, from_s: f64, to_s: f64) -> WindowPauses {
        let summary = log.summary(Some((from_s, to_s)));
        let window = Some((from_s, to_s));
        let pauses = log
            .pauses
            .iter()
            .filter(|pause| pause.within_gc_id.is_none() && in_window(pause.start_s, window))
            .filter_map(|pause| Some((pause.start_s?, pause.duration_ms, pause.kind.as_str().to_string())))
            .collect();
        let stalls = log
            .stalls
            .iter()
            .filter(|stall| in_window(stall.start_s, window))
            .filter_map(|stall| Some((stall.start_s?, stall.duration_ms, stall.kind.as_str().to_string())))
            .collect();
        let stats = &summary.pauses;
        let stops = &summary.safepoints.stops;
        let stalled = &summary.stalls.stalls;
        WindowPauses {
            count: stats.count as u64,
            total_ms: stats.total_ms,
            max_ms: stats.max_ms.unwrap_or(0.0),
            p50_ms: stats.p50_ms.unwrap_or(0.0),
            p90_ms: stats.p90_ms.unwrap_or(0.0),
            p99_ms: stats.p99_ms.unwrap_or(0.0),
            safepoint_total_ms: (stops.count > 0).then_some(stops.total_ms),
            safepoint_max_ms: stops.max_ms,
            pauses,
            stall_count: stalled.count as u64,
            stall_total_ms: stalled.total_ms,
            stall_max_ms: stalled.max_ms.unwrap_or(0.0),
            stalls,
        }
    }
}

impl JvmWindow {
    /// The short block the bench summary prints under the load figures.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let gc = |count: Option<u64>, seconds: Option<f64>| match (count, seconds) {
            (Some(count), Some(seconds)) => format!("{count} ({seconds:.3} s)"),
            _ => "-".to_string(),
        };
        let totals = &self.collections;
        let _ = writeln!(
            out,
            "  JVM pid {}     YGC {}  FGC {}  CGC {}  GC time {}",
            self.pid,
            gc(totals.ygc, totals.ygct_s),
            gc(totals.fgc, totals.fgct_s),
            gc(totals.cgc, totals.cgct_s),
            self.gc_time_pct.map_or("-".to_string(), |pct| format!("{pct:.2} % of the run"))
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
                let _ = writeln!(
                    out,
                    "                 GC pauses {} (GC log): total {:.1} ms, p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms{safepoints}",
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
    fn a_phase_window_carries_the_stalls_inside_it() {
        // zgc-jdk17-stalls.log (JDK 17 ZGC in 32 MB): its `Allocation Stall (main) d ms` lines whose start (uptime −
        // d) lies in the window 0.30..=0.37 s (5 of the 10).
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/gclog/zgc-jdk17-stalls.log");
        let text = std::fs::read_to_string(&path).unwrap();
        let expected: Vec<f64> = text
            .lines()
            .filter(|line| line.contains("Allocation Stall ("))
            .filter_map(|line| {
                let uptime: f64 = line.split("][").nth(1)?.trim_end_matches('s').parse().ok()?;
                let ms: f64 = line.rsplit(' ').next()?.trim_end_matches("ms").parse().ok()?;
                (0.30..=0.37).contains(&(uptime - ms / 1e3)).then_some(ms)
            })
            .collect();
        assert_eq!(expected.len(), 5);
        let window = WindowPauses::from_log(&parse_path(&path).unwrap(), 0.30, 0.37);
        assert_eq!(window.stall_count as usize, expected.len());
        assert_eq!(window.stalls.len(), expected.len());
        let total: f64 = expected.iter().sum();
        assert!((window.stall_total_ms - total).abs() < 1e-6, "{} != {total}", window.stall_total_ms);
        assert_eq!(window.stall_max_ms, expected.iter().copied().fold(0.0, f64::max));
        assert!(window.stalls.iter().all(|(_, _, kind)| kind == "allocation_stall"));
        let jvm = JvmWindow { uptime_start_s: 0.30, uptime_end_s: 0.37, pauses: Some(window), ..JvmWindow::default() };
        // Stall thread-seconds per second of the window: the stalls summed over threads.
        let threads = jvm.stalled_threads().unwrap();
        assert!((threads - total / 1000.0 / 0.07).abs() < 1e-9, "{threads}");
        // The share of time some thread was stalled is at most the sum, and at most 100 %.
        let stalled = jvm.stalled_pct().unwrap();
        assert!(stalled > 0.0 && stalled <= (threads * 100.0).min(100.0) + 1e-9, "{stalled}");
    }
}
