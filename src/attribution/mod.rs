//! "Is it the GC?" answered per request: the slow requests of a run (`load::slow`) laid over the JVM's GC pauses,
//! GC stalls and other safepoints (`jvm::stops`) on one clock (`jvm::clock`), for the requests above p99, above
//! p99.9 and the 100 slowest: how many overlapped a GC stop or another safepoint, how many would by chance, what the
//! tail would be with the GC's time taken out, and a verdict in words.
//!
//! Everything here is arithmetic on plain values; the callers (`bench --jvm`, the runner, the report) gather them.

pub mod gather;

use serde::{Deserialize, Serialize};

use crate::jvm::clock::UptimeClock;
use crate::jvm::stops::StopKind;

/// How many of the slowest requests the `slowest` tail holds.
pub const SLOWEST: usize = 100;

/// A stop on the run's clock: microseconds since the run's start instant (may begin before it).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Window {
    pub start_us: i64,
    pub end_us: i64,
    pub kind: StopKind,
}

/// The answer for one run (a bench run or a plan phase): `gc_attribution` in every JSON output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GcAttribution {
    /// Requests slower than p99, slower than p99.9, and the 100 slowest.
    pub p99: TailShare,
    pub p999: TailShare,
    pub slowest: TailShare,
    /// Share of the run's time (0–1) covered by GC pauses and stalls, and by other safepoints.
    pub gc_time_share: f64,
    pub safepoint_time_share: f64,
    /// GC pauses, GC stalls and other safepoints inside the run, and the longest of each (ms).
    pub stops: StopCounts,
    /// How JVM uptime was put on the run's clock, and the error of that mapping (ms).
    pub clock: UptimeClock,
    pub clock_error_ms: f64,
    /// The slowest requests that overlapped no stop at all: they point elsewhere (locks, the network, the
    /// generator). At most 10, slowest first.
    pub unexplained: Vec<TailRequest>,
    pub verdict: Verdict,
}

/// One tail of the run's latencies.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TailShare {
    /// Requests in this tail (e.g. 1 % of the requests for p99).
    pub requests: u64,
    /// Of them, the ones jload kept one by one (fewer than `requests` only when the run's slow-request store had to
    /// drop some: the shares below are over these, the slowest of the tail).
    pub examined: u64,
    /// The latency the tail is above (its percentile; for `slowest`, the fastest of the 100), ms.
    pub above_ms: f64,
    /// Requests of the tail whose time (from the intended send to the answer) overlapped a GC pause or stall.
    pub gc_overlap: u64,
    /// Requests that overlapped another safepoint and no GC stop.
    pub safepoint_overlap: u64,
    /// Share of the run's time covered by GC pauses and stalls (0–1): the same for every tail, repeated here.
    pub gc_time_share: f64,
    /// The share of requests of these very lengths, placed at random in the run, that would overlap a GC stop (0–1):
    /// what chance alone gives.
    pub gc_chance: f64,
    pub safepoint_chance: f64,
    /// The tail's percentile as measured (for `slowest`: the slowest request), ms.
    pub percentile_ms: f64,
    /// The same percentile with each request's overlap with GC stops taken out of its latency, ms.
    pub recomputed_ms: f64,
}

/// Stops inside the run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct StopCounts {
    pub gc_pauses: u64,
    pub gc_stalls: u64,
    pub safepoints: u64,
    pub longest_gc_pause_ms: f64,
    pub longest_gc_stall_ms: f64,
    pub longest_safepoint_ms: f64,
}

/// One slow request, for the list of unexplained ones.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TailRequest {
    /// When its latency began, seconds since the run's start.
    pub at_s: f64,
    pub latency_ms: f64,
    /// Its request's name in a mix (the URL for a single request).
    pub request: String,
}

/// The answer in one word and in a sentence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    pub kind: VerdictKind,
    /// "GC explains 94 % of requests above p99 (pauses cover 3 % of the time)".
    pub text: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VerdictKind {
    /// Most of the tail overlapped GC stops, far more than chance gives.
    Gc,
    /// Clearly more of the tail than chance overlapped GC stops, but not most of it.
    PartlyGc,
    /// Safepoints that are no GC explain most of the tail.
    Safepoint,
    /// The tail overlaps GC stops about as often as chance gives: look elsewhere.
    NotGc,
    /// Too few requests in the tail, or GC stops everywhere (chance alone would give most), to tell.
    CannotTell,
}

/// The JVM's stops on the run's clock: `run_start_unix_us` is the wall time of the run's start instant
/// (`BenchResult::start_unix_us`).
pub fn on_run_clock(stops: &[crate::jvm::stops::Stop], clock: &UptimeClock, run_start_unix_us: i64) -> Vec<Window> {
    let _ = (stops, clock, run_start_unix_us);
    todo!("issue 12, attribution part")
}

/// The attribution of a run's tail: `slow` its slow requests (times on the run's clock), `request_names` the names
/// of its requests (index = `SlowRequest::request`), `windows` the stops on the run's clock, `run_span_us` the run's
/// length, `clock` how the windows got there.
pub fn attribute(
    slow: &crate::load::slow::SlowRequests,
    request_names: &[String],
    windows: &[Window],
    run_span_us: u64,
    clock: UptimeClock,
) -> GcAttribution {
    let _ = (slow, request_names, windows, run_span_us, clock);
    todo!("issue 12, attribution part")
}

/// The attribution as `jload bench --jvm` prints it: the verdict, then one line per tail.
pub fn render(attribution: &GcAttribution) -> String {
    let _ = attribution;
    todo!("issue 12, attribution part")
}
