//! Gathers what the attribution of one run needs — its slow requests and wall-clock start, the JVM's GC log and the
//! PerfData clock measured while it ran — and says in words what is missing when it cannot be made. `jload bench
//! --jvm` and the runner both come through here.

use crate::jvm::clock::{self, ClockInterval, ClockSource, UptimeClock};
use crate::jvm::gclog::GcLog;
use crate::jvm::stops::{self, Stop, StopKind};
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
}

impl JvmStops {
    pub fn of(log: &GcLog, perfdata_clock: Option<(ClockSource, ClockInterval)>) -> JvmStops {
        JvmStops {
            stops: stops::stops(log),
            clock: clock::combine(perfdata_clock, log.clock.map(|clock| clock.uptime_zero)),
            throttled: Vec::new(),
        }
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
    windows.extend(jvm.throttled.iter().map(|&(start, end)| Window {
        start_us: start - start_unix_us,
        end_us: end - start_unix_us,
        kind: StopKind::CpuThrottled,
    }));
    let span_us = (result.duration_s * 1e6).round() as u64;
    Ok(attribute(&result.slow, &request_names(result), &windows, span_us, uptime_clock))
}

/// The names of the run's requests by index: a mix's names, or the URL of a single request.
fn request_names(result: &BenchResult) -> Vec<String> {
    if result.per_request.is_empty() {
        vec![result.url.clone()]
    } else {
        result.per_request.iter().map(|request| request.name.clone()).collect()
    }
}
