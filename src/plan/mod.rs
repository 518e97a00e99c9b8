//! Plans: a TOML file describing a control-variable experiment, checked completely before anything starts and
//! turned into typed values (target, axes, phases, run settings, SLO) and the matrix of cells.

pub mod args;
mod axes;
pub mod box_limits;
pub mod box_search;
pub mod estimate;
pub mod folder;
pub mod jdks;
pub mod matrix;
pub mod phase;
pub mod phase_ladder;
pub mod preflight;
pub mod relative;
pub mod schema;
pub mod tune;
pub mod urls;

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use toml::Spanned;

use crate::cgroup::Limits;
use crate::cpuset::{self, CpuSet};
use crate::error::bad_input;
use crate::load::figures::threshold::Threshold;
use crate::load::input::spec::{Setting, fill_target};
use crate::tomlfile::{Source, parse_toml};
pub use phase::Phase;
use phase::parse_phases;
use schema::{LoadFile, PlanFile, RunFile, SloFile, TargetFile};

/// Whether a plan that does not say records its measured phases: off. A default may cost at most 2 % of req/s and
/// of p99; on this project's 2-core machine a recording's cost to kv-service is below what can be resolved (the
/// medians of alternating windows moved ±5–8 % either way), so that bound is not shown (docs/benchmarks.md, "JFR:
/// what a flight recording costs").
pub const RECORDS_FLIGHT_BY_DEFAULT: bool = false;

/// What jload starts for every cell.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Target {
    pub build: Option<String>,
    /// Command words before expansion (`{jvm}`, `{port}`, `{java}`, `{args}`).
    pub command: Vec<String>,
    pub ready: String,
    pub startup_timeout: Duration,
    pub stop_timeout: Duration,
    pub jdk: Option<String>,
    pub jvm: Vec<String>,
    pub env: BTreeMap<String, String>,
    pub workdir: PathBuf,
    pub exit_on_oom: bool,
    /// ssh destinations of the servers the target runs on; empty: this machine. Several: identical servers that run
    /// the sweep's cell-repeats in parallel.
    #[serde(default)]
    pub hosts: Vec<String>,
    /// CPUs the target is pinned to (on its server when remote).
    #[serde(default)]
    pub cpus: Option<CpuSet>,
    /// The box every cell's target runs in unless its axis values say otherwise (docs/containers.md).
    #[serde(default, skip_serializing_if = "box_limits::unlimited")]
    pub limits: Limits,
    /// `nmt`: Native Memory Tracking on or off for every cell; None: the default, [`Target::tracks_native_memory`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nmt: Option<bool>,
    /// `profile`: a flight recording of each measured phase, on or off; None: the default, [`Target::records_flight`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<bool>,
}

impl Target {
    /// Whether jload adds `-XX:NativeMemoryTracking=summary` to a cell's options (and reads its summary during the
    /// run): as the plan says, else where the cell's box has a memory limit — there memory outside the heap is what
    /// a kill is made of (docs/containers.md).
    pub fn tracks_native_memory(&self, cell_limits: &Limits) -> bool {
        self.nmt.unwrap_or(cell_limits.memory_bytes.is_some())
    }

    /// Whether jload records each measured phase with JDK Flight Recorder (docs/profiling.md): as the plan says,
    /// else [`RECORDS_FLIGHT_BY_DEFAULT`].
    pub fn records_flight(&self) -> bool {
        self.profile.unwrap_or(RECORDS_FLIGHT_BY_DEFAULT)
    }
}

/// `[load]`: where the load comes from.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct LoadSettings {
    /// ssh destinations that each run a share of every phase (rate and connections split), merged exactly; empty:
    /// this machine alone.
    pub hosts: Vec<String>,
    /// CPUs this machine's generator threads are pinned to.
    pub cpus: Option<CpuSet>,
}

/// One value of an axis.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct AxisValue {
    pub label: String,
    pub jvm: Vec<String>,
    pub jdk: Option<String>,
    pub env: BTreeMap<String, String>,
    /// Program arguments this value adds (after the command's words, or at `{args}`), in axis order after the
    /// earlier axes' ([`args::place_args`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// The box limits this value sets (over `[target]`'s).
    #[serde(default, skip_serializing_if = "box_limits::unlimited")]
    pub limits: Limits,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Axis {
    pub name: String,
    pub values: Vec<AxisValue>,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Order {
    Interleaved,
    Sequential,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RunSettings {
    pub repeats: u32,
    pub order: Order,
    pub cooldown: Duration,
    pub cost_axis: Option<String>,
    /// Once every cell has its `repeats`, the contenders for each measured phase's best cell are measured again to
    /// this many repeats (`run::confirm`); None: no confirmation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirm: Option<u32>,
}

/// A checked plan.
#[derive(Debug, Clone)]
pub struct Plan {
    pub name: String,
    pub description: String,
    pub target: Target,
    pub axes: Vec<Axis>,
    pub phases: Vec<Phase>,
    pub run: RunSettings,
    /// SLO as threshold expressions (`p99<=50ms`, `errors<=0.1%`).
    pub slo: Vec<String>,
    pub load: LoadSettings,
    /// `[box_search]`: the smallest box that holds the SLO, searched per cell instead of running each cell once.
    pub box_search: Option<box_search::BoxSearch>,
    /// `[tune]`: the best configuration of a space of JVM options, searched per cell trial by trial (docs/tune.md).
    pub tune: Option<tune::TunePlan>,
}

impl Plan {
    /// What `jload run` warns once when the target and the load generator are pinned to CPUs they share on this
    /// machine (see [`cpuset::overlap_warning`]); `None` when either runs elsewhere.
    pub fn cpu_overlap_warning(&self) -> Option<String> {
        let local = self.target.hosts.is_empty() && self.load.hosts.is_empty();
        local.then(|| cpuset::overlap_warning(self.target.cpus.as_ref(), self.load.cpus.as_ref())).flatten()
    }
}

const PLAN_HINT: &str = "see docs/plan.md for the plan format";
const DEFAULT_STARTUP_TIMEOUT: Duration = Duration::from_secs(60);
const DEFAULT_STOP_TIMEOUT: Duration = Duration::from_secs(10);
const DEFAULT_COOLDOWN: Duration = Duration::from_secs(2);

/// Where a plan's relative paths are resolved. A first run takes them from where the plan file is and where jload
/// runs; `--resume` reads them back from the results directory, so it resolves every path as the first run did.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct PlanBase {
    /// The plan file's folder (absolute): mix files, `workdir` and a JDK path are relative to it.
    pub plan_dir: PathBuf,
    /// Where jload ran (absolute): the default `workdir`.
    pub cwd: PathBuf,
}

impl PlanBase {
    /// The base of the plan file at `path`, for a first run from the current directory.
    pub fn of_plan_file(path: &Path) -> anyhow::Result<PlanBase> {
        let cwd = std::env::current_dir()?;
        let parent = path.parent().filter(|parent| !parent.as_os_str().is_empty()).unwrap_or(Path::new("."));
        let plan_dir = cwd.join(parent);
        Ok(PlanBase { plan_dir: plan_dir.canonicalize().unwrap_or(plan_dir), cwd })
    }
}

/// Read and check a plan file whose relative paths resolve against `base`. Every problem is a one-line bad-input
/// error naming the file, line and key.
pub fn load_plan(path: &Path, base: &PlanBase) -> anyhow::Result<Plan> {
    let text = std::fs::read_to_string(path)
        .map_err(|err| bad_input(format!("cannot read plan {}: {err}", path.display())))?;
    parse_plan(&path.display().to_string(), &text, base)
}

/// A JDK given as a path (not a major version) resolved against the plan's folder.
pub(super) fn resolve_jdk(jdk: &Option<String>, base: &PlanBase) -> Option<String> {
    jdk.as_ref().map(|text| {
        let trimmed = text.trim();
        if trimmed.is_empty() || trimmed.chars().all(|c| c.is_ascii_digit()) {
            text.clone()
        } else {
            base.plan_dir.join(trimmed).display().to_string()
        }
    })
}

/// Parse plan text; `origin` names it in errors and `base` resolves relative paths (mix files, workdir, JDK paths).
pub fn parse_plan(origin: &str, text: &str, base: &PlanBase) -> anyhow::Result<Plan> {
    let file: PlanFile = parse_toml(origin, text, PLAN_HINT)?;
    let source = Source { origin, text };
    let name = plan_name(source, &file.name)?;
    let target = parse_target(source, base, &file.target)?;
    let axes = axes::parse_axes(source, base, &file.axis)?;
    refuse_unused_options(&target, &axes).map_err(|message| source.error_at(file.target.command.span(), message))?;
    let slo = match &file.slo {
        Some(slo) => slo_expressions(source, slo)?,
        None => Vec::new(),
    };
    let load = parse_load(source, &file.load)?;
    let local_load_cpus = load.cpus.as_ref().filter(|_| load.hosts.is_empty());
    let phases = parse_phases(source, base, &file.phase, &slo, local_load_cpus)?;
    let run = parse_run(source, &file.run, &axes)?;
    let box_search = match &file.box_search {
        Some(block) => {
            let parts = box_search::PlanParts { target: &target, axes: &axes, phases: &phases, slo: &slo };
            Some(box_search::parse_box_search(source, block, parts)?)
        }
        None => None,
    };
    let tune = match &file.tune {
        Some(block) => {
            let parts = tune::PlanParts { target: &target, axes: &axes, phases: &phases, slo: &slo };
            Some(tune::check_tune(source, block, parts, file.box_search.is_some())?)
        }
        None => None,
    };
    if let Some(confirm) = &file.run.confirm
        && (tune.is_some() || box_search.is_some())
    {
        let own = if tune.is_some() {
            "[tune] confirms its finalists with its own `confirm`"
        } else {
            "[box_search] runs trials, not a sweep"
        };
        return Err(source.error_at(confirm.span(), format!("run.confirm is a sweep's: {own}; remove run.confirm")));
    }
    let mut phases = phases;
    if let Some(tune) = &tune {
        tune::apply_at_rate(tune, &mut phases);
    }
    let plan = Plan { name, description: file.description, target, axes, phases, run, slo, load, box_search, tune };
    refuse_loopback_urls_when_remote(&plan).map_err(|message| source.error_at(file.target.ready.span(), message))?;
    check_args_placement(&plan).map_err(|message| source.error_at(file.target.command.span(), message))?;
    relative::check_plan(&plan).map_err(|message| source.error_at(file.target.command.span(), message))?;
    refuse_unshareable_phases(&plan).map_err(|message| source.error_at(file.phase.span(), message))?;
    Ok(plan)
}

/// The plan's name, which names its results directory.
fn plan_name(source: Source<'_>, name: &Spanned<String>) -> anyhow::Result<String> {
    let trimmed = name.get_ref().trim().to_string();
    if trimmed.is_empty() || trimmed.contains(['/', '\\']) || trimmed.starts_with('.') {
        return Err(source.error_at(
            name.span(),
            format!("name '{trimmed}' must be non-empty, without slashes (it names the results directory)"),
        ));
    }
    Ok(trimmed)
}

fn parse_target(source: Source<'_>, base: &PlanBase, target: &TargetFile) -> anyhow::Result<Target> {
    let command = shell_words::split(target.command.get_ref())
        .map_err(|err| source.error_at(target.command.span(), format!("target.command: {err}")))?;
    if command.is_empty() {
        return Err(source.error_at(target.command.span(), "target.command is empty"));
    }
    let ready = target.ready.get_ref();
    if !(ready.starts_with("http://") || ready.starts_with("https://")) {
        return Err(source.error_at(
            target.ready.span(),
            "target.ready must be an http:// or https:// URL that answers 2xx when ready",
        ));
    }
    let hosts = target_hosts(source, target)?;
    let workdir = match &target.workdir {
        Some(dir) => base.plan_dir.join(dir),
        None => base.cwd.clone(),
    };
    Ok(Target {
        build: target.build.clone(),
        command,
        ready: target.ready.get_ref().clone(),
        startup_timeout: source
            .duration(&target.startup_timeout, "target.startup_timeout")?
            .unwrap_or(DEFAULT_STARTUP_TIMEOUT),
        stop_timeout: source.duration(&target.stop_timeout, "target.stop_timeout")?.unwrap_or(DEFAULT_STOP_TIMEOUT),
        jdk: resolve_jdk(&target.jdk, base),
        jvm: target.jvm.clone(),
        env: target.env.clone(),
        workdir,
        exit_on_oom: target.exit_on_oom,
        cpus: cpu_set(source, &target.cpus, "target.cpus", hosts.is_empty())?,
        limits: box_limits::target_limits(source, target)?,
        nmt: target.nmt,
        profile: target.profile,
        hosts,
    })
}

/// `target.host` or `target.hosts` (not both): the servers' ssh destinations.
fn target_hosts(source: Source<'_>, target: &TargetFile) -> anyhow::Result<Vec<String>> {
    match (&target.host, &target.hosts) {
        (Some(host), Some(_)) => {
            Err(source.error_at(host.span(), "give target.host (one server) or target.hosts (several), not both"))
        }
        (Some(host), None) => Ok(vec![ssh_destination(source, host.span(), host.get_ref(), "target.host")?]),
        (None, Some(hosts)) => ssh_destinations(source, hosts, "target.hosts"),
        (None, None) => Ok(Vec::new()),
    }
}

fn ssh_destinations(source: Source<'_>, hosts: &Spanned<Vec<String>>, key: &str) -> anyhow::Result<Vec<String>> {
    if hosts.get_ref().is_empty() {
        return Err(source.error_at(hosts.span(), format!("{key} is empty; list ssh destinations like [\"user@s1\"]")));
    }
    let mut seen = HashSet::new();
    let mut checked = Vec::new();
    for host in hosts.get_ref() {
        let host = ssh_destination(source, hosts.span(), host, key)?;
        if !seen.insert(host.clone()) {
            return Err(source.error_at(hosts.span(), format!("{key} lists '{host}' twice; list each host once")));
        }
        checked.push(host);
    }
    Ok(checked)
}

/// One ssh destination: `user@host`, `host` or a `~/.ssh/config` alias, without spaces or a leading '-'.
fn ssh_destination(source: Source<'_>, span: std::ops::Range<usize>, host: &str, key: &str) -> anyhow::Result<String> {
    let host = host.trim();
    if host.is_empty() || host.starts_with('-') || host.chars().any(char::is_whitespace) {
        return Err(source.error_at(
            span,
            format!("{key} '{host}' is not an ssh destination; write it like \"user@server\" or a ~/.ssh/config alias"),
        ));
    }
    Ok(host.to_string())
}

/// A CPU list; on this machine (`local`), only CPUs jload may run on (those of another server are its own).
fn cpu_set(
    source: Source<'_>,
    cpus: &Option<Spanned<String>>,
    key: &str,
    local: bool,
) -> anyhow::Result<Option<CpuSet>> {
    let Some(text) = cpus else { return Ok(None) };
    let error = |message: String| source.error_at(text.span(), format!("{key}: {message}"));
    let set = CpuSet::parse(text.get_ref()).map_err(error)?;
    if local {
        set.check_available().map_err(error)?;
    }
    Ok(Some(set))
}

fn parse_load(source: Source<'_>, load: &LoadFile) -> anyhow::Result<LoadSettings> {
    let hosts = match &load.hosts {
        Some(hosts) => ssh_destinations(source, hosts, "load.hosts")?,
        None => Vec::new(),
    };
    let cpus = cpu_set(source, &load.cpus, "load.cpus", hosts.is_empty())?;
    Ok(LoadSettings { hosts, cpus })
}

/// A target on another server, or load from other hosts, cannot be reached at 127.0.0.1: its URLs must name it
/// (`{host}`, the target's server, or an address).
fn refuse_loopback_urls_when_remote(plan: &Plan) -> Result<(), String> {
    if plan.target.hosts.is_empty() && plan.load.hosts.is_empty() {
        return Ok(());
    }
    for (_, url) in plan.urls() {
        let host = url::Url::parse(&fill_target(url, "jload.invalid", "1"))
            .ok()
            .and_then(|url| url.host_str().map(str::to_string));
        if host.as_deref().is_some_and(is_loopback_name) {
            let remote = if plan.target.hosts.is_empty() {
                "the load comes from other hosts"
            } else {
                "the target runs on another server"
            };
            return Err(format!(
                "{url}: {remote}, so 127.0.0.1 is the wrong machine; write {{host}} (the target's server), e.g. \
                 http://{{host}}:{{port}}/health"
            ));
        }
    }
    Ok(())
}

/// With load hosts, every phase is shared between them: each needs a connection (and a request) per host.
fn refuse_unshareable_phases(plan: &Plan) -> Result<(), String> {
    let hosts = plan.load.hosts.len();
    if hosts < 2 {
        return Ok(());
    }
    for phase in &plan.phases {
        if let Err(err) = phase.load.share(hosts, 0) {
            return Err(format!("phase '{}': {} (load.hosts lists {hosts})", phase.name, err.describe(Setting::key)));
        }
    }
    Ok(())
}

/// Whether `url` names this machine's loopback (127.0.0.0/8, ::1, localhost).
pub fn names_loopback(url: &str) -> bool {
    let host = url::Url::parse(url).ok().and_then(|url| url.host_str().map(str::to_string));
    host.as_deref().is_some_and(is_loopback_name)
}

fn is_loopback_name(host: &str) -> bool {
    host == "localhost"
        || host.parse::<std::net::IpAddr>().is_ok_and(|address| address.is_loopback())
        || host == "[::1]"
}

fn parse_run(source: Source<'_>, run: &RunFile, axes: &[Axis]) -> anyhow::Result<RunSettings> {
    let repeats = match &run.repeats {
        Some(spanned) if *spanned.get_ref() == 0 => {
            return Err(source.error_at(spanned.span(), "run.repeats must be at least 1"));
        }
        Some(spanned) => *spanned.get_ref(),
        None => 1,
    };
    let order = match &run.order {
        None => Order::Interleaved,
        Some(spanned) => match spanned.get_ref().as_str() {
            "interleaved" => Order::Interleaved,
            "sequential" => Order::Sequential,
            other => {
                return Err(source.error_at(
                    spanned.span(),
                    format!("run.order '{other}' must be \"interleaved\" or \"sequential\""),
                ));
            }
        },
    };
    if let Some(cost_axis) = &run.cost_axis
        && !axes.iter().any(|axis| &axis.name == cost_axis.get_ref())
    {
        return Err(source.error_at(
            cost_axis.span(),
            format!("run.cost_axis '{}' is not an axis of this plan", cost_axis.get_ref()),
        ));
    }
    if let Some(confirm) = &run.confirm
        && *confirm.get_ref() <= repeats
    {
        return Err(source.error_at(
            confirm.span(),
            format!(
                "run.confirm = {} must be above run.repeats ({repeats}): it is the number of repeats the contenders \
                 for the best cell are measured to",
                confirm.get_ref()
            ),
        ));
    }
    Ok(RunSettings {
        repeats,
        order,
        cooldown: source.duration(&run.cooldown, "run.cooldown")?.unwrap_or(DEFAULT_COOLDOWN),
        cost_axis: run.cost_axis.as_ref().map(|axis| axis.get_ref().clone()),
        confirm: run.confirm.as_ref().map(|confirm| *confirm.get_ref()),
    })
}

/// Options set in `target.jvm` or an axis are only ever passed through `{jvm}`: a plan that sets some but whose
/// command and env never use `{jvm}` would silently run every cell alike.
fn refuse_unused_options(target: &Target, axes: &[Axis]) -> Result<(), String> {
    let uses = |text: &String| text.contains("{jvm}");
    let axis_env = axes.iter().flat_map(|axis| axis.values.iter().flat_map(|value| value.env.values()));
    if target.command.iter().any(uses) || target.env.values().chain(axis_env).any(uses) {
        return Ok(());
    }
    let setter = if target.jvm.is_empty() {
        axes.iter()
            .find(|axis| axis.values.iter().any(|value| !value.jvm.is_empty()))
            .map(|axis| format!("axis '{}'", axis.name))
    } else {
        Some("target.jvm".to_string())
    };
    match setter {
        None => Ok(()),
        Some(setter) => Err(format!(
            "{setter} sets JVM options but neither target.command nor target.env uses {{jvm}}, so no cell would get \
             them: put {{jvm}} in the command (`java {{jvm}} -jar app.jar`) or in an env value \
             (`env = {{ CATALINA_OPTS = \"{{jvm}}\" }}`)"
        )),
    }
}

/// `{args}` stands only in `target.command`, once, as a word of its own ([`args::check_placement`]): not in
/// `target.jvm`, `target.env`, the ready URL, a phase's URLs or an axis value's options and env.
fn check_args_placement(plan: &Plan) -> Result<(), String> {
    let target = &plan.target;
    let target_texts = target
        .jvm
        .iter()
        .map(|option| ("target.jvm".to_string(), option.as_str()))
        .chain(target.env.iter().map(|(key, value)| (format!("target.env.{key}"), value.as_str())))
        .chain(plan.urls().map(|(place, url)| (place, url.as_str())));
    let axis_texts = plan.axes.iter().flat_map(|axis| {
        axis.values.iter().flat_map(move |value| {
            let key = move |what: &str| format!("axis '{}' value '{}' {what}", axis.name, value.label);
            value
                .jvm
                .iter()
                .map(move |option| (key("jvm"), option.as_str()))
                .chain(value.env.iter().map(move |(name, text)| (key(&format!("env.{name}")), text.as_str())))
        })
    });
    args::check_placement(&target.command, target_texts.chain(axis_texts))
}

fn slo_expressions(source: Source<'_>, slo: &SloFile) -> anyhow::Result<Vec<String>> {
    let mut entries: Vec<_> = slo.iter().collect();
    entries.sort_by_key(|(_, value)| value.span().start);
    let mut expressions = Vec::new();
    for (key, value) in entries {
        let at = |message: String| source.error_at(value.span(), format!("[slo] {key}: {message}"));
        let bound = match value.get_ref() {
            toml::Value::String(text) => text.clone(),
            toml::Value::Integer(number) => number.to_string(),
            toml::Value::Float(number) => number.to_string(),
            _ => return Err(at("write a value like \"50ms\", \"0.1%\" or 10000".to_string())),
        };
        let rule = Threshold::slo_rule(key, &bound).map_err(|err| at(err.to_string()))?;
        expressions.push(rule.expression().to_string());
    }
    Ok(expressions)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(target_extra: &str, axis_jdk: &str) -> Plan {
        let text = format!(
            "name = \"b\"\n[target]\ncommand = \"java {{jvm}} -jar x.jar\"\nready = \"http://127.0.0.1:{{port}}/\"\n\
             {target_extra}\n[[axis]]\nname = \"jdk\"\nvalues = [{{ label = \"j\", jdk = \"{axis_jdk}\" }}]\n\
             [[phase]]\nname = \"get\"\nurl = \"http://127.0.0.1:{{port}}/\"\nduration = \"1s\"\n"
        );
        let base = PlanBase { plan_dir: "/project/plans".into(), cwd: "/somewhere".into() };
        parse_plan("b.toml", &text, &base).unwrap()
    }

    #[test]
    fn relative_paths_resolve_against_the_plan_folder_and_the_default_workdir_is_where_jload_ran() {
        let plan = parse("workdir = \"..\"\njdk = \"jdks/17\"", "25");
        assert_eq!(plan.target.workdir, Path::new("/project/plans/.."));
        assert_eq!(plan.target.jdk.as_deref(), Some("/project/plans/jdks/17"));
        assert_eq!(plan.axes[0].values[0].jdk.as_deref(), Some("25"), "a major version is no path");
        let plan = parse("jdk = \"/opt/jdk-21\"", "../jdk");
        assert_eq!(plan.target.workdir, Path::new("/somewhere"));
        assert_eq!(plan.target.jdk.as_deref(), Some("/opt/jdk-21"));
        assert_eq!(plan.axes[0].values[0].jdk.as_deref(), Some("/project/plans/../jdk"));
    }

    #[test]
    fn the_base_of_a_plan_file_is_absolute() {
        let base = PlanBase::of_plan_file(Path::new("plan.toml")).unwrap();
        assert_eq!(base.cwd, std::env::current_dir().unwrap());
        assert!(base.plan_dir.is_absolute());
        assert_eq!(base.plan_dir, base.cwd.canonicalize().unwrap());
    }

    fn slo_of(slo: &str) -> anyhow::Result<Vec<String>> {
        let text = format!(
            "name = \"s\"\n[target]\ncommand = \"java {{jvm}} -jar x.jar\"\nready = \"http://127.0.0.1:{{port}}/\"\n\
             [[phase]]\nname = \"get\"\nurl = \"http://127.0.0.1:{{port}}/\"\nduration = \"1s\"\n[slo]\n{slo}"
        );
        let base = PlanBase { plan_dir: "/p".into(), cwd: "/p".into() };
        parse_plan("s.toml", &text, &base).map(|plan| plan.slo)
    }

    #[test]
    fn slo_keys_are_the_threshold_figures_in_plan_order() {
        let slo = slo_of("stdev = \"5ms\"\np95 = \"20ms\"\nerrors = \"0.1%\"\nrps = 1000\nmin = \"1ms\"\n").unwrap();
        assert_eq!(slo, ["stdev<=5ms", "p95<=20ms", "errors<=0.1%", "rps>=1000", "min<=1ms"]);
    }

    #[test]
    fn an_unknown_slo_key_is_bad_input_at_its_line() {
        let err = slo_of("p99 = \"50ms\"\np98 = \"60ms\"\n").unwrap_err();
        assert!(err.downcast_ref::<crate::error::BadInput>().is_some());
        assert!(err.to_string().starts_with("s.toml: line 11: [slo] p98: unknown key 'p98'; an [slo] key is"), "{err}");
        let err = slo_of("p99 = [1]\n").unwrap_err();
        assert!(err.to_string().contains("line 10: [slo] p99: write a value like"), "{err}");
    }

    const TARGET: &str =
        "name = \"p\"\n[target]\ncommand = \"java {jvm} -jar x.jar\"\nready = \"http://127.0.0.1:{port}/\"\n";
    const PHASE: &str = "[[phase]]\nname = \"get\"\nurl = \"http://127.0.0.1:{port}/\"\nduration = \"1s\"\n";

    fn error_of(text: &str) -> String {
        let base = PlanBase { plan_dir: "/plans".into(), cwd: "/here".into() };
        parse_plan("p.toml", text, &base).unwrap_err().to_string()
    }

    #[test]
    fn each_check_names_the_file_line_and_key() {
        let cases = [
            (format!("{TARGET}[[axis]]\nname = \"a\"\nvalues = []\n{PHASE}"), "line 7: axis 'a' has no values"),
            (
                format!(
                    "{TARGET}[[axis]]\nname = \"a\"\nvalues = [\"-X\"]\n[[axis]]\nname = \"a\"\nvalues = [\"-Y\"]\n{PHASE}"
                ),
                "line 9: duplicate axis name 'a'",
            ),
            (format!("{TARGET}{PHASE}{PHASE}"), "line 10: duplicate phase name 'get'"),
            (format!("{TARGET}{PHASE}[run]\norder = \"random\"\n"), "line 10: run.order 'random' must be"),
            (format!("{TARGET}{PHASE}[run]\ncost_axis = \"heap\"\n"), "line 10: run.cost_axis 'heap' is not an axis"),
            (format!("{TARGET}{PHASE}[run]\ncooldown = \"soon\"\n"), "line 10: run.cooldown: 'soon' is not a duration"),
            (format!("{TARGET}stop_timeout = \"0x\"\n{PHASE}"), "line 5: target.stop_timeout: '0x' is not a duration"),
            (TARGET.replace("java {jvm} -jar x.jar", "") + PHASE, "line 3: target.command is empty"),
        ];
        for (text, expected) in cases {
            let err = error_of(&text);
            assert!(err.starts_with(&format!("p.toml: {expected}")), "expected '{expected}' in {err}");
        }
    }

    #[test]
    fn bad_program_arguments_are_one_line_naming_the_value_and_the_fix() {
        let axis = |values: &str| format!("{TARGET}[[axis]]\nname = \"journal\"\nvalues = [{values}]\n{PHASE}");
        assert_eq!(
            error_of(&axis("{ label = \"off\", args = \"--no-request-journal\" }")),
            "p.toml: line 7: axis 'journal' value 'off': args must be a list of words, like args = \
             [\"--no-request-journal\"] or [\"--container-threads\", \"10\"], not \"--no-request-journal\""
        );
        let err = parse_plan(
            "p.toml",
            &axis("{ label = \"off\", args = [1] }"),
            &PlanBase { plan_dir: "/plans".into(), cwd: "/here".into() },
        )
        .unwrap_err();
        assert!(err.downcast_ref::<crate::error::BadInput>().is_some(), "bad input: exit 2");
        let in_a_word = TARGET.replace("java {jvm} -jar x.jar", "sh -c 'java {jvm} -jar x.jar {args}'") + PHASE;
        assert_eq!(
            error_of(&in_a_word),
            "p.toml: line 3: target.command: {args} must be a word of its own, not part of 'java {jvm} -jar x.jar \
             {args}' (it stands for several words); to hand the args to a shell, pass them as its arguments: sh -c \
             'exec … \"$@\"' sh {args}"
        );
        let in_env = format!("{TARGET}env = {{ APP_ARGS = \"{{args}}\" }}\n{PHASE}");
        assert_eq!(
            error_of(&in_env),
            "p.toml: line 3: target.env.APP_ARGS holds {args}, which stands only in target.command, as a word of its \
             own (without it the args go at the command's end)"
        );
        let in_axis_jvm = axis("{ label = \"x\", jvm = [\"-Dargs={args}\"] }");
        assert!(error_of(&in_axis_jvm).starts_with("p.toml: line 3: axis 'journal' value 'x' jvm holds {args}"));
        let with_phase = format!("{}{PHASE}", TARGET.replace("-jar x.jar", "-jar x.jar {args} --port {port}"));
        assert!(parse_plan("p.toml", &with_phase, &PlanBase { plan_dir: "/p".into(), cwd: "/p".into() }).is_ok());
    }

    #[test]
    fn a_confirmation_goes_above_the_repeats_and_only_in_a_sweep() {
        let base = PlanBase { plan_dir: "/plans".into(), cwd: "/here".into() };
        let plan = parse_plan("p.toml", &format!("{TARGET}{PHASE}[run]\nrepeats = 2\nconfirm = 3\n"), &base).unwrap();
        assert_eq!((plan.run.repeats, plan.run.confirm), (2, Some(3)));
        assert_eq!(
            error_of(&format!("{TARGET}{PHASE}[run]\nrepeats = 3\nconfirm = 3\n")),
            "p.toml: line 11: run.confirm = 3 must be above run.repeats (3): it is the number of repeats the \
             contenders for the best cell are measured to"
        );
        assert_eq!(
            error_of(&format!("{TARGET}{PHASE}[run]\nconfirm = 1\n")),
            "p.toml: line 10: run.confirm = 1 must be above run.repeats (1): it is the number of repeats the \
             contenders for the best cell are measured to"
        );
    }

    #[test]
    fn defaults_fill_what_the_plan_leaves_out() {
        let base = PlanBase { plan_dir: "/plans".into(), cwd: "/here".into() };
        let plan = parse_plan("p.toml", &format!("{TARGET}{PHASE}"), &base).unwrap();
        assert_eq!(plan.target.startup_timeout, DEFAULT_STARTUP_TIMEOUT);
        assert_eq!(plan.target.stop_timeout, DEFAULT_STOP_TIMEOUT);
        assert_eq!(
            plan.run,
            RunSettings {
                repeats: 1,
                order: Order::Interleaved,
                cooldown: DEFAULT_COOLDOWN,
                cost_axis: None,
                confirm: None,
            }
        );
        assert!(plan.axes.is_empty() && plan.slo.is_empty());
    }
}
