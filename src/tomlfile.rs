//! Reading the TOML files users write (plans, mix files) with one-line errors that name the file, line and key.

use serde::de::DeserializeOwned;

use crate::error::bad_input;

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

/// An error about a value at a known place in the file.
pub fn error_at(
    origin: &str,
    text: &str,
    span: std::ops::Range<usize>,
    message: impl std::fmt::Display,
) -> anyhow::Error {
    bad_input(format!("{origin}: line {}: {message}", line_of(text, span.start)))
}
