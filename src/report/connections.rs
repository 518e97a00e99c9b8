//! The connection counts a plan swept, side by side: measured closed-model phases that load the same URL (or mix)
//! at different connection counts — seed 004's `wrk -c 50 … 10000`, one phase per count — become one table, a row per
//! cell and its req/s, P99 and errors at each count, where the phase tables show one count each. A plan that wants
//! this comparison gives each count its own phase (docs/plan.md, "Connection counts side by side").

use super::equal_load::PhaseKind;
use super::metrics::{Format, metric, shown_in};
use super::model::{Analysis, ConnectionSweep, PhaseAnalysis, SweepPhase};
use super::tables::{Entry, Layout, Row, Table, mark_of};
use crate::load::figures::View;

/// The figures of each count: those the registry shows in this table, in its order.
fn keys() -> Vec<&'static str> {
    shown_in(View::Connections).map(|metric| metric.key).collect()
}

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

impl ConnectionSweep {
    /// `c50 · c255 · c1000`: its phases' names.
    pub fn title(&self) -> String {
        self.phases.iter().map(|phase| phase.name.as_str()).collect::<Vec<_>>().join(" · ")
    }

    /// What the table shows and how to read it.
    pub fn note(&self) -> String {
        let counts: Vec<String> = self.phases.iter().map(|phase| phase.connections.to_string()).collect();
        format!(
            "{} at {} connections (closed model, as wrk -c): each cell's throughput, P99 and errors at each count, \
             side by side. Read along a row for how a configuration copes with more connections; each count's latency \
             carries the queueing of its own throughput, so compare latencies down a column only where the req/s \
             match. ★ marks the best cell of a count (with repeats).",
            self.url,
            counts.join(", ")
        )
    }

    /// A row per cell; per count its req/s, P99 and errors (the phase's median over repeats, "-" without figures).
    pub fn table(&self, analysis: &Analysis) -> Table {
        let phases: Vec<Option<&PhaseAnalysis>> =
            self.phases.iter().map(|member| analysis.phases.iter().find(|phase| phase.name == member.name)).collect();
        let keys = keys();
        let columns = self
            .phases
            .iter()
            .flat_map(|member| keys.iter().map(|key| format!("{} at {}", column_label(key), member.connections)))
            .collect();
        let rows = analysis
            .cells
            .iter()
            .enumerate()
            .map(|(index, info)| Row {
                label: info.label.clone(),
                entries: phases
                    .iter()
                    .flat_map(|phase| {
                        let cell = phase.and_then(|phase| phase.cells.get(index));
                        keys.iter().map(move |&key| match cell.and_then(|cell| Some((cell, cell.figure(key)?))) {
                            Some((cell, estimate)) => Entry {
                                text: metric(key).format.show(estimate.median),
                                value: Some(estimate.median),
                                mark: mark_of(analysis, cell, key),
                                ..Entry::default()
                            },
                            None => Entry { text: "-".to_string(), ..Entry::default() },
                        })
                    })
                    .collect(),
            })
            .collect();
        let axes: Vec<&str> = analysis.axes.iter().filter(|axis| axis.varies).map(|axis| axis.name.as_str()).collect();
        let corner =
            format!("{} \\ figure at connections", if axes.is_empty() { "cell".to_string() } else { axes.join(" ") });
        Table { corner, columns, rows, notes: Vec::new(), layout: Layout::CellRows }
    }
}

/// `req/s`, `P99 (ms)`, `errors`: the metric's label, with its unit where it has one, as the phase tables write it.
fn column_label(key: &str) -> String {
    let metric = metric(key);
    match metric.format {
        Format::Ms => format!("{} (ms)", metric.label),
        _ => metric.label.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::model::LoadShape;

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
