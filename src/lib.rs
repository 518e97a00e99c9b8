//! jload as a library: every module of the tool, for its command line (`main.rs`) and for the integration tests,
//! which use the modules they test instead of compiling their sources again. The map: docs/architecture.md.

#[cfg(test)]
mod architecture_tests;
pub mod atomic_file;
pub mod attribution;
pub mod bench;
pub mod cgroup;
pub mod cpuset;
pub mod error;
pub mod intervals;
pub mod jvm;
pub mod launcher;
pub mod load;
pub mod merge_cli;
pub mod plan;
pub mod remote;
pub mod report;
pub mod results;
pub mod run;
pub mod stats;
pub mod text_table;
pub mod tomlfile;
pub mod tune;
pub mod units;
pub mod usage_error;
