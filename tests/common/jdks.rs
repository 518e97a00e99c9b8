//! The two JDKs the JVM suites run against (JDK 17 and Temurin 25, overridable with `JLOAD_TEST_JDK17` and
//! `JLOAD_TEST_JDK25`), the allocating Java program they watch (tests/java/Alloc.java) and a running one
//! (`TestJvm`), and the test programs under tests/java compiled.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::thread;
use std::time::{Duration, Instant};

/// The JDK home in `$variable`, else `default`, checked to hold `bin/<tool>`.
fn jdk(variable: &str, default: &str, tool: &str) -> PathBuf {
    let home = PathBuf::from(std::env::var(variable).unwrap_or_else(|_| default.to_owned()));
    assert!(home.join("bin").join(tool).is_file(), "no JDK with {tool} at {} (set {variable})", home.display());
    home
}

/// JDK 17's home, which must have `bin/<tool>`.
pub fn jdk17(tool: &str) -> PathBuf {
    jdk("JLOAD_TEST_JDK17", "/usr/lib/jvm/java-17-openjdk-amd64", tool)
}

/// Temurin 25's home, which must have `bin/<tool>`.
pub fn jdk25(tool: &str) -> PathBuf {
    jdk("JLOAD_TEST_JDK25", "/usr/lib/jvm/temurin-25-jdk-amd64", tool)
}

/// JDK 17's `java`.
pub fn java17() -> PathBuf {
    jdk17("java").join("bin/java")
}

/// Temurin 25's `java`.
pub fn java25() -> PathBuf {
    jdk25("java").join("bin/java")
}

/// tests/java/`file` compiled by JDK 17's javac into `dir/classes` (a compiled class starts faster than the source
/// launcher): the folder to put on the class path.
pub fn compiled(dir: &Path, file: &str) -> PathBuf {
    let classes = dir.join("classes");
    let javac = Command::new(jdk17("javac").join("bin/javac"))
        .args(["-d", classes.to_str().unwrap()])
        .arg(super::repo().join("tests/java").join(file))
        .output()
        .unwrap();
    assert!(javac.status.success(), "{}", String::from_utf8_lossy(&javac.stderr));
    classes
}

/// tests/java/Alloc.java, run by the source launcher.
pub fn alloc_source() -> PathBuf {
    super::repo().join("tests/java/Alloc.java")
}

/// Source-launcher start (compiling Alloc.java) plus its allocation phase, on a busy 2-core machine.
const IDLE_TIMEOUT: Duration = Duration::from_secs(120);

/// A running Alloc.java JVM in its own scratch working directory, killed when dropped (SIGTERM first, so it deletes
/// its PerfData file on the way out; SIGKILL after 5 s; and the attach socket it may leave removed); it keeps every
/// line the JVM printed on stdout (a thread dump would show there).
pub struct TestJvm {
    child: Child,
    /// The process started: the JVM, or the `unshare` wrapper of `in_own_namespaces` (its JVM: `jvm_under`).
    pub pid: u32,
    /// The port of its idle line: the one it listens on with `--listen`, else 0.
    pub port: u16,
    stdout: Arc<Mutex<Vec<String>>>,
    /// Its working directory.
    pub cwd: super::TestDir,
}

impl TestJvm {
    /// Starts `java <jvm_options> Alloc.java <program_args>` of the JDK at `java_home` and waits until it is idle.
    pub fn start(java_home: &Path, jvm_options: &[&str], program_args: &[&str]) -> TestJvm {
        Self::start_with(Command::new(java_home.join("bin/java")), &alloc_source(), jvm_options, program_args)
    }

    /// Starts `command` (a `java`, or what starts one) with `-Xmx64m <jvm_options> source <program_args>` and waits
    /// for its idle line, `idle port=N`.
    pub fn start_with(mut command: Command, source: &Path, jvm_options: &[&str], program_args: &[&str]) -> TestJvm {
        let cwd = super::tempdir();
        command.arg("-Xmx64m").args(jvm_options).arg(source).args(program_args);
        command.current_dir(&*cwd).stdout(Stdio::piped()).stderr(Stdio::inherit());
        let mut child = command.spawn().expect("start java");
        let (tx, rx) = mpsc::channel();
        let pipe = child.stdout.take().unwrap();
        // Owned from here on: a JVM that never becomes idle is stopped with the failing test.
        let mut jvm = TestJvm { pid: child.id(), child, port: 0, stdout: Arc::new(Mutex::new(Vec::new())), cwd };
        let lines = Arc::clone(&jvm.stdout);
        thread::spawn(move || {
            for line in BufReader::new(pipe).lines().map_while(Result::ok) {
                lines.lock().unwrap().push(line.clone());
                let _ = tx.send(line);
            }
        });
        let line = rx.recv_timeout(IDLE_TIMEOUT).unwrap_or_else(|_| panic!("JVM {command:?} did not become idle"));
        jvm.port = line.strip_prefix("idle port=").and_then(|port| port.parse().ok()).expect("idle line");
        jvm
    }

    pub fn pid_arg(&self) -> String {
        self.pid.to_string()
    }

    pub fn printed_a_thread_dump(&self) -> bool {
        self.stdout.lock().unwrap().iter().any(|line| line.starts_with("Full thread dump"))
    }

    /// Whether the process runs (exists and is no zombie).
    pub fn alive(&self) -> bool {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.pid)).unwrap_or_default();
        stat.rsplit_once(") ").is_some_and(|(_, rest)| !rest.starts_with('Z'))
    }
}

impl Drop for TestJvm {
    fn drop(&mut self) {
        let pid = libc::pid_t::try_from(self.child.id()).unwrap();
        // SAFETY: kill(2) on our own child process, which has not been reaped yet.
        unsafe { libc::kill(pid, libc::SIGTERM) };
        let deadline = Instant::now() + Duration::from_secs(5);
        while self.child.try_wait().ok().flatten().is_none() && Instant::now() < deadline {
            thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        // A JVM killed without its shutdown (SIGKILL, or SIGTERM under -Xrs) leaves its socket behind.
        let _ = std::fs::remove_file(format!("/tmp/.java_pid{}", self.pid));
    }
}

/// `java` in its own mount and pid namespaces with a private /tmp, as in a container: the `unshare` command that
/// starts it, and a copy of Alloc.java in `/dev/shm/<folder>` (outside /tmp, which that namespace hides; the caller
/// removes the folder after the JVM).
pub fn in_own_namespaces(java: &Path, folder: &str) -> (Command, PathBuf) {
    let mut command = Command::new("unshare");
    command.args(["--mount", "--pid", "--fork", "--kill-child", "--propagation", "private", "sh", "-c"]);
    command.arg(r#"mount -t tmpfs tmpfs /tmp && exec "$0" "$@""#).arg(java);
    let outside_tmp = Path::new("/dev/shm").join(folder);
    std::fs::create_dir_all(&outside_tmp).unwrap();
    let source = outside_tmp.join("Alloc.java");
    std::fs::copy(alloc_source(), &source).unwrap();
    (command, source)
}

/// The JVM `unshare --fork` started: the first child of the `unshare` process `wrapper`.
pub fn jvm_under(wrapper: u32) -> u32 {
    let children = std::fs::read_to_string(format!("/proc/{wrapper}/task/{wrapper}/children")).unwrap();
    children.split_whitespace().next().expect("the JVM under unshare").parse().unwrap()
}

/// A JVM test program that prints `port=N` once it serves: the process, killed when dropped, and its port.
pub struct PortJvm {
    pub child: std::process::Child,
    pub port: u16,
}

impl PortJvm {
    /// Spawns `command` with its stdout piped and waits for its first line, `port=N`.
    pub fn start(mut command: Command) -> PortJvm {
        use std::io::BufRead;
        let mut child = command
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap_or_else(|err| panic!("cannot start {command:?}: {err}"));
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let port = line.trim().strip_prefix("port=").unwrap_or_else(|| panic!("no port line: {line:?}"));
        PortJvm { port: port.parse().unwrap(), child }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/", self.port)
    }
}

impl Drop for PortJvm {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
