//! Test support: the JDKs the tests run, and a real JVM running tests/java/Alloc.java (it allocates, prints `idle`,
//! then idles until it exits by itself), started and waited for until it is idle.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

/// JDK 17's home: `JLOAD_TEST_JDK17`, else Debian's.
pub fn jdk17() -> String {
    std::env::var("JLOAD_TEST_JDK17").unwrap_or_else(|_| "/usr/lib/jvm/java-17-openjdk-amd64".into())
}

/// JDK 25's home: `JLOAD_TEST_JDK25`, else Temurin's.
pub fn jdk25() -> String {
    std::env::var("JLOAD_TEST_JDK25").unwrap_or_else(|_| "/usr/lib/jvm/temurin-25-jdk-amd64".into())
}

/// Starts Alloc.java on the JDK at `java_home` with JVM `options`, exiting by itself `lifetime_ms` after it is idle,
/// and returns once it is idle.
pub fn start_alloc(java_home: &str, options: &[&str], lifetime_ms: u64) -> Child {
    let source = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/java/Alloc.java");
    let mut child = Command::new(format!("{java_home}/bin/java"))
        .args(options)
        .args([source, "--exit-after-ms", &lifetime_ms.to_string()])
        .stdout(Stdio::piped())
        .spawn()
        .expect("start java");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    assert!(line.starts_with("idle"), "{line}");
    child
}
