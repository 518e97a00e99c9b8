//! Turns a stream of log lines into a [`GcLog`]: gives every event its time, carries what one line says over to
//! the lines it belongs with (a collection's cause to its pauses, old-generation figures to their pause, a cycle's
//! start to its end, Shenandoah's phases to one cycle), and counts the lines it cannot read.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use chrono::{DateTime, FixedOffset, TimeDelta};

use super::events::{CycleEnd, Event, recognise};
use super::line::split_line;
use super::model::{ConcurrentCycle, GcLog, Pause, Safepoint, TimeBase, UnparsedLine};
use super::numbers::HeapChange;

/// How many unparsed lines are kept as examples.
const UNPARSED_SAMPLES: usize = 5;

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
}

impl Assembler {
    /// Reads every line of one file (or string).
    pub fn add_text(&mut self, file: Option<&Path>, text: &str) {
        for (index, raw) in text.lines().enumerate() {
            self.add_line(file, index as u64 + 1, raw);
        }
    }

    fn add_line(&mut self, file: Option<&Path>, line_no: u64, raw: &str) {
        self.log.lines += 1;
        let Ok(line) = split_line(raw) else {
            self.unparsed(file, line_no, raw);
            return;
        };
        let time = self.line_time(line.uptime_s, line.wall);
        match recognise(line.message) {
            Event::Unreadable => self.unparsed(file, line_no, raw),
            Event::Other => {}
            event => self.apply(event, time),
        }
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
        self.log.pauses.push(pause);
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
        self.log
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

/// The JVM logs an event when it ends: its start is the line's time minus its duration (not before time 0).
fn start_before(end_s: f64, duration_ms: f64) -> f64 {
    (end_s - duration_ms / 1e3).max(0.0)
}

fn seconds_between(from: DateTime<FixedOffset>, to: DateTime<FixedOffset>) -> f64 {
    (to - from).num_microseconds().map_or(0.0, |micros| micros as f64 / 1e6)
}
