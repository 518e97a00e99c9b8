//! Where a cell's target runs, behind one face for the cell: on this machine ([`RunningTarget`], watched through its
//! PerfData here) or on its own server ([`RemoteTarget`], watched by the agent there). Waiting for readiness is the
//! same for both: the ready URL is probed from here, as the load will reach it, and an answer counts only when every
//! listener on the cell's ports is of the target's own tree (judged where the target runs).

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::cgroup::BoxSample;
use crate::cgroup::box_watch::ThrottledSpan;
use crate::jvm::clock::{ClockInterval, ClockSource};
use crate::jvm::perfdata::sampler::JvmSample;
use crate::jvm::watch::JvmWatch;
use crate::jvm::watch::window::JvmWindow;
use crate::launcher::{Listener, Readiness, RunningTarget};
use crate::load::connections::probe::get_status;
use crate::remote::remote_target::{RemoteTarget, RemoteWatch};
use crate::results::ExitInfo;

pub enum TargetProcess {
    Local(RunningTarget),
    Remote(RemoteTarget),
}

/// The JVM being watched, and a mark taken on it (a window's edge).
pub enum Watch {
    Local(JvmWatch),
    Remote(RemoteWatch),
}

pub enum Mark {
    Local(Box<JvmSample>),
    Remote(u64),
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

    /// Poll `url` until it answers 2xx, the process exits (or its server is lost), `timeout` passes or `stop` is set.
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
            std::thread::sleep(Duration::from_millis(100));
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

    /// Start watching the target's JVM (sampled every second into `csv`, on the target's side); the watch and JVM uptime
    /// 0 on the target's wall clock as PerfData gives it (see [`RunningTarget::watch_jvm`]).
    pub fn watch(&mut self, csv: PathBuf) -> (Option<Watch>, Option<(ClockSource, ClockInterval)>) {
        match self {
            TargetProcess::Local(target) => {
                let (watch, clock) = target.watch_jvm(csv);
                (watch.map(Watch::Local), clock)
            }
            TargetProcess::Remote(target) => {
                let (watch, clock) = target.watch();
                (watch.map(Watch::Remote), clock)
            }
        }
    }

    /// The target's cgroup box now (see [`RunningTarget::box_sample`]), here or on its server (before it is stopped).
    pub fn box_sample(&self) -> Option<BoxSample> {
        match self {
            TargetProcess::Local(target) => target.box_sample(),
            TargetProcess::Remote(target) => target.box_sample(),
        }
    }

    /// The stretches in which the box's CPU quota held the target back (see [`RunningTarget::throttled`]); none for a
    /// target on its own server (its agent keeps them there).
    pub fn throttled(&self) -> Vec<ThrottledSpan> {
        match self {
            TargetProcess::Local(target) => target.throttled(),
            TargetProcess::Remote(_) => Vec::new(),
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

impl Watch {
    /// Sample now: a window's edge. None once the JVM cannot be sampled.
    pub fn mark(&self) -> Option<Mark> {
        match self {
            Watch::Local(watch) => watch.mark().map(|sample| Mark::Local(Box::new(sample))),
            Watch::Remote(watch) => watch.mark().map(Mark::Remote),
        }
    }

    /// The end of a window begun at `start` whose JVM may have died: a mark now, else (a local JVM) its last
    /// periodic sample since `start`, so the phase it died in keeps its figures up to then.
    pub fn end_mark(&self, start: &Mark) -> Option<Mark> {
        match (self, start) {
            (Watch::Local(watch), Mark::Local(start)) => {
                watch.mark().or_else(|| watch.last_sample_after(start)).map(|sample| Mark::Local(Box::new(sample)))
            }
            _ => self.mark(),
        }
    }

    /// The window between two marks of this watch.
    pub fn window(&self, start: &Mark, end: &Mark) -> Option<JvmWindow> {
        match (self, start, end) {
            (Watch::Local(watch), Mark::Local(start), Mark::Local(end)) => Some(watch.window(start, end)),
            (Watch::Remote(watch), Mark::Remote(start), Mark::Remote(end)) => watch.window(*start, *end),
            _ => None,
        }
    }
}
