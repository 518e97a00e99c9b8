//! JVM telemetry without spawning a JDK tool: the hsperfdata reader and sampler (`jload gcstat`, `jload jps`),
//! target resolution (pid, `port:N`, name), /proc figures, GC-log analysis (`jload gclog`), JFR recordings
//! (`jload jfr`), watching a JVM over a window of time, and HotSpot's attach protocol with the native memory summary
//! it reads. It knows nothing about HTTP.
//!
//! Folders: `perfdata/` reads a JVM's PerfData file (the reader, where the file is, jstat's formulas, one sample of
//! PerfData and /proc); `watch/` watches a JVM over a window of time (the sampling thread, `gcstat.csv`, a window's
//! figures); `attach/` speaks HotSpot's attach protocol and reads native memory through it; `gclog/` parses GC logs
//! and gives the stretches a JVM held its threads up (`gclog/stops.rs`); `jfr/` reads JFR recordings (chunks,
//! metadata, constant pools, events) into typed events, `jfr summary`'s figures and a phase's profile. Flat:
//! `clock.rs` puts the JVM's uptime on the wall clock, for PerfData and the GC log alike; `thread_groups.rs` the
//! JVM's CPU by thread group from /proc.

pub mod attach;
pub mod cli;
pub mod clock;
pub mod discovery;
pub mod gc_init;
pub mod gclog;
pub mod jfr;
pub mod perfdata;
pub mod procfs;
pub mod resolve;
#[cfg(test)]
pub mod test_jvm;
pub mod thread_groups;
pub mod watch;
