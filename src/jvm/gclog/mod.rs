//! GC-log analysis: parses JDK 9+ unified GC logs (`-Xlog:gc*,safepoint:file=gc.log:time,uptime,level,tags`, plain
//! `-Xlog:gc`, any decorations or none, decimal commas, rotated sets) of Serial, Parallel, G1, ZGC (JDK 17 and
//! generational) and Shenandoah into pauses, concurrent cycles and safepoints, and summarises them.
//!
//! For other modules (`bench --jvm`, `run`):
//! - [`parse_path`] reads a log file and its rotated siblings of the same JVM run; [`parse_str`] parses text;
//! - [`GcLog::summary`] gives the statistics, optionally for an uptime window (use [`GcLog::jvm_start`] to turn
//!   a wall-clock window into uptime);
//! - [`log_file_from_args`] finds the log file in a JVM's command line.
//!
//! Module jobs: `input` opening a file as lines (gzip, what is no text), `line` decorations, `numbers` number formats, `message` the grammar of event messages, `events`
//! what one message says, `assemble` lines into a log, `rotation` a log and its rotated siblings, `model` the result types, `stops` the stretches the JVM held its threads up, `statistics`
//! the figures over a window, `log_option` the log file in a command line, `cli` and `report` the `jload gclog` subcommand. The user
//! documentation is docs/gclog.md.

mod assemble;
pub mod cli;
mod events;
mod input;
mod line;
mod log_option;
mod message;
mod model;
mod numbers;
mod report;
mod rotation;
mod statistics;
pub mod stops;

#[cfg(test)]
mod fixture_tests;
#[cfg(test)]
mod robustness_tests;
#[cfg(test)]
mod third_party_tests;

use std::path::Path;

use crate::error::bad_input;

// The API other modules use (bench --jvm, run, report).
pub use log_option::log_file_from_args;
pub use model::{GcLog, Pause, PauseKind, Safepoint, Stall, StallKind, TimeBase};
pub use statistics::{DurationStats, GcLogSummary, in_window};

/// Parses GC-log text (one file's content), for the tests. Never fails: what cannot be read is counted in
/// `unparsed_lines`.
#[cfg(test)]
pub fn parse_str(text: &str) -> GcLog {
    let mut assembler = assemble::Assembler::default();
    assembler.add_text(None, text);
    assembler.finish()
}

/// Reads and parses a GC log file together with its rotated siblings of the same JVM run (`gc.log.0`, …).
/// Fails (as bad input) only when the file cannot be read.
pub fn parse_path(path: &Path) -> anyhow::Result<GcLog> {
    parse_file(path, true)
}

/// Like [`parse_path`]; with `with_rotated` false only `path` itself is read.
pub fn parse_file(path: &Path, with_rotated: bool) -> anyhow::Result<GcLog> {
    parse_run(path, with_rotated, None)
}

/// Like [`parse_file`], keeping JVM run `run` (1-based) of a file that holds several (uptime going back starts a
/// new one); None keeps the last. Input that is not a unified GC log (JDK 8 format, no GC line at all) and
/// content that is not text are bad input, with one line saying what it is.
pub fn parse_run(path: &Path, with_rotated: bool, run: Option<usize>) -> anyhow::Result<GcLog> {
    let set = rotation::find_log_files(path, with_rotated)?;
    let mut assembler = assemble::Assembler::for_run(run);
    for file in &set.files {
        assembler.add_file(file)?;
    }
    if let Some(problem) = assembler.format_problem() {
        return Err(bad_input(format!("{} {problem}", path.display())));
    }
    let mut log = assembler.finish();
    log.files = set.files;
    log.ignored_files = set.ignored;
    Ok(log)
}
