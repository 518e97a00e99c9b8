//! The stretches of time a JVM held application threads up, from its GC log, on its uptime clock: GC pauses (from the
//! safepoints of GC operations when the log has `-Xlog:safepoint`, which include reaching the safepoint, else from
//! the pause lines), GC stalls (a thread waiting for the collector outside a pause: ZGC allocation stalls, Shenandoah
//! allocation failures) and safepoints that are no GC (deoptimization, biased-lock revocation, thread dumps, …).
//! What they mean for requests is `crate::attribution`'s job.

use serde::{Deserialize, Serialize};

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
    /// What it was: the pause's name (`Pause Young (Normal) (G1 Evacuation Pause)`), `Allocation Stall (thread)`,
    /// the safepoint's VM operation (`ICBufferFull`).
    pub what: String,
}

/// Every stop in the log, in order of start (see the module doc for which lines give which).
pub fn stops(log: &crate::jvm::gclog::GcLog) -> Vec<Stop> {
    let _ = log;
    todo!("issue 12, clock part")
}
