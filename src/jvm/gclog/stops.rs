//! The stretches of time a JVM held application threads up, from its GC log, on its uptime clock: GC pauses (from the
//! safepoints of GC operations when the log has `-Xlog:safepoint`, which include reaching the safepoint, else from
//! the pause lines), GC stalls (a thread waiting for the collector outside a pause: ZGC allocation stalls, Shenandoah
//! allocation failures) and safepoints that are no GC (deoptimization, biased-lock revocation, thread dumps, …).
//! What they mean for requests is `crate::attribution`'s job, which also knows a kind the log never gives: the
//! stretches a CPU quota held the JVM back ([`StopKind::CpuThrottled`]).
//!
//! The one rule: a safepoint whose VM operation is the collector's ([`is_gc_operation`]) is a GC pause, and the
//! pause lines it contains are paired with it (the stop runs from the earlier start to the later end of both, which
//! is the safepoint's but for the logs' rounding); a pause line that no GC safepoint contains (a log without
//! `-Xlog:safepoint`) is a stop of its own; every other safepoint is a [`StopKind::Safepoint`]. Pauses logged inside
//! another pause (`Pause::within_gc_id`) and events without a time are left out.

use serde::{Deserialize, Serialize};

use crate::jvm::gclog::{GcLog, Pause, PauseKind, Safepoint, Stall, StallKind};

/// Uptime decorations are printed to the millisecond: a pause is inside a safepoint when it is as far as this
/// allows.
const TIME_RESOLUTION_S: f64 = 0.001;

/// What held the application up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopKind {
    /// A stop-the-world GC pause.
    GcPause,
    /// Application threads waiting for the collector without a pause.
    GcStall,
    /// A safepoint for something other than GC.
    Safepoint,
    /// Held back by the CPU quota of the target's cgroup box: not in the GC log, placed from the box's throttling
    /// counters (`cgroup::box_watch`).
    CpuThrottled,
    /// A safepoint that jload's own read of the JVM (an NMT summary over the attach socket) caused: inside one of
    /// its reads and of a VM operation such a read can run ([`is_jload_read_operation`]). Never the service's.
    JloadSafepoint,
    /// Not a stop: the stretch one of jload's reads of the JVM took, counted so a run says how many there were.
    JloadRead,
}

impl StopKind {
    /// Whether it is the GC's doing (a pause or a stall).
    pub fn is_gc(self) -> bool {
        matches!(self, StopKind::GcPause | StopKind::GcStall)
    }
}

/// One stretch of time the application was held up.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stop {
    /// When it began, in seconds of JVM uptime.
    pub start_s: f64,
    pub duration_ms: f64,
    pub kind: StopKind,
    /// What it was: the pause's name (`Pause Young (G1 Evacuation Pause)`), `Allocation Stall (thread)`,
    /// the safepoint's VM operation (`ICBufferFull`).
    pub what: String,
}

/// Every stop in the log, in order of start (see the module doc for which lines give which).
pub fn stops(log: &GcLog) -> Vec<Stop> {
    let mut gc_safepoints: Vec<PairedSafepoint> = Vec::new();
    let mut stops: Vec<Stop> = Vec::new();
    for safepoint in &log.safepoints {
        let Some(start_s) = safepoint.start_s else { continue };
        if is_gc_operation(&safepoint.operation) {
            gc_safepoints.push(PairedSafepoint { safepoint, start_s, pauses: Vec::new() });
        } else {
            stops.push(Stop {
                start_s,
                duration_ms: safepoint.total_ms,
                kind: StopKind::Safepoint,
                what: safepoint.operation.clone(),
            });
        }
    }
    gc_safepoints.sort_by(|a, b| a.start_s.total_cmp(&b.start_s));
    for pause in log.pauses.iter().filter(|pause| pause.within_gc_id.is_none()) {
        let Some(start_s) = pause.start_s else { continue };
        match containing(&mut gc_safepoints, start_s, pause.duration_ms) {
            Some(paired) => paired.pauses.push((start_s, pause)),
            None => stops.push(Stop {
                start_s,
                duration_ms: pause.duration_ms,
                kind: StopKind::GcPause,
                what: pause_name(pause),
            }),
        }
    }
    stops.extend(gc_safepoints.iter().map(PairedSafepoint::stop));
    stops.extend(log.stalls.iter().filter_map(stall_stop));
    stops.sort_by(|a, b| a.start_s.total_cmp(&b.start_s));
    stops
}

/// Whether a safepoint's VM operation is a collection (HotSpot's `VM_OPS_DO` list, JDK 9 to 25): the collectors' own
/// operations, and the `VM_GC_Operation`s that collect for something else (metadata, code cache, heap inspection,
/// heap dump). `ZombieAll`, `Cleanup`, `ICBufferFull`, `ThreadDump`, … are not.
pub fn is_gc_operation(operation: &str) -> bool {
    const PREFIXES: [&str; 14] = [
        "G1",
        "Shenandoah",
        "ParallelGC",
        "ParallelCollect",
        "SerialCollect",
        "SerialGC",
        "GenCollect",
        "CMS_",
        "ZMark",
        "ZRelocate",
        "ZVerify",
        "ZRendezvousGCThreads",
        "XMark",
        "XRelocate",
    ];
    const OTHERS: [&str; 5] =
        ["CollectForMetadataAllocation", "CollectForCodeCacheAllocation", "GC_HeapInspection", "HeapDumper", "XVerify"];
    PREFIXES.iter().any(|prefix| operation.starts_with(prefix)) || OTHERS.contains(&operation)
}

/// Whether a safepoint's VM operation is one a command over the attach socket can run: HotSpot's diagnostic-command
/// operations (thread dumps, deadlock search, class and code listings, metadata and class-loader statistics), and
/// what `JFR.start` and `JFR.stop` run besides JFR's own ([`is_flight_recorder_operation`]): the redefinition of
/// its event classes at the first start, JVMTI's notification mode (measured on JDK 17 and 25 with
/// `-Xlog:safepoint`). jload's `VM.native_memory summary` runs none of them (docs/containers.md); a safepoint of one
/// inside jload's command is jload's.
pub fn is_jload_read_operation(operation: &str) -> bool {
    const OPERATIONS: [&str; 14] = [
        "PrintThreads",
        "PrintJNI",
        "FindDeadlocks",
        "ThreadDump",
        "PrintMetadata",
        "ClassLoaderStatsOperation",
        "ClassLoaderHierarchyOperation",
        "PrintClassHierarchy",
        "PrintCompileQueue",
        "PrintCodeList",
        "PrintCodeCache",
        "DumpHashtable",
        "RedefineClasses",
        "SetNotifyJvmtiEventsMode",
    ];
    OPERATIONS.contains(&operation)
}

/// Whether a safepoint's VM operation is JDK Flight Recorder's own (`JFRCheckpoint`, `JFROldObject`,
/// `JFRSafepointClear`, `JFRSafepointWrite`: its chunk rotations and writes): while jload records the JVM, one is
/// jload's.
pub fn is_flight_recorder_operation(operation: &str) -> bool {
    operation.starts_with("JFR")
}

/// A GC safepoint and the pause lines inside it.
struct PairedSafepoint<'a> {
    safepoint: &'a Safepoint,
    start_s: f64,
    pauses: Vec<(f64, &'a Pause)>,
}

impl PairedSafepoint<'_> {
    fn end_s(&self) -> f64 {
        self.start_s + self.safepoint.total_ms / 1e3
    }

    /// The union of the safepoint and its pauses, named after its first pause (else its operation).
    fn stop(&self) -> Stop {
        let start_s = (self.pauses.iter().map(|(start, _)| *start)).fold(self.start_s, f64::min);
        let ends = self.pauses.iter().map(|(start, pause)| start + pause.duration_ms / 1e3);
        let end_s = ends.fold(self.end_s(), f64::max);
        let what = self.pauses.first().map_or_else(|| self.safepoint.operation.clone(), |(_, pause)| pause_name(pause));
        Stop { start_s, duration_ms: (end_s - start_s) * 1e3, kind: StopKind::GcPause, what }
    }
}

/// The GC safepoint (sorted by start) that holds a pause from `start_s` lasting `duration_ms`, as far as the
/// log's time resolution tells. Safepoints never overlap, so only the last two starting before it can.
fn containing<'s, 'a>(
    safepoints: &'s mut [PairedSafepoint<'a>],
    start_s: f64,
    duration_ms: f64,
) -> Option<&'s mut PairedSafepoint<'a>> {
    let end_s = start_s + duration_ms / 1e3;
    let after = safepoints.partition_point(|paired| paired.start_s <= start_s + TIME_RESOLUTION_S);
    let holds = |paired: &PairedSafepoint| {
        paired.start_s - TIME_RESOLUTION_S <= start_s && end_s <= paired.end_s() + TIME_RESOLUTION_S
    };
    let index = (after.saturating_sub(2)..after).rev().find(|&index| holds(&safepoints[index]))?;
    safepoints.get_mut(index)
}

fn stall_stop(stall: &Stall) -> Option<Stop> {
    let what = match (stall.kind, &stall.thread) {
        (StallKind::AllocationStall, Some(thread)) => format!("Allocation Stall ({thread})"),
        (StallKind::AllocationStall, None) => "Allocation Stall".to_string(),
        (StallKind::AllocationFailure, _) => "Allocation Failure".to_string(),
    };
    Some(Stop { start_s: stall.start_s?, duration_ms: stall.duration_ms, kind: StopKind::GcStall, what })
}

/// `Pause Young (Concurrent Start) (G1 Humongous Allocation)`: the pause's kind, its remarks and its cause, as the log
/// names them.
fn pause_name(pause: &Pause) -> String {
    let mut name = match (pause.kind, &pause.detail) {
        (PauseKind::Other, Some(own_name)) => format!("Pause {own_name}"),
        (kind, detail) => {
            let words: Vec<String> = kind.as_str().split('_').map(capitalised).collect();
            let detail = detail.as_ref().map(|detail| format!(" ({detail})")).unwrap_or_default();
            format!("Pause {}{detail}", words.join(" "))
        }
    };
    if let Some(cause) = &pause.cause {
        name.push_str(&format!(" ({cause})"));
    }
    name
}

fn capitalised(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map(|first| first.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

#[cfg(test)]
#[path = "stops_tests.rs"]
mod tests;
