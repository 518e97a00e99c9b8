//! Error kinds that decide jload's exit code: bad input (exit 2) versus everything else.

use std::fmt;

/// A problem with what the user asked for: an invalid flag, URL, file or expression.
/// Printed as one line and mapped to exit code 2.
#[derive(Debug)]
pub struct BadInput(pub String);

impl fmt::Display for BadInput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadInput {}

/// Build an `anyhow::Error` that main reports as bad input (exit 2).
pub fn bad_input(message: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(BadInput(message.into()))
}

/// The one wording for a negative value given where jload takes only positive ones (counts, rates, durations).
pub fn negative_value(what: &str, value: &str) -> String {
    let what = if what.is_empty() { String::new() } else { format!("{what} ") };
    format!("{what}{value}: negative values are not accepted; give a positive value")
}

/// Exit codes shared by every subcommand.
pub mod exit {
    pub const OK: i32 = 0;
    pub const FAILED: i32 = 1;
    pub const BAD_INPUT: i32 = 2;
    pub const THRESHOLDS: i32 = 99;
    /// A capacity search claimed no capacity for the target because the load generator ran out first.
    pub const GENERATOR_LIMITED: i32 = 3;
}
