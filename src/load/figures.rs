//! The figures of a bench result, one definition each: the names a `--threshold` rule or a plan's `[slo]` key uses for
//! it, its unit, which way is better, how to read it from a [`BenchResult`], and the key, label and format reports show
//! it with, and which outputs show it (its views: `figure_views.rs`). Thresholds parse and judge through this list;
//! the report's metric registry takes its bench figures from it and adds the JVM's.

pub use super::figure_views::{Judged, ReportRow, TerminalRow, View};
use super::printout::format_ms;
use super::result::BenchResult;
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
    /// None when the run has no such figure (no error share without attempts).
    pub read: fn(&BenchResult) -> Option<f64>,
}

impl Figure {
    /// Whether a report shows it (its tables, report.json, the end-of-run table, compare or the grids).
    pub fn reported(&self) -> bool {
        !self.shown.is_empty()
    }
}

const fn latency(
    key: &'static str,
    label: &'static str,
    shown: &'static [View],
    names: &'static [&'static str],
    read: fn(&BenchResult) -> Option<f64>,
) -> Figure {
    Figure { key, label, format: Format::Ms, shown, names, unit: Unit::Latency, better: Better::Lower, read }
}

const CONTEXT: View = View::Compare(Judged::Context);
const JUDGED: View = View::Compare(Judged::Yes);
const LATENCY_ROW: View = View::Report(ReportRow::Latency);
const MEAN_MEDIAN_ROW: View = View::Report(ReportRow::MeanMedian);

/// Every bench figure, in the order reports list them.
pub const FIGURES: &[Figure] = &[
    Figure {
        key: "rps",
        label: "req/s",
        format: Format::Count,
        shown: &[View::Report(ReportRow::Rps), View::Terminal(TerminalRow::Rps), JUDGED, View::Grid],
        names: &["rps"],
        unit: Unit::Rate,
        better: Better::Higher,
        read: |result| Some(result.rps),
    },
    latency("min_ms", "min", &[LATENCY_ROW], &["min"], |result| Some(result.latency_ms.min)),
    latency("mean_ms", "mean", &[MEAN_MEDIAN_ROW], &["mean", "avg"], |result| Some(result.latency_ms.mean)),
    latency(
        "p50_ms",
        "median",
        &[MEAN_MEDIAN_ROW, View::Terminal(TerminalRow::P50), JUDGED],
        &["p50", "median"],
        |result| Some(result.latency_ms.p50),
    ),
    latency("p90_ms", "P90", &[LATENCY_ROW, CONTEXT], &["p90"], |result| Some(result.latency_ms.p90)),
    latency("p95_ms", "P95", &[LATENCY_ROW, CONTEXT], &["p95"], |result| Some(result.latency_ms.p95)),
    latency(
        "p99_ms",
        "P99",
        &[View::Report(ReportRow::P99), LATENCY_ROW, View::Terminal(TerminalRow::P99), JUDGED, View::Grid],
        &["p99"],
        |result| Some(result.latency_ms.p99),
    ),
    latency("p999_ms", "P99.9", &[LATENCY_ROW, JUDGED], &["p999", "p99.9"], |result| Some(result.latency_ms.p999)),
    latency("max_ms", "max", &[LATENCY_ROW, View::Terminal(TerminalRow::Max), CONTEXT], &["max"], |result| {
        Some(result.latency_ms.max)
    }),
    latency("stdev_ms", "stdev", &[View::Report(ReportRow::Stdev)], &["stdev"], |result| Some(result.latency_ms.stdev)),
    // Setting a connection up (TCP connect and TLS handshake), apart from any request: a rule on TLS handshakes.
    latency("connect_p99_ms", "connect P99", &[], &["connect_p99"], |result| {
        result.connection_setup.as_ref().filter(|setup| setup.connections > 0).map(|setup| setup.time_ms.p99)
    }),
    Figure {
        key: "errors",
        label: "errors",
        format: Format::Count,
        shown: &[View::Report(ReportRow::ErrorTimeout), View::Terminal(TerminalRow::Errors)],
        names: &["errors"],
        unit: Unit::Count,
        better: Better::Lower,
        read: |result| Some(result.errors.total as f64),
    },
    Figure {
        key: "timeouts",
        label: "timeouts",
        format: Format::Count,
        shown: &[View::Report(ReportRow::ErrorTimeout)],
        names: &[],
        unit: Unit::Count,
        better: Better::Lower,
        read: |result| Some(result.errors.classes.timeout as f64),
    },
    Figure {
        key: "error_pct",
        label: "errors %",
        format: Format::Percent,
        shown: &[JUDGED],
        names: &["errors"],
        unit: Unit::Share,
        better: Better::Lower,
        read: BenchResult::error_pct,
    },
    Figure {
        key: "requests",
        label: "requests",
        format: Format::Count,
        shown: &[],
        names: &["requests"],
        unit: Unit::Count,
        better: Better::Higher,
        read: |result| Some(result.requests as f64),
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
