//! Turns a stream of log lines into a [`GcLog`]: gives every event its time, carries what one line says over to
//! the lines it belongs with (a collection's cause to its pauses, old-generation figures to their pause, a cycle's
//! start to its end, Shenandoah's phases to one cycle, an allocation failure to the pause that ends it), marks a
//! pause logged inside another, splits a file that holds several JVM runs, and counts the lines it cannot read.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use chrono::{DateTime, FixedOffset, TimeDelta};

use super::events::{CycleEnd, Event, recognise};
use super::input::{LogLine, LogReader};
use super::line::split_line;
use super::model::{
    ConcurrentCycle, GcLog, Pause, PauseKind, RunStart, Safepoint, Stall, StallKind, TimeBase, UnparsedLine,
};
use super::numbers::HeapChange;
use crate::error::bad_input;
use crate::jvm::clock::DecoratedLines;

/// How many unparsed lines are kept as examples.
const UNPARSED_SAMPLES: usize = 5;

/// Uptime decorations are printed to the millisecond: two times closer than this cannot be told apart.
const TIME_RESOLUTION_S: f64 = 0.001;

/// Uptime going back by more than this starts a new JVM run (lines of one run may be a little out of order).
const NEW_RUN_JUMP_S: f64 = 0.010;

/// One finished concurrent phase, kept until it is known whether its GC id has a cycle line of its own.
struct Phase {
    end_s: Option<f64>,
    duration_ms: f64,
    heap: Option<HeapChange>,
}

/// The parser's state across lines (and across the files of a rotated set).
#[derive(Default)]
pub struct Assembler {
    log: GcLog,
    /// Wall clock of the first line when the log has no uptime (time base `first_line`).
    wall_origin: Option<DateTime<FixedOffset>>,
    /// Cause of each collection: ZGC's `Major Collection (Warmup)`, Shenandoah's `Trigger:` line.
    causes: HashMap<u64, String>,
    /// A Shenandoah trigger waiting for the next new GC id.
    pending_trigger: Option<String>,
    highest_gc_id: Option<u64>,
    /// Old generation before/after (MB) by GC id, until that collection's pause line comes.
    old_generation: HashMap<u64, (f64, f64)>,
    region_size_mb: Option<f64>,
    cycle_starts: HashMap<u64, Option<f64>>,
    cycles_with_own_line: HashSet<u64>,
    aborted_marks: HashSet<u64>,
    phases: BTreeMap<u64, Vec<Phase>>,
    /// Shenandoah: an allocation failure (time, GC id) waiting for the degenerated or full pause that ends it.
    pending_failure: Option<(Option<f64>, Option<u64>)>,
    /// JDK 9–12 `Entering safepoint region: …`, waiting for its `Total time …` line.
    pending_operation: Option<String>,
    /// Which JVM run of the file to keep (1-based); None keeps the last.
    wanted_run: Option<usize>,
    /// The run being read (1-based), and the highest uptime seen in it.
    run_index: usize,
    run_max_uptime: Option<f64>,
    /// Lines with unified-logging decorations or a recognised GC message, and lines in JDK 8's format.
    unified_lines: u64,
    jdk8_lines: u64,
    /// The kept run's lines with both a wall clock and an uptime, for the wall time of uptime 0.
    decorated_lines: DecoratedLines,
}

impl Assembler {
    /// An assembler that keeps the events of JVM run `wanted_run` (1-based) of a file that holds several; None
    /// keeps the last.
    pub fn for_run(wanted_run: Option<usize>) -> Assembler {
        Assembler { wanted_run, ..Assembler::default() }
    }

    /// Reads every line of one text (tests; files go through `add_file`).
    #[cfg(test)]
    pub fn add_text(&mut self, file: Option<&Path>, text: &str) {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        for (index, raw) in text.lines().enumerate() {
            self.add_line(file, index as u64 + 1, raw);
        }
    }

    /// Reads one file line by line (gzip or plain; see [`LogReader`]).
    pub fn add_file(&mut self, path: &Path) -> anyhow::Result<()> {
        let mut reader = LogReader::open(path)?;
        let mut line_no = 0;
        let damaged = |err: std::io::Error| {
            bad_input(format!("cannot read GC log {} to its end: {err} (a damaged or cut gzip file?)", path.display()))
        };
        while let Some(line) = reader.next_line().map_err(damaged)? {
            line_no += 1;
            match line {
                LogLine::Text(raw) => self.add_line(Some(path), line_no, &raw),
                LogLine::NotText(escaped) => {
                    self.log.lines += 1;
                    self.unparsed(Some(path), line_no, &escaped);
                }
            }
        }
        Ok(())
    }

    fn add_line(&mut self, file: Option<&Path>, line_no: u64, raw: &str) {
        self.log.lines += 1;
        let Ok(line) = split_line(raw) else {
            self.jdk8_lines += u64::from(looks_like_jdk8(raw));
            self.unparsed(file, line_no, raw);
            return;
        };
        // A bracketed word alone (`[package]`) is no sign of a unified log; a time or a level is.
        let decorated = line.uptime_s.is_some() || line.wall.is_some() || line.level.is_some();
        if let Some(uptime) = line.uptime_s {
            self.follow_runs(file, line_no, uptime);
        }
        if self.wanted_run.is_some_and(|wanted| wanted != self.current_run()) {
            self.unified_lines += u64::from(decorated);
            return;
        }
        if let (Some(wall), Some(uptime_ns)) = (line.wall, line.uptime_bounds_ns()) {
            self.decorated_lines.add(wall.timestamp_millis(), uptime_ns);
        }
        let time = self.line_time(line.uptime_s, line.wall);
        let event = recognise(line.message);
        let recognised = !matches!(event, Event::Other | Event::Unreadable);
        self.unified_lines += u64::from(decorated || recognised);
        if !decorated && !recognised {
            self.jdk8_lines += u64::from(looks_like_jdk8(raw));
        }
        match event {
            Event::Unreadable => self.unparsed(file, line_no, raw),
            Event::Other => {}
            event => self.apply(event, time),
        }
    }

    fn current_run(&self) -> usize {
        self.run_index.max(1)
    }

    /// Notes where a JVM run starts: the first line with an uptime, and every line whose uptime goes back. When the
    /// last run is wanted, a new run discards the events of the one before.
    fn follow_runs(&mut self, file: Option<&Path>, line_no: u64, uptime: f64) {
        let new_run = match self.run_max_uptime {
            None => true,
            Some(max) => uptime < max - NEW_RUN_JUMP_S,
        };
        if !new_run {
            self.run_max_uptime = self.run_max_uptime.map(|max| max.max(uptime));
            return;
        }
        self.run_index += 1;
        self.run_max_uptime = Some(uptime);
        self.log.runs.push(RunStart { file: file.map(Path::to_path_buf), line: line_no, first_uptime_s: Some(uptime) });
        if self.run_index > 1 && self.wanted_run.is_none() {
            self.discard_events();
        }
    }

    /// Forgets the events and the state of the run read so far; keeps the counts of lines and the run starts.
    fn discard_events(&mut self) {
        let log = std::mem::take(&mut self.log);
        *self = Assembler {
            log: GcLog {
                lines: log.lines,
                unparsed_lines: log.unparsed_lines,
                unparsed_samples: log.unparsed_samples,
                runs: log.runs,
                ..GcLog::default()
            },
            wanted_run: self.wanted_run,
            run_index: self.run_index,
            run_max_uptime: self.run_max_uptime,
            unified_lines: self.unified_lines,
            jdk8_lines: self.jdk8_lines,
            ..Assembler::default()
        };
    }

    /// Why the input is not a unified GC log, when no line of it is one.
    pub fn format_problem(&self) -> Option<&'static str> {
        if self.log.lines == 0 || self.unified_lines > 0 {
            return None;
        }
        Some(if self.jdk8_lines > 0 {
            "is a JDK 8 GC log (-XX:+PrintGCDetails format), which jload does not read; on JDK 9 or later log with \
             -Xlog:gc*,safepoint:file=gc.log:time,uptime,level,tags"
        } else {
            "has no line of a JDK 9+ unified GC log (-Xlog:gc…); give the file written by \
             -Xlog:gc*,safepoint:file=gc.log:time,uptime,level,tags"
        })
    }

    fn unparsed(&mut self, file: Option<&Path>, line_no: u64, raw: &str) {
        self.log.unparsed_lines += 1;
        if self.log.unparsed_samples.len() < UNPARSED_SAMPLES {
            let text = raw.chars().take(200).collect();
            self.log.unparsed_samples.push(UnparsedLine { file: file.map(Path::to_path_buf), line: line_no, text });
        }
    }

    /// The line's time in seconds on the log's time base, and the bookkeeping of that base.
    fn line_time(&mut self, uptime_s: Option<f64>, wall: Option<DateTime<FixedOffset>>) -> Option<f64> {
        let time = match (uptime_s, wall) {
            (Some(uptime), wall) => {
                if let (None, Some(wall)) = (self.log.jvm_start, wall) {
                    let uptime = TimeDelta::microseconds((uptime * 1e6).round() as i64);
                    self.log.jvm_start = wall.checked_sub_signed(uptime);
                }
                self.log.time_base = TimeBase::Uptime;
                uptime
            }
            (None, Some(wall)) => match self.log.jvm_start {
                Some(start) => seconds_between(start, wall),
                None => {
                    let origin = *self.wall_origin.get_or_insert(wall);
                    if self.log.time_base == TimeBase::None {
                        self.log.time_base = TimeBase::FirstLine;
                    }
                    seconds_between(origin, wall)
                }
            },
            (None, None) => return None,
        };
        self.log.first_uptime_s = Some(self.log.first_uptime_s.map_or(time, |first| first.min(time)));
        self.log.last_uptime_s = Some(self.log.last_uptime_s.map_or(time, |last| last.max(time)));
        Some(time)
    }

    fn apply(&mut self, event: Event, time: Option<f64>) {
        if let Some(gc_id) = event_gc_id(&event) {
            self.note_gc_id(gc_id);
        }
        match event {
            Event::Collector(name) => {
                self.log.collector.get_or_insert(name);
            }
            Event::RegionSizeMb(size) => self.region_size_mb = Some(size),
            Event::Trigger(trigger) => self.pending_trigger = Some(trigger),
            Event::Pause(pause) => self.add_pause(pause, time),
            Event::CycleStart { gc_id, cause } => {
                if let Some(cause) = cause {
                    self.causes.insert(gc_id, cause);
                }
                self.cycle_starts.insert(gc_id, time);
            }
            Event::CycleEnd(end) => self.add_cycle(end, time),
            Event::ConcurrentPhase { gc_id, duration_ms, heap } => {
                self.phases.entry(gc_id).or_default().push(Phase { end_s: time, duration_ms, heap });
            }
            Event::MarkAbort { gc_id } => {
                self.aborted_marks.insert(gc_id);
            }
            Event::OldGeneration { gc_id, change } => {
                self.old_generation.insert(gc_id, (change.before_mb, change.after_mb));
            }
            Event::OldRegions { gc_id, before, after } => {
                if let Some(region) = self.region_size_mb {
                    self.old_generation.insert(gc_id, (before * region, after * region));
                }
            }
            Event::Safepoint(safepoint) => self.add_safepoint(safepoint, time),
            Event::SafepointOperation(operation) => self.pending_operation = Some(operation),
            Event::AllocationStall { gc_id, thread, duration_ms } => self.log.stalls.push(Stall {
                start_s: time.map(|end| start_before(end, duration_ms)),
                duration_ms,
                kind: StallKind::AllocationStall,
                thread: Some(thread),
                gc_id,
            }),
            Event::AllocationFailure { gc_id } => {
                self.pending_failure.get_or_insert((time, gc_id));
            }
            Event::PacingTotal { ms } => self.log.pacing_total_ms = Some(ms),
            Event::Unreadable | Event::Other => {}
        }
    }

    /// A pending Shenandoah trigger belongs to the first GC id above every id seen so far.
    fn note_gc_id(&mut self, gc_id: u64) {
        if self.highest_gc_id.is_some_and(|highest| gc_id <= highest) {
            return;
        }
        self.highest_gc_id = Some(gc_id);
        if let Some(trigger) = self.pending_trigger.take() {
            self.causes.entry(gc_id).or_insert(trigger);
        }
    }

    fn add_pause(&mut self, mut pause: Pause, time: Option<f64>) {
        pause.start_s = time.map(|end| start_before(end, pause.duration_ms));
        if let Some(gc_id) = pause.gc_id {
            if pause.cause.is_none() {
                pause.cause = self.causes.get(&gc_id).cloned();
            }
            if let Some((before, after)) = self.old_generation.remove(&gc_id) {
                pause.old_before_mb = Some(before);
                pause.old_after_mb = Some(after);
            }
        }
        if matches!(pause.kind, PauseKind::Degenerated | PauseKind::Full) {
            self.end_allocation_failure(&pause);
        }
        self.mark_pauses_inside(&pause);
        self.log.pauses.push(pause);
    }

    /// A pause that runs inside another is one stop of the JVM, logged twice: the inner one ends first, so it is
    /// logged first, with a later GC id. A JDK 9–11 Serial or CMS young collection that escalates to a full one logs
    /// the full pause before the young pause that holds it; CMS with `-XX:+CMSScavengeBeforeRemark` logs
    /// `GC(3) Pause Young (CMS Final Remark)` before the `GC(2) Pause Remark` it ran in. Such earlier pauses, inside
    /// this one, are marked as within it. Times alone cannot tell (a log's millisecond resolution puts G1's
    /// sub-millisecond young pause "inside" the cleanup logged in the same millisecond), so only the nestings the
    /// JVM makes count ([`can_nest`]).
    fn mark_pauses_inside(&mut self, outer: &Pause) {
        let Some(outer_id) = outer.gc_id else { return };
        for inner in self.log.pauses.iter_mut().rev() {
            let logged_inside = inner.within_gc_id.is_none()
                && inner.gc_id.is_some_and(|inner_id| inner_id > outer_id)
                && can_nest(inner, outer)
                && lies_within(inner, outer);
            if !logged_inside {
                break;
            }
            inner.within_gc_id = Some(outer_id);
        }
    }

    /// Shenandoah: the wait from an allocation failure to the start of the pause that ends it.
    fn end_allocation_failure(&mut self, pause: &Pause) {
        let Some((failed_at, gc_id)) = self.pending_failure.take() else { return };
        let waited_ms = match (failed_at, pause.start_s) {
            (Some(failed), Some(start)) => ((start - failed) * 1e3).max(0.0),
            _ => 0.0,
        };
        self.log.stalls.push(Stall {
            start_s: failed_at,
            duration_ms: waited_ms,
            kind: StallKind::AllocationFailure,
            thread: None,
            gc_id: gc_id.or(pause.gc_id),
        });
    }

    fn add_cycle(&mut self, end: CycleEnd, time: Option<f64>) {
        let started = self.cycle_starts.remove(&end.gc_id).flatten();
        let measured = match (started, time) {
            (Some(start), Some(end_time)) => Some((end_time - start) * 1e3),
            _ => None,
        };
        let duration_ms = end.duration_ms.or(measured);
        let start_s = started.or_else(|| Some(start_before(time?, duration_ms?)));
        if let Some(cause) = &end.cause {
            self.causes.entry(end.gc_id).or_insert_with(|| cause.clone());
        }
        self.cycles_with_own_line.insert(end.gc_id);
        self.log.concurrent.push(ConcurrentCycle {
            gc_id: Some(end.gc_id),
            start_s,
            duration_ms,
            name: end.name,
            cause: end.cause.or_else(|| self.causes.get(&end.gc_id).cloned()),
            before_mb: end.heap.map(|heap| heap.before_mb),
            after_mb: end.heap.map(|heap| heap.after_mb),
            aborted: end.aborted || self.aborted_marks.remove(&end.gc_id),
        });
    }

    fn add_safepoint(&mut self, mut safepoint: Safepoint, time: Option<f64>) {
        safepoint.start_s = time.map(|end| start_before(end, safepoint.total_ms));
        if safepoint.operation.is_empty() {
            safepoint.operation = self.pending_operation.take().unwrap_or_default();
        }
        self.log.safepoints.push(safepoint);
    }

    /// The finished log. Concurrent phases of a GC id that has no cycle line of its own (Shenandoah) become one
    /// cycle: from its first phase's start, as long as its phases took together.
    pub fn finish(mut self) -> GcLog {
        for (gc_id, phases) in std::mem::take(&mut self.phases) {
            if self.cycles_with_own_line.contains(&gc_id) {
                continue;
            }
            let first = &phases[0];
            let with_heap: Vec<HeapChange> = phases.iter().filter_map(|phase| phase.heap).collect();
            self.log.concurrent.push(ConcurrentCycle {
                gc_id: Some(gc_id),
                start_s: first.end_s.map(|end| start_before(end, first.duration_ms)),
                duration_ms: Some(phases.iter().map(|phase| phase.duration_ms).sum()),
                name: "Concurrent cycle".to_string(),
                cause: self.causes.get(&gc_id).cloned(),
                before_mb: with_heap.first().map(|heap| heap.before_mb),
                after_mb: with_heap.last().map(|heap| heap.after_mb),
                aborted: false,
            });
        }
        self.log.concurrent.sort_by(|a, b| a.start_s.unwrap_or(f64::MAX).total_cmp(&b.start_s.unwrap_or(f64::MAX)));
        self.log.run = self.wanted_run.unwrap_or(self.log.runs.len()).max(1);
        self.log.clock = self.decorated_lines.finish();
        self.cover_event_starts();
        self.log
    }

    /// A log that begins in the middle of a pause (a fragment, a rotated file) covers time from that pause's
    /// start, which lies before its first line: the covered stretch is widened to every event's start.
    fn cover_event_starts(&mut self) {
        let log = &self.log;
        let earliest = (log.pauses.iter().map(|pause| pause.start_s))
            .chain(log.safepoints.iter().map(|safepoint| safepoint.start_s))
            .chain(log.stalls.iter().map(|stall| stall.start_s))
            .chain(log.concurrent.iter().map(|cycle| cycle.start_s))
            .flatten()
            .reduce(f64::min);
        if let (Some(earliest), Some(first)) = (earliest, log.first_uptime_s) {
            self.log.first_uptime_s = Some(first.min(earliest));
        }
    }
}

fn event_gc_id(event: &Event) -> Option<u64> {
    match event {
        Event::Pause(pause) => pause.gc_id,
        Event::CycleStart { gc_id, .. }
        | Event::ConcurrentPhase { gc_id, .. }
        | Event::MarkAbort { gc_id }
        | Event::OldGeneration { gc_id, .. }
        | Event::OldRegions { gc_id, .. } => Some(*gc_id),
        Event::CycleEnd(end) => Some(end.gc_id),
        _ => None,
    }
}

/// The pauses the JVM runs inside another: a young collection escalating to a full one (Serial, CMS), and the
/// young collection CMS runs at the start of its remark (`-XX:+CMSScavengeBeforeRemark`, cause `CMS Final Remark`).
fn can_nest(inner: &Pause, outer: &Pause) -> bool {
    match (inner.kind, outer.kind) {
        (PauseKind::Full, PauseKind::Young) => true,
        (PauseKind::Young, PauseKind::Remark) => inner.cause.as_deref() == Some("CMS Final Remark"),
        _ => false,
    }
}

/// Whether `inner` lies within `outer` as far as the log's time resolution tells; without times, a full pause
/// logged before a young one with a lower GC id is taken to be inside it.
fn lies_within(inner: &Pause, outer: &Pause) -> bool {
    match (inner.start_s, outer.start_s) {
        (Some(inner_start), Some(outer_start)) => {
            let inner_end = inner_start + inner.duration_ms / 1e3;
            let outer_end = outer_start + outer.duration_ms / 1e3;
            inner_start >= outer_start - TIME_RESOLUTION_S && inner_end <= outer_end + TIME_RESOLUTION_S
        }
        _ => outer.kind == PauseKind::Young,
    }
}

/// A line of a JDK 8 `-XX:+PrintGCDetails` / `-XX:+PrintGCApplicationStoppedTime` log.
fn looks_like_jdk8(raw: &str) -> bool {
    raw.contains("[GC (")
        || raw.contains("[Full GC")
        || raw.contains("[GC pause")
        || raw.starts_with("CommandLine flags:")
        || raw.starts_with("{Heap before GC")
        || raw.contains(": Total time for which application threads were stopped")
}

/// The JVM logs an event when it ends: its start is the line's time minus its duration (not before time 0).
fn start_before(end_s: f64, duration_ms: f64) -> f64 {
    (end_s - duration_ms / 1e3).max(0.0)
}

fn seconds_between(from: DateTime<FixedOffset>, to: DateTime<FixedOffset>) -> f64 {
    (to - from).num_microseconds().map_or(0.0, |micros| micros as f64 / 1e6)
}
