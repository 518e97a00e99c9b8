//! The steadiness rule of `steady.rs` run around a ladder's steps: the warm-up until steady before the first step,
//! the check windows after the last, and for a search the re-check of the step that bounds its capacity and the search
//! run afresh when the target changed under it.

use crate::load::input::spec::{LoadSpec, StopCondition};
use crate::load::record::outcomes::{Capacity, Change, Warmup};
use crate::load::record::result::BenchResult;
use crate::load::search::capacity::{self, Decision, Outcome, Search};
use crate::load::search::steady::{self, Check, MAX_RESEARCHES, SteadyRule, WINDOW};

use super::{CapacityGoal, Ladder, TargetCounters};
use crate::load::format::format_rate;

/// How a warm-up ended.
enum WarmedUp {
    /// The rule is off (`steady_max = "0s"`), or no request succeeded in a window: nothing to settle on.
    Off,
    Interrupted,
    /// At this throughput (steady, or where it gave up).
    At(f64),
}

/// What the re-check step beyond a bound says about a capacity found before the target changed.
#[derive(Debug, PartialEq)]
enum Recheck {
    /// It went the other way: the capacity moved, search afresh.
    Moved,
    /// It went as before: the capacity stands.
    Stands,
    /// The generator limited it: it says nothing about the target, so nothing is decided.
    CannotTell,
}

/// The one rule of what a re-check step says: `wanted` is the outcome that shows the capacity moved.
fn recheck_says(outcome: Outcome, wanted: Outcome) -> Recheck {
    match outcome {
        Outcome::GeneratorLimited => Recheck::CannotTell,
        outcome if outcome == wanted => Recheck::Moved,
        _ => Recheck::Stands,
    }
}

/// How one search ended.
enum Searched {
    /// At its precision: checked for a change before it counts.
    Done(Capacity),
    /// Interrupted, or the target broke: as found.
    CutShort(Capacity),
}

impl Ladder<'_> {
    /// A fixed ladder: warm up, run the rates, check whether the target changed under them.
    pub(super) fn run_checked_rates(&mut self, rates: &[f64]) -> anyhow::Result<()> {
        let settled = match self.warm_up()? {
            WarmedUp::Interrupted => anyhow::bail!("interrupted during the warm-up: nothing measured"),
            WarmedUp::Off => None,
            WarmedUp::At(rps) => Some(rps),
        };
        if self.run_rates(rates)?
            && let Some(settled) = settled
            && let Some(Check::Changed(factor)) = self.check(settled)?
        {
            let note = format!(
                "the target {} during the ladder (closed model {} → {} req/s): warm-up too short; steps before and \
                 after the change are not comparable",
                steady::direction(factor),
                format_rate(settled),
                format_rate(settled * factor)
            );
            self.record_change(Change { factor, set_aside: 0, researched_from: None, note });
        }
        Ok(())
    }

    /// A capacity search: warm up, search, check; when the target changed, re-check the step that bounds the capacity
    /// on the side it moved to, and search afresh when that step now goes the other way.
    pub(super) fn search(&mut self, goal: &CapacityGoal) -> anyhow::Result<Capacity> {
        let mut settled = match self.warm_up()? {
            WarmedUp::Interrupted => anyhow::bail!("interrupted during the warm-up: nothing measured"),
            WarmedUp::Off => None,
            WarmedUp::At(rps) => Some(rps),
        };
        let start_rps = match (goal.start_rps, settled) {
            (Some(rps), _) => rps,
            (None, Some(closed_rps)) => {
                let start = capacity::start_from_probe(closed_rps);
                self.observer.probed(closed_rps, start);
                start
            }
            (None, None) => self.probe_start()?,
        };
        let mut search = Search {
            start_rps,
            precision: goal.precision,
            max_rps: goal.max_rps,
            slo: capacity::describe_slo(&goal.slo),
            settled_rps: settled,
            windows: capacity::CONFIRMING_WINDOWS,
        };
        let mut from = 0;
        loop {
            let found = match self.bisect(&search, from)? {
                Searched::CutShort(found) => return Ok(found),
                Searched::Done(found) => found,
            };
            let Some(settled_rps) = settled else { return Ok(found) };
            let factor = match self.check(settled_rps)? {
                Some(Check::Changed(factor)) => factor,
                None | Some(Check::Holds) => return Ok(found),
            };
            let changed = format!(
                "the target {} during the search (closed model {} → {} req/s)",
                steady::direction(factor),
                format_rate(settled_rps),
                format_rate(settled_rps * factor)
            );
            // Faster: does a rate above the capacity's failing bound pass now? Slower: does one below the capacity
            // fail now? Each √factor beyond its bound, so that noise at the knee cannot flip it.
            let (bound, wanted, side) = match factor > 1.0 {
                true => (found.bounds[1], Outcome::Pass, "above the rate that missed the SLO"),
                false => (found.bounds[0], Outcome::Fail, "below the capacity"),
            };
            let beyond = |bound: f64| {
                let rate = capacity::whole_rate(bound * factor.sqrt());
                search.max_rps.map_or(rate, |max| rate.min(max))
            };
            let Some(rate) = bound.map(beyond) else {
                let note =
                    format!("{changed}: warm-up too short; no step bounds the capacity on that side to re-check");
                self.record_change(Change { factor, set_aside: 0, researched_from: None, note });
                return Ok(found);
            };
            if let Some(why) = self.step(rate)? {
                let note =
                    format!("{changed}: warm-up too short; the re-check at {} req/s ended: {why}", format_rate(rate));
                self.record_change(Change { factor, set_aside: 0, researched_from: None, note });
                return Ok(found);
            }
            let recheck = self.steps.last().expect("a step was just run");
            let rechecked = format!(
                "{} req/s ({} {side}, {} req/s)",
                format_rate(rate),
                steady::times(factor.max(1.0 / factor).sqrt()),
                format_rate(bound.expect("re-checked beyond a bound"))
            );
            let moved =
                format!("{rechecked} {}", if factor > 1.0 { "meets the SLO now" } else { "misses the SLO now" });
            match recheck_says(capacity::outcome(recheck), wanted) {
                Recheck::Moved => {}
                Recheck::Stands => {
                    let still = if factor > 1.0 { "still misses the SLO" } else { "still meets the SLO" };
                    let note = format!(
                        "{changed}: warm-up too short; the re-check at {rechecked} {still}, so the capacity stands"
                    );
                    self.record_change(Change { factor, set_aside: 0, researched_from: None, note });
                    return Ok(found);
                }
                Recheck::CannotTell => {
                    let note = format!(
                        "{changed}: warm-up too short; the re-check at {rechecked} was limited by the generator, so \
                         it cannot tell whether the capacity moved — the capacity stands as found, not confirmed"
                    );
                    self.record_change(Change { factor, set_aside: 0, researched_from: None, note });
                    return Ok(found);
                }
            }
            let researches = self.steadiness.changes.iter().filter(|change| change.researched_from.is_some()).count();
            if researches >= MAX_RESEARCHES {
                let note = format!(
                    "{changed} after {researches} re-searches: {moved}; the target kept changing, so this capacity is \
                     not its steady state — warm it up longer"
                );
                self.record_change(Change { factor, set_aside: 0, researched_from: None, note });
                return Ok(found);
            }
            let rewarmed = match self.warm_up()? {
                WarmedUp::At(rps) => rps,
                WarmedUp::Off | WarmedUp::Interrupted => {
                    let note =
                        format!("{changed}: warm-up too short; the warm-up before searching afresh was cut short");
                    self.record_change(Change { factor, set_aside: 0, researched_from: None, note });
                    return Ok(found);
                }
            };
            let fresh_start = capacity::start_from_probe(rewarmed);
            search.start_rps = if factor > 1.0 { fresh_start.max(rate) } else { fresh_start.min(rate) };
            from = self.steps.len();
            self.current_from = from;
            settled = Some(rewarmed);
            search.settled_rps = settled;
            let note = format!(
                "{changed}: warm-up too short; {moved}, so the search ran afresh from {} req/s (the first {from} steps \
                 set aside)",
                format_rate(search.start_rps)
            );
            self.record_change(Change { factor, set_aside: from, researched_from: Some(search.start_rps), note });
        }
    }

    /// Run the search over the steps from `from` on until it decides.
    fn bisect(&mut self, search: &Search, from: usize) -> anyhow::Result<Searched> {
        loop {
            match capacity::decide(search, &self.pooled(from)) {
                Decision::Done(found) => return Ok(Searched::Done(found)),
                Decision::Run(rate) => {
                    if let Some(why) = self.step(rate)? {
                        let found = capacity::cut_short(search, &self.pooled(from), &why);
                        self.observer.ladder_ended(&found.verdict);
                        return Ok(Searched::CutShort(found));
                    }
                }
            }
        }
    }

    /// Closed-model windows until the last ones agree (or the rule's maximum), recorded.
    fn warm_up(&mut self) -> anyhow::Result<WarmedUp> {
        let rule = self.timing.steady;
        if !rule.enabled() {
            return Ok(WarmedUp::Off);
        }
        let mut warmup =
            Warmup { windows_rps: Vec::new(), steady: false, requests_per_cycle: None, jit_compile_s: None };
        let at_start = self.observer.target_counters();
        let mut compiled_s = vec![at_start.as_ref().and_then(|counters| counters.jit_compile_s)];
        let mut latest = at_start.clone();
        while warmup.windows_rps.len() < rule.max_windows() {
            let Some(window) = self.closed_window()? else {
                self.steadiness.warmups.push(warmup);
                return Ok(WarmedUp::Interrupted);
            };
            if window.successes() == 0 {
                // Nothing to settle on: the steps (or the search's probe) meet the failure and say it their way.
                let line = format!(
                    "warm-up: no successful response in {} s in the closed model ({}); going on without a warm-up \
                     or a check",
                    WINDOW.as_secs(),
                    window.errors.describe()
                );
                self.observer.steadiness(&line);
                return Ok(WarmedUp::Off);
            }
            warmup.windows_rps.push(window.rps);
            latest = self.observer.target_counters();
            compiled_s.push(latest.as_ref().and_then(|counters| counters.jit_compile_s));
            warmup.jit_compile_s = steady::jit_compiled_over_last(&compiled_s);
            if rule.settled(&warmup.windows_rps) && SteadyRule::jit_quiet(warmup.jit_compile_s) {
                warmup.steady = true;
                break;
            }
        }
        let settled = warmup.settled_rps();
        warmup.requests_per_cycle = match (&at_start, &latest) {
            (Some(start), Some(end)) => rarest_cycle(&warmup, start, end),
            _ => None,
        };
        self.observer.steadiness(&format!("warm-up: {}", warmup.describe()));
        self.steadiness.warmups.push(warmup);
        Ok(WarmedUp::At(settled))
    }

    /// One check window after the last step, and a second to confirm when the first moved beyond the factor. None
    /// when interrupted.
    fn check(&mut self, settled_rps: f64) -> anyhow::Result<Option<Check>> {
        let mut checks = Vec::new();
        for _ in 0..2 {
            let Some(window) = self.closed_window()? else { return Ok(None) };
            checks.push(window.rps);
            self.steadiness.checks_rps.push(window.rps);
            if steady::judge_check(settled_rps, &checks) == Check::Holds {
                return Ok(Some(Check::Holds));
            }
        }
        Ok(Some(steady::judge_check(settled_rps, &checks)))
    }

    /// One closed-model window of [`WINDOW`] at the spec's connections; None when Ctrl-C cut it short.
    fn closed_window(&self) -> anyhow::Result<Option<BenchResult>> {
        let window = LoadSpec {
            rate: None,
            stop: StopCondition { requests: None, duration: Some(WINDOW) },
            ..self.spec.clone()
        };
        let result = self.generator.run(&window, &self.step_options())?;
        Ok((!result.interrupted).then_some(result))
    }

    fn record_change(&mut self, change: Change) {
        self.observer.steadiness(&change.note);
        self.steadiness.changes.push(change);
    }
}

/// The requests the target served per cycle of its rarest kind of collection in `warmup`, from its collections of
/// each kind at the start and at the end; None when it collected nothing.
fn rarest_cycle(warmup: &Warmup, start: &TargetCounters, end: &TargetCounters) -> Option<f64> {
    let requests: f64 = warmup.windows_rps.iter().map(|rps| rps * WINDOW.as_secs_f64()).sum();
    let counts = start.collections_until(end).into_iter().map(|(_, count)| count);
    let rarest = counts.filter(|count| *count > 0).min()?;
    Some((requests / rarest as f64).round())
}

#[cfg(test)]
mod tests {
    use super::{Recheck, TargetCounters, rarest_cycle, recheck_says};
    use crate::load::record::outcomes::Warmup;

    #[test]
    fn the_rarest_collection_that_ran_sets_the_rhythm() {
        let warmup = Warmup {
            windows_rps: vec![40_000.0, 50_000.0, 60_000.0],
            steady: true,
            requests_per_cycle: None,
            jit_compile_s: None,
        };
        let counters = |young, full, concurrent| TargetCounters {
            collections: vec![("young", young), ("full", full), ("concurrent", concurrent)],
            jit_compile_s: None,
        };
        // 150,000 requests: 30 young collections, 2 full ones, no concurrent one.
        assert_eq!(rarest_cycle(&warmup, &counters(100, 5, 7), &counters(130, 7, 7)), Some(75_000.0));
        assert_eq!(rarest_cycle(&warmup, &counters(100, 5, 7), &counters(100, 5, 7)), None);
    }
    use crate::load::search::capacity::Outcome;

    #[test]
    fn a_re_check_the_generator_limited_decides_nothing_either_way() {
        assert_eq!(recheck_says(Outcome::GeneratorLimited, Outcome::Pass), Recheck::CannotTell);
        assert_eq!(recheck_says(Outcome::GeneratorLimited, Outcome::Fail), Recheck::CannotTell);
    }

    #[test]
    fn a_re_check_that_goes_the_other_way_moves_the_capacity_and_one_that_does_not_leaves_it() {
        assert_eq!(recheck_says(Outcome::Pass, Outcome::Pass), Recheck::Moved, "faster: the failing rate passes now");
        assert_eq!(recheck_says(Outcome::Fail, Outcome::Fail), Recheck::Moved, "slower: a passing rate fails now");
        assert_eq!(recheck_says(Outcome::Fail, Outcome::Pass), Recheck::Stands);
        assert_eq!(recheck_says(Outcome::Pass, Outcome::Fail), Recheck::Stands);
    }
}
