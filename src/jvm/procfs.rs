//! What /proc says about a target process: CPU ticks, RSS and threads per sample, its command line and start
//! time, its pid inside its own pid namespace, whether it is a JVM at all, which process listens on a TCP port, and
//! which processes carry a given environment variable, and a process' group and parent (whose tree it belongs to).
//! Thin wrappers over the `procfs` crate.

use std::collections::HashSet;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use ::procfs::net::TcpState;
use ::procfs::process::{FDTarget, Process};
use anyhow::{Context, Result};

/// /proc figures of one sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcFigures {
    /// User + system CPU time in clock ticks ([`ticks_per_second`] per second).
    pub cpu_ticks: u64,
    pub rss_bytes: u64,
    pub threads: u64,
}

/// A process watched over time. It keeps /proc/<pid> open, so a pid reused by another process after the target
/// exited reads as "exited", never as the new process.
#[derive(Debug)]
pub struct WatchedProcess {
    process: Process,
}

impl WatchedProcess {
    pub fn open(pid: u32) -> Result<Self> {
        Ok(WatchedProcess { process: process(pid)? })
    }

    /// CPU, RSS and threads now; None once the process has exited (including a zombie not reaped yet).
    pub fn figures(&self) -> Option<ProcFigures> {
        let stat = self.process.stat().ok()?;
        if matches!(stat.state, 'Z' | 'X') {
            return None;
        }
        Some(ProcFigures {
            cpu_ticks: stat.utime + stat.stime,
            rss_bytes: stat.rss * ::procfs::page_size(),
            threads: u64::try_from(stat.num_threads).unwrap_or(0),
        })
    }
}

/// Process `pid`'s resident set now; None once it has exited or cannot be read.
pub fn rss_bytes(pid: u32) -> Option<u64> {
    WatchedProcess::open(pid).ok()?.figures().map(|figures| figures.rss_bytes)
}

/// Clock ticks per second of [`ProcFigures::cpu_ticks`] (sysconf(_SC_CLK_TCK), usually 100).
pub fn ticks_per_second() -> u64 {
    ::procfs::ticks_per_second()
}

/// /proc/<pid>, or "no process with pid N is running".
fn process(pid: u32) -> Result<Process> {
    let id = i32::try_from(pid).with_context(|| format!("{pid} is not a valid pid"))?;
    Process::new(id).with_context(|| format!("no process with pid {pid} is running"))
}

/// Whether a process with this pid exists (a zombie counts as gone).
pub fn is_running(pid: u32) -> bool {
    process(pid).is_ok_and(|p| p.is_alive())
}

/// The process' command line, one argument per element (the lead's `bench --jvm` looks for `-Xlog:…:file=`).
pub fn cmdline(pid: u32) -> Result<Vec<String>> {
    process(pid)?.cmdline().with_context(|| format!("cannot read the command line of process {pid}"))
}

/// When the process started (wall clock, 1/[`ticks_per_second`] s resolution), from /proc/<pid>/stat and the
/// boot time. For GC-log uptimes prefer `JvmSample::vm_start_unix_ms` (HotSpot's own start, 1 ms resolution).
pub fn start_time(pid: u32) -> Result<SystemTime> {
    let stat = process(pid)?.stat().with_context(|| format!("cannot read /proc/{pid}/stat"))?;
    let boot = ::procfs::boot_time_secs().context("cannot read the boot time from /proc/stat")?;
    let since_boot = Duration::from_secs_f64(stat.starttime as f64 / ticks_per_second() as f64);
    Ok(UNIX_EPOCH + Duration::from_secs(boot) + since_boot)
}

/// The pid the process has in its own (innermost) pid namespace: a containerised JVM names its PerfData file
/// after that pid. Equal to `pid` outside containers.
pub fn namespace_pid(pid: u32) -> Result<u32> {
    let status = process(pid)?.status().with_context(|| format!("cannot read /proc/{pid}/status"))?;
    let innermost = status.nspid.and_then(|ids| ids.last().copied());
    Ok(innermost.and_then(|id| u32::try_from(id).ok()).unwrap_or(pid))
}

/// Whether the process has HotSpot (libjvm.so) mapped: true for every JVM, whatever its launcher is called.
pub fn has_libjvm(pid: u32) -> bool {
    let Some(maps) = process(pid).ok().and_then(|p| p.maps().ok()) else { return false };
    maps.iter().any(|map| match &map.pathname {
        ::procfs::process::MMapPath::Path(path) => path.file_name().is_some_and(|name| name == "libjvm.so"),
        _ => false,
    })
}

/// The process' short name (/proc/<pid>/comm), for messages.
pub fn command_name(pid: u32) -> String {
    process(pid).ok().and_then(|p| p.stat().ok()).map_or_else(|| "?".to_owned(), |stat| stat.comm)
}

/// JVM options passed through the environment (JAVA_TOOL_OPTIONS, JDK_JAVA_OPTIONS, _JAVA_OPTIONS), which HotSpot
/// reads as if they were on the command line. Empty if the environment cannot be read.
pub fn environment_jvm_options(pid: u32) -> Vec<String> {
    const VARIABLES: [&str; 3] = ["JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS"];
    let Some(environ) = process(pid).ok().and_then(|p| p.environ().ok()) else { return Vec::new() };
    VARIABLES
        .iter()
        .filter_map(|name| environ.get(std::ffi::OsStr::new(name)))
        .flat_map(|value| value.to_string_lossy().split_whitespace().map(str::to_owned).collect::<Vec<_>>())
        .collect()
}

/// The process group and the parent of a process (None once it is gone or cannot be read).
pub fn group_and_parent(pid: u32) -> Option<(u32, u32)> {
    let stat = process(pid).ok()?.stat().ok()?;
    Some((u32::try_from(stat.pgrp).ok()?, u32::try_from(stat.ppid).ok()?))
}

/// Whether the process' environment holds `name=value` (false when it cannot be read).
pub fn has_environment(pid: u32, name: &str, value: &str) -> bool {
    process(pid).is_ok_and(|process| environment_holds(&process, name, value))
}

fn environment_holds(process: &Process, name: &str, value: &str) -> bool {
    process.environ().is_ok_and(|environ| {
        environ.get(std::ffi::OsStr::new(name)).is_some_and(|found| found.as_encoded_bytes() == value.as_bytes())
    })
}

/// Pids of the processes whose environment holds `name=value` (processes jload may not read are skipped): how a
/// process tree is found again after some of it left its process group or was re-parented (a daemonizing script).
pub fn pids_with_environment(name: &str, value: &str) -> Vec<u32> {
    let Ok(all) = ::procfs::process::all_processes() else { return Vec::new() };
    all.flatten()
        .filter(|process| environment_holds(process, name, value))
        .filter_map(|process| u32::try_from(process.pid).ok())
        .collect()
}

/// Pids of the processes listening on TCP `port` (IPv4 or IPv6); empty when none or when /proc cannot be read.
pub fn listeners(port: u16) -> Vec<u32> {
    match listening_socket_inodes(port) {
        Ok(inodes) if !inodes.is_empty() => socket_owners(&inodes).unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// The local addresses of TCP sockets (IPv4 and IPv6) in LISTEN state on `port`, in this network namespace.
pub fn listening_addresses(port: u16) -> Vec<std::net::SocketAddr> {
    let mut entries = ::procfs::net::tcp().unwrap_or_default();
    entries.extend(::procfs::net::tcp6().unwrap_or_default());
    let mut addresses: Vec<std::net::SocketAddr> = entries
        .into_iter()
        .filter(|e| e.state == TcpState::Listen && e.local_address.port() == port)
        // A JVM's IPv4 socket is an IPv6 one bound to an IPv4-mapped address (::ffff:127.0.0.1): shown as IPv4.
        .map(|e| std::net::SocketAddr::new(e.local_address.ip().to_canonical(), port))
        .collect();
    addresses.sort();
    addresses.dedup();
    addresses
}

/// Socket inodes of TCP sockets (IPv4 and IPv6) in LISTEN state on `port`, in this network namespace.
pub fn listening_socket_inodes(port: u16) -> Result<HashSet<u64>> {
    let mut entries = ::procfs::net::tcp().context("cannot read /proc/net/tcp")?;
    entries.extend(::procfs::net::tcp6().unwrap_or_default());
    Ok(entries
        .into_iter()
        .filter(|e| e.state == TcpState::Listen && e.local_address.port() == port)
        .map(|e| e.inode)
        .collect())
}

/// Pids of the processes holding one of these socket inodes open. Processes whose file descriptors jload may
/// not list (another user's, when not root) are skipped.
pub fn socket_owners(inodes: &HashSet<u64>) -> Result<Vec<u32>> {
    let mut owners = Vec::new();
    for process in ::procfs::process::all_processes().context("cannot list /proc")?.flatten() {
        let Ok(fds) = process.fd() else { continue };
        let holds = fds.flatten().any(|fd| matches!(fd.target, FDTarget::Socket(inode) if inodes.contains(&inode)));
        if holds {
            owners.push(u32::try_from(process.pid).unwrap_or_default());
        }
    }
    Ok(owners)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    #[test]
    fn figures_of_this_process_are_plausible() {
        let me = WatchedProcess::open(std::process::id()).unwrap();
        let figures = me.figures().unwrap();
        assert!(figures.threads >= 1);
        assert!(figures.rss_bytes > 1024 * 1024, "a test binary uses more than 1 MiB: {figures:?}");
        assert!(ticks_per_second() > 0);
    }

    #[test]
    fn a_listening_socket_is_found_with_its_owner() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let inodes = listening_socket_inodes(port).unwrap();
        assert_eq!(inodes.len(), 1);
        assert_eq!(socket_owners(&inodes).unwrap(), vec![std::process::id()]);
    }

    #[test]
    fn start_time_and_command_line_of_this_process() {
        let started = start_time(std::process::id()).unwrap();
        let age = SystemTime::now().duration_since(started).unwrap();
        assert!(age < Duration::from_secs(3600), "{age:?}");
        assert!(!cmdline(std::process::id()).unwrap().is_empty());
        assert_eq!(namespace_pid(std::process::id()).unwrap(), std::process::id());
        assert!(!has_libjvm(std::process::id()));
        assert!(is_running(std::process::id()));
    }
}
