//! Reading the TOML files users write (plans, mix files) with one-line errors that name the file, line and key.

use std::ops::Range;
use std::time::Duration;

use serde::de::DeserializeOwned;
use toml::Spanned;

use crate::error::bad_input;
use crate::units::parse_duration;

/// The 1-based line of byte offset `offset` in `text`.
pub fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// Parse `text` (from `origin`, a path shown in errors) into `T`; errors read
/// `ORIGIN: line N: MESSAGE (HINT)` on one line.
pub fn parse_toml<T: DeserializeOwned>(origin: &str, text: &str, hint: &str) -> anyhow::Result<T> {
    toml::from_str(text).map_err(|err| {
        let line = err.span().map(|span| format!(" line {}:", line_of(text, span.start))).unwrap_or_default();
        let message = err.message().trim().replace('\n', " ");
        bad_input(format!("{origin}:{line} {message} ({hint})"))
    })
}

/// A TOML file being read: its name (shown in errors) and text (for line numbers).
#[derive(Clone, Copy)]
pub struct Source<'a> {
    pub origin: &'a str,
    pub text: &'a str,
}

impl Source<'_> {
    /// An error about a value at a known place in the file: `ORIGIN: line N: MESSAGE`.
    pub fn error_at(&self, span: Range<usize>, message: impl std::fmt::Display) -> anyhow::Error {
        bad_input(format!("{}: line {}: {message}", self.origin, line_of(self.text, span.start)))
    }

    /// An optional duration written at a key; `what` names the key in errors.
    pub fn duration(&self, value: &Option<Spanned<String>>, what: &str) -> anyhow::Result<Option<Duration>> {
        value
            .as_ref()
            .map(|spanned| parse_duration(what, spanned.get_ref()).map_err(|err| self.error_at(spanned.span(), err)))
            .transpose()
    }
}
