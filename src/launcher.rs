//! The target's process lifecycle: start it in its own process group with output to files (and killed if jload
//! dies), wait until it answers its ready URL, notice when it dies, find its JVM and any process it left behind,
//! and stop its whole tree (SIGTERM, then SIGKILL).
//!
//! The tree is the process group plus every process carrying the start's marker in its environment
//! ([`MARKER_VARIABLE`], inherited by every descendant, even one that left the group) or listening on its port.

use std::collections::BTreeMap;
use std::fs::File;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::cpuset::CpuSet;
use crate::jvm::clock::{self, ClockInterval, ClockSource};
use crate::jvm::watch::JvmWatch;
use crate::jvm::{discovery, procfs};
use crate::results::ExitInfo;

/// The environment variable that marks every process of one start of a target.
pub const MARKER_VARIABLE: &str = "JLOAD_TARGET";

/// Everything needed to start the target once (sent as is to the agent of a remote target).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LaunchSpec {
    pub program: PathBuf,
    pub args: Vec<String>,
    pub env: BTreeMap<String, String>,
    pub workdir: PathBuf,
    pub stdout: PathBuf,
    pub stderr: PathBuf,
    /// Unique to this start (e.g. the cell-repeat's folder): the value of [`MARKER_VARIABLE`].
    pub marker: String,
    /// The port the target was told to listen on.
    pub port: u16,
    /// Run the target (and every process it starts) on these CPUs only.
    pub cpus: Option<CpuSet>,
}

pub enum Readiness {
    Ready(Duration),
    Exited(ExitInfo),
    /// The connection to a remote target's server was lost; why.
    Lost(String),
    TimedOut,
    Interrupted,
}

pub struct RunningTarget {
    child: Child,
    /// The started process (the JVM itself, or a wrapper around it).
    pub pid: u32,
    pub started: Instant,
    exit: Option<ExitInfo>,
    marker: String,
    port: u16,
}

impl RunningTarget {
    pub fn start(spec: &LaunchSpec) -> anyhow::Result<RunningTarget> {
        let stdout = File::create(&spec.stdout)?;
        let stderr = File::create(&spec.stderr)?;
        let mut command = Command::new(&spec.program);
        command
            .args(&spec.args)
            .envs(&spec.env)
            .env(MARKER_VARIABLE, &spec.marker)
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
        if let Some(cpus) = &spec.cpus {
            cpus.apply_to(&mut command)?;
        }
        let child = command.spawn().map_err(|err| anyhow::anyhow!("cannot start {}: {err}", spec.program.display()))?;
        Ok(RunningTarget {
            pid: child.id(),
            child,
            started: Instant::now(),
            exit: None,
            marker: spec.marker.clone(),
            port: spec.port,
        })
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

    /// Live processes of the tree other than the started one: its children that kept the marker, a daemon that
    /// left the group, whatever listens on the target's port.
    pub fn others(&self) -> Vec<u32> {
        let mut pids = procfs::pids_with_environment(MARKER_VARIABLE, &self.marker);
        pids.extend(procfs::listeners(self.port));
        pids.sort_unstable();
        pids.dedup();
        pids.retain(|&pid| pid != self.pid && pid != std::process::id());
        pids
    }

    /// When the started command has exited successfully but processes of its tree still run (a start script that
    /// daemonizes, `startup.sh`): the one-line cause. Those processes are stopped with the rest of the tree. (A command
    /// that failed or was killed is judged as a crash, whatever it left behind.)
    pub fn daemon_note(&mut self) -> Option<String> {
        if self.exited().is_none_or(|exit| exit.code != Some(0)) {
            return None;
        }
        let left: Vec<String> =
            self.others().iter().map(|&pid| format!("{pid} ({})", procfs::command_name(pid))).collect();
        if left.is_empty() {
            return None;
        }
        Some(format!(
            "the command exited and left process {} running in the background (stopped now): the command must stay \
             in the foreground, e.g. `catalina.sh run` instead of `startup.sh`",
            left.join(", ")
        ))
    }

    /// The JVM to sample: the started process or, for a wrapper, the descendant that listens on the port and
    /// publishes PerfData (see [`discovery::service_jvm`]).
    pub fn jvm_pid(&mut self) -> Option<u32> {
        let mut candidates = self.others();
        if self.exited().is_none() {
            candidates.push(self.pid);
        }
        discovery::service_jvm(&candidates, self.port)
    }

    /// Start watching the JVM to sample (see [`RunningTarget::jvm_pid`]) every second into the `csv` file (a cell's
    /// gcstat.csv), and read where its uptime 0 lies on the wall clock from its PerfData ([`clock::from_perfdata`]).
    /// None for the watch when no JVM with PerfData is found in the tree within 5 s.
    pub fn watch_jvm(&mut self, csv: PathBuf) -> (Option<JvmWatch>, Option<(ClockSource, ClockInterval)>) {
        let jvm_pid = self.jvm_pid();
        let clock = jvm_pid.and_then(clock::from_perfdata);
        let watch = jvm_pid
            .and_then(|pid| JvmWatch::start(pid, Duration::from_secs(1), Some(csv), Duration::from_secs(5)).ok());
        (watch, clock)
    }

    /// Stop the whole tree: SIGTERM, then SIGKILL after `grace` to whatever is left. Returns how the started
    /// process ended (`stopped_by_jload` false when it had already exited by itself).
    pub fn stop(&mut self, grace: Duration) -> ExitInfo {
        let ended_by_itself = self.exited();
        self.signal_tree(libc::SIGTERM);
        let deadline = Instant::now() + grace;
        while Instant::now() < deadline && (self.exited().is_none() || !self.others().is_empty()) {
            std::thread::sleep(Duration::from_millis(100));
        }
        self.signal_tree(libc::SIGKILL);
        if let Some(exit) = ended_by_itself {
            return exit;
        }
        let exit = match self.exited() {
            Some(exit) => exit,
            None => {
                let status = self.child.wait().ok();
                ExitInfo {
                    code: status.and_then(|status| status.code()),
                    signal: status.and_then(|status| status.signal()),
                    stopped_by_jload: true,
                }
            }
        };
        let exit = ExitInfo { stopped_by_jload: true, ..exit };
        self.exit = Some(exit.clone());
        exit
    }

    /// Send `signal` to the process group and to every other process of the tree.
    fn signal_tree(&self, signal: i32) {
        kill_group(self.pid, signal);
        for pid in self.others() {
            // SAFETY: a process of the target's tree (it carries this start's marker or holds its port).
            unsafe {
                libc::kill(pid as i32, signal);
            }
        }
    }
}

impl Drop for RunningTarget {
    fn drop(&mut self) {
        if self.exit.is_none() || !self.others().is_empty() {
            self.signal_tree(libc::SIGKILL);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A Java program that starts a child process, prints how many CPUs the JVM sees and the child's pid, and waits.
    const PINNED_JAVA: &str = "public class Pinned {\n  public static void main(String[] args) throws Exception {\n    \
        Process child = new ProcessBuilder(\"sleep\", \"60\").start();\n    \
        System.out.println(Runtime.getRuntime().availableProcessors() + \" \" + child.pid());\n    \
        Thread.sleep(60000);\n  }\n}\n";

    fn allowed_cpus(pid: u32) -> String {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
        let line = status.lines().find(|line| line.starts_with("Cpus_allowed_list:")).unwrap();
        line.split_once(':').unwrap().1.trim().to_string()
    }

    #[test]
    fn a_target_started_with_cpus_runs_there_with_its_children_and_the_jvm_counts_only_them() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("Pinned.java"), PINNED_JAVA).unwrap();
        let cpu = CpuSet::available().unwrap().cpus()[0];
        let spec = LaunchSpec {
            program: "java".into(),
            args: vec!["Pinned.java".into()],
            env: BTreeMap::new(),
            workdir: dir.path().to_path_buf(),
            stdout: dir.path().join("stdout.log"),
            stderr: dir.path().join("stderr.log"),
            marker: dir.path().display().to_string(),
            port: free_port().unwrap(),
            cpus: Some(CpuSet::parse(&cpu.to_string()).unwrap()),
        };
        let mut target = RunningTarget::start(&spec).unwrap();
        let deadline = Instant::now() + Duration::from_secs(60);
        let printed = loop {
            let text = std::fs::read_to_string(&spec.stdout).unwrap();
            if text.ends_with('\n') {
                break text;
            }
            let stderr = std::fs::read_to_string(&spec.stderr).unwrap();
            assert!(target.exited().is_none() && Instant::now() < deadline, "no output from the JVM: {stderr}");
            std::thread::sleep(Duration::from_millis(50));
        };
        let (processors, child) = printed.trim().split_once(' ').unwrap();
        assert_eq!(processors, "1", "Runtime.availableProcessors()");
        assert_eq!(allowed_cpus(target.pid), cpu.to_string(), "the JVM");
        assert_eq!(allowed_cpus(child.parse().unwrap()), cpu.to_string(), "the JVM's child");
        target.stop(Duration::from_secs(5));
    }
}
