//! The tails of a run's latencies among its kept slow requests (`load::record::slow`), and their percentiles as
//! measured and recomputed with the GC's time taken out.
//!
//! The rank rule is HdrHistogram's, so that the p99 here is the request `LatencySummary::p99` reports: among N
//! requests in ascending order, the q-quantile is the request at rank `max(1, ⌈q × N⌉)`. The q tail is the requests
//! ranked above it: the `N − rank` slowest (exactly 1,000 of 100,000 for p99; none for p99 of fewer than 101 requests).
//! Ties with the percentile's latency are cut by rank too (slowest first, then the earlier). The run's slow requests
//! hold every latency its histogram holds (answers, timeouts, and the waits of requests left waiting at the end), so
//! the N and the ranks are the histogram's; and a latency is given in milliseconds as the histogram gives it, the top
//! of its bucket ([`Latency::ms`]): the p99 here is the very figure of the run's tables.
//!
//! The store keeps exactly the requests slower than its threshold; the others are only known to be at most the
//! threshold. A latency at a position the store did not keep is reported as the threshold, marked `at_most`.

use crate::load::record::slow::SlowRequest;

/// Which requests a tail holds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Which {
    /// The requests above the q-quantile (0.99 for p99).
    Above(f64),
    /// The slowest k requests.
    Slowest(usize),
}

/// A latency known exactly, or known only to be at most `us` (the requests at its position were not kept).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Latency {
    pub us: u64,
    pub at_most: bool,
}

impl Latency {
    /// In milliseconds as the engine's histogram reports a latency: the top of the bucket it falls in (3 significant
    /// digits, so up to 0.1 % above the request's own microseconds), which is what `LatencySummary` gives.
    pub fn ms(self) -> f64 {
        bucket_top_us(self.us) as f64 / 1000.0
    }
}

/// The highest latency (µs) the engine's histogram does not tell apart from `us`: what it reports for `us`.
pub fn bucket_top_us(us: u64) -> u64 {
    static SCALE: std::sync::LazyLock<hdrhistogram::Histogram<u64>> =
        std::sync::LazyLock::new(crate::load::record::recorder::new_histogram);
    SCALE.highest_equivalent(us.clamp(1, crate::load::record::recorder::MAX_LATENCY_US))
}

/// One tail: how many requests it holds, the slowest of them the store kept, and its percentile.
#[derive(Debug, Clone, PartialEq)]
pub struct Tail<'a> {
    pub requests: u64,
    /// The tail's kept requests, slowest first.
    pub kept: &'a [SlowRequest],
    /// The latency the tail is above: the percentile (for the slowest k, the fastest of them).
    pub above: Latency,
    /// The percentile (for the slowest k, the slowest request).
    pub percentile: Latency,
    /// The percentile's position counted from the slowest (1 = the slowest request).
    pub position: u64,
}

/// HdrHistogram's rank (1-based, ascending) of the q-quantile among `n` requests.
pub fn rank(quantile: f64, n: u64) -> u64 {
    ((quantile * n as f64).ceil() as u64).clamp(1, n.max(1))
}

/// The tail `which` of a run of `n` requests whose kept ones (`slowest_first`, every request above `threshold_us`)
/// are sorted slowest first.
pub fn tail(which: Which, slowest_first: &[SlowRequest], n: u64, threshold_us: u64) -> Tail<'_> {
    let (requests, position, above_position) = match which {
        Which::Above(quantile) => {
            let requests = n.saturating_sub(rank(quantile, n));
            (requests, requests + 1, requests + 1)
        }
        Which::Slowest(count) => {
            let requests = n.min(count as u64);
            (requests, 1, requests.max(1))
        }
    };
    let at = |position: u64| match slowest_first.get(position as usize - 1) {
        Some(request) => Latency { us: u64::from(request.latency_us), at_most: false },
        None => Latency { us: threshold_us, at_most: true },
    };
    let examined = (requests as usize).min(slowest_first.len());
    Tail { requests, kept: &slowest_first[..examined], above: at(above_position), percentile: at(position), position }
}

/// The latency of every kept request with its time inside GC windows (`in_gc_us`, at most its latency) taken out,
/// slowest first.
pub fn without(slowest_first: &[SlowRequest], in_gc_us: impl Fn(&SlowRequest) -> u64) -> Vec<u64> {
    let mut reduced: Vec<u64> =
        slowest_first.iter().map(|request| u64::from(request.latency_us).saturating_sub(in_gc_us(request))).collect();
    reduced.sort_unstable_by(|a, b| b.cmp(a));
    reduced
}

/// The latency at `position` (from the slowest) once every request's GC time is taken out: `reduced` from
/// [`without`], the run's `n` requests of which those not kept are at most `threshold_us` and unchanged (they are
/// the fastest, and taking time out only lowers the others). The value is exact while it stays above the threshold
/// (or when every request was kept); below it, requests the store did not keep may sit between the kept ones, and it
/// is only known to be at most the threshold.
pub fn recomputed(reduced: &[u64], position: u64, n: u64, threshold_us: u64) -> Latency {
    let every_request_kept = reduced.len() as u64 >= n;
    match reduced.get(position.max(1) as usize - 1) {
        Some(&us) if us > threshold_us || every_request_kept => Latency { us, at_most: false },
        _ => Latency { us: threshold_us, at_most: true },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Requests ending at `done_us` with these latencies (µs), sorted slowest first.
    fn sorted(latencies: &[(u64, u32)]) -> Vec<SlowRequest> {
        let mut requests: Vec<SlowRequest> = latencies
            .iter()
            .map(|&(done_us, latency_us)| SlowRequest {
                done_us,
                latency_us,
                service_us: latency_us,
                request: 0,
                failed: false,
            })
            .collect();
        requests.sort_by(|a, b| b.latency_us.cmp(&a.latency_us).then(a.done_us.cmp(&b.done_us)));
        requests
    }

    #[test]
    fn the_rank_is_hdrhistograms() {
        let mut histogram = hdrhistogram::Histogram::<u64>::new(3).unwrap();
        for n in [1u64, 7, 100, 101, 250, 1_000, 12_345] {
            histogram.reset();
            for value in 1..=n {
                histogram.record(value).unwrap();
            }
            // Values up to 2,048 sit in buckets of one: the value at the quantile is its rank.
            for quantile in [0.5, 0.99, 0.999] {
                if n <= 2_048 {
                    assert_eq!(rank(quantile, n), histogram.value_at_quantile(quantile), "q {quantile} of {n}");
                }
            }
        }
        assert_eq!((rank(0.99, 100_000), rank(0.999, 100_000), rank(0.99, 0)), (99_000, 99_900, 1));
    }

    #[test]
    fn the_percentiles_are_the_requests_the_engines_histogram_reports() {
        // 2,000 latencies from 1 ms up, each 0.3 % above the previous (more than a bucket's width, so that a rank off
        // by one shows), in a scrambled order, recorded as the engine records them.
        let latencies: Vec<u32> =
            (0..2_000u32).map(|i| (1_000.0 * 1.003f64.powi(((i * 7_919) % 2_000) as i32)).round() as u32).collect();
        let mut histogram = crate::load::record::recorder::new_histogram();
        for &latency in &latencies {
            histogram.record(u64::from(latency)).unwrap();
        }
        let requests = sorted(&latencies.iter().enumerate().map(|(i, &l)| (i as u64, l)).collect::<Vec<_>>());
        for quantile in [0.99, 0.999] {
            let percentile = tail(Which::Above(quantile), &requests, 2_000, 0).percentile;
            // The histogram gives the top of the bucket the request's latency falls in.
            assert_eq!(histogram.highest_equivalent(percentile.us), histogram.value_at_quantile(quantile));
        }
    }

    #[test]
    fn the_p99_tail_is_the_requests_ranked_above_p99() {
        // 1,000 requests with latencies 1..=1,000 µs, every one kept: p99 is rank 990 (990 µs), 10 requests above it.
        let requests = sorted(&(1..=1_000).map(|l| (l * 10, l as u32)).collect::<Vec<_>>());
        let tail = tail(Which::Above(0.99), &requests, 1_000, 0);
        assert_eq!((tail.requests, tail.kept.len(), tail.position), (10, 10, 11));
        assert_eq!(tail.percentile, Latency { us: 990, at_most: false });
        assert_eq!(tail.above, tail.percentile);
        assert_eq!(tail.kept.last().unwrap().latency_us, 991);
    }

    #[test]
    fn the_slowest_tail_is_above_its_fastest_and_peaks_at_the_slowest() {
        let requests = sorted(&[(1, 50), (2, 70), (3, 60), (4, 10)]);
        let tail = tail(Which::Slowest(3), &requests, 4, 0);
        assert_eq!((tail.requests, tail.kept.len()), (3, 3));
        assert_eq!((tail.above.us, tail.percentile.us), (50, 70));
        let fewer = super::tail(Which::Slowest(100), &requests, 4, 0);
        assert_eq!((fewer.requests, fewer.above.us), (4, 10));
    }

    #[test]
    fn a_tail_the_store_did_not_keep_whole_is_examined_on_its_kept_part() {
        // 10,000 requests; the store kept the 50 above 900 µs. The p99 tail is 100 requests: 50 examined, and its
        // percentile (position 101) was not kept: at most 900 µs.
        let requests = sorted(&(0..50).map(|i| (i, 1_000 + i as u32)).collect::<Vec<_>>());
        let tail = tail(Which::Above(0.99), &requests, 10_000, 900);
        assert_eq!((tail.requests, tail.kept.len()), (100, 50));
        assert_eq!(tail.percentile, Latency { us: 900, at_most: true });
        let p999 = super::tail(Which::Above(0.999), &requests, 10_000, 900);
        assert_eq!((p999.requests, p999.percentile), (10, Latency { us: 1_039, at_most: false }));
    }

    #[test]
    fn gc_time_is_taken_out_of_each_request_and_the_percentile_recomputed() {
        // Three requests: [0, 100] meets the pause (40, 70) for 30; [50, 90] for 20; [100, 160] not at all.
        let requests = sorted(&[(100, 100), (90, 40), (160, 60)]);
        let pause = crate::intervals::Union::of([(40, 70)]);
        let reduced =
            without(&requests, |request| pause.covered(request.began_us() as i64, request.done_us as i64) as u64);
        assert_eq!(reduced, vec![70, 60, 20]);
        // Every request kept: the slowest becomes 70, the second 60, the third 20.
        assert_eq!(recomputed(&reduced, 1, 3, 0), Latency { us: 70, at_most: false });
        assert_eq!(recomputed(&reduced, 3, 3, 0), Latency { us: 20, at_most: false });
    }

    #[test]
    fn a_recomputed_percentile_below_the_stores_threshold_is_only_bounded() {
        // 1,000 requests; kept: the three above 50 µs. Taken out, they are 70, 60 and 20.
        let reduced = vec![70, 60, 20];
        assert_eq!(recomputed(&reduced, 2, 1_000, 50), Latency { us: 60, at_most: false });
        // The third from the top is now at most 50: unkept requests of up to 50 µs may be above the 20.
        assert_eq!(recomputed(&reduced, 3, 1_000, 50), Latency { us: 50, at_most: true });
        assert_eq!(recomputed(&reduced, 4, 1_000, 50), Latency { us: 50, at_most: true });
    }
}
