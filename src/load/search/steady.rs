//! Whether the target holds still under a rate ladder or a capacity search. A search assumes the target does not change
//! under it; a JVM whose JIT is still compiling does. The rule, in one place:
//!
//! - **Warm-up until steady.** Before the first step, load the target at a fixed load — the closed model at the phase's
//!   connections, which drives the JIT hardest — in windows of [`WINDOW`]. It is steady when the last [`AGREEING`]
//!   windows' throughputs agree within the tolerance (highest ≤ lowest × (1 + tolerance)) and, where the target's
//!   JIT can be watched (a local JVM's PerfData), the JIT compiled for at most [`JIT_QUIET_SHARE`] of those windows'
//!   time: a JVM still compiling its hot code gets faster long after its throughput stops rising by much from one
//!   second to the next. It gives up at the maximum and says so. The settled throughput (the mean of those windows) is what a search without a start rate starts
//!   from (half of it), in place of the closed-model probe.
//! - **Checked after the last step.** One window at the same load; when its throughput is more than [`CHANGE_FACTOR`]
//!   away from the settled one (either way), a second window must confirm it. Confirmed, the target changed under the
//!   ladder: a search re-checks the step above its capacity (got faster) or the capacity step (got slower) and, when
//!   that step now goes the other way, warms up again and searches afresh; a fixed ladder says so.
//!
//! `ladder/` runs the windows and acts on the verdicts; the records (`Steadiness`, in `outcomes.rs`) go beside the
//! steps in the result, and [`Steadiness::notes`] words them for every output.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::load::format::{format_rate, grouped};
use crate::load::record::outcomes::Warmup;
use crate::load::record::result::BenchResult;

/// The length of one warm-up or check window.
pub const WINDOW: Duration = Duration::from_secs(1);
/// How many successive windows must agree for the target to be steady.
pub const AGREEING: usize = 3;
/// A check window this many times faster or slower than the settled throughput means the target changed.
pub const CHANGE_FACTOR: f64 = 1.5;
/// A search re-searches at most this many times after the target changed under it.
pub const MAX_RESEARCHES: usize = 2;
/// The JIT is quiet when it compiled for at most this share of the last [`AGREEING`] windows' time (kv-service, JDK 17:
/// 8 to 12 s of compiling in its first 10 s under load, then a tenth of a second now and then).
pub const JIT_QUIET_SHARE: f64 = 0.1;

/// How long to warm up before a ladder's first step, and how closely its windows must agree.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SteadyRule {
    /// Give up warming up after this long (zero: no warm-up and no check after the last step).
    pub max: Duration,
    /// The last [`AGREEING`] windows agree when the highest is at most the lowest × (1 + tolerance).
    pub tolerance: f64,
}

impl SteadyRule {
    /// At most 60 s of warm-up; windows agreeing within 20 %: a JIT still compiling moves throughput by factors
    /// (2× to 100×), while 1 s windows of a steady target on a loaded 2-core machine differ by 10–20 %
    /// (docs/benchmarks.md); a target still rising by more than 10 % a second fails 3 windows within 20 %.
    pub const DEFAULT: SteadyRule = SteadyRule { max: Duration::from_secs(60), tolerance: 0.20 };

    pub fn enabled(&self) -> bool {
        !self.max.is_zero()
    }

    /// How many windows the warm-up runs at most (at least [`AGREEING`]).
    pub fn max_windows(&self) -> usize {
        ((self.max.as_secs_f64() / WINDOW.as_secs_f64()).ceil() as usize).max(AGREEING)
    }

    /// Whether the JIT was quiet over the last [`AGREEING`] windows, given the seconds it compiled over them
    /// ([`jit_compiled_over_last`]); true when the JIT cannot be watched.
    pub fn jit_quiet(compiled_over_last: Option<f64>) -> bool {
        compiled_over_last.is_none_or(|seconds| seconds <= JIT_QUIET_SHARE * AGREEING as f64 * WINDOW.as_secs_f64())
    }

    /// Whether `windows` (throughputs, in the order run) end in [`AGREEING`] windows that agree.
    pub fn settled(&self, windows: &[f64]) -> bool {
        if windows.len() < AGREEING {
            return false;
        }
        let last = &windows[windows.len() - AGREEING..];
        let low = last.iter().copied().fold(f64::INFINITY, f64::min);
        let high = last.iter().copied().fold(0.0, f64::max);
        low > 0.0 && high <= low * (1.0 + self.tolerance)
    }
}

/// The seconds the JIT compiled over the last [`AGREEING`] windows, from its totals at the warm-up's start and at each
/// window's end; None before that many windows or when the JIT cannot be watched.
pub fn jit_compiled_over_last(compiled_s: &[Option<f64>]) -> Option<f64> {
    let then = compiled_s.len().checked_sub(AGREEING + 1)?;
    Some(compiled_s.last().copied()?? - compiled_s[then]?)
}

/// `"10%"` (or `"10"`) → 0.10: a tolerance above 0 and at most 100 %; None when it is not one.
pub fn parse_tolerance(text: &str) -> Option<f64> {
    let number = text.trim().strip_suffix('%').unwrap_or(text.trim()).trim();
    number.parse::<f64>().ok().map(|pct| pct / 100.0).filter(|share| *share > 0.0 && *share <= 1.0)
}

impl Warmup {
    /// The throughput it settled at: the mean of its last [`AGREEING`] windows (fewer when it ran fewer).
    pub fn settled_rps(&self) -> f64 {
        let last = &self.windows_rps[self.windows_rps.len().saturating_sub(AGREEING)..];
        if last.is_empty() { 0.0 } else { last.iter().sum::<f64>() / last.len() as f64 }
    }

    /// The settled throughput over the first window's: above 1 when the target got faster while warming up.
    pub fn factor(&self) -> f64 {
        match self.windows_rps.first() {
            Some(first) if *first > 0.0 => self.settled_rps() / first,
            _ => 1.0,
        }
    }

    /// One line: how long, how it ended, and what the throughput did.
    pub fn describe(&self) -> String {
        let seconds = self.windows_rps.len() as f64 * WINDOW.as_secs_f64();
        let first = self.windows_rps.first().copied().unwrap_or(0.0);
        let trend = format!("{} → {} req/s", format_rate(first), format_rate(self.settled_rps()));
        let factor = self.factor();
        let change = if factor >= CHANGE_FACTOR {
            format!("; the target got {} faster while warming up", times(factor))
        } else if factor <= 1.0 / CHANGE_FACTOR {
            format!("; the target got {} slower while warming up", times(1.0 / factor))
        } else {
            String::new()
        };
        let jit = match self.jit_compile_s {
            Some(seconds) => format!("; the JIT compiled {seconds:.2} s in the last {AGREEING} s"),
            None => String::new(),
        };
        let rhythm = match self.requests_per_cycle {
            Some(requests) => format!("; its rarest collections came every {} requests", grouped(requests as u64)),
            None => String::new(),
        };
        if self.steady {
            format!("steady after {seconds:.0} s in the closed model ({trend}{change}{jit}{rhythm})")
        } else {
            format!(
                "NOT steady after {seconds:.0} s in the closed model ({trend}{change}{jit}{rhythm}): the target was still changing; \
                 its figures may not be its steady state — warm it up longer (steady_max / --steady-max)"
            )
        }
    }
}

/// What a check after the last step found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Check {
    /// Within [`CHANGE_FACTOR`] of the settled throughput (or not confirmed by a second window).
    Holds,
    /// The target changed: check throughput ÷ settled (above 1: faster).
    Changed(f64),
}

/// The verdict on check windows (`checks`, in the order run) against the settled throughput: Changed when every check
/// window is beyond [`CHANGE_FACTOR`] on the same side (the caller runs a second window only when the first is);
/// the factor is the last window's.
pub fn judge_check(settled_rps: f64, checks: &[f64]) -> Check {
    if settled_rps <= 0.0 || checks.is_empty() {
        return Check::Holds;
    }
    let factors: Vec<f64> = checks.iter().map(|rps| rps / settled_rps).collect();
    let faster = factors.iter().all(|factor| *factor >= CHANGE_FACTOR);
    let slower = factors.iter().all(|factor| *factor <= 1.0 / CHANGE_FACTOR);
    if faster || slower { Check::Changed(*factors.last().expect("not empty")) } else { Check::Holds }
}

/// A closed-model phase without steps (no warm-up of its own) is checked afterwards from its per-second series: its
/// throughput in the first third of its whole seconds against the last third. More than [`CHANGE_FACTOR`] apart
/// (either way), the target changed during the phase and its figures mix two targets. At least this many whole
/// seconds are needed to tell.
pub const TREND_MIN_SECONDS: usize = 6;

/// How a plain closed-model phase's throughput moved from its first third to its last.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Trend {
    pub first_rps: f64,
    pub last_rps: f64,
}

impl Trend {
    /// The trend of `rps`, the throughput of each whole second in order; None with fewer than
    /// [`TREND_MIN_SECONDS`] seconds or when the first third served nothing.
    pub fn of(rps: &[f64]) -> Option<Trend> {
        if rps.len() < TREND_MIN_SECONDS {
            return None;
        }
        let third = rps.len() / 3;
        let mean = |part: &[f64]| part.iter().sum::<f64>() / part.len() as f64;
        let trend = Trend { first_rps: mean(&rps[..third]), last_rps: mean(&rps[rps.len() - third..]) };
        (trend.first_rps > 0.0).then_some(trend)
    }

    /// The trend of a closed-model result without steps, from its whole seconds; None for any other result.
    pub fn of_result(result: &BenchResult) -> Option<Trend> {
        if result.model != "closed" || !result.steps.is_empty() {
            return None;
        }
        let whole: Vec<f64> = result.series.iter().filter(|row| row.duration_s >= 0.999).map(|row| row.rps).collect();
        Trend::of(&whole)
    }

    pub fn factor(&self) -> f64 {
        self.last_rps / self.first_rps
    }

    /// Beyond [`CHANGE_FACTOR`] either way.
    pub fn changed(&self) -> bool {
        let factor = self.factor();
        factor > CHANGE_FACTOR || factor < 1.0 / CHANGE_FACTOR
    }

    /// `the target got 12× faster during this phase (1,200 → 14,400 req/s from its first third to its last): its
    /// figures mix a warming target with a warm one; warm it up longer first (a phase with measure = false)`.
    pub fn note(&self) -> String {
        let cause = if self.factor() > 1.0 {
            "its figures mix a warming target with a warm one; warm it up longer first (a phase with measure = false)"
        } else {
            "its figures mix a target with a slower later self (a filling heap or cache, a leak, throttling)"
        };
        format!(
            "the target {} during this phase ({} → {} req/s from its first third to its last): {cause}",
            direction(self.factor()),
            format_rate(self.first_rps),
            format_rate(self.last_rps)
        )
    }
}

/// `40×`, `1.6×`: a factor as the notes write it.
pub fn times(factor: f64) -> String {
    if factor >= 10.0 { format!("{factor:.0}×") } else { format!("{factor:.1}×") }
}

/// `got 40× faster` or `got 2.0× slower`.
pub fn direction(factor: f64) -> String {
    if factor >= 1.0 { format!("got {} faster", times(factor)) } else { format!("got {} slower", times(1.0 / factor)) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::record::outcomes::{Change, Steadiness};

    #[test]
    fn a_plain_phase_changed_when_its_last_third_served_beyond_the_factor_of_its_first() {
        let warming = [100.0, 200.0, 900.0, 1000.0, 1000.0, 1100.0];
        let trend = Trend::of(&warming).unwrap();
        assert_eq!((trend.first_rps, trend.last_rps), (150.0, 1050.0));
        assert!(trend.changed());
        assert!(trend.note().starts_with("the target got 7.0× faster during this phase (150 → 1,050 req/s"));
        let steady = [1000.0, 900.0, 1100.0, 1000.0, 950.0, 1050.0];
        assert!(!Trend::of(&steady).unwrap().changed());
        let slowing = [3000.0, 3000.0, 2000.0, 2000.0, 1000.0, 1000.0];
        assert!(Trend::of(&slowing).unwrap().changed());
        assert_eq!(Trend::of(&warming[..5]), None, "too few seconds to tell");
        assert_eq!(Trend::of(&[0.0; 6]), None, "nothing served");
    }

    #[test]
    fn steady_when_the_last_three_windows_agree_within_the_tolerance() {
        let rule = SteadyRule { tolerance: 0.10, ..SteadyRule::DEFAULT };
        assert!(!rule.settled(&[1000.0, 1000.0]), "too few windows");
        assert!(rule.settled(&[1000.0, 1050.0, 1099.0]));
        assert!(!rule.settled(&[1000.0, 1050.0, 1101.0]), "11 % apart");
        // Still rising: the JIT at work. Then flat.
        assert!(!rule.settled(&[200.0, 900.0, 5000.0, 30000.0]));
        assert!(rule.settled(&[200.0, 900.0, 5000.0, 30000.0, 31000.0, 30500.0, 30800.0]));
        assert!(!rule.settled(&[0.0, 0.0, 0.0]), "nothing served is not steady");
        // The default: 20 %; a steady rise of 10 % a second is not steady.
        assert!(SteadyRule::DEFAULT.settled(&[1000.0, 1190.0, 1050.0]));
        assert!(!SteadyRule::DEFAULT.settled(&[1000.0, 1100.0, 1210.0, 1331.0]));
        assert_eq!(SteadyRule { max: Duration::from_secs(60), tolerance: 0.1 }.max_windows(), 60);
        assert_eq!(SteadyRule { max: Duration::from_millis(1500), tolerance: 0.1 }.max_windows(), 3);
        assert_eq!((parse_tolerance("10%"), parse_tolerance(" 2.5 ")), (Some(0.1), Some(0.025)));
        assert_eq!((parse_tolerance("0%"), parse_tolerance("101%"), parse_tolerance("x")), (None, None, None));
    }

    #[test]
    fn a_warmup_settles_at_the_mean_of_its_last_windows_and_says_how_far_it_moved() {
        let warmup = Warmup {
            windows_rps: vec![200.0, 900.0, 30000.0, 31000.0, 29000.0],
            steady: true,
            requests_per_cycle: None,
            jit_compile_s: None,
        };
        assert_eq!(warmup.settled_rps(), 30000.0);
        assert_eq!(warmup.factor(), 150.0);
        assert_eq!(
            warmup.describe(),
            "steady after 5 s in the closed model (200 → 30,000 req/s; the target got 150× faster while warming up)"
        );
        let flat = Warmup {
            windows_rps: vec![1000.0, 1010.0, 990.0],
            steady: true,
            requests_per_cycle: None,
            jit_compile_s: None,
        };
        assert_eq!(flat.describe(), "steady after 3 s in the closed model (1,000 → 1,000 req/s)");
        let rising = Warmup {
            windows_rps: vec![100.0, 200.0, 300.0],
            steady: false,
            requests_per_cycle: None,
            jit_compile_s: None,
        };
        assert!(rising.describe().starts_with("NOT steady after 3 s in the closed model (100 → 200 req/s; the target"));
    }

    #[test]
    fn a_check_counts_as_a_change_only_when_every_window_is_beyond_the_factor_on_one_side() {
        assert_eq!(judge_check(1000.0, &[1400.0]), Check::Holds);
        assert_eq!(judge_check(1000.0, &[700.0]), Check::Holds);
        assert_eq!(judge_check(1000.0, &[40000.0, 40000.0]), Check::Changed(40.0));
        assert_eq!(judge_check(1000.0, &[500.0, 400.0]), Check::Changed(0.4));
        assert_eq!(judge_check(1000.0, &[2000.0, 1100.0]), Check::Holds, "not confirmed");
        assert_eq!(judge_check(1000.0, &[2000.0, 400.0]), Check::Holds, "both ways is noise");
        assert_eq!(judge_check(0.0, &[2000.0]), Check::Holds);
    }

    #[test]
    fn the_problems_are_the_unsettled_warmups_and_the_changes() {
        let steadiness = Steadiness {
            warmups: vec![Warmup {
                windows_rps: vec![100.0, 100.0, 100.0],
                steady: true,
                requests_per_cycle: None,
                jit_compile_s: None,
            }],
            checks_rps: vec![4000.0, 4000.0],
            changes: vec![Change { factor: 40.0, set_aside: 6, researched_from: Some(1000.0), note: "n".into() }],
        };
        assert!(steadiness.target_changed());
        assert_eq!(steadiness.problems(), ["n"]);
        assert_eq!((direction(40.0), direction(0.5)), ("got 40× faster".to_string(), "got 2.0× slower".to_string()));
        assert!(!Steadiness { changes: vec![], ..steadiness }.target_changed());
    }
}
