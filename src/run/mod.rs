//! `jload run`: the runner. The only part of jload that decides when targets start and stop (through
//! [`crate::launcher`], here or on a server) and the only writer of a
//! results directory's records (through [`crate::results`]): per cell × repeat it launches a fresh JVM, drives it
//! through the plan's phases while watching it, and stores what was seen.

/// A line for the user on stderr that never stops a sweep: when stderr has been closed (`jload run … 2>&1 | head`),
/// the line is dropped and the sweep goes on, so every target is still stopped and every result and report written.
/// (`jload run` keeps SIGPIPE ignored for the same reason; see main.rs.)
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

pub mod box_search;
pub mod cell;
pub mod cli;
pub mod contenders;
pub mod runner;
pub mod store;
pub mod tune;
