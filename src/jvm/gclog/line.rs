//! One line of a unified-logging (-Xlog) file split into its decorations and its message.
//!
//! The JVM prints the decorators that were asked for in a fixed order — time, utctime, uptime, timemillis,
//! uptimemillis, timenanos, uptimenanos, hostname, pid, tid, level, tags — each in square brackets, then a space and
//! the message. Any subset may be present (or none: `-Xlog:gc:file=gc.log:none`). Each bracket is recognised by its
//! shape, so the parser needs no configuration. Tag sets are padded with spaces (`[gc,start    ]`), and numbers use
//! the C library locale: `[0,425s]` in a German locale.

use chrono::{DateTime, FixedOffset, TimeZone, Utc};

use super::numbers::parse_decimal;

/// Epoch milliseconds above this (1973) are a wall clock (`timemillis`), below it a JVM uptime (`uptimemillis`).
const EPOCH_MILLIS_THRESHOLD: u64 = 100_000_000_000;

/// A log line with its decorations read.
#[derive(Debug, Clone, PartialEq)]
pub struct LogLine<'a> {
    /// Wall clock of the line: `time`, `utctime` or `timemillis`.
    pub wall: Option<DateTime<FixedOffset>>,
    /// Seconds since the JVM started: `uptimenanos`, else `uptime`, else `uptimemillis` (the finest there is).
    pub uptime_s: Option<f64>,
    /// How that uptime was printed, which says how far the true uptime can lie from it.
    pub uptime_print: Option<UptimePrint>,
    /// `info`, `debug`, … when the level decorator is on.
    pub level: Option<&'a str>,
    /// The tag set without padding, e.g. `gc,start`, when the tags decorator is on.
    pub tags: Option<&'a str>,
    /// The text after the decorations.
    pub message: &'a str,
}

/// How HotSpot prints an uptime decoration (JDK 17+ `LogDecorations`: one `os::elapsedTime()` read, in seconds, as
/// a double, per line).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UptimePrint {
    /// `uptime`: `%.3fs`, rounded to the nearest millisecond.
    RoundedMillis,
    /// `uptimemillis`: the seconds times 1000, truncated.
    TruncatedMillis,
    /// `uptimenanos`: the seconds times 10⁹, truncated.
    TruncatedNanos,
}

impl LogLine<'_> {
    /// The range `[low, high]` in nanoseconds the true uptime of the line lies in, given how it was printed.
    pub fn uptime_bounds_ns(&self) -> Option<(i64, i64)> {
        let nanos = (self.uptime_s? * 1e9).round() as i64;
        Some(match self.uptime_print? {
            UptimePrint::RoundedMillis => (nanos - 500_000, nanos + 500_000),
            UptimePrint::TruncatedMillis => (nanos, nanos + 1_000_000),
            UptimePrint::TruncatedNanos => (nanos, nanos + 1),
        })
    }
}

/// The line starts with `[` but its brackets are not decorations the JVM writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BadDecorations;

/// What one bracket holds, judged by its shape alone.
enum Decoration<'a> {
    Wall(DateTime<FixedOffset>),
    UptimeSeconds(f64),
    Millis(u64),
    Nanos(u64),
    Level(&'a str),
    /// Digits only: a pid or a thread id.
    Id,
    /// A word: the tag set, or the host name.
    Word(&'a str),
}

/// Splits a line into decorations and message. A line that does not start with `[` has no decorations.
pub fn split_line(line: &str) -> Result<LogLine<'_>, BadDecorations> {
    let line = line.trim_end_matches(['\r', '\n']);
    let mut decorations = Vec::new();
    let mut rest = line;
    while let Some(inside) = rest.strip_prefix('[') {
        let close = inside.find(']').ok_or(BadDecorations)?;
        decorations.push(classify(inside[..close].trim()).ok_or(BadDecorations)?);
        rest = &inside[close + 1..];
    }
    // The decorations are followed by a space and the message, unless the message is empty.
    let message =
        if decorations.is_empty() || rest.is_empty() { rest } else { rest.strip_prefix(' ').ok_or(BadDecorations)? };
    Ok(resolve(&decorations, message))
}

fn classify(text: &str) -> Option<Decoration<'_>> {
    if text.is_empty() {
        return None;
    }
    // A time is a number with its unit; a word that merely ends like one (the tag `exceptions`, a host name such
    // as `build-farms`) is a word.
    if let Some(nanos) = text.strip_suffix("ns").and_then(|number| number.parse().ok()) {
        return Some(Decoration::Nanos(nanos));
    }
    if let Some(millis) = text.strip_suffix("ms").and_then(|number| number.parse().ok()) {
        return Some(Decoration::Millis(millis));
    }
    if let Some(seconds) = text.strip_suffix('s').and_then(parse_decimal) {
        return Some(Decoration::UptimeSeconds(seconds));
    }
    if text.as_bytes()[0].is_ascii_digit() && text.contains('T') {
        return DateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S%.f%z").ok().map(Decoration::Wall);
    }
    if matches!(text, "trace" | "debug" | "info" | "warning" | "error") {
        return Some(Decoration::Level(text));
    }
    if text.bytes().all(|b| b.is_ascii_digit()) {
        return Some(Decoration::Id);
    }
    let word_byte = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b',' | b'.' | b'-');
    let is_word = text.as_bytes()[0].is_ascii_alphabetic() && text.bytes().all(word_byte);
    is_word.then_some(Decoration::Word(text))
}

/// Turns the recognised brackets into a line. Where one shape fits two decorators, their fixed order decides:
/// of two `…ms` brackets the first is timemillis, of two `…ns` brackets the second is uptimenanos; a lone `…ms` is
/// a wall clock only when it is that large, a lone `…ns` is taken as uptimenanos. Of several uptimes the finest is
/// kept (nanoseconds, then `uptime`'s rounded milliseconds, then truncated ones). The last word is the tag set
/// when it is the last bracket (earlier words are host names).
fn resolve<'a>(decorations: &[Decoration<'a>], message: &'a str) -> LogLine<'a> {
    let mut wall = None;
    let mut uptime_seconds = None;
    let mut millis = Vec::new();
    let mut nanos = Vec::new();
    let mut level = None;
    for decoration in decorations {
        match decoration {
            Decoration::Wall(time) => wall = wall.or(Some(*time)),
            Decoration::UptimeSeconds(seconds) => uptime_seconds = Some(*seconds),
            Decoration::Millis(value) => millis.push(*value),
            Decoration::Nanos(value) => nanos.push(*value),
            Decoration::Level(name) => level = Some(*name),
            Decoration::Id | Decoration::Word(_) => {}
        }
    }
    let (wall_millis, uptime_millis) = match millis.as_slice() {
        [wall, uptime, ..] => (Some(*wall), Some(*uptime)),
        [one] if *one >= EPOCH_MILLIS_THRESHOLD => (Some(*one), None),
        [one] => (None, Some(*one)),
        [] => (None, None),
    };
    let wall = wall.or_else(|| wall_millis.and_then(epoch_millis_to_time));
    let uptimes = [
        (nanos.last().map(|ns| *ns as f64 / 1e9), UptimePrint::TruncatedNanos),
        (uptime_seconds, UptimePrint::RoundedMillis),
        (uptime_millis.map(|ms| ms as f64 / 1e3), UptimePrint::TruncatedMillis),
    ];
    let finest = uptimes.into_iter().find_map(|(value, print)| Some((value?, print)));
    let tags = match decorations.last() {
        Some(Decoration::Word(tags)) => Some(*tags),
        _ => None,
    };
    LogLine {
        wall,
        uptime_s: finest.map(|(value, _)| value),
        uptime_print: finest.map(|(_, print)| print),
        level,
        tags,
        message,
    }
}

fn epoch_millis_to_time(millis: u64) -> Option<DateTime<FixedOffset>> {
    let millis = i64::try_from(millis).ok()?;
    Utc.timestamp_millis_opt(millis).single().map(|time| time.fixed_offset())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_decorations_of_the_recommended_setting() {
        let line = split_line(
            "[2026-11-22T01:57:53.120+0000][0.889s][info][gc          ] GC(0) Pause Young (Allocation Failure) 17M->4M(61M) 12.369ms",
        )
        .unwrap();
        assert_eq!(line.wall.unwrap().to_rfc3339(), "2026-11-22T01:57:53.120+00:00");
        assert_eq!(line.uptime_s, Some(0.889));
        assert_eq!(line.level, Some("info"));
        assert_eq!(line.tags, Some("gc"));
        assert_eq!(line.message, "GC(0) Pause Young (Allocation Failure) 17M->4M(61M) 12.369ms");
    }

    #[test]
    fn every_decorator_in_the_jvm_order() {
        // Printed by java -Xlog:gc:stdout:tags,level,pid,tid,hostname,uptimenanos,timenanos,uptimemillis,timemillis,uptime,utctime,time
        let line = split_line(
            "[2026-11-22T01:58:39.010+0000][2026-11-22T01:58:39.010+0000][0.006s][1795312719010ms][6ms][314622592286ns][6436379ns][vm][6528][6531][info][gc] Using G1",
        )
        .unwrap();
        assert_eq!(line.uptime_s, Some(0.006436379), "the finest uptime: uptimenanos");
        assert_eq!(line.uptime_bounds_ns(), Some((6_436_379, 6_436_380)));
        assert_eq!(line.wall.unwrap().timestamp_millis(), 1_795_312_719_010);
        assert_eq!(line.tags, Some("gc"));
        assert_eq!(line.message, "Using G1");
    }

    #[test]
    fn uptime_from_milliseconds_or_nanoseconds_alone() {
        assert_eq!(split_line("[1234ms][info] Using G1").unwrap().uptime_s, Some(1.234));
        assert_eq!(
            split_line("[1234ms][info] Using G1").unwrap().uptime_bounds_ns(),
            Some((1_234_000_000, 1_235_000_000))
        );
        assert_eq!(split_line("[6436379ns] Using G1").unwrap().uptime_s, Some(0.006436379));
        assert_eq!(split_line("[0.889s] Using G1").unwrap().uptime_bounds_ns(), Some((888_500_000, 889_500_000)));
        let wall_only = split_line("[1795312719010ms] Using G1").unwrap();
        assert_eq!(wall_only.uptime_s, None);
        assert_eq!(wall_only.wall.unwrap().timestamp_millis(), 1_795_312_719_010);
    }

    #[test]
    fn decimal_comma_uptime() {
        let line = split_line("[2026-11-22T01:58:24.184+0000][0,440s][info][gc          ] GC(0) x").unwrap();
        assert_eq!(line.uptime_s, Some(0.44));
    }

    #[test]
    fn undecorated_lines_are_all_message() {
        let line = split_line("GC(0) Pause Young (Normal) (G1 Evacuation Pause) 24M->3M(64M) 3.1ms").unwrap();
        assert_eq!((line.wall, line.uptime_s, line.level, line.tags), (None, None, None, None));
        assert_eq!(line.message, "GC(0) Pause Young (Normal) (G1 Evacuation Pause) 24M->3M(64M) 3.1ms");
        assert_eq!(split_line("").unwrap().message, "");
    }

    #[test]
    fn words_that_end_like_a_time_unit() {
        let tag = split_line("[1.234s][info][exceptions] Exception <a 'java/io/IOException'>").unwrap();
        assert_eq!((tag.uptime_s, tag.tags), (Some(1.234), Some("exceptions")));
        let host = split_line("[1.234s][build-farms][info][gc] GC(0) Pause Young 1.0ms").unwrap();
        assert_eq!((host.uptime_s, host.tags, host.message), (Some(1.234), Some("gc"), "GC(0) Pause Young 1.0ms"));
        let host_ns = split_line("[build-ns][12ns][gc] x").unwrap();
        assert_eq!((host_ns.uptime_s, host_ns.tags), (Some(1.2e-8), Some("gc")));
    }

    #[test]
    fn brackets_that_are_not_decorations() {
        for bad in ["[0.889s", "[]", "[0.889s][hello world] x", "[0.889s]x", "[0.8.9s] x", "[2026-11-22Tgarbage] x"] {
            assert_eq!(split_line(bad), Err(BadDecorations), "{bad:?}");
        }
    }
}
