//! Intervals on one clock merged into a sorted disjoint union, and what an interval `[from, to]` shares with it
//! (whether it meets it, and for how long): the attribution's stop windows against each request's exposure, and a JVM
//! window's share of time covered by its pauses and stalls. An interval meets the union when their intersection has
//! a positive length: one ending exactly where a span begins does not meet it. Times are whole units (microseconds).

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
}
