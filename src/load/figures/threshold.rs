//! `--threshold` rules in k6 style (`p99<50ms`, `p999<=200ms`, `errors<0.1%`, `rps>10000`): parsing and judging, each
//! rule on a figure of the registry in `figures/mod.rs`.

use crate::error::bad_input;
use crate::load::figures::{self, Better, Figure};
use crate::load::record::result::{BenchResult, ThresholdOutcome};

#[derive(Debug, Clone, Copy, PartialEq)]
enum Comparison {
    Less,
    LessOrEqual,
    Greater,
    GreaterOrEqual,
}

/// A parsed rule: `metric comparison value`.
#[derive(Debug, Clone)]
pub struct Threshold {
    expression: String,
    figure: &'static Figure,
    comparison: Comparison,
    /// In the figure's unit: milliseconds for latencies, percent for an error share, plain numbers otherwise.
    value: f64,
}

const HELP: &str = "write it like p99<50ms, p999<=200ms, mean<10ms, max<1s, errors<0.1%, errors<=5, rps>10000, requests>=1000 or \
     connect_p99<20ms";

const SLO_HELP: &str = "an [slo] key is a threshold figure: min, mean, stdev, p50, p90, p95, p99, p999, max or \
     connect_p99 (at most a latency: p99 = \"50ms\"), errors (at most: \"0.1%\" or a count), rps or requests (at \
     least: rps = 10000)";

impl Threshold {
    pub fn parse(expression: &str) -> anyhow::Result<Threshold> {
        let compact: String = expression.chars().filter(|c| !c.is_whitespace()).collect();
        let split = compact
            .find(['<', '>'])
            .ok_or_else(|| bad_input(format!("threshold '{expression}' has no < or >; {HELP}")))?;
        let (name, rest) = compact.split_at(split);
        let (comparison, value_text) = if let Some(value) = rest.strip_prefix("<=") {
            (Comparison::LessOrEqual, value)
        } else if let Some(value) = rest.strip_prefix(">=") {
            (Comparison::GreaterOrEqual, value)
        } else if let Some(value) = rest.strip_prefix('<') {
            (Comparison::Less, value)
        } else {
            (Comparison::Greater, &rest[1..])
        };
        let unknown_value =
            || bad_input(format!("threshold '{expression}': cannot read the value '{value_text}'; {HELP}"));
        let name = name.to_ascii_lowercase();
        let figure = figures::for_rule(&name, value_text.ends_with('%'))
            .ok_or_else(|| bad_input(format!("threshold '{expression}': unknown metric '{name}'; {HELP}")))?;
        let value = figure.unit.parse_bound(value_text).ok_or_else(unknown_value)?;
        Ok(Threshold { expression: expression.trim().to_string(), figure, comparison, value })
    }

    /// Whether the rule holds; a rule on a figure the run does not have fails.
    pub fn judge(&self, result: &BenchResult) -> ThresholdOutcome {
        let actual = self.figure.read(result);
        let passed = actual.is_some_and(|actual| match self.comparison {
            Comparison::Less => actual < self.value,
            Comparison::LessOrEqual => actual <= self.value,
            Comparison::Greater => actual > self.value,
            Comparison::GreaterOrEqual => actual >= self.value,
        });
        ThresholdOutcome { expression: self.expression.clone(), actual, passed }
    }

    /// The rule a plan's `[slo]` key states, in threshold form, bounding the figure on the side it is better on:
    /// latencies and errors as upper bounds (`p95 = "50ms"` is `p95<=50ms`, `errors = "0.1%"` is `errors<=0.1%`), rps
    /// and requests as lower bounds (`rps = 1000` is `rps>=1000`). Bad input naming the keys when thresholds do not
    /// know `key`.
    pub fn slo_rule(key: &str, value: &str) -> anyhow::Result<Threshold> {
        let name = key.to_ascii_lowercase();
        let figure =
            figures::named(&name).next().ok_or_else(|| bad_input(format!("unknown key '{key}'; {SLO_HELP}")))?;
        let comparison = match figure.better {
            Better::Lower => "<=",
            Better::Higher => ">=",
        };
        Threshold::parse(&format!("{name}{comparison}{value}"))
    }

    /// Whether the rule bounds errors (as a count or a share).
    pub fn bounds_errors(&self) -> bool {
        self.figure.names.contains(&"errors")
    }

    /// The rule as written (`p99<=50ms`).
    pub fn expression(&self) -> &str {
        &self.expression
    }

    /// The unit `actual` is expressed in, for printing the outcome of the rule `expression` (none when it is no rule).
    pub fn unit(expression: &str) -> &'static str {
        Threshold::parse(expression).map_or("", |rule| rule.figure.unit.symbol())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms_from_the_issue_parse() {
        for text in [
            "p99<50ms",
            "p999<=200ms",
            "errors<0.1%",
            "rps>10000",
            "mean < 1s",
            "max<800us",
            "requests>=5",
            "errors<=3",
        ] {
            Threshold::parse(text).unwrap_or_else(|err| panic!("{text}: {err}"));
        }
    }

    #[test]
    fn bad_rules_are_bad_input() {
        for text in ["p98<5ms", "p99=5ms", "p99<fast", "errors<x%", "rps>"] {
            let err = Threshold::parse(text).unwrap_err();
            assert!(err.downcast_ref::<crate::error::BadInput>().is_some(), "{text}");
        }
    }

    #[test]
    fn units_convert_to_milliseconds() {
        assert_eq!(Threshold::parse("p99<1.5s").unwrap().value, 1500.0);
        assert_eq!(Threshold::parse("p99<250us").unwrap().value, 0.25);
        assert_eq!(Threshold::parse("p99<7").unwrap().value, 7.0);
    }

    #[test]
    fn an_error_share_rule_fails_when_nothing_was_attempted() {
        use crate::load::record::recorder::Recorder;
        use crate::load::record::result::tests::result_of;
        let rule = Threshold::parse("errors<1%").unwrap();
        let nothing = rule.judge(&result_of(&Recorder::new(1, false)));
        assert_eq!((nothing.actual, nothing.passed), (None, false));
        let mut recorder = Recorder::new(1, false);
        recorder.response(0, 100, 100, 200, true);
        let clean = rule.judge(&result_of(&recorder));
        assert_eq!((clean.actual, clean.passed), (Some(0.0), true));
    }

    #[test]
    fn slo_keys_are_threshold_figures_with_their_direction() {
        let rule = |key: &str, value: &str| Threshold::slo_rule(key, value).unwrap().expression().to_string();
        assert_eq!(rule("p95", "50ms"), "p95<=50ms");
        assert_eq!(rule("stdev", "5ms"), "stdev<=5ms");
        assert_eq!(rule("min", "0.1ms"), "min<=0.1ms");
        assert_eq!(rule("errors", "0.1%"), "errors<=0.1%");
        assert_eq!(rule("rps", "10000"), "rps>=10000");
        assert_eq!(rule("requests", "500"), "requests>=500");
        let unknown = Threshold::slo_rule("p98", "5ms").unwrap_err();
        assert!(unknown.downcast_ref::<crate::error::BadInput>().is_some());
        assert!(unknown.to_string().starts_with("unknown key 'p98'; an [slo] key is a threshold figure"), "{unknown}");
        assert!(Threshold::slo_rule("p99", "fast").is_err());
    }

    #[test]
    fn every_rule_name_judges_its_figure_and_the_slo_help_names_each_figure() {
        use crate::load::record::recorder::Recorder;
        use crate::load::record::result::tests::result_of;
        let mut recorder = Recorder::new(1, false);
        recorder.response(0, 2_000, 2_000, 200, true);
        recorder.response(0, 9_000, 9_000, 500, false);
        let result = result_of(&recorder);
        for figure in figures::FIGURES {
            for name in figure.names {
                let bound = if figure.unit == figures::Unit::Share { "1%" } else { "1" };
                let rule = Threshold::slo_rule(name, bound).unwrap_or_else(|err| panic!("{name}: {err}"));
                assert_eq!(rule.figure.key, figure.key, "{name}");
                assert_eq!(rule.judge(&result).actual, figure.read(&result), "{name}");
            }
            if let Some(name) = figure.names.first() {
                let words: Vec<&str> = SLO_HELP.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).collect();
                assert!(words.contains(name), "SLO_HELP does not name {name}");
            }
        }
    }

    #[test]
    fn an_outcome_is_printed_in_the_unit_of_its_figure() {
        assert_eq!(Threshold::unit("p99 < 5ms"), "ms");
        assert_eq!(Threshold::unit("P99.9<1s"), "ms");
        assert_eq!(Threshold::unit("errors<0.1%"), "%");
        assert_eq!(Threshold::unit("errors<=5"), "");
        assert_eq!(Threshold::unit("rps>100"), "");
        assert_eq!(Threshold::unit("requests>=5"), "");
    }
}
