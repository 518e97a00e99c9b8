//! The machine as the suite's loads share it (2 cores; libtest runs two tests at a time, any two of the one binary):
//! every test that starts a JVM, a browser or a test network, or drives a load for seconds, takes it — two at a time
//! where what they assert does not depend on having it alone (`shared`: what was recorded, files, causes, exit codes,
//! tolerances measured beside a second load), one at a time where it does (`alone`: timings weighed, capacities
//! compared, a window a test must hit). Quick tests that load nothing (bad input, dry runs, reports of fixtures) take
//! nothing and run beside either.
//!
//! Two `shared` tests run together only when they are of one suite (the file that calls `shared`): each suite's
//! tolerances were measured beside its own tests, a light engine test beside another, a JVM search beside another,
//! never a load test beside a JVM sweep of another suite. A test of another suite waits until the suite that holds
//! the machine has let go, and while it waits no further test of that suite takes the machine.

use std::panic::Location;
use std::sync::{Condvar, Mutex};

/// Who holds the machine now.
#[derive(Default)]
struct Holders {
    /// The suite whose `shared` tests hold it, and how many of them.
    suite: Option<&'static str>,
    shared: usize,
    alone: bool,
    /// Tests waiting for it that another suite, or an `alone` one, keeps out.
    waiting: usize,
}

static MACHINE: Mutex<Holders> = Mutex::new(Holders { suite: None, shared: 0, alone: false, waiting: 0 });
static CHANGED: Condvar = Condvar::new();

/// The machine held until dropped.
pub struct Held {
    alone: bool,
}

impl Drop for Held {
    fn drop(&mut self) {
        let mut holders = MACHINE.lock().unwrap_or_else(|poison| poison.into_inner());
        if self.alone {
            holders.alone = false;
        } else {
            holders.shared -= 1;
            if holders.shared == 0 {
                holders.suite = None;
            }
        }
        CHANGED.notify_all();
    }
}

/// Wait until `admits` lets the caller in, then take the machine as `take` says.
fn take(admits: impl Fn(&Holders) -> bool, take: impl FnOnce(&mut Holders)) {
    let mut holders = MACHINE.lock().unwrap_or_else(|poison| poison.into_inner());
    if !admits(&holders) {
        holders.waiting += 1;
        while !admits(&holders) {
            holders = CHANGED.wait(holders).unwrap_or_else(|poison| poison.into_inner());
        }
        holders.waiting -= 1;
    }
    take(&mut holders);
}

/// Hold the machine beside one other `shared` test of the same suite, never beside an `alone` one or another suite's.
/// Not to be taken twice by one test.
#[track_caller]
pub fn shared() -> Held {
    let suite = Location::caller().file();
    take(
        |holders| {
            !holders.alone
                && match holders.suite {
                    None => true,
                    Some(holding) => holding == suite && holders.waiting == 0,
                }
        },
        |holders| {
            holders.suite = Some(suite);
            holders.shared += 1;
        },
    );
    Held { alone: false }
}

/// Hold the machine alone: no other test that takes it runs meanwhile.
pub fn alone() -> Held {
    take(|holders| !holders.alone && holders.shared == 0, |holders| holders.alone = true);
    Held { alone: true }
}
