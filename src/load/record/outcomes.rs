//! The records of what a run or a rate search concluded, kept in its result beside the figures: who limited an
//! open-model rate ([`Limit`], [`Side`]), a ladder's steps and the capacity a search found ([`Step`], [`Capacity`]),
//! and whether the target held still under them ([`Steadiness`]; `steady.rs` has the rule that fills it).

use serde::{Deserialize, Serialize};

use super::summary::{ErrorSummary, LatencySummary};

/// Which side ran out first at a step: the target (it could not serve the rate within the SLO) or the generator
/// (jload itself could not send at the rate: its CPU, its schedule, its connections).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    Target,
    Generator,
}

impl Side {
    /// The side as JSON and every output spell it: `target` or `generator`.
    pub fn name(self) -> &'static str {
        match self {
            Side::Target => "target",
            Side::Generator => "generator",
        }
    }
}

/// Why a step did not sustain its rate, and whose limit it was.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Limit {
    pub side: Side,
    /// One line naming the evidence ("late sends: 4.1 % of requests, busiest generator thread at 99 % CPU").
    pub reason: String,
}

/// One step of a ladder or a capacity search.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    pub requested_rps: f64,
    /// Requests completed per second of the measured window.
    pub achieved_rps: f64,
    pub duration_s: f64,
    pub requests: u64,
    /// Latency from each request's intended send time (corrected for coordinated omission).
    pub latency_ms: LatencySummary,
    pub errors: ErrorSummary,
    /// Errors as a share of attempts, in percent (see `BenchResult::error_pct`).
    pub error_pct: Option<f64>,
    /// Requests that fell due in the measured window but were never sent, and ones sent but unanswered at its end.
    pub never_sent: u64,
    pub unfinished: u64,
    /// Set when the step did not sustain its rate: who ran out.
    pub limited_by: Option<Limit>,
    /// Whether the step met the SLO it was judged on (None without one).
    pub meets_slo: Option<bool>,
    /// How many measured windows at this rate the figures pool: 1 for each step as it ran; a capacity search judges a
    /// rate it measured again on all its windows at once (`search/ladder/`).
    #[serde(default = "one_window", skip_serializing_if = "is_one_window")]
    pub windows: u32,
    /// Set when the pooled windows were weighed by the target's rarest collection (`search/rare.rs`): some held it and
    /// some did not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rare: Option<RareShare>,
}

/// How a rate's pooled windows were weighed by a collection some of them held and the others did not.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RareShare {
    /// The kind of collection (`full`, `concurrent`, `young`).
    pub kind: String,
    /// How many of the rate's windows held one.
    pub windows_with: u32,
    /// The requests the target served per collection of this kind, over every window the search counted.
    pub requests_per_collection: f64,
    /// The share of the pool's requests the windows holding one stand for, as over a long run, in percent.
    pub share_pct: f64,
    /// How many times each window with one, and each without, is taken into the pool.
    pub repeats_with: u64,
    pub repeats_without: u64,
}

impl RareShare {
    /// `the 1 window with a full collection weighed to 12.5 % (one per 480,000 requests)`.
    pub fn describe(&self) -> String {
        let windows = match self.windows_with {
            1 => "the 1 window".to_string(),
            n => format!("the {n} windows"),
        };
        format!(
            "{windows} with a {} collection weighed to {} % (one per {} requests)",
            self.kind,
            self.share_pct,
            crate::load::format::grouped(self.requests_per_collection as u64)
        )
    }
}

impl Step {
    /// What a rate measured again rests on: `over 2 windows, 3.0 s`, and how they were weighed when they were (`; the
    /// 1 window with a full collection weighed to 12.5 % (one per 480,000 requests)`).
    pub fn pooled_windows(&self) -> String {
        let weighed = self.rare.as_ref().map(|rare| format!("; {}", rare.describe())).unwrap_or_default();
        format!("over {} windows, {:.1} s{weighed}", self.windows, self.duration_s)
    }
}

fn one_window() -> u32 {
    1
}

fn is_one_window(windows: &u32) -> bool {
    *windows == 1
}

/// The outcome of a capacity search: the highest rate that met the SLO, with the steps that bound it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Capacity {
    /// The highest requested rate whose step met the SLO; None when even the first step failed it, or when the
    /// generator ran out before the target (then no capacity is claimed for the target).
    pub rps: Option<f64>,
    /// The SLO as rules (`p99<=10ms, errors<=0.1%`).
    pub slo: String,
    /// Whose limit ended the search.
    pub limited_by: Side,
    /// The highest rate that met the SLO and the lowest that did not (None when the search never got there).
    pub bounds: [Option<f64>; 2],
    /// One line saying how the search ended, for every output.
    pub verdict: String,
}

/// One warm-up: each window's closed-model throughput, and whether it settled.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Warmup {
    /// Requests completed per second in each window, in the order run.
    pub windows_rps: Vec<f64>,
    /// The last windows agreed (false: it gave up at the maximum, or was cut short).
    pub steady: bool,
    /// The target's slowest rhythm seen in the warm-up: the requests it served per cycle of the rarest kind of its
    /// collections (a JVM's full or concurrent ones, else its young ones), which a step's window is sized to hold;
    /// None when the target could not be watched or collected nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests_per_cycle: Option<f64>,
    /// Seconds the target's JIT compiled over the last windows (`steady::AGREEING`); None when it could not be
    /// watched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jit_compile_s: Option<f64>,
}

/// The target changed under a ladder or a search.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Change {
    /// Check throughput ÷ the settled throughput before the steps: above 1 when the target got faster.
    pub factor: f64,
    /// The first `set_aside` steps ran before the change was found; the result no longer rests on them (0 when the
    /// search kept its capacity, or for a fixed ladder).
    pub set_aside: usize,
    /// The start rate of the search run afresh after the change (None when it was not re-searched).
    pub researched_from: Option<f64>,
    /// One line for every output ("the target got 40× faster during the search: warm-up too short; …").
    pub note: String,
}

/// The warm-ups and checks of one ladder or search.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Steadiness {
    /// The warm-up before the first step, then one before each re-search.
    pub warmups: Vec<Warmup>,
    /// Each check window's closed-model throughput after the last step (of each search), in the order run.
    pub checks_rps: Vec<f64>,
    /// Each time the target was found changed under the steps, in order (empty when it held still).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changes: Vec<Change>,
}

impl Steadiness {
    /// Whether the result was taken from a target that changed: under the steps, or while warming up without settling.
    pub fn target_changed(&self) -> bool {
        !self.changes.is_empty() || self.warmups.iter().any(|warmup| !warmup.steady)
    }

    /// What made the result suspect, one line each: the warm-ups that did not settle, then each change.
    pub fn problems(&self) -> Vec<String> {
        let unsettled = self.warmups.iter().filter(|warmup| !warmup.steady).map(Warmup::describe);
        unsettled.chain(self.changes.iter().map(|change| change.note.clone())).collect()
    }
}
