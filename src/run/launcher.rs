//! The target's process lifecycle: start it in its own process group with output to files (and killed if jload
//! dies), wait until it answers its ready URL, notice when it dies, and stop it (SIGTERM, then SIGKILL).

use std::collections::BTreeMap;
use std::fs::File;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::load::probe::get_status;

/// Everything needed to start the target once.
pub struct LaunchSpec {
    pub program: PathBuf,
    pub args: Vec<String>,
    pub env: BTreeMap<String, String>,
    pub workdir: PathBuf,
    pub stdout: PathBuf,
    pub stderr: PathBuf,
}

/// How the target ended.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct ExitInfo {
    pub code: Option<i32>,
    pub signal: Option<i32>,
    /// True when jload stopped it (a normal end of a cell), false when it died by itself.
    pub stopped_by_jload: bool,
}

impl ExitInfo {
    pub fn describe(&self) -> String {
        match (self.code, self.signal) {
            (Some(code), _) => format!("exit code {code}"),
            (None, Some(signal)) => format!("killed by signal {signal}"),
            _ => "unknown exit".to_string(),
        }
    }
}

pub enum Readiness {
    Ready(Duration),
    Exited(ExitInfo),
    TimedOut,
    Interrupted,
}

pub struct RunningTarget {
    child: Child,
    pub pid: u32,
    pub started: Instant,
    exit: Option<ExitInfo>,
}

impl RunningTarget {
    pub fn start(spec: &LaunchSpec) -> anyhow::Result<RunningTarget> {
        let stdout = File::create(&spec.stdout)?;
        let stderr = File::create(&spec.stderr)?;
        let mut command = Command::new(&spec.program);
        command
            .args(&spec.args)
            .envs(&spec.env)
            .current_dir(&spec.workdir)
            .stdin(Stdio::null())
            .stdout(stdout)
            .stderr(stderr)
            .process_group(0);
        // SAFETY: prctl is async-signal-safe; it makes the kernel kill the target if jload dies, so no JVM jload
        // started can outlive it.
        unsafe {
            command.pre_exec(|| {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = command.spawn().map_err(|err| anyhow::anyhow!("cannot start {}: {err}", spec.program.display()))?;
        Ok(RunningTarget { pid: child.id(), child, started: Instant::now(), exit: None })
    }

    /// Poll `url` until it answers 2xx, the process exits, `timeout` passes or `stop` is set.
    pub fn wait_ready(&mut self, url: &str, timeout: Duration, stop: &AtomicBool) -> Readiness {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(exit) = self.exited() {
                return Readiness::Exited(exit);
            }
            if stop.load(Ordering::Relaxed) {
                return Readiness::Interrupted;
            }
            if Instant::now() >= deadline {
                return Readiness::TimedOut;
            }
            if get_status(url, Duration::from_millis(500)).is_ok_and(|status| (200..300).contains(&status)) {
                return Readiness::Ready(self.started.elapsed());
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// The exit, if the process has ended.
    pub fn exited(&mut self) -> Option<ExitInfo> {
        if self.exit.is_none()
            && let Ok(Some(status)) = self.child.try_wait()
        {
            self.exit = Some(ExitInfo { code: status.code(), signal: status.signal(), stopped_by_jload: false });
        }
        self.exit.clone()
    }

    /// Stop the whole process group: SIGTERM, then SIGKILL after `grace`. Returns how it ended.
    pub fn stop(&mut self, grace: Duration) -> ExitInfo {
        if let Some(exit) = self.exited() {
            kill_group(self.pid, libc::SIGKILL); // leftovers of the group, if any
            return exit;
        }
        kill_group(self.pid, libc::SIGTERM);
        let deadline = Instant::now() + grace;
        while Instant::now() < deadline {
            if let Some(mut exit) = self.exited() {
                exit.stopped_by_jload = true;
                kill_group(self.pid, libc::SIGKILL);
                self.exit = Some(exit.clone());
                return exit;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        kill_group(self.pid, libc::SIGKILL);
        let status = self.child.wait().ok();
        let exit = ExitInfo {
            code: status.and_then(|status| status.code()),
            signal: status.and_then(|status| status.signal()),
            stopped_by_jload: true,
        };
        self.exit = Some(exit.clone());
        exit
    }
}

impl Drop for RunningTarget {
    fn drop(&mut self) {
        if self.exit.is_none() {
            kill_group(self.pid, libc::SIGKILL);
            let _ = self.child.wait();
        }
    }
}

fn kill_group(pid: u32, signal: i32) {
    // SAFETY: sending a signal to the process group we created (its id is the leader's pid).
    unsafe {
        libc::kill(-(pid as i32), signal);
    }
}

/// A loopback port that was free a moment ago.
pub fn free_port() -> anyhow::Result<u16> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    Ok(listener.local_addr()?.port())
}

/// Why a JVM died, from its output and crash files: `OutOfMemoryError`, a fatal error (hs_err), or nothing known.
pub fn crash_cause(stdout: &Path, stderr: &Path, cell_dir: &Path) -> Option<String> {
    for path in [stderr, stdout] {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        if let Some(line) = text.lines().find(|line| line.contains("OutOfMemoryError")) {
            return Some(format!("OutOfMemoryError: {}", line.trim()));
        }
    }
    let hs_err = std::fs::read_dir(cell_dir)
        .ok()?
        .filter_map(Result::ok)
        .find(|entry| entry.file_name().to_string_lossy().starts_with("hs_err_pid"))?;
    Some(format!("JVM fatal error, see {}", hs_err.path().display()))
}
