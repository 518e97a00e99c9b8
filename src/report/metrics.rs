//! The figures a report shows, one definition each: how to read it from one repeat's phase record, its unit and
//! format, and which way is better. Tables, statistics, compare and report.json all go through this list.

use crate::load::printout::format_ms;
use crate::results::PhaseRecord;

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
        let text = match self {
            Format::Count | Format::Megabytes => format!("{value:.0}"),
            Format::Ms => format_ms(value),
            Format::Seconds => format!("{value:.3}"),
            Format::Percent => format!("{value:.2}"),
            Format::Rate => format!("{value:.1}"),
        };
        // A sum of nothing is -0.0 in floating point, and tiny negatives round to zero: never print "-0.00".
        match text.strip_prefix('-') {
            Some(magnitude) if magnitude.chars().all(|c| c == '0' || c == '.') => magnitude.to_string(),
            _ => text,
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

const HIGHER: Option<Better> = Some(Better::Higher);
const LOWER: Option<Better> = Some(Better::Lower);

impl Metric {
    const fn new(
        key: &'static str,
        label: &'static str,
        format: Format,
        better: Option<Better>,
        read: fn(&RepFigures) -> Option<f64>,
    ) -> Metric {
        Metric { key, label, format, better, read }
    }
}

pub const METRICS: &[Metric] = &[
    Metric::new("rps", "req/s", Format::Count, HIGHER, |f| Some(f.record.bench.rps)),
    Metric::new("min_ms", "min", Format::Ms, LOWER, |f| Some(f.record.bench.latency_ms.min)),
    Metric::new("mean_ms", "mean", Format::Ms, LOWER, |f| Some(f.record.bench.latency_ms.mean)),
    Metric::new("p50_ms", "median", Format::Ms, LOWER, |f| Some(f.record.bench.latency_ms.p50)),
    Metric::new("p90_ms", "P90", Format::Ms, LOWER, |f| Some(f.record.bench.latency_ms.p90)),
    Metric::new("p99_ms", "P99", Format::Ms, LOWER, |f| Some(f.record.bench.latency_ms.p99)),
    Metric::new("p999_ms", "P99.9", Format::Ms, LOWER, |f| Some(f.record.bench.latency_ms.p999)),
    Metric::new("max_ms", "max", Format::Ms, LOWER, |f| Some(f.record.bench.latency_ms.max)),
    Metric::new("stdev_ms", "stdev", Format::Ms, LOWER, |f| Some(f.record.bench.latency_ms.stdev)),
    Metric::new("errors", "errors", Format::Count, LOWER, |f| Some(f.record.bench.errors.total as f64)),
    Metric::new("timeouts", "timeouts", Format::Count, LOWER, |f| Some(f.record.bench.errors.timeout as f64)),
    Metric::new("error_pct", "errors %", Format::Percent, LOWER, |f| f.record.bench.error_pct()),
    Metric::new("ygc", "YGC", Format::Count, None, |f| jvm(f, |j| j.collections.ygc.map(|v| v as f64))),
    Metric::new("ygct_s", "YGCT", Format::Seconds, None, |f| jvm(f, |j| j.collections.ygct_s)),
    Metric::new("fgc", "FGC", Format::Count, None, |f| jvm(f, |j| j.collections.fgc.map(|v| v as f64))),
    Metric::new("fgct_s", "FGCT", Format::Seconds, None, |f| jvm(f, |j| j.collections.fgct_s)),
    Metric::new("cgc", "CGC", Format::Count, None, |f| jvm(f, |j| j.collections.cgc.map(|v| v as f64))),
    Metric::new("cgct_s", "CGCT", Format::Seconds, None, |f| jvm(f, |j| j.collections.cgct_s)),
    Metric::new("gc_pct", "GC time %", Format::Percent, LOWER, |f| jvm(f, |j| j.gc_time_pct)),
    // jstat's GCT counts ZGC's and Shenandoah's concurrent cycles too; this is the stop-the-world share.
    Metric::new("pause_pct", "GC pause %", Format::Percent, LOWER, |f| jvm(f, |j| j.paused_pct())),
    Metric::new("longest_pause_ms", "longest GC pause", Format::Ms, LOWER, |f| {
        jvm(f, |j| j.pauses.as_ref().map(|pauses| pauses.max_ms))
    }),
    // Threads waiting for the collector outside pauses (ZGC allocation stalls, Shenandoah allocation failures).
    Metric::new("stall_pct", "GC stall %", Format::Percent, LOWER, |f| jvm(f, |j| j.stalled_pct())),
    Metric::new("longest_stall_ms", "longest GC stall", Format::Ms, LOWER, |f| {
        jvm(f, |j| j.pauses.as_ref().map(|pauses| pauses.stall_max_ms))
    }),
    // The grids' GC figure: what requests waited for the collector, pauses and stalls together.
    Metric::new("gc_wait_pct", "GC pause+stall %", Format::Percent, LOWER, |f| jvm(f, |j| j.gc_wait_pct())),
    Metric::new("safepoint_pct", "safepoint %", Format::Percent, LOWER, |f| jvm(f, |j| j.safepoint_pct())),
    Metric::new("alloc_mb_s", "allocation rate", Format::Rate, None, |f| f.alloc_mb_s),
    Metric::new("rss_peak_mb", "RSS peak", Format::Megabytes, LOWER, |f| jvm(f, |j| Some(j.rss_mb.max))),
];

/// The metric with this key (a programming error when there is none).
pub fn metric(key: &str) -> &'static Metric {
    METRICS.iter().find(|metric| metric.key == key).unwrap_or_else(|| panic!("no metric '{key}'"))
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
        assert_eq!(Format::Percent.show(-0.0), "0.00");
        assert_eq!(Format::Percent.show(-0.001), "0.00");
        assert_eq!(Format::Ms.show(-0.0), "0.000");
        assert_eq!(Format::Percent.show(-0.5), "-0.50");
    }
}
