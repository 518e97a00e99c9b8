//! The records of a results directory, as plain serde values: what `run` writes and `report` reads. Each file of
//! the layout ([`super::layout`]) holds one of these: `run.json` a [`RunRecord`], `env.json` an [`Env`],
//! `summary.json` a [`Summary`], a cell-repeat's `meta.json` a [`RepMeta`] and each `<phase>.json` a [`PhaseRecord`].

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::attribution::GcAttribution;
use crate::cgroup::Limits;
use crate::jvm::gc_init::JvmSaid;
use crate::jvm::watch::window::JvmWindow;
use crate::load::record::result::BenchResult;
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

impl Status {
    /// The status as summary.json and every output spell it: `ok`, `crashed`, `failed`, `incomplete`.
    pub fn name(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Crashed => "crashed",
            Status::Failed => "failed",
            Status::Incomplete => "incomplete",
        }
    }
}

/// Why a cell-repeat failed; decides whether `--resume` runs it again.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// Preflight rejected the cell's options: a verdict on the configuration, kept.
    Rejected,
    /// The JVM died of its configuration before it was ready (OutOfMemoryError, a fatal error): kept.
    StartupCrash,
    /// The environment: the command could not be started, the target exited before it was ready without a JVM
    /// crash (a missing file, a port in use), or it was not ready in time. `--resume` runs it again.
    Environment,
    /// The kernel killed the target for its box's memory limit (SIGKILL while the box's OOM-kill count rose): a
    /// verdict on the configuration in that box, kept — with status crashed once it was ready, failed before.
    MemoryLimit,
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
    /// The target's servers (`[target] host`/`hosts`), by ssh destination: the same facts read there.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub servers: BTreeMap<String, Env>,
}

impl Env {
    /// This machine's facts, for env.json (and, through `jload agent env`, a target server's).
    pub fn of_this_machine(installed: Vec<Jdk>, seed: u64) -> Env {
        let read = |path: &str| std::fs::read_to_string(path).unwrap_or_default().trim().to_string();
        let memory_kb: u64 = read("/proc/meminfo")
            .lines()
            .find_map(|line| line.strip_prefix("MemTotal:"))
            .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
            .unwrap_or(0);
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |since| since.as_secs());
        Env {
            host: read("/proc/sys/kernel/hostname"),
            cores: crate::load::input::spec::cores(),
            memory_bytes: memory_kb * 1024,
            kernel: read("/proc/sys/kernel/osrelease"),
            jload_version: env!("CARGO_PKG_VERSION").to_string(),
            jdks: installed,
            started_unix_s: now,
            seed,
            servers: BTreeMap::new(),
        }
    }
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
    /// A ladder phase: the JVM window of each step, `step_jvm[i]` of `steps[i]` (None where the JVM could not be
    /// sampled); empty for other phases. Each spans its step's warm-up and measured window.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub step_jvm: Vec<Option<JvmWindow>>,
    /// The plan's SLO judged on this phase (empty without an SLO).
    pub slo_passed: Option<bool>,
    /// The phase's tail laid over the JVM's GC pauses, stalls and safepoints (None without a GC log or a clock
    /// mapping; for a ladder phase, its headline step's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gc_attribution: Option<GcAttribution>,
    /// The target's cgroup box at the phase's end (a plan with `memory` or `cpus_quota`; docs/containers.md).
    #[serde(rename = "box", default, skip_serializing_if = "Option::is_none")]
    pub cell_box: Option<BoxFigures>,
    /// The JVM's native memory by category at the phase's end (NMT, docs/containers.md); None where NMT was off or
    /// could not be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nmt: Option<crate::jvm::attach::nmt::NmtSummary>,
    /// The phase's flight recording (docs/profiling.md); None where the plan records none or the phase is not
    /// measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flight_recording: Option<PhaseRecording>,
    /// The JVM's CPU by thread group over the phase, in cores (from /proc; None where its threads could not be
    /// read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread_cpu: Option<crate::jvm::thread_groups::GroupCores>,
}

/// A measured phase's JDK Flight Recorder recording: its file in the cell-repeat's folder, what starting and writing
/// it cost (jload's commands through the attach socket, whose safepoints are jload's), or why there is none.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PhaseRecording {
    /// The file's name in the cell-repeat's folder (`get.jfr`); None when the recording was not written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// How long `JFR.start` took, at the phase's start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_ms: Option<f64>,
    /// How long `JFR.stop` took writing the file, at the phase's end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_ms: Option<f64>,
    /// What the JVM's resident set grew by over the cell-repeat's first recording, made and dropped before the first
    /// phase: JFR's own classes, code and buffers, jload's share of the JVM's memory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recorder_rss_bytes: Option<u64>,
    /// What the recording says over the phase's load window (docs/profiling.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<crate::jvm::jfr::profile::PhaseProfile>,
    /// Why the recording is missing or cut short, in one line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// A target's box as a phase ended: its memory (bytes) since the box was made — fill and warm-up phases included —
/// and its CPU quota and throttling, counted since the box was made too. Each figure is absent where the kernel
/// does not keep it (a v2 hierarchy without the controller, `memory.peak` before Linux 5.19).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BoxFigures {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_limit: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_usage: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_peak: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oom_kills: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anon: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpus_quota: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub periods: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub throttled_periods: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub throttled_ms: Option<f64>,
    /// The phase's own share of the CPU counters: periods with runnable threads, throttled periods and throttled
    /// time (summed over threads) between the phase's start and its end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase_periods: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase_throttled_periods: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase_throttled_ms: Option<f64>,
}

impl BoxFigures {
    /// The share of CFS periods with runnable threads in which the quota held them back, in percent.
    pub fn throttled_pct(&self) -> Option<f64> {
        let periods = self.periods.filter(|&periods| periods > 0)?;
        Some(100.0 * self.throttled_periods? as f64 / periods as f64)
    }

    /// The same share over the phase's own window: "CPU throttled 59 % of periods during this phase".
    pub fn phase_throttled_pct(&self) -> Option<f64> {
        let periods = self.phase_periods.filter(|&periods| periods > 0)?;
        Some(100.0 * self.phase_throttled_periods? as f64 / periods as f64)
    }
}

impl PhaseRecord {
    /// The record of a phase as its load left it: what the probes watching the target add (the JVM's windows, the
    /// box, native memory) and the attribution are still to come.
    pub fn of_load(
        phase: &str,
        measure: bool,
        start_s: f64,
        bench: BenchResult,
        slo_passed: Option<bool>,
    ) -> PhaseRecord {
        PhaseRecord {
            phase: phase.into(),
            measure,
            start_s,
            bench,
            jvm: None,
            step_jvm: Vec::new(),
            slo_passed,
            gc_attribution: None,
            cell_box: None,
            nmt: None,
            flight_recording: None,
            thread_cpu: None,
        }
    }

    /// A measured phase named `phase` that started at 0 s and holds `bench` and nothing else: the plain record unit
    /// tests build on.
    #[cfg(test)]
    pub fn of_bench(phase: &str, bench: BenchResult) -> PhaseRecord {
        PhaseRecord::of_load(phase, true, 0.0, bench, None)
    }

    /// The index in `bench.steps` of the step whose figures the record's top level holds (a ladder phase), None for
    /// a phase of one run.
    pub fn headline_step(&self) -> Option<usize> {
        let steps = &self.bench.steps;
        (!steps.is_empty()).then(|| crate::load::search::ladder::headline_index(steps, self.bench.capacity.as_ref()))
    }

    /// The JVM window beside the record's top-level figures: a ladder phase's headline step's (its req/s and P99 are
    /// that step's, so its GC count, pause share and longest pause are too; None where that step's JVM was not
    /// sampled), else the phase's.
    pub fn headline_jvm(&self) -> Option<&JvmWindow> {
        match self.headline_step() {
            Some(index) if !self.step_jvm.is_empty() => self.step_jvm.get(index)?.as_ref(),
            _ => self.jvm.as_ref(),
        }
    }
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
    pub failure: Option<FailureKind>,
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
    /// The server the target ran on (its ssh destination); None: this machine.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// The cgroup box the target ran in (a plan with `memory` or `cpus_quota`); None: no box.
    #[serde(rename = "box", default, skip_serializing_if = "Option::is_none")]
    pub cell_box: Option<Limits>,
    /// What the running JVM itself said at start-up in its GC log (collector, CPUs and memory it sees, heap).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jvm_said: Option<JvmSaid>,
}

impl RepMeta {
    /// A cell-repeat that has just begun: `incomplete`, nothing known yet but which cell, repeat and JDK it is.
    pub fn begun(cell: String, axes: BTreeMap<String, String>, rep: u32, jdk: Jdk, started_unix_s: u64) -> RepMeta {
        RepMeta {
            cell,
            axes,
            rep,
            status: Status::Incomplete,
            cause: None,
            failure: None,
            command: Vec::new(),
            jdk,
            flags: None,
            port: 0,
            pid: None,
            ready_s: None,
            exit: None,
            phases: Vec::new(),
            started_unix_s,
            finished_unix_s: None,
            host: None,
            cell_box: None,
            jvm_said: None,
        }
    }

    /// Whole seconds from its start to its end (0 while it has none).
    pub fn wall_seconds(&self) -> f64 {
        self.finished_unix_s.unwrap_or(self.started_unix_s).saturating_sub(self.started_unix_s) as f64
    }
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

impl CellSummary {
    /// The phase records that count as measurements, for the terminal and every report alike: from repeats that ran
    /// to the end or crashed later, and only phases that finished (not the one a crash or Ctrl-C cut short). In
    /// repeat order, with the repeat number.
    pub fn measurements(&self, phase: &str) -> Vec<(u32, &PhaseRecord)> {
        self.reps
            .iter()
            .filter(|rep| matches!(rep.status, Status::Ok | Status::Crashed))
            .filter_map(|rep| rep.phases.get(phase).map(|record| (rep.rep, record)))
            .filter(|(_, record)| !record.bench.interrupted)
            .collect()
    }
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

/// How the target ended.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct ExitInfo {
    pub code: Option<i32>,
    pub signal: Option<i32>,
    /// True when jload stopped it (a normal end of a cell), false when it died by itself.
    pub stopped_by_jload: bool,
}

impl ExitInfo {
    pub fn describe(&self) -> String {
        match (self.code, self.signal) {
            (Some(code), _) => format!("exit code {code}"),
            (None, Some(signal)) => format!("killed by signal {signal}"),
            _ => "unknown exit".to_string(),
        }
    }
}

impl Summary {
    /// The cell with this id.
    pub fn cell(&self, id: &str) -> Option<&CellSummary> {
        self.cells.iter().find(|cell| cell.id == id)
    }

    /// The measurements of a phase in a cell ([`CellSummary::measurements`]); none for an unknown cell.
    pub fn measurements(&self, cell: &str, phase: &str) -> Vec<(u32, &PhaseRecord)> {
        self.cell(cell).map_or_else(Vec::new, |cell| cell.measurements(phase))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_status_is_named_as_summary_json_spells_it() {
        for status in [Status::Ok, Status::Crashed, Status::Failed, Status::Incomplete] {
            assert_eq!(serde_json::to_value(status).unwrap(), status.name());
        }
    }
}
