//! The controller's end of a connection to a remote agent: the ssh process, a thread reading the agent's events
//! (an `Exited` is kept whenever it comes; answers go to whoever asked), a thread saying "still here" every second, one
//! request at a time with a time limit, and the connection's loss noticed and kept with its cause.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::messages::{Event, HEARTBEAT_INTERVAL_MS, Request};
use super::ssh::Ssh;
use crate::results::ExitInfo;

/// What the reader thread learnt on its own.
#[derive(Default)]
struct Heard {
    /// The target's own exit, with the daemon note.
    exited: Option<(ExitInfo, Option<String>)>,
    /// Why the connection is gone (None while it works).
    lost: Option<String>,
    /// The agent said its last word (`Stopped`, after which it ends): the end of its output is no lost connection.
    finished: bool,
}

pub struct AgentLink {
    destination: String,
    child: Mutex<Child>,
    stdin: Mutex<Option<ChildStdin>>,
    answers: Mutex<Receiver<Event>>,
    heard: Arc<Mutex<Heard>>,
    closing: Arc<AtomicBool>,
}

impl AgentLink {
    /// Start `jload agent ROLE` (`jload` the path of jload there) over `ssh`, told to give up after `silence_limit`
    /// without a word, and keep it alive.
    pub fn open(ssh: &Ssh, jload: &str, role: &str, silence_limit: Duration) -> anyhow::Result<Arc<AgentLink>> {
        let script =
            format!("{} agent {role} --silence-limit-ms {}", shell_words::quote(jload), silence_limit.as_millis());
        let mut child = ssh.spawn(&script)?;
        let stdout = child.stdout.take().expect("piped stdout");
        let stderr = child.stderr.take().expect("piped stderr");
        let stdin = child.stdin.take().expect("piped stdin");
        let heard = Arc::new(Mutex::new(Heard::default()));
        let closing = Arc::new(AtomicBool::new(false));
        let (sender, answers) = mpsc::channel();
        let last_words = Arc::new(Mutex::new(String::new()));
        {
            let last_words = last_words.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                    if !line.trim().is_empty() {
                        *last_words.lock().expect("stderr") = line.trim().to_string();
                    }
                }
            });
        }
        {
            let heard = heard.clone();
            let closing = closing.clone();
            let destination = ssh.destination().to_string();
            std::thread::spawn(move || {
                for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                    match serde_json::from_str::<Event>(&line) {
                        Ok(Event::Exited { exit, daemon_note }) => {
                            heard.lock().expect("heard").exited = Some((exit, daemon_note));
                        }
                        Ok(event) => {
                            if matches!(event, Event::Stopped { .. }) {
                                heard.lock().expect("heard").finished = true;
                            }
                            let _ = sender.send(event);
                        }
                        Err(_) => {} // not ours (a login banner or a shell's greeting)
                    }
                }
                if closing.load(Ordering::Relaxed) || heard.lock().expect("heard").finished {
                    return; // jload closed it, or the agent ended after its last word
                }
                std::thread::sleep(Duration::from_millis(50)); // let stderr's last line arrive
                let said = last_words.lock().expect("stderr").clone();
                let said = if said.is_empty() { String::new() } else { format!(": {said}") };
                heard
                    .lock()
                    .expect("heard")
                    .lost
                    .get_or_insert(format!("the ssh connection to {destination} ended{said}"));
            });
        }
        let link = Arc::new(AgentLink {
            destination: ssh.destination().to_string(),
            child: Mutex::new(child),
            stdin: Mutex::new(Some(stdin)),
            answers: Mutex::new(answers),
            heard,
            closing,
        });
        let beating = Arc::downgrade(&link);
        std::thread::spawn(move || {
            while let Some(link) = beating.upgrade() {
                if link.closing.load(Ordering::Relaxed) || !link.tell(&Request::Heartbeat) {
                    return;
                }
                drop(link);
                std::thread::sleep(Duration::from_millis(HEARTBEAT_INTERVAL_MS));
            }
        });
        Ok(link)
    }

    /// Send a request without waiting for anything; false when the connection is gone.
    pub fn tell(&self, request: &Request) -> bool {
        let Ok(line) = serde_json::to_string(request) else { return false };
        let mut stdin = self.stdin.lock().expect("stdin");
        let Some(pipe) = stdin.as_mut() else { return false };
        let sent = writeln!(pipe, "{line}").and_then(|()| pipe.flush());
        if let Err(err) = sent {
            self.heard
                .lock()
                .expect("heard")
                .lost
                .get_or_insert(format!("cannot write to {}: {err}", self.destination));
            return false;
        }
        true
    }

    /// Send `request` and wait up to `limit` for the answer `wanted` accepts. None: no answer (the connection is then
    /// marked lost with the cause).
    pub fn ask(&self, request: &Request, limit: Duration, wanted: impl Fn(&Event) -> bool) -> Option<Event> {
        let answers = self.answers.lock().expect("answers");
        while answers.try_recv().is_ok() {} // a late answer to an earlier question that timed out
        if !self.tell(request) {
            return None;
        }
        let deadline = Instant::now() + limit;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match answers.recv_timeout(left) {
                Ok(event) if wanted(&event) => return Some(event),
                Ok(_) => {}
                Err(RecvTimeoutError::Timeout) => {
                    self.heard.lock().expect("heard").lost.get_or_insert(format!(
                        "{} did not answer within {:.0} s",
                        self.destination,
                        limit.as_secs_f64()
                    ));
                    return None;
                }
                Err(RecvTimeoutError::Disconnected) => return None,
            }
        }
    }

    /// The target's own exit, once the agent has told it.
    pub fn exited(&self) -> Option<(ExitInfo, Option<String>)> {
        self.heard.lock().expect("heard").exited.clone()
    }

    /// Why the connection is gone, if it is.
    pub fn lost(&self) -> Option<String> {
        self.heard.lock().expect("heard").lost.clone()
    }

    /// Wall-clock offset of the agent's host from this one (its clock minus ours, µs) and the bound of that estimate:
    /// the round trip with the smallest delay of a few pings (NTP's rule), ± half that round trip.
    pub fn clock_offset(&self) -> Option<(i64, i64)> {
        let mut best: Option<(i64, i64)> = None;
        for _ in 0..8 {
            let sent = crate::load::engine::unix_us(std::time::SystemTime::now());
            let Some(Event::Pong { unix_us }) =
                self.ask(&Request::Ping, Duration::from_secs(5), |event| matches!(event, Event::Pong { .. }))
            else {
                return best;
            };
            let received = crate::load::engine::unix_us(std::time::SystemTime::now());
            let half = (received - sent + 1) / 2;
            let offset = unix_us - (sent + received) / 2;
            if best.is_none_or(|(_, bound)| half < bound) {
                best = Some((offset, half));
            }
        }
        best
    }

    /// Close the agent's input and wait for the ssh process (at most `limit`, then kill it).
    pub fn close(&self, limit: Duration) {
        self.closing.store(true, Ordering::Relaxed);
        self.stdin.lock().expect("stdin").take();
        let mut child = self.child.lock().expect("child");
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = child.kill();
        let _ = child.wait();
    }
}

impl Drop for AgentLink {
    fn drop(&mut self) {
        self.close(Duration::from_secs(2));
    }
}
