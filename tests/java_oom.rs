//! Java's own OutOfMemoryErrors, each named by kind, from real JVMs (JDK 17 and Temurin 25) running
//! tests/java/Oom.java: the runner's crash judgement (`run::cell::crash`) reads their stderr as it reads a target's and
//! records "Java OOM: <kind> — <the JVM's line>", never a bare crash and never a kill by the memory limit.

use crate::common;

use std::path::Path;
use std::process::{Command, Stdio};

use common::jdks::{jdk17, jdk25};
use common::machine;
use common::{repo, tempdir};
use jload::results::{ExitInfo, RepFiles};
use jload::run::cell::crash::{Ending, Evidence, JavaOom};

/// Run Oom.java `kind` with `java` from `home` and the options, its output in `dir`'s stdout.log and stderr.log as
/// the runner keeps a target's; then judge it as the runner does a target that died by itself.
fn judged(home: &Path, kind: &str, options: &[&str], dir: &Path) -> Ending {
    let files = RepFiles::of(dir);
    let (stdout, stderr) = (files.stdout_log(), files.stderr_log());
    let status = Command::new(home.join("bin/java"))
        .args(options)
        .arg(repo().join("tests/java/Oom.java"))
        .arg(kind)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&stdout).unwrap())
        .stderr(std::fs::File::create(&stderr).unwrap())
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(1), "an uncaught error ends the JVM with 1");
    let exit = ExitInfo { code: status.code(), signal: None, stopped_by_jload: false };
    Evidence { stdout: &stdout, stderr: &stderr, error_dir: dir }.judge(&exit)
}

fn assert_kind(home: &Path, kind: &str, options: &[&str], expected: JavaOom, message_start: &str) {
    let dir = tempdir();
    let Ending::Crashed(cause) = judged(home, kind, options, &dir) else { panic!("{kind}: not judged crashed") };
    let prefix = format!(
        "Java OOM: {} — Exception in thread \"main\" java.lang.OutOfMemoryError: {message_start}",
        expected.name()
    );
    assert!(cause.starts_with(&prefix), "{}: {cause}", home.display());
}

#[test]
fn a_full_heap_is_a_java_oom_of_heap_space_on_both_jdks() {
    let _machine = machine::shared();
    for home in [jdk17("java"), jdk25("java")] {
        assert_kind(&home, "heap", &["-Xmx16m"], JavaOom::HeapSpace, "Java heap space");
    }
}

#[test]
fn direct_buffers_past_their_maximum_are_a_java_oom_of_direct_buffer_memory_on_both_jdks() {
    let _machine = machine::shared();
    // Both JDKs word it `Cannot reserve 1048576 bytes of direct buffer memory (allocated: …, limit: 8388608)`; older
    // ones said `Direct buffer memory` (crash.rs's unit test).
    for home in [jdk17("java"), jdk25("java")] {
        let options = ["-Xmx64m", "-XX:MaxDirectMemorySize=8m"];
        assert_kind(&home, "direct", &options, JavaOom::DirectBufferMemory, "Cannot reserve 1048576 bytes of direct");
    }
}
