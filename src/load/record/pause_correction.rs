//! Closed-model coordinated-omission correction: each connection's expected interval between requests is the moving
//! mean of its own recent service times; a response slower than that stands for the requests the connection would
//! have sent while it waited (HdrHistogram's `recordValueWithExpectedInterval`, as wrk corrects after the fact).

use hdrhistogram::Histogram;

/// Weight of the newest service time in the moving mean: about the last 16 responses count.
const NEWEST_WEIGHT: f64 = 1.0 / 16.0;

/// The moving mean of one connection's recent service times, in microseconds; none before its first response.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RecentServiceTime {
    mean_us: Option<f64>,
}

impl RecentServiceTime {
    /// The interval at which this connection sent requests lately: its mean service time (0 before any response).
    pub fn expected_interval_us(&self) -> u64 {
        self.mean_us.map_or(0, |mean| mean.round() as u64)
    }

    /// Take a response's service time into the mean (after it was recorded against the mean before it).
    pub fn observe(&mut self, service_us: u64) {
        let service = service_us as f64;
        self.mean_us = Some(match self.mean_us {
            None => service,
            Some(mean) => mean + (service - mean) * NEWEST_WEIGHT,
        });
    }
}

/// Record `latency_us` and, when it exceeds `expected_interval_us` (0: unknown, no correction), the requests the
/// connection would have sent meanwhile: latency − k·interval for k = 1, 2, … down to the interval. A latency beyond
/// the histogram's highest trackable value is recorded as that value.
pub fn record_corrected(histogram: &mut Histogram<u64>, latency_us: u64, expected_interval_us: u64) {
    let value = latency_us.clamp(1, histogram.high());
    histogram.record_correct(value, expected_interval_us).expect("values are clamped to the histogram bounds");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn new_histogram() -> Histogram<u64> {
        Histogram::new_with_bounds(1, 60_000_000, 3).unwrap()
    }

    #[test]
    fn a_latency_beyond_the_histograms_range_is_recorded_as_its_highest_value() {
        let mut histogram = new_histogram();
        record_corrected(&mut histogram, 90_000_000, 0);
        assert_eq!(histogram.len(), 1);
        assert!(histogram.equivalent(histogram.max(), 60_000_000));
    }

    #[test]
    fn a_response_slower_than_the_interval_adds_the_requests_that_would_have_waited() {
        let mut histogram = new_histogram();
        record_corrected(&mut histogram, 1000, 200);
        // 1000 itself, then 800, 600, 400, 200.
        assert_eq!(histogram.len(), 5);
        assert_eq!(histogram.count_at(800), 1);
        assert_eq!(histogram.count_at(200), 1);
        assert_eq!(histogram.min(), 200);
    }

    #[test]
    fn a_response_within_the_interval_or_without_one_is_recorded_once() {
        let mut histogram = new_histogram();
        record_corrected(&mut histogram, 300, 400);
        record_corrected(&mut histogram, 5000, 0);
        assert_eq!(histogram.len(), 2);
    }

    #[test]
    fn the_expected_interval_is_the_moving_mean_of_earlier_responses() {
        let mut recent = RecentServiceTime::default();
        assert_eq!(recent.expected_interval_us(), 0);
        recent.observe(100);
        assert_eq!(recent.expected_interval_us(), 100);
        recent.observe(1700);
        // 100 + (1700 − 100) / 16
        assert_eq!(recent.expected_interval_us(), 200);
    }
}
