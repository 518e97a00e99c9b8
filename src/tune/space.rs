//! A tuning search space: named parameters — integer or real ranges (linear or log scale) and choices — some of them
//! active only under a condition on a choice ("MaxGCPauseMillis only when gc is G1"), and the one encoding of a
//! configuration into the unit cube that the model works in: a range maps to [0, 1] (its log where log-scaled), a
//! choice to one coordinate per value (one-hot), a list of ordered values (numbers, sizes) to one coordinate cut into
//! equal bins, one per value in order — so that the model learns that 72m lies between 56m and 96m —, and an inactive
//! parameter to its range's middle (or no value), so that two configurations that differ only in a parameter neither
//! uses encode alike.

use std::collections::BTreeMap;
use std::fmt;

/// What values a parameter takes.
#[derive(Debug, Clone, PartialEq)]
pub enum Domain {
    /// Whole numbers from `from` to `to`, both included.
    Int { from: i64, to: i64, log: bool },
    /// Real numbers from `from` to `to`.
    Real { from: f64, to: f64, log: bool },
    /// One of these values, unordered.
    Choice(Vec<String>),
    /// One of these values, in this order (smallest first: numbers or sizes). A configuration's value is a word, as a
    /// choice's.
    Ordered(Vec<String>),
}

/// A parameter applies only while another (a choice) has one of some values.
#[derive(Debug, Clone, PartialEq)]
pub struct Condition {
    pub parameter: String,
    pub one_of: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Parameter {
    pub name: String,
    pub domain: Domain,
    pub only_if: Option<Condition>,
}

/// One value of a parameter.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Int(i64),
    Real(f64),
    Choice(String),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(value) => write!(f, "{value}"),
            Value::Real(value) => write!(f, "{}", short_real(*value)),
            Value::Choice(value) => f.write_str(value),
        }
    }
}

/// A real printed with four significant digits at most, without trailing zeros.
pub fn short_real(value: f64) -> String {
    if value == 0.0 || !value.is_finite() {
        return format!("{value}");
    }
    let digits = (3 - value.abs().log10().floor() as i32).max(0) as usize;
    let text = format!("{value:.digits$}");
    if text.contains('.') { text.trim_end_matches('0').trim_end_matches('.').to_string() } else { text }
}

/// A configuration: each active parameter's value (an inactive one is absent).
pub type Config = BTreeMap<String, Value>;

/// Why a space cannot be searched; one line each, for the plan's error.
#[derive(Debug, Clone, PartialEq)]
pub enum SpaceError {
    Empty,
    EmptyRange(String),
    InvertedRange(String),
    LogOfNonPositive(String),
    NoChoices(String),
    DuplicateChoice(String, String),
    DuplicateParameter(String),
    UnknownConditionParameter(String, String),
    ConditionOnRange(String, String),
    UnknownConditionValue(String, String, String),
}

impl SpaceError {
    /// The parameter the error is about (none for an empty space).
    pub fn parameter(&self) -> Option<&str> {
        match self {
            SpaceError::Empty => None,
            SpaceError::EmptyRange(name)
            | SpaceError::InvertedRange(name)
            | SpaceError::LogOfNonPositive(name)
            | SpaceError::NoChoices(name)
            | SpaceError::DuplicateChoice(name, _)
            | SpaceError::DuplicateParameter(name)
            | SpaceError::UnknownConditionParameter(name, _)
            | SpaceError::ConditionOnRange(name, _)
            | SpaceError::UnknownConditionValue(name, _, _) => Some(name),
        }
    }
}

impl fmt::Display for SpaceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpaceError::Empty => f.write_str("the search space has no parameter; add one"),
            SpaceError::EmptyRange(name) => {
                write!(f, "parameter '{name}': the range is empty (from = to); widen it or make it a fixed option")
            }
            SpaceError::InvertedRange(name) => write!(f, "parameter '{name}': `from` is above `to`; swap them"),
            SpaceError::LogOfNonPositive(name) => {
                write!(f, "parameter '{name}': a log-scaled range must be above 0; raise `from` or drop `log`")
            }
            SpaceError::NoChoices(name) => write!(f, "parameter '{name}': no values to choose from; list at least two"),
            SpaceError::DuplicateChoice(name, value) => {
                write!(f, "parameter '{name}': value '{value}' is listed twice")
            }
            SpaceError::DuplicateParameter(name) => write!(f, "parameter '{name}' is defined twice"),
            SpaceError::UnknownConditionParameter(name, other) => {
                write!(f, "parameter '{name}': its condition names '{other}', which is no parameter of the space")
            }
            SpaceError::ConditionOnRange(name, other) => {
                write!(f, "parameter '{name}': its condition names '{other}', a range; a condition must name a choice")
            }
            SpaceError::UnknownConditionValue(name, other, value) => {
                write!(f, "parameter '{name}': its condition names '{value}', which is no value of '{other}'")
            }
        }
    }
}

/// A checked space.
#[derive(Debug, Clone, PartialEq)]
pub struct Space {
    parameters: Vec<Parameter>,
}

impl Space {
    /// Check the parameters: ranges not empty or inverted, logs above 0, choices unique, conditions on known values
    /// of a choice declared before the parameter.
    pub fn new(parameters: Vec<Parameter>) -> Result<Space, SpaceError> {
        if parameters.is_empty() {
            return Err(SpaceError::Empty);
        }
        for (index, parameter) in parameters.iter().enumerate() {
            let name = &parameter.name;
            if parameters[..index].iter().any(|earlier| &earlier.name == name) {
                return Err(SpaceError::DuplicateParameter(name.clone()));
            }
            let (from, to, log) = match &parameter.domain {
                Domain::Int { from, to, log } => (*from as f64, *to as f64, *log),
                Domain::Real { from, to, log } => (*from, *to, *log),
                Domain::Choice(values) | Domain::Ordered(values) => {
                    if values.is_empty() {
                        return Err(SpaceError::NoChoices(name.clone()));
                    }
                    if let Some(twice) = values.iter().enumerate().find(|(i, v)| values[..*i].contains(v)) {
                        return Err(SpaceError::DuplicateChoice(name.clone(), twice.1.clone()));
                    }
                    (0.0, 1.0, false)
                }
            };
            if from > to {
                return Err(SpaceError::InvertedRange(name.clone()));
            }
            if from == to {
                return Err(SpaceError::EmptyRange(name.clone()));
            }
            if log && from <= 0.0 {
                return Err(SpaceError::LogOfNonPositive(name.clone()));
            }
            if let Some(condition) = &parameter.only_if {
                let other = &condition.parameter;
                let Some(target) = parameters.iter().find(|p| &p.name == other) else {
                    return Err(SpaceError::UnknownConditionParameter(name.clone(), other.clone()));
                };
                let Domain::Choice(values) = &target.domain else {
                    return Err(SpaceError::ConditionOnRange(name.clone(), other.clone()));
                };
                if let Some(unknown) = condition.one_of.iter().find(|value| !values.contains(value)) {
                    return Err(SpaceError::UnknownConditionValue(name.clone(), other.clone(), unknown.clone()));
                }
            }
        }
        Ok(Space { parameters })
    }

    pub fn parameters(&self) -> &[Parameter] {
        &self.parameters
    }

    /// How many coordinates an encoded configuration has: one per range, one per value of a choice.
    pub fn dimensions(&self) -> usize {
        self.parameters.iter().map(|p| coordinates(&p.domain)).sum()
    }

    /// Whether `parameter` applies in `config` (its condition, if any, holds).
    pub fn active(&self, parameter: &Parameter, config: &Config) -> bool {
        parameter.only_if.as_ref().is_none_or(|condition| {
            matches!(config.get(&condition.parameter), Some(Value::Choice(value)) if condition.one_of.contains(value))
        })
    }

    /// The configuration at a point of the unit cube (one coordinate per dimension): ranges scaled (and rounded for
    /// integers), a choice the value whose coordinate is largest, parameters whose condition fails left out.
    pub fn decode(&self, point: &[f64]) -> Config {
        let mut config = Config::new();
        let mut at = 0;
        for parameter in &self.parameters {
            let width = coordinates(&parameter.domain);
            let value = decode_one(&parameter.domain, &point[at..at + width]);
            at += width;
            config.insert(parameter.name.clone(), value);
        }
        self.drop_inactive(config)
    }

    /// The point of a configuration: the inverse of [`Space::decode`] (an inactive parameter at its middle, a
    /// choice one-hot).
    pub fn encode(&self, config: &Config) -> Vec<f64> {
        let mut point = Vec::with_capacity(self.dimensions());
        for parameter in &self.parameters {
            let value = config.get(&parameter.name).filter(|_| self.active(parameter, config));
            encode_one(&parameter.domain, value, &mut point);
        }
        point
    }

    /// Conditions are checked in order, so a parameter whose condition names an inactive choice is inactive too.
    fn drop_inactive(&self, mut config: Config) -> Config {
        for parameter in &self.parameters {
            if !self.active(parameter, &config) {
                config.remove(&parameter.name);
            }
        }
        config
    }
}

/// How many coordinates of the unit cube a parameter takes: one per value of a choice, else one.
pub fn coordinates(domain: &Domain) -> usize {
    match domain {
        Domain::Choice(values) => values.len(),
        _ => 1,
    }
}

/// A range's position in [0, 1] of a value, and back.
fn to_unit(value: f64, from: f64, to: f64, log: bool) -> f64 {
    let unit = if log { (value.ln() - from.ln()) / (to.ln() - from.ln()) } else { (value - from) / (to - from) };
    unit.clamp(0.0, 1.0)
}

fn from_unit(unit: f64, from: f64, to: f64, log: bool) -> f64 {
    let unit = unit.clamp(0.0, 1.0);
    if log { (from.ln() + unit * (to.ln() - from.ln())).exp() } else { from + unit * (to - from) }
}

fn decode_one(domain: &Domain, coordinates: &[f64]) -> Value {
    match domain {
        Domain::Int { from, to, log } => {
            let value = from_unit(coordinates[0], *from as f64, *to as f64, *log).round() as i64;
            Value::Int(value.clamp(*from, *to))
        }
        Domain::Real { from, to, log } => Value::Real(from_unit(coordinates[0], *from, *to, *log)),
        Domain::Choice(values) => {
            let best = (0..values.len()).fold(0, |best, i| if coordinates[i] > coordinates[best] { i } else { best });
            Value::Choice(values[best].clone())
        }
        Domain::Ordered(values) => {
            let bin = (coordinates[0].clamp(0.0, 1.0) * values.len() as f64) as usize;
            Value::Choice(values[bin.min(values.len() - 1)].clone())
        }
    }
}

fn encode_one(domain: &Domain, value: Option<&Value>, point: &mut Vec<f64>) {
    match (domain, value) {
        (Domain::Int { from, to, log }, Some(Value::Int(v))) => {
            point.push(to_unit(*v as f64, *from as f64, *to as f64, *log))
        }
        (Domain::Real { from, to, log }, Some(Value::Real(v))) => point.push(to_unit(*v, *from, *to, *log)),
        (Domain::Choice(values), Some(Value::Choice(v))) => point.extend(values.iter().map(|c| f64::from(c == v))),
        (Domain::Choice(values), _) => point.extend(std::iter::repeat_n(0.0, values.len())),
        // The middle of the value's bin.
        (Domain::Ordered(values), Some(Value::Choice(v))) => {
            let index = values.iter().position(|c| c == v).unwrap_or(0);
            point.push((index as f64 + 0.5) / values.len() as f64)
        }
        _ => point.push(0.5),
    }
}

#[cfg(test)]
#[path = "space_tests.rs"]
mod tests;
