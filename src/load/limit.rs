//! Whose limit a step of open-model load hit, when it did not sustain its requested rate: the target's (it answered
//! too slowly, so requests queued on busy connections) or the generator's (jload could not send on schedule: its own
//! loop slipped, or its busiest thread used a whole core). The one rule every output and the capacity search use.

use super::ladder::{Limit, Side};
use super::result::BenchResult;

/// A step sustained its rate when it completed at least this share of the requested rate.
pub const SUSTAINED_SHARE: f64 = 0.95;
/// The generator ran out when its busiest thread used at least this share of a core.
pub const SATURATED_THREAD_PCT: f64 = 95.0;
/// The generator ran out when more than this share of due requests slipped in its own loop.
pub const SLIPPED_SHARE: f64 = 0.01;

/// Who limited an open-model run at `requested_rps`; None when it sustained the rate and the generator kept up.
pub fn limited_by(result: &BenchResult, requested_rps: f64) -> Option<Limit> {
    let due = result.due.unwrap_or(result.requests).max(1) as f64;
    if let Some(generator) = &result.generator {
        if generator.busiest_thread_cpu_pct >= SATURATED_THREAD_PCT {
            return Some(Limit {
                side: Side::Generator,
                reason: format!(
                    "the busiest generator thread used {:.0} % of a core",
                    generator.busiest_thread_cpu_pct
                ),
            });
        }
        if generator.slipped as f64 > SLIPPED_SHARE * due {
            return Some(Limit {
                side: Side::Generator,
                reason: format!(
                    "the generator sent {:.1} % of requests late on its own (slip p99 {:.2} ms)",
                    generator.slipped as f64 * 100.0 / due,
                    generator.slip_p99_ms
                ),
            });
        }
    }
    if result.rps < SUSTAINED_SHARE * requested_rps {
        return Some(Limit {
            side: Side::Target,
            reason: format!("{:.0} req/s achieved of {:.0} requested", result.rps, requested_rps),
        });
    }
    None
}
