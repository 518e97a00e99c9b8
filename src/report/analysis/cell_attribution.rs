//! "Is it the GC?" per cell and phase: the attribution of each measured repeat (`PhaseRecord::gc_attribution`, see
//! `crate::attribution`) combined over the cell's repeats into one answer, or why a cell has none.
//!
//! The combination: counts are summed (tail requests, requests examined, GC overlaps, safepoint overlaps, stops) and
//! every share is recomputed from the sums, so a share is "of all the tail requests of all repeats"; the share of
//! time GC covered is weighted by each repeat's length (total GC time over total time); the chance a tail request
//! overlaps GC is weighted by the requests each repeat examined (the expected overlaps, summed, over the requests
//! examined — the same base as the overlap share it is compared with), and so is the share of the tail's time spent
//! in GC windows; the percentiles, measured and recomputed without GC, are medians over repeats, like every figure of
//! the report (an upper bound when any repeat's is one); the clock error is the largest. The verdict is
//! [`combined_verdict`].

use serde::Serialize;

use crate::attribution::{GcAttribution, QuotaShare, StopCounts, TailRequest, TailShare, Verdict, VerdictKind};

use super::stats::median;
use crate::report::words::kind_words;

/// How many of the slowest requests that overlapped nothing a cell lists, over all its repeats.
pub const UNEXPLAINED: usize = 10;

/// A cell's answer in one phase.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum CellAttribution {
    /// At least one measured repeat has an attribution.
    Found(Box<Combined>),
    /// No measured repeat has one: why (`no GC log`, `no clock mapping`, …).
    Missing { why: String },
}

/// The attribution of a cell over its repeats (see the module doc for how each figure combines).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Combined {
    /// The repeats combined, in order.
    pub reps: Vec<u32>,
    pub p99: TailShare,
    pub p999: TailShare,
    pub slowest: TailShare,
    pub gc_time_share: f64,
    pub safepoint_time_share: f64,
    /// The share of time the CPU quota held the JVM back, weighted by each repeat's length; absent when no repeat
    /// had such time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quota_time_share: Option<f64>,
    pub stops: StopCounts,
    /// The largest clock-mapping error of the repeats, ms.
    pub clock_error_ms: f64,
    /// The slowest requests of all repeats that overlapped no stop, slowest first (at most [`UNEXPLAINED`]).
    pub unexplained: Vec<RepRequest>,
    pub verdict: Verdict,
    /// Measured repeats without an attribution, and why.
    pub missing: Vec<MissingRep>,
    /// Each repeat's own attribution.
    pub per_repeat: Vec<RepAttribution>,
}

/// One repeat's attribution, as its phase record holds it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RepAttribution {
    pub rep: u32,
    /// The phase's length (s): the weight of its time shares.
    pub duration_s: f64,
    #[serde(flatten)]
    pub attribution: GcAttribution,
}

/// A slow request of one repeat.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RepRequest {
    pub rep: u32,
    #[serde(flatten)]
    pub request: TailRequest,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MissingRep {
    pub rep: u32,
    pub why: String,
}

/// What a measured repeat without an attribution lacked, from what its folder holds: results written before jload
/// kept slow requests have no `<phase>.slow.csv`; without a GC log there are no stops to lay the requests over; with
/// both, the JVM's uptime could not be put on the run's clock.
pub fn why_missing(has_slow_requests: bool, has_gc_log: bool) -> &'static str {
    match (has_slow_requests, has_gc_log) {
        (false, _) => "no slow requests recorded (results of an older jload)",
        (true, false) => "no GC log",
        (true, true) => "no clock mapping (JVM uptime could not be put on the run's clock)",
    }
}

/// The cell's answer from its measured repeats' attributions and why the others have none; with none, why (each
/// reason once, in repeat order).
pub fn cell_attribution(found: Vec<RepAttribution>, missing: Vec<MissingRep>) -> CellAttribution {
    if found.is_empty() {
        let mut reasons: Vec<&str> = Vec::new();
        for missing in &missing {
            if !reasons.contains(&missing.why.as_str()) {
                reasons.push(&missing.why);
            }
        }
        return CellAttribution::Missing { why: reasons.join("; ") };
    }
    CellAttribution::Found(Box::new(combine(found, missing)))
}

fn combine(per_repeat: Vec<RepAttribution>, missing: Vec<MissingRep>) -> Combined {
    let tail = |pick: fn(&GcAttribution) -> &TailShare| {
        combine_tails(&per_repeat.iter().map(|rep| (pick(&rep.attribution), rep.duration_s)).collect::<Vec<_>>())
    };
    let by_time = |pick: fn(&GcAttribution) -> f64| {
        weighted_mean(per_repeat.iter().map(|rep| (pick(&rep.attribution), rep.duration_s)))
    };
    let p99 = tail(|attribution| &attribution.p99);
    let p999 = tail(|attribution| &attribution.p999);
    let stops = sum_stops(per_repeat.iter().map(|rep| &rep.attribution.stops));
    Combined {
        reps: per_repeat.iter().map(|rep| rep.rep).collect(),
        verdict: combined_verdict(&p99, &p999, &stops, &per_repeat),
        p99,
        p999,
        slowest: tail(|attribution| &attribution.slowest),
        gc_time_share: by_time(|attribution| attribution.gc_time_share),
        safepoint_time_share: by_time(|attribution| attribution.safepoint_time_share),
        quota_time_share: per_repeat
            .iter()
            .any(|rep| rep.attribution.quota_time_share.is_some())
            .then(|| by_time(|attribution| attribution.quota_time_share.unwrap_or(0.0))),
        stops,
        clock_error_ms: per_repeat.iter().map(|rep| rep.attribution.clock_error_ms).fold(0.0, f64::max),
        unexplained: slowest_unexplained(&per_repeat),
        missing,
        per_repeat,
    }
}

/// One tail over repeats, each with its phase's length (s).
fn combine_tails(tails: &[(&TailShare, f64)]) -> TailShare {
    let sum = |pick: fn(&TailShare) -> u64| tails.iter().map(|(tail, _)| pick(tail)).sum::<u64>();
    let by_requests =
        |pick: fn(&TailShare) -> f64| weighted_mean(tails.iter().map(|(tail, _)| (pick(tail), tail.examined as f64)));
    let middle =
        |pick: fn(&TailShare) -> f64| median(tails.iter().map(|(tail, _)| pick(tail)).collect()).unwrap_or(0.0);
    TailShare {
        requests: sum(|tail| tail.requests),
        examined: sum(|tail| tail.examined),
        above_ms: middle(|tail| tail.above_ms),
        gc_overlap: sum(|tail| tail.gc_overlap),
        safepoint_overlap: sum(|tail| tail.safepoint_overlap),
        gc_time_share: weighted_mean(tails.iter().map(|(tail, duration_s)| (tail.gc_time_share, *duration_s))),
        gc_chance: by_requests(|tail| tail.gc_chance),
        safepoint_chance: by_requests(|tail| tail.safepoint_chance),
        percentile_ms: middle(|tail| tail.percentile_ms),
        recomputed_ms: middle(|tail| tail.recomputed_ms),
        // A median that may be of upper bounds is one itself.
        percentile_at_most: tails.iter().any(|(tail, _)| tail.percentile_at_most),
        recomputed_at_most: tails.iter().any(|(tail, _)| tail.recomputed_at_most),
        gc_latency_share: by_requests(|tail| tail.gc_latency_share),
        quota: combine_quota(tails),
    }
}

/// The tails against the CPU quota over repeats, like the GC figures: a repeat the quota never held back counts
/// with no overlap, no chance and its percentile unchanged; None when no repeat has any.
fn combine_quota(tails: &[(&TailShare, f64)]) -> Option<QuotaShare> {
    if tails.iter().all(|(tail, _)| tail.quota.is_none()) {
        return None;
    }
    let quota = |tail: &TailShare| {
        tail.quota.clone().unwrap_or(QuotaShare {
            overlap: 0,
            chance: 0.0,
            recomputed_ms: tail.percentile_ms,
            recomputed_at_most: tail.percentile_at_most,
        })
    };
    let quotas: Vec<(QuotaShare, f64)> = tails.iter().map(|(tail, _)| (quota(tail), tail.examined as f64)).collect();
    Some(QuotaShare {
        overlap: quotas.iter().map(|(quota, _)| quota.overlap).sum(),
        chance: weighted_mean(quotas.iter().map(|(quota, examined)| (quota.chance, *examined))),
        recomputed_ms: median(quotas.iter().map(|(quota, _)| quota.recomputed_ms).collect()).unwrap_or(0.0),
        recomputed_at_most: quotas.iter().any(|(quota, _)| quota.recomputed_at_most),
    })
}

/// Σ value × weight / Σ weight; the plain mean when every weight is 0; 0 without values.
fn weighted_mean(values: impl Iterator<Item = (f64, f64)>) -> f64 {
    let values: Vec<(f64, f64)> = values.collect();
    let total: f64 = values.iter().map(|(_, weight)| weight).sum();
    if total > 0.0 {
        values.iter().map(|(value, weight)| value * weight).sum::<f64>() / total
    } else if values.is_empty() {
        0.0
    } else {
        values.iter().map(|(value, _)| value).sum::<f64>() / values.len() as f64
    }
}

fn sum_stops<'a>(stops: impl Iterator<Item = &'a StopCounts>) -> StopCounts {
    stops.fold(StopCounts::default(), |total, stops| StopCounts {
        gc_pauses: total.gc_pauses + stops.gc_pauses,
        gc_stalls: total.gc_stalls + stops.gc_stalls,
        safepoints: total.safepoints + stops.safepoints,
        longest_gc_pause_ms: total.longest_gc_pause_ms.max(stops.longest_gc_pause_ms),
        longest_gc_stall_ms: total.longest_gc_stall_ms.max(stops.longest_gc_stall_ms),
        longest_safepoint_ms: total.longest_safepoint_ms.max(stops.longest_safepoint_ms),
        throttled_periods: total.throttled_periods + stops.throttled_periods,
        longest_throttled_ms: total.longest_throttled_ms.max(stops.longest_throttled_ms),
        jload_reads: total.jload_reads + stops.jload_reads,
        longest_jload_read_ms: total.longest_jload_read_ms.max(stops.longest_jload_read_ms),
        jload_safepoints: total.jload_safepoints + stops.jload_safepoints,
        longest_jload_safepoint_ms: total.longest_jload_safepoint_ms.max(stops.longest_jload_safepoint_ms),
    })
}

fn slowest_unexplained(per_repeat: &[RepAttribution]) -> Vec<RepRequest> {
    let mut all: Vec<RepRequest> = per_repeat
        .iter()
        .flat_map(|rep| {
            rep.attribution.unexplained.iter().map(|request| RepRequest { rep: rep.rep, request: request.clone() })
        })
        .collect();
    all.sort_by(|a, b| b.request.latency_ms.total_cmp(&a.request.latency_ms));
    all.truncate(UNEXPLAINED);
    all
}

/// The cell's verdict: the attribution's own rule (`attribution::verdict`) on the combined tails and stops, so the
/// verdict and its sentence are about the figures the cell's row shows, and repeats too small to judge alone add up
/// to a tail that can be; when the repeats' own verdicts differ, the sentence ends saying which repeat said what.
/// One repeat's combination is that repeat, and so is its verdict.
pub fn combined_verdict(
    p99: &TailShare,
    p999: &TailShare,
    stops: &StopCounts,
    per_repeat: &[RepAttribution],
) -> Verdict {
    let mut verdict = crate::attribution::verdict(p99, p999, stops);
    let kinds: Vec<VerdictKind> = per_repeat.iter().map(|rep| rep.attribution.verdict.kind).collect();
    if kinds.iter().any(|kind| *kind != kinds[0]) {
        let said: Vec<String> = per_repeat
            .iter()
            .map(|rep| format!("{} in repeat {}", kind_words(rep.attribution.verdict.kind), rep.rep))
            .collect();
        verdict.text = format!("{} (the repeats differ: {})", verdict.text, said.join(", "));
    }
    verdict
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jvm::clock::{ClockSource, UptimeClock};
    use crate::report::words::overlap_share;

    fn tail(requests: u64, gc_overlap: u64, gc_chance: f64, percentile_ms: f64, recomputed_ms: f64) -> TailShare {
        TailShare {
            requests,
            examined: requests,
            above_ms: percentile_ms,
            gc_overlap,
            safepoint_overlap: 1,
            gc_time_share: 0.0,
            gc_chance,
            safepoint_chance: 0.01,
            percentile_ms,
            recomputed_ms,
            percentile_at_most: false,
            recomputed_at_most: false,
            gc_latency_share: 0.0,
            quota: None,
        }
    }

    /// A repeat of `duration_s` whose p99 tail has `requests` requests, `gc_overlap` of them over GC.
    fn repeat(rep: u32, duration_s: f64, p99: TailShare, gc_time_share: f64, kind: VerdictKind) -> RepAttribution {
        let p99 = TailShare { gc_time_share, ..p99 };
        RepAttribution {
            rep,
            duration_s,
            attribution: GcAttribution {
                p999: TailShare { requests: p99.requests / 10, examined: p99.examined / 10, ..p99.clone() },
                slowest: p99.clone(),
                p99,
                gc_time_share,
                safepoint_time_share: 0.002,
                stops: StopCounts {
                    gc_pauses: 10 * u64::from(rep),
                    gc_stalls: 0,
                    safepoints: 3,
                    longest_gc_pause_ms: 40.0 + f64::from(rep),
                    longest_gc_stall_ms: 0.0,
                    longest_safepoint_ms: 0.5,
                    ..StopCounts::default()
                },
                clock: UptimeClock {
                    zero_unix_us: 1_700_000_000_000_000,
                    error_ms: 0.1 * f64::from(rep),
                    source: ClockSource::GcLog,
                    cross_check_ms: None,
                },
                clock_error_ms: 0.1 * f64::from(rep),
                unexplained: vec![TailRequest {
                    at_s: f64::from(rep),
                    latency_ms: 20.0 + f64::from(rep),
                    request: "/get".to_string(),
                }],
                quota_time_share: None,
                verdict: Verdict {
                    kind,
                    rule: None,
                    p99_drop: 0.0,
                    quota_p99_drop: None,
                    summary: String::new(),
                    text: format!("repeat {rep} says {kind:?}"),
                },
            },
        }
    }

    fn combined(reps: Vec<RepAttribution>) -> Combined {
        match cell_attribution(reps, vec![MissingRep { rep: 4, why: "no GC log".to_string() }]) {
            CellAttribution::Found(combined) => *combined,
            CellAttribution::Missing { why } => panic!("{why}"),
        }
    }

    #[test]
    fn counts_add_up_and_shares_come_from_the_sums() {
        // 30 s with 100 p99 requests, 90 over GC; 10 s with 50, 10 over GC; 20 s with 150, 140 over GC.
        let combined = combined(vec![
            repeat(1, 30.0, tail(100, 90, 0.05, 30.0, 4.0), 0.04, VerdictKind::Gc),
            repeat(2, 10.0, tail(50, 10, 0.20, 12.0, 11.0), 0.10, VerdictKind::Gc),
            repeat(3, 20.0, tail(150, 140, 0.02, 50.0, 6.0), 0.01, VerdictKind::Gc),
        ]);
        let p99 = &combined.p99;
        assert_eq!((p99.requests, p99.examined, p99.gc_overlap, p99.safepoint_overlap), (300, 300, 240, 3));
        assert_eq!(overlap_share(p99), 0.8);
        // Chance weighted by requests examined: (100 × 0.05 + 50 × 0.20 + 150 × 0.02) / 300 = 18 / 300.
        assert!((p99.gc_chance - 0.06).abs() < 1e-12, "{}", p99.gc_chance);
        // GC's share of time weighted by length: (30 × 0.04 + 10 × 0.10 + 20 × 0.01) / 60 = 2.4 / 60.
        assert!((combined.gc_time_share - 0.04).abs() < 1e-12, "{}", combined.gc_time_share);
        assert!((p99.gc_time_share - 0.04).abs() < 1e-12);
        // Percentiles: medians over repeats.
        assert_eq!((p99.percentile_ms, p99.recomputed_ms, p99.above_ms), (30.0, 6.0, 30.0));
        assert_eq!((combined.p999.requests, combined.p999.examined), (30, 30));
        assert_eq!(combined.stops.gc_pauses, 60);
        assert_eq!((combined.stops.safepoints, combined.stops.longest_gc_pause_ms), (9, 43.0));
        assert_eq!(combined.clock_error_ms, 0.1 * 3.0, "the largest");
        assert_eq!(combined.reps, [1, 2, 3]);
        assert_eq!(combined.missing, [MissingRep { rep: 4, why: "no GC log".to_string() }]);
        let unexplained: Vec<(u32, f64)> =
            combined.unexplained.iter().map(|slow| (slow.rep, slow.request.latency_ms)).collect();
        assert_eq!(unexplained, [(3, 23.0), (2, 22.0), (1, 21.0)]);
        assert_eq!(combined.per_repeat.len(), 3);
    }

    /// The verdict of 30-s repeats with `requests` p99 requests each, `gc_overlap` of them over GC (chance 5 %),
    /// each repeat's own verdict `kind`.
    fn verdict_of(requests: u64, repeats: &[(u64, VerdictKind)]) -> Verdict {
        let repeats: Vec<RepAttribution> = (1..)
            .zip(repeats)
            .map(|(rep, (overlap, kind))| repeat(rep, 30.0, tail(requests, *overlap, 0.05, 30.0, 4.0), 0.04, *kind))
            .collect();
        combined(repeats).verdict
    }

    #[test]
    fn the_verdict_is_the_attributions_rule_on_the_summed_tails() {
        // Two repeats of 15 requests above p99 each are too few alone; their 30 together are judged: 27 over GC.
        let verdict = verdict_of(15, &[(14, VerdictKind::CannotTell), (13, VerdictKind::CannotTell)]);
        assert_eq!(verdict.kind, VerdictKind::Gc, "{}", verdict.text);
        assert!(
            verdict.summary.ends_with("90 % of 30 requests above p99 overlapped GC pauses (chance 5.0 %)"),
            "{}",
            verdict.text
        );
        assert!(!verdict.text.contains("repeats differ"), "they did not differ");
    }

    #[test]
    fn repeats_whose_own_verdicts_differ_are_named_after_the_sentence() {
        let verdict = verdict_of(100, &[(90, VerdictKind::Gc), (6, VerdictKind::NotGc)]);
        assert!(
            verdict.text.ends_with(" (the repeats differ: GC in repeat 1, not GC in repeat 2)"),
            "{}",
            verdict.text
        );
    }

    #[test]
    fn one_repeat_is_its_own_answer() {
        let only = repeat(1, 30.0, tail(100, 90, 0.05, 30.0, 4.0), 0.04, VerdictKind::Gc);
        let combined = combined(vec![only.clone()]);
        assert_eq!(combined.p99, only.attribution.p99);
        let own = &only.attribution;
        assert_eq!(combined.verdict, crate::attribution::verdict(&own.p99, &own.p999, &own.stops));
    }

    #[test]
    fn without_any_attribution_the_cell_says_why_each_reason_once() {
        let missing = |rep: u32, why: &str| MissingRep { rep, why: why.to_string() };
        let why = |missing: Vec<MissingRep>| match cell_attribution(Vec::new(), missing) {
            CellAttribution::Missing { why } => why,
            CellAttribution::Found(_) => panic!("nothing to combine"),
        };
        assert_eq!(why(vec![missing(1, "no GC log"), missing(2, "no GC log")]), "no GC log");
        assert_eq!(why(vec![missing(1, "no GC log"), missing(2, "x"), missing(3, "no GC log")]), "no GC log; x");
        assert_eq!(why_missing(false, true), "no slow requests recorded (results of an older jload)");
        assert_eq!(why_missing(true, false), "no GC log");
        assert_eq!(why_missing(true, true), "no clock mapping (JVM uptime could not be put on the run's clock)");
    }
}
