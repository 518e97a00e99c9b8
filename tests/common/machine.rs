//! The machine as the suite's loads share it (2 cores; libtest runs two tests at a time, any two of the one binary):
//! every test that starts a JVM, a browser or a test network, or drives a load for seconds, takes it — two at a time
//! where what they assert does not depend on having it alone (`shared`: what was recorded, files, causes, exit codes,
//! tolerances measured beside a second load), one at a time where it does (`alone`: timings weighed, capacities
//! compared, a window a test must hit). Quick tests that load nothing (bad input, dry runs, reports of fixtures) take
//! nothing and run beside either.

use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

static MACHINE: RwLock<()> = RwLock::new(());

/// Hold the machine beside one other `shared` test (libtest's two threads), never beside an `alone` one. Not to be
/// taken twice by one test: a waiting `alone` blocks the second.
pub fn shared() -> RwLockReadGuard<'static, ()> {
    MACHINE.read().unwrap_or_else(|poison| poison.into_inner())
}

/// Hold the machine alone: no other test that takes it runs meanwhile.
pub fn alone() -> RwLockWriteGuard<'static, ()> {
    MACHINE.write().unwrap_or_else(|poison| poison.into_inner())
}
