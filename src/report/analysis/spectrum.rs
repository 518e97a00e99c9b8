//! The latency percentile spectrum of a cell's phase, as HdrHistogram plots it: latency against percentile on a
//! "nines" axis (90 %, 99 %, 99.9 % … equally spaced). From the phase's interval logs added up over its repeats
//! (every request), or, when a repeat has no readable log, from the percentiles stored in its JSON (medians).

use hdrhistogram::Histogram;
use serde::Serialize;

use super::metrics::RepFigures;
use super::stats::median;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// Every request, from the `.hlog` files.
    Hlog,
    /// min, p50, p90, p95, p99, p99.9 and max from the phase JSONs.
    Percentiles,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Spectrum {
    pub source: Source,
    /// Requests behind it.
    pub count: u64,
    /// (quantile 0…1, latency ms), quantile ascending, below 1 (the maximum sits at 1 − 1/count).
    pub points: Vec<[f64; 2]>,
}

/// The highest quantile a sample of `count` can show: 1 − 1/count.
fn top_quantile(count: u64) -> f64 {
    1.0 - 1.0 / count.max(2) as f64
}

/// From a histogram of microseconds (HdrHistogram's own percentile iteration, 5 steps per halving).
pub fn from_histogram(histogram: &Histogram<u64>) -> Option<Spectrum> {
    if histogram.is_empty() {
        return None;
    }
    let top = top_quantile(histogram.len());
    let mut points: Vec<[f64; 2]> = Vec::new();
    for step in histogram.iter_quantiles(5) {
        let quantile = step.quantile_iterated_to().min(top);
        let ms = step.value_iterated_to() as f64 / 1000.0;
        match points.last_mut() {
            Some(last) if last[0] >= quantile => last[1] = last[1].max(ms),
            _ => points.push([quantile, ms]),
        }
    }
    Some(Spectrum { source: Source::Hlog, count: histogram.len(), points })
}

/// The quantiles a phase JSON stores between its minimum and maximum.
const STORED_QUANTILES: [f64; 5] = [0.5, 0.9, 0.95, 0.99, 0.999];

/// From the stored percentiles: the median over repeats of each.
pub fn from_percentiles(reps: &[RepFigures]) -> Option<Spectrum> {
    let count = median(reps.iter().map(|figures| figures.record.bench.requests as f64).collect())? as u64;
    let stored = |figures: &RepFigures| {
        let latency = &figures.record.bench.latency_ms;
        [latency.min, latency.p50, latency.p90, latency.p95, latency.p99, latency.p999, latency.max]
    };
    let medians: Vec<f64> = (0..7)
        .map(|index| median(reps.iter().map(|figures| stored(figures)[index]).collect()).unwrap_or(0.0))
        .collect();
    let top = top_quantile(count);
    let mut points = vec![[0.0, medians[0]]];
    points.extend(
        STORED_QUANTILES.iter().zip(&medians[1..6]).filter(|(quantile, _)| **quantile < top).map(|(q, ms)| [*q, *ms]),
    );
    points.push([top, medians[6]]);
    (count > 0).then_some(Spectrum { source: Source::Percentiles, count, points })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spectrum_of_a_known_histogram() {
        // 1..=1000 ms: the p-quantile is p × 1000 ms (HdrHistogram rounds within 0.1 %).
        let mut histogram: Histogram<u64> = Histogram::new(3).unwrap();
        for ms in 1..=1000u64 {
            histogram.record(ms * 1000).unwrap();
        }
        let spectrum = from_histogram(&histogram).unwrap();
        assert_eq!(spectrum.count, 1000);
        assert!(
            spectrum.points.windows(2).all(|pair| pair[0][0] < pair[1][0] && pair[0][1] <= pair[1][1]),
            "ascending"
        );
        let last = spectrum.points.last().unwrap();
        assert!((last[0] - 0.999).abs() < 1e-12, "the maximum sits at 1 − 1/count: {last:?}");
        assert!((last[1] - 1000.0).abs() <= 1.0);
        let near_p90 = spectrum.points.iter().find(|point| point[0] >= 0.9).unwrap();
        assert!((near_p90[1] - near_p90[0] * 1000.0).abs() <= 2.0, "{near_p90:?}");
        assert!(from_histogram(&Histogram::<u64>::new(3).unwrap()).is_none());
    }
}
