//! What chance alone gives against the stops of a run (their union, `crate::intervals::Union`): the probability that
//! an interval of a given length, placed uniformly in the run, meets it. Times are microseconds on the run's clock.

use crate::intervals::Union;

/// What chance alone gives against one union over a run of `span` µs: an interval of length `L` starting uniformly
/// in `[0, span]` meets the union's spans (clipped to the run) when it starts in some `(start − L, end)`, so the
/// probability is the measure of the union with each span extended backwards by `L` (clipped at 0) over the span.
/// With the gaps before each span sorted, that measure is `covered + Σ min(gap, L)`: one binary search per length.
#[derive(Debug, Clone, PartialEq)]
pub struct Chance {
    span: i64,
    covered: i64,
    /// The free stretch before each span (from 0, or from the previous span's end), ascending.
    gaps: Vec<i64>,
    /// `gaps_before[i]`: the sum of `gaps[..i]`.
    gaps_before: Vec<i64>,
}

impl Chance {
    /// The baseline of `union` in a run of `span` µs.
    pub fn new(union: &Union, span: i64) -> Chance {
        let inside = union.clipped(0, span);
        let mut previous_end = 0;
        let mut gaps: Vec<i64> = inside
            .spans()
            .iter()
            .map(|&(start, end)| {
                let gap = start - previous_end;
                previous_end = end;
                gap
            })
            .collect();
        gaps.sort_unstable();
        let mut sum = 0;
        let gaps_before = gaps
            .iter()
            .map(|gap| {
                let before = sum;
                sum += gap;
                before
            })
            .collect();
        Chance { span, covered: inside.measure(), gaps, gaps_before }
    }

    /// The probability (0–1) that an interval of `length` µs placed uniformly in the run meets the union.
    pub fn of_length(&self, length: i64) -> f64 {
        if self.span <= 0 {
            return 0.0;
        }
        let shorter = self.gaps.partition_point(|&gap| gap <= length);
        let reached = self.gaps_before.get(shorter).copied().unwrap_or_else(|| self.gaps_before_all())
            + length * (self.gaps.len() - shorter) as i64;
        ((self.covered + reached) as f64 / self.span as f64).min(1.0)
    }

    fn gaps_before_all(&self) -> i64 {
        self.gaps.last().map_or(0, |last| self.gaps_before[self.gaps.len() - 1] + last)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chance_for_known_lengths() {
        // A run of 1,000 µs with 10 µs windows every 100 µs: at 90, 190, …, 990.
        let union = Union::of((0..10).map(|i| (i * 100 + 90, i * 100 + 100)));
        let chance = Chance::new(&union, 1_000);
        // An instant (length 0) meets a window 10 % of the time; a 40 µs request half the time; a 90 µs one always.
        assert_eq!(chance.of_length(0), 0.1);
        assert_eq!(chance.of_length(40), 0.5);
        assert_eq!(chance.of_length(90), 1.0);
        assert_eq!(chance.of_length(10_000), 1.0);
    }

    #[test]
    fn chance_clips_windows_to_the_run_and_extends_them_back_no_further_than_its_start() {
        // Run of 1,000 µs; windows (−50, 20) → (0, 20), (500, 520), (990, 1,200) → (990, 1,000).
        let union = Union::of([(-50, 20), (500, 520), (990, 1_200)]);
        let chance = Chance::new(&union, 1_000);
        // Covered 20 + 20 + 10 = 50; gaps 0 (before the first), 480, 470. Length 100: 50 + 0 + 100 + 100 = 250.
        assert_eq!(chance.of_length(100), 0.25);
        // Length 475: 50 + 0 + 475 + 470 = 995.
        assert_eq!(chance.of_length(475), 0.995);
    }

    #[test]
    fn no_windows_no_chance() {
        let chance = Chance::new(&Union::of([]), 1_000);
        assert_eq!(chance.of_length(500), 0.0);
        assert_eq!(Chance::new(&Union::of([(0, 10)]), 0).of_length(5), 0.0);
    }
}
