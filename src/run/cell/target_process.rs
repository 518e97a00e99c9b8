//! Where a cell's target runs, behind one face for the cell: on this machine ([`RunningTarget`]) or on its own
//! server ([`RemoteTarget`], driven through the agent there); what watches it is the probes' ([`super::probes`],
//! whose sensors answer here or through the agent). Waiting for readiness is the
//! same for both: the ready URL is probed from here, as the load will reach it, and an answer counts only when every
//! listener on the cell's ports is of the target's own tree (judged where the target runs).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::launcher::{Listener, Readiness, RunningTarget};
use crate::load::connections::probe::get_status;
use crate::remote::remote_target::RemoteTarget;
use crate::results::ExitInfo;

/// How often readiness is asked of a starting target: a JVM that answers is seen within this.
const READY_POLL: Duration = Duration::from_millis(20);

pub enum TargetProcess {
    Local(RunningTarget),
    Remote(RemoteTarget),
}

impl TargetProcess {
    pub fn pid(&self) -> u32 {
        match self {
            TargetProcess::Local(target) => target.pid,
            TargetProcess::Remote(target) => target.pid,
        }
    }

    pub fn started(&self) -> Instant {
        match self {
            TargetProcess::Local(target) => target.started,
            TargetProcess::Remote(target) => target.started,
        }
    }

    /// The exit, if the process has ended.
    pub fn exited(&mut self) -> Option<ExitInfo> {
        match self {
            TargetProcess::Local(target) => target.exited(),
            TargetProcess::Remote(target) => target.exited(),
        }
    }

    /// Why the connection to a remote target's server is gone (never for a local target).
    pub fn lost(&self) -> Option<String> {
        match self {
            TargetProcess::Local(_) => None,
            TargetProcess::Remote(target) => target.lost(),
        }
    }

    /// Whether load must end: the target ended or its server cannot be reached.
    pub fn gone(&mut self) -> bool {
        self.exited().is_some() || self.lost().is_some()
    }

    /// See [`RunningTarget::daemon_note`].
    pub fn daemon_note(&mut self) -> Option<String> {
        match self {
            TargetProcess::Local(target) => target.daemon_note(),
            TargetProcess::Remote(target) => target.daemon_note(),
        }
    }

    /// Poll `url` every [`READY_POLL`] until it answers 2xx, the process exits (or its server is lost), `timeout` passes or `stop` is set.
    /// A 2xx while a process outside the target's tree listens on one of `ports` (the cell's) is no readiness: that
    /// process answered, not the target ([`Readiness::Foreign`]).
    pub fn wait_ready(&mut self, url: &str, ports: &[u16], timeout: Duration, stop: &AtomicBool) -> Readiness {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(exit) = self.exited() {
                return Readiness::Exited(exit);
            }
            if let Some(lost) = self.lost() {
                return Readiness::Lost(lost);
            }
            if stop.load(Ordering::Relaxed) {
                return Readiness::Interrupted;
            }
            if Instant::now() >= deadline {
                return Readiness::TimedOut;
            }
            if get_status(url, Duration::from_millis(500)).is_ok_and(|status| (200..300).contains(&status)) {
                let answered_after = self.started().elapsed();
                return match self.foreign_listener(ports) {
                    Some((port, listeners)) => Readiness::Foreign { port, listeners },
                    None => Readiness::Ready(answered_after),
                };
            }
            std::thread::sleep(READY_POLL);
        }
    }

    /// The first of `ports` on which a process outside the target's tree listens, with every listener there; None
    /// when each listener is the target's own (or its server cannot be asked).
    pub fn foreign_listener(&self, ports: &[u16]) -> Option<(u16, Vec<Listener>)> {
        let by_port: Vec<(u16, Vec<Listener>)> = match self {
            TargetProcess::Local(target) => ports.iter().map(|&port| (port, target.listeners(port))).collect(),
            TargetProcess::Remote(target) => target.listeners(ports)?,
        };
        by_port.into_iter().find(|(_, listeners)| listeners.iter().any(|listener| !listener.own))
    }

    /// The addresses listening on the target's `port` where it runs (None when its server cannot be asked).
    pub fn listening(&self, port: u16) -> Option<Vec<std::net::SocketAddr>> {
        match self {
            TargetProcess::Local(_) => Some(crate::jvm::procfs::listening_addresses(port)),
            TargetProcess::Remote(target) => target.listening(),
        }
    }

    /// A remote target's server clock minus this machine's, µs, and the bound of that estimate (None here).
    pub fn clock_offset(&self) -> Option<(i64, i64)> {
        match self {
            TargetProcess::Local(_) => None,
            TargetProcess::Remote(target) => target.clock_offset(),
        }
    }

    /// Stop the whole tree (SIGTERM, SIGKILL after `grace`); how the started process ended.
    pub fn stop(&mut self, grace: Duration) -> ExitInfo {
        match self {
            TargetProcess::Local(target) => target.stop(grace),
            TargetProcess::Remote(target) => target.stop(grace),
        }
    }
}
