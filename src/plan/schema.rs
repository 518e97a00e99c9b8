//! The plan file as written (TOML → serde structs), with source spans kept where later checks must name a line.
//! Documented in docs/plan.md.

use std::collections::BTreeMap;

use serde::Deserialize;
use toml::Spanned;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanFile {
    pub name: Spanned<String>,
    #[serde(default)]
    pub description: String,
    pub target: TargetFile,
    #[serde(default)]
    pub axis: Vec<AxisFile>,
    pub phase: Spanned<Vec<PhaseFile>>,
    #[serde(default)]
    pub run: RunFile,
    #[serde(default)]
    pub slo: Option<SloFile>,
    /// Where the load comes from (default: this machine, on any CPU).
    #[serde(default)]
    pub load: LoadFile,
    /// The smallest box that holds the SLO (docs/containers.md).
    pub box_search: Option<Spanned<BoxSearchFile>>,
    /// The best JVM configuration searched within a space (docs/tune.md).
    pub tune: Option<TuneFile>,
}

/// `[box_search]`: the limits to search, each `{ from, to, precision }`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoxSearchFile {
    /// `{ from = "128m", to = "2g", precision = 0.05 }`.
    pub memory: Option<Spanned<SearchRangeFile<String>>>,
    /// `{ from = 0.25, to = 2, precision = 0.1 }`.
    pub cpus_quota: Option<Spanned<SearchRangeFile<f64>>>,
    /// Search at this share of the capacity each cell's capacity phase finds in the largest box (`0.8`); none: at
    /// the phases' own rates.
    pub at_capacity: Option<Spanned<f64>>,
}

/// One searched limit's bounds and precision (a share: `0.05` or `"5%"`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchRangeFile<T> {
    pub from: T,
    pub to: T,
    pub precision: Option<toml::Value>,
}

/// `[load]`: the machines that generate the load and the CPUs it may use.
#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct LoadFile {
    /// ssh destinations (`user@host` or a `~/.ssh/config` alias) that each run a share of every phase.
    pub hosts: Option<Spanned<Vec<String>>>,
    /// CPUs the local generator's threads are pinned to, like taskset's list: `"2-3"`, `"1,3"`.
    pub cpus: Option<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TargetFile {
    /// Shell command run once before any cell (e.g. `mvn -q … package`).
    pub build: Option<String>,
    /// The target's command line; `{jvm}` expands to the JVM options, `{port}` to the cell's port, `{java}` (or a
    /// leading `java`) to the cell's JDK, `{args}` (a word of its own) to the axes' program arguments, which
    /// otherwise go at its end.
    pub command: Spanned<String>,
    /// URL that answers 2xx once the target is ready.
    pub ready: Spanned<String>,
    pub startup_timeout: Option<Spanned<String>>,
    pub stop_timeout: Option<Spanned<String>>,
    pub jdk: Option<String>,
    #[serde(default)]
    pub jvm: Vec<String>,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Directory the build and the target run in, relative to the plan file (default: where jload runs).
    pub workdir: Option<String>,
    /// ssh destination of the server the target runs on (default: this machine).
    pub host: Option<Spanned<String>>,
    /// Several identical servers: the sweep's cell-repeats run on them in parallel.
    pub hosts: Option<Spanned<Vec<String>>>,
    /// CPUs the target is pinned to, like taskset's list: `"0-1"`, `"0,2"` (on its server when remote).
    pub cpus: Option<Spanned<String>>,
    /// The target's box (docs/containers.md): its memory limit, without swap (`"512m"`), and its CPU quota as a
    /// number of CPUs (`1.5`); neither: no box.
    pub memory: Option<Spanned<String>>,
    pub cpus_quota: Option<Spanned<f64>>,
    /// Native Memory Tracking (`-XX:NativeMemoryTracking=summary`, read during the run into `nmt.csv`); default: on
    /// for a cell with a memory limit, off otherwise.
    pub nmt: Option<bool>,
    /// A flight recording of each measured phase (`<phase>.jfr`, docs/profiling.md); default: [`crate::plan::Target::records_flight`].
    pub profile: Option<bool>,
    /// Add -XX:+ExitOnOutOfMemoryError (default true).
    #[serde(default = "yes")]
    pub exit_on_oom: bool,
}

fn yes() -> bool {
    true
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AxisFile {
    pub name: Spanned<String>,
    /// The values written out; or, in shorthand for a box axis, one of `memory` and `cpus_quota` (each value its own
    /// label).
    pub values: Option<Spanned<Vec<Spanned<AxisValueFile>>>>,
    pub memory: Option<Spanned<Vec<String>>>,
    pub cpus_quota: Option<Spanned<Vec<f64>>>,
}

/// An axis value: a bare option (`"-Xmx64m"`, its own label) or a table.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum AxisValueFile {
    Option(String),
    Table(AxisValueTable),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AxisValueTable {
    pub label: String,
    #[serde(default)]
    pub jvm: Vec<String>,
    pub jdk: Option<String>,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Program arguments: a list of words after the command's own, or where `{args}` stands. Any TOML value here:
    /// `plan::args` checks it, so that `args = "x"` gets its own one-line error rather than the untagged enum's.
    pub args: Option<toml::Value>,
    /// The cell's box, over `[target]`'s: memory limit (`"384m"`) and CPU quota (`0.5`). Plain values, not spanned:
    /// serde's untagged enum loses spans; errors name the axis value's line.
    pub memory: Option<String>,
    pub cpus_quota: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PhaseFile {
    pub name: Spanned<String>,
    /// false for fill and warm-up phases: reported, never compared.
    #[serde(default = "yes")]
    pub measure: bool,
    pub url: Option<String>,
    pub mix: Option<String>,
    pub connections: Option<Spanned<usize>>,
    pub threads: Option<Spanned<usize>>,
    pub requests: Option<Spanned<u64>>,
    pub duration: Option<Spanned<String>>,
    pub timeout: Option<Spanned<String>>,
    pub rate: Option<Spanned<f64>>,
    pub method: Option<String>,
    #[serde(default)]
    pub headers: Vec<String>,
    pub body: Option<String>,
    /// Status codes that count as success, e.g. "200-299,404".
    pub ok_status: Option<Spanned<String>>,
    /// A rate ladder: one open-model step per rate.
    pub rates: Option<Spanned<RatesFile>>,
    /// A capacity search under an SLO (`true`: the plan's `[slo]`).
    pub capacity: Option<Spanned<CapacityFile>>,
    /// A ladder step's warm-up (not recorded) and measured window, and the requests its window must hold.
    pub step_warmup: Option<Spanned<String>>,
    pub step: Option<Spanned<String>>,
    pub min_requests: Option<Spanned<u64>>,
    /// A ladder's warm-up until steady before its first step: at most this long ("0s": off), windows agreeing within
    /// this share ("10%").
    pub steady_max: Option<Spanned<String>>,
    pub steady_tolerance: Option<Spanned<String>>,
    /// HTTP version ("1.1", "2", "auto"), HTTP/2 streams per connection, TLS trust and client certificate (files
    /// relative to the plan).
    pub http: Option<Spanned<String>>,
    pub streams: Option<Spanned<usize>>,
    #[serde(default)]
    pub insecure: bool,
    pub cacert: Option<Spanned<String>>,
    pub cert: Option<Spanned<String>>,
    pub key: Option<Spanned<String>>,
}

/// `rates = [2000, 4000, 8000]` or `rates = { from = 1000, to = 40000, steps = 8 }`.
#[derive(Debug, Deserialize)]
#[serde(
    untagged,
    expecting = "a list of rates like [2000, 4000, 8000] or a table like { from = 1000, to = 40000, steps = 8 }"
)]
pub enum RatesFile {
    Listed(Vec<f64>),
    Geometric(GeometricFile),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GeometricFile {
    pub from: f64,
    pub to: f64,
    pub steps: u32,
}

/// `capacity = true` (judged on the plan's `[slo]`) or `capacity = { slo = "p99<=10ms", errors = "0.1%", … }`.
#[derive(Debug)]
pub enum CapacityFile {
    Enabled(bool),
    Goal(CapacityGoalFile),
}

/// Not serde's `untagged`: that would hide a table's own error (a misspelled key) behind "true or a table like …".
impl<'de> Deserialize<'de> for CapacityFile {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match toml::Value::deserialize(deserializer)? {
            toml::Value::Boolean(enabled) => Ok(CapacityFile::Enabled(enabled)),
            toml::Value::Table(table) => {
                // serde names the key: "unknown field `slow`, expected one of `slo`, `errors`, …".
                table
                    .try_into()
                    .map(CapacityFile::Goal)
                    .map_err(|err| serde::de::Error::custom(format!("capacity: {}", err.message())))
            }
            _ => Err(serde::de::Error::custom(
                "true or a table like { slo = \"p99<=10ms\", errors = \"0.1%\", precision = \"5%\" }",
            )),
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CapacityGoalFile {
    /// One rule (`"p99<=10ms"`) or several; default: the plan's `[slo]`.
    pub slo: Option<SloRulesFile>,
    /// The error share a step may have (`"0.1%"`) or a count.
    pub errors: Option<String>,
    /// `"5%"`: stop when the lowest failing rate is within this of the highest passing one.
    pub precision: Option<String>,
    pub start_rate: Option<f64>,
    pub max_rate: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum SloRulesFile {
    One(String),
    Many(Vec<String>),
}

#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct RunFile {
    pub repeats: Option<Spanned<u32>>,
    pub order: Option<Spanned<String>>,
    pub cooldown: Option<Spanned<String>>,
    /// The axis whose cheapest value meeting the SLO the report recommends (default: the first axis).
    pub cost_axis: Option<Spanned<String>>,
    /// The repeats each contender for a phase's best cell is measured to once the sweep is done (`run::confirm`).
    pub confirm: Option<Spanned<u32>>,
}

/// Service-level objectives judged per cell and phase: threshold figure → its bound (`p99 = "50ms"`, `rps = 10000`);
/// which keys exist and which way each bounds is `load::figures::threshold`'s.
pub type SloFile = BTreeMap<String, Spanned<toml::Value>>;

/// `[tune]` as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TuneFile {
    pub objective: Spanned<String>,
    pub budget: Spanned<BudgetFile>,
    pub seed: Option<u64>,
    /// `"model"` (the default) or `"random"`.
    pub method: Option<Spanned<String>>,
    /// Trials of the space-filling start (default: the number of parameters + 2, at least 4).
    pub start: Option<Spanned<usize>>,
    /// Measurements of each finalist once the search ends, its trial included (default 3; 1: none).
    pub confirm: Option<Spanned<u32>>,
    /// Objective "memory" only: the rate (req/s) the least memory must hold the SLO at.
    pub at_rate: Option<Spanned<f64>>,
    pub space: Spanned<BTreeMap<String, Spanned<ParameterFile>>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BudgetFile {
    pub trials: Option<u64>,
    pub time: Option<Spanned<String>>,
}

/// A parameter: a list of values (`gc = ["G1", "Parallel"]`), or a table with a range or values.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum ParameterFile {
    Values(Vec<toml::Value>),
    Table(ParameterTable),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParameterTable {
    pub from: Option<toml::Value>,
    pub to: Option<toml::Value>,
    #[serde(default)]
    pub log: bool,
    pub values: Option<Vec<toml::Value>>,
    /// Only while another parameter (a choice) has one of these values: `when = { gc = ["G1"] }`.
    pub when: Option<BTreeMap<String, Vec<String>>>,
    /// The JVM option with `{}` where the value goes, for a parameter not named after its option.
    pub option: Option<String>,
    /// Program arguments instead of a JVM option: words with `{}` where the value goes, or, for two booleans, the
    /// words given when true. Any TOML value here: checked by `plan::args::parse_args`, for its one-line error.
    pub args: Option<toml::Value>,
}
