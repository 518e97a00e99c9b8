//! A cell's capacity over its repeats: the highest rate each repeat's search found meeting the SLO, as one figure with
//! its confidence interval, the steps that bound it, and whose limit ended the searches. The rule of when a cell has a
//! capacity lives here, for the report and for `compare`: a cell that was generator-limited in any repeat claims none
//! (jload, not the target, ran out, so no number would be the target's), and says so.

use serde::Serialize;

use super::stats::Estimate;
use crate::load::record::outcomes::Side;
use crate::results::PhaseRecord;

/// What a cell's capacity searches found, over its repeats.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CellCapacity {
    /// The median capacity over the repeats whose search found one; None when the generator ran out in any repeat, or
    /// when no step met the SLO.
    pub rps: Option<f64>,
    /// 95 % interval of the mean capacity over repeats (two repeats or more).
    pub ci: Option<[f64; 2]>,
    /// The SLO the searches judged steps on (`p99<=10ms, errors<=0.1%`).
    pub slo: String,
    /// Generator when any repeat ran out on jload's side, else target.
    pub limited_by: Side,
    /// Over repeats: the lowest of the highest rates that met the SLO (every repeat met it there or above), and the
    /// highest of the lowest rates that failed it (some repeat failed there; None when no repeat failed any rate).
    /// Medians would not do: repeats that disagree would give a "met" above the "failed".
    pub bounds: [Option<f64>; 2],
    /// Repeats whose search ended on the generator's limit.
    pub generator_reps: Vec<u32>,
    /// Each repeat's verdict line, `repeat 2: …`.
    pub verdicts: Vec<String>,
    /// The figure behind `rps` and `ci` (report.json's `figures.capacity_rps` is the same).
    #[serde(skip)]
    pub estimate: Option<Estimate>,
}

impl CellCapacity {
    /// What a table shows for it: the capacity, `generator-limited`, or `< low bound` when no step met the SLO.
    pub fn describe(&self, format: impl Fn(f64) -> String) -> String {
        match (self.limited_by, self.rps, self.bounds) {
            (Side::Generator, ..) => "generator-limited: no capacity claimed".to_string(),
            (Side::Target, Some(rps), _) => format(rps),
            (Side::Target, None, [_, Some(high)]) => format!("below {} (no step met the SLO)", format(high)),
            (Side::Target, None, _) => "none found".to_string(),
        }
    }

    /// `12000–12600`, the steps that bound the capacity; `≥ 36416` when nothing above the highest passing step
    /// failed (the search ended at the rate cap or where the generator ran out), `< 500` when no step passed.
    pub fn bounds_text(&self, format: impl Fn(f64) -> String) -> String {
        match self.bounds {
            [Some(low), Some(high)] => format!("{}–{}", format(low), format(high)),
            [Some(low), None] => format!("≥ {}", format(low)),
            [None, Some(high)] => format!("< {}", format(high)),
            [None, None] => "-".to_string(),
        }
    }
}

/// The capacity of a cell from its measured repeats of a phase, or None when no repeat ran a capacity search.
pub fn cell_capacity(reps: &[(u32, &PhaseRecord)]) -> Option<CellCapacity> {
    let searched: Vec<(u32, &crate::load::record::outcomes::Capacity)> =
        reps.iter().filter_map(|(rep, record)| Some((*rep, record.bench.capacity.as_ref()?))).collect();
    let (_, first) = searched.first()?;
    let generator_reps: Vec<u32> =
        searched.iter().filter(|(_, capacity)| capacity.limited_by == Side::Generator).map(|(rep, _)| *rep).collect();
    let limited_by = if generator_reps.is_empty() { Side::Target } else { Side::Generator };
    let estimate = match limited_by {
        Side::Target => Estimate::of(searched.iter().filter_map(|(_, capacity)| capacity.rps).collect()),
        Side::Generator => None,
    };
    let lows: Option<Vec<f64>> = searched.iter().map(|(_, capacity)| capacity.bounds[0]).collect();
    let lowest_met = lows.and_then(|lows| lows.into_iter().reduce(f64::min));
    let highest_failed = searched.iter().filter_map(|(_, capacity)| capacity.bounds[1]).reduce(f64::max);
    Some(CellCapacity {
        rps: estimate.as_ref().map(|estimate| estimate.median),
        ci: estimate.as_ref().and_then(|estimate| estimate.ci),
        slo: first.slo.clone(),
        limited_by,
        bounds: [lowest_met, highest_failed],
        generator_reps,
        verdicts: searched.iter().map(|(rep, capacity)| format!("repeat {rep}: {}", capacity.verdict)).collect(),
        estimate,
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::load::record::outcomes::Capacity;

    /// A phase record whose bench result is `result` (every other field plain).
    pub fn record_of(bench: crate::load::record::result::BenchResult) -> PhaseRecord {
        PhaseRecord::of_bench("search", bench)
    }

    /// A record of a capacity search that ended as given.
    pub fn searched(rps: Option<f64>, limited_by: Side, bounds: [Option<f64>; 2]) -> PhaseRecord {
        let mut bench =
            crate::load::record::result::tests::result_of(&crate::load::record::recorder::Recorder::new(1, false));
        bench.capacity =
            Some(Capacity { rps, slo: "p99<=10ms".into(), limited_by, bounds, verdict: format!("ended at {rps:?}") });
        record_of(bench)
    }

    #[test]
    fn capacity_over_repeats_is_the_median_with_a_t_interval() {
        let records = [
            searched(Some(12000.0), Side::Target, [Some(12000.0), Some(12600.0)]),
            searched(Some(11000.0), Side::Target, [Some(11000.0), Some(11500.0)]),
            searched(Some(13000.0), Side::Target, [Some(13000.0), Some(13600.0)]),
        ];
        let reps: Vec<(u32, &PhaseRecord)> = records.iter().enumerate().map(|(i, r)| (i as u32 + 1, r)).collect();
        let capacity = cell_capacity(&reps).unwrap();
        assert_eq!(capacity.rps, Some(12000.0));
        assert_eq!(capacity.bounds, [Some(11000.0), Some(13600.0)]);
        assert_eq!(capacity.limited_by, Side::Target);
        // Mean 12000, s = 1000, t(0.975, 2) = 4.3027: half-width 4.3027 × 1000 / √3 = 2484.1.
        let [low, high] = capacity.ci.unwrap();
        assert!((low - 9515.9).abs() < 0.1 && (high - 14484.1).abs() < 0.1, "{low} {high}");
        assert_eq!(capacity.describe(|rps| format!("{rps:.0}")), "12000");
        assert_eq!(capacity.bounds_text(|rps| format!("{rps:.0}")), "11000–13600");
        assert_eq!(capacity.verdicts[1], "repeat 2: ended at Some(11000.0)");
    }

    #[test]
    fn a_generator_limited_repeat_leaves_the_cell_without_a_capacity() {
        let records = [
            searched(Some(40000.0), Side::Target, [Some(40000.0), Some(42000.0)]),
            searched(None, Side::Generator, [Some(38000.0), None]),
        ];
        let reps: Vec<(u32, &PhaseRecord)> = records.iter().enumerate().map(|(i, r)| (i as u32 + 1, r)).collect();
        let capacity = cell_capacity(&reps).unwrap();
        assert_eq!((capacity.rps, capacity.ci, &capacity.estimate), (None, None, &None));
        assert_eq!(capacity.limited_by, Side::Generator);
        assert_eq!(capacity.generator_reps, [2]);
        assert_eq!(capacity.describe(|rps| format!("{rps:.0}")), "generator-limited: no capacity claimed");
    }

    #[test]
    fn no_step_meeting_the_slo_is_a_capacity_below_the_first_rate() {
        let records = [searched(None, Side::Target, [None, Some(2000.0)])];
        let capacity = cell_capacity(&[(1, &records[0])]).unwrap();
        assert_eq!(capacity.rps, None);
        assert_eq!(capacity.describe(|rps| format!("{rps:.0}")), "below 2000 (no step met the SLO)");
        assert!(cell_capacity(&[(1, &record_of(records[0].bench.clone()))]).is_some());
        let mut plain = records[0].bench.clone();
        plain.capacity = None;
        assert_eq!(cell_capacity(&[(1, &record_of(plain))]), None, "no search, no capacity");
    }
}
