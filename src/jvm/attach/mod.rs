//! HotSpot's dynamic attach protocol on Linux, spoken directly as `jcmd` speaks it (OpenJDK's
//! `sun.tools.attach.VirtualMachineImpl` and `HotSpotVirtualMachine`), so jload runs a diagnostic command in a JVM
//! without spawning a JDK tool.
//!
//! Attaching: the JVM's UNIX socket is `/tmp/.java_pid<pid>`, seen through `/proc/<pid>/root/tmp` with the pid the
//! JVM has in its own pid namespace (`NSpid`), so a JVM in a container of its own mount and pid namespaces is reached
//! from the host like one beside jload. When the socket is absent the JVM has not started its attach listener yet:
//! jload creates `.attach_pid<nspid>` in the JVM's working directory (else its /tmp), sends SIGQUIT, polls for the
//! socket (SIGQUIT once more at half the timeout, as the JDK does) and removes the file. A SIGQUIT kills a process
//! that does not handle it, so no signal is sent unless the process maps libjvm.so, handles SIGQUIT (not still
//! starting; a JVM with -Xrs handles none but opens its socket at start) and was not started with
//! `-XX:+DisableAttachMechanism`.
//!
//! One operation per connection, protocol version 1: `1\0` `<operation>\0` and three arguments, each NUL-terminated
//! (`jcmd\0<command>\0\0\0`); the reply is the status code on the first line (`0` is success) and then the text.
//! The socket must belong to jload's user and group and be closed to others, as the JDK checks (root may attach to
//! any user's JVM). A JVM in a user namespace of its own is not covered: its peer-credential check refuses the host's
//! root.

pub mod flight_recording;
pub mod nmt;
pub mod nmt_csv;
pub mod nmt_reader;

use std::fmt;
use std::fs::{self, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::thread;
use std::time::{Duration, Instant};

use super::perfdata::PerfData;
use super::perfdata::file as perfdata_file;
use super::procfs;

/// How long jload waits for a JVM to open its attach socket after SIGQUIT, and for a reply (the JDK's default
/// `sun.tools.attach.attachTimeout` is 10 s too).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

const PROTOCOL_VERSION: &str = "1";
/// HotSpot's `ATTACH_ERROR_BADVERSION`: the JVM does not speak the protocol version sent.
const STATUS_BAD_VERSION: i32 = 101;
const DISABLE_ATTACH: &str = "DisableAttachMechanism";

/// Why jload could not run an operation in a JVM; each says itself in one line.
#[derive(Debug)]
pub enum AttachError {
    NoSuchProcess {
        pid: u32,
    },
    /// The process does not map libjvm.so: it is not a HotSpot JVM, and a SIGQUIT could kill it.
    NotHotSpot {
        pid: u32,
        command: String,
    },
    /// Started with `-XX:+DisableAttachMechanism`: it never opens the socket.
    AttachDisabled {
        pid: u32,
    },
    /// The JVM does not handle SIGQUIT (still starting; with -Xrs it has none, but opens its socket at start): the
    /// signal would kill it.
    SigquitNotHandled {
        pid: u32,
    },
    /// No socket appeared within the timeout after SIGQUIT, or no reply came within it.
    Timeout {
        pid: u32,
        waited: Duration,
        what: &'static str,
    },
    /// The socket is not one the JDK would trust (owner, group, permissions, not a socket).
    InsecureSocket {
        path: PathBuf,
        reason: String,
    },
    Io {
        what: String,
        source: io::Error,
    },
    /// The JVM answered with a non-zero status (an unknown command, a bad argument, a protocol mismatch).
    Failed {
        pid: u32,
        status: i32,
        message: String,
    },
}

impl fmt::Display for AttachError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AttachError::NoSuchProcess { pid } => write!(f, "no process with pid {pid} is running"),
            AttachError::NotHotSpot { pid, command } => {
                write!(f, "process {pid} ({command}) is not a HotSpot JVM (no libjvm.so mapped); not attaching")
            }
            AttachError::AttachDisabled { pid } => {
                write!(f, "JVM {pid} was started with -XX:+DisableAttachMechanism: it cannot be attached to")
            }
            AttachError::SigquitNotHandled { pid } => write!(
                f,
                "JVM {pid} does not handle SIGQUIT (yet: still starting?) and has no attach socket: not signalling \
                 it, the signal would kill it"
            ),
            AttachError::Timeout { pid, waited, what } => {
                write!(f, "JVM {pid} {what} within {:.1} s", waited.as_secs_f64())
            }
            AttachError::InsecureSocket { path, reason } => {
                write!(f, "attach socket {} is not secure: {reason}", path.display())
            }
            AttachError::Io { what, source } => write!(f, "{what}: {source}"),
            AttachError::Failed { pid, status, message } => {
                write!(f, "JVM {pid} refused the operation (status {status}): {message}")
            }
        }
    }
}

impl std::error::Error for AttachError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            AttachError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// A JVM whose attach listener runs: each [`AttachedJvm::jcmd`] is one connection to its socket.
#[derive(Debug, Clone)]
pub struct AttachedJvm {
    pid: u32,
    socket: PathBuf,
    timeout: Duration,
    started_listener: bool,
}

impl AttachedJvm {
    /// Attaches to JVM `pid`, starting its attach listener (`.attach_pid` file and SIGQUIT) when its socket is
    /// absent; `timeout` bounds the wait for the socket and for each reply.
    pub fn attach(pid: u32, timeout: Duration) -> Result<AttachedJvm, AttachError> {
        if !procfs::is_running(pid) {
            return Err(AttachError::NoSuchProcess { pid });
        }
        if !procfs::has_libjvm(pid) {
            return Err(AttachError::NotHotSpot { pid, command: procfs::command_name(pid) });
        }
        let namespace_pid = procfs::namespace_pid(pid).map_err(|_| AttachError::NoSuchProcess { pid })?;
        let root_tmp = PathBuf::from(format!("/proc/{pid}/root{}", perfdata_file::TMP));
        let socket = root_tmp.join(format!(".java_pid{namespace_pid}"));
        let started_listener = !socket.exists();
        if started_listener {
            start_listener(pid, namespace_pid, &root_tmp, &socket, timeout)?;
        }
        check_socket(&socket)?;
        Ok(AttachedJvm { pid, socket, timeout, started_listener })
    }

    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// The socket's path, through `/proc/<pid>/root`.
    pub fn socket(&self) -> &Path {
        &self.socket
    }

    /// Whether this attach started the JVM's listener (no socket before; `.attach_pid` and SIGQUIT).
    pub fn started_listener(&self) -> bool {
        self.started_listener
    }

    /// Runs a diagnostic command (`VM.version`, `VM.native_memory summary scale=b` …) and returns its text, what
    /// `jcmd <pid> <command>` prints after its `<pid>:` line.
    pub fn jcmd(&self, command: &str) -> Result<String, AttachError> {
        self.execute("jcmd", [command, "", ""])
    }

    /// One operation of the attach protocol with its three arguments; the reply's text after a `0` status.
    pub fn execute(&self, operation: &str, arguments: [&str; 3]) -> Result<String, AttachError> {
        let io_error = |what: &str| {
            let what = format!("{what} {}", self.socket.display());
            move |source| AttachError::Io { what, source }
        };
        let mut stream = UnixStream::connect(&self.socket).map_err(io_error("cannot connect to"))?;
        stream.set_read_timeout(Some(self.timeout)).map_err(io_error("cannot set a timeout on"))?;
        stream.set_write_timeout(Some(self.timeout)).map_err(io_error("cannot set a timeout on"))?;
        stream.write_all(&request(operation, arguments)).map_err(io_error("cannot write the request to"))?;
        let mut reply = Vec::new();
        if let Err(err) = stream.read_to_end(&mut reply) {
            if matches!(err.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut) {
                return Err(AttachError::Timeout { pid: self.pid, waited: self.timeout, what: "did not reply" });
            }
            return Err(io_error("cannot read the reply from")(err));
        }
        parse_reply(self.pid, &String::from_utf8_lossy(&reply))
    }
}

/// A JVM attached on first use and never tried again once it refused, so that a JVM read again and again gets at
/// most one SIGQUIT (the reads of a run: native memory, flight recordings).
pub struct AttachOnce {
    pid: u32,
    timeout: Duration,
    state: AttachState,
}

enum AttachState {
    NotYet,
    Attached(AttachedJvm),
    Refused,
}

impl AttachOnce {
    /// JVM `pid`, attached at the first [`AttachOnce::jvm`] with `timeout` for its listener and each reply.
    pub fn new(pid: u32, timeout: Duration) -> AttachOnce {
        AttachOnce { pid, timeout, state: AttachState::NotYet }
    }

    /// The attached JVM; None when the first attach was refused.
    pub fn jvm(&mut self) -> Option<&AttachedJvm> {
        if let AttachState::NotYet = self.state {
            self.state =
                AttachedJvm::attach(self.pid, self.timeout).map_or(AttachState::Refused, AttachState::Attached);
        }
        match &self.state {
            AttachState::Attached(jvm) => Some(jvm),
            _ => None,
        }
    }
}

/// The bytes of one request: the version, the operation and three arguments, each ending in NUL.
fn request(operation: &str, arguments: [&str; 3]) -> Vec<u8> {
    let mut bytes = Vec::new();
    for part in [PROTOCOL_VERSION, operation].into_iter().chain(arguments) {
        bytes.extend_from_slice(part.as_bytes());
        bytes.push(0);
    }
    bytes
}

/// The status line and the text of a reply; a non-zero status becomes [`AttachError::Failed`] with the text.
fn parse_reply(pid: u32, reply: &str) -> Result<String, AttachError> {
    let (status_line, text) = reply.split_once('\n').unwrap_or((reply, ""));
    let Ok(status) = status_line.trim().parse::<i32>() else {
        let message = format!("the reply does not start with a status line: {:?}", first_chars(reply));
        return Err(AttachError::Failed { pid, status: -1, message });
    };
    match status {
        0 => Ok(text.to_owned()),
        STATUS_BAD_VERSION => {
            Err(AttachError::Failed { pid, status, message: "protocol mismatch with the target VM".to_owned() })
        }
        _ => {
            let message = text.trim();
            let message = if message.is_empty() { "command failed in the target VM" } else { message };
            Err(AttachError::Failed { pid, status, message: message.lines().next().unwrap_or("").to_owned() })
        }
    }
}

fn first_chars(text: &str) -> String {
    text.chars().take(60).collect()
}

/// The `.attach_pid` file, SIGQUIT, and the wait for the socket; the file is removed whatever happens. Refuses to
/// signal a JVM with attach disabled or one that does not handle SIGQUIT.
fn start_listener(
    pid: u32,
    namespace_pid: u32,
    root_tmp: &Path,
    socket: &Path,
    timeout: Duration,
) -> Result<(), AttachError> {
    if attach_disabled(&jvm_options(pid)) {
        return Err(AttachError::AttachDisabled { pid });
    }
    if !handles_sigquit(pid) {
        return Err(AttachError::SigquitNotHandled { pid });
    }
    let trigger = create_trigger_file(pid, namespace_pid, root_tmp)?;
    let outcome = signal_and_wait(pid, socket, timeout);
    let _ = fs::remove_file(&trigger);
    outcome
}

/// `/proc/<pid>/cwd/.attach_pid<nspid>`, else the same name in the JVM's /tmp (its working directory may not be
/// writable); HotSpot looks in both.
fn create_trigger_file(pid: u32, namespace_pid: u32, root_tmp: &Path) -> Result<PathBuf, AttachError> {
    let name = format!(".attach_pid{namespace_pid}");
    let in_cwd = PathBuf::from(format!("/proc/{pid}/cwd")).join(&name);
    let in_tmp = root_tmp.join(&name);
    let create = |path: &Path| OpenOptions::new().write(true).create(true).truncate(false).open(path).map(|_| ());
    // Canonical paths, so the file is removed even when /proc/<pid> is gone by then.
    let canonical = |path: PathBuf| fs::canonicalize(&path).unwrap_or(path);
    match create(&in_cwd) {
        Ok(()) => Ok(canonical(in_cwd)),
        Err(_) => match create(&in_tmp) {
            Ok(()) => Ok(canonical(in_tmp)),
            Err(source) => Err(AttachError::Io { what: format!("cannot create {}", in_tmp.display()), source }),
        },
    }
}

/// SIGQUIT, then polls for the socket with growing steps; SIGQUIT once more at half the timeout.
fn signal_and_wait(pid: u32, socket: &Path, timeout: Duration) -> Result<(), AttachError> {
    sigquit(pid)?;
    let start = Instant::now();
    let mut step = Duration::from_millis(10);
    let mut signalled_again = false;
    while !socket.exists() {
        let waited = start.elapsed();
        if waited >= timeout {
            let what = "did not open its attach socket after SIGQUIT";
            return Err(AttachError::Timeout { pid, waited, what });
        }
        if !procfs::is_running(pid) {
            return Err(AttachError::NoSuchProcess { pid });
        }
        if !signalled_again && waited >= timeout / 2 {
            signalled_again = true;
            sigquit(pid)?;
        }
        thread::sleep(step.min(timeout.saturating_sub(waited)));
        step = (step * 2).min(Duration::from_millis(100));
    }
    Ok(())
}

fn sigquit(pid: u32) -> Result<(), AttachError> {
    let target = libc::pid_t::try_from(pid).map_err(|_| AttachError::NoSuchProcess { pid })?;
    // SAFETY: kill(2) with a checked pid; the callers made sure the process is a JVM that handles SIGQUIT.
    if unsafe { libc::kill(target, libc::SIGQUIT) } != 0 {
        let source = io::Error::last_os_error();
        if source.raw_os_error() == Some(libc::ESRCH) {
            return Err(AttachError::NoSuchProcess { pid });
        }
        return Err(AttachError::Io { what: format!("cannot send SIGQUIT to {pid}"), source });
    }
    Ok(())
}

/// Whether the process catches SIGQUIT (/proc/<pid>/status SigCgt): HotSpot does once its signal handlers are
/// installed, unless started with -Xrs (it then opens its attach socket at start instead).
fn handles_sigquit(pid: u32) -> bool {
    let Ok(id) = i32::try_from(pid) else { return false };
    let Some(status) = ::procfs::process::Process::new(id).ok().and_then(|p| p.status().ok()) else { return false };
    status.sigcgt & (1 << (libc::SIGQUIT - 1)) != 0
}

/// The JVM's options in the order HotSpot read them: from PerfData, the flags of its `-XX:Flags=` file
/// (`java.rt.vmFlags`, written `+Name`) and then `java.rt.vmArgs` (JAVA_TOOL_OPTIONS, the command line,
/// _JAVA_OPTIONS); without PerfData, the environment's options and then the command line.
fn jvm_options(pid: u32) -> Vec<String> {
    let perfdata = perfdata_file::find_perfdata(pid).and_then(|path| PerfData::open(&path, Duration::ZERO).ok());
    if let Some(snapshot) = perfdata.as_ref().map(PerfData::snapshot) {
        let file_flags = snapshot.string_named("java.rt.vmFlags").unwrap_or_default();
        let arguments = snapshot.string_named("java.rt.vmArgs").unwrap_or_default();
        let file_options = file_flags.split_whitespace().map(|flag| format!("-XX:{flag}"));
        return file_options.chain(arguments.split_whitespace().map(str::to_owned)).collect();
    }
    let mut options = procfs::environment_jvm_options(pid);
    options.extend(procfs::cmdline(pid).unwrap_or_default());
    options
}

/// Whether the last `-XX:±DisableAttachMechanism` among `options` turns attaching off.
fn attach_disabled(options: &[String]) -> bool {
    let last = options.iter().rev().find_map(|option| {
        let flag = option.strip_prefix("-XX:")?;
        match flag.strip_suffix(DISABLE_ATTACH)? {
            "+" => Some(true),
            "-" => Some(false),
            _ => None,
        }
    });
    last.unwrap_or(false)
}

/// The JDK's checks of a socket before it connects: owned by jload's effective user and group (unless jload runs as
/// root) and neither readable nor writable by group or others; and a socket at all.
fn check_socket(socket: &Path) -> Result<(), AttachError> {
    let metadata = fs::metadata(socket)
        .map_err(|source| AttachError::Io { what: format!("cannot stat {}", socket.display()), source })?;
    // SAFETY: geteuid and getegid cannot fail.
    let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
    let insecure = |reason: String| Err(AttachError::InsecureSocket { path: socket.to_owned(), reason });
    if !metadata.file_type().is_socket() {
        return insecure("it is not a socket".to_owned());
    }
    if uid != 0 && metadata.uid() != uid {
        return insecure(format!("it should be owned by the current user ({uid}) but is owned by {}", metadata.uid()));
    }
    if uid != 0 && metadata.gid() != gid {
        return insecure(format!("its group should be the current group ({gid}) but is {}", metadata.gid()));
    }
    let group_or_other = libc::S_IRGRP | libc::S_IWGRP | libc::S_IROTH | libc::S_IWOTH;
    if metadata.mode() & group_or_other != 0 {
        return insecure(format!(
            "it should only be readable and writable by its owner but has 0{:03o} access",
            metadata.mode() & 0o777
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_is_version_operation_and_three_arguments_each_nul_terminated() {
        assert_eq!(request("jcmd", ["VM.version", "", ""]), b"1\0jcmd\0VM.version\0\0\0");
    }

    #[test]
    fn a_zero_status_gives_the_text_after_the_status_line() {
        assert_eq!(parse_reply(7, "0\nJDK 25.0.3\n").unwrap(), "JDK 25.0.3\n");
        assert_eq!(parse_reply(7, "0\n").unwrap(), "");
    }

    #[test]
    fn a_non_zero_status_is_a_failure_with_the_jvms_first_line() {
        let err = parse_reply(7, "-1\njava.lang.IllegalArgumentException: Unknown diagnostic command\n").unwrap_err();
        assert_eq!(
            err.to_string(),
            "JVM 7 refused the operation (status -1): java.lang.IllegalArgumentException: Unknown diagnostic command"
        );
        let err = parse_reply(7, "101\n").unwrap_err();
        assert_eq!(err.to_string(), "JVM 7 refused the operation (status 101): protocol mismatch with the target VM");
        assert!(matches!(parse_reply(7, "hello"), Err(AttachError::Failed { status: -1, .. })));
    }

    #[test]
    fn the_last_disable_attach_option_wins() {
        let options = |list: &[&str]| list.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert!(!attach_disabled(&options(&["-Xmx64m"])));
        assert!(attach_disabled(&options(&["-XX:+DisableAttachMechanism", "-Xmx64m"])));
        assert!(!attach_disabled(&options(&["-XX:+DisableAttachMechanism", "-XX:-DisableAttachMechanism"])));
        assert!(attach_disabled(&options(&["-XX:-DisableAttachMechanism", "-XX:+DisableAttachMechanism"])));
        assert!(!attach_disabled(&options(&["-XX:+DisableAttachMechanismX"])));
    }

    #[test]
    fn a_process_without_a_sigquit_handler_reads_as_not_handling_it() {
        // The test binary installs no SIGQUIT handler: the signal would kill it.
        assert!(!handles_sigquit(std::process::id()));
    }

    #[test]
    fn jloads_own_process_is_refused_as_not_hotspot() {
        let err = AttachedJvm::attach(std::process::id(), Duration::from_secs(1)).unwrap_err();
        assert!(matches!(err, AttachError::NotHotSpot { .. }), "{err}");
    }
}
