//! The summaries a result and each step of a ladder share: latency percentiles in milliseconds, errors by class.

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

use super::recorder::ErrorCounts;

/// Latency figures in milliseconds.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq)]
pub struct LatencySummary {
    pub min: f64,
    pub mean: f64,
    pub stdev: f64,
    pub p50: f64,
    pub p90: f64,
    pub p95: f64,
    pub p99: f64,
    pub p999: f64,
    pub max: f64,
}

impl LatencySummary {
    /// Summarise a histogram of microseconds.
    pub fn from_histogram(histogram: &Histogram<u64>) -> LatencySummary {
        if histogram.is_empty() {
            return LatencySummary::default();
        }
        LatencySummary {
            min: ms(histogram.min()),
            mean: histogram.mean() / 1000.0,
            stdev: histogram.stdev() / 1000.0,
            p50: ms(histogram.value_at_quantile(0.50)),
            p90: ms(histogram.value_at_quantile(0.90)),
            p95: ms(histogram.value_at_quantile(0.95)),
            p99: ms(histogram.value_at_quantile(0.99)),
            p999: ms(histogram.value_at_quantile(0.999)),
            max: ms(histogram.max()),
        }
    }
}

/// Errors by class plus their total: the classes of [`ErrorCounts`], flattened into the JSON beside `total`.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq)]
pub struct ErrorSummary {
    #[serde(flatten)]
    pub classes: ErrorCounts,
    pub total: u64,
}

impl From<&ErrorCounts> for ErrorSummary {
    fn from(classes: &ErrorCounts) -> Self {
        ErrorSummary { classes: *classes, total: classes.total() }
    }
}

impl ErrorSummary {
    /// The classes as text (see [`ErrorCounts::describe`]).
    pub fn describe(&self) -> String {
        self.classes.describe()
    }

    /// Connections that failed before carrying a request.
    pub fn connection_failures(&self) -> u64 {
        self.classes.connection_failures()
    }
}

pub fn ms(micros: u64) -> f64 {
    micros as f64 / 1000.0
}
