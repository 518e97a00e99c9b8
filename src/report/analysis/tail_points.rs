//! What a cell's "is it the GC?" chart shows for one phase, gathered once: one repeat's slowest requests as points
//! (when each ended, how long it took, from when) and the JVM's GC pauses, GC stalls and other safepoints as windows,
//! both on the phase's own clock (milliseconds since its start), and the second around the slowest request, which the
//! chart draws again zoomed in. The repeat is the one whose p99 is the median of the cell's; the points are its
//! [`MAX_POINTS`] slowest, so the model stays small whatever the run's length.

use crate::attribution::{GcAttribution, on_run_clock};
use crate::jvm::gclog::GcLog;
use crate::jvm::gclog::stops::{StopKind, stops};
use crate::load::record::slow::SlowRequest;

use super::cell_attribution::RepAttribution;
use super::stats::median;

/// Points a chart draws at most: the slowest requests.
pub const MAX_POINTS: usize = 1000;
/// Stop windows a chart draws at most (the longest, where a run had more).
pub const MAX_WINDOWS: usize = 5000;
/// The zoomed panel's width: a second, or the slowest request's own length and a margin when that is longer.
const ZOOM_MS: f64 = 1000.0;

/// One slow request on the phase's clock (ms since its start).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TailPoint {
    /// When its latency began (its intended send) and when it ended.
    pub began_ms: f64,
    pub done_ms: f64,
    pub latency_ms: f64,
    pub failed: bool,
}

/// A stop on the phase's clock (ms since its start).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TailWindow {
    pub start_ms: f64,
    pub end_ms: f64,
    pub kind: StopKind,
}

/// One cell's chart data for one phase.
#[derive(Debug, Clone, PartialEq)]
pub struct TailChart {
    pub rep: u32,
    /// The phase's length (ms), or up to its last answer if that came later: the x axis.
    pub span_ms: f64,
    /// The slowest requests, slowest first.
    pub points: Vec<TailPoint>,
    /// Requests the repeat kept one by one, of which `points` are the slowest.
    pub kept: u64,
    pub windows: Vec<TailWindow>,
    /// Stops left out beyond [`MAX_WINDOWS`].
    pub windows_left_out: usize,
    /// The repeat's p99 and p99.9 (ms): the chart's threshold lines.
    pub p99_ms: f64,
    pub p999_ms: f64,
    /// The zoomed panel: the second around the slowest request (ms since the phase's start).
    pub zoom_ms: (f64, f64),
    pub clock_error_ms: f64,
}

/// The repeat a chart shows: the one whose p99 is the median of the repeats' (the lower middle of an even count).
pub fn chart_repeat(per_repeat: &[RepAttribution]) -> Option<&RepAttribution> {
    let middle = median(per_repeat.iter().map(|rep| rep.attribution.p99.percentile_ms).collect())?;
    per_repeat.iter().min_by(|a, b| {
        let distance = |rep: &RepAttribution| (rep.attribution.p99.percentile_ms - middle).abs();
        distance(a)
            .total_cmp(&distance(b))
            .then(a.attribution.p99.percentile_ms.total_cmp(&b.attribution.p99.percentile_ms))
    })
}

/// The chart of one repeat: `slow` its slow requests (from `<phase>.slow.csv`) and how many the run kept in all,
/// `log` its GC log, `run_start_unix_us` the wall time of the phase's start instant, `span_ms` the phase's length.
pub fn tail_chart(
    rep: u32,
    attribution: &GcAttribution,
    (slow, kept): (&[SlowRequest], u64),
    log: &GcLog,
    run_start_unix_us: i64,
    span_ms: f64,
) -> TailChart {
    let mut slowest: Vec<&SlowRequest> = slow.iter().collect();
    slowest.sort_by_key(|request| std::cmp::Reverse(request.latency_us));
    let points: Vec<TailPoint> = slowest.into_iter().take(MAX_POINTS).map(point).collect();
    // Answers that came in as the phase drained still belong to it.
    let span_ms = points.iter().map(|point| point.done_ms).fold(span_ms, f64::max);
    let mut windows: Vec<TailWindow> = on_run_clock(&stops(log), &attribution.clock, run_start_unix_us)
        .iter()
        .map(|window| TailWindow {
            start_ms: window.start_us as f64 / 1000.0,
            end_ms: window.end_us as f64 / 1000.0,
            kind: window.kind,
        })
        // Inside the run as the attribution counts its stops: begun before its end, ended after its start.
        .filter(|window| window.start_ms < span_ms && window.end_ms > 0.0)
        .collect();
    let windows_left_out = windows.len().saturating_sub(MAX_WINDOWS);
    if windows_left_out > 0 {
        windows.sort_by(|a, b| (b.end_ms - b.start_ms).total_cmp(&(a.end_ms - a.start_ms)));
        windows.truncate(MAX_WINDOWS);
        windows.sort_by(|a, b| a.start_ms.total_cmp(&b.start_ms));
    }
    TailChart {
        rep,
        span_ms,
        zoom_ms: zoom(points.first(), span_ms),
        points,
        kept,
        windows,
        windows_left_out,
        p99_ms: attribution.p99.percentile_ms,
        p999_ms: attribution.p999.percentile_ms,
        clock_error_ms: attribution.clock_error_ms,
    }
}

fn point(request: &SlowRequest) -> TailPoint {
    TailPoint {
        began_ms: request.began_us() as f64 / 1000.0,
        done_ms: request.done_us as f64 / 1000.0,
        latency_ms: f64::from(request.latency_us) / 1000.0,
        failed: request.failed,
    }
}

/// The second around the slowest request's exposure (began to done), inside the phase; a request longer than that
/// gets its own length and a tenth either side; a phase shorter than that is shown whole.
fn zoom(slowest: Option<&TailPoint>, span_ms: f64) -> (f64, f64) {
    let Some(slowest) = slowest else {
        return (0.0, ZOOM_MS.min(span_ms));
    };
    let width = ZOOM_MS.max(slowest.latency_ms * 1.2).min(span_ms);
    let from = (slowest.began_ms + slowest.done_ms) / 2.0 - width / 2.0;
    let from = from.min(span_ms - width).max(0.0);
    (from, from + width)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(done_ms: f64, latency_ms: f64) -> TailPoint {
        TailPoint { began_ms: done_ms - latency_ms, done_ms, latency_ms, failed: false }
    }

    #[test]
    fn the_zoom_is_the_second_around_the_slowest_request() {
        // A 100 ms request from 4950 to 5050 ms: the second 4500–5500 around it.
        assert_eq!(zoom(Some(&request(5050.0, 100.0)), 30_000.0), (4500.0, 5500.0));
        // Near the phase's ends the second stays inside the phase.
        assert_eq!(zoom(Some(&request(120.0, 100.0)), 30_000.0), (0.0, 1000.0));
        assert_eq!(zoom(Some(&request(29_990.0, 50.0)), 30_000.0), (29_000.0, 30_000.0));
        // A 2 s request: its own length and a tenth either side.
        assert_eq!(zoom(Some(&request(10_000.0, 2000.0)), 30_000.0), (7800.0, 10_200.0));
        // A phase shorter than a second: all of it.
        assert_eq!(zoom(Some(&request(300.0, 10.0)), 600.0), (0.0, 600.0));
    }

    #[test]
    fn a_request_becomes_a_point_in_milliseconds() {
        let slow =
            SlowRequest { done_us: 2_500_250, latency_us: 100_500, service_us: 90_000, request: 1, failed: true };
        assert_eq!(point(&slow), TailPoint { began_ms: 2399.75, done_ms: 2500.25, latency_ms: 100.5, failed: true });
    }
}
