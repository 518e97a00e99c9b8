//! Gathers what the attribution of one run needs — its slow requests and wall-clock start, the JVM's GC log and the
//! PerfData clock measured while it ran — and says in words what is missing when it cannot be made. `jload bench
//! --jvm` and the runner both come through here.

use crate::jvm::clock::{self, ClockInterval, ClockSource, UptimeClock};
use crate::jvm::gclog::GcLog;
use crate::jvm::gclog::stops::{self, Stop, StopKind};
use crate::load::record::result::BenchResult;

use super::{GcAttribution, Window, attribute, on_run_clock};

/// Why a run has no attribution: what is missing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Missing {
    /// The target's command line names no GC log, or it could not be read.
    GcLog,
    /// Neither PerfData nor the GC log's decorations put JVM uptime on the wall clock.
    Clock,
    /// The run recorded no start time or no requests (results of an older jload, or nothing answered).
    Requests,
}

impl Missing {
    pub fn describe(self) -> &'static str {
        match self {
            Missing::GcLog => {
                "no GC log: start the JVM with -Xlog:gc*,safepoint:file=gc.log:time,uptime,level,tags to see which \
                 requests GC pauses hit"
            }
            Missing::Clock => {
                "JVM uptime could not be put on the wall clock: the JVM has no readable PerfData and its GC log no \
                 wall-clock decoration (add `time` to -Xlog's decorations)"
            }
            Missing::Requests => "no request was recorded one by one",
        }
    }
}

/// What a JVM's GC log gives every run it served: its stops, and its uptime on the wall clock (from the log's own
/// decorations and the PerfData clock measured while the JVM ran, see [`clock::from_perfdata`]). Read once per log,
/// however many runs (phases) it is laid under.
pub struct JvmStops {
    stops: Vec<Stop>,
    clock: Option<UptimeClock>,
    /// The stretches a CPU quota held the JVM back, on the wall clock (µs since the Unix epoch, start and end).
    throttled: Vec<(i64, i64)>,
    /// jload's own reads of the JVM (NMT summaries, flight-recording commands), on the wall clock (µs, start and
    /// end).
    jload_reads: Vec<(i64, i64)>,
    /// jload's flight recordings of the JVM, from the start command's beginning to the end of the one that stopped
    /// it, on the wall clock (µs).
    recordings: Vec<(i64, i64)>,
}

impl JvmStops {
    pub fn of(log: &GcLog, perfdata_clock: Option<(ClockSource, ClockInterval)>) -> JvmStops {
        JvmStops {
            stops: stops::stops(log),
            clock: clock::combine(perfdata_clock, log.clock.map(|clock| clock.uptime_zero)),
            throttled: Vec::new(),
            jload_reads: Vec::new(),
            recordings: Vec::new(),
        }
    }

    /// With jload's flight recordings (wall-clock µs, start and end): a safepoint inside one whose VM operation is
    /// JFR's own ([`stops::is_flight_recorder_operation`]) becomes [`StopKind::JloadSafepoint`].
    pub fn with_recordings(mut self, recordings: Vec<(i64, i64)>) -> JvmStops {
        self.recordings.extend(recordings);
        self
    }

    /// With jload's own reads of the JVM (added to those given before), each as `nmt.csv` gives it: the wall-clock millisecond it began
    /// (`unix_ms`) and how long it took (`read_ms`), so it spans from that millisecond's start to its end plus the
    /// read. Each is counted, and a safepoint inside one (as far as the clock mapping tells) whose VM operation such
    /// a read can run ([`stops::is_jload_read_operation`]) becomes [`StopKind::JloadSafepoint`]: jload's, not the
    /// service's.
    pub fn with_jload_reads(mut self, reads: Vec<(u64, f64)>) -> JvmStops {
        self.jload_reads.extend(reads.into_iter().map(|(unix_ms, read_ms)| {
            let start_us = unix_ms as i64 * 1000;
            (start_us, start_us + 1000 + (read_ms * 1000.0).ceil() as i64)
        }));
        self
    }

    /// With the stretches the CPU quota of the JVM's cgroup box held it back (wall-clock µs, start and end, as
    /// `cgroup::box_watch` placed them): stops of their own kind, [`StopKind::CpuThrottled`]. They are on this
    /// machine's wall clock already, so no uptime mapping moves them.
    pub fn with_throttled(self, throttled: Vec<(i64, i64)>) -> JvmStops {
        JvmStops { throttled, ..self }
    }

    /// The run's span `[start, end]` in this JVM's uptime (seconds), on the clock its stops are laid on: the window
    /// whose GC figures are the run's (None without a clock or a recorded start).
    pub fn uptime_span(&self, result: &BenchResult) -> Option<(f64, f64)> {
        let start_s = (result.start_unix_us? - self.clock?.zero_unix_us) as f64 / 1e6;
        Some((start_s, start_s + result.duration_s))
    }

    /// The stops of a JVM on another machine, whose wall clock is ours plus `offset_us` (± `bound_us`).
    pub fn seen_from_afar(self, offset_us: i64, bound_us: i64) -> JvmStops {
        JvmStops { clock: self.clock.map(|clock| clock.moved(offset_us, bound_us)), ..self }
    }
}

/// The attribution of `result`'s tail to the stops of its JVM (None: no GC log).
pub fn of_run(result: &BenchResult, jvm: Option<&JvmStops>) -> Result<GcAttribution, Missing> {
    let jvm = jvm.ok_or(Missing::GcLog)?;
    let start_unix_us = result.start_unix_us.ok_or(Missing::Requests)?;
    if result.slow.offered == 0 {
        return Err(Missing::Requests);
    }
    let uptime_clock = jvm.clock.ok_or(Missing::Clock)?;
    let mut windows = on_run_clock(&jvm.stops, &uptime_clock, start_unix_us);
    // Spans on the wall clock (µs since the epoch) as windows on the run's clock.
    let on_run = |spans: &[(i64, i64)], kind: StopKind| -> Vec<Window> {
        spans
            .iter()
            .map(|&(start, end)| Window { start_us: start - start_unix_us, end_us: end - start_unix_us, kind })
            .collect()
    };
    let reads = on_run(&jvm.jload_reads, StopKind::JloadRead);
    let recordings = on_run(&jvm.recordings, StopKind::JloadRead);
    let error_us = (uptime_clock.error_ms * 1000.0).ceil() as i64;
    mark_jload_safepoints(&mut windows, &jvm.stops, (&reads, &recordings), error_us);
    windows.extend(reads);
    windows.extend(on_run(&jvm.throttled, StopKind::CpuThrottled));
    let span_us = (result.duration_s * 1e6).round() as u64;
    Ok(attribute(&result.slow, &request_names(result), &windows, span_us, uptime_clock))
}

/// Each safepoint window (`windows[i]` is `stops[i]` on the run's clock) that meets one of jload's `reads` — the
/// clock mapping known to ± `error_us` — and whose VM operation such a read can run, or one of its `recordings` and
/// whose operation is the flight recorder's, becomes jload's.
fn mark_jload_safepoints(
    windows: &mut [Window],
    stops: &[Stop],
    (reads, recordings): (&[Window], &[Window]),
    error_us: i64,
) {
    for (window, stop) in windows.iter_mut().zip(stops) {
        let meets =
            |span: &Window| window.start_us < span.end_us + error_us && window.end_us > span.start_us - error_us;
        let jloads = (stops::is_jload_read_operation(&stop.what) && reads.iter().any(meets))
            || (stops::is_flight_recorder_operation(&stop.what) && recordings.iter().any(meets));
        if stop.kind == StopKind::Safepoint && jloads {
            window.kind = StopKind::JloadSafepoint;
        }
    }
}

/// The names of the run's requests by index: a mix's names, or the URL of a single request.
fn request_names(result: &BenchResult) -> Vec<String> {
    if result.per_request.is_empty() {
        vec![result.url.clone()]
    } else {
        result.per_request.iter().map(|request| request.name.clone()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stop(kind: StopKind, what: &str) -> Stop {
        Stop { start_s: 0.0, duration_ms: 0.0, kind, what: what.to_string() }
    }

    fn window(start_us: i64, end_us: i64, kind: StopKind) -> Window {
        Window { start_us, end_us, kind }
    }

    #[test]
    fn a_safepoint_a_read_can_cause_inside_one_of_jloads_reads_is_jloads() {
        let read = window(1_000, 3_000, StopKind::JloadRead);
        let stops = [
            stop(StopKind::Safepoint, "PrintThreads"),
            stop(StopKind::Safepoint, "PrintThreads"),
            stop(StopKind::Safepoint, "ICBufferFull"),
            stop(StopKind::GcPause, "Pause Young"),
            stop(StopKind::Safepoint, "PrintThreads"),
        ];
        let mut windows = vec![
            window(2_000, 2_100, StopKind::Safepoint), // inside the read
            window(3_040, 3_100, StopKind::Safepoint), // 40 µs after it: within the clock's ± 50 µs
            window(2_000, 2_100, StopKind::Safepoint), // inside, but an operation no read runs
            window(2_000, 2_100, StopKind::GcPause),
            window(5_000, 5_100, StopKind::Safepoint), // far from it
        ];
        mark_jload_safepoints(&mut windows, &stops, (&[read], &[]), 50);
        let kinds: Vec<StopKind> = windows.iter().map(|window| window.kind).collect();
        assert_eq!(
            kinds,
            [
                StopKind::JloadSafepoint,
                StopKind::JloadSafepoint,
                StopKind::Safepoint,
                StopKind::GcPause,
                StopKind::Safepoint
            ]
        );
    }

    #[test]
    fn a_flight_recorders_safepoint_inside_one_of_jloads_recordings_is_jloads_and_no_other_operation_is() {
        let recording = window(1_000, 900_000, StopKind::JloadRead);
        let stops = [
            stop(StopKind::Safepoint, "JFRCheckpoint"),
            stop(StopKind::Safepoint, "ICBufferFull"),
            stop(StopKind::Safepoint, "PrintThreads"),
            stop(StopKind::Safepoint, "JFRCheckpoint"),
        ];
        let mut windows = vec![
            window(500_000, 500_300, StopKind::Safepoint), // a chunk rotation mid-recording
            window(500_000, 500_300, StopKind::Safepoint), // the service's, though inside
            window(500_000, 500_300, StopKind::Safepoint), // a read's operation, but no read here
            window(950_000, 950_300, StopKind::Safepoint), // after the recording: someone else's JFR
        ];
        mark_jload_safepoints(&mut windows, &stops, (&[], &[recording]), 50);
        let kinds: Vec<StopKind> = windows.iter().map(|window| window.kind).collect();
        assert_eq!(kinds, [StopKind::JloadSafepoint, StopKind::Safepoint, StopKind::Safepoint, StopKind::Safepoint]);
    }

    #[test]
    fn a_read_spans_from_the_millisecond_it_began_to_that_millisecond_plus_its_length() {
        let log = GcLog::default();
        let jvm = JvmStops::of(&log, None).with_jload_reads(vec![(1_700_000_000_123, 0.527)]);
        assert_eq!(jvm.jload_reads, vec![(1_700_000_000_123_000, 1_700_000_000_124_527)]);
    }
}
