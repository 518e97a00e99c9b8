//! Latency against throughput: a cell's curve over the steps of its rate ladders or capacity searches (one point per
//! requested rate: the achieved rate and the corrected P99 over the repeats that ran it), and the comparison at equal
//! load along it — at each requested rate, the cells that sustained it in every repeat are ranked on P99; a cell that
//! fell short (the target's limit or the generator's, by `load::record::whose_limit`) is shown, never ranked.

use serde::Serialize;

use super::stats::{Better, Estimate, Standing, rank};
use crate::load::figures::Unit;
use crate::load::record::outcomes::Side;
use crate::results::PhaseRecord;

/// One requested rate of a cell's curve, over the repeats that ran it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CurvePoint {
    pub requested_rps: f64,
    /// Repeats that ran this rate, in order; the estimates' values follow them.
    pub reps: Vec<u32>,
    pub achieved_rps: Estimate,
    /// Corrected P99 (from each request's intended send time).
    pub p99_ms: Estimate,
    pub error_pct: Option<Estimate>,
    /// Repeats in which the step did not sustain its rate: whose limit, and the evidence.
    pub limits: Vec<RepLimit>,
    /// Repeats that met the SLO at this step, of those judged (None without one).
    pub slo_met: Option<[usize; 2]>,
    /// On P99 against the other cells at this rate; None when the cell did not sustain it (not ranked).
    pub standing: Option<Standing>,
}

impl CurvePoint {
    /// The side that limited the step: the generator when it ran out in any repeat, else the target, else none.
    pub fn limited_by(&self) -> Option<Side> {
        let sides = || self.limits.iter().map(|limit| limit.side);
        if sides().any(|side| side == Side::Generator) { Some(Side::Generator) } else { sides().next() }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RepLimit {
    pub rep: u32,
    pub side: Side,
    pub reason: String,
}

/// A cell's curve: every requested rate its repeats ran, lowest first; empty when no repeat ran steps.
pub fn cell_curve(reps: &[(u32, &PhaseRecord)]) -> Vec<CurvePoint> {
    let mut rates: Vec<f64> =
        reps.iter().flat_map(|(_, record)| record.bench.steps.iter().map(|step| step.requested_rps)).collect();
    rates.sort_by(f64::total_cmp);
    rates.dedup();
    rates
        .into_iter()
        .filter_map(|rate| {
            let steps: Vec<(u32, &crate::load::record::outcomes::Step)> = reps
                .iter()
                .flat_map(|(rep, record)| {
                    record.bench.steps.iter().filter(move |step| step.requested_rps == rate).map(move |s| (*rep, s))
                })
                .collect();
            let judged: Vec<bool> = steps.iter().filter_map(|(_, step)| step.meets_slo).collect();
            Some(CurvePoint {
                requested_rps: rate,
                reps: steps.iter().map(|(rep, _)| *rep).collect(),
                achieved_rps: Estimate::of(steps.iter().map(|(_, step)| step.achieved_rps).collect())?,
                p99_ms: Estimate::of(steps.iter().map(|(_, step)| step.latency_ms.p99).collect())?,
                error_pct: Estimate::of(steps.iter().filter_map(|(_, step)| step.error_pct).collect()),
                limits: steps
                    .iter()
                    .filter_map(|(rep, step)| {
                        let limit = step.limited_by.as_ref()?;
                        Some(RepLimit { rep: *rep, side: limit.side, reason: limit.reason.clone() })
                    })
                    .collect(),
                slo_met: (!judged.is_empty()).then(|| [judged.iter().filter(|met| **met).count(), judged.len()]),
                standing: None,
            })
        })
        .collect()
}

/// Rank the cells at each requested rate on P99, among those that sustained it in every repeat, when there are two or
/// more (`curves` in cell order; each point's `standing` is set).
pub fn rank_at_equal_load(curves: &mut [&mut Vec<CurvePoint>]) {
    let mut rates: Vec<f64> = curves.iter().flat_map(|curve| curve.iter().map(|point| point.requested_rps)).collect();
    rates.sort_by(f64::total_cmp);
    rates.dedup();
    for rate in rates {
        let standings = {
            let estimates: Vec<Option<&Estimate>> = curves
                .iter()
                .map(|curve| {
                    let point = curve.iter().find(|point| point.requested_rps == rate)?;
                    point.limits.is_empty().then_some(&point.p99_ms)
                })
                .collect();
            // A cell alone at a rate is compared with nothing.
            if estimates.iter().flatten().count() < 2 {
                vec![None; estimates.len()]
            } else {
                rank(&estimates, Better::Lower)
            }
        };
        for (curve, standing) in curves.iter_mut().zip(standings) {
            if let Some(point) = curve.iter_mut().find(|point| point.requested_rps == rate) {
                point.standing = standing;
            }
        }
    }
}

/// The P99 bound among SLO rules (`p99<=10ms`, `p99<15ms`; a capacity's `p99<=10ms, errors<=0.1%`), in ms: the
/// line the curves chart draws.
pub fn p99_bound<'a>(rules: impl IntoIterator<Item = &'a str>) -> Option<f64> {
    rules.into_iter().flat_map(|rules| rules.split(',')).find_map(|rule| {
        let compact: String = rule.chars().filter(|c| !c.is_whitespace()).collect();
        let bound = compact.to_ascii_lowercase().strip_prefix("p99<")?.trim_start_matches('=').to_string();
        Unit::Latency.parse_bound(&bound)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::record::outcomes::{Limit, Step};
    use crate::load::record::summary::{ErrorSummary, LatencySummary};
    use crate::report::analysis::capacity::tests::record_of;

    fn step(requested: f64, achieved: f64, p99: f64, limit: Option<Side>) -> Step {
        Step {
            requested_rps: requested,
            achieved_rps: achieved,
            duration_s: 2.0,
            requests: (achieved * 2.0) as u64,
            latency_ms: LatencySummary { p99, ..LatencySummary::default() },
            errors: ErrorSummary::default(),
            error_pct: Some(0.0),
            never_sent: 0,
            unfinished: 0,
            limited_by: limit.map(|side| Limit { side, reason: format!("{side:?} ran out") }),
            meets_slo: Some(p99 <= 10.0),
            windows: 1,
            rare: None,
        }
    }

    fn ladder(steps: Vec<Step>) -> PhaseRecord {
        let mut bench =
            crate::load::record::result::tests::result_of(&crate::load::record::recorder::Recorder::new(1, false));
        bench.steps = steps;
        record_of(bench)
    }

    #[test]
    fn a_curve_has_one_point_per_requested_rate_over_the_repeats() {
        let one = ladder(vec![step(1000.0, 998.0, 1.0, None), step(2000.0, 1990.0, 3.0, None)]);
        let two = ladder(vec![step(1000.0, 1000.0, 2.0, None), step(2000.0, 1500.0, 40.0, Some(Side::Target))]);
        let curve = cell_curve(&[(1, &one), (2, &two)]);
        assert_eq!(curve.iter().map(|point| point.requested_rps).collect::<Vec<_>>(), [1000.0, 2000.0]);
        assert_eq!(curve[0].achieved_rps.values, [998.0, 1000.0]);
        assert_eq!(curve[0].p99_ms.median, 1.5);
        assert_eq!((curve[0].limited_by(), curve[0].slo_met), (None, Some([2, 2])));
        assert_eq!(curve[1].p99_ms.values, [3.0, 40.0]);
        assert_eq!(curve[1].limits, [RepLimit { rep: 2, side: Side::Target, reason: "Target ran out".into() }]);
        assert_eq!((curve[1].limited_by(), curve[1].slo_met), (Some(Side::Target), Some([1, 2])));
        assert!(cell_curve(&[(1, &ladder(Vec::new()))]).is_empty());
    }

    #[test]
    fn cells_are_ranked_per_rate_only_where_they_sustained_it() {
        let fast = ladder(vec![step(1000.0, 1000.0, 1.0, None), step(4000.0, 3990.0, 2.0, Some(Side::Generator))]);
        let slow = ladder(vec![step(1000.0, 1000.0, 5.0, None), step(4000.0, 3000.0, 90.0, Some(Side::Target))]);
        let fair = ladder(vec![step(4000.0, 4000.0, 9.0, None)]);
        let (mut a, mut b, mut c) = (cell_curve(&[(1, &fast)]), cell_curve(&[(1, &slow)]), cell_curve(&[(1, &fair)]));
        rank_at_equal_load(&mut [&mut a, &mut b, &mut c]);
        // At 1000 req/s the two cells that ran it; one repeat each: the other is unqualified.
        assert_eq!((a[0].standing, b[0].standing), (Some(Standing::Best), Some(Standing::Unqualified)));
        // At 4000 only `fair` sustained the rate: the generator-limited and the target-limited cells are not ranked,
        // however low the P99 the generator-limited one shows, and `fair` alone is compared with nothing.
        assert_eq!((a[1].standing, b[1].standing, c[0].standing), (None, None, None));
        assert_eq!((a[1].limited_by(), b[1].limited_by()), (Some(Side::Generator), Some(Side::Target)));
    }

    #[test]
    fn the_p99_bound_is_read_from_the_slo_rules() {
        assert_eq!(p99_bound(["p99<=10ms, errors<=0.1%"]), Some(10.0));
        assert_eq!(p99_bound(["errors<=1%", "P99 < 1.5s"]), Some(1500.0));
        assert_eq!(p99_bound(["p999<=10ms", "p90<=2ms"]), None);
    }
}
