//! Reads a JVM's native memory summary COUNT times, INTERVAL_MS apart, through jload's attach client (the first read
//! attaches, starting the JVM's attach listener if needed), and prints one line per read — its wall time and the
//! committed total — then the median and maximum. bench/nmt-cost.sh uses it to measure what the reads cost the JVM.
//!
//! Usage: cargo run --example nmt_reads -- PID COUNT INTERVAL_MS

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use jload::jvm::attach::nmt;
use jload::jvm::attach::{AttachedJvm, DEFAULT_TIMEOUT};

fn main() {
    let args: Vec<u64> = std::env::args().skip(1).map(|arg| arg.parse().expect("PID COUNT INTERVAL_MS")).collect();
    let [pid, count, interval_ms] = args[..] else { panic!("usage: nmt_reads PID COUNT INTERVAL_MS") };
    let pid = u32::try_from(pid).expect("a pid");
    let mut times_us = Vec::new();
    let mut jvm: Option<AttachedJvm> = None;
    for read in 1..=count {
        let start = Instant::now();
        let attached = match &jvm {
            Some(jvm) => jvm.clone(),
            None => AttachedJvm::attach(pid, DEFAULT_TIMEOUT).unwrap_or_else(|err| panic!("{err}")),
        };
        let summary = nmt::read_summary(&attached).unwrap_or_else(|err| panic!("{err}"));
        let took = start.elapsed();
        let unix_ms = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_millis();
        let how = if attached.started_listener() && jvm.is_none() { " (attach: .attach_pid + SIGQUIT)" } else { "" };
        println!(
            "{unix_ms} read {read}: {} µs, committed {} bytes in {} categories{how}",
            took.as_micros(),
            summary.total.committed,
            summary.categories.len()
        );
        times_us.push(took.as_micros());
        jvm = Some(attached);
        std::thread::sleep(Duration::from_millis(interval_ms).saturating_sub(took));
    }
    times_us.sort_unstable();
    if let (Some(median), Some(max)) = (times_us.get(times_us.len() / 2), times_us.last()) {
        println!("reads {count}: median {median} µs, max {max} µs (wall, jload's side)");
    }
}
