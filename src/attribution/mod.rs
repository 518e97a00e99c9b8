//! "Is it the GC?" answered per request: the slow requests of a run (`load::record::slow`) laid over the JVM's GC
//! pauses, GC stalls and other safepoints (`jvm::gclog::stops`) on one clock (`jvm::clock`) — and, for a target in a cgroup
//! box with a CPU quota, over the stretches the quota held it back —, for the requests above p99, above p99.9 and the
//! 100 slowest: how many overlapped a GC stop, another safepoint or the quota, how many would by chance, what the
//! tail would be with the GC's (or the quota's) time taken out, and a verdict in words.
//!
//! Everything here is arithmetic on plain values; the callers (`bench --jvm`, the runner, the report) gather them.
//! The method (exposure, tails, chance, recomputation, verdict, clock error) is written up in docs/report.md, "Is it
//! the GC?"; each rule lives in one module: `overlap` (interval unions and chance), `exposure` (the run's stops
//! against a request), `tails` (ranks and percentiles), `verdict` (the rule and its words), `render` (the printout).

mod exposure;
mod overlap;
mod render;
mod tails;
#[cfg(test)]
mod tests;
pub mod verdict;

pub mod gather;

use serde::{Deserialize, Serialize};

use crate::jvm::clock::UptimeClock;
use crate::jvm::gclog::stops::{Stop, StopKind};
use crate::load::record::recorder::NEVER_SENT;
use crate::load::record::slow::{SlowRequest, SlowRequests};
use exposure::{Met, RunStops};
use tails::{Tail, Which};

pub use render::render;
pub use verdict::verdict;

/// How many of the slowest requests the `slowest` tail holds.
pub const SLOWEST: usize = 100;

/// How many unexplained requests are listed.
pub const UNEXPLAINED: usize = 10;

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
    /// Share of the run's time (0–1) in which the CPU quota held the JVM back; absent when no such stretch fell in
    /// the run (no box, no quota, or never throttled).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quota_time_share: Option<f64>,
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
    /// `above_ms` and `percentile_ms` are only upper bounds: the store did not keep the requests at their ranks
    /// (they are at most its threshold, the figure given).
    #[serde(default)]
    pub percentile_at_most: bool,
    /// `recomputed_ms` is only an upper bound: with the GC's time out, the percentile fell to the store's threshold
    /// or below, among requests it did not keep (the threshold is the figure given).
    #[serde(default)]
    pub recomputed_at_most: bool,
    /// The share (0–1) of the tail's time (its examined requests' latencies added up) spent inside GC windows. Chance
    /// alone gives about `gc_time_share`; the verdict weighs it when GC windows are everywhere.
    #[serde(default)]
    pub gc_latency_share: f64,
    /// The tail against the stretches the CPU quota held the JVM back; absent when none fell in the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quota: Option<QuotaShare>,
}

/// One tail against the CPU quota's stretches (a target in a cgroup box with a quota that throttled it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QuotaShare {
    /// Requests of the tail whose time overlapped a stretch the quota held the JVM back (whatever else they met).
    pub overlap: u64,
    /// The share of requests of these lengths, placed at random in the run, that would overlap one (0–1).
    pub chance: f64,
    /// The tail's percentile with each request's overlap with the quota's stretches taken out of its latency, ms.
    pub recomputed_ms: f64,
    /// `recomputed_ms` is only an upper bound (as `TailShare::recomputed_at_most`).
    #[serde(default)]
    pub recomputed_at_most: bool,
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
    /// Stretches the CPU quota held the JVM back (one per throttled CFS period) inside the run, and the longest (ms).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub throttled_periods: u64,
    #[serde(default, skip_serializing_if = "is_zero_ms")]
    pub longest_throttled_ms: f64,
    /// jload's own reads of the JVM (NMT summaries) inside the run and the longest (ms); the safepoints they caused
    /// and the longest (ms): counted apart, never the service's.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub jload_reads: u64,
    #[serde(default, skip_serializing_if = "is_zero_ms")]
    pub longest_jload_read_ms: f64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub jload_safepoints: u64,
    #[serde(default, skip_serializing_if = "is_zero_ms")]
    pub longest_jload_safepoint_ms: f64,
}

fn is_zero(count: &u64) -> bool {
    *count == 0
}

fn is_zero_ms(ms: &f64) -> bool {
    *ms == 0.0
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

/// The answer in one word, the case of the rule that gave it with that case's numbers in one line, and in a
/// sentence (the rule: `verdict.rs`, docs/report.md "The verdict").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    pub kind: VerdictKind,
    /// The case of the rule that decided (absent from records written before it was kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<VerdictRule>,
    /// How much lower p99 is without the GC's time (0–1; at least this much when the recomputed p99 is only an upper
    /// bound): what the rule weighs first.
    #[serde(default)]
    pub p99_drop: f64,
    /// How much lower p99 is without the time the CPU quota held the JVM back (0–1); absent without such time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quota_p99_drop: Option<f64>,
    /// The rule's numbers in one line, as the terminal prints it after the kind: "p99 454.0 → 441.9 ms without GC
    /// (−2.7 %, below the 10 % that makes GC a cause); 83 % of 2226 requests above p99 overlapped GC, chance 81 %:
    /// saturation, requests this long meet GC whatever slows them".
    #[serde(default)]
    pub summary: String,
    /// The sentence: what the verdict means, then `summary` (and p99.9 without GC when it is lower).
    pub text: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VerdictKind {
    /// Taking the GC's time out lowers p99 materially, and most of the tail overlapped GC stops.
    Gc,
    /// Taking the GC's time out lowers p99 materially, but most of the tail did not overlap a GC stop.
    PartlyGc,
    /// Safepoints that are no GC explain most of the tail (and GC's time does not).
    Safepoint,
    /// Taking the GC's time out leaves p99 about where it is: GC overlapped the tail (by chance, under saturation, or
    /// beside what really makes it slow) or not at all.
    NotGc,
    /// Too few requests in the tail to tell.
    CannotTell,
    /// Taking out the time the CPU quota held the JVM back lowers p99 materially (more than the GC's does), and most
    /// of the tail overlapped those stretches.
    CpuQuota,
    /// The same drop, but most of the tail did not overlap the quota's stretches.
    PartlyCpuQuota,
}

/// Which case of the verdict's rule decided, in the rule's order (`verdict::rule`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VerdictRule {
    /// Fewer than `verdict::MIN_TAIL_REQUESTS` requests above p99.
    TooFew,
    /// p99 drops by at least `verdict::MATERIAL_DROP` without GC, and most of the tail overlapped GC.
    GcMakesTheTail,
    /// p99 drops by at least `verdict::MATERIAL_DROP` without GC, but most of the tail did not overlap GC.
    GcMakesPart,
    /// Most of the tail overlapped safepoints that are no GC, far beyond chance.
    Safepoints,
    /// No GC pause or stall during the run.
    NoGcStop,
    /// GC overlapped the tail, but requests this long meet GC whatever slows them (chance ≥ 50 %): saturation,
    /// queueing.
    Saturation,
    /// GC overlapped the tail clearly beyond chance, but its time is not what makes the tail.
    OverlapWithoutEffect,
    /// GC overlapped the tail about as often as chance gives.
    AboutChance,
    /// p99 drops by at least `verdict::MATERIAL_DROP` without the CPU quota's time, more than without GC's, and
    /// most of the tail overlapped the quota's stretches.
    QuotaMakesTheTail,
    /// The same drop, but most of the tail did not overlap them.
    QuotaMakesPart,
}

/// The JVM's stops on the run's clock: `run_start_unix_us` is the wall time of the run's start instant
/// (`BenchResult::start_unix_us`). Each stop's start is mapped through `clock`, its end is its start plus its
/// duration (to the microsecond).
pub fn on_run_clock(stops: &[Stop], clock: &UptimeClock, run_start_unix_us: i64) -> Vec<Window> {
    stops
        .iter()
        .map(|stop| {
            let start_us = clock.unix_us_at(stop.start_s) - run_start_unix_us;
            Window { start_us, end_us: start_us + (stop.duration_ms * 1000.0).round() as i64, kind: stop.kind }
        })
        .collect()
}

/// The attribution of a run's tail: `slow` its slow requests (times on the run's clock), `request_names` the names
/// of its requests (index = `SlowRequest::request`), `windows` the stops on the run's clock, `run_span_us` the run's
/// length, `clock` how the windows got there.
pub fn attribute(
    slow: &SlowRequests,
    request_names: &[String],
    windows: &[Window],
    run_span_us: u64,
    clock: UptimeClock,
) -> GcAttribution {
    let stops = RunStops::new(windows, run_span_us, (clock.error_ms * 1000.0).ceil() as i64);
    let slowest_first = slow.slowest_first();
    let without_gc = tails::without(&slowest_first, |request| stops.in_gc_us(request));
    let quota =
        windows.iter().any(|window| window.kind == StopKind::CpuThrottled && window_in_run(window, run_span_us));
    let without_quota = quota.then(|| tails::without(&slowest_first, |request| stops.in_quota_us(request)));
    let share = |which: Which| {
        let tail = tails::tail(which, &slowest_first, slow.offered, slow.threshold_us);
        let recomputed = tails::recomputed(&without_gc, tail.position, slow.offered, slow.threshold_us);
        let without_quota = without_quota
            .as_ref()
            .map(|without| tails::recomputed(without, tail.position, slow.offered, slow.threshold_us));
        tail_share(&tail, recomputed, without_quota, &stops)
    };
    let (p99, p999, slowest) = (share(Which::Above(0.99)), share(Which::Above(0.999)), share(Which::Slowest(SLOWEST)));
    let counts = stops.counts();
    let verdict = verdict::verdict(&p99, &p999, &counts);
    GcAttribution {
        p99,
        p999,
        slowest,
        gc_time_share: stops.gc_time_share(),
        safepoint_time_share: stops.safepoint_time_share(),
        stops: counts,
        clock,
        clock_error_ms: clock.error_ms,
        unexplained: unexplained(&slowest_first, request_names, &stops),
        verdict,
        quota_time_share: quota.then(|| stops.quota_time_share()),
    }
}

/// Whether a window lies (partly) inside the run `[0, span_us)`.
fn window_in_run(window: &Window, span_us: u64) -> bool {
    window.start_us < span_us as i64 && window.end_us > 0
}

/// One tail's figures: what its kept requests met, what chance gives for their lengths, its percentiles.
fn tail_share(
    tail: &Tail,
    recomputed: tails::Latency,
    without_quota: Option<tails::Latency>,
    stops: &RunStops,
) -> TailShare {
    let met: Vec<Met> = tail.kept.iter().map(|request| stops.met(request)).collect();
    let count = |kind: Met| met.iter().filter(|&&met| met == kind).count() as u64;
    let mean = |chance: &dyn Fn(&SlowRequest) -> f64| {
        if tail.kept.is_empty() {
            return 0.0;
        }
        tail.kept.iter().map(chance).sum::<f64>() / tail.kept.len() as f64
    };
    TailShare {
        requests: tail.requests,
        examined: tail.kept.len() as u64,
        above_ms: tail.above.ms(),
        gc_overlap: count(Met::Gc),
        safepoint_overlap: count(Met::SafepointOnly),
        gc_time_share: stops.gc_time_share(),
        gc_chance: mean(&|request| stops.gc_chance(request)),
        safepoint_chance: mean(&|request| stops.safepoint_only_chance(request)),
        percentile_ms: tail.percentile.ms(),
        recomputed_ms: recomputed.ms(),
        percentile_at_most: tail.percentile.at_most || tail.above.at_most,
        recomputed_at_most: recomputed.at_most,
        gc_latency_share: latency_share(tail.kept, stops),
        quota: without_quota.map(|recomputed| QuotaShare {
            overlap: tail.kept.iter().filter(|request| stops.met_quota(request)).count() as u64,
            chance: mean(&|request| stops.quota_chance(request)),
            recomputed_ms: recomputed.ms(),
            recomputed_at_most: recomputed.at_most,
        }),
    }
}

/// The share of `requests`' latencies, added up, spent inside the GC windows as mapped.
fn latency_share(requests: &[SlowRequest], stops: &RunStops) -> f64 {
    let latency: u64 = requests.iter().map(|request| u64::from(request.latency_us)).sum();
    if latency == 0 {
        return 0.0;
    }
    let in_gc: u64 = requests.iter().map(|request| stops.in_gc_us(request)).sum();
    in_gc as f64 / latency as f64
}

/// The slowest kept requests that met no stop at all, nor the quota (at most [`UNEXPLAINED`]), slowest first.
fn unexplained(slowest_first: &[SlowRequest], request_names: &[String], stops: &RunStops) -> Vec<TailRequest> {
    slowest_first
        .iter()
        .filter(|request| stops.met(request) == Met::Nothing && !stops.met_quota(request))
        .take(UNEXPLAINED)
        .map(|request| TailRequest {
            at_s: request.began_us() as f64 / 1e6,
            latency_ms: f64::from(request.latency_us) / 1000.0,
            request: match request.request {
                NEVER_SENT => "(never sent: its connection was busy until the end)".to_string(),
                index => request_names.get(usize::from(index)).cloned().unwrap_or_else(|| format!("#{index}")),
            },
        })
        .collect()
}
