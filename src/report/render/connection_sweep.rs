//! The table of a connection sweep (`analysis::connection_sweep` finds the sweeps): its title, its note and a row per
//! cell with its req/s, P99 and errors at each count.

use super::tables::{Entry, Layout, Row, Table, mark_of};
use crate::load::figures::View;
use crate::report::analysis::{Analysis, ConnectionSweep, Format, PhaseAnalysis, metric, shown_in};

/// The figures of each count: those the registry shows in this table, in its order.
fn keys() -> Vec<&'static str> {
    shown_in(View::Connections).map(|metric| metric.key).collect()
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
