//! `jload agent target`: the far side of a remote target, run by the controlling jload over ssh on the target's server.
//! It starts the target with the same launcher a local run uses (own process group, killed with the agent), answers the
//! calls of the cell's probes with their far sides ([`FarProbe`]: sampling the JVM into the cell's folder, its box, its
//! native memory), and stops the whole tree when told to — or on its own when the controller goes silent (a cut link,
//! where sshd may never notice) or its connection closes, so a lost connection never leaves a JVM running on the
//! server.

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use super::messages::{Event, HEARTBEAT_INTERVAL_MS, Request};
use crate::jvm::procfs;
use crate::launcher::{LaunchSpec, PortInUse, RunningTarget};

/// The grace a target gets when the agent stops it on its own.
const STOP_GRACE: Duration = Duration::from_secs(5);

/// The far side of one of the cell's probes, where the target runs: it answers the probe's calls (serde values of the
/// probe's own types) and ends what it runs in the background once the target is stopped.
pub trait FarProbe: Send {
    /// The answer to `call`; None for a call it cannot read.
    fn answer_value(&mut self, target: &mut RunningTarget, call: serde_json::Value) -> Option<serde_json::Value>;
    fn stopped(&mut self, target: &mut RunningTarget);
}

/// The far side of the probe of that name (None: no such probe).
pub type FarProbes = fn(&str) -> Option<Box<dyn FarProbe>>;

/// Serve one target from start to stop, giving up after `silence_limit` without a word from the controller; the exit
/// code of `jload agent target`. `far_probes` makes each probe's far side on its first call.
pub fn serve_target(silence_limit: Duration, far_probes: FarProbes) -> anyhow::Result<i32> {
    let requests = read_requests();
    let mut out = std::io::stdout().lock();
    let spec = first_request(&requests, &mut out, "start", |request| match request {
        Request::Start(spec) => Some(spec),
        _ => None,
    })?;
    let mut target = match start(&spec) {
        Ok(target) => target,
        Err(err) => {
            let port_in_use = err.downcast_ref::<PortInUse>().cloned();
            send(&mut out, &Event::StartFailed { message: format!("{err:#}"), port_in_use });
            return Ok(1);
        }
    };
    if !send(&mut out, &Event::Started { pid: target.pid }) {
        target.stop(STOP_GRACE);
        return Ok(1);
    }
    let mut agent = Agent { spec, target, far_probes, probes: HashMap::new(), exit_told: false };
    Ok(agent.serve(&requests, &mut out, silence_limit))
}

struct Agent {
    spec: LaunchSpec,
    target: RunningTarget,
    far_probes: FarProbes,
    /// Each probe's far side, made on its first call (None: no such probe).
    probes: HashMap<String, Option<Box<dyn FarProbe>>>,
    exit_told: bool,
}

impl Agent {
    fn serve(&mut self, requests: &Receiver<Option<Request>>, out: &mut impl Write, silence_limit: Duration) -> i32 {
        let mut last_heard = Instant::now();
        loop {
            match requests.recv_timeout(Duration::from_millis(HEARTBEAT_INTERVAL_MS / 10)) {
                Ok(Some(Request::Stop { grace_ms })) => {
                    let daemon_note = self.target.daemon_note();
                    let exit = self.target.stop(Duration::from_millis(grace_ms));
                    self.probes_stopped(); // their last rows, files flushed
                    send(out, &Event::Stopped { exit, daemon_note });
                    return 0;
                }
                Ok(Some(request)) => {
                    last_heard = Instant::now();
                    if let Some(event) = self.answer(request)
                        && !send(out, &event)
                    {
                        return self.give_up();
                    }
                }
                Ok(None) => return self.give_up(),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return self.give_up(),
            }
            if last_heard.elapsed() > silence_limit {
                return self.give_up();
            }
            if !self.exit_told
                && let Some(exit) = self.target.exited()
            {
                self.exit_told = true;
                let daemon_note = self.target.daemon_note();
                if !send(out, &Event::Exited { exit, daemon_note }) {
                    return self.give_up();
                }
            }
        }
    }

    fn answer(&mut self, request: Request) -> Option<Event> {
        match request {
            Request::Probe { probe, call } => {
                let far = self.probes.entry(probe.clone()).or_insert_with(|| (self.far_probes)(&probe));
                let answer = far.as_mut().and_then(|far| far.answer_value(&mut self.target, call));
                Some(Event::Probed { probe, answer })
            }
            Request::Listening => Some(Event::Listening { addresses: procfs::listening_addresses(self.spec.port) }),
            Request::Listeners { ports } => Some(Event::Listeners {
                ports: ports.into_iter().map(|port| (port, self.target.listeners(port))).collect(),
            }),
            Request::Ping => Some(Event::Pong { unix_us: crate::load::engine::unix_us(std::time::SystemTime::now()) }),
            Request::Heartbeat | Request::Start(_) | Request::Stop { .. } | Request::Load(_) | Request::EndLoad => None,
        }
    }

    /// The controller is gone: stop the target and end.
    fn give_up(&mut self) -> i32 {
        self.target.stop(STOP_GRACE);
        self.probes_stopped();
        3
    }

    /// Tell every probe's far side that the target is stopped.
    fn probes_stopped(&mut self) {
        for far in self.probes.values_mut().flatten() {
            far.stopped(&mut self.target);
        }
    }
}

/// Create the target's folder and start it.
fn start(spec: &LaunchSpec) -> anyhow::Result<RunningTarget> {
    if let Some(dir) = spec.stdout.parent() {
        std::fs::create_dir_all(dir)?;
    }
    RunningTarget::start(spec)
}

/// Wait for the request that starts an agent's work (`pick` takes it, `name` names it in the error), answering pings
/// and ignoring heartbeats meanwhile; anything else first is an error.
pub fn first_request<T>(
    requests: &Receiver<Option<Request>>,
    out: &mut impl Write,
    name: &str,
    pick: impl Fn(Request) -> Option<T>,
) -> anyhow::Result<T> {
    loop {
        match requests.recv().ok().flatten() {
            Some(Request::Heartbeat) => {}
            Some(Request::Ping) => {
                send(out, &Event::Pong { unix_us: crate::load::engine::unix_us(std::time::SystemTime::now()) });
            }
            Some(request) => {
                return pick(request).ok_or_else(|| anyhow::anyhow!("jload agent: the first request must be {name}"));
            }
            None => anyhow::bail!("jload agent: the controller left before asking for anything"),
        }
    }
}

/// Requests read from standard input on a thread of their own; None once it closes or carries garbage.
pub fn read_requests() -> Receiver<Option<Request>> {
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            let Ok(line) = line else { break };
            match serde_json::from_str::<Request>(&line) {
                Ok(request) => {
                    if sender.send(Some(request)).is_err() {
                        return;
                    }
                }
                Err(_) => break,
            }
        }
        let _ = sender.send(None);
    });
    receiver
}

/// Write one event line; false when the controller can no longer be reached.
pub fn send(out: &mut impl Write, event: &Event) -> bool {
    let Ok(line) = serde_json::to_string(event) else { return false };
    writeln!(out, "{line}").and_then(|()| out.flush()).is_ok()
}
