//! JVM telemetry: what jload reads about a Java process without spawning JDK tools.

pub mod gclog;
