//! The figures of a bench result, one definition each: the names a `--threshold` rule or a plan's `[slo]` key uses for
//! it, its unit, which way is better, how to read it from a [`BenchResult`], and the key, label and format reports show
//! it with, and which outputs show it (its views: `views.rs`). Thresholds parse and judge through this list; the
//! report's metric registry takes its bench figures from it and adds the JVM's.
//!
//! Beside the registry: the thresholds judged through it (`threshold.rs`).

pub mod threshold;
pub mod views;

pub use views::{Judged, ReportRow, ShownWhen, TerminalRow, View};

use super::format::format_ms;
use super::record::result::BenchResult;
use super::record::summary::LatencySummary;
use serde::Serialize;

/// Which way is better for a figure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Better {
    Higher,
    Lower,
}

impl Better {
    /// True when `candidate` is better than `other`.
    pub fn prefers(self, candidate: f64, other: f64) -> bool {
        match self {
            Better::Higher => candidate > other,
            Better::Lower => candidate < other,
        }
    }
}

/// What a figure counts, which says how a rule's bound on it is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Milliseconds; a bound is written `50ms`, `1.5s`, `800us` or a bare number of milliseconds.
    Latency,
    /// A percentage; a bound is written `0.1%`.
    Share,
    /// A whole number of things; a bound is a plain number.
    Count,
    /// Per second; a bound is a plain number.
    Rate,
}

impl Unit {
    /// The unit printed after a measured value.
    pub fn symbol(self) -> &'static str {
        match self {
            Unit::Latency => "ms",
            Unit::Share => "%",
            Unit::Count | Unit::Rate => "",
        }
    }

    /// A rule's bound in this unit (milliseconds for a latency, percent for a share); None when it cannot be read.
    pub fn parse_bound(self, text: &str) -> Option<f64> {
        let value = match self {
            Unit::Latency => parse_latency_ms(text)?,
            Unit::Share => text.strip_suffix('%')?.parse::<f64>().ok()?,
            Unit::Count | Unit::Rate => text.parse::<f64>().ok()?,
        };
        value.is_finite().then_some(value)
    }
}

/// Parse a latency like `50ms`, `1.5s`, `800us`; a bare number means milliseconds.
fn parse_latency_ms(text: &str) -> Option<f64> {
    let (number, scale) = if let Some(number) = text.strip_suffix("ms") {
        (number, 1.0)
    } else if let Some(number) = text.strip_suffix("us").or_else(|| text.strip_suffix("µs")) {
        (number, 0.001)
    } else if let Some(number) = text.strip_suffix('s') {
        (number, 1000.0)
    } else {
        (text, 1.0)
    };
    number.trim().parse::<f64>().ok().filter(|value| value.is_finite() && *value >= 0.0).map(|value| value * scale)
}

/// How a figure is printed in reports.
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
    /// Cores busy (CPU seconds per second), two decimals.
    Cores,
}

impl Format {
    pub fn show(self, value: f64) -> String {
        let text = match self {
            Format::Count | Format::Megabytes => format!("{value:.0}"),
            Format::Ms => format_ms(value),
            Format::Seconds => format!("{value:.3}"),
            Format::Percent => format!("{value:.2}"),
            Format::Rate => format!("{value:.1}"),
            Format::Cores => format!("{value:.2}"),
        };
        // A sum of nothing is -0.0 in floating point, and tiny negatives round to zero: never print "-0.00".
        match text.strip_prefix('-') {
            Some(magnitude) if magnitude.chars().all(|c| c == '0' || c == '.') => magnitude.to_string(),
            _ => text,
        }
    }
}

/// One figure of a bench result.
#[derive(Debug)]
pub struct Figure {
    /// Key in report.json and compare's JSON.
    pub key: &'static str,
    /// Row label in reports.
    pub label: &'static str,
    pub format: Format,
    /// The outputs that show it; none for a figure only rules judge (`requests`, `connect_p99`).
    pub shown: &'static [View],
    /// The names a threshold rule or `[slo]` key may call it by, lower case; none when rules cannot name it.
    pub names: &'static [&'static str],
    pub unit: Unit,
    pub better: Better,
    /// Where its value comes from.
    pub source: Source,
}

/// Where a figure's value comes from.
#[derive(Debug)]
pub enum Source {
    /// A figure of the run's latency summary, which the printouts read from every summary they show (each step's,
    /// corrected and uncorrected) under its column header.
    Latency(Percentile),
    /// Anything else of the result; None when the run has no such figure (no error share without attempts).
    Result(fn(&BenchResult) -> Option<f64>),
}

/// A figure of a latency summary: its column header in the printouts and how to read it.
#[derive(Debug)]
pub struct Percentile {
    pub header: &'static str,
    pub of: fn(&LatencySummary) -> f64,
}

impl Figure {
    /// Its value in a result; None when the run has no such figure.
    pub fn read(&self, result: &BenchResult) -> Option<f64> {
        match &self.source {
            Source::Latency(percentile) => Some((percentile.of)(&result.latency_ms)),
            Source::Result(read) => read(result),
        }
    }

    /// Whether a report shows it (its tables, report.json, the end-of-run table, compare or the grids).
    pub fn reported(&self) -> bool {
        self.shown.iter().any(|view| view.is_report())
    }
}

/// The latency columns `view` shows (the bench printout's latency line, the ladder printout's steps, the per-request
/// and per-host tables), in the registry's order.
pub fn percentiles(view: View) -> impl Iterator<Item = &'static Percentile> {
    latency_figures(view).map(|(_, percentile)| percentile)
}

/// The latency figures `view` shows with their percentile, in the registry's order.
pub fn latency_figures(view: View) -> impl Iterator<Item = (&'static Figure, &'static Percentile)> {
    FIGURES.iter().filter(move |figure| figure.shown.contains(&view)).filter_map(|figure| match &figure.source {
        Source::Latency(percentile) => Some((figure, percentile)),
        Source::Result(_) => None,
    })
}

/// A figure of the latency summary, its column `header` in the printouts.
const fn latency(
    key: &'static str,
    label: &'static str,
    header: &'static str,
    shown: &'static [View],
    names: &'static [&'static str],
    of: fn(&LatencySummary) -> f64,
) -> Figure {
    let source = Source::Latency(Percentile { header, of });
    Figure { key, label, format: Format::Ms, shown, names, unit: Unit::Latency, better: Better::Lower, source }
}

const CONTEXT: View = View::Compare(Judged::Context);
const JUDGED: View = View::Compare(Judged::Yes);
const LATENCY_ROW: View = View::Report(ReportRow::Latency);
const MEAN_MEDIAN_ROW: View = View::Report(ReportRow::MeanMedian);
const PRINTOUT: View = View::Printout;
const STEPS: View = View::Steps;
const PER_REQUEST: View = View::PerRequest;

/// Every bench figure, in the order reports and printouts list them.
pub const FIGURES: &[Figure] = &[
    Figure {
        key: "rps",
        label: "req/s",
        format: Format::Count,
        shown: &[View::Report(ReportRow::Rps), View::Terminal(TerminalRow::Rps), JUDGED, View::Grid, View::Connections],
        names: &["rps"],
        unit: Unit::Rate,
        better: Better::Higher,
        source: Source::Result(|result| Some(result.rps)),
    },
    latency("min_ms", "min", "min", &[LATENCY_ROW, PRINTOUT], &["min"], |latency| latency.min),
    latency("mean_ms", "mean", "mean", &[MEAN_MEDIAN_ROW, PRINTOUT], &["mean", "avg"], |latency| latency.mean),
    latency("stdev_ms", "stdev", "stdev", &[View::Report(ReportRow::Stdev), PRINTOUT], &["stdev"], |latency| {
        latency.stdev
    }),
    latency(
        "p50_ms",
        "median",
        "p50",
        &[MEAN_MEDIAN_ROW, View::Terminal(TerminalRow::P50), JUDGED, PRINTOUT, STEPS, PER_REQUEST],
        &["p50", "median"],
        |latency| latency.p50,
    ),
    latency("p90_ms", "P90", "p90", &[LATENCY_ROW, CONTEXT, PRINTOUT, STEPS], &["p90"], |latency| latency.p90),
    latency("p95_ms", "P95", "p95", &[LATENCY_ROW, CONTEXT, PRINTOUT], &["p95"], |latency| latency.p95),
    latency(
        "p99_ms",
        "P99",
        "p99",
        &[
            View::Report(ReportRow::P99),
            LATENCY_ROW,
            View::Terminal(TerminalRow::P99),
            JUDGED,
            View::Grid,
            View::Connections,
            PRINTOUT,
            STEPS,
            PER_REQUEST,
        ],
        &["p99"],
        |latency| latency.p99,
    ),
    latency("p999_ms", "P99.9", "p99.9", &[LATENCY_ROW, JUDGED, PRINTOUT, STEPS], &["p999", "p99.9"], |latency| {
        latency.p999
    }),
    latency(
        "max_ms",
        "max",
        "max",
        &[LATENCY_ROW, View::Terminal(TerminalRow::Max), CONTEXT, PRINTOUT, STEPS, PER_REQUEST],
        &["max"],
        |latency| latency.max,
    ),
    // Setting a connection up (TCP connect and TLS handshake), apart from any request: a rule on TLS handshakes.
    Figure {
        key: "connect_p99_ms",
        label: "connect P99",
        format: Format::Ms,
        shown: &[],
        names: &["connect_p99"],
        unit: Unit::Latency,
        better: Better::Lower,
        source: Source::Result(|result| {
            result.connection_setup.as_ref().filter(|setup| setup.connections > 0).map(|setup| setup.time_ms.p99)
        }),
    },
    Figure {
        key: "errors",
        label: "errors",
        format: Format::Count,
        shown: &[View::Report(ReportRow::ErrorTimeout), View::Terminal(TerminalRow::Errors), View::Connections],
        names: &["errors"],
        unit: Unit::Count,
        better: Better::Lower,
        source: Source::Result(|result| Some(result.errors.total as f64)),
    },
    Figure {
        key: "timeouts",
        label: "timeouts",
        format: Format::Count,
        shown: &[View::Report(ReportRow::ErrorTimeout)],
        names: &[],
        unit: Unit::Count,
        better: Better::Lower,
        source: Source::Result(|result| Some(result.errors.classes.timeout as f64)),
    },
    Figure {
        key: "error_pct",
        label: "errors %",
        format: Format::Percent,
        shown: &[JUDGED],
        names: &["errors"],
        unit: Unit::Share,
        better: Better::Lower,
        source: Source::Result(BenchResult::error_pct),
    },
    Figure {
        key: "requests",
        label: "requests",
        format: Format::Count,
        shown: &[],
        names: &["requests"],
        unit: Unit::Count,
        better: Better::Higher,
        source: Source::Result(|result| Some(result.requests as f64)),
    },
];

/// The figures a rule's name may mean (`errors` is a count and a share).
pub fn named(name: &str) -> impl Iterator<Item = &'static Figure> + '_ {
    FIGURES.iter().filter(move |figure| figure.names.contains(&name))
}

/// The figure a rule means: its name, and a bound written as a percentage (`errors<1%`) picks the share when the name
/// has one. None when no figure has the name.
pub fn for_rule(name: &str, bound_is_percent: bool) -> Option<&'static Figure> {
    named(name).find(|figure| (figure.unit == Unit::Share) == bound_is_percent).or_else(|| named(name).next())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_name_and_bound_form_means_one_figure() {
        for figure in FIGURES {
            for name in figure.names {
                let percent = figure.unit == Unit::Share;
                assert_eq!(for_rule(name, percent).map(|found| found.key), Some(figure.key), "{name}");
                let same_form = named(name).filter(|other| (other.unit == Unit::Share) == percent).count();
                assert_eq!(same_form, 1, "{name} names {same_form} figures of one bound form");
            }
        }
        assert_eq!(for_rule("errors", false).map(|figure| figure.key), Some("errors"));
        assert_eq!(for_rule("errors", true).map(|figure| figure.key), Some("error_pct"));
        assert_eq!(for_rule("p99", true).map(|figure| figure.key), Some("p99_ms"));
        assert!(for_rule("p98", false).is_none());
        assert!(for_rule("timeouts", false).is_none());
    }

    #[test]
    fn a_figure_in_a_printout_is_a_latency_the_printout_can_read_from_each_summary() {
        for figure in FIGURES {
            let printed = figure.shown.iter().any(|view| !view.is_report());
            let latency = matches!(figure.source, Source::Latency(_));
            assert!(!printed || latency, "{} is shown in a printout but read from the whole result", figure.key);
        }
        let headers = |view| percentiles(view).map(|percentile| percentile.header).collect::<Vec<_>>();
        assert_eq!(headers(View::Printout), ["min", "mean", "stdev", "p50", "p90", "p95", "p99", "p99.9", "max"]);
        assert_eq!(headers(View::Steps), ["p50", "p90", "p99", "p99.9", "max"]);
        assert_eq!(headers(View::PerRequest), ["p50", "p99", "max"]);
    }

    #[test]
    fn keys_are_unique_and_names_lower_case() {
        let mut keys: Vec<&str> = FIGURES.iter().map(|figure| figure.key).collect();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), FIGURES.len());
        for name in FIGURES.iter().flat_map(|figure| figure.names) {
            assert_eq!(*name, name.to_ascii_lowercase());
        }
    }

    #[test]
    fn bounds_are_read_in_the_figures_unit() {
        assert_eq!(Unit::Latency.parse_bound("1.5s"), Some(1500.0));
        assert_eq!(Unit::Latency.parse_bound("250us"), Some(0.25));
        assert_eq!(Unit::Latency.parse_bound("7"), Some(7.0));
        assert_eq!(Unit::Latency.parse_bound("-1ms"), None);
        assert_eq!(Unit::Share.parse_bound("0.1%"), Some(0.1));
        assert_eq!(Unit::Share.parse_bound("0.1"), None);
        assert_eq!(Unit::Share.parse_bound("inf%"), None);
        assert_eq!(Unit::Count.parse_bound("5"), Some(5.0));
        assert_eq!(Unit::Rate.parse_bound("5%"), None);
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
