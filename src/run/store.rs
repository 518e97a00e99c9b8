//! The results directory: its layout, the JSON records in it (all written atomically), and reading it back to
//! resume an interrupted sweep or to summarise it. The only writer of a results directory.
//!
//! ```text
//! <out>/plan.toml  run.json  env.json  summary.json
//! <out>/cells/<cell>/rep-<n>/meta.json  <phase>.json  <phase>.hlog  gcstat.csv  gc.log  stdout.log  stderr.log
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::launcher::ExitInfo;
pub use crate::atomic_file::{write_atomically, write_json};
use crate::jvm::window::JvmWindow;
use crate::load::result::BenchResult;
use crate::plan::PlanBase;
use crate::plan::jdks::Jdk;
use crate::plan::preflight::EffectiveFlags;

pub const SUMMARY_VERSION: u32 = 1;

/// How a cell-repeat ended.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Every phase ran and the target stayed up.
    Ok,
    /// The target died after it was ready.
    Crashed,
    /// The target never became ready, or preflight rejected its options.
    Failed,
    /// Interrupted (Ctrl-C) or still running.
    Incomplete,
}

/// Why a cell-repeat failed; decides whether `--resume` runs it again.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Failure {
    /// Preflight rejected the cell's options: a verdict on the configuration, kept.
    Rejected,
    /// The JVM died of its configuration before it was ready (OutOfMemoryError, a fatal error): kept.
    StartupCrash,
    /// The environment: the command could not be started, the target exited before it was ready without a JVM
    /// crash (a missing file, a port in use), or it was not ready in time. `--resume` runs it again.
    Environment,
}

/// Whether a sweep (first run or `--resume`) runs this cell-repeat: it never ran, was interrupted, or failed for a
/// reason of the environment. Cell-repeats that ran (`ok`), crashed, or failed by their configuration are kept.
pub fn needs_run(meta: Option<&RepMeta>) -> bool {
    let Some(meta) = meta else { return true };
    match meta.status {
        Status::Ok | Status::Crashed => false,
        Status::Incomplete => true,
        Status::Failed => !matches!(meta.failure, Some(Failure::Rejected | Failure::StartupCrash)),
    }
}

/// `run.json`: what `--resume` needs to go on exactly as the first run started.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RunRecord {
    /// The plan file the run started from (`plan.toml` beside this file is its copy).
    pub plan_file: PathBuf,
    /// Where the plan's relative paths resolve.
    pub base: PlanBase,
    /// Repeats of the run (`--repeats` overrides the plan's).
    pub repeats: u32,
    /// Cell id → its folder under `cells/`, for every cell of the matrix.
    pub cells: BTreeMap<String, String>,
}

/// The machine and tools a run used.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Env {
    pub host: String,
    pub cores: usize,
    pub memory_bytes: u64,
    pub kernel: String,
    pub jload_version: String,
    pub jdks: Vec<Jdk>,
    pub started_unix_s: u64,
    pub seed: u64,
}

/// One phase's stored result: the bench result plus the JVM figures over the phase's window.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct PhaseRecord {
    pub phase: String,
    pub measure: bool,
    /// Seconds since the target started at which the phase's load began.
    pub start_s: f64,
    #[serde(flatten)]
    pub bench: BenchResult,
    pub jvm: Option<JvmWindow>,
    /// The plan's SLO judged on this phase (empty without an SLO).
    pub slo_passed: Option<bool>,
}

/// `meta.json` of one cell-repeat.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RepMeta {
    pub cell: String,
    pub axes: BTreeMap<String, String>,
    pub rep: u32,
    pub status: Status,
    /// Why it crashed or failed, in one line.
    pub cause: Option<String>,
    /// For a failed one: whose fault, which decides whether `--resume` retries it.
    #[serde(default)]
    pub failure: Option<Failure>,
    pub command: Vec<String>,
    pub jdk: Jdk,
    pub flags: Option<EffectiveFlags>,
    pub port: u16,
    pub pid: Option<u32>,
    pub ready_s: Option<f64>,
    pub exit: Option<ExitInfo>,
    /// Phases completed, in order.
    pub phases: Vec<String>,
    pub started_unix_s: u64,
    pub finished_unix_s: Option<u64>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RepSummary {
    pub rep: u32,
    pub status: Status,
    pub cause: Option<String>,
    pub phases: BTreeMap<String, PhaseRecord>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CellSummary {
    pub id: String,
    pub axes: BTreeMap<String, String>,
    /// The worst status among its repeats (incomplete < failed < crashed < ok, by how much is missing).
    pub status: Status,
    pub flags: Option<EffectiveFlags>,
    pub reps: Vec<RepSummary>,
}

/// `summary.json`: every cell and repeat with its phases; what reports read.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Summary {
    pub version: u32,
    pub plan: String,
    pub description: String,
    /// Axis names in plan order.
    pub axes: Vec<String>,
    /// Phase names in plan order, with whether each is measured.
    pub phases: Vec<(String, bool)>,
    pub slo: Vec<String>,
    pub cost_axis: Option<String>,
    pub cells: Vec<CellSummary>,
}

/// Paths inside a results directory.
#[derive(Debug, Clone)]
pub struct ResultsDir {
    pub root: PathBuf,
}

impl ResultsDir {
    pub fn new(root: PathBuf) -> ResultsDir {
        ResultsDir { root }
    }

    pub fn plan_copy(&self) -> PathBuf {
        self.root.join("plan.toml")
    }

    pub fn run_record(&self) -> PathBuf {
        self.root.join("run.json")
    }

    pub fn rep_dir(&self, cell_dir: &str, rep: u32) -> PathBuf {
        self.root.join("cells").join(cell_dir).join(format!("rep-{rep}"))
    }

    pub fn read_meta(&self, cell_dir: &str, rep: u32) -> Option<RepMeta> {
        read_json(&self.rep_dir(cell_dir, rep).join("meta.json"))
    }

    pub fn read_phase(&self, cell_dir: &str, rep: u32, phase: &str) -> Option<PhaseRecord> {
        read_json(&self.rep_dir(cell_dir, rep).join(format!("{phase}.json")))
    }
}

pub fn read_json<T: for<'de> Deserialize<'de>>(path: &Path) -> Option<T> {
    let text = std::fs::read_to_string(path).ok()?;
    serde_json::from_str(&text).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(status: Status, failure: Option<Failure>) -> RepMeta {
        RepMeta {
            cell: "gc=G1".to_string(),
            axes: BTreeMap::new(),
            rep: 1,
            status,
            cause: None,
            failure,
            command: Vec::new(),
            jdk: Jdk {
                home: "/jdk".into(),
                version: "17".to_string(),
                implementor: String::new(),
                found_in: String::new(),
            },
            flags: None,
            port: 0,
            pid: None,
            ready_s: None,
            exit: None,
            phases: Vec::new(),
            started_unix_s: 0,
            finished_unix_s: None,
        }
    }

    #[test]
    fn resume_runs_what_never_ran_was_interrupted_or_failed_by_the_environment() {
        assert!(needs_run(None));
        assert!(needs_run(Some(&meta(Status::Incomplete, None))));
        assert!(needs_run(Some(&meta(Status::Failed, Some(Failure::Environment)))));
        assert!(needs_run(Some(&meta(Status::Failed, None))), "an older meta.json without a failure kind");
    }

    #[test]
    fn resume_keeps_what_ran_crashed_or_failed_by_its_configuration() {
        assert!(!needs_run(Some(&meta(Status::Ok, None))));
        assert!(!needs_run(Some(&meta(Status::Crashed, None))));
        assert!(!needs_run(Some(&meta(Status::Failed, Some(Failure::Rejected)))));
        assert!(!needs_run(Some(&meta(Status::Failed, Some(Failure::StartupCrash)))));
    }
}
