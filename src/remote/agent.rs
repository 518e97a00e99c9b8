//! `jload agent target`: the far side of a remote target, run by the controlling jload over ssh on the target's
//! server. It starts the target with the same launcher a local run uses (own process group, killed with the agent),
//! samples its JVM into the cell's folder, answers marks and windows and reads of its native memory, and stops the
//! whole tree when told to — or on its own when the controller goes silent (a cut link, where sshd may never notice)
//! or its connection closes, so a lost connection never leaves a JVM running on the server.

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use super::protocol::{Event, HEARTBEAT_INTERVAL_MS, Request};
use crate::jvm::attach::nmt_reader::NmtReader;
use crate::jvm::perfdata::sampler::JvmSample;
use crate::jvm::procfs;
use crate::jvm::watch::JvmWatch;
use crate::launcher::{LaunchSpec, PortInUse, RunningTarget};

/// The grace a target gets when the agent stops it on its own.
const STOP_GRACE: Duration = Duration::from_secs(5);

/// Serve one target from start to stop, giving up after `silence_limit` without a word from the controller; the exit
/// code of `jload agent target`.
pub fn serve_target(silence_limit: Duration) -> anyhow::Result<i32> {
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
    let mut agent = Agent { spec, target, watch: None, marks: HashMap::new(), exit_told: false, nmt: None };
    Ok(agent.serve(&requests, &mut out, silence_limit))
}

struct Agent {
    spec: LaunchSpec,
    target: RunningTarget,
    watch: Option<JvmWatch>,
    marks: HashMap<u64, Option<JvmSample>>,
    exit_told: bool,
    /// The JVM's native memory reads, once its JVM is found.
    nmt: Option<NmtReader>,
}

impl Agent {
    fn serve(&mut self, requests: &Receiver<Option<Request>>, out: &mut impl Write, silence_limit: Duration) -> i32 {
        let mut last_heard = Instant::now();
        loop {
            match requests.recv_timeout(Duration::from_millis(HEARTBEAT_INTERVAL_MS / 10)) {
                Ok(Some(Request::Stop { grace_ms })) => {
                    let daemon_note = self.target.daemon_note();
                    let exit = self.target.stop(Duration::from_millis(grace_ms));
                    self.watch = None; // flushes the CSV
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
            Request::Watch => {
                let dir = self.spec.stdout.parent().unwrap_or(std::path::Path::new("."));
                let (watch, clock) = self.target.watch_jvm(crate::results::RepFiles::of(dir).gcstat());
                let jvm_pid = watch.as_ref().and_then(|_| self.target.jvm_pid());
                self.watch = watch;
                Some(Event::Watching { jvm_pid, clock })
            }
            Request::Mark { id } => {
                let sample = self.watch.as_ref().and_then(JvmWatch::mark);
                let taken = sample.is_some();
                self.marks.insert(id, sample);
                Some(Event::Marked { id, taken })
            }
            Request::Window { start, end } => {
                let window = match (&self.watch, self.marks.get(&start), self.marks.get(&end)) {
                    (Some(watch), Some(Some(start)), Some(Some(end))) => Some(Box::new(watch.window(start, end))),
                    _ => None,
                };
                Some(Event::Window { window })
            }
            Request::Listening => Some(Event::Listening { addresses: procfs::listening_addresses(self.spec.port) }),
            Request::Listeners { ports } => Some(Event::Listeners {
                ports: ports.into_iter().map(|port| (port, self.target.listeners(port))).collect(),
            }),
            Request::BoxSample => Some(Event::BoxSampled { sample: self.target.box_sample() }),
            Request::NmtRead => {
                if self.nmt.is_none() {
                    self.nmt = self.target.jvm_pid().map(NmtReader::new);
                }
                let taken = self.nmt.as_mut().and_then(NmtReader::read);
                let box_usage = taken.as_ref().and_then(|_| Some(self.target.box_sample()?.memory?.usage));
                Some(Event::NmtRead { taken, box_usage })
            }
            Request::Ping => Some(Event::Pong { unix_us: crate::load::engine::unix_us(std::time::SystemTime::now()) }),
            Request::Heartbeat | Request::Start(_) | Request::Stop { .. } | Request::Load(_) | Request::EndLoad => None,
        }
    }

    /// The controller is gone: stop the target and end.
    fn give_up(&mut self) -> i32 {
        self.target.stop(STOP_GRACE);
        self.watch = None;
        3
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
