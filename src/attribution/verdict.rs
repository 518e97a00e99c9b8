//! The verdict: one rule, on the p99 tail, that says whether the GC makes the slow requests, the one line with the
//! numbers that rule used, and the sentence that says it (with the p99.9 tail's recomputed percentile beside).
//!
//! The rule weighs the GC's *effect* first: how much lower p99 is once each request's time inside GC windows is taken
//! out. Overlap counts alone cannot blame the GC — under saturation every request is long and meets every pause —
//! and they cannot acquit it either — when stalls are everywhere, chance gives 100 % while the GC's time is most of
//! the tail. Overlap and chance then say which kind of "not GC" it is.
//!
//! A target in a cgroup box with a CPU quota has one more cause, weighed by the same rule: the stretches the quota
//! held the JVM back. When taking their time out lowers p99 materially, and more than taking the GC's out does, the
//! quota is the cause (most of the tail overlapped them) or part of it; overlap alone never makes it one. Without
//! such stretches in the run (no box, no quota, never throttled) the rule is the GC's alone, as it always was.

use super::{StopCounts, TailShare, Verdict, VerdictKind, VerdictRule};

/// Below this many requests in the p99 tail (examined ones) nothing is claimed: with 20 requests one request moves a
/// share by 5 points, and a tail that small is a handful of events, not a pattern.
pub const MIN_TAIL_REQUESTS: u64 = 20;

/// The GC is a cause of the tail when taking its time out lowers p99 by at least this share (10 %). Below it, a user
/// who removed every GC pause and stall would gain less than the spread a p99 shows between repeats of one run (a
/// few %, up to 10 % on a shared machine): GC may have overlapped the tail, but it is not what makes it. The
/// recomputation takes out only the time a request spent inside a GC window (not the backlog a pause leaves), so the
/// drop is a lower bound of the GC's effect and the rule errs towards "not GC" only by that backlog.
pub const MATERIAL_DROP: f64 = 0.10;

/// "Most of the tail": at least half of it overlapped GC (or, for safepoints, another safepoint).
pub const MOST: f64 = 0.5;

/// From this chance up, requests as long as the tail's meet a GC window as often as not even when nothing connects
/// them (saturation: every request waits long, so each meets every pause): overlap then says nothing.
pub const CHANCE_CEILING: f64 = 0.5;

/// "Far above chance": the overlapping share exceeds what chance gives by at least 25 points (for safepoints, whose
/// time the recomputation does not take out, overlap is the only evidence).
pub const FAR_ABOVE_CHANCE: f64 = 0.25;

/// And beyond chance by at least this many standard deviations of the share chance alone would give over the tail's
/// requests (binomial: √(p(1 − p)/n)): with 20 requests and 10 % chance, three deviations are 20 points, so a small
/// tail needs a larger excess before the rule says it is beyond chance.
pub const NOISE_DEVIATIONS: f64 = 3.0;

/// "Beyond chance" (when GC's time is no cause): at least 5 points more of the tail overlapped GC than chance gives
/// (and [`NOISE_DEVIATIONS`] deviations); within that, the overlap is "about what chance gives".
pub const ABOUT_CHANCE: f64 = 0.05;

/// The p99.9 recomputed lower than measured by at least this fraction is worth a sentence after the verdict's.
pub const RECOMPUTED_WORTH_SAYING: f64 = 0.05;

/// The verdict on the p99 tail, with the p99.9 tail's recomputation in its text.
pub fn verdict(p99: &TailShare, p999: &TailShare, stops: &StopCounts) -> Verdict {
    let rule = rule(p99, stops);
    let summary = summary(rule, p99, stops);
    let mut text = format!("{}: {summary}", headline(rule));
    if rule != VerdictRule::TooFew
        && let Some(sentence) = recomputation("p99.9", p999, stops)
    {
        text = format!("{text}. {sentence}");
    }
    if stops.jload_reads > 0 {
        text = format!("{text}. {}", jload_reads(stops));
    }
    Verdict { kind: kind(rule), rule: Some(rule), p99_drop: drop(p99), quota_p99_drop: quota_drop(p99), summary, text }
}

/// The kind each case of the rule gives.
pub fn kind(rule: VerdictRule) -> VerdictKind {
    match rule {
        VerdictRule::TooFew => VerdictKind::CannotTell,
        VerdictRule::GcMakesTheTail => VerdictKind::Gc,
        VerdictRule::GcMakesPart => VerdictKind::PartlyGc,
        VerdictRule::Safepoints => VerdictKind::Safepoint,
        VerdictRule::NoGcStop
        | VerdictRule::Saturation
        | VerdictRule::OverlapWithoutEffect
        | VerdictRule::AboutChance => VerdictKind::NotGc,
        VerdictRule::QuotaMakesTheTail => VerdictKind::CpuQuota,
        VerdictRule::QuotaMakesPart => VerdictKind::PartlyCpuQuota,
    }
}

/// The rule, in order (the constants give each threshold's reasoning): too few requests cannot tell; p99 lower by
/// [`MATERIAL_DROP`] or more without the CPU quota's time, and by more than without GC's, is the quota when most of
/// the tail overlapped the quota's stretches, partly the quota when not; p99 lower by [`MATERIAL_DROP`] or more
/// without GC is GC when most of the tail overlapped GC, partly GC when not; most of the
/// tail overlapping other safepoints far beyond chance is safepoints; otherwise not GC, saying why: no GC stop at all,
/// saturation (chance ≥ [`CHANCE_CEILING`] and the tail met GC about that often or more: requests this long meet GC
/// anyway), overlap beyond chance (by
/// [`ABOUT_CHANCE`]) without effect, or overlap about what chance gives.
pub fn rule(tail: &TailShare, stops: &StopCounts) -> VerdictRule {
    let examined = tail.examined;
    if examined < MIN_TAIL_REQUESTS {
        return VerdictRule::TooFew;
    }
    let gc_share = tail.gc_overlap as f64 / examined as f64;
    let safepoint_share = tail.safepoint_overlap as f64 / examined as f64;
    if let (Some(quota), Some(quota_drop)) = (&tail.quota, quota_drop(tail))
        && quota_drop >= MATERIAL_DROP
        && quota_drop > drop(tail)
    {
        return if quota.overlap as f64 / examined as f64 >= MOST {
            VerdictRule::QuotaMakesTheTail
        } else {
            VerdictRule::QuotaMakesPart
        };
    }
    if drop(tail) >= MATERIAL_DROP {
        if gc_share >= MOST { VerdictRule::GcMakesTheTail } else { VerdictRule::GcMakesPart }
    } else if safepoint_share >= MOST
        && beyond_chance(safepoint_share, tail.safepoint_chance, examined, FAR_ABOVE_CHANCE)
    {
        VerdictRule::Safepoints
    } else if stops.gc_pauses + stops.gc_stalls == 0 {
        VerdictRule::NoGcStop
    } else if tail.gc_chance >= CHANCE_CEILING && gc_share > tail.gc_chance - ABOUT_CHANCE {
        VerdictRule::Saturation
    } else if beyond_chance(gc_share, tail.gc_chance, examined, ABOUT_CHANCE) {
        VerdictRule::OverlapWithoutEffect
    } else {
        VerdictRule::AboutChance
    }
}

/// How much lower the tail's percentile is without the GC's time (0–1), from the figures printed.
pub fn drop(tail: &TailShare) -> f64 {
    if tail.percentile_ms <= 0.0 {
        return 0.0;
    }
    ((tail.percentile_ms - tail.recomputed_ms) / tail.percentile_ms).max(0.0)
}

/// How much lower the tail's percentile is without the time the CPU quota held the JVM back (0–1); None when no
/// such time fell in the run.
pub fn quota_drop(tail: &TailShare) -> Option<f64> {
    let quota = tail.quota.as_ref()?;
    if tail.percentile_ms <= 0.0 {
        return Some(0.0);
    }
    Some(((tail.percentile_ms - quota.recomputed_ms) / tail.percentile_ms).max(0.0))
}

/// What the verdict means, before its numbers.
fn headline(rule: VerdictRule) -> &'static str {
    match rule {
        VerdictRule::TooFew => "Cannot tell",
        VerdictRule::GcMakesTheTail => "GC makes this tail",
        VerdictRule::GcMakesPart => "GC makes part of this tail",
        VerdictRule::Safepoints => "Safepoints that are not GC make this tail",
        VerdictRule::NoGcStop | VerdictRule::AboutChance => "GC does not explain this tail",
        VerdictRule::Saturation | VerdictRule::OverlapWithoutEffect => {
            "GC overlapped this tail but is not what makes it"
        }
        VerdictRule::QuotaMakesTheTail => "The CPU quota makes this tail",
        VerdictRule::QuotaMakesPart => "The CPU quota makes part of this tail",
    }
}

/// The numbers the rule used, in one line.
fn summary(rule: VerdictRule, tail: &TailShare, stops: &StopCounts) -> String {
    let examined = tail.examined.max(1) as f64;
    let gc_share = tail.gc_overlap as f64 / examined;
    let overlap =
        format!("{} of {} requests above p99 overlapped GC {}", percent(gc_share), tail.examined, stops_noun(stops));
    let chance = percent(tail.gc_chance);
    match rule {
        VerdictRule::TooFew => format!(
            "{} requests above p99, at least {MIN_TAIL_REQUESTS} are needed (run longer or at a higher rate)",
            tail.examined
        ),
        VerdictRule::GcMakesTheTail => format!("{}; {overlap} (chance {chance})", effect(tail)),
        VerdictRule::GcMakesPart => format!(
            "{}; only {overlap} (chance {chance}): the rest of the tail is slow for another reason",
            effect(tail)
        ),
        VerdictRule::Safepoints => format!(
            "{} of {} requests above p99 overlapped safepoints that are not GC (chance {}; the longest {}); {}",
            percent(tail.safepoint_overlap as f64 / examined),
            tail.examined,
            percent(tail.safepoint_chance),
            ms_text(stops.longest_safepoint_ms),
            effect(tail)
        ),
        VerdictRule::NoGcStop => "no GC pause or stall during the run".to_string(),
        VerdictRule::Saturation => format!(
            "{}; {overlap}, chance {chance}: saturation, requests this long meet GC whatever slows them",
            effect(tail)
        ),
        VerdictRule::OverlapWithoutEffect => format!(
            "{}; {overlap}, beyond chance ({chance}), yet their time is not what makes these requests slow",
            effect(tail)
        ),
        VerdictRule::AboutChance => {
            let about =
                if gc_share <= tail.gc_chance { "no more than chance gives" } else { "about what chance gives" };
            format!("{}; {overlap}, {about} ({chance})", effect(tail))
        }
        VerdictRule::QuotaMakesTheTail | VerdictRule::QuotaMakesPart => quota_summary(rule, tail),
    }
}

/// "p99 56.8 → 3.1 ms without the time the quota held the JVM back (−95 %, at least the 10 % that makes
/// it a cause); 88 % of 300 requests above p99 overlapped throttled periods (chance 60 %)".
fn quota_summary(rule: VerdictRule, tail: &TailShare) -> String {
    let Some(quota) = &tail.quota else { return String::new() };
    let drop = quota_drop(tail).unwrap_or(0.0);
    let (bound, at_least) = if quota.recomputed_at_most { ("≤ ", "at least ") } else { ("", "") };
    let measured = if tail.percentile_at_most { "≤ " } else { "" };
    let overlap = format!(
        "{} of {} requests above p99 overlapped throttled periods (chance {})",
        percent(quota.overlap as f64 / tail.examined.max(1) as f64),
        tail.examined,
        percent(quota.chance)
    );
    let only = if rule == VerdictRule::QuotaMakesPart { "only " } else { "" };
    let rest =
        if rule == VerdictRule::QuotaMakesPart { ": the rest of the tail is slow for another reason" } else { "" };
    format!(
        "p99 {measured}{} → {bound}{} ms without the time the quota held the JVM back ({at_least}−{}, at \
         least the {} that makes it a cause); {only}{overlap}{rest}",
        crate::load::format::format_ms(tail.percentile_ms),
        crate::load::format::format_ms(quota.recomputed_ms),
        percent(drop),
        percent(MATERIAL_DROP)
    )
}

/// "p99 454.0 → 441.9 ms without GC (−2.7 %, below the 10 % that makes GC a cause)".
fn effect(tail: &TailShare) -> String {
    let drop = drop(tail);
    let (bound, at_least) = if tail.recomputed_at_most { ("≤ ", "at least ") } else { ("", "") };
    let measured = if tail.percentile_at_most { "≤ " } else { "" };
    let against = if drop >= MATERIAL_DROP { "at least" } else { "below" };
    let change = if drop <= 0.0 {
        "unchanged".to_string()
    } else if drop < 0.0005 {
        format!("{at_least}< 0.1 % lower")
    } else {
        format!("{at_least}−{}", percent(drop))
    };
    format!(
        "p99 {measured}{} → {bound}{} ms without GC ({change}, {against} the {} that makes GC a cause)",
        crate::load::format::format_ms(tail.percentile_ms),
        crate::load::format::format_ms(tail.recomputed_ms),
        percent(MATERIAL_DROP)
    )
}

/// Whether `share` exceeds `chance` by `points` and by [`NOISE_DEVIATIONS`] deviations of chance over `n` requests.
fn beyond_chance(share: f64, chance: f64, n: u64, points: f64) -> bool {
    let deviation = (chance * (1.0 - chance) / n as f64).sqrt();
    share - chance >= points.max(NOISE_DEVIATIONS * deviation)
}

/// "Without GC pauses, p99.9 would be 12 ms instead of 80 ms" when the recomputed percentile is lower by
/// [`RECOMPUTED_WORTH_SAYING`] or more. None when it is not.
fn recomputation(name: &str, tail: &TailShare, stops: &StopCounts) -> Option<String> {
    if tail.recomputed_ms > tail.percentile_ms * (1.0 - RECOMPUTED_WORTH_SAYING) {
        return None;
    }
    let recomputed = if tail.recomputed_at_most { "at most " } else { "" };
    let measured = if tail.percentile_at_most { "at most " } else { "" };
    Some(format!(
        "Without GC {}, {name} would be {recomputed}{} ms instead of {measured}{} ms",
        stops_noun(stops),
        crate::load::format::format_ms(tail.recomputed_ms),
        crate::load::format::format_ms(tail.percentile_ms)
    ))
}

/// "jload's own reads of the JVM: 5 in the run, 0 safepoints (left out: they are jload's, not the service's)".
pub fn jload_reads(stops: &StopCounts) -> String {
    let longest = if stops.jload_safepoints > 0 {
        format!(", the longest {}", ms_text(stops.longest_jload_safepoint_ms))
    } else {
        String::new()
    };
    format!(
        "jload's own reads of the JVM: {} in the run, {} safepoint{}{longest} (left out: they are jload's, not the \
         service's)",
        stops.jload_reads,
        stops.jload_safepoints,
        if stops.jload_safepoints == 1 { "" } else { "s" }
    )
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
