//! A target on its own server, driven through `jload agent target` over ssh: the same start, exit, daemon note,
//! listeners and stop as a local [`crate::launcher::RunningTarget`], the calls of the cell's probes to their far
//! sides there, plus the connection's loss.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::link::AgentLink;
use super::messages::{Event, Request};
use super::server::RemoteServer;
use crate::launcher::{LaunchSpec, Listener};
use crate::results::ExitInfo;

/// How long a question to the agent may take (a sample of PerfData and a line each way).
const ANSWER_LIMIT: Duration = Duration::from_secs(15);

pub struct RemoteTarget {
    link: Arc<AgentLink>,
    pub pid: u32,
    pub started: Instant,
    stopped: Option<ExitInfo>,
}

impl RemoteTarget {
    pub fn start(server: &RemoteServer, spec: &LaunchSpec) -> anyhow::Result<RemoteTarget> {
        let link = AgentLink::open(&server.ssh, &server.jload, "target", server.silence_limit)?;
        let started = Instant::now();
        let answer = link.ask(&Request::Start(spec.clone()), ANSWER_LIMIT, |event| {
            matches!(event, Event::Started { .. } | Event::StartFailed { .. })
        });
        match answer {
            Some(Event::Started { pid }) => Ok(RemoteTarget { link, pid, started, stopped: None }),
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

    /// The answer of the far side of the probe named `probe` to `call` (None: no answer — the agent has ended after
    /// a stop, the connection is lost, or the probe could not read the call).
    pub fn probe<C: Serialize, A: DeserializeOwned>(&self, probe: &str, call: &C) -> Option<A> {
        if self.stopped.is_some() || self.link.lost().is_some() {
            return None;
        }
        let request = Request::Probe { probe: probe.to_string(), call: serde_json::to_value(call).ok()? };
        let answer = self.link.ask(
            &request,
            ANSWER_LIMIT,
            |event| matches!(event, Event::Probed { probe: got, .. } if got == probe),
        );
        match answer {
            Some(Event::Probed { answer: Some(answer), .. }) => serde_json::from_value(answer).ok(),
            _ => None,
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
