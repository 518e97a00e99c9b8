//! Latency is compared only between measurements at the same load. What that means for each kind of phase: in a
//! `rate` phase (and at the headline step of a `rates` ladder) a cell that fell short of the requested rate — by the
//! one rule of `load::record::whose_limit` — is marked and its latency not ranked; a capacity phase ranks capacity, not the
//! latency of steps at different rates; closed-model cells run at whatever throughput they reach, so when their
//! throughputs differ by more than [`MAX_CLOSED_SPREAD`] the report says their latencies are not comparable.

use serde::Serialize;

use crate::load::record::whose_limit::{SUSTAINED_SHARE, limited_by};
use crate::results::PhaseRecord;

/// How a phase loaded its cells.
/// In order of how much a phase's records say (a phase is of the highest kind any of its records is).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PhaseKind {
    /// Fixed concurrency: each cell runs at the throughput it reaches.
    Closed,
    /// One fixed rate (open model).
    Rate,
    /// A ladder of fixed rates.
    Ladder,
    /// A search for the capacity under an SLO.
    Capacity,
}

/// Closed-model throughputs further apart than this (the fastest over the slowest, minus one) make latencies not
/// comparable.
pub const MAX_CLOSED_SPREAD: f64 = 0.10;

/// The kind of a phase, from its records over every cell.
pub fn phase_kind<'a>(records: impl IntoIterator<Item = &'a PhaseRecord>) -> PhaseKind {
    let mut kind = PhaseKind::Closed;
    for record in records {
        let this = if record.bench.capacity.is_some() {
            PhaseKind::Capacity
        } else if !record.bench.steps.is_empty() {
            PhaseKind::Ladder
        } else if record.bench.rate.is_some() {
            PhaseKind::Rate
        } else {
            PhaseKind::Closed
        };
        kind = kind.max(this);
    }
    kind
}

/// Why a cell's headline latency is not at the requested rate, naming the repeats (None when every repeat sustained
/// it, or the phase has no single requested rate): `8214 req/s achieved of 10000 requested (target, repeat 2)`.
pub fn short_of_rate(reps: &[(u32, &PhaseRecord)]) -> Option<String> {
    let shortfalls: Vec<String> = reps
        .iter()
        .filter_map(|(rep, record)| {
            let bench = &record.bench;
            let limit = match (bench.capacity.as_ref(), bench.steps.last(), bench.rate) {
                (Some(_), ..) => None,
                (None, Some(step), _) => step.limited_by.clone(),
                (None, None, Some(rate)) => limited_by(bench, rate),
                (None, None, None) => None,
            }?;
            Some(format!("{} ({}, repeat {rep})", limit.reason, limit.side.name()))
        })
        .collect();
    (!shortfalls.is_empty()).then(|| shortfalls.join("; "))
}

/// Throughput in a few digits: 950, 9870, 19.7k, 131k.
pub fn short_rps(rps: f64) -> String {
    if rps >= 99_950.0 {
        format!("{:.0}k", rps / 1000.0)
    } else if rps >= 9_995.0 {
        format!("{:.1}k", rps / 1000.0)
    } else {
        format!("{rps:.0}")
    }
}

/// What a phase's table must say about comparing latency, or None: closed-model cells at throughputs too different
/// to compare (`rps`: the cells' medians), cells short of the requested rate (`short`: their labels), or a capacity
/// phase's headline latencies at a different rate per cell.
pub fn phase_note(kind: PhaseKind, short: &[&str], rps: &[f64]) -> Option<String> {
    match kind {
        PhaseKind::Closed => closed_spread_note(kind, rps),
        PhaseKind::Capacity => Some(
            "Cells are ranked by capacity. The req/s, latencies and JVM figures (GC counts, pause share, longest \
             pause) in the table are those of each cell's capacity step, a different rate per cell, so they are not \
             ranked; the steps at equal requested rates are compared under \"Latency against throughput\"."
                .to_string(),
        ),
        PhaseKind::Rate | PhaseKind::Ladder if !short.is_empty() => Some(format!(
            "Latency is compared only between cells at the requested rate: {} fell short of it (below {:.0} % of the \
             rate, or the generator ran out) and {} not ranked on latency.",
            short.join(", "),
            SUSTAINED_SHARE * 100.0,
            if short.len() == 1 { "is" } else { "are" }
        )),
        PhaseKind::Rate | PhaseKind::Ladder => None,
    }
}

/// The warning next to a closed-model phase's table when its cells ran at throughputs too different to compare
/// their latency (`rps` are the cells' medians).
fn closed_spread_note(kind: PhaseKind, rps: &[f64]) -> Option<String> {
    let low = rps.iter().copied().fold(f64::INFINITY, f64::min);
    let high = rps.iter().copied().fold(0.0, f64::max);
    if kind != PhaseKind::Closed || rps.len() < 2 || low <= 0.0 || high <= low * (1.0 + MAX_CLOSED_SPREAD) {
        return None;
    }
    Some(format!(
        "P99 measured at {}–{} req/s: not comparable; measure at equal load with `rate`/`rates` or by `capacity`",
        short_rps(low),
        short_rps(high)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::record::outcomes::{Capacity, Side};
    use crate::report::analysis::capacity::tests::{record_of, searched};

    fn at_rate(rate: Option<f64>, rps: f64) -> PhaseRecord {
        let mut bench =
            crate::load::record::result::tests::result_of(&crate::load::record::recorder::Recorder::new(1, false));
        bench.rate = rate;
        bench.rps = rps;
        record_of(bench)
    }

    #[test]
    fn the_kind_of_a_phase_is_its_most_elaborate_record() {
        assert_eq!(phase_kind([&at_rate(None, 10.0)]), PhaseKind::Closed);
        assert_eq!(phase_kind([&at_rate(None, 10.0), &at_rate(Some(5.0), 5.0)]), PhaseKind::Rate);
        let search = searched(Some(1.0), Side::Target, [Some(1.0), Some(2.0)]);
        assert_eq!(phase_kind([&at_rate(Some(5.0), 5.0), &search]), PhaseKind::Capacity);
        assert!(matches!(search.bench.capacity, Some(Capacity { .. })));
    }

    #[test]
    fn a_cell_short_of_its_rate_is_named_with_the_repeat() {
        let kept = at_rate(Some(10000.0), 9600.0);
        let short = at_rate(Some(10000.0), 8214.0);
        assert_eq!(short_of_rate(&[(1, &kept)]), None, "96 % of the rate is sustained");
        assert_eq!(
            short_of_rate(&[(1, &kept), (2, &short)]).as_deref(),
            Some("8214 req/s achieved of 10000 requested (target, repeat 2)")
        );
        assert_eq!(short_of_rate(&[(1, &at_rate(None, 10.0))]), None, "the closed model requests no rate");
    }

    #[test]
    fn each_kind_of_phase_says_what_its_latencies_cannot_be_compared_with() {
        assert_eq!(phase_note(PhaseKind::Rate, &[], &[9000.0, 5000.0]), None, "every cell at the rate");
        assert_eq!(
            phase_note(PhaseKind::Rate, &["-Xmx64m"], &[]).as_deref(),
            Some(
                "Latency is compared only between cells at the requested rate: -Xmx64m fell short of it (below 95 % \
                 of the rate, or the generator ran out) and is not ranked on latency."
            )
        );
        assert!(phase_note(PhaseKind::Ladder, &["a", "b"], &[]).unwrap().contains("a, b fell short of it"));
        assert!(phase_note(PhaseKind::Capacity, &[], &[]).unwrap().starts_with("Cells are ranked by capacity."));
        assert_eq!(
            phase_note(PhaseKind::Closed, &[], &[105_000.0, 131_000.0]),
            closed_spread_note(PhaseKind::Closed, &[105_000.0, 131_000.0])
        );
    }

    #[test]
    fn closed_cells_at_different_throughputs_are_called_not_comparable() {
        let note = closed_spread_note(PhaseKind::Closed, &[105_000.0, 131_000.0]).unwrap();
        assert!(note.starts_with("P99 measured at 105k–131k req/s: not comparable"), "{note}");
        assert_eq!(closed_spread_note(PhaseKind::Closed, &[100_000.0, 110_000.0]), None, "10 % is comparable");
        assert_eq!(closed_spread_note(PhaseKind::Rate, &[5_000.0, 10_000.0]), None);
        assert_eq!(closed_spread_note(PhaseKind::Closed, &[19_730.0]), None);
        assert_eq!(
            (short_rps(19_730.0), short_rps(9_870.0), short_rps(950.4)),
            ("19.7k".into(), "9870".into(), "950".into())
        );
    }
}
