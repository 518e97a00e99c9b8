//! jload's own client of HotSpot's attach protocol (`jload::jvm::attach`) and its native memory summary
//! (`jload::jvm::attach::nmt`) against real JVMs of JDK 17 and Temurin 25 running tests/java/Alloc.java: the text of a
//! command is `jcmd`'s (byte for byte for `VM.version` and `VM.flags`; for `VM.native_memory summary` the same lines
//! and categories, figures within a tolerance, as they move between two reads); the first attach starts the JVM's
//! listener (`.attach_pid` and SIGQUIT, no thread dump, the file removed) and the second reuses its socket; a JVM in
//! its own mount and pid namespace is reached through /proc/<pid>/root; a JVM with `-Xrs` (no SIGQUIT handler) through
//! the socket it opened at start. The refusals, each without a signal: a process that is no JVM (it stays alive), a
//! JVM with `-XX:+DisableAttachMechanism` (on its command line or in a flags file), a socket others may use. A JVM
//! whose disabled attach jload cannot see times out, its trigger file removed; a JVM without NMT gives the "not
//! enabled" error.
//!
//! JDK homes: JLOAD_TEST_JDK17 and JLOAD_TEST_JDK25 (defaults: the Debian JDK 17 and Temurin 25 paths).

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::thread;
use std::time::{Duration, Instant};

use common::jdks::{TestJvm, in_own_namespaces, jdk17, jdk25, jvm_under};
use common::machine;
use jload::jvm::attach::nmt::{self, NmtError, NmtReadError, NmtSummary};
use jload::jvm::attach::{AttachError, AttachedJvm};

/// The wait for the attach socket and for each reply, on a busy machine.
const ATTACH_TIMEOUT: Duration = Duration::from_secs(30);
/// The test JVMs' program arguments: they exit by themselves after five minutes at the latest.
const LIFETIME: [&str; 2] = ["--exit-after-ms", "300000"];

/// What `jcmd <pid> <command…>` prints after its `<pid>:` line.
fn jcmd(java_home: &Path, pid: u32, command: &[&str]) -> String {
    let output = Command::new(java_home.join("bin/jcmd")).arg(pid.to_string()).args(command).output().unwrap();
    assert!(output.status.success(), "jcmd failed: {}", String::from_utf8_lossy(&output.stderr));
    let text = String::from_utf8(output.stdout).unwrap();
    let (first, rest) = text.split_once('\n').unwrap();
    assert_eq!(first, format!("{pid}:"));
    rest.to_owned()
}

/// A line's kind: its text up to the first figure (`-  Java Heap (`, `(malloc`, `(mmap:`, `Total:` …).
fn line_kind(line: &str) -> &str {
    let skip = usize::from(line.trim_start().starts_with('('));
    let start = line.len() - line.trim_start().len() + skip;
    let end = line[start..].find(['=', ':', '#']).map_or(line.len(), |i| start + i);
    &line[..end]
}

/// Two summaries of the same JVM taken a moment apart: the same kinds of line in the same order, the same categories,
/// and every figure within 10 % or 1 MiB of the other.
fn assert_same_summary(jload_text: &str, jcmd_text: &str) {
    let kinds = |text: &str| text.lines().map(line_kind).map(str::to_owned).collect::<Vec<_>>();
    assert_eq!(kinds(jload_text), kinds(jcmd_text), "jload:\n{jload_text}\njcmd:\n{jcmd_text}");
    let (ours, theirs) = (nmt::parse_summary(jload_text).unwrap(), nmt::parse_summary(jcmd_text).unwrap());
    let names = |summary: &NmtSummary| summary.categories.iter().map(|c| c.name.clone()).collect::<Vec<_>>();
    assert_eq!(names(&ours), names(&theirs));
    let close = |a: u64, b: u64| a.abs_diff(b) <= (a.max(b) / 10).max(1 << 20);
    for (a, b) in ours.categories.iter().zip(&theirs.categories) {
        assert!(close(a.reserved, b.reserved) && close(a.committed, b.committed), "jload {a:?}, jcmd {b:?}");
    }
    assert!(close(ours.total.committed, theirs.total.committed), "{:?} {:?}", ours.total, theirs.total);
    assert_eq!(ours.committed_sum(), ours.total.committed, "at scale=b the categories add up to the total");
}

fn attach(pid: u32) -> AttachedJvm {
    AttachedJvm::attach(pid, ATTACH_TIMEOUT).unwrap_or_else(|err| panic!("attach to {pid}: {err}"))
}

/// The first attach (no socket yet) and the second (socket there), each compared with jcmd.
fn attaches_like_jcmd(java_home: &Path) {
    let jvm = TestJvm::start(java_home, &["-XX:NativeMemoryTracking=summary"], &LIFETIME);
    let socket = PathBuf::from(format!("/tmp/.java_pid{}", jvm.pid));
    assert!(!socket.exists(), "the JVM opened its attach socket before anyone attached");

    let first = attach(jvm.pid);
    assert!(first.started_listener());
    assert!(socket.exists());
    let trigger = format!(".attach_pid{}", jvm.pid);
    assert!(!jvm.cwd.join(&trigger).exists() && !Path::new("/tmp").join(&trigger).exists(), "trigger file left");
    assert!(!jvm.printed_a_thread_dump(), "the SIGQUIT was taken for a thread dump request");
    let version = first.jcmd("VM.version").unwrap();
    let summary = nmt::read_summary(&first).unwrap();
    assert!(summary.category("Java Heap").is_some_and(|heap| heap.committed > 0), "{summary:?}");
    assert_eq!(version, jcmd(java_home, jvm.pid, &["VM.version"]));

    let second = attach(jvm.pid);
    assert!(!second.started_listener());
    let flags = second.jcmd("VM.flags").unwrap();
    assert_eq!(flags, jcmd(java_home, jvm.pid, &["VM.flags"]));
    let ours = second.jcmd(nmt::SUMMARY_COMMAND).unwrap();
    let theirs = jcmd(java_home, jvm.pid, &["VM.native_memory", "summary", "scale=b"]);
    assert_same_summary(&ours, &theirs);

    let err = second.jcmd("No.such_command").unwrap_err();
    assert!(matches!(err, AttachError::Failed { status: -1, .. }), "{err}");
    assert!(err.to_string().contains("Unknown diagnostic command"), "{err}");
    assert!(!jvm.printed_a_thread_dump());
    assert!(jvm.alive());
}

#[test]
fn jdk17_attach_returns_jcmds_text_first_time_and_second_time() {
    let _machine = machine::shared();
    attaches_like_jcmd(&jdk17("jcmd"));
}

#[test]
fn jdk25_attach_returns_jcmds_text_first_time_and_second_time() {
    let _machine = machine::shared();
    attaches_like_jcmd(&jdk25("jcmd"));
}

#[test]
fn a_socket_open_to_others_is_refused_before_connecting() {
    let _machine = machine::shared();
    use std::os::unix::fs::PermissionsExt;
    let jvm = TestJvm::start(&jdk25("jcmd"), &[], &LIFETIME);
    let path = PathBuf::from(format!("/tmp/.java_pid{}", jvm.pid));
    let planted = std::os::unix::net::UnixListener::bind(&path).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o666)).unwrap();
    let err = AttachedJvm::attach(jvm.pid, ATTACH_TIMEOUT).unwrap_err();
    let _ = std::fs::remove_file(&path);
    drop(planted);
    assert!(matches!(err, AttachError::InsecureSocket { .. }), "{err}");
    assert_eq!(
        err.to_string(),
        format!(
            "attach socket /proc/{0}/root/tmp/.java_pid{0} is not secure: it should only be readable and writable by \
             its owner but has 0666 access",
            jvm.pid
        )
    );
    assert!(!jvm.printed_a_thread_dump(), "a socket was there: no signal");
}

#[test]
fn a_jvm_without_native_memory_tracking_reads_as_not_enabled() {
    let _machine = machine::shared();
    let jvm = TestJvm::start(&jdk25("jcmd"), &[], &LIFETIME);
    let err = nmt::read_summary(&attach(jvm.pid)).unwrap_err();
    assert!(matches!(err, NmtReadError::Summary(NmtError::NotEnabled)), "{err}");
    assert_eq!(
        err.to_string(),
        "native memory tracking is not enabled in the JVM (start it with -XX:NativeMemoryTracking=summary)"
    );
}

#[test]
fn a_process_that_is_no_jvm_is_refused_without_a_signal_and_stays_alive() {
    let mut sleeper = Command::new("sleep").arg("60").spawn().unwrap();
    let pid = sleeper.id();
    let err = AttachedJvm::attach(pid, ATTACH_TIMEOUT).unwrap_err();
    assert!(matches!(err, AttachError::NotHotSpot { .. }), "{err}");
    assert_eq!(
        err.to_string(),
        format!("process {pid} (sleep) is not a HotSpot JVM (no libjvm.so mapped); not attaching")
    );
    thread::sleep(Duration::from_millis(200));
    assert!(sleeper.try_wait().unwrap().is_none(), "sleep died: it was signalled");
    assert!(!Path::new(&format!("/tmp/.attach_pid{pid}")).exists());
    let _ = sleeper.kill();
    let _ = sleeper.wait();
}

#[test]
fn a_missing_process_is_named() {
    let mut gone = Command::new("true").spawn().unwrap();
    let pid = gone.id();
    gone.wait().unwrap();
    let err = AttachedJvm::attach(pid, ATTACH_TIMEOUT).unwrap_err();
    assert_eq!(err.to_string(), format!("no process with pid {pid} is running"));
}

#[test]
fn a_jvm_with_attach_disabled_is_refused_without_a_signal() {
    let _machine = machine::shared();
    let jvm = TestJvm::start(&jdk17("jcmd"), &["-XX:+DisableAttachMechanism"], &LIFETIME);
    let started = Instant::now();
    let err = AttachedJvm::attach(jvm.pid, ATTACH_TIMEOUT).unwrap_err();
    assert!(matches!(err, AttachError::AttachDisabled { .. }), "{err}");
    assert_eq!(
        err.to_string(),
        format!("JVM {} was started with -XX:+DisableAttachMechanism: it cannot be attached to", jvm.pid)
    );
    assert!(started.elapsed() < Duration::from_secs(5), "it waited for a socket: {:?}", started.elapsed());
    thread::sleep(Duration::from_millis(500));
    assert!(!jvm.printed_a_thread_dump(), "it was sent SIGQUIT");
    assert!(!jvm.cwd.join(format!(".attach_pid{}", jvm.pid)).exists());
    assert!(jvm.alive());
}

#[test]
fn attach_disabled_in_a_flags_file_is_seen_in_perfdata() {
    let _machine = machine::shared();
    let flags = common::tempdir();
    std::fs::write(flags.join("flags"), "+DisableAttachMechanism\n").unwrap();
    let jvm = TestJvm::start(&jdk17("jcmd"), &[&format!("-XX:Flags={}", flags.join("flags").display())], &LIFETIME);
    let err = AttachedJvm::attach(jvm.pid, ATTACH_TIMEOUT).unwrap_err();
    assert!(matches!(err, AttachError::AttachDisabled { .. }), "{err}");
    thread::sleep(Duration::from_millis(500));
    assert!(!jvm.printed_a_thread_dump(), "it was sent SIGQUIT");
}

#[test]
fn a_jvm_that_never_opens_its_socket_times_out_and_the_trigger_file_is_removed() {
    let _machine = machine::shared();
    // Attach disabled where jload cannot see it (a flags file, and no PerfData): the SIGQUIT is sent, taken for a
    // thread dump request, and no socket comes.
    let flags = common::tempdir();
    std::fs::write(flags.join("flags"), "+DisableAttachMechanism\n").unwrap();
    let flags_option = format!("-XX:Flags={}", flags.join("flags").display());
    let jvm = TestJvm::start(&jdk17("jcmd"), &[&flags_option, "-XX:-UsePerfData"], &LIFETIME);
    let timeout = Duration::from_secs(2);
    let err = AttachedJvm::attach(jvm.pid, timeout).unwrap_err();
    assert!(matches!(err, AttachError::Timeout { .. }), "{err}");
    let message = err.to_string();
    let prefix = format!("JVM {} did not open its attach socket after SIGQUIT within ", jvm.pid);
    assert!(message.starts_with(&prefix) && message.ends_with(" s"), "{message}");
    assert!(!jvm.cwd.join(format!(".attach_pid{}", jvm.pid)).exists(), "trigger file left behind");
    let deadline = Instant::now() + Duration::from_secs(10);
    while !jvm.printed_a_thread_dump() && Instant::now() < deadline {
        thread::sleep(Duration::from_millis(50));
    }
    assert!(jvm.printed_a_thread_dump(), "the SIGQUIT did not reach the JVM");
    assert!(jvm.alive());
}

#[test]
fn a_jvm_with_reduced_signal_usage_is_attached_through_the_socket_it_opened_at_start() {
    let _machine = machine::shared();
    // -Xrs: HotSpot installs no SIGQUIT handler (the signal would kill it) and opens its attach socket at start.
    let jvm = TestJvm::start(&jdk17("jcmd"), &["-Xrs"], &LIFETIME);
    let attached = attach(jvm.pid);
    assert!(!attached.started_listener(), "it was sent SIGQUIT");
    assert!(attached.jcmd("VM.version").unwrap().contains("JDK 17"));
    assert!(jvm.alive());
}

#[test]
fn a_jvm_in_its_own_mount_and_pid_namespace_is_attached_through_proc_root() {
    let _machine = machine::shared();
    // SAFETY: geteuid cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped: needs root for unshare (a container-like JVM with its own /tmp and pid namespace)");
        return;
    }
    let (command, source) =
        in_own_namespaces(&jdk17("jcmd").join("bin/java"), &format!("jload-attach-test-{}", std::process::id()));
    let wrapper = TestJvm::start_with(command, &source, &["-XX:NativeMemoryTracking=summary"], &LIFETIME);
    let pid = jvm_under(wrapper.pid);
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let nspid = status.lines().find(|l| l.starts_with("NSpid:")).unwrap().split_whitespace().last().unwrap();
    assert_ne!(nspid, pid.to_string(), "{status}");

    let jvm = attach(pid);
    assert!(jvm.started_listener());
    assert_eq!(jvm.socket(), Path::new(&format!("/proc/{pid}/root/tmp/.java_pid{nspid}")));
    assert!(!Path::new(&format!("/tmp/.java_pid{nspid}")).exists(), "the socket must be in the JVM's own /tmp");
    let summary = nmt::read_summary(&jvm).unwrap();
    assert_eq!(summary.committed_sum(), summary.total.committed);
    assert!(attach(pid).jcmd("VM.version").unwrap().contains("JDK 17"));
    assert!(!wrapper.printed_a_thread_dump());
    drop(wrapper);
    let _ = std::fs::remove_dir_all(source.parent().unwrap());
}
