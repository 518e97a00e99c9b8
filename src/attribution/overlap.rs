//! The interval arithmetic of the attribution: a set of stop windows merged into a sorted disjoint union, what a
//! request's exposure `[began, done]` shares with it (whether it meets it, and for how long), and what chance alone
//! gives: the probability that an interval of a given length, placed uniformly in the run, meets it.
//!
//! Times are microseconds on the run's clock. An exposure meets the union when their intersection has a positive
//! length: an exposure ending exactly where a window begins does not meet it.

/// Windows merged into a sorted list of disjoint spans `[start, end)`, with the covered length before each span, so
/// that what an exposure shares with the union is two binary searches away (tails hold up to 100k requests).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Union {
    spans: Vec<(i64, i64)>,
    /// `covered_before[i]`: the total length of `spans[..i]`.
    covered_before: Vec<i64>,
}

impl Union {
    /// The union of `windows` (`(start, end)` pairs in any order; empty ones are left out; overlapping and touching
    /// ones merge).
    pub fn of(windows: impl IntoIterator<Item = (i64, i64)>) -> Union {
        let mut sorted: Vec<(i64, i64)> = windows.into_iter().filter(|(start, end)| end > start).collect();
        sorted.sort_unstable();
        let mut spans: Vec<(i64, i64)> = Vec::with_capacity(sorted.len());
        for (start, end) in sorted {
            match spans.last_mut() {
                Some(last) if start <= last.1 => last.1 = last.1.max(end),
                _ => spans.push((start, end)),
            }
        }
        let mut covered = 0;
        let covered_before = spans
            .iter()
            .map(|(start, end)| {
                let before = covered;
                covered += end - start;
                before
            })
            .collect();
        Union { spans, covered_before }
    }

    /// The same union cut to `[from, to)`.
    pub fn clipped(&self, from: i64, to: i64) -> Union {
        Union::of(self.spans.iter().map(|&(start, end)| (start.max(from), end.min(to))))
    }

    pub fn spans(&self) -> &[(i64, i64)] {
        &self.spans
    }

    /// The total length covered.
    pub fn measure(&self) -> i64 {
        self.spans.last().map_or(0, |&(start, end)| self.covered_before[self.spans.len() - 1] + end - start)
    }

    /// The length of `[from, to]` that the union covers.
    pub fn covered(&self, from: i64, to: i64) -> i64 {
        if to <= from {
            return 0;
        }
        self.covered_up_to(to) - self.covered_up_to(from)
    }

    /// Whether `[from, to]` shares a positive length with the union.
    pub fn meets(&self, from: i64, to: i64) -> bool {
        self.covered(from, to) > 0
    }

    /// The length of the union before `instant`.
    fn covered_up_to(&self, instant: i64) -> i64 {
        let starting_before = self.spans.partition_point(|&(start, _)| start < instant);
        if starting_before == 0 {
            return 0;
        }
        let (start, end) = self.spans[starting_before - 1];
        self.covered_before[starting_before - 1] + end.min(instant) - start
    }
}

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
    fn overlapping_and_touching_windows_merge_into_one_span() {
        let union = Union::of([(50, 60), (10, 20), (15, 30), (30, 35), (40, 40), (70, 80)]);
        // (10,20)+(15,30)+(30,35) merge; (40,40) is empty and left out.
        assert_eq!(union.spans(), &[(10, 35), (50, 60), (70, 80)]);
        assert_eq!(union.measure(), 25 + 10 + 10);
    }

    #[test]
    fn the_covered_length_of_an_exposure_counts_each_span_it_crosses() {
        let union = Union::of([(10, 20), (30, 40), (50, 60)]);
        assert_eq!(union.covered(0, 100), 30);
        assert_eq!(union.covered(15, 35), 5 + 5);
        assert_eq!(union.covered(12, 18), 6, "inside one span");
        assert_eq!(union.covered(20, 30), 0, "exactly the gap between two spans");
        assert_eq!(union.covered(55, 1_000), 5);
        assert_eq!(union.covered(-100, 11), 1);
    }

    #[test]
    fn an_exposure_meets_a_window_only_when_they_share_time() {
        let union = Union::of([(10, 20)]);
        assert!(union.meets(0, 11));
        assert!(union.meets(19, 30));
        assert!(union.meets(12, 13));
        assert!(!union.meets(0, 10), "ends where the window begins");
        assert!(!union.meets(20, 30), "begins where the window ends");
        assert!(!union.meets(21, 21));
    }

    #[test]
    fn clipping_cuts_spans_at_the_run_ends_and_drops_the_ones_outside() {
        let union = Union::of([(-30, -10), (-5, 5), (40, 60), (90, 120)]);
        let inside = union.clipped(0, 100);
        assert_eq!(inside.spans(), &[(0, 5), (40, 60), (90, 100)]);
        assert_eq!(inside.measure(), 5 + 20 + 10);
    }

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
