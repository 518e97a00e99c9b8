//! Plans: a TOML file describing a control-variable experiment, checked completely before anything starts and
//! turned into typed values (target, axes, phases, run settings, SLO) and the matrix of cells.

pub mod estimate;
pub mod folder;
pub mod jdks;
pub mod matrix;
pub mod preflight;
pub mod schema;

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::error::bad_input;
use crate::load::request::{RequestSet, RequestSpec};
use crate::load::status::OkStatus;
use crate::load::threshold::Threshold;
use crate::tomlfile::{error_at, parse_toml};
use crate::units::parse_duration;
use schema::{AxisValueFile, PhaseFile, PlanFile, SloFile};

/// What jload starts for every cell.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Target {
    pub build: Option<String>,
    /// Command words before expansion (`{jvm}`, `{port}`, `{java}`).
    pub command: Vec<String>,
    pub ready: String,
    pub startup_timeout: Duration,
    pub stop_timeout: Duration,
    pub jdk: Option<String>,
    pub jvm: Vec<String>,
    pub env: BTreeMap<String, String>,
    pub workdir: PathBuf,
    pub exit_on_oom: bool,
}

/// One value of an axis.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct AxisValue {
    pub label: String,
    pub jvm: Vec<String>,
    pub jdk: Option<String>,
    pub env: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Axis {
    pub name: String,
    pub values: Vec<AxisValue>,
}

/// One phase of the load, with `{port}` still to be filled in.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Phase {
    pub name: String,
    pub measure: bool,
    pub requests: Vec<RequestSpec>,
    pub connections: usize,
    pub threads: Option<usize>,
    pub max_requests: Option<u64>,
    pub duration: Option<Duration>,
    pub timeout: Duration,
    pub rate: Option<f64>,
    pub ok_status: OkStatus,
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
}

/// A checked plan.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Plan {
    pub name: String,
    pub description: String,
    pub target: Target,
    pub axes: Vec<Axis>,
    pub phases: Vec<Phase>,
    pub run: RunSettings,
    /// SLO as threshold expressions (`p99<=50ms`, `errors<=0.1%`).
    pub slo: Vec<String>,
}

const PLAN_HINT: &str = "see docs/plan.md for the plan format";

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
fn resolve_jdk(jdk: &Option<String>, base: &PlanBase) -> Option<String> {
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
    let at = |span: std::ops::Range<usize>, message: String| error_at(origin, text, span, message);
    let name = file.name.get_ref().trim().to_string();
    if name.is_empty() || name.contains(['/', '\\']) || name.starts_with('.') {
        return Err(at(
            file.name.span(),
            format!("name '{name}' must be non-empty, without slashes (it names the results directory)"),
        ));
    }
    let duration_of = |value: &Option<toml::Spanned<String>>,
                       key: &str,
                       default: Duration|
     -> anyhow::Result<Duration> {
        match value {
            None => Ok(default),
            Some(spanned) => parse_duration(key, spanned.get_ref()).map_err(|err| at(spanned.span(), err.to_string())),
        }
    };
    let target = &file.target;
    let command = shell_words::split(target.command.get_ref())
        .map_err(|err| at(target.command.span(), format!("target.command: {err}")))?;
    if command.is_empty() {
        return Err(at(target.command.span(), "target.command is empty".to_string()));
    }
    if !target.ready.get_ref().starts_with("http://") {
        return Err(at(
            target.ready.span(),
            "target.ready must be an http:// URL that answers 2xx when ready".to_string(),
        ));
    }
    let workdir = match &target.workdir {
        Some(dir) => base.plan_dir.join(dir),
        None => base.cwd.clone(),
    };
    let target_value = Target {
        build: target.build.clone(),
        command,
        ready: target.ready.get_ref().clone(),
        startup_timeout: duration_of(&target.startup_timeout, "target.startup_timeout", Duration::from_secs(60))?,
        stop_timeout: duration_of(&target.stop_timeout, "target.stop_timeout", Duration::from_secs(10))?,
        jdk: resolve_jdk(&target.jdk, base),
        jvm: target.jvm.clone(),
        env: target.env.clone(),
        workdir,
        exit_on_oom: target.exit_on_oom,
    };
    let mut axes = Vec::new();
    let mut axis_names = HashSet::new();
    for axis in &file.axis {
        let axis_name = axis.name.get_ref().trim().to_string();
        if axis_name.is_empty() || axis_name.contains([',', '=']) {
            return Err(at(axis.name.span(), format!("axis name '{axis_name}' must be non-empty without ',' or '='")));
        }
        if !axis_names.insert(axis_name.clone()) {
            return Err(at(axis.name.span(), format!("duplicate axis name '{axis_name}'")));
        }
        if axis.values.get_ref().is_empty() {
            return Err(at(axis.values.span(), format!("axis '{axis_name}' has no values; give at least one")));
        }
        let mut labels = HashSet::new();
        let mut values = Vec::new();
        for value in axis.values.get_ref() {
            let parsed = match value.get_ref() {
                AxisValueFile::Option(option) => {
                    AxisValue { label: option.clone(), jvm: vec![option.clone()], jdk: None, env: BTreeMap::new() }
                }
                AxisValueFile::Table(table) => AxisValue {
                    label: table.label.clone(),
                    jvm: table.jvm.clone(),
                    jdk: resolve_jdk(&table.jdk, base),
                    env: table.env.clone(),
                },
            };
            if parsed.label.trim().is_empty() {
                return Err(at(value.span(), format!("axis '{axis_name}': a label must not be empty")));
            }
            if !labels.insert(parsed.label.clone()) {
                return Err(at(value.span(), format!("axis '{axis_name}': duplicate label '{}'", parsed.label)));
            }
            values.push(parsed);
        }
        axes.push(Axis { name: axis_name, values });
    }
    refuse_unused_options(&target_value, &axes).map_err(|message| at(target.command.span(), message))?;
    if file.phase.get_ref().is_empty() {
        return Err(at(file.phase.span(), "no [[phase]]; add at least one".to_string()));
    }
    let mut phases = Vec::new();
    let mut phase_names = HashSet::new();
    for phase in file.phase.get_ref() {
        let parsed = parse_phase(origin, text, base, phase)?;
        if !phase_names.insert(parsed.name.clone()) {
            return Err(at(phase.name.span(), format!("duplicate phase name '{}'", parsed.name)));
        }
        phases.push(parsed);
    }
    let run = &file.run;
    let repeats = match &run.repeats {
        Some(spanned) if *spanned.get_ref() == 0 => {
            return Err(at(spanned.span(), "run.repeats must be at least 1".to_string()));
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
                return Err(at(
                    spanned.span(),
                    format!("run.order '{other}' must be \"interleaved\" or \"sequential\""),
                ));
            }
        },
    };
    if let Some(cost_axis) = &run.cost_axis
        && !axis_names.contains(cost_axis.get_ref())
    {
        return Err(at(
            cost_axis.span(),
            format!("run.cost_axis '{}' is not an axis of this plan", cost_axis.get_ref()),
        ));
    }
    let run_settings = RunSettings {
        repeats,
        order,
        cooldown: duration_of(&run.cooldown, "run.cooldown", Duration::from_secs(2))?,
        cost_axis: run.cost_axis.as_ref().map(|axis| axis.get_ref().clone()),
    };
    let slo = match &file.slo {
        Some(slo) => slo_expressions(origin, text, slo)?,
        None => Vec::new(),
    };
    Ok(Plan { name, description: file.description, target: target_value, axes, phases, run: run_settings, slo })
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

fn parse_phase(origin: &str, text: &str, base: &PlanBase, phase: &PhaseFile) -> anyhow::Result<Phase> {
    let at = |span: std::ops::Range<usize>, message: String| error_at(origin, text, span, message);
    let name = phase.name.get_ref().trim().to_string();
    let name_span = phase.name.span();
    if name.is_empty() || name.contains(['/', '\\', ',', '=']) {
        return Err(at(name_span, format!("phase name '{name}' must be non-empty without '/', ',' or '='")));
    }
    let requests = match (&phase.url, &phase.mix) {
        (Some(_), Some(_)) => return Err(at(name_span, format!("phase '{name}': give url or mix, not both"))),
        (None, None) => return Err(at(name_span, format!("phase '{name}': needs url (or mix)"))),
        (Some(url), None) => vec![RequestSpec {
            name: None,
            weight: 1,
            method: phase.method.clone().unwrap_or_else(|| "GET".to_string()),
            url: url.clone(),
            headers: phase.headers.clone(),
            body: phase.body.clone(),
            raw_body: None,
        }],
        (None, Some(mix)) => {
            if phase.method.is_some() || !phase.headers.is_empty() || phase.body.is_some() {
                return Err(at(
                    name_span,
                    format!("phase '{name}': method, headers and body go into the mix file's [[request]]s"),
                ));
            }
            crate::load::mix::load_mix(&base.plan_dir.join(mix))
                .map_err(|err| at(name_span.clone(), format!("phase '{name}': {err}")))?
        }
    };
    // Compile once with a stand-in port so bad URLs, headers and templates are caught before anything starts.
    let probe: Vec<RequestSpec> = requests.iter().map(|request| with_port(request, 1)).collect();
    RequestSet::compile(&probe).map_err(|err| at(name_span.clone(), format!("phase '{name}': {err}")))?;
    let duration = match &phase.duration {
        Some(spanned) => Some(
            parse_duration(&format!("phase '{name}' duration"), spanned.get_ref())
                .map_err(|err| at(spanned.span(), err.to_string()))?,
        ),
        None => None,
    };
    if phase.requests.is_none() && duration.is_none() {
        return Err(at(name_span, format!("phase '{name}' has neither requests nor duration; give one (or both)")));
    }
    if phase.requests == Some(0) || duration.is_some_and(|duration| duration.is_zero()) {
        return Err(at(name_span, format!("phase '{name}': requests and duration must be more than 0")));
    }
    if phase.connections == Some(0) || phase.threads == Some(0) {
        return Err(at(name_span, format!("phase '{name}': connections and threads must be at least 1")));
    }
    if phase.rate.is_some_and(|rate| !(rate.is_finite() && rate > 0.0)) {
        return Err(at(name_span, format!("phase '{name}': rate must be a positive number of requests per second")));
    }
    let timeout = match &phase.timeout {
        Some(spanned) => parse_duration(&format!("phase '{name}' timeout"), spanned.get_ref())
            .map_err(|err| at(spanned.span(), err.to_string()))?,
        None => Duration::from_secs(5),
    };
    let ok_status = match &phase.ok_status {
        Some(spanned) => {
            OkStatus::parse(spanned.get_ref()).map_err(|err| at(spanned.span(), format!("phase '{name}': {err}")))?
        }
        None => OkStatus::default(),
    };
    Ok(Phase {
        ok_status,
        name,
        measure: phase.measure,
        requests,
        connections: phase.connections.unwrap_or(50),
        threads: phase.threads,
        max_requests: phase.requests,
        duration,
        timeout,
        rate: phase.rate,
    })
}

/// A request with `{port}` replaced in its URL, headers and body.
pub fn with_port(request: &RequestSpec, port: u16) -> RequestSpec {
    let fill = |text: &str| text.replace("{port}", &port.to_string());
    RequestSpec {
        url: fill(&request.url),
        headers: request.headers.iter().map(|header| fill(header)).collect(),
        body: request.body.as_deref().map(fill),
        ..request.clone()
    }
}

/// The `[slo]` keys as threshold rules, in the plan's order.
fn slo_expressions(origin: &str, text: &str, slo: &SloFile) -> anyhow::Result<Vec<String>> {
    let mut entries: Vec<_> = slo.iter().collect();
    entries.sort_by_key(|(_, value)| value.span().start);
    let mut expressions = Vec::new();
    for (key, value) in entries {
        let at = |message: String| error_at(origin, text, value.span(), format!("[slo] {key}: {message}"));
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
}
