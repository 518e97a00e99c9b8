//! The machine as a suite's JVM-heavy tests share it (2 cores): two at a time where what they assert does not depend
//! on having it alone (`shared`: what was recorded, files, causes, exit codes), one at a time where it does (`alone`:
//! timings weighed, capacities compared, a window a test must hit).

use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

static MACHINE: RwLock<()> = RwLock::new(());

/// Hold the machine beside one other `shared` test (cargo's two test threads), never beside an `alone` one.
pub fn shared() -> RwLockReadGuard<'static, ()> {
    MACHINE.read().unwrap_or_else(|poison| poison.into_inner())
}

/// Hold the machine alone: no other test of the suite that takes it runs meanwhile.
pub fn alone() -> RwLockWriteGuard<'static, ()> {
    MACHINE.write().unwrap_or_else(|poison| poison.into_inner())
}
