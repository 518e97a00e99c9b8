//! The summaries a result and each step of a ladder share: latency percentiles in milliseconds, errors by class.

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

use super::recorder::{ErrorCounts, Tally};

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

/// Errors by class plus their total: the classes of [`ErrorCounts`], flattened into the JSON beside `total`, and why
/// the first invalid response was invalid.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct ErrorSummary {
    #[serde(flatten)]
    pub classes: ErrorCounts,
    pub total: u64,
    /// Why the first of the `invalid_response` errors was not valid HTTP ("not an HTTP/1.x status line: 0x8f …").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invalid_response_reason: Option<String>,
}

impl ErrorSummary {
    /// The errors `tally` counted.
    pub fn of(tally: &Tally) -> ErrorSummary {
        ErrorSummary {
            classes: tally.errors,
            total: tally.errors.total(),
            invalid_response_reason: tally.invalid_response_reason.clone(),
        }
    }

    /// The classes as text (see [`ErrorCounts::describe`]), the last — `invalid response` — followed by the first
    /// one's reason: "read 3, invalid response 12: not an HTTP/1.x status line: 0x8f 0x1c …".
    pub fn describe(&self) -> String {
        let classes = self.classes.describe();
        match &self.invalid_response_reason {
            Some(reason) if self.classes.invalid_response > 0 => format!("{classes}: {reason}"),
            _ => classes,
        }
    }

    /// Connections that failed before carrying a request.
    pub fn connection_failures(&self) -> u64 {
        self.classes.connection_failures()
    }
}

pub fn ms(micros: u64) -> f64 {
    micros as f64 / 1000.0
}
