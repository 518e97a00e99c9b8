//! "Is it the GC?" answered with numbers: per cell and phase, the share of the slowest seconds (by p99) that overlap
//! a GC pause or a GC stall, next to the share of all seconds that do (the base rate), and the longest pause and
//! stall next to the worst one-second p99.
//!
//! A phase's series second k covers JVM uptime [uptime_start_s + k, + duration_s); a pause or a stall (a thread
//! waiting for the collector outside a pause: ZGC allocation stalls, Shenandoah allocation failures) covers
//! [start, start + duration). They overlap when the two intervals intersect.

use serde::Serialize;

use super::metrics::RepFigures;

/// Seconds shorter than this (the last, partial row of a phase) are left out.
const MIN_SECOND_S: f64 = 0.5;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GcTail {
    /// Seconds looked at, over all repeats.
    pub seconds: usize,
    /// Seconds that overlap a GC pause or stall.
    pub seconds_with_pause: usize,
    /// The slowest seconds by p99: the worst 10 %, at least 3 (or all when there are fewer).
    pub slowest: usize,
    pub slowest_with_pause: usize,
    pub longest_pause_ms: f64,
    /// Longest GC stall, when there were stalls.
    pub longest_stall_ms: Option<f64>,
    /// Worst one-second p99.
    pub worst_p99_ms: f64,
    pub verdict: GcTailVerdict,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GcTailVerdict {
    /// The slowest seconds overlap pauses far more often than seconds in general.
    Likely,
    /// The slowest seconds overlap pauses no more often than seconds in general.
    Unlikely,
    /// Pauses or stalls in (nearly) every second: overlap cannot tell slow seconds from others.
    PausesEverywhere,
    Inconclusive,
}

impl GcTailVerdict {
    pub fn describe(self) -> &'static str {
        match self {
            GcTailVerdict::Likely => "GC likely drives the tail",
            GcTailVerdict::Unlikely => "the tail is not GC-driven",
            GcTailVerdict::PausesEverywhere => "GC pauses or stalls in nearly every second: overlap cannot tell",
            GcTailVerdict::Inconclusive => "inconclusive",
        }
    }
}

impl GcTail {
    /// Slowest seconds with a pause against all seconds with one: `3 of 3 (all: 5 of 20)`.
    pub fn overlap(&self) -> String {
        format!(
            "{} of {} (all: {} of {})",
            self.slowest_with_pause, self.slowest, self.seconds_with_pause, self.seconds
        )
    }
}

/// None when no repeat has GC pauses from a GC log (or no full second was measured).
pub fn gc_tail(reps: &[RepFigures]) -> Option<GcTail> {
    let mut seconds: Vec<(f64, bool)> = Vec::new(); // (p99, overlaps a pause)
    let mut longest_pause_ms: Option<f64> = None;
    let mut longest_stall_ms: Option<f64> = None;
    for figures in reps {
        let Some(jvm) = figures.record.jvm.as_ref() else {
            continue;
        };
        let Some(pauses) = jvm.pauses.as_ref() else { continue };
        longest_pause_ms = Some(longest_pause_ms.unwrap_or(0.0).max(pauses.max_ms));
        if pauses.stall_count > 0 {
            longest_stall_ms = Some(longest_stall_ms.unwrap_or(0.0).max(pauses.stall_max_ms));
        }
        for row in figures.record.bench.series.iter().filter(|row| row.duration_s >= MIN_SECOND_S && row.requests > 0) {
            let from = jvm.uptime_start_s + row.second as f64;
            let to = from + row.duration_s;
            let overlaps = (pauses.pauses.iter().chain(pauses.stalls.iter()))
                .any(|(start, duration_ms, _)| *start < to && start + duration_ms / 1000.0 > from);
            seconds.push((row.p99_ms, overlaps));
        }
    }
    let longest_pause_ms = longest_pause_ms?;
    if seconds.is_empty() {
        return None;
    }
    seconds.sort_by(|a, b| b.0.total_cmp(&a.0));
    let slowest = seconds.len().div_ceil(10).max(3).min(seconds.len());
    let slowest_with_pause = seconds[..slowest].iter().filter(|(_, overlaps)| *overlaps).count();
    let seconds_with_pause = seconds.iter().filter(|(_, overlaps)| *overlaps).count();
    let base = seconds_with_pause as f64 / seconds.len() as f64;
    let share = slowest_with_pause as f64 / slowest as f64;
    let verdict = if base >= 0.9 {
        GcTailVerdict::PausesEverywhere
    } else if share >= 0.5 && share >= base + 0.25 {
        GcTailVerdict::Likely
    } else if share <= base {
        GcTailVerdict::Unlikely
    } else {
        GcTailVerdict::Inconclusive
    };
    Some(GcTail {
        seconds: seconds.len(),
        seconds_with_pause,
        slowest,
        slowest_with_pause,
        longest_pause_ms,
        longest_stall_ms,
        worst_p99_ms: seconds[0].0,
        verdict,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jvm::window::{JvmWindow, WindowPauses};
    use crate::load::result::SeriesRow;
    use crate::results::PhaseRecord;

    /// A phase whose JVM window starts at uptime 100 s, with these per-second p99s and these pauses (uptime, ms).
    fn record(p99s: &[f64], pauses: &[(f64, f64)]) -> PhaseRecord {
        let json = serde_json::json!({
            "phase": "get", "measure": true, "start_s": 100.0, "version": 1, "url": "http://127.0.0.1:1/", "model": "closed",
            "connections": 1, "threads": 1, "rate": null, "requests": 10, "duration_s": 1.0, "rps": 10.0,
            "bytes_received": 0, "bytes_sent": 0,
            "latency_ms": {"min": 0, "mean": 0, "stdev": 0, "p50": 0, "p90": 0, "p95": 0, "p99": 0, "p999": 0, "max": 0},
            "latency_uncorrected_ms": null, "late": null,
            "errors": {"connect": 0, "timeout": 0, "read": 0, "write": 0, "status": 0, "total": 0},
            "status_codes": {}, "reconnects": 0, "per_request": [], "series": [], "interrupted": false, "thresholds": [],
            "jvm": null, "slo_passed": null
        });
        let mut record: PhaseRecord = serde_json::from_value(json).unwrap();
        record.bench.series = p99s
            .iter()
            .enumerate()
            .map(|(second, p99)| SeriesRow {
                second: second as u64,
                duration_s: 1.0,
                requests: 100,
                p99_ms: *p99,
                ..SeriesRow::default()
            })
            .collect();
        let window_pauses = WindowPauses {
            count: pauses.len() as u64,
            max_ms: pauses.iter().map(|pause| pause.1).fold(0.0, f64::max),
            pauses: pauses.iter().map(|(start, ms)| (*start, *ms, "young".to_string())).collect(),
            ..WindowPauses::default()
        };
        record.jvm = Some(JvmWindow { uptime_start_s: 100.0, pauses: Some(window_pauses), ..JvmWindow::default() });
        record
    }

    fn tail(record: &PhaseRecord) -> Option<GcTail> {
        gc_tail(&[RepFigures { rep: 1, record, alloc_mb_s: None }])
    }

    #[test]
    fn slow_seconds_that_hold_the_pauses() {
        // 20 seconds; seconds 4, 9 and 15 are slow and each holds a pause; one more pause in quiet second 0.
        let mut p99s = vec![2.0; 20];
        for slow in [4, 9, 15] {
            p99s[slow] = 40.0;
        }
        let record = record(&p99s, &[(100.2, 5.0), (104.5, 30.0), (109.999, 35.0), (115.1, 20.0)]);
        let tail = tail(&record).unwrap();
        assert_eq!((tail.seconds, tail.slowest, tail.slowest_with_pause, tail.seconds_with_pause), (20, 3, 3, 5));
        // 109.999 + 35 ms runs into second 10 as well: 5 seconds overlap a pause.
        assert_eq!(tail.longest_pause_ms, 35.0);
        assert_eq!(tail.worst_p99_ms, 40.0);
        assert_eq!(tail.verdict, GcTailVerdict::Likely);
        assert_eq!(tail.overlap(), "3 of 3 (all: 5 of 20)");
    }

    #[test]
    fn pauses_away_from_the_slow_seconds() {
        // The three slowest seconds are 7, 8 and 9; the pauses fall in seconds 1 and 3.
        let mut p99s = vec![2.0; 10];
        p99s[7] = 50.0;
        p99s[8] = 10.0;
        p99s[9] = 9.0;
        let record = record(&p99s, &[(101.5, 3.0), (103.5, 3.0)]);
        let tail = tail(&record).unwrap();
        assert_eq!((tail.slowest, tail.slowest_with_pause, tail.seconds_with_pause), (3, 0, 2));
        assert_eq!(tail.verdict, GcTailVerdict::Unlikely);
    }

    #[test]
    fn pauses_every_second_cannot_tell() {
        let pauses: Vec<(f64, f64)> = (0..10).map(|second| (100.5 + second as f64, 1.0)).collect();
        let tail = tail(&record(&[3.0, 9.0, 4.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0], &pauses)).unwrap();
        assert_eq!(tail.verdict, GcTailVerdict::PausesEverywhere);
    }

    #[test]
    fn stalls_count_as_gc() {
        // Seconds 3, 6 and 8 are slow; no pause falls in them, but ZGC allocation stalls do.
        let mut p99s = vec![2.0; 10];
        for slow in [3, 6, 8] {
            p99s[slow] = 30.0;
        }
        let mut record = record(&p99s, &[(100.5, 0.05)]);
        let pauses = record.jvm.as_mut().unwrap().pauses.as_mut().unwrap();
        pauses.stalls = [(103.2, 25.0), (106.7, 12.0), (108.1, 40.0)]
            .iter()
            .map(|(start, ms)| (*start, *ms, "allocation_stall".to_string()))
            .collect();
        (pauses.stall_count, pauses.stall_max_ms) = (3, 40.0);
        let tail = tail(&record).unwrap();
        assert_eq!((tail.slowest, tail.slowest_with_pause, tail.seconds_with_pause), (3, 3, 4));
        assert_eq!((tail.longest_pause_ms, tail.longest_stall_ms), (0.05, Some(40.0)));
        assert_eq!(tail.verdict, GcTailVerdict::Likely);
    }

    #[test]
    fn no_gc_log_no_answer() {
        let mut without = record(&[1.0, 2.0], &[]);
        without.jvm.as_mut().unwrap().pauses = None;
        assert_eq!(tail(&without), None);
    }
}
