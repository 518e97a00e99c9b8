//! JVM uptime on the wall clock: when the JVM's uptime was 0, in microseconds since the Unix epoch, with a stated
//! error. GC-log decorations and PerfData counters count JVM uptime; jload's runs count from their own start instant,
//! whose wall time they record. This module is the one bridge between the two.
//!
//! Each source gives an interval the true instant lies in, never a point:
//! - PerfData (JDK 17): `sun.os.hrt.ticks` is refreshed by HotSpot's sampler every 50 ms; jload polls it until it
//!   changes, so the value was written between the previous poll and this one (wall clock read at both): uptime 0 is
//!   within that poll's gap of `wall − ticks / frequency`.
//! - PerfData (JDKs without the ticks counter): `sun.rt.createVmBeginTime` (ms, taken just after uptime 0) and the
//!   process start time from /proc (before it): a wide interval, used only when nothing better exists.
//! - The GC log: every line decorated with both a wall-clock (`time`, `utctime`, `timemillis`) and an uptime
//!   (`uptime`, `uptimemillis`, `uptimenanos`) decoration bounds uptime 0 by the decorations' resolutions; the bounds
//!   of all lines intersect, and many lines narrow it well below a millisecond.
//!
//! Sources are intersected; when they do not overlap, they disagree, and the disagreement is the error stated.

use serde::{Deserialize, Serialize};

/// An interval of wall-clock time (microseconds since the Unix epoch) that holds the instant of JVM uptime 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockInterval {
    pub low_unix_us: i64,
    pub high_unix_us: i64,
}

/// Where the mapping came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClockSource {
    /// PerfData's `sun.os.hrt.ticks`, polled until it changed (JDK 17).
    PerfdataTicks,
    /// PerfData's `sun.rt.createVmBeginTime` and the process start time (JDKs without the ticks counter).
    PerfdataVmStart,
    /// Lines of the GC log decorated with wall clock and uptime.
    GcLog,
    /// A PerfData source and the GC log, intersected.
    PerfdataAndGcLog,
}

/// JVM uptime mapped to wall-clock time.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct UptimeClock {
    /// Wall-clock time at JVM uptime 0, microseconds since the Unix epoch: the middle of the interval the sources
    /// allow.
    pub zero_unix_us: i64,
    /// Half the width of that interval, in ms: no instant maps further off than this.
    pub error_ms: f64,
    pub source: ClockSource,
    /// With two sources: how far apart their intervals' middles were, in ms (a check of both); None with one.
    pub cross_check_ms: Option<f64>,
}

impl UptimeClock {
    /// The wall-clock time (µs since the Unix epoch) of an instant of JVM uptime (seconds).
    pub fn unix_us_at(&self, uptime_s: f64) -> i64 {
        self.zero_unix_us + (uptime_s * 1e6).round() as i64
    }
}

/// Uptime 0 from the JVM's PerfData (`pid`'s hsperfdata file): `sun.os.hrt.ticks` polled until it changes (at most
/// ~60 ms), else `sun.rt.createVmBeginTime` with the process start. None when the JVM has no readable PerfData.
pub fn from_perfdata(pid: u32) -> Option<(ClockSource, ClockInterval)> {
    let _ = pid;
    todo!("issue 12, clock part")
}

/// Uptime 0 from the GC log's lines decorated with both wall clock and uptime. None without such lines.
pub fn from_gc_log(log: &crate::jvm::gclog::GcLog) -> Option<ClockInterval> {
    let _ = log;
    todo!("issue 12, clock part")
}

/// The mapping the sources allow together (see the module doc); None without any source.
pub fn combine(perfdata: Option<(ClockSource, ClockInterval)>, log: Option<ClockInterval>) -> Option<UptimeClock> {
    let _ = (perfdata, log);
    todo!("issue 12, clock part")
}
