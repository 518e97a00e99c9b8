//! The rule of a box search, like the capacity search's over the rate: from the trials so far, the next limit to
//! try or the answer. The upper bound first (failing there: no box in range holds the SLO), then the lower (passing
//! there: the lower bound is enough), then bisection on a log scale — the geometric mean of the highest failing and
//! the lowest passing limit, on the dimension's grid — until they are within the precision of each other.

use crate::plan::box_search::SearchRange;
use crate::results::box_search_json::BoxAnswer;

/// What to do next.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Next {
    Try(f64),
    Done(BoxAnswer),
}

/// The next step of a search of `range` after `trials` (limit, passed), in any order.
pub fn next(range: &SearchRange, trials: &[(f64, bool)]) -> Next {
    let outcome = |limit: f64| trials.iter().find(|(tried, _)| *tried == limit).map(|&(_, passed)| passed);
    match outcome(range.to) {
        None => return Next::Try(range.to),
        Some(false) => return Next::Done(BoxAnswer::NoneInRange { highest_failing: range.to }),
        Some(true) => {}
    }
    match outcome(range.from) {
        None => return Next::Try(range.from),
        Some(true) => return Next::Done(BoxAnswer::AtMostLowerBound { lowest_passing: range.from }),
        Some(false) => {}
    }
    let lowest_passing =
        trials.iter().filter(|(_, passed)| *passed).map(|&(limit, _)| limit).fold(f64::INFINITY, f64::min);
    // The highest failing limit below the lowest passing one: a failure above a pass (noise) does not move the bounds.
    let highest_failing = trials
        .iter()
        .filter(|&&(limit, passed)| !passed && limit < lowest_passing)
        .map(|&(limit, _)| limit)
        .fold(range.from, f64::max);
    let done = Next::Done(BoxAnswer::Between { highest_failing, lowest_passing });
    if lowest_passing / highest_failing - 1.0 <= range.precision {
        return done;
    }
    let mut middle = range.dimension.on_grid((highest_failing * lowest_passing).sqrt());
    if middle <= highest_failing {
        middle = range.dimension.on_grid(highest_failing + range.dimension.grid_step());
    }
    if middle >= lowest_passing {
        return done;
    }
    Next::Try(middle)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::box_search::BoxDimension;

    const MIB: f64 = (1u64 << 20) as f64;

    fn memory(from: f64, to: f64, precision: f64) -> SearchRange {
        SearchRange { dimension: BoxDimension::Memory, from: from * MIB, to: to * MIB, precision }
    }

    /// Run the search against a target that holds the SLO from `needs` MiB up; the limits tried, in MiB.
    fn search(range: &SearchRange, holds: impl Fn(f64) -> bool) -> (Vec<f64>, BoxAnswer) {
        let mut trials = Vec::new();
        loop {
            match next(range, &trials) {
                Next::Try(limit) => trials.push((limit, holds(limit))),
                Next::Done(answer) => return (trials.iter().map(|(limit, _)| limit / MIB).collect(), answer),
            }
        }
    }

    #[test]
    fn the_upper_bound_then_the_lower_then_the_geometric_mean_in_whole_mebibytes() {
        let (tried, answer) = search(&memory(128.0, 2048.0, 0.05), |limit| limit >= 300.0 * MIB);
        assert_eq!(tried[..4], [2048.0, 128.0, 512.0, 256.0]);
        let BoxAnswer::Between { highest_failing, lowest_passing } = answer else { panic!("{answer:?}") };
        assert!(highest_failing < 300.0 * MIB && lowest_passing >= 300.0 * MIB, "{answer:?}");
        assert!(lowest_passing / highest_failing - 1.0 <= 0.05, "{answer:?}");
        assert!(tried.iter().all(|mib| mib.fract() == 0.0), "{tried:?}");
        assert!(tried.len() as u32 <= crate::plan::box_search::BoxSearch::most_trials(&memory(128.0, 2048.0, 0.05)));
    }

    #[test]
    fn a_failing_upper_bound_means_no_box_in_range_and_a_passing_lower_bound_is_enough() {
        let range = memory(128.0, 2048.0, 0.05);
        assert_eq!(search(&range, |_| false), (vec![2048.0], BoxAnswer::NoneInRange { highest_failing: 2048.0 * MIB }));
        assert_eq!(
            search(&range, |_| true),
            (vec![2048.0, 128.0], BoxAnswer::AtMostLowerBound { lowest_passing: 128.0 * MIB })
        );
    }

    #[test]
    fn on_a_grid_too_coarse_for_the_mean_the_next_step_up_is_tried_until_none_is_left() {
        let range = SearchRange { dimension: BoxDimension::CpusQuota, from: 0.01, to: 0.03, precision: 0.01 };
        let (tried, answer) = search(&range, |cpus| cpus >= 0.02);
        assert_eq!(answer, BoxAnswer::Between { highest_failing: 0.01, lowest_passing: 0.02 });
        assert_eq!(tried, [0.03 / MIB, 0.01 / MIB, 0.02 / MIB], "√(0.01 × 0.03) is 0.01 on the grid: the next step up");
        let (tried, _) = search(&range, |cpus| cpus >= 0.03);
        assert_eq!(tried.len(), 3, "0.02 fails, and no quota lies between 0.02 and 0.03");
    }

    #[test]
    fn a_failure_above_a_pass_does_not_move_the_bounds() {
        let range = memory(100.0, 1000.0, 0.5);
        let trials = [(1000.0 * MIB, true), (100.0 * MIB, false), (316.0 * MIB, true), (500.0 * MIB, false)];
        assert_eq!(next(&range, &trials), Next::Try(177.0 * MIB));
    }
}
