//! How long a sweep will take, for `--dry-run`: the phases' bounds × repeats × cells, plus an allowance for starting
//! and stopping each JVM and the cooldowns between cell-repeats. A capacity search has no fixed length: it counts with
//! its likely number of steps, and its most steps are given beside.

use std::time::Duration;

use super::{Phase, Plan};
use crate::load::search::capacity;
use crate::load::search::ladder::{CapacityGoal, LadderPlan, StepTiming};

/// What starting a JVM service until it is ready and stopping it takes, about (a small Java service: 1–5 s).
pub const START_STOP_ALLOWANCE: Duration = Duration::from_secs(5);

#[derive(Debug, Clone, PartialEq)]
pub struct DurationEstimate {
    pub cell_repeats: u64,
    /// Load of one cell-repeat: the sum of the bounded phases.
    pub load_per_rep: Duration,
    /// Everything: load, start/stop allowance and cooldowns of every cell-repeat.
    pub total: Duration,
    /// Phases bounded only by a request count in the closed model: their length depends on the target's speed and is
    /// not in the figures.
    pub open_ended: Vec<String>,
    /// The capacity searches, counted in `load_per_rep` with their likely steps.
    pub searches: Vec<SearchEstimate>,
}

/// How many steps a capacity search likely takes and at most: it ramps up ×2 from its start until a step breaks the
/// SLO, then bisects until the failing rate is within the precision of the passing one.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchEstimate {
    pub phase: String,
    /// Steps when the capacity lies 1–2× above the start (where a start from a probe's throughput ÷ 2 puts it).
    pub likely_steps: u32,
    /// Steps when the ramp climbs all the way to `max_rate` (or halves the start down to its last try); None without
    /// both `start_rate` and `max_rate`.
    pub max_steps: Option<u32>,
    /// One step: its warm-up and measured window (longer when a slow rate needs time for `min_requests`).
    pub step: Duration,
}

impl SearchEstimate {
    /// The dry run's line: how it was counted, and its longest when the plan bounds it.
    pub fn describe(&self) -> String {
        let seconds =
            |duration: Duration| humantime::format_duration(Duration::from_secs(duration.as_secs_f64().round() as u64));
        let longest = match self.max_steps {
            Some(steps) => format!("at most {steps} steps ({})", seconds(self.step * steps)),
            None => "how long it can take at most depends on where the SLO breaks; set capacity.start_rate and \
                     capacity.max_rate to bound it"
                .to_string(),
        };
        format!(
            "phase {}: a capacity search has no fixed length; counted as {} steps of {}, its likely course (the rate \
             doubled until the SLO breaks, then bisected to the precision); {longest}",
            self.phase,
            self.likely_steps,
            seconds(self.step)
        )
    }
}

/// The steps of a likely search beside its bisections: the start (passing) and ×2 (failing), and the two bounds
/// measured again (`capacity::CONFIRMING_WINDOWS`).
const LIKELY_RAMP_STEPS: u32 = 2 + capacity::CONFIRMING_WINDOWS;

/// The estimate for `cell_repeats` cell-repeats of `plan` still to run (all of them: cells × repeats, before a
/// first run).
pub fn estimate(plan: &Plan, cell_repeats: u64) -> DurationEstimate {
    let load_per_rep: Duration = plan.phases.iter().filter_map(phase_bound).sum();
    let open_ended: Vec<String> =
        plan.phases.iter().filter(|phase| phase_bound(phase).is_none()).map(|phase| phase.name.clone()).collect();
    let searches = plan
        .phases
        .iter()
        .filter_map(|phase| match phase.ladder.as_ref().map(|ladder| (&ladder.plan, &ladder.timing)) {
            Some((LadderPlan::Capacity(goal), timing)) => Some(search_estimate(&phase.name, goal, timing)),
            _ => None,
        })
        .collect();
    let per_rep = load_per_rep + START_STOP_ALLOWANCE;
    let cooldowns = plan.run.cooldown * u32::try_from(cell_repeats.saturating_sub(1)).unwrap_or(u32::MAX);
    let total = per_rep * u32::try_from(cell_repeats).unwrap_or(u32::MAX) + cooldowns;
    DurationEstimate { cell_repeats, load_per_rep, total, open_ended, searches }
}

/// The steps of a capacity search: ramp steps (likely, or up to `max_rate`) plus the bisection to its precision.
pub fn search_estimate(phase: &str, goal: &CapacityGoal, timing: &StepTiming) -> SearchEstimate {
    // Each bisection halves the ratio between the failing and the passing rate (×2 after the ramp) in log terms.
    let bisections = (2f64.ln() / goal.precision.ln_1p()).log2().ceil().max(0.0) as u32;
    let max_ramp = match (goal.start_rps, goal.max_rps) {
        (Some(start), Some(max)) => Some((max / start).log2().ceil() as u32 + 1),
        _ => None,
    };
    SearchEstimate {
        phase: phase.to_string(),
        likely_steps: LIKELY_RAMP_STEPS.min(max_ramp.unwrap_or(u32::MAX)) + bisections,
        max_steps: max_ramp.map(|ramp| ramp.max(1 + capacity::MAX_HALVINGS as u32) + bisections),
        step: timing.warmup + timing.measure,
    }
}

/// The longest a phase runs: its duration or, in the open model, requests ÷ rate, whichever ends it first; a ladder's
/// steps, a search's likely steps; None when only a request count at no fixed rate bounds it.
fn phase_bound(phase: &Phase) -> Option<Duration> {
    match phase.ladder.as_ref().map(|ladder| (&ladder.plan, &ladder.timing)) {
        Some((LadderPlan::Rates(rates), timing)) => {
            return Some(rates.list().iter().map(|rate| step_bound(*rate, timing)).sum());
        }
        Some((LadderPlan::Capacity(goal), timing)) => {
            let search = search_estimate(&phase.name, goal, timing);
            return Some(search.step * search.likely_steps);
        }
        None => {}
    }
    let by_rate = match (phase.load.stop.requests, phase.load.rate) {
        (Some(requests), Some(rate)) => Some(Duration::from_secs_f64(requests as f64 / rate)),
        _ => None,
    };
    match (phase.load.stop.duration, by_rate) {
        (Some(duration), Some(by_rate)) => Some(duration.min(by_rate)),
        (duration, by_rate) => duration.or(by_rate),
    }
}

/// One ladder step at `rate`: its warm-up, then its measured window (long enough for `min_requests`).
fn step_bound(rate: f64, timing: &StepTiming) -> Duration {
    timing.warmup + timing.window(rate)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{PlanBase, parse_plan};

    fn plan(phases: &str, run: &str) -> Plan {
        let text = format!(
            "name = \"e\"\n[target]\ncommand = \"java {{jvm}} -jar x.jar\"\nready = \"http://127.0.0.1:{{port}}/\"\n\
             [[axis]]\nname = \"heap\"\nvalues = [\"-Xmx64m\", \"-Xmx128m\", \"-Xmx256m\"]\n{phases}\n[run]\n{run}\n"
        );
        let base = PlanBase { plan_dir: "/tmp".into(), cwd: "/tmp".into() };
        parse_plan("e.toml", &text, &base).unwrap()
    }

    const URL: &str = "url = \"http://127.0.0.1:{port}/\"";

    #[test]
    fn phases_times_repeats_times_cells_plus_start_stop_and_cooldowns() {
        let phases = format!(
            "[[phase]]\nname = \"warm\"\n{URL}\nduration = \"10s\"\n[[phase]]\nname = \"get\"\n{URL}\nduration = \"20s\"\n"
        );
        let estimate = estimate(&plan(&phases, "repeats = 2\ncooldown = \"3s\""), 3 * 2);
        assert_eq!(estimate.cell_repeats, 6);
        assert_eq!(estimate.load_per_rep, Duration::from_secs(30));
        // 6 × (30 s + 5 s) + 5 cooldowns × 3 s
        assert_eq!(estimate.total, Duration::from_secs(6 * 35 + 15));
        assert!(estimate.open_ended.is_empty());
    }

    #[test]
    fn the_open_model_bounds_a_request_count_by_its_rate() {
        let phases = format!("[[phase]]\nname = \"get\"\n{URL}\nrequests = 5000\nrate = 1000.0\nduration = \"60s\"\n");
        assert_eq!(estimate(&plan(&phases, ""), 1).load_per_rep, Duration::from_secs(5));
    }

    #[test]
    fn a_closed_model_request_count_is_named_as_open_ended() {
        let phases = format!(
            "[[phase]]\nname = \"fill\"\n{URL}\nrequests = 100000\n[[phase]]\nname = \"get\"\n{URL}\nduration = \"20s\"\n"
        );
        let estimate = estimate(&plan(&phases, "cooldown = \"0s\""), 3);
        assert_eq!(estimate.open_ended, ["fill"]);
        assert_eq!(estimate.total, Duration::from_secs(3 * 25));
    }

    #[test]
    fn a_rate_ladder_lasts_its_steps_each_long_enough_for_its_minimum_requests() {
        let phases = format!(
            "[[phase]]\nname = \"curve\"\n{URL}\nrates = [100, 1000, 4000]\nstep_warmup = \"1s\"\nstep = \"2s\"\nmin_requests = 500\n"
        );
        // 100/s needs 5 s for 500 requests; 1000/s and 4000/s get them within 2 s.
        assert_eq!(estimate(&plan(&phases, ""), 1).load_per_rep, Duration::from_secs((1 + 5) + (1 + 2) + (1 + 2)));
    }

    #[test]
    fn a_capacity_search_counts_its_likely_steps_and_names_its_most() {
        let phases = format!(
            "[[phase]]\nname = \"cap\"\n{URL}\ncapacity = {{ slo = \"p99<=10ms\", start_rate = 1000, max_rate = 64000 }}\n\
             step_warmup = \"1s\"\nstep = \"2s\"\n"
        );
        let estimate = estimate(&plan(&phases, ""), 1);
        // 5 % precision: 4 bisections (2^(1/16) = 1.044 ≤ 1.05 < 2^(1/8)); ramp 4 steps likely, 1k…64k = 7 at most.
        let search = SearchEstimate {
            phase: "cap".into(),
            likely_steps: 4 + 4,
            max_steps: Some(7 + 4),
            step: Duration::from_secs(3),
        };
        assert_eq!(estimate.searches, [search]);
        assert_eq!(estimate.load_per_rep, Duration::from_secs(8 * 3));
        // 1k…4k is 3 ramp steps, fewer than a start that fails and is halved 4 times: 5 steps, then 4 bisections.
        let near = estimate_of(&phases.replace("max_rate = 64000", "max_rate = 4000"));
        assert_eq!((near.searches[0].likely_steps, near.searches[0].max_steps), (3 + 4, Some(5 + 4)));
        let phases = phases.replace(", start_rate = 1000, max_rate = 64000", ", precision = \"1%\"");
        let estimate = estimate_of(&phases);
        // 1 %: 2^(1/64) = 1.0109 > 1.01, so 7 bisections; no start_rate: no most.
        assert_eq!((estimate.searches[0].likely_steps, estimate.searches[0].max_steps), (4 + 7, None));
    }

    #[test]
    fn the_dry_run_line_says_how_a_search_was_counted_and_what_bounds_it() {
        let bounded =
            SearchEstimate { phase: "cap".into(), likely_steps: 8, max_steps: Some(11), step: Duration::from_secs(3) };
        assert_eq!(
            bounded.describe(),
            "phase cap: a capacity search has no fixed length; counted as 8 steps of 3s, its likely course (the rate \
             doubled until the SLO breaks, then bisected to the precision); at most 11 steps (33s)"
        );
        let open = SearchEstimate { max_steps: None, ..bounded };
        assert_eq!(
            open.describe(),
            "phase cap: a capacity search has no fixed length; counted as 8 steps of 3s, its likely course (the rate \
             doubled until the SLO breaks, then bisected to the precision); how long it can take at most depends on \
             where the SLO breaks; set capacity.start_rate and capacity.max_rate to bound it"
        );
    }

    fn estimate_of(phases: &str) -> DurationEstimate {
        estimate(&plan(phases, ""), 1)
    }
}
