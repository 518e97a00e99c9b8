//! The two JDKs the JVM suites run against (JDK 17 and Temurin 25, overridable with `JLOAD_TEST_JDK17` and
//! `JLOAD_TEST_JDK25`), and the allocating Java program they watch (tests/java/Alloc.java).

use std::path::PathBuf;

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

/// tests/java/Alloc.java, run by the source launcher.
pub fn alloc_source() -> PathBuf {
    super::repo().join("tests/java/Alloc.java")
}
