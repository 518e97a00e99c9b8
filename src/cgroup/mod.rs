//! A box for one target process tree: a cgroup per cell-repeat with a memory limit (no swap) and a CPU quota, the
//! process put into it before exec so its whole tree is inside, its figures read (memory usage and peak, OOM kills,
//! anonymous memory against page cache, CPU throttling), and the box removed afterwards — whatever is left in it
//! killed — also on drop, and boxes left by a jload that was SIGKILLed removed at the next start.
//!
//! Both cgroup versions: v1 (one hierarchy per controller, `memory.limit_in_bytes`, `cpu.cfs_quota_us`, …: `v1.rs`)
//! and v2 (one unified hierarchy, `memory.max`, `cpu.max`, …: `v2.rs`). Which one a machine has, and where jload's
//! boxes go in it, is found in `detect.rs`; the box itself is `cell_box.rs`, the clean-up of stale boxes `stale.rs`,
//! and the plain file reads and writes both versions share `files.rs`. `box_csv.rs` is the box's per-second file, written by `box_watch.rs`, which also
//! keeps the stretches the CPU quota held the box back. How it works and which file each figure comes from:
//! docs/containers.md.

pub mod box_csv;
pub mod box_watch;
mod cell_box;
mod detect;
mod files;
mod stale;
mod v1;
mod v2;

use std::fmt;

use serde::{Deserialize, Serialize};

pub use cell_box::{BoxName, BoxReader, CellBox};
pub use detect::{Cgroups, Version};
pub use stale::remove_stale;

/// The CFS period jload sets with a CPU quota, in microseconds (the kernel's default: 100 ms).
pub const CPU_PERIOD_US: u64 = 100_000;

/// The folder, under the place jload's boxes go in each hierarchy, that holds every box (`jload/<pid>-<n>`).
pub const PARENT: &str = "jload";

/// What a box allows its processes: memory in bytes (without swap) and CPU time as a number of CPUs (`0.5`: half
/// of one CPU's time per period). `None`: no limit of that kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Limits {
    pub memory_bytes: Option<u64>,
    pub cpus_quota: Option<f64>,
}

impl Limits {
    /// Ok when each limit is one the kernel can hold: memory above zero, a quota of at least 1 ms per 100 ms period
    /// (0.01 CPUs); else a one-line error naming the value and the fix.
    pub fn check(&self) -> Result<(), CgroupError> {
        if self.memory_bytes == Some(0) {
            return Err(CgroupError::BadLimit("memory limit 0: give a limit above zero, e.g. \"512m\"".into()));
        }
        if let Some(cpus) = self.cpus_quota {
            if !cpus.is_finite() || cpus <= 0.0 {
                return Err(CgroupError::BadLimit(format!(
                    "CPU quota {cpus}: give a positive number of CPUs, e.g. 0.5 or 1.5"
                )));
            }
            if quota_us(cpus) < 1000 {
                return Err(CgroupError::BadLimit(format!(
                    "CPU quota {cpus}: below the kernel's least quota of 0.01 CPUs (1 ms per 100 ms period)"
                )));
            }
        }
        Ok(())
    }
}

/// The quota in microseconds per [`CPU_PERIOD_US`] for a number of CPUs.
pub fn quota_us(cpus: f64) -> u64 {
    (cpus * CPU_PERIOD_US as f64).round() as u64
}

/// What a box's files said at one moment.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BoxSample {
    /// `None` when the box has no memory controller (a v2 hierarchy whose memory controller is bound elsewhere).
    pub memory: Option<MemoryFigures>,
    /// `None` when the box has no CPU controller, or it keeps no throttling figures.
    pub cpu: Option<CpuFigures>,
}

/// The memory controller's figures of a box, in bytes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MemoryFigures {
    /// The limit as the kernel holds it (rounded down to whole pages); `None`: unlimited.
    pub limit: Option<u64>,
    /// Memory charged to the box now (anonymous, page cache, kernel memory).
    pub usage: u64,
    /// The highest `usage` since the box was made; `None` where the kernel keeps no peak (v2 before Linux 5.19).
    pub peak: Option<u64>,
    /// Processes of the box the kernel's OOM killer killed; `None` where the kernel does not count them (v1 before
    /// Linux 4.13).
    pub oom_kills: Option<u64>,
    /// Anonymous memory (heaps, stacks, malloc, direct buffers …).
    pub anon: u64,
    /// Page cache (files read or written, tmpfs and shared memory).
    pub file: u64,
}

/// The CPU controller's figures of a box: its quota and how often it was held to it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CpuFigures {
    /// The quota as a number of CPUs; `None`: no quota.
    pub quota_cpus: Option<f64>,
    /// CFS periods in which the box had runnable threads.
    pub periods: u64,
    /// Periods in which it used up its quota and its threads were stopped until the next one.
    pub throttled_periods: u64,
    /// The time its threads were held back, summed over them, in nanoseconds.
    pub throttled_ns: u64,
}

/// Why a box could not be made, filled, read or removed. Each is one line.
#[derive(Debug, Clone, PartialEq)]
pub enum CgroupError {
    /// This machine cannot give what was asked (no writable controller): the user's to fix, as bad input.
    Unsupported(String),
    /// A limit the kernel cannot hold (bad input).
    BadLimit(String),
    /// A cgroup file or folder could not be read, written, made or removed.
    Io(String),
}

impl fmt::Display for CgroupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CgroupError::Unsupported(text) | CgroupError::BadLimit(text) | CgroupError::Io(text) => f.write_str(text),
        }
    }
}

impl std::error::Error for CgroupError {}

#[cfg(test)]
mod tests {
    use super::{CgroupError, Limits, quota_us};

    #[test]
    fn a_quota_in_cpus_becomes_microseconds_per_100_ms_period() {
        assert_eq!(quota_us(0.5), 50_000);
        assert_eq!(quota_us(1.5), 150_000);
        assert_eq!(quota_us(0.2), 20_000);
    }

    #[test]
    fn a_zero_memory_limit_or_a_quota_of_zero_negative_or_below_a_millisecond_is_refused_in_one_line() {
        let refused = |limits: Limits| match limits.check() {
            Err(CgroupError::BadLimit(text)) => text,
            other => panic!("expected a bad limit, got {other:?}"),
        };
        assert_eq!(
            refused(Limits { memory_bytes: Some(0), cpus_quota: None }),
            "memory limit 0: give a limit above zero, e.g. \"512m\""
        );
        assert_eq!(
            refused(Limits { memory_bytes: None, cpus_quota: Some(0.0) }),
            "CPU quota 0: give a positive number of CPUs, e.g. 0.5 or 1.5"
        );
        assert_eq!(
            refused(Limits { memory_bytes: None, cpus_quota: Some(-1.0) }),
            "CPU quota -1: give a positive number of CPUs, e.g. 0.5 or 1.5"
        );
        assert_eq!(
            refused(Limits { memory_bytes: None, cpus_quota: Some(0.001) }),
            "CPU quota 0.001: below the kernel's least quota of 0.01 CPUs (1 ms per 100 ms period)"
        );
        assert_eq!(Limits { memory_bytes: Some(1 << 20), cpus_quota: Some(0.01) }.check(), Ok(()));
    }
}
