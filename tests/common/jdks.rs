//! The two JDKs the JVM suites run against (JDK 17 and Temurin 25, overridable with `JLOAD_TEST_JDK17` and
//! `JLOAD_TEST_JDK25`), the allocating Java program they watch (tests/java/Alloc.java), and the test programs under
//! tests/java compiled.

use std::path::{Path, PathBuf};
use std::process::Command;

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
