//! JVM uptime on the wall clock: when the JVM's uptime was 0, in microseconds since the Unix epoch, with a stated
//! error. GC-log decorations and PerfData counters count JVM uptime; jload's runs count from their own start instant,
//! whose wall time they record. This module is the one bridge between the two.
//!
//! Each source gives an interval the true instant `Z` lies in, never a point. Uptime is HotSpot's
//! `os::elapsed_counter()` (CLOCK_MONOTONIC since `os::init`), which NTP slews like the wall clock, so
//! `Z = wall − uptime` holds at every instant until the wall clock is stepped.
//! - PerfData (JDK 17): HotSpot's sampler writes `sun.os.hrt.ticks` (uptime in ticks of `sun.os.hrt.frequency`)
//!   every 50 ms. jload reads it every ~150 µs, reading the wall clock right before (`b_k`) and right after (`a_k`)
//!   read k. When read k is the first to see a new value `v`, the JVM wrote it after read k−1 began and before read
//!   k ended, and took it just before writing: `Z ∈ [b_{k−1} − v/f, a_k − v/f]`, as wide as one poll's gap plus one
//!   read (~0.2 ms). Two changes (50 ms apart) are intersected when the ~120 ms budget allows.
//! - PerfData (JDK 25, which has no ticks counter): `sun.rt.createVmBeginTime` is `os::javaTimeMillis()` (truncated
//!   to the ms) taken right after `os::init` set uptime 0, so `Z < begin + 1 ms`; the process start time from
//!   /proc (USER_HZ ticks since boot, truncated) is before it. That is tens of ms wide: a check, not a mapping.
//! - The GC log: HotSpot (17+) reads `javaTimeMillis()` and then `elapsedTime()` once per line. A wall-clock
//!   decoration (`time`, `utctime`, `timemillis`: truncated to the ms) and an uptime decoration (`uptime`: rounded to
//!   the ms; `uptimemillis`: truncated to the ms; `uptimenanos`: truncated to the ns) bound `Z` in
//!   `[wall − uptime_high, wall + 1 ms − uptime_low]`, widened by [`LINE_READ_GAP_US`] for the two reads. The
//!   lines' intervals intersect; with `uptimenanos` the wall clock's sub-ms phase differs from line to line, and a
//!   few dozen lines narrow `Z` to some µs. With `uptime` (ms) the intersection can never be narrower than 1 ms
//!   (±0.5 ms), whatever the number of lines. A line that agrees with none of the others (a wall-clock step, a
//!   thread preempted between the two reads) starts a group of its own; the largest group of lines that agree is
//!   the answer, and the lines outside it are counted.
//!
//! Sources are intersected. When they do not overlap they disagree: the mapping then covers both intervals (its
//! error says so) and `cross_check_ms` says how far apart they were.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::jvm::perfdata::file;
use crate::jvm::perfdata::{Counter, PerfData};

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
    /// The same clock read on another machine's wall clock, whose time is this one's minus `offset_us`, known to
    /// ± `bound_us` (a target on its own server, its requests timed here).
    pub fn moved(self, offset_us: i64, bound_us: i64) -> UptimeClock {
        UptimeClock {
            zero_unix_us: self.zero_unix_us - offset_us,
            error_ms: self.error_ms + bound_us as f64 / 1000.0,
            ..self
        }
    }

    /// The wall-clock time (µs since the Unix epoch) of an instant of JVM uptime (seconds).
    pub fn unix_us_at(&self, uptime_s: f64) -> i64 {
        self.zero_unix_us + (uptime_s * 1e6).round() as i64
    }
}

/// How far apart, at most, HotSpot's two clock reads of one log line are taken (wall, then uptime: consecutive
/// vDSO calls, well below a µs); a line whose reads were further apart disagrees with the others.
pub const LINE_READ_GAP_US: i64 = 5;

/// How long [`from_perfdata`] polls `sun.os.hrt.ticks` at most (it changes every 50 ms), and how long it sleeps
/// between two reads.
const TICKS_POLL_LIMIT: Duration = Duration::from_millis(120);
const TICKS_POLL_SLEEP: Duration = Duration::from_micros(150);
/// How many changes of the ticks counter [`from_perfdata`] intersects (each narrows the interval a little).
const TICKS_CHANGES: usize = 2;

/// At most this many groups of disagreeing log lines are followed (more means the log's clock is broken).
const MAX_LINE_GROUPS: usize = 16;

impl ClockInterval {
    /// The interval from `low_unix_us` to `high_unix_us`; None when `low > high`.
    pub fn new(low_unix_us: i64, high_unix_us: i64) -> Option<ClockInterval> {
        (low_unix_us <= high_unix_us).then_some(ClockInterval { low_unix_us, high_unix_us })
    }

    pub fn width_us(&self) -> i64 {
        self.high_unix_us - self.low_unix_us
    }

    /// The instants both intervals hold; None when they are disjoint.
    pub fn intersect(&self, other: &ClockInterval) -> Option<ClockInterval> {
        ClockInterval::new(self.low_unix_us.max(other.low_unix_us), self.high_unix_us.min(other.high_unix_us))
    }

    /// The smallest interval holding both.
    pub fn hull(&self, other: &ClockInterval) -> ClockInterval {
        ClockInterval {
            low_unix_us: self.low_unix_us.min(other.low_unix_us),
            high_unix_us: self.high_unix_us.max(other.high_unix_us),
        }
    }

    /// The middle, rounded down to the µs.
    pub fn middle_us(&self) -> i64 {
        self.low_unix_us + self.width_us() / 2
    }

    /// A mapping from this interval alone: its middle, half its width.
    fn to_clock(self, source: ClockSource, cross_check_ms: Option<f64>) -> UptimeClock {
        UptimeClock { zero_unix_us: self.middle_us(), error_ms: self.width_us() as f64 / 2e3, source, cross_check_ms }
    }
}

/// What a GC log's decorated lines say about uptime 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct LogClock {
    /// The intersection of the largest group of lines that agree.
    pub uptime_zero: ClockInterval,
    /// How many lines that group holds.
    pub lines: u64,
    /// Lines with both decorations outside it (a wall-clock step, a delayed read).
    pub disagreeing_lines: u64,
}

/// Lines decorated with both a wall clock and an uptime, as they are read: groups of lines whose intervals for
/// uptime 0 share an instant, each narrowed to their intersection (see the module doc).
#[derive(Debug, Default)]
pub struct DecoratedLines {
    groups: Vec<LineGroup>,
    lines: u64,
}

#[derive(Debug, Clone, Copy)]
struct LineGroup {
    interval: ClockInterval,
    lines: u64,
}

impl DecoratedLines {
    /// Adds one line: its wall-clock decoration in whole ms since the epoch (truncated, as HotSpot prints it) and
    /// the range its true uptime lies in, in ns (`LogLine::uptime_bounds_ns`).
    pub fn add(&mut self, wall_ms: i64, uptime_ns: (i64, i64)) {
        let Some(line) = line_interval(wall_ms, uptime_ns) else { return };
        self.lines += 1;
        let joined = (self.groups.iter_mut())
            .filter_map(|group| group.interval.intersect(&line).map(|narrowed| (group, narrowed)))
            .max_by_key(|(group, _)| group.lines);
        if let Some((group, narrowed)) = joined {
            group.interval = narrowed;
            group.lines += 1;
            return;
        }
        if self.groups.len() == MAX_LINE_GROUPS {
            let smallest = (0..self.groups.len()).min_by_key(|&i| self.groups[i].lines).unwrap_or(0);
            self.groups.swap_remove(smallest);
        }
        self.groups.push(LineGroup { interval: line, lines: 1 });
    }

    /// The largest group's interval; None without any decorated line.
    pub fn finish(&self) -> Option<LogClock> {
        let largest = self.groups.iter().max_by_key(|group| group.lines)?;
        Some(LogClock {
            uptime_zero: largest.interval,
            lines: largest.lines,
            disagreeing_lines: self.lines - largest.lines,
        })
    }
}

/// The interval one line allows: `[wall − uptime_high, wall + 1 ms − uptime_low]`, widened by the reads' gap.
fn line_interval(wall_ms: i64, (uptime_low_ns, uptime_high_ns): (i64, i64)) -> Option<ClockInterval> {
    let wall_ns = wall_ms.checked_mul(1_000_000)?;
    let low_ns = wall_ns - uptime_high_ns - LINE_READ_GAP_US * 1000;
    let high_ns = wall_ns + 1_000_000 - uptime_low_ns + LINE_READ_GAP_US * 1000;
    ClockInterval::new(low_ns.div_euclid(1000), -(-high_ns).div_euclid(1000))
}

/// Uptime 0 from the JVM's PerfData (`pid`'s hsperfdata file): `sun.os.hrt.ticks` polled until it changes (at most
/// [`TICKS_POLL_LIMIT`]), else `sun.rt.createVmBeginTime` with the process start. None when the JVM has no
/// readable PerfData.
pub fn from_perfdata(pid: u32) -> Option<(ClockSource, ClockInterval)> {
    let mut perfdata = file::open_perfdata(pid).ok()?;
    let snapshot = perfdata.snapshot();
    let frequency = snapshot.long_named("sun.os.hrt.frequency").filter(|&frequency| frequency > 0);
    if let (Some(ticks), Some(frequency)) = (snapshot.counter("sun.os.hrt.ticks"), frequency)
        && let Some(interval) = poll_ticks(&mut perfdata, ticks, frequency)
    {
        return Some((ClockSource::PerfdataTicks, interval));
    }
    let begin_ms = perfdata.snapshot().long_named("sun.rt.createVmBeginTime")?;
    let process_start_us = process_start_unix_us(pid)?;
    let interval = ClockInterval::new(process_start_us.min(begin_ms * 1000), (begin_ms + 1) * 1000)?;
    Some((ClockSource::PerfdataVmStart, interval))
}

/// Reads the ticks counter until it has changed [`TICKS_CHANGES`] times or [`TICKS_POLL_LIMIT`] passed, and
/// intersects what each change allows (see the module doc).
fn poll_ticks(perfdata: &mut PerfData, ticks: Counter, frequency: i64) -> Option<ClockInterval> {
    let deadline = Instant::now() + TICKS_POLL_LIMIT;
    let mut previous_read_began = unix_us_now();
    let mut previous_value = perfdata.refresh().ok()?.long(ticks)?;
    let mut found: Option<ClockInterval> = None;
    let mut changes = 0;
    while changes < TICKS_CHANGES && Instant::now() < deadline {
        std::thread::sleep(TICKS_POLL_SLEEP);
        let read_began = unix_us_now();
        let value = perfdata.refresh().ok()?.long(ticks)?;
        let read_ended = unix_us_now();
        if value != previous_value {
            let (uptime_low_us, uptime_high_us) = ticks_to_us(value, frequency);
            let change = ClockInterval::new(previous_read_began - uptime_high_us, read_ended - uptime_low_us)?;
            // Two changes that do not overlap mean the wall clock stepped in between: keep the later one.
            found = Some(found.and_then(|earlier| earlier.intersect(&change)).unwrap_or(change));
            changes += 1;
        }
        previous_read_began = read_began;
        previous_value = value;
    }
    found
}

/// `ticks` of `frequency` per second as µs: the whole µs below and above.
fn ticks_to_us(ticks: i64, frequency: i64) -> (i64, i64) {
    let micros = i128::from(ticks) * 1_000_000;
    let frequency = i128::from(frequency);
    let low = micros.div_euclid(frequency);
    let high = low + i128::from(micros.rem_euclid(frequency) != 0);
    (low as i64, high as i64)
}

/// A bound below which the process did not start, µs since the epoch: /proc's start time (USER_HZ ticks since
/// boot, truncated) on the boot clock, turned into wall time through the boot clock's reading now (to the µs, which
/// is one µs more to allow for). Finer than `jvm::procfs::start_time`, whose boot time is in whole seconds.
fn process_start_unix_us(pid: u32) -> Option<i64> {
    let start_ticks = i64::try_from(procfs_start_ticks(pid)?).ok()?;
    let ticks_per_second = i64::try_from(crate::jvm::procfs::ticks_per_second()).ok()?;
    let boot_unix_us = unix_us_now() - boot_clock_us()?;
    Some(boot_unix_us + start_ticks * 1_000_000 / ticks_per_second - 1)
}

fn procfs_start_ticks(pid: u32) -> Option<u64> {
    let stat = ::procfs::process::Process::new(i32::try_from(pid).ok()?).ok()?.stat().ok()?;
    Some(stat.starttime)
}

/// CLOCK_BOOTTIME (the clock /proc's process start times count on), in µs.
fn boot_clock_us() -> Option<i64> {
    let mut now = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes one timespec into the valid, exclusively borrowed `now`.
    let status = unsafe { libc::clock_gettime(libc::CLOCK_BOOTTIME, &mut now) };
    (status == 0).then(|| now.tv_sec * 1_000_000 + now.tv_nsec / 1_000)
}

/// The wall clock now, µs since the epoch.
pub fn unix_us_now() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |since| since.as_micros() as i64)
}

/// The mapping the sources allow together (see the module doc); None without any source.
pub fn combine(perfdata: Option<(ClockSource, ClockInterval)>, log: Option<ClockInterval>) -> Option<UptimeClock> {
    match (perfdata, log) {
        (None, None) => None,
        (Some((source, interval)), None) => Some(interval.to_clock(source, None)),
        (None, Some(interval)) => Some(interval.to_clock(ClockSource::GcLog, None)),
        (Some((_, perfdata)), Some(log)) => {
            let apart_ms = (perfdata.middle_us() - log.middle_us()).abs() as f64 / 1e3;
            let both = perfdata.intersect(&log).unwrap_or_else(|| perfdata.hull(&log));
            Some(both.to_clock(ClockSource::PerfdataAndGcLog, Some(apart_ms)))
        }
    }
}

#[cfg(test)]
#[path = "clock_tests.rs"]
mod tests;
