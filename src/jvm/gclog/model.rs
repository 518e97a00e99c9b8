//! What a GC log is turned into: pauses, concurrent cycles and safepoints, as plain serde values.

use std::path::PathBuf;

use chrono::{DateTime, FixedOffset};
use serde::{Serialize, Serializer};

use crate::jvm::clock::LogClock;

/// Everything read from one GC log (or one JVM run's rotated set of files).
#[derive(Debug, Clone, Serialize, Default)]
pub struct GcLog {
    /// The files read, oldest first (empty when parsed from a string).
    pub files: Vec<PathBuf>,
    /// Rotated files beside the log that an earlier JVM run wrote (the JVM archives the old gc.log at start-up).
    pub ignored_files: Vec<PathBuf>,
    /// From the `Using …` line: `Serial`, `Parallel`, `G1`, `The Z Garbage Collector`, `Shenandoah`.
    pub collector: Option<String>,
    /// Wall clock of JVM start: from the first line with both a wall-clock and an uptime decoration.
    pub jvm_start: Option<DateTime<FixedOffset>>,
    /// What `start_s` counts from.
    pub time_base: TimeBase,
    /// The wall-clock time of uptime 0 that the lines decorated with both wall clock and uptime allow (see
    /// `crate::jvm::clock`), from the lines of the JVM run kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clock: Option<LogClock>,
    /// Uptime of the first and last line with a time, in seconds: the stretch of time the log covers.
    pub first_uptime_s: Option<f64>,
    pub last_uptime_s: Option<f64>,
    /// Lines read, and lines that could not be read: decorations that are not the JVM's, or a line that looks like
    /// a GC event (a pause, a collection cycle, a safepoint, a generation's occupancy) but cannot be read.
    pub lines: u64,
    pub unparsed_lines: u64,
    /// The first few unparsed lines, to show the user.
    pub unparsed_samples: Vec<UnparsedLine>,
    /// Every stop-the-world pause, in log order.
    pub pauses: Vec<Pause>,
    /// Concurrent collection cycles (the application keeps running), in log order.
    pub concurrent: Vec<ConcurrentCycle>,
    /// Every safepoint (`-Xlog:safepoint`), in log order: the stop the application felt, GC or not.
    pub safepoints: Vec<Safepoint>,
    /// Application threads held up by the collector outside stop-the-world pauses, in log order.
    pub stalls: Vec<Stall>,
    /// Shenandoah's allocation pacing over the whole JVM run (`Allocation pacing accrued: N of M ms` in the
    /// statistics printed at exit), in ms summed over threads. Not tied to a time: never part of a window.
    pub pacing_total_ms: Option<f64>,
    /// The JVM runs found in the file (uptime going back starts a new one); one element for an ordinary log, none
    /// for a log without uptime decorations.
    pub runs: Vec<RunStart>,
    /// Which of `runs` the events belong to (1-based).
    pub run: usize,
}

/// Where one JVM run begins in the file.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RunStart {
    pub file: Option<PathBuf>,
    /// 1-based line number of the run's first line.
    pub line: u64,
    pub first_uptime_s: Option<f64>,
}

/// Time an application thread (or every allocating thread) waited for the collector without a pause.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Stall {
    /// When the wait began (line time minus duration for ZGC; the cancellation line for Shenandoah).
    pub start_s: Option<f64>,
    pub duration_ms: f64,
    pub kind: StallKind,
    /// The thread that waited (ZGC names it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thread: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gc_id: Option<u64>,
}

/// The kinds of stall.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StallKind {
    /// ZGC `Allocation Stall (thread) d ms`: one thread waited for memory until a collection freed some.
    AllocationStall,
    /// Shenandoah `Cancelling GC: Allocation Failure`: the concurrent cycle could not keep up; allocating threads
    /// wait from the cancellation until the degenerated or full pause that follows starts (the pause itself is a
    /// pause, not counted here).
    AllocationFailure,
}

impl StallKind {
    pub fn as_str(self) -> &'static str {
        match self {
            StallKind::AllocationStall => "allocation_stall",
            StallKind::AllocationFailure => "allocation_failure",
        }
    }
}

/// What the `start_s` values count from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum TimeBase {
    /// JVM uptime (the `uptime`, `uptimemillis` or `uptimenanos` decorations, or wall clock minus `jvm_start`).
    Uptime,
    /// Only wall-clock decorations: seconds since the first line that has one.
    FirstLine,
    /// No time decorations: `start_s` is null and nothing that needs time can be computed.
    #[default]
    None,
}

/// A line the parser could not read, with where it is.
#[derive(Debug, Clone, Serialize)]
pub struct UnparsedLine {
    pub file: Option<PathBuf>,
    /// 1-based line number within its file.
    pub line: u64,
    pub text: String,
}

/// One stop-the-world pause, from one `Pause …` line.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Pause {
    /// When the pause started, in seconds of JVM uptime (see [`GcLog::time_base`]): the line's time minus the
    /// duration, as the JVM logs a pause when it ends.
    pub start_s: Option<f64>,
    pub duration_ms: f64,
    pub kind: PauseKind,
    /// Why: `Allocation Failure`, `G1 Evacuation Pause`, `System.gc()`; for ZGC the collection's cause, for
    /// Shenandoah the heuristics' trigger.
    pub cause: Option<String>,
    /// Heap occupancy before and after, and its capacity, in MB, when the line has them.
    pub before_mb: Option<f64>,
    pub after_mb: Option<f64>,
    pub total_mb: Option<f64>,
    /// The JVM's GC id. Not unique per pause: G1 remark and cleanup carry their concurrent cycle's id, ZGC runs
    /// several pauses under one id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gc_id: Option<u64>,
    /// Generational ZGC: the generation the pause belongs to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub generation: Option<Generation>,
    /// The other parenthesised remarks: `Concurrent Start`, `Prepare Mixed`, `Evacuation Failure: Allocation`,
    /// `unload classes`, `Outside of Cycle`, `Major`; for kind `other`, the pause's own name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// Old generation before and after, in MB (Serial, Parallel; G1 as whole regions), from `[gc,heap]` lines.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old_before_mb: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old_after_mb: Option<f64>,
    /// Set when this pause was logged inside the pause of that GC id (a JDK 9–11 Serial or CMS young collection
    /// that escalated to a full one logs the full pause first, then the young pause that contains it). Its time is
    /// part of the outer pause: it is listed but not counted again in any figure.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub within_gc_id: Option<u64>,
}

/// The kinds of stop-the-world pause. Serialised in snake_case (`young`, `mark_start`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PauseKind {
    /// Serial, Parallel `Pause Young`; G1 `Pause Young (Normal | Concurrent Start | Prepare Mixed)`, and on JDK 9–11
    /// `Pause Young (cause)` and `Pause Initial Mark (cause)`.
    Young,
    /// G1 `Pause Young (Mixed)` (`Pause Mixed (cause)` on JDK 9–11): young plus some old regions.
    Mixed,
    /// `Pause Full` of any collector.
    Full,
    /// G1 `Pause Remark` (end of concurrent marking).
    Remark,
    /// G1 `Pause Cleanup`.
    Cleanup,
    /// ZGC `Pause Mark Start`.
    MarkStart,
    /// ZGC `Pause Mark End`.
    MarkEnd,
    /// ZGC `Pause Relocate Start`.
    RelocateStart,
    /// Shenandoah `Pause Init Mark`; CMS `Pause Initial Mark` (JDK 9–13).
    InitMark,
    /// Shenandoah `Pause Final Mark`.
    FinalMark,
    /// Shenandoah `Pause Init Update Refs`.
    InitUpdateRefs,
    /// Shenandoah `Pause Final Update Refs`.
    FinalUpdateRefs,
    /// Shenandoah `Pause Final Roots`.
    FinalRoots,
    /// Shenandoah `Pause Degenerated GC`: the concurrent cycle could not keep up and finished stop-the-world.
    Degenerated,
    /// A `Pause …` line of a name not listed here (its name is in `detail`).
    Other,
}

impl PauseKind {
    pub const ALL: [PauseKind; 15] = [
        PauseKind::Young,
        PauseKind::Mixed,
        PauseKind::Full,
        PauseKind::Remark,
        PauseKind::Cleanup,
        PauseKind::MarkStart,
        PauseKind::MarkEnd,
        PauseKind::RelocateStart,
        PauseKind::InitMark,
        PauseKind::FinalMark,
        PauseKind::InitUpdateRefs,
        PauseKind::FinalUpdateRefs,
        PauseKind::FinalRoots,
        PauseKind::Degenerated,
        PauseKind::Other,
    ];

    /// The name used in JSON and in the human output.
    pub fn as_str(self) -> &'static str {
        match self {
            PauseKind::Young => "young",
            PauseKind::Mixed => "mixed",
            PauseKind::Full => "full",
            PauseKind::Remark => "remark",
            PauseKind::Cleanup => "cleanup",
            PauseKind::MarkStart => "mark_start",
            PauseKind::MarkEnd => "mark_end",
            PauseKind::RelocateStart => "relocate_start",
            PauseKind::InitMark => "init_mark",
            PauseKind::FinalMark => "final_mark",
            PauseKind::InitUpdateRefs => "init_update_refs",
            PauseKind::FinalUpdateRefs => "final_update_refs",
            PauseKind::FinalRoots => "final_roots",
            PauseKind::Degenerated => "degenerated",
            PauseKind::Other => "other",
        }
    }
}

impl Serialize for PauseKind {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// Generational ZGC's generations (`y:`/`Y:` young in a minor/major collection, `O:` old).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Generation {
    Young,
    Old,
}

impl Generation {
    pub fn as_str(self) -> &'static str {
        match self {
            Generation::Young => "young",
            Generation::Old => "old",
        }
    }
}

/// A concurrent collection cycle: G1 `Concurrent Mark Cycle` / `Concurrent Undo Cycle`, ZGC `Garbage Collection`
/// (JDK 17) or `Minor Collection` / `Major Collection` (generational), Shenandoah's concurrent phases of one GC id.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ConcurrentCycle {
    pub gc_id: Option<u64>,
    pub start_s: Option<f64>,
    /// Wall time of the cycle (pauses inside it included); for Shenandoah the sum of its concurrent phases.
    /// Null when the log does not tell (ZGC on JDK 17 without the `gc,start` line, an aborted cycle).
    pub duration_ms: Option<f64>,
    pub name: String,
    pub cause: Option<String>,
    pub before_mb: Option<f64>,
    pub after_mb: Option<f64>,
    /// The cycle was abandoned (G1 `Concurrent Mark Abort`, ZGC `… Aborted`).
    pub aborted: bool,
}

/// One safepoint, from a `[safepoint]` line: how long the application was stopped, GC or not.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Safepoint {
    /// When the stop began (line time minus `total_ms`).
    pub start_s: Option<f64>,
    /// The VM operation: `G1CollectForAllocation`, `ZMarkStart`, `ICBufferFull`, …
    pub operation: String,
    /// Reaching + (cleanup, JDK 17) + at safepoint + (leaving, JDK 21+): the whole stop.
    pub total_ms: f64,
    pub reaching_ms: f64,
    pub at_safepoint_ms: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cleanup_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub leaving_ms: Option<f64>,
    /// Time since the previous safepoint ended.
    pub since_last_ms: Option<f64>,
}
