//! How long a sweep will take, for `--dry-run`: the phases' bounds × repeats × cells, plus an allowance for starting
//! and stopping each JVM and the cooldowns between cell-repeats.

use std::time::Duration;

use super::{Phase, Plan};

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
}

/// The estimate for `cell_repeats` cell-repeats of `plan` still to run (all of them: cells × repeats, before a
/// first run).
pub fn estimate(plan: &Plan, cell_repeats: u64) -> DurationEstimate {
    let load_per_rep: Duration = plan.phases.iter().filter_map(phase_bound).sum();
    let open_ended: Vec<String> =
        plan.phases.iter().filter(|phase| phase_bound(phase).is_none()).map(|phase| phase.name.clone()).collect();
    let per_rep = load_per_rep + START_STOP_ALLOWANCE;
    let cooldowns = plan.run.cooldown * u32::try_from(cell_repeats.saturating_sub(1)).unwrap_or(u32::MAX);
    let total = per_rep * u32::try_from(cell_repeats).unwrap_or(u32::MAX) + cooldowns;
    DurationEstimate { cell_repeats, load_per_rep, total, open_ended }
}

/// The longest a phase runs: its duration or, in the open model, requests ÷ rate, whichever ends it first; None when
/// only a request count at no fixed rate bounds it.
fn phase_bound(phase: &Phase) -> Option<Duration> {
    let by_rate = match (phase.load.stop.requests, phase.load.rate) {
        (Some(requests), Some(rate)) => Some(Duration::from_secs_f64(requests as f64 / rate)),
        _ => None,
    };
    match (phase.load.stop.duration, by_rate) {
        (Some(duration), Some(by_rate)) => Some(duration.min(by_rate)),
        (duration, by_rate) => duration.or(by_rate),
    }
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
}
