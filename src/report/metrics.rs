//! The figures a report shows, one definition each: how to read it from one repeat's phase record, its unit and
//! format, and which way is better. Tables, statistics, compare and report.json all go through this list.

use crate::load::summary::format_ms;
use crate::run::store::PhaseRecord;

use super::stats::Better;

/// What one repeat of a phase measured, with the figures that come from beside its JSON.
#[derive(Debug, Clone, Copy)]
pub struct RepFigures<'a> {
    pub rep: u32,
    pub record: &'a PhaseRecord,
    /// From the repeat's GC log, over the phase's window.
    pub alloc_mb_s: Option<f64>,
}

/// How a figure is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Whole number.
    Count,
    /// Milliseconds, three significant decimals at most.
    Ms,
    /// Seconds with three decimals (GC times, like jstat).
    Seconds,
    /// Two decimals.
    Percent,
    /// Whole megabytes.
    Megabytes,
    /// One decimal.
    Rate,
}

impl Format {
    pub fn show(self, value: f64) -> String {
        match self {
            Format::Count | Format::Megabytes => format!("{value:.0}"),
            Format::Ms => format_ms(value),
            Format::Seconds => format!("{value:.3}"),
            Format::Percent => format!("{value:.2}"),
            Format::Rate => format!("{value:.1}"),
        }
    }
}

/// One figure.
pub struct Metric {
    /// Key in report.json and compare's JSON.
    pub key: &'static str,
    /// Row label.
    pub label: &'static str,
    pub format: Format,
    /// None for figures that are neither good nor bad in themselves (collection counts, allocation rate).
    pub better: Option<Better>,
    pub read: fn(&RepFigures) -> Option<f64>,
}

fn jvm<T>(figures: &RepFigures, pick: impl Fn(&crate::jvm::window::JvmWindow) -> Option<T>) -> Option<T> {
    figures.record.jvm.as_ref().and_then(pick)
}

/// Errors as a share of the attempts (requests sent plus connections refused).
fn error_pct(record: &PhaseRecord) -> f64 {
    let attempts = record.bench.requests + record.bench.errors.connect;
    if attempts == 0 {
        0.0
    } else {
        record.bench.errors.total as f64 * 100.0 / attempts as f64
    }
}

const LOWER: Option<Better> = Some(Better::Lower);

pub const METRICS: &[Metric] = &[
    Metric {
        key: "rps",
        label: "req/s",
        format: Format::Count,
        better: Some(Better::Higher),
        read: |f| Some(f.record.bench.rps),
    },
    Metric {
        key: "min_ms",
        label: "min",
        format: Format::Ms,
        better: LOWER,
        read: |f| Some(f.record.bench.latency_ms.min),
    },
    Metric {
        key: "mean_ms",
        label: "mean",
        format: Format::Ms,
        better: LOWER,
        read: |f| Some(f.record.bench.latency_ms.mean),
    },
    Metric {
        key: "p50_ms",
        label: "median",
        format: Format::Ms,
        better: LOWER,
        read: |f| Some(f.record.bench.latency_ms.p50),
    },
    Metric {
        key: "p90_ms",
        label: "P90",
        format: Format::Ms,
        better: LOWER,
        read: |f| Some(f.record.bench.latency_ms.p90),
    },
    Metric {
        key: "p99_ms",
        label: "P99",
        format: Format::Ms,
        better: LOWER,
        read: |f| Some(f.record.bench.latency_ms.p99),
    },
    Metric {
        key: "p999_ms",
        label: "P99.9",
        format: Format::Ms,
        better: LOWER,
        read: |f| Some(f.record.bench.latency_ms.p999),
    },
    Metric {
        key: "max_ms",
        label: "max",
        format: Format::Ms,
        better: LOWER,
        read: |f| Some(f.record.bench.latency_ms.max),
    },
    Metric {
        key: "stdev_ms",
        label: "stdev",
        format: Format::Ms,
        better: LOWER,
        read: |f| Some(f.record.bench.latency_ms.stdev),
    },
    Metric {
        key: "errors",
        label: "errors",
        format: Format::Count,
        better: LOWER,
        read: |f| Some(f.record.bench.errors.total as f64),
    },
    Metric {
        key: "timeouts",
        label: "timeouts",
        format: Format::Count,
        better: LOWER,
        read: |f| Some(f.record.bench.errors.timeout as f64),
    },
    Metric {
        key: "error_pct",
        label: "errors %",
        format: Format::Percent,
        better: LOWER,
        read: |f| Some(error_pct(f.record)),
    },
    Metric {
        key: "ygc",
        label: "YGC",
        format: Format::Count,
        better: None,
        read: |f| jvm(f, |j| j.ygc.map(|v| v as f64)),
    },
    Metric {
        key: "ygct_s",
        label: "YGCT",
        format: Format::Seconds,
        better: None,
        read: |f| jvm(f, |j| j.ygct_s),
    },
    Metric {
        key: "fgc",
        label: "FGC",
        format: Format::Count,
        better: None,
        read: |f| jvm(f, |j| j.fgc.map(|v| v as f64)),
    },
    Metric {
        key: "fgct_s",
        label: "FGCT",
        format: Format::Seconds,
        better: None,
        read: |f| jvm(f, |j| j.fgct_s),
    },
    Metric {
        key: "cgc",
        label: "CGC",
        format: Format::Count,
        better: None,
        read: |f| jvm(f, |j| j.cgc.map(|v| v as f64)),
    },
    Metric {
        key: "cgct_s",
        label: "CGCT",
        format: Format::Seconds,
        better: None,
        read: |f| jvm(f, |j| j.cgct_s),
    },
    Metric {
        key: "gc_pct",
        label: "GC time %",
        format: Format::Percent,
        better: LOWER,
        read: |f| jvm(f, |j| j.gc_time_pct),
    },
    Metric {
        key: "longest_pause_ms",
        label: "longest GC pause",
        format: Format::Ms,
        better: LOWER,
        read: |f| jvm(f, |j| j.pauses.as_ref().map(|pauses| pauses.max_ms)),
    },
    Metric {
        key: "alloc_mb_s",
        label: "allocation rate",
        format: Format::Rate,
        better: None,
        read: |f| f.alloc_mb_s,
    },
    Metric {
        key: "rss_peak_mb",
        label: "RSS peak",
        format: Format::Megabytes,
        better: LOWER,
        read: |f| jvm(f, |j| Some(j.rss_mb.max)),
    },
];

/// The metric with this key (a programming error when there is none).
pub fn metric(key: &str) -> &'static Metric {
    METRICS
        .iter()
        .find(|metric| metric.key == key)
        .unwrap_or_else(|| panic!("no metric '{key}'"))
}

/// The headline figures: the best cell and its equals are marked, the recommendation is built on them.
pub const HEADLINE: [&str; 2] = ["rps", "p99_ms"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_unique_and_headlines_exist() {
        let mut keys: Vec<&str> = METRICS.iter().map(|metric| metric.key).collect();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), METRICS.len());
        for key in HEADLINE {
            assert!(metric(key).better.is_some());
        }
    }

    #[test]
    fn formats() {
        assert_eq!(Format::Count.show(36767.75), "36768");
        assert_eq!(Format::Ms.show(11.887), "11.89");
        assert_eq!(Format::Seconds.show(0.46686996), "0.467");
        assert_eq!(Format::Percent.show(8.016116953132208), "8.02");
        assert_eq!(Format::Rate.show(812.34), "812.3");
    }
}
