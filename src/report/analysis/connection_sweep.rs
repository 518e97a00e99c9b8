//! The connection counts a plan swept, side by side: measured closed-model phases that load the same URL (or mix)
//! at different connection counts — seed 004's `wrk -c 50 … 10000`, one phase per count — become one sweep in the
//! model, which `render::connection_sweep` shows as one table (a row per cell and its req/s, P99 and errors at each count,
//! where the phase tables show one count each). A plan that wants this comparison gives each count its own phase
//! (docs/plan.md, "Connection counts side by side").

use super::equal_load::PhaseKind;
use super::model::{ConnectionSweep, PhaseAnalysis, SweepPhase};

/// The sweeps among `phases`: measured closed-model phases grouped by what they load, each group with two or more
/// connection counts (the first phase of a count when two share it). In the order of their first phase.
pub fn connection_sweeps(phases: &[PhaseAnalysis]) -> Vec<ConnectionSweep> {
    let mut sweeps: Vec<ConnectionSweep> = Vec::new();
    for phase in phases.iter().filter(|phase| phase.measured && phase.kind == PhaseKind::Closed) {
        let Some(load) = &phase.load else { continue };
        let member = SweepPhase { name: phase.name.clone(), connections: load.connections };
        match sweeps.iter_mut().find(|sweep| sweep.url == load.url) {
            Some(sweep) if sweep.phases.iter().any(|known| known.connections == load.connections) => {}
            Some(sweep) => sweep.phases.push(member),
            None => sweeps.push(ConnectionSweep { url: load.url.clone(), phases: vec![member] }),
        }
    }
    sweeps.retain(|sweep| sweep.phases.len() >= 2);
    for sweep in &mut sweeps {
        sweep.phases.sort_by_key(|phase| phase.connections);
    }
    sweeps
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::analysis::model::LoadShape;

    fn phase(name: &str, measured: bool, kind: PhaseKind, url: &str, connections: usize) -> PhaseAnalysis {
        PhaseAnalysis {
            name: name.into(),
            measured,
            kind,
            load: Some(LoadShape {
                url: url.into(),
                model: "closed".into(),
                connections,
                rate: None,
                duration_s: 10.0,
                requests: 1000,
                rates: Vec::new(),
                steps: None,
            }),
            equal_load_note: None,
            slo_p99_ms: None,
            cells: Vec::new(),
            recommendation: None,
            hosts: None,
            gc_share: crate::report::analysis::model::GcShare::of(&[], &|id| id.to_string()),
        }
    }

    #[test]
    fn measured_closed_phases_of_one_url_at_several_counts_are_one_sweep_fewest_connections_first() {
        let hello = "http://127.0.0.1:{port}/api/hello";
        let phases = [
            phase("warmup", false, PhaseKind::Closed, hello, 50),
            phase("capacity", true, PhaseKind::Capacity, hello, 100),
            phase("c1000", true, PhaseKind::Closed, hello, 1000),
            phase("c50", true, PhaseKind::Closed, hello, 50),
            phase("c50-again", true, PhaseKind::Closed, hello, 50),
            phase("other", true, PhaseKind::Closed, "http://127.0.0.1:{port}/other", 255),
            phase("c255", true, PhaseKind::Closed, hello, 255),
        ];
        let sweeps = connection_sweeps(&phases);
        assert_eq!(sweeps.len(), 1, "{sweeps:?}");
        let counts: Vec<(&str, usize)> =
            sweeps[0].phases.iter().map(|phase| (phase.name.as_str(), phase.connections)).collect();
        assert_eq!(counts, [("c50", 50), ("c255", 255), ("c1000", 1000)]);
        assert_eq!(sweeps[0].title(), "c50 · c255 · c1000");
    }

    #[test]
    fn one_count_per_url_is_no_sweep() {
        let phases = [
            phase("get", true, PhaseKind::Closed, "http://127.0.0.1:{port}/get", 50),
            phase("set", true, PhaseKind::Closed, "http://127.0.0.1:{port}/set", 100),
        ];
        assert!(connection_sweeps(&phases).is_empty());
    }
}
