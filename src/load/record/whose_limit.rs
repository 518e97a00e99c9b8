//! Whose limit a run (or a step) of open-model load hit: the generator's — its busiest thread never waited for the
//! target, its own loop sent more than a few requests late and the rate fell short (it could not keep the schedule;
//! the latency figures leave its own delays out, see `connections/worker/`), or every connection was busy while the target answered as
//! fast as at a lighter step of the same ladder — or the target's, when it did not sustain the requested rate. The one
//! rule every output and the capacity search use; its one-line reason names the evidence.

use super::outcomes::{Limit, Side};
use super::recorder::SLIP_TOLERANCE_US;
use super::result::BenchResult;
use super::summary::LatencySummary;
use crate::load::format::{format_ms, grouped};

/// A run sustained its rate when it completed at least this share of the requested rate.
pub const SUSTAINED_SHARE: f64 = 0.95;
/// The generator ran out when its busiest thread was busy (not waiting for events) at least this share of the run.
pub const SATURATED_THREAD_PCT: f64 = 95.0;
/// The generator could not keep the schedule when more than this share of due requests slipped in its own loop, the
/// rate fell short, and its slips explain the shortfall (see [`SHORTFALL_EXPLAINED`]). Slips alone limit nothing: each
/// request's latency leaves out its send's slip (it counts from the due time plus the slip), so the figures stay the
/// target's.
pub const SLIPPED_SHARE: f64 = 0.01;
/// A generator that falls behind its schedule is behind by about the time the missing requests would have taken
/// (shortfall × run length); its largest slip then reaches at least this share of that time. A target that saturates
/// leaves the same shortfall with slips of a few milliseconds: then it is the target's limit.
pub const SHORTFALL_EXPLAINED: f64 = 0.5;
/// The connections ran out when more than this share of due requests waited for a busy connection, …
pub const LATE_SHARE: f64 = 0.01;
/// … at least this share of the connections was busy on average (Little's law: achieved rate × raw mean latency), …
pub const BUSY_CONNECTIONS_SHARE: f64 = 0.9;
/// … and the target answered as fast as at light load: raw median within this factor of the raw median of the
/// lightest step of the same ladder that ran at a lower rate and passed. A target that queues requests (saturated)
/// answers far slower than at light load, and then it is the target's limit. A run with no such step to compare with
/// (one run alone, or a search's first step) cannot tell: a queue that keeps every connection busy at a constant
/// latency looks the same as too few connections, so it is the target's limit and the reason names both.
pub const UNQUEUED_FACTOR: f64 = 3.0;

/// Who limited an open-model run at `requested_rps`, with no lighter run to compare it with; None when it sustained
/// the rate and the generator kept up.
pub fn limited_by(result: &BenchResult, requested_rps: f64) -> Option<Limit> {
    limited_at(result, requested_rps, None)
}

/// Who limited a step of a ladder at `requested_rps`, given the target's raw latency at light load (`light_load`: a
/// lighter step of the same ladder that passed; None when there is none, and then busy connections are not blamed on
/// jload).
pub fn limited_at(result: &BenchResult, requested_rps: f64, light_load: Option<&LatencySummary>) -> Option<Limit> {
    generator_saturated(result)
        .or_else(|| generator_slip(result, requested_rps))
        .or_else(|| light_load.and_then(|light_load| connections_exhausted(result, light_load)))
        .or_else(|| target(result, requested_rps, light_load.is_none()))
}

fn generator(reason: String) -> Option<Limit> {
    Some(Limit { side: Side::Generator, reason })
}

/// The requests that fell due (open model), else the completed ones; at least 1, to divide by.
fn due(result: &BenchResult) -> f64 {
    result.due.unwrap_or(result.requests).max(1) as f64
}

/// A thread that never waited for events never waited for the target: it had more to do than it could (or than the
/// machine let it, when others took the CPU).
fn generator_saturated(result: &BenchResult) -> Option<Limit> {
    let health = result.generator?;
    (health.busiest_thread_busy_pct >= SATURATED_THREAD_PCT).then_some(())?;
    generator(format!(
        "the busiest generator thread never waited for the target ({:.0} % of the run busy, {:.0} % on a CPU): give \
         jload more threads (-t) or cores",
        health.busiest_thread_busy_pct, health.busiest_thread_cpu_pct
    ))
}

fn generator_slip(result: &BenchResult, requested_rps: f64) -> Option<Limit> {
    let health = result.generator?;
    let share = health.slipped as f64 / due(result);
    let short = result.rps < SUSTAINED_SHARE * requested_rps;
    let behind_ms = (1.0 - result.rps / requested_rps) * result.duration_s * 1000.0;
    let explains = health.slip_max_ms >= SHORTFALL_EXPLAINED * behind_ms;
    (share > SLIPPED_SHARE && short && explains).then_some(())?;
    generator(format!(
        "{:.0} req/s achieved of {:.0} requested while the generator itself fell behind its schedule: {:.1} % of \
         requests over {} ms late on free connections (slip p99 {} ms, max {} ms)",
        result.rps,
        requested_rps,
        share * 100.0,
        SLIP_TOLERANCE_US / 1000,
        format_ms(health.slip_p99_ms),
        format_ms(health.slip_max_ms),
    ))
}

/// Every connection busy, and more than a few sends waited for one: the in-flight requests (Little's law: achieved
/// rate × raw mean latency) and the share of late sends.
fn connections_busy(result: &BenchResult) -> Option<(f64, f64)> {
    let raw = result.latency_uncorrected_ms.as_ref()?;
    let late_share = result.late? as f64 / due(result);
    let in_flight = result.rps * raw.mean / 1000.0;
    let all_busy = in_flight >= BUSY_CONNECTIONS_SHARE * result.request_slots() as f64;
    (late_share > LATE_SHARE && all_busy).then_some((in_flight, late_share))
}

fn connections_exhausted(result: &BenchResult, light_load: &LatencySummary) -> Option<Limit> {
    let (in_flight, late_share) = connections_busy(result)?;
    let raw = result.latency_uncorrected_ms.as_ref()?;
    (raw.p50 <= UNQUEUED_FACTOR * light_load.p50).then_some(())?;
    generator(format!(
        "all {} were busy ({:.0} req/s × raw mean {} ms = {in_flight:.1} in flight) while the target \
         answered as fast as at light load (raw p50 {} ms, {} ms at the lightest step); {:.1} % of sends waited for a \
         connection: add connections (-c)",
        result.describe_connections(),
        result.rps,
        format_ms(raw.mean),
        format_ms(raw.p50),
        format_ms(light_load.p50),
        late_share * 100.0
    ))
}

/// The target did not sustain the rate. `alone`: no lighter step to compare with, so busy connections may also mean
/// too few of them, and the reason says so.
fn target(result: &BenchResult, requested_rps: f64, alone: bool) -> Option<Limit> {
    (result.rps < SUSTAINED_SHARE * requested_rps).then_some(())?;
    let mut reason = format!("{:.0} req/s achieved of {:.0} requested", result.rps, requested_rps);
    if let Some(late) = result.late.filter(|late| *late > 0) {
        reason += &format!("; {:.1} % of sends waited for a busy connection", late as f64 * 100.0 / due(result));
    }
    if let Some((in_flight, _)) = connections_busy(result).filter(|_| alone) {
        reason += &format!(
            "; all {} were busy ({in_flight:.1} in flight): if the target answers faster at light load, \
             add connections (-c) — a ladder (--rates) tells which",
            result.describe_connections()
        );
    }
    if result.never_sent + result.unfinished > 0 {
        let longest = result.never_sent_longest_wait_ms.max(result.unfinished_longest_wait_ms);
        reason += &format!(
            "; {} due requests never sent and {} unanswered at the end (longest wait {} ms)",
            grouped(result.never_sent),
            grouped(result.unfinished),
            format_ms(longest)
        );
    }
    Some(Limit { side: Side::Target, reason })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::record::recorder::Recorder;
    use crate::load::record::result::GeneratorHealth;
    use crate::load::record::result::tests::result_of;

    /// An open-model result at 1000 req/s over 10 connections that kept its schedule: 10,000 due and answered in 10 s,
    /// raw latency 1 ms (so 1 connection busy on average), no late sends, an idle generator.
    fn healthy() -> BenchResult {
        let mut result = result_of(&Recorder::new(1, true));
        result.connections = 10;
        result.rate = Some(1000.0);
        result.duration_s = 10.0;
        result.requests = 10_000;
        result.rps = 1000.0;
        result.due = Some(10_000);
        result.late = Some(0);
        let raw = LatencySummary { min: 0.8, mean: 1.0, p50: 1.0, p99: 2.0, max: 3.0, ..LatencySummary::default() };
        result.latency_uncorrected_ms = Some(raw);
        result.latency_ms = LatencySummary { p99: 2.5, ..raw };
        result.generator = Some(GeneratorHealth {
            busiest_thread_cpu_pct: 20.0,
            busiest_thread_busy_pct: 25.0,
            ..GeneratorHealth::default()
        });
        result
    }

    #[test]
    fn a_run_that_kept_its_rate_and_schedule_has_no_limit() {
        assert_eq!(limited_by(&healthy(), 1000.0), None);
    }

    #[test]
    fn a_generator_thread_that_never_waited_limits_the_generator_whatever_the_target_did() {
        let mut result = healthy();
        result.rps = 600.0;
        let health = result.generator.as_mut().unwrap();
        (health.busiest_thread_busy_pct, health.busiest_thread_cpu_pct) = (99.2, 61.0);
        let limit = limited_by(&result, 1000.0).unwrap();
        assert_eq!(limit.side, Side::Generator);
        assert_eq!(
            limit.reason,
            "the busiest generator thread never waited for the target (99 % of the run busy, 61 % on a CPU): give \
             jload more threads (-t) or cores"
        );
    }

    #[test]
    fn a_generator_that_fell_behind_its_schedule_is_the_limit_when_the_rate_fell_short() {
        // 800 of 1000 req/s over 10 s: the missing 2,000 requests are 2 s of schedule; the generator's largest slip
        // of 1.9 s says it was that far behind.
        let mut result = healthy();
        result.rps = 800.0;
        let health = result.generator.as_mut().unwrap();
        (health.slipped, health.slip_p99_ms, health.slip_max_ms) = (2_500, 1_700.0, 1_900.0);
        let limit = limited_by(&result, 1000.0).unwrap();
        assert_eq!(limit.side, Side::Generator);
        assert_eq!(
            limit.reason,
            "800 req/s achieved of 1000 requested while the generator itself fell behind its schedule: 25.0 % of \
             requests over 1 ms late on free connections (slip p99 1700 ms, max 1900 ms)"
        );
        // 1 % of the due requests is within the tolerance: the target fell short.
        result.generator.as_mut().unwrap().slipped = 100;
        let limit = limited_by(&result, 1000.0).unwrap();
        assert_eq!((limit.side, limit.reason.as_str()), (Side::Target, "800 req/s achieved of 1000 requested"));
    }

    #[test]
    fn slips_of_milliseconds_under_a_saturated_target_leave_the_limit_to_the_target() {
        // The interpreter-only kv-service asked for 4000 sets/s: 3096 answered, 16 % of sends slipped by ~2 ms.
        let mut result = healthy();
        (result.rps, result.duration_s) = (3096.0, 1.0);
        let health = result.generator.as_mut().unwrap();
        (health.slipped, health.slip_p99_ms, health.slip_max_ms) = (640, 2.0, 2.1);
        assert_eq!(limited_by(&result, 4000.0).unwrap().side, Side::Target);
    }

    #[test]
    fn slips_at_a_sustained_rate_limit_nothing_as_the_latency_leaves_them_out() {
        let mut result = healthy();
        let health = result.generator.as_mut().unwrap();
        (health.slipped, health.slip_p99_ms, health.slip_max_ms) = (2_500, 6.0, 41.0);
        assert_eq!(limited_by(&result, 1000.0), None);
    }

    /// 10 connections asked for 2000 req/s; 990 answered per second, 45 % of sends waited for a connection, raw
    /// latency 10 ms at every step.
    fn every_connection_busy_at_10ms() -> BenchResult {
        let mut result = healthy();
        (result.rps, result.requests, result.due, result.late) = (990.0, 9_900, Some(20_000), Some(9_000));
        result.latency_uncorrected_ms =
            Some(LatencySummary { min: 9.5, mean: 10.1, p50: 10.0, ..LatencySummary::default() });
        result
    }

    #[test]
    fn busy_connections_with_a_target_answering_as_at_light_load_ask_for_more_connections() {
        let light_load = LatencySummary { min: 9.4, mean: 9.9, p50: 9.8, ..LatencySummary::default() };
        let limit = limited_at(&every_connection_busy_at_10ms(), 2000.0, Some(&light_load)).unwrap();
        assert_eq!(limit.side, Side::Generator);
        assert_eq!(
            limit.reason,
            "all 10 connections were busy (990 req/s × raw mean 10.10 ms = 10.0 in flight) while the target answered \
             as fast as at light load (raw p50 10.00 ms, 9.800 ms at the lightest step); 45.0 % of sends waited for a \
             connection: add connections (-c)"
        );
    }

    #[test]
    fn busy_connections_behind_a_queueing_target_are_the_targets_limit() {
        // A single-worker target with a 1 ms service time keeps all 10 connections busy at 10 ms each: it queues, and
        // its raw latency is constant (the queue is always full), but at light load it answered in 1 ms.
        let light_load = LatencySummary { min: 0.9, mean: 1.0, p50: 1.0, ..LatencySummary::default() };
        let mut result = every_connection_busy_at_10ms();
        (result.never_sent, result.unfinished, result.never_sent_longest_wait_ms) = (9_990, 10, 4_990.0);
        let limit = limited_at(&result, 2000.0, Some(&light_load)).unwrap();
        assert_eq!(limit.side, Side::Target);
        assert_eq!(
            limit.reason,
            "990 req/s achieved of 2000 requested; 45.0 % of sends waited for a busy connection; 9,990 due requests \
             never sent and 10 unanswered at the end (longest wait 4990 ms)"
        );
    }

    #[test]
    fn busy_connections_in_a_run_alone_are_the_targets_limit_naming_too_few_connections_as_the_other_cause() {
        let limit = limited_by(&every_connection_busy_at_10ms(), 2000.0).unwrap();
        assert_eq!(limit.side, Side::Target);
        assert_eq!(
            limit.reason,
            "990 req/s achieved of 2000 requested; 45.0 % of sends waited for a busy connection; all 10 connections \
             were busy (10.0 in flight): if the target answers faster at light load, add connections (-c) — a ladder \
             (--rates) tells which"
        );
    }

    #[test]
    fn a_target_that_froze_is_the_targets_limit_with_what_was_left_waiting() {
        let mut result = healthy();
        (result.rps, result.requests, result.due) = (750.0, 3_000, Some(4_000));
        (result.never_sent, result.unfinished) = (990, 10);
        (result.never_sent_longest_wait_ms, result.unfinished_longest_wait_ms) = (990.0, 1000.0);
        let limit = limited_by(&result, 1000.0).unwrap();
        assert_eq!(limit.side, Side::Target);
        assert_eq!(
            limit.reason,
            "750 req/s achieved of 1000 requested; 990 due requests never sent and 10 unanswered at the end (longest \
             wait 1000 ms)"
        );
    }
}
