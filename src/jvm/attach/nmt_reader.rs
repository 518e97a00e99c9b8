//! One JVM's native memory read again and again (the reads of a run, docs/containers.md): attached once through
//! [`crate::jvm::attach`] — a JVM that refuses the first attach is not tried again, so no second SIGQUIT —, each read its
//! NMT summary ([`super::nmt::read_summary`]) with when it began, how long it took and the process' RSS right after.
//! Used where the JVM runs: by the runner for a local target, by `jload agent target` on a target's server.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::AttachOnce;
use super::nmt::{NmtSummary, read_summary};
use crate::jvm::clock::unix_us_now;
use crate::jvm::procfs::rss_bytes;

/// How long the first attach may wait for the JVM's listener, and each reply.
const ATTACH_TIMEOUT: Duration = Duration::from_secs(5);

/// One read, as taken where the JVM runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NmtTaken {
    /// When the read began, wall clock there, µs since the Unix epoch.
    pub unix_us: i64,
    /// How long the read took, from connecting to the last byte of the reply.
    pub read_ms: f64,
    pub summary: NmtSummary,
    /// The JVM process' resident set right after the read.
    pub rss: Option<u64>,
}

/// The reads of JVM `pid`.
pub struct NmtReader {
    pid: u32,
    attach: AttachOnce,
}

impl NmtReader {
    pub fn new(pid: u32) -> NmtReader {
        NmtReader { pid, attach: AttachOnce::new(pid, ATTACH_TIMEOUT) }
    }

    /// Read now; None when the JVM cannot be read (gone, NMT off, attach refused): no error of anyone's.
    pub fn read(&mut self) -> Option<NmtTaken> {
        let jvm = self.attach.jvm()?;
        let unix_us = unix_us_now();
        let began = Instant::now();
        let summary = read_summary(jvm).ok()?;
        let read_ms = began.elapsed().as_secs_f64() * 1e3;
        let rss = rss_bytes(self.pid);
        Some(NmtTaken { unix_us, read_ms, summary, rss })
    }
}
