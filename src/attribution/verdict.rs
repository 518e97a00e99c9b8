//! The verdict: one rule, on the p99 tail, that says whether the GC explains the slow requests, and the sentence that
//! says it with its numbers (the p99.9 tail's recomputed percentile beside the p99's).

use super::{StopCounts, TailShare, Verdict, VerdictKind};

/// Below this many requests in the p99 tail (examined ones) nothing is claimed: with 20 requests one request moves a
/// share by 5 points, and a tail that small is a handful of events, not a pattern.
pub const MIN_TAIL_REQUESTS: u64 = 20;

/// From this chance up, stops are everywhere: a request as long as the tail's meets one as often as not even when
/// nothing connects them, so overlap cannot tell a GC-driven tail from any other. Time still can: a tail that spent
/// most of its time inside GC windows, far more than the share of the run they cover, is the GC's (ZGC allocation
/// stall storms, a collector thrashing in a heap too small).
pub const CHANCE_CEILING: f64 = 0.5;

/// "Most of the tail": more than half of it overlapped GC (or, for `safepoint`, another safepoint).
pub const MOST: f64 = 0.5;

/// "Far above chance": the overlapping share exceeds what chance gives by at least 25 points, so at least a quarter
/// of the tail overlapped beyond what random placement explains (e.g. 50 % against at most 25 %).
pub const FAR_ABOVE_CHANCE: f64 = 0.25;

/// "Clearly above chance": at least 10 points beyond it, the GC's part is too large to be noise in a big tail.
pub const CLEARLY_ABOVE_CHANCE: f64 = 0.10;

/// And beyond chance by at least this many standard deviations of the share chance alone would give over the tail's
/// requests (binomial: √(p(1 − p)/n)): with 20 requests and 10 % chance, three deviations are 20 points, so a small
/// tail needs a larger excess before the rule says anything.
pub const NOISE_DEVIATIONS: f64 = 3.0;

/// A share within this many points above chance is "about what chance gives" in words; further above (but short of
/// the rule's margins) it is "not clearly more than chance gives".
pub const ABOUT_CHANCE: f64 = 0.05;

/// Recomputed percentiles lower than the measured by at least this fraction are worth a sentence.
pub const RECOMPUTED_WORTH_SAYING: f64 = 0.05;

/// The verdict on the p99 tail, with the p99.9 tail's recomputation in its text.
pub fn verdict(p99: &TailShare, p999: &TailShare, stops: &StopCounts) -> Verdict {
    let reason = reason(p99, stops);
    let mut text = words(reason, p99, stops);
    // A tail too small to judge is too small to recompute as well.
    if reason != Reason::TooFew
        && let Some(sentence) = recomputation(&[("p99", p99), ("p99.9", p999)], stops)
    {
        text = format!("{text}. {sentence}");
    }
    Verdict { kind: reason.kind(), text }
}

/// Why the verdict is what it is: each case of the rule, in [`reason`]'s order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reason {
    TooFew,
    /// GC windows everywhere, and the tail spent most of its time in them, far more than the run.
    EverywhereAndMostTime,
    /// GC windows everywhere, and the tail spent clearly more of its time in them than the run, but not most.
    EverywhereMoreTime,
    /// GC windows everywhere, and the tail spent no more of its time in them than the run did.
    EverywhereNotMoreTime,
    MostGc,
    MostSafepoint,
    PartlyGc,
    NoGcStop,
    AboutChance,
}

impl Reason {
    fn kind(self) -> VerdictKind {
        match self {
            Reason::TooFew => VerdictKind::CannotTell,
            Reason::EverywhereAndMostTime | Reason::MostGc => VerdictKind::Gc,
            Reason::MostSafepoint => VerdictKind::Safepoint,
            Reason::PartlyGc | Reason::EverywhereMoreTime => VerdictKind::PartlyGc,
            Reason::NoGcStop | Reason::AboutChance | Reason::EverywhereNotMoreTime => VerdictKind::NotGc,
        }
    }
}

/// The rule (see the constants for each threshold's reasoning), in order: too few requests cannot tell; GC stops
/// everywhere are judged by time instead of counts — GC when the tail spent most of its time in them, far more than
/// the share of the run they cover, partly GC when clearly more, not GC when no more (the tail met them as any
/// stretch of the run would); most overlapped GC far above chance is GC; most overlapped other safepoints far above
/// chance is safepoints; clearly above chance is partly GC; anything else is not GC.
fn reason(tail: &TailShare, stops: &StopCounts) -> Reason {
    let examined = tail.examined;
    if examined < MIN_TAIL_REQUESTS {
        return Reason::TooFew;
    }
    if tail.gc_chance >= CHANCE_CEILING {
        let beyond_the_run = tail.gc_latency_share - tail.gc_time_share;
        return if tail.gc_latency_share >= MOST && beyond_the_run >= FAR_ABOVE_CHANCE {
            Reason::EverywhereAndMostTime
        } else if beyond_the_run >= CLEARLY_ABOVE_CHANCE {
            Reason::EverywhereMoreTime
        } else {
            Reason::EverywhereNotMoreTime
        };
    }
    let gc_share = tail.gc_overlap as f64 / examined as f64;
    let safepoint_share = tail.safepoint_overlap as f64 / examined as f64;
    if gc_share >= MOST && beyond_chance(gc_share, tail.gc_chance, examined, FAR_ABOVE_CHANCE) {
        Reason::MostGc
    } else if safepoint_share >= MOST
        && beyond_chance(safepoint_share, tail.safepoint_chance, examined, FAR_ABOVE_CHANCE)
    {
        Reason::MostSafepoint
    } else if beyond_chance(gc_share, tail.gc_chance, examined, CLEARLY_ABOVE_CHANCE) {
        Reason::PartlyGc
    } else if stops.gc_pauses + stops.gc_stalls == 0 {
        Reason::NoGcStop
    } else {
        Reason::AboutChance
    }
}

/// The verdict's sentence for `reason`, with its numbers.
fn words(reason: Reason, tail: &TailShare, stops: &StopCounts) -> String {
    let examined = tail.examined.max(1) as f64;
    let gc = stops_noun(stops);
    let gc_share = tail.gc_overlap as f64 / examined;
    let (share, chance, cover) = (percent(gc_share), percent(tail.gc_chance), percent(tail.gc_time_share));
    match reason {
        Reason::TooFew => format!(
            "Cannot tell: {} requests above p99, at least {MIN_TAIL_REQUESTS} are needed (run longer or at a higher \
             rate)",
            tail.examined
        ),
        Reason::EverywhereAndMostTime => format!(
            "GC explains this tail: requests above p99 spent {} of their time in GC {gc}, which cover {cover} of the \
             run (they are everywhere: {share} of these requests overlap one, {chance} would by chance)",
            percent(tail.gc_latency_share)
        ),
        Reason::EverywhereMoreTime => format!(
            "GC explains part of this tail: requests above p99 spent {} of their time in GC {gc}, which cover {cover} \
             of the run (they are everywhere: {share} of these requests overlap one, {chance} would by chance)",
            percent(tail.gc_latency_share)
        ),
        Reason::EverywhereNotMoreTime => format!(
            "GC does not explain this tail: requests above p99 spent {} of their time in GC {gc}, {} the {cover} of \
             the run they cover (they are everywhere: {share} of these requests overlap one, {chance} would by chance)",
            percent(tail.gc_latency_share),
            if tail.gc_latency_share <= tail.gc_time_share { "less than" } else { "about" }
        ),
        Reason::MostGc => {
            format!(
                "GC explains {share} of requests above p99 ({gc} cover {cover} of the time; chance alone: {chance})"
            )
        }
        Reason::MostSafepoint => format!(
            "Safepoints that are not GC explain {} of requests above p99 (chance alone: {}; the longest {})",
            percent(tail.safepoint_overlap as f64 / examined),
            percent(tail.safepoint_chance),
            ms_text(stops.longest_safepoint_ms)
        ),
        Reason::PartlyGc => format!(
            "GC explains part of this tail: {share} of requests above p99 overlap GC {gc}, against {chance} by chance \
             ({gc} cover {cover} of the time)"
        ),
        Reason::NoGcStop => "GC does not explain this tail: no GC pause or stall during the run".to_string(),
        Reason::AboutChance => {
            let about = if gc_share <= tail.gc_chance {
                "no more than what chance gives".to_string()
            } else if gc_share - tail.gc_chance < ABOUT_CHANCE {
                "about what chance gives".to_string()
            } else {
                format!("not clearly more than chance gives for {} requests", tail.examined)
            };
            format!("GC does not explain this tail: {share} of requests above p99 overlap GC {gc}, {about} ({chance})")
        }
    }
}

/// Whether `share` exceeds `chance` by `points` and by [`NOISE_DEVIATIONS`] deviations of chance over `n` requests.
fn beyond_chance(share: f64, chance: f64, n: u64, points: f64) -> bool {
    let deviation = (chance * (1.0 - chance) / n as f64).sqrt();
    share - chance >= points.max(NOISE_DEVIATIONS * deviation)
}

/// "Without GC pauses, p99 would be 4.1 ms instead of 31 ms, p99.9 12 ms instead of 80 ms": the tails whose
/// recomputed percentile is lower by [`RECOMPUTED_WORTH_SAYING`] or more. None when none is.
fn recomputation(tails: &[(&str, &TailShare)], stops: &StopCounts) -> Option<String> {
    let lower =
        tails.iter().filter(|(_, tail)| tail.recomputed_ms <= tail.percentile_ms * (1.0 - RECOMPUTED_WORTH_SAYING));
    let clauses: Vec<String> = lower
        .enumerate()
        .map(|(index, (name, tail))| {
            let would_be = if index == 0 { " would be" } else { "" };
            let recomputed = if tail.recomputed_at_most { "at most " } else { "" };
            let measured = if tail.percentile_at_most { "at most " } else { "" };
            format!(
                "{name}{would_be} {recomputed}{} instead of {measured}{}",
                ms_text(tail.recomputed_ms),
                ms_text(tail.percentile_ms)
            )
        })
        .collect();
    if clauses.is_empty() {
        return None;
    }
    Some(format!("Without GC {}, {}", stops_noun(stops), clauses.join(", ")))
}

/// What the GC stops of the run were: "pauses", "stalls" or "pauses and stalls".
fn stops_noun(stops: &StopCounts) -> &'static str {
    match (stops.gc_pauses > 0, stops.gc_stalls > 0) {
        (false, true) => "stalls",
        (true, true) => "pauses and stalls",
        _ => "pauses",
    }
}

/// A share (0–1) as prose: "94 %", "3.0 %", "< 0.1 %", "0 %".
pub fn percent(share: f64) -> String {
    let pct = share * 100.0;
    if pct >= 9.95 {
        format!("{pct:.0} %")
    } else if pct >= 0.05 {
        format!("{pct:.1} %")
    } else if pct > 0.0 {
        "< 0.1 %".to_string()
    } else {
        "0 %".to_string()
    }
}

/// Milliseconds as prose, two significant digits or whole milliseconds: "31 ms", "4.1 ms", "0.42 ms".
pub fn ms_text(ms: f64) -> String {
    if ms >= 9.95 {
        format!("{ms:.0} ms")
    } else if ms >= 0.995 {
        format!("{ms:.1} ms")
    } else {
        format!("{ms:.2} ms")
    }
}
