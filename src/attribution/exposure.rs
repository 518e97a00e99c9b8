//! The run's stops as the attribution tests requests against: the GC windows (pauses ∪ stalls), the other
//! safepoints and the stretches a CPU quota held the JVM back, each merged into a union, as mapped and widened by the clock mapping's error; which of them a request's
//! exposure met, how long it spent inside GC windows, what chance gives for a request of its length, and the counts
//! and time shares of the stops inside the run.
//!
//! The clock error: the windows are placed on the run's clock through a mapping known to ± `error` (`jvm::clock`).
//! Whether a request *met* a stop is tested against the windows widened by the error on both sides (it met one if it
//! could have), and chance is computed against the very same widened windows, so the comparison of the two stays
//! fair: a large error raises both and pushes the verdict towards "cannot tell", never towards blaming the GC. The
//! time taken out of a request (the recomputed tail) and the time shares use the windows as mapped, the best estimate.

use super::overlap::Chance;
use super::{StopCounts, Window};
use crate::intervals::Union;
use crate::jvm::gclog::stops::StopKind;
use crate::load::record::slow::SlowRequest;

/// What a request's exposure met.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Met {
    /// A GC pause or stall.
    Gc,
    /// Another safepoint, and no GC window.
    SafepointOnly,
    Nothing,
}

/// The run's stops, ready for per-request tests.
#[derive(Debug, Clone)]
pub struct RunStops {
    /// GC windows as mapped (for the time taken out of requests and the time share).
    gc: Union,
    /// Other safepoints as mapped (for the time share).
    safepoints: Union,
    /// The stretches the CPU quota held the JVM back, as placed (for the time taken out and the time share).
    quota: Union,
    /// GC windows, GC windows with the other safepoints, and the quota's stretches, widened by the clock error
    /// (for what a request met).
    gc_widened: Union,
    any_widened: Union,
    quota_widened: Union,
    gc_chance: Chance,
    any_chance: Chance,
    quota_chance: Chance,
    span_us: i64,
    counts: StopCounts,
}

/// The classes of stops the attribution weighs apart; jload's own (its reads and the safepoints they caused) are
/// only counted.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Gc,
    Safepoint,
    Quota,
    Jload,
}

fn class(kind: StopKind) -> Class {
    match kind {
        StopKind::GcPause | StopKind::GcStall => Class::Gc,
        StopKind::Safepoint => Class::Safepoint,
        StopKind::CpuThrottled => Class::Quota,
        StopKind::JloadSafepoint | StopKind::JloadRead => Class::Jload,
    }
}

impl RunStops {
    /// `windows` on the run's clock, a run of `span_us`, a clock known to ± `error_us`.
    pub fn new(windows: &[Window], span_us: u64, error_us: i64) -> RunStops {
        let span_us = span_us as i64;
        let spans = |of: Class, widen: i64| {
            Union::of(
                windows
                    .iter()
                    .filter(|window| class(window.kind) == of)
                    .map(|window| (window.start_us - widen, window.end_us + widen)),
            )
        };
        let gc_widened = spans(Class::Gc, error_us);
        let any_widened =
            Union::of(gc_widened.spans().iter().chain(spans(Class::Safepoint, error_us).spans()).copied());
        let quota_widened = spans(Class::Quota, error_us);
        RunStops {
            gc: spans(Class::Gc, 0),
            safepoints: spans(Class::Safepoint, 0),
            quota: spans(Class::Quota, 0),
            gc_chance: Chance::new(&gc_widened, span_us),
            any_chance: Chance::new(&any_widened, span_us),
            quota_chance: Chance::new(&quota_widened, span_us),
            gc_widened,
            any_widened,
            quota_widened,
            span_us,
            counts: counts(windows, span_us),
        }
    }

    /// The time (µs) the request's exposure spent inside GC windows as mapped: what the recomputed tail takes out.
    pub fn in_gc_us(&self, request: &SlowRequest) -> u64 {
        self.gc.covered(request.began_us() as i64, request.done_us as i64) as u64
    }

    /// The time (µs) the request's exposure spent inside the quota's stretches as placed: what the tail recomputed
    /// without the quota takes out.
    pub fn in_quota_us(&self, request: &SlowRequest) -> u64 {
        self.quota.covered(request.began_us() as i64, request.done_us as i64) as u64
    }

    /// Whether the request's exposure met a stretch the quota held the JVM back (whatever else it met).
    pub fn met_quota(&self, request: &SlowRequest) -> bool {
        self.quota_widened.meets(request.began_us() as i64, request.done_us as i64)
    }

    /// The chance that a request of this latency, placed uniformly in the run, meets a stretch of the quota's.
    pub fn quota_chance(&self, request: &SlowRequest) -> f64 {
        self.quota_chance.of_length(i64::from(request.latency_us))
    }

    /// The share of the run's time (0–1) the quota's stretches cover.
    pub fn quota_time_share(&self) -> f64 {
        self.time_share(&self.quota)
    }

    pub fn counts(&self) -> StopCounts {
        self.counts
    }

    /// What the request's exposure `[began, done]` met (a GC window first).
    pub fn met(&self, request: &SlowRequest) -> Met {
        let (began, done) = (request.began_us() as i64, request.done_us as i64);
        if self.gc_widened.meets(began, done) {
            Met::Gc
        } else if self.any_widened.meets(began, done) {
            Met::SafepointOnly
        } else {
            Met::Nothing
        }
    }

    /// The chance that a request of this latency, placed uniformly in the run, meets a GC window.
    pub fn gc_chance(&self, request: &SlowRequest) -> f64 {
        self.gc_chance.of_length(i64::from(request.latency_us))
    }

    /// The chance that it meets another safepoint and no GC window: P(meets any stop) − P(meets a GC window).
    pub fn safepoint_only_chance(&self, request: &SlowRequest) -> f64 {
        let length = i64::from(request.latency_us);
        (self.any_chance.of_length(length) - self.gc_chance.of_length(length)).max(0.0)
    }

    /// The share of the run's time (0–1) the GC windows as mapped cover.
    pub fn gc_time_share(&self) -> f64 {
        self.time_share(&self.gc)
    }

    pub fn safepoint_time_share(&self) -> f64 {
        self.time_share(&self.safepoints)
    }

    fn time_share(&self, union: &Union) -> f64 {
        if self.span_us <= 0 {
            return 0.0;
        }
        union.clipped(0, self.span_us).measure() as f64 / self.span_us as f64
    }
}

/// The stops that overlap the run `[0, span_us)`, by kind, with the longest of each.
fn counts(windows: &[Window], span_us: i64) -> StopCounts {
    let mut counts = StopCounts::default();
    for window in windows.iter().filter(|window| window.start_us < span_us && window.end_us > 0) {
        let ms = (window.end_us - window.start_us) as f64 / 1000.0;
        let (count, longest) = match window.kind {
            StopKind::GcPause => (&mut counts.gc_pauses, &mut counts.longest_gc_pause_ms),
            StopKind::GcStall => (&mut counts.gc_stalls, &mut counts.longest_gc_stall_ms),
            StopKind::Safepoint => (&mut counts.safepoints, &mut counts.longest_safepoint_ms),
            StopKind::CpuThrottled => (&mut counts.throttled_periods, &mut counts.longest_throttled_ms),
            StopKind::JloadSafepoint => (&mut counts.jload_safepoints, &mut counts.longest_jload_safepoint_ms),
            StopKind::JloadRead => (&mut counts.jload_reads, &mut counts.longest_jload_read_ms),
        };
        *count += 1;
        *longest = longest.max(ms);
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(start_us: i64, end_us: i64, kind: StopKind) -> Window {
        Window { start_us, end_us, kind }
    }

    fn request(began_us: u64, done_us: u64) -> SlowRequest {
        let latency = (done_us - began_us) as u32;
        SlowRequest { done_us, latency_us: latency, service_us: latency, request: 0, failed: false }
    }

    #[test]
    fn a_request_meeting_a_gc_window_and_a_safepoint_counts_as_gc() {
        let stops =
            RunStops::new(&[window(100, 200, StopKind::GcPause), window(300, 310, StopKind::Safepoint)], 1_000, 0);
        assert_eq!(stops.met(&request(150, 320)), Met::Gc);
        assert_eq!(stops.met(&request(250, 320)), Met::SafepointOnly);
        assert_eq!(stops.met(&request(200, 300)), Met::Nothing, "between the two, touching both");
    }

    #[test]
    fn stalls_are_gc_windows() {
        let stops = RunStops::new(&[window(100, 200, StopKind::GcStall)], 1_000, 0);
        assert_eq!(stops.met(&request(150, 160)), Met::Gc);
        assert_eq!(stops.gc_time_share(), 0.1);
    }

    #[test]
    fn the_clock_error_widens_the_windows_for_meeting_and_for_chance_alike() {
        // A 100 µs pause at 500 in a run of 1,000 µs, the clock known to ± 20 µs.
        let stops = RunStops::new(&[window(500, 600, StopKind::GcPause)], 1_000, 20);
        assert_eq!(stops.met(&request(400, 490)), Met::Gc, "ends 10 µs before the mapped pause: within the error");
        assert_eq!(stops.met(&request(400, 470)), Met::Nothing, "ends 30 µs before: beyond the error");
        // Chance with the widened window (480, 620): a 0 µs request 14 %, a 100 µs one 24 %.
        assert_eq!(stops.gc_chance(&request(0, 0)), 0.14);
        assert_eq!(stops.gc_chance(&request(0, 100)), 0.24);
        // The time share and the time taken out use the pause as mapped.
        assert_eq!(stops.gc_time_share(), 0.1);
        assert_eq!(stops.in_gc_us(&request(400, 550)), 50);
    }

    #[test]
    fn safepoint_chance_leaves_out_what_a_gc_window_already_gives() {
        // GC (0, 100) and a safepoint (200, 300) in a run of 1,000. A 100 µs request meets the GC window when it starts
        // in [0, 100) (10 %), any of them in [0, 100) ∪ (100, 300) (30 %): 20 % for the safepoint alone.
        let stops =
            RunStops::new(&[window(0, 100, StopKind::GcPause), window(200, 300, StopKind::Safepoint)], 1_000, 0);
        assert_eq!(stops.gc_chance(&request(0, 100)), 0.1);
        assert!((stops.safepoint_only_chance(&request(0, 100)) - 0.2).abs() < 1e-12);
    }

    #[test]
    fn the_quotas_stretches_are_weighed_apart_from_gc_and_safepoints() {
        let windows = [
            window(100, 200, StopKind::GcPause),
            window(150, 400, StopKind::CpuThrottled),
            window(600, 650, StopKind::CpuThrottled),
        ];
        let stops = RunStops::new(&windows, 1_000, 0);
        assert_eq!(stops.met(&request(300, 500)), Met::Nothing, "a quota stretch is neither GC nor a safepoint");
        assert!(stops.met_quota(&request(300, 500)));
        assert!(!stops.met_quota(&request(450, 600)), "touching ends do not count");
        assert_eq!(stops.in_quota_us(&request(300, 620)), 100 + 20);
        assert_eq!(stops.in_gc_us(&request(300, 620)), 0);
        // Quota: (150, 400) + (600, 650) = 300 of 1,000; GC alone 100.
        assert_eq!(stops.quota_time_share(), 0.3);
        assert_eq!(stops.gc_time_share(), 0.1);
        // An instant meets a quota stretch 30 % of the time; a 100 µs request (gaps 150 and 200 → 100 each) 50 %.
        assert_eq!(stops.quota_chance(&request(0, 0)), 0.3);
        assert_eq!(stops.quota_chance(&request(0, 100)), 0.5);
        let counts = stops.counts();
        assert_eq!((counts.gc_pauses, counts.safepoints, counts.throttled_periods), (1, 0, 2));
        assert_eq!(counts.longest_throttled_ms, 0.25);
    }

    #[test]
    fn counts_and_shares_hold_the_stops_inside_the_run() {
        let windows = [
            window(-500, -100, StopKind::GcPause), // before the run: left out
            window(-50, 50, StopKind::GcPause),    // across its start: counted, clipped for the share
            window(400, 430, StopKind::GcPause),
            window(600, 700, StopKind::GcStall),
            window(650, 660, StopKind::Safepoint),
            window(950, 1_100, StopKind::Safepoint), // across its end
            window(1_000, 1_200, StopKind::GcPause), // after it: left out
        ];
        let stops = RunStops::new(&windows, 1_000, 0);
        let counts = stops.counts();
        assert_eq!((counts.gc_pauses, counts.gc_stalls, counts.safepoints), (2, 1, 2));
        assert_eq!(
            (counts.longest_gc_pause_ms, counts.longest_gc_stall_ms, counts.longest_safepoint_ms),
            (0.1, 0.1, 0.15)
        );
        // GC: (0, 50) + (400, 430) + (600, 700) = 180 of 1,000; safepoints: (650, 660) + (950, 1,000) = 60.
        assert_eq!(stops.gc_time_share(), 0.18);
        assert_eq!(stops.safepoint_time_share(), 0.06);
    }
}
