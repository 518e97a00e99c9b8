//! What a report says, as data: the analysis of a results directory (report.json is this, serialised) and the
//! recommendation in it. [`super::analyse`] computes it; `recommend` adds the recommendation; the renderers
//! (`report::render`) only read it, through the types `analysis/mod.rs` re-exports.

use std::collections::BTreeMap;

use serde::Serialize;

use super::capacity::CellCapacity;
use super::cell_attribution::CellAttribution;
use super::curves::CurvePoint;
use super::equal_load::PhaseKind;
use super::host_effect::{HostEffect, RankedCell};
use super::memory::{CellMemory, Memory};
use super::metrics::{Format, metric};
use super::spectrum::Spectrum;
use super::stats::{Estimate, Standing};
use super::tail_points::TailChart;
use crate::results::box_search_json::CellBoxSearch;
use crate::results::{Env, HeapSample, Status};

#[derive(Debug, Serialize)]
pub struct Analysis {
    pub version: u32,
    pub plan: String,
    pub description: String,
    pub results_dir: String,
    pub jload_version: String,
    /// How the figures and intervals are computed, in one sentence.
    pub statistics: String,
    /// Repeats per cell the plan asked for.
    pub repeats: usize,
    pub env: Option<Env>,
    pub slo: Vec<String>,
    /// The axis the recommendation economises on.
    pub cost_axis: Option<String>,
    pub axes: Vec<AxisInfo>,
    pub cells: Vec<CellInfo>,
    pub phases: Vec<PhaseAnalysis>,
    /// Measured closed-model phases that differ only in their connection count, compared side by side.
    pub connection_sweeps: Vec<ConnectionSweep>,
    /// Files that could not be read, and what the report did instead.
    pub notes: Vec<String>,
    /// A box search's answers, one per cell and searched limit (a plan with `[box_search]`; docs/containers.md).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub box_searches: Vec<BoxSearchFinding>,
    /// A tune's trials, best configurations and which parameters mattered, per cell (a plan with `[tune]`;
    /// docs/tune.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tune: Option<super::tune::TuneSection>,
    /// Each cell's typical repeat over time, for the HTML's timelines (not in report.json: every figure of it is).
    #[serde(skip)]
    pub timelines: Vec<CellTimeline>,
    /// Files a timeline could not read.
    #[serde(skip)]
    pub timeline_notes: Vec<String>,
    /// plan.toml as it was run, when the results directory has it.
    #[serde(skip)]
    pub plan_text: Option<String>,
}

/// One box search's answer in words, with the trials and bounds it rests on (`box_search.json`'s record).
#[derive(Debug, Serialize)]
pub struct BoxSearchFinding {
    pub sentence: String,
    #[serde(flatten)]
    pub search: CellBoxSearch,
}

#[derive(Debug, Serialize)]
pub struct AxisInfo {
    pub name: String,
    /// In plan order.
    pub labels: Vec<String>,
    /// False when every cell has the same label (then column labels leave it out).
    pub varies: bool,
}

#[derive(Debug, Serialize)]
pub struct CellInfo {
    pub id: String,
    /// Column label: the labels of the axes that vary.
    pub label: String,
    pub axes: BTreeMap<String, String>,
    pub status: Status,
    pub reps: usize,
    pub reps_ok: usize,
    /// Repeats that crashed, failed or are incomplete, grouped by cause.
    pub problems: Vec<Problem>,
    pub java_version: Option<String>,
    pub collector: Option<String>,
    pub max_heap_mb: Option<f64>,
    /// Its memory section: a cell in a box or with native memory figures (none otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory: Option<CellMemory>,
    /// The highest RSS over the JVM's whole life in any repeat (bytes): what a container for this configuration must
    /// hold at least, box or not.
    #[serde(skip)]
    pub rss_life_peak: Option<u64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Problem {
    pub status: Status,
    pub cause: String,
    /// The phase running when it happened.
    pub phase: Option<String>,
    pub reps: Vec<u32>,
    /// The kernel killed it for its box's memory limit (`failure: "memory_limit"`): its cause says so, in place of
    /// the status word.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub memory_limit: bool,
}

impl Problem {
    /// Its status as outputs show it: `killed by the memory limit` for a kill by the box's limit, else the status's
    /// name (`crashed`, `failed` …).
    pub fn word(&self) -> &'static str {
        if self.memory_limit { "killed by the memory limit" } else { self.status.name() }
    }

    /// `crashed during fill: <cause>` (`during` is ` during fill` or empty); a kill by the memory limit as its cause
    /// alone, which says so (`killed by the memory limit (200 MiB): peak 200 MiB, during fill`).
    pub fn headline(&self, during: &str) -> String {
        if self.memory_limit {
            let during = during.trim_start();
            if during.is_empty() { self.cause.clone() } else { format!("{}, {during}", self.cause) }
        } else {
            format!("{}{during}: {}", self.status.name(), self.cause)
        }
    }

    /// `crashed during fill in repeats 1, 2, 3: OutOfMemoryError: …`; a kill by the memory limit without the status
    /// word (`during get in repeat 2: killed by the memory limit …`), never a bare "crashed".
    pub fn describe(&self, total_reps: usize) -> String {
        let status = if self.memory_limit { "" } else { self.status.name() };
        let during = self.phase.as_ref().map(|phase| format!(" during {phase}")).unwrap_or_default();
        let which = if self.reps.len() == total_reps && total_reps > 1 {
            "in every repeat".to_string()
        } else {
            let reps: Vec<String> = self.reps.iter().map(u32::to_string).collect();
            format!("in repeat{} {}", if reps.len() > 1 { "s" } else { "" }, reps.join(", "))
        };
        format!("{status}{during} {which}: {}", self.cause).trim_start().to_string()
    }
}

/// How the phase drove the target (from its first record).
#[derive(Debug, Serialize)]
pub struct LoadShape {
    pub url: String,
    pub model: String,
    pub connections: usize,
    pub rate: Option<f64>,
    pub duration_s: f64,
    pub requests: u64,
    /// A rate ladder's requested rates, in the order run (from its first record); empty otherwise.
    pub rates: Vec<f64>,
    /// A ladder or search: the whole phase (every step, warm-ups included), medians over the records.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub steps: Option<StepsShape>,
}

/// The whole of a ladder or search phase, beside `duration_s` and `requests`, which are its headline step's.
#[derive(Debug, Serialize)]
pub struct StepsShape {
    /// How many steps it ran.
    pub count: usize,
    /// Its wall time from the first warm-up to the last check (the phase's JVM window; the measured windows' sum
    /// when the JVM was not watched).
    pub duration_s: f64,
    /// Requests in all its steps' measured windows.
    pub requests: u64,
}

#[derive(Debug, Serialize)]
pub struct PhaseAnalysis {
    pub name: String,
    pub measured: bool,
    pub kind: PhaseKind,
    pub load: Option<LoadShape>,
    /// Which latencies the phase compares and which it cannot, when that needs saying next to its table.
    pub equal_load_note: Option<String>,
    /// The SLO's P99 bound (ms), drawn on the latency-against-throughput chart.
    pub slo_p99_ms: Option<f64>,
    /// In cell order.
    pub cells: Vec<CellPhase>,
    /// Measured phases only.
    pub recommendation: Option<Recommendation>,
    /// Whether its repeats' spread follows the servers they ran on; None when they ran on one machine.
    pub hosts: Option<HostEffect>,
    /// Which figure is its GC share, and the GC-time figures its tables show beside it and why.
    pub gc_share: GcShare,
}

/// The GC share of one phase and what its tables show beside it (the rule: `gc_share.rs`, [`GcShare::of`]).
#[derive(Debug, Clone, Serialize)]
pub struct GcShare {
    /// The metric key of the GC share (`gc_wait_pct`).
    pub figure: &'static str,
    /// What it is, with the cells whose share is jstat's GC time: the line under the phase's table.
    pub definition: String,
    /// The cells (ids) some repeat of which had no GC log: their GC share is jstat's GC time there.
    pub from_jstat: Vec<String>,
    /// The other GC-time figures shown beside it, each with why.
    pub beside: Vec<Beside>,
}

/// GC-time figures shown beside the GC share, and why: their definition and the cell that made them worth showing.
#[derive(Debug, Clone, Serialize)]
pub struct Beside {
    /// Metric keys.
    pub figures: Vec<&'static str>,
    /// The line under the phase's table.
    pub why: String,
}

#[derive(Debug, Serialize)]
pub struct CellPhase {
    pub cell: String,
    /// Repeats whose figures count (finished phases of repeats that ran or crashed later).
    pub reps: Vec<u32>,
    /// Metric key → estimate over `reps`.
    pub figures: BTreeMap<&'static str, Estimate>,
    /// Headline metric key → standing against the best cell.
    pub standing: BTreeMap<&'static str, Standing>,
    pub slo: Option<SloVerdict>,
    /// "Is it the GC?": the attribution of its tail to GC over its repeats, or why there is none.
    pub gc_attribution: CellAttribution,
    /// The repeats without a GC log, whose GC share is jstat's GC time (GCT).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub gc_share_from_jstat: Vec<u32>,
    /// The slow requests and the JVM's stops of one repeat, for the HTML's chart (not in report.json: too many).
    #[serde(skip)]
    pub tail_chart: Option<TailChart>,
    pub spectrum: Option<Spectrum>,
    /// Set when the cell's headline latency is not at the requested rate (it fell short): why, and in which repeats.
    /// Such a cell is marked and not ranked on latency.
    pub short_of_rate: Option<String>,
    /// What its capacity searches found (capacity phases).
    pub capacity: Option<CellCapacity>,
    /// Latency against throughput over its ladder or search steps (empty without steps).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub curve: Vec<CurvePoint>,
    /// The phase's memory figures (a cell in a box or with native memory figures; none otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory: Option<Memory>,
    /// The first measured repeat's flight-recording profile, with the repeat (a plan with `[target] profile`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile: Option<(u32, crate::jvm::jfr::profile::PhaseProfile)>,
}

impl CellPhase {
    pub fn figure(&self, key: &str) -> Option<&Estimate> {
        self.figures.get(key)
    }

    /// The figure the cell is ranked on for a headline key: none for a latency measured short of the requested rate.
    pub fn ranked_figure(&self, key: &str) -> Option<&Estimate> {
        let latency = metric(key).format == Format::Ms;
        if latency && self.short_of_rate.is_some() { None } else { self.figure(key) }
    }

    /// The points of its curve that every measured repeat ran (a capacity search bisects at different rates in each
    /// repeat; a ladder runs the same rates in all).
    pub fn common_curve(&self) -> impl Iterator<Item = &CurvePoint> {
        self.curve.iter().filter(|point| point.reps.len() == self.reps.len())
    }
}

impl RankedCell for CellPhase {
    fn id(&self) -> &str {
        &self.cell
    }

    fn counted_reps(&self) -> &[u32] {
        &self.reps
    }

    fn is_ranked_on(&self, key: &str) -> bool {
        self.ranked_figure(key).is_some()
    }
}

/// The plan's SLO on one cell and phase.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct SloVerdict {
    pub reps_judged: usize,
    pub reps_passed: usize,
    /// Every judged repeat passed and the cell never crashed or failed.
    pub met: bool,
}

impl Analysis {
    pub fn cell(&self, id: &str) -> &CellInfo {
        self.cells.iter().find(|cell| cell.id == id).expect("cells come from the summary")
    }

    /// True when no cell has two repeats of anything: differences are unqualified.
    pub fn single_repeat(&self) -> bool {
        self.phases.iter().flat_map(|phase| &phase.cells).all(|cell| cell.reps.len() < 2)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Throughput,
    P99,
    /// The highest capacity under the SLO.
    Capacity,
    /// A cell whose capacity search ran out on jload's side.
    GeneratorLimited,
    /// A ladder or search taken from a target that changed under it (or did not settle while warming up).
    TargetChanged,
    /// A cell's capacity contradicted by what the same JVM sustained within the SLO in another phase of the run.
    CapacityContradicted,
    Cheapest,
    FailedSlo,
    Crashed,
    /// The memory a cell in a box or with native memory figures needs: its whole-life RSS or box peak.
    Memory,
    /// A cell the kernel killed for its box's memory limit.
    MemoryLimit,
}

/// One line of the recommendation.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    pub kind: Kind,
    /// The cell it names, when it names one.
    pub cell: Option<String>,
    pub text: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Recommendation {
    pub findings: Vec<Finding>,
}

/// One cell's run on the JVM's uptime: the repeat its timeline shows.
#[derive(Debug)]
pub struct CellTimeline {
    pub cell: String,
    pub rep: u32,
    /// The repeat crashed.
    pub crashed: bool,
    pub phases: Vec<PhaseSpan>,
    pub heap: Vec<HeapSample>,
}

/// One phase of a cell-repeat's run.
#[derive(Debug, Clone)]
pub struct PhaseSpan {
    pub name: String,
    /// JVM uptime, seconds.
    pub from_s: f64,
    pub to_s: f64,
    /// (middle of the second in uptime s, req/s, p99 ms).
    pub seconds: Vec<(f64, f64, f64)>,
    /// (start in uptime s, duration ms).
    pub pauses: Vec<(f64, f64)>,
    /// A ladder or capacity phase's steps where each ran (empty for other phases); `seconds` are then its headline
    /// step's, placed where that step was measured.
    pub steps: Vec<StepSpan>,
}

/// One step of a ladder or capacity search on the JVM's uptime.
#[derive(Debug, Clone, PartialEq)]
pub struct StepSpan {
    /// JVM uptime, seconds: the step's warm-up and measured window.
    pub from_s: f64,
    pub to_s: f64,
    pub requested_rps: f64,
    pub achieved_rps: f64,
    pub p99_ms: f64,
    /// Whether it met the SLO (None without one).
    pub meets_slo: Option<bool>,
    /// The step whose figures head the phase (its per-second series are drawn).
    pub headline: bool,
}

/// Phases that differ only in their connection count (found by `connections::connection_sweeps`).
#[derive(Debug, Serialize)]
pub struct ConnectionSweep {
    /// What every phase of it loads: the URL as the plan wrote it, or its mix.
    pub url: String,
    /// Fewest connections first.
    pub phases: Vec<SweepPhase>,
}

#[derive(Debug, Serialize)]
pub struct SweepPhase {
    pub name: String,
    pub connections: usize,
}
