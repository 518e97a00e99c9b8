//! The target's process lifecycle: start it in its own process group with output to files (and killed if jload
//! dies), wait until it answers its ready URL, notice when it dies, find its JVM and any process it left behind,
//! and stop its whole tree (SIGTERM, then SIGKILL).
//!
//! The tree is the process group plus every process carrying the start's marker in its environment
//! ([`MARKER_VARIABLE`], inherited by every descendant, even one that left the group) or listening on its port.
//!
//! Whose server answers: a start is refused while a port the cell's URLs reach is already in use ([`PortInUse`],
//! naming who holds it), and a listener counts as the target's only when it is of its own tree
//! ([`RunningTarget::owns`]: the started process, its group, its descendants, the marker) — listening on the port
//! never makes a process the target's there.

use std::collections::BTreeMap;
use std::fs::File;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::cgroup::{BoxReader, BoxSample, CellBox, Cgroups, Limits, remove_stale};
use crate::cpuset::CpuSet;
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
    /// Every port the cell's URLs reach (`port` among them when they use `{port}`, a fixed one when they name it):
    /// the start is refused while one is in use, and their listeners must be the target's own.
    #[serde(default)]
    pub ports: Vec<u16>,
    /// The box the target's whole tree runs in (a fresh cgroup per start, removed with the target); none unset.
    #[serde(default)]
    pub limits: Limits,
}

/// How long a start waits for a port in use to be let go (a previous cell's process still exiting) before refusing.
const PORT_RELEASE_WAIT: Duration = Duration::from_secs(2);
/// How often a stop looks whether the tree has ended: a JVM that exits at SIGTERM is let go within this.
const STOP_POLL: Duration = Duration::from_millis(20);

/// A process listening on a port where the target runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Listener {
    /// None: a socket listens there but jload cannot see its process (another user's, when jload is not root).
    pub pid: Option<u32>,
    /// Its command line, shortened for messages.
    pub command: String,
    /// Of the target's own tree ([`RunningTarget::owns`]).
    pub own: bool,
}

impl Listener {
    /// `pid 4242 (python3 -m http.server 8088)`, or what is known of a process jload cannot see.
    pub fn describe(&self) -> String {
        match self.pid {
            Some(pid) => format!("pid {pid} ({})", self.command),
            None => "a process jload cannot see (another user's; `ss -ltnp` as root names it)".to_string(),
        }
    }

    /// The listeners in one phrase: `pid 1 (a), pid 2 (b)`.
    pub fn describe_all(listeners: &[Listener]) -> String {
        listeners.iter().map(Listener::describe).collect::<Vec<_>>().join(", ")
    }
}

/// The processes listening on TCP `port` on this machine (any address), none counted as a target's yet.
pub fn port_listeners(port: u16) -> Vec<Listener> {
    let Ok(inodes) = procfs::listening_socket_inodes(port) else { return Vec::new() };
    if inodes.is_empty() {
        return Vec::new();
    }
    let owners = procfs::socket_owners(&inodes).unwrap_or_default();
    if owners.is_empty() {
        return vec![Listener { pid: None, command: String::new(), own: false }];
    }
    owners.into_iter().map(|pid| Listener { pid: Some(pid), command: short_command_line(pid), own: false }).collect()
}

/// A process' command line for a message: its words joined, at most 100 characters (else its short name).
fn short_command_line(pid: u32) -> String {
    const LIMIT: usize = 100;
    let words = procfs::cmdline(pid).unwrap_or_default();
    if words.is_empty() {
        return procfs::command_name(pid);
    }
    let line = words.join(" ");
    if line.chars().count() <= LIMIT { line } else { format!("{}…", line.chars().take(LIMIT).collect::<String>()) }
}

/// The cgroup boxes of jloads that were killed on this machine, removed (their names); none where cgroups cannot be
/// read. Run before any target starts.
pub fn remove_stale_boxes() -> Vec<String> {
    Cgroups::detect().ok().and_then(|cgroups| remove_stale(&cgroups).ok()).unwrap_or_default()
}

/// Whether a box with `limits` can be made on this machine; else why not, in one line.
pub fn check_box(limits: &Limits) -> Result<(), String> {
    Cgroups::detect().and_then(|cgroups| cgroups.require(limits)).map_err(|err| err.to_string())
}

/// A start refused: a port the cell's URLs reach was already in use, and by whom.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PortInUse {
    pub port: u16,
    pub holders: Vec<Listener>,
}

impl std::fmt::Display for PortInUse {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "port {} was already in use by {}", self.port, Listener::describe_all(&self.holders))
    }
}

impl std::error::Error for PortInUse {}

/// Refuse a start while one of `ports` is in use: each is given [`PORT_RELEASE_WAIT`] to be let go.
fn refuse_ports_in_use(ports: &[u16]) -> Result<(), PortInUse> {
    let deadline = Instant::now() + PORT_RELEASE_WAIT;
    for &port in ports {
        loop {
            let holders = port_listeners(port);
            if holders.is_empty() {
                break;
            }
            if Instant::now() >= deadline {
                return Err(PortInUse { port, holders });
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    Ok(())
}

pub enum Readiness {
    Ready(Duration),
    Exited(ExitInfo),
    /// The connection to a remote target's server was lost; why.
    Lost(String),
    TimedOut,
    Interrupted,
    /// The ready URL answered, but a process outside the target's tree listens on one of its ports: not ready.
    Foreign {
        port: u16,
        listeners: Vec<Listener>,
    },
}

pub struct RunningTarget {
    child: Child,
    /// The started process (the JVM itself, or a wrapper around it).
    pub pid: u32,
    pub started: Instant,
    exit: Option<ExitInfo>,
    marker: String,
    port: u16,
    /// The target's cgroup box; dropped (emptied and removed) after the target, with the `RunningTarget`.
    cell_box: Option<CellBox>,
}

impl RunningTarget {
    /// Start the target; refused ([`PortInUse`]) while a port of `spec.ports` is in use.
    pub fn start(spec: &LaunchSpec) -> anyhow::Result<RunningTarget> {
        refuse_ports_in_use(&spec.ports)?;
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
        // Made before the spawn, so a failed spawn drops (removes) it again.
        let cell_box = if spec.limits == Limits::default() {
            None
        } else {
            let cell_box = Cgroups::detect()
                .and_then(|cgroups| CellBox::create(&cgroups, &spec.limits))
                .map_err(|err| anyhow::anyhow!("cannot make the target's cgroup box: {err}"))?;
            cell_box.enter_before_exec(&mut command);
            Some(cell_box)
        };
        let child = command.spawn().map_err(|err| anyhow::anyhow!("cannot start {}: {err}", spec.program.display()))?;
        Ok(RunningTarget {
            pid: child.id(),
            child,
            started: Instant::now(),
            exit: None,
            marker: spec.marker.clone(),
            port: spec.port,
            cell_box,
        })
    }

    /// The box's figures now (memory, OOM kills, CPU throttling); None without a box or when it cannot be read.
    pub fn box_sample(&self) -> Option<BoxSample> {
        self.cell_box.as_ref().and_then(|cell_box| cell_box.sample().ok())
    }

    /// A reader of the target's box, for a watch of its own (None without a box).
    pub fn box_reader(&self) -> Option<BoxReader> {
        self.cell_box.as_ref().map(CellBox::reader)
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

    /// Whether process `pid` is of this start's tree: the started process, a process of its group, a descendant of
    /// it, or a process carrying the start's marker. Listening on the target's port does not make it one.
    pub fn owns(&self, pid: u32) -> bool {
        const DEPTH_LIMIT: usize = 64;
        let mut current = pid;
        for _ in 0..DEPTH_LIMIT {
            if current == self.pid {
                return true;
            }
            let Some((group, parent)) = procfs::group_and_parent(current) else { break };
            if group == self.pid {
                return true;
            }
            if parent <= 1 {
                break;
            }
            current = parent;
        }
        procfs::has_environment(pid, MARKER_VARIABLE, &self.marker)
    }

    /// The processes listening on TCP `port`, each marked whether it is of this start's tree.
    pub fn listeners(&self, port: u16) -> Vec<Listener> {
        let mut listeners = port_listeners(port);
        for listener in &mut listeners {
            listener.own = listener.pid.is_some_and(|pid| self.owns(pid));
        }
        listeners
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

    /// Stop the whole tree: SIGTERM, then SIGKILL after `grace` to whatever is left. Returns how the started
    /// process ended (`stopped_by_jload` false when it had already exited by itself).
    pub fn stop(&mut self, grace: Duration) -> ExitInfo {
        let ended_by_itself = self.exited();
        self.signal_tree(libc::SIGTERM);
        let deadline = Instant::now() + grace;
        while Instant::now() < deadline && (self.exited().is_none() || !self.others().is_empty()) {
            std::thread::sleep(STOP_POLL);
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

    fn spec_in(dir: &std::path::Path, program: &str, args: &[&str], ports: Vec<u16>) -> LaunchSpec {
        LaunchSpec {
            program: program.into(),
            args: args.iter().map(ToString::to_string).collect(),
            env: BTreeMap::new(),
            workdir: dir.to_path_buf(),
            stdout: dir.join("stdout.log"),
            stderr: dir.join("stderr.log"),
            marker: dir.display().to_string(),
            port: free_port().unwrap(),
            ports,
            cpus: None,
            limits: Limits::default(),
        }
    }

    /// `target`'s listeners on `port`, read every 10 ms until `settled` holds of them or `limit` has passed.
    fn listeners_once(
        target: &RunningTarget,
        port: u16,
        limit: Duration,
        settled: impl Fn(&[Listener]) -> bool,
    ) -> Vec<Listener> {
        let deadline = Instant::now() + limit;
        loop {
            let listeners = target.listeners(port);
            if settled(&listeners) || Instant::now() > deadline {
                return listeners;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    #[test]
    fn a_listener_the_target_started_is_its_own_one_outside_its_tree_is_not_and_refuses_a_start() {
        let dir = tempfile::tempdir().unwrap();
        let port = free_port().unwrap();
        // The listener is a child of the started shell, not the started process itself.
        let listen = format!(
            "import socket, time\ns = socket.socket()\ns.bind(('127.0.0.1', {port}))\ns.listen()\ntime.sleep(60)"
        );
        let script = format!("python3 -c \"{listen}\"; true");
        let mut target = RunningTarget::start(&spec_in(dir.path(), "sh", &["-c", &script], vec![port])).unwrap();
        let listeners = listeners_once(&target, port, Duration::from_secs(30), |listeners| !listeners.is_empty());
        assert!(!listeners.is_empty(), "python3 never listened");
        assert_eq!(listeners.len(), 1);
        assert!(listeners[0].own && listeners[0].pid != Some(target.pid), "{listeners:?}");
        let foreign = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let foreign_port = foreign.local_addr().unwrap().port();
        // Another test of this binary that starts a process holds every socket of it, this one too, between its
        // fork and its exec (a millisecond or so): read again until that child has gone on to its program.
        let seen = listeners_once(&target, foreign_port, Duration::from_secs(5), |listeners| listeners.len() == 1);
        assert_eq!((seen.len(), seen[0].pid, seen[0].own), (1, Some(std::process::id()), false), "{seen:?}");
        target.stop(Duration::from_secs(5));
        let other = tempfile::tempdir().unwrap();
        let refused = RunningTarget::start(&spec_in(other.path(), "true", &[], vec![foreign_port])).err().unwrap();
        let refused = refused.downcast_ref::<PortInUse>().expect("refused for the port");
        assert_eq!((refused.port, refused.holders[0].pid), (foreign_port, Some(std::process::id())));
        assert!(!other.path().join("stdout.log").exists(), "nothing started");
    }

    #[test]
    fn a_start_that_fails_removes_its_box_again() {
        let dir = tempfile::tempdir().unwrap();
        let mut spec = spec_in(dir.path(), "/nonexistent/java", &[], Vec::new());
        spec.limits = Limits { memory_bytes: Some(64 << 20), cpus_quota: Some(0.5) };
        let error = RunningTarget::start(&spec).err().unwrap().to_string();
        assert!(error.starts_with("cannot start /nonexistent/java: "), "{error}");
        let ours = format!("{}-", std::process::id());
        for home in Cgroups::detect().unwrap().homes() {
            let left: Vec<String> = std::fs::read_dir(&home)
                .into_iter()
                .flatten()
                .flatten()
                .map(|entry| entry.file_name().to_string_lossy().into_owned())
                .filter(|name| name.starts_with(&ours))
                .collect();
            assert_eq!(left, Vec::<String>::new(), "in {}", home.display());
        }
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
            ports: Vec::new(),
            cpus: Some(CpuSet::parse(&cpu.to_string()).unwrap()),
            limits: Limits::default(),
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
