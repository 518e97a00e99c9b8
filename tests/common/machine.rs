//! The machine as the suite's loads share it (2 cores; libtest runs two tests at a time, any two of the one binary):
//! every test that starts a JVM, a browser or a test network, or drives a load for seconds, takes it — two at a time
//! where what they assert does not depend on having it alone (`shared`: what was recorded, files, causes, exit codes,
//! tolerances measured beside a second load), one at a time where it does (`alone`: timings weighed, capacities
//! compared, a window a test must hit). Quick tests that load nothing (bad input, dry runs, reports of fixtures) take
//! nothing and run beside either.
//!
//! Two `shared` tests run together only when they keep the same company: tests of one suite (the file that calls
//! `shared`) always do, since each suite's tolerances were measured beside its own tests, a light engine test beside
//! another, a JVM search beside another; and the suites `COMPANIES` groups keep company with each other (whole
//! `jload run` sweeps that assert what was recorded; capacity searches of servers with wide margins). A load test
//! never runs beside a JVM sweep of another company. A test of another company waits until the company that holds
//! the machine has let go, and while it waits no further test of that company takes the machine.

use std::io::Write;
use std::panic::Location;
use std::sync::{Condvar, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

/// The suites that keep company beyond their own, by name. `sweeps`: their tests run `jload run` sweeps against
/// JVMs (or a browser on a report) and assert what the sweep recorded, its files, causes and exit codes.
/// `searches`: capacity searches of `jload bench` against servers whose capacity or change is tenfold or set by a
/// service time, with SLOs many service times wide, measured beside a busy loop. The suites whose tests weigh
/// timings of a load (the engine, "is it the GC?", jstat against jstat) keep to themselves.
const COMPANIES: &[(&str, &[&str])] = &[
    (
        "sweeps",
        &[
            "tests/real_targets.rs",
            "tests/remote.rs",
            "tests/report_html.rs",
            "tests/run.rs",
            "tests/run_args.rs",
            "tests/run_attribution.rs",
            "tests/run_box.rs",
            "tests/run_box_search.rs",
            "tests/run_capacity.rs",
            "tests/run_nmt.rs",
            "tests/run_ownership.rs",
            "tests/run_profile.rs",
            "tests/run_protocols.rs",
            "tests/run_stalls.rs",
            "tests/run_tune.rs",
        ],
    ),
    ("searches", &["tests/bench_capacity.rs", "tests/bench_steady.rs"]),
];

/// The company a test of the suite in `file` keeps: the one `COMPANIES` names it in, or its suite's own.
fn company(file: &'static str) -> &'static str {
    COMPANIES.iter().find(|(_, suites)| suites.contains(&file)).map_or(file, |(name, _)| name)
}

/// Who holds the machine now.
#[derive(Default)]
struct Holders {
    /// The company whose `shared` tests hold it, and how many of them.
    company: Option<&'static str>,
    shared: usize,
    alone: bool,
    /// Tests waiting for it that another company, or an `alone` one, keeps out.
    waiting: usize,
}

static MACHINE: Mutex<Holders> = Mutex::new(Holders { company: None, shared: 0, alone: false, waiting: 0 });
static CHANGED: Condvar = Condvar::new();

/// The machine held until dropped.
pub struct Held {
    alone: bool,
    since: SystemTime,
}

/// Where each hold is logged when the suite runs with `JLOAD_MACHINE_LOG=FILE` (bench/suite-holds.sh reads it): one
/// line per hold, `TAKEN RELEASED alone|shared TEST` (seconds since the epoch), appended as it is let go.
const HOLD_LOG: &str = "JLOAD_MACHINE_LOG";

fn log_hold(held: &Held) {
    let Some(path) = std::env::var_os(HOLD_LOG) else { return };
    let seconds = |at: SystemTime| at.duration_since(UNIX_EPOCH).unwrap_or_default().as_secs_f64();
    let kind = if held.alone { "alone" } else { "shared" };
    let test = std::thread::current().name().unwrap_or("?").to_string();
    let line = format!("{:.3} {:.3} {kind} {test}\n", seconds(held.since), seconds(SystemTime::now()));
    let appended = std::fs::OpenOptions::new().create(true).append(true).open(&path);
    appended.and_then(|mut file| file.write_all(line.as_bytes())).expect("the hold log is writable");
}

impl Drop for Held {
    fn drop(&mut self) {
        log_hold(self);
        let mut holders = MACHINE.lock().unwrap_or_else(|poison| poison.into_inner());
        if self.alone {
            holders.alone = false;
        } else {
            holders.shared -= 1;
            if holders.shared == 0 {
                holders.company = None;
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

/// Hold the machine beside one other `shared` test of the same company, never beside an `alone` one or another
/// company's. Not to be taken twice by one test.
#[track_caller]
pub fn shared() -> Held {
    let company = company(Location::caller().file());
    take(
        |holders| {
            !holders.alone
                && match holders.company {
                    None => true,
                    Some(holding) => holding == company && holders.waiting == 0,
                }
        },
        |holders| {
            holders.company = Some(company);
            holders.shared += 1;
        },
    );
    Held { alone: false, since: SystemTime::now() }
}

/// Hold the machine alone: no other test that takes it runs meanwhile.
pub fn alone() -> Held {
    take(|holders| !holders.alone && holders.shared == 0, |holders| holders.alone = true);
    Held { alone: true, since: SystemTime::now() }
}

#[test]
fn every_suite_a_company_names_is_a_file_of_the_suite() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for file in COMPANIES.iter().flat_map(|(_, suites)| suites.iter()) {
        assert!(root.join(file).is_file(), "{file} is named in COMPANIES but is no suite file");
    }
}
