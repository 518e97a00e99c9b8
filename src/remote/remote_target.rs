//! A target on its own server, driven through `jload agent target` over ssh: the same start, exit, daemon note, JVM
//! marks and windows, native memory reads and stop as a local [`crate::launcher::RunningTarget`], plus the
//! connection's loss.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use super::link::AgentLink;
use super::protocol::{Event, Request};
use super::server::RemoteServer;
use crate::cgroup::BoxSample;
use crate::jvm::attach::nmt_reader::NmtTaken;
use crate::jvm::clock::{ClockInterval, ClockSource};
use crate::jvm::watch::window::JvmWindow;
use crate::launcher::{LaunchSpec, Listener};
use crate::results::ExitInfo;

/// How long a question to the agent may take (a sample of PerfData and a line each way).
const ANSWER_LIMIT: Duration = Duration::from_secs(15);

pub struct RemoteTarget {
    link: Arc<AgentLink>,
    pub pid: u32,
    pub started: Instant,
    stopped: Option<ExitInfo>,
    /// Started in a cgroup box (the launch had limits): only then is the agent asked for its figures.
    boxed: bool,
}

impl RemoteTarget {
    pub fn start(server: &RemoteServer, spec: &LaunchSpec) -> anyhow::Result<RemoteTarget> {
        let link = AgentLink::open(&server.ssh, &server.jload, "target", server.silence_limit)?;
        let started = Instant::now();
        let answer = link.ask(&Request::Start(spec.clone()), ANSWER_LIMIT, |event| {
            matches!(event, Event::Started { .. } | Event::StartFailed { .. })
        });
        match answer {
            Some(Event::Started { pid }) => {
                let boxed = spec.limits != crate::cgroup::Limits::default();
                Ok(RemoteTarget { link, pid, started, stopped: None, boxed })
            }
            Some(Event::StartFailed { port_in_use: Some(refused), .. }) => {
                Err(anyhow::Error::new(refused).context(format!("on {}", server.destination())))
            }
            Some(Event::StartFailed { message, .. }) => anyhow::bail!("{message} (on {})", server.destination()),
            _ => anyhow::bail!(
                "cannot start the target on {}: {}",
                server.destination(),
                link.lost().unwrap_or_else(|| "no answer".to_string())
            ),
        }
    }

    /// The exit, once the started process has ended by itself (or jload stopped it).
    pub fn exited(&self) -> Option<ExitInfo> {
        self.stopped.clone().or_else(|| self.link.exited().map(|(exit, _)| exit))
    }

    /// Why the connection to the agent is gone, if it is.
    pub fn lost(&self) -> Option<String> {
        self.link.lost()
    }

    /// See [`crate::launcher::RunningTarget::daemon_note`]: the agent's note at the exit.
    pub fn daemon_note(&self) -> Option<String> {
        self.link.exited().and_then(|(_, note)| note)
    }

    /// Start sampling the JVM there; its watch and the PerfData clock (on the server's wall clock).
    pub fn watch(&self) -> (Option<RemoteWatch>, Option<(ClockSource, ClockInterval)>) {
        match self.link.ask(&Request::Watch, ANSWER_LIMIT, |event| matches!(event, Event::Watching { .. })) {
            Some(Event::Watching { jvm_pid: Some(_), clock }) => {
                (Some(RemoteWatch { link: self.link.clone(), next_mark: AtomicU64::new(0) }), clock)
            }
            Some(Event::Watching { jvm_pid: None, clock }) => (None, clock),
            _ => (None, None),
        }
    }

    /// The addresses listening on the target's port on its server (None: no answer).
    pub fn listening(&self) -> Option<Vec<std::net::SocketAddr>> {
        match self.link.ask(&Request::Listening, ANSWER_LIMIT, |event| matches!(event, Event::Listening { .. })) {
            Some(Event::Listening { addresses }) => Some(addresses),
            _ => None,
        }
    }

    /// The processes listening on `ports` on its server, each marked whether it is of the target's tree (None: no
    /// answer).
    pub fn listeners(&self, ports: &[u16]) -> Option<Vec<(u16, Vec<Listener>)>> {
        let request = Request::Listeners { ports: ports.to_vec() };
        match self.link.ask(&request, ANSWER_LIMIT, |event| matches!(event, Event::Listeners { .. })) {
            Some(Event::Listeners { ports }) => Some(ports),
            _ => None,
        }
    }

    /// The target's cgroup box there now (see [`crate::launcher::RunningTarget::box_sample`]); None: no box, or no
    /// answer (the agent has ended after a stop).
    pub fn box_sample(&self) -> Option<BoxSample> {
        if !self.boxed || self.link.lost().is_some() {
            return None;
        }
        match self.link.ask(&Request::BoxSample, ANSWER_LIMIT, |event| matches!(event, Event::BoxSampled { .. })) {
            Some(Event::BoxSampled { sample }) => sample,
            _ => None,
        }
    }

    /// The JVM's native memory read there now, with the box's usage there right after (None without a box); None
    /// when it could not be read or the agent did not answer.
    pub fn nmt_read(&self) -> Option<(NmtTaken, Option<u64>)> {
        if self.link.lost().is_some() {
            return None;
        }
        match self.link.ask(&Request::NmtRead, ANSWER_LIMIT, |event| matches!(event, Event::NmtRead { .. })) {
            Some(Event::NmtRead { taken: Some(taken), box_usage }) => Some((taken, box_usage)),
            _ => None,
        }
    }

    /// The server's wall clock minus this machine's, µs, and the bound of that estimate.
    pub fn clock_offset(&self) -> Option<(i64, i64)> {
        self.link.clock_offset()
    }

    /// Stop the whole tree there. When the connection is lost the agent stops it by itself; the exit is then unknown.
    pub fn stop(&mut self, grace: Duration) -> ExitInfo {
        let ended_by_itself = self.link.exited().map(|(exit, _)| exit);
        let request = Request::Stop { grace_ms: grace.as_millis() as u64 };
        let exit = match self.link.ask(&request, grace + ANSWER_LIMIT, |event| matches!(event, Event::Stopped { .. })) {
            Some(Event::Stopped { exit, .. }) => ended_by_itself.unwrap_or(exit),
            _ => ended_by_itself.unwrap_or(ExitInfo { code: None, signal: None, stopped_by_jload: true }),
        };
        self.link.close(Duration::from_secs(5));
        self.stopped = Some(exit.clone());
        exit
    }
}

/// The JVM watched by the agent: marks are numbered there.
pub struct RemoteWatch {
    link: Arc<AgentLink>,
    next_mark: AtomicU64,
}

impl RemoteWatch {
    /// Sample now; the mark's number, None when the JVM could not be sampled (gone, or the connection lost).
    pub fn mark(&self) -> Option<u64> {
        let id = self.next_mark.fetch_add(1, Ordering::Relaxed);
        match self.link.ask(
            &Request::Mark { id },
            ANSWER_LIMIT,
            |event| matches!(event, Event::Marked { id: got, .. } if *got == id),
        ) {
            Some(Event::Marked { taken: true, .. }) => Some(id),
            _ => None,
        }
    }

    pub fn window(&self, start: u64, end: u64) -> Option<JvmWindow> {
        match self
            .link
            .ask(&Request::Window { start, end }, ANSWER_LIMIT, |event| matches!(event, Event::Window { .. }))
        {
            Some(Event::Window { window }) => window.map(|window| *window),
            _ => None,
        }
    }
}
