//! A plan's `[tune]` block (docs/tune.md): what to optimise (`objective`), the budget, the seed, and the
//! search space — each parameter a range, a list of values or a collector choice, optionally only under a condition
//! on a choice — checked into a [`TunePlan`]: the space the search works in (`tune::space`) and, per parameter, the
//! one rule that turns its value into JVM options (`heap` → `-Xmx384m`, `gc` → `-XX:+UseG1GC`, `-XX:Flag` →
//! `-XX:Flag=20`, a boolean `-XX:Flag` → `-XX:+Flag`, `-Dname` → `-Dname=0.3`, else the parameter's own `option`
//! template with `{}`) or into program arguments (its `args` template, `["--container-threads", "{}"]`, or a
//! boolean's words when true); and, for objective "memory", the rate it is judged at (`at_rate`, [`AtRate`]).

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Deserialize;
use toml::Spanned;

use super::Phase;
use super::schema::{ParameterFile, ParameterTable, TuneFile};
use crate::load::search::ladder::LadderPlan;
use crate::tomlfile::Source;
use crate::tune::search::Method;
use crate::tune::space::{Condition, Config, Domain, Parameter, Space, Value, short_real};
use crate::units::parse_size;

/// What a tune maximises or minimises.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Objective {
    /// The capacity the plan's capacity phase finds under its SLO (higher is better).
    Capacity,
    /// The measured phase's p99 (lower is better), within the plan's SLO where it has one.
    P99,
    /// The memory the target used over its life — its box's peak, else its RSS peak — within the SLO, at `at_rate`
    /// when given (lower is better).
    Memory,
}

impl Objective {
    pub const NAMES: &'static str = "\"capacity\", \"p99\" or \"memory\"";

    fn parse(text: &str) -> Option<Objective> {
        match text {
            "capacity" => Some(Objective::Capacity),
            "p99" => Some(Objective::P99),
            "memory" => Some(Objective::Memory),
            _ => None,
        }
    }
}

/// Measurements of each finalist unless the plan says: three, the fewest whose t interval is not a guess.
pub const DEFAULT_CONFIRM: u32 = 3;

/// How a parameter's value becomes JVM options.
#[derive(Debug, Clone, PartialEq)]
pub enum Setter {
    /// `{}` in the template replaced by the value (a size as `<MiB>m`).
    Template { template: String, size: bool },
    /// `-XX:+Name` for true, `-XX:-Name` for false.
    Flag(String),
    /// A collector by name; a value starting with `-` is an option as is.
    Collector,
    /// Program arguments: each `{}` of the words replaced by the value (a size as `<MiB>m`).
    Args { words: Vec<String>, size: bool },
    /// Program arguments of two booleans: the words for true, none for false.
    ArgsWhenTrue(Vec<String>),
}

/// The collectors `gc` may name, with the option that picks each (JDK 17 and 25).
pub const COLLECTORS: &[(&str, &str)] = &[
    ("Serial", "-XX:+UseSerialGC"),
    ("Parallel", "-XX:+UseParallelGC"),
    ("G1", "-XX:+UseG1GC"),
    ("ZGC", "-XX:+UseZGC"),
    ("Shenandoah", "-XX:+UseShenandoahGC"),
];

/// `at_rate` (objective "memory"): the rate the least memory must hold the `[slo]` at, and how a trial is held to it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum AtRate {
    /// The plan's measured capacity phase runs as written; a trial holds the rate when its capacity is at least it.
    Capacity(f64),
    /// No capacity phase: every measured phase runs at this fixed rate; a trial holds it when the SLO holds.
    Fixed(f64),
}

impl AtRate {
    pub fn rate(self) -> f64 {
        match self {
            AtRate::Capacity(rate) | AtRate::Fixed(rate) => rate,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct TunePlan {
    pub objective: Objective,
    pub trials: u64,
    pub time: Option<Duration>,
    pub seed: u64,
    pub method: Method,
    pub start: usize,
    /// Measurements of each finalist (the best, the runner-up, close contenders, the defaults) once the search
    /// ends, its trial the first; 1 measures none again.
    pub confirm: u32,
    pub space: Space,
    pub setters: BTreeMap<String, Setter>,
    /// Objective "memory": the rate it is judged at; None: the plan's own phases set the load.
    pub at_rate: Option<AtRate>,
}

impl TunePlan {
    /// The JVM options of a configuration, in the space's parameter order.
    pub fn options(&self, config: &Config) -> Vec<String> {
        self.words(config, false)
    }

    /// The program arguments of a configuration, in the space's parameter order: they follow the cell's own.
    pub fn args(&self, config: &Config) -> Vec<String> {
        self.words(config, true)
    }

    /// The words of the parameters that set program arguments (`args`) or JVM options (not `args`).
    fn words(&self, config: &Config, args: bool) -> Vec<String> {
        let mut words = Vec::new();
        for parameter in self.space.parameters() {
            let Some(value) = config.get(&parameter.name) else { continue };
            let setter = &self.setters[&parameter.name];
            if setter.sets_args() == args {
                words.extend(setter.words(&parameter.name, value));
            }
        }
        words
    }

    /// A configuration in one line as the user wrote its parameters: `heap=384m gc=G1 -XX:MaxGCPauseMillis=20`.
    pub fn describe(&self, config: &Config) -> String {
        let mut words = Vec::new();
        for parameter in self.space.parameters() {
            let Some(value) = config.get(&parameter.name) else { continue };
            let shown = match value {
                Value::Int(mib) if self.setters[&parameter.name].takes_sizes() => format!("{mib}m"),
                value => value.to_string(),
            };
            words.push(format!("{}={shown}", parameter.name));
        }
        words.join(" ")
    }
}

fn collector_option(name: &str) -> String {
    COLLECTORS.iter().find(|(known, _)| *known == name).map_or(name.to_string(), |(_, option)| option.to_string())
}

/// What the rest of the plan offers the objective: a capacity phase, an SLO, a measured rate ladder.
pub struct PlanFacts {
    /// A measured phase searches the capacity (`capacity = …`).
    pub has_capacity_phase: bool,
    pub has_slo: bool,
    /// The first measured phase with a ladder of fixed rates (`rates = […]`), which `at_rate` cannot go with.
    pub rate_ladder: Option<String>,
}

impl PlanFacts {
    fn of(phases: &[Phase], slo: &[String]) -> PlanFacts {
        let measured_ladder = |capacity: bool| {
            phases.iter().find(|phase| {
                phase.measure
                    && phase
                        .ladder
                        .as_ref()
                        .is_some_and(|ladder| matches!(ladder.plan, LadderPlan::Capacity(_)) == capacity)
            })
        };
        PlanFacts {
            has_capacity_phase: measured_ladder(true).is_some(),
            has_slo: !slo.is_empty(),
            rate_ladder: measured_ladder(false).map(|phase| phase.name.clone()),
        }
    }
}

/// What the checks of `[tune]` need from the rest of the plan.
pub(super) struct PlanParts<'a> {
    pub target: &'a super::Target,
    pub axes: &'a [super::Axis],
    pub phases: &'a [Phase],
    pub slo: &'a [String],
}

/// `[tune] at_rate` without a capacity phase: every measured phase of every trial runs at that fixed rate, by the
/// rule a box search's `at_capacity` runs its trials at a rate ([`Phase::run_at_fixed_rate`]).
pub(super) fn apply_at_rate(tune: &TunePlan, phases: &mut [Phase]) {
    if let Some(AtRate::Fixed(rate)) = tune.at_rate {
        for phase in phases.iter_mut().filter(|phase| phase.measure) {
            phase.run_at_fixed_rate(rate);
        }
    }
}

/// Check `[tune]` inside its plan: the facts its objective needs, never beside `[box_search]`, its options reaching
/// the target through `{jvm}`, and no tuned parameter that the plan fixes too (in `target.jvm` or an axis value).
pub(super) fn check_tune(
    source: Source<'_>,
    file: &TuneFile,
    plan: PlanParts<'_>,
    box_search: bool,
) -> anyhow::Result<TunePlan> {
    let at = file.objective.span();
    if box_search {
        let message = "tune: a plan searches the smallest box ([box_search]) or tunes ([tune]), not both; split it";
        return Err(source.error_at(at, message));
    }
    if let Some(axis) = plan.axes.iter().find(|axis| axis.name == "trial") {
        let message = format!("tune: axis '{}' is the name the tune gives its trials; rename the axis", axis.name);
        return Err(source.error_at(at, message));
    }
    let facts = PlanFacts::of(plan.phases, plan.slo);
    let tuned = tune_plan(source, file, &facts)?;
    let uses_jvm = |text: &String| text.contains("{jvm}");
    let sets_options = tuned.setters.values().any(|setter| !setter.sets_args());
    if sets_options && !plan.target.command.iter().chain(plan.target.env.values()).any(uses_jvm) {
        let message = "tune: the tuned options reach the target only through {jvm}: put it in target.command \
                       (`java {jvm} -jar app.jar`) or an env value";
        return Err(source.error_at(at, message));
    }
    let fixed = plan.target.jvm.iter().map(|option| ("target.jvm".to_string(), option)).chain(
        plan.axes.iter().flat_map(|axis| {
            axis.values.iter().flat_map(move |value| {
                value.jvm.iter().map(move |option| (format!("axis '{}' value '{}'", axis.name, value.label), option))
            })
        }),
    );
    for (place, option) in fixed {
        for parameter in tuned.space.parameters() {
            if tuned.setters[&parameter.name].sets_same(option) {
                let written = file.space.get_ref().get(&parameter.name).map_or(file.space.span(), Spanned::span);
                let message = format!(
                    "tune.space.{}: {place} fixes it too ('{option}'); tune it or fix it, not both",
                    parameter.name
                );
                return Err(source.error_at(written, message));
            }
        }
    }
    let fixed_args = plan.axes.iter().flat_map(|axis| {
        axis.values.iter().flat_map(move |value| value.args.iter().map(move |arg| (axis, value, arg)))
    });
    for (axis, value, arg) in fixed_args {
        for parameter in tuned.space.parameters() {
            if tuned.setters[&parameter.name].sets_same_arg(arg) {
                let written = file.space.get_ref().get(&parameter.name).map_or(file.space.span(), Spanned::span);
                let message = format!(
                    "tune.space.{}: axis '{}' value '{}' gives its argument too ('{arg}'); tune it or fix it, not both",
                    parameter.name, axis.name, value.label
                );
                return Err(source.error_at(written, message));
            }
        }
    }
    Ok(tuned)
}

impl Setter {
    /// Whether its words are program arguments rather than JVM options.
    pub fn sets_args(&self) -> bool {
        matches!(self, Setter::Args { .. } | Setter::ArgsWhenTrue(_))
    }

    /// Whether its values are sizes, written `<MiB>m`.
    pub fn takes_sizes(&self) -> bool {
        matches!(self, Setter::Template { size: true, .. } | Setter::Args { size: true, .. })
    }

    /// The words a parameter's value sets: the one rule of every output that names them.
    fn words(&self, name: &str, value: &Value) -> Vec<String> {
        let filled = |template: &str, size: bool| match (size, value) {
            (true, Value::Int(mib)) => template.replace("{}", &format!("{mib}m")),
            _ => template.replace("{}", &value.to_string()),
        };
        match (self, value) {
            (Setter::Template { template, size }, _) => vec![filled(template, *size)],
            (Setter::Flag(flag), Value::Choice(on)) => {
                vec![format!("-XX:{}{flag}", if on == "true" { '+' } else { '-' })]
            }
            (Setter::Collector, Value::Choice(collector)) => vec![collector_option(collector)],
            (Setter::Args { words, size }, _) => words.iter().map(|word| filled(word, *size)).collect(),
            (Setter::ArgsWhenTrue(words), Value::Choice(on)) if on == "true" => words.clone(),
            (Setter::ArgsWhenTrue(_), _) => Vec::new(),
            (_, value) => vec![format!("{name}={value}")],
        }
    }

    /// Whether `arg`, a program argument an axis value gives, sets what this setter sets: the setter's first word,
    /// the flag (`--container-threads` of `["--container-threads", "{}"]`, `--threads=` of `["--threads={}"]`), or
    /// any word of a boolean's.
    pub fn sets_same_arg(&self, arg: &str) -> bool {
        match self {
            Setter::Args { words, .. } => {
                let Some(first) = words.first() else { return false };
                match first.split_once("{}") {
                    Some((head, _)) => !head.is_empty() && (arg.starts_with(head) || arg == head.trim_end_matches('=')),
                    None => arg == first || arg.starts_with(&format!("{first}=")),
                }
            }
            Setter::ArgsWhenTrue(words) => words.iter().any(|word| word == arg),
            _ => false,
        }
    }

    /// Whether `option`, written elsewhere in the plan, sets what this setter sets (`-Xmx512m` for `heap`, a
    /// collector's option for `gc`, `-XX:±Flag` or `-XX:Flag=…` for a flag, `-Dname=…` for a property).
    pub fn sets_same(&self, option: &str) -> bool {
        match self {
            Setter::Template { template, .. } => {
                let head = template.split("{}").next().unwrap_or_default();
                let name = head.trim_end_matches('=');
                let flag = name.strip_prefix("-XX:").map(|flag| [format!("-XX:+{flag}"), format!("-XX:-{flag}")]);
                (!head.is_empty() && option.starts_with(head))
                    || (!name.is_empty() && option == name)
                    || flag.is_some_and(|forms| forms.iter().any(|form| form == option))
            }
            Setter::Flag(name) => {
                option == format!("-XX:+{name}")
                    || option == format!("-XX:-{name}")
                    || option.starts_with(&format!("-XX:{name}="))
            }
            Setter::Collector => {
                COLLECTORS.iter().any(|(_, known)| *known == option)
                    || (option.starts_with("-XX:+Use") && option.ends_with("GC"))
            }
            Setter::Args { .. } | Setter::ArgsWhenTrue(_) => false,
        }
    }
}

/// Check a `[tune]` block against the plan it is in.
pub fn tune_plan(source: Source<'_>, file: &TuneFile, facts: &PlanFacts) -> anyhow::Result<TunePlan> {
    let objective = Objective::parse(file.objective.get_ref()).ok_or_else(|| {
        let message = format!("tune.objective '{}' is none of {}", file.objective.get_ref(), Objective::NAMES);
        source.error_at(file.objective.span(), message)
    })?;
    let needs = match objective {
        Objective::Capacity if !facts.has_capacity_phase => {
            Some("objective \"capacity\" needs a phase with `capacity = …` (the search under the SLO) to read it from")
        }
        Objective::Memory if !facts.has_slo => {
            Some("objective \"memory\" needs an [slo]: the smallest memory is the one that still holds it")
        }
        _ => None,
    };
    if let Some(needs) = needs {
        return Err(source.error_at(file.objective.span(), format!("tune: {needs}")));
    }
    let at_rate = at_rate(source, file, objective, facts)?;
    let budget = file.budget.get_ref();
    let time = source.duration(&budget.time, "tune.budget time")?;
    let trials = match (budget.trials, time) {
        (Some(0), _) => return Err(source.error_at(file.budget.span(), "tune.budget: trials must be at least 1")),
        (_, Some(time)) if time.is_zero() => {
            return Err(source.error_at(file.budget.span(), "tune.budget: time must be longer than 0s"));
        }
        (None, None) => {
            let message = "tune.budget: give trials, time or both, like { trials = 20, time = \"40m\" }";
            return Err(source.error_at(file.budget.span(), message));
        }
        (trials, _) => trials.unwrap_or(u64::MAX),
    };
    let mut parameters = Vec::new();
    let mut setters = BTreeMap::new();
    for (name, written) in file.space.get_ref() {
        let at = |message: String| source.error_at(written.span(), format!("tune.space.{name}: {message}"));
        let (parameter, setter) = parameter(name, written.get_ref()).map_err(at)?;
        parameters.push(parameter);
        setters.insert(name.clone(), setter);
    }
    // Conditions name choices: those go first, so that a parameter is decoded after what it depends on.
    parameters.sort_by_key(|parameter| parameter.only_if.is_some());
    let space = Space::new(parameters).map_err(|err| {
        let written = err.parameter().and_then(|name| file.space.get_ref().get(name));
        source.error_at(written.map_or(file.space.span(), Spanned::span), format!("tune.space: {err}"))
    })?;
    let start = match &file.start {
        Some(start) if *start.get_ref() == 0 => {
            return Err(source.error_at(start.span(), "tune.start must be at least 1 (the space-filling trials)"));
        }
        Some(start) => *start.get_ref(),
        None => (space.parameters().len() + 2).max(4),
    };
    let method = match file.method.as_ref().map(|method| (method.get_ref().as_str(), method.span())) {
        None | Some(("model", _)) => Method::Model,
        Some(("random", _)) => Method::Random,
        Some((other, at)) => {
            let message = format!("tune.method '{other}' is neither \"model\" nor \"random\"");
            return Err(source.error_at(at, message));
        }
    };
    let confirm = match &file.confirm {
        Some(confirm) if *confirm.get_ref() == 0 => {
            let message = "tune.confirm must be at least 1 (1: no finalist measured again; 3: each measured 3 times)";
            return Err(source.error_at(confirm.span(), message));
        }
        Some(confirm) => *confirm.get_ref(),
        None => DEFAULT_CONFIRM,
    };
    Ok(TunePlan {
        objective,
        trials,
        time,
        seed: file.seed.unwrap_or(1),
        method,
        start,
        confirm,
        space,
        setters,
        at_rate,
    })
}

/// `at_rate`: only with objective "memory", above 0, and not beside a measured rate ladder; against the capacity
/// phase where the plan has one, else the fixed rate of every measured phase.
fn at_rate(
    source: Source<'_>,
    file: &TuneFile,
    objective: Objective,
    facts: &PlanFacts,
) -> anyhow::Result<Option<AtRate>> {
    let Some(written) = &file.at_rate else { return Ok(None) };
    let (rate, at) = (*written.get_ref(), written.span());
    let refusal = if objective != Objective::Memory {
        Some(format!(
            "tune.at_rate goes with objective \"memory\" only (the least memory that holds the SLO at that rate), \
             not \"{}\"",
            objective.name()
        ))
    } else if !(rate.is_finite() && rate > 0.0) {
        Some(format!("tune.at_rate must be a rate above 0 req/s, not {rate}"))
    } else if let Some(phase) = facts.rate_ladder.as_ref().filter(|_| !facts.has_capacity_phase) {
        Some(format!(
            "tune.at_rate sets one fixed rate for every measured phase, and phase '{phase}' is a ladder of rates \
             (`rates = […]`): drop one of them"
        ))
    } else {
        None
    };
    if let Some(message) = refusal {
        return Err(source.error_at(at, message));
    }
    Ok(Some(if facts.has_capacity_phase { AtRate::Capacity(rate) } else { AtRate::Fixed(rate) }))
}

/// One parameter's domain and setter from what was written; the error without the key's name.
fn parameter(name: &str, written: &ParameterFile) -> Result<(Parameter, Setter), String> {
    let (table, values) = match written {
        ParameterFile::Values(values) => (None, Some(values.as_slice())),
        ParameterFile::Table(table) => (Some(table), table.values.as_deref()),
    };
    let only_if = table.and_then(|table| table.when.as_ref()).map(condition).transpose()?;
    let option = table.and_then(|table| table.option.clone());
    if let Some(option) = &option
        && !option.contains("{}")
    {
        return Err(format!("option '{option}' has no {{}} where the value goes"));
    }
    let args = match table.and_then(|table| table.args.as_ref()) {
        Some(written) => Some(super::args::parse_args(Some(written))?),
        None => None,
    };
    let sets = match (option, args) {
        (Some(_), Some(_)) => {
            return Err("give option (a JVM option) or args (program arguments), not both".into());
        }
        (Some(option), None) => Sets::Option(option),
        (None, Some(words)) if words.is_empty() => {
            return Err("args is empty; give the words it sets, like args = [\"--container-threads\", \"{}\"]".into());
        }
        (None, Some(words)) => Sets::Args(words),
        (None, None) => Sets::Named,
    };
    let range = table.filter(|table| table.from.is_some() || table.to.is_some());
    let domain_and_setter = match (range, values) {
        (Some(_), Some(_)) => return Err("give a range (from, to) or values, not both".into()),
        (None, None) => return Err("give a range (from = …, to = …) or values = […]".into()),
        (Some(table), None) => range_parameter(name, table, sets)?,
        (None, Some(values)) => values_parameter(name, values, sets)?,
    };
    let (domain, setter) = domain_and_setter;
    Ok((Parameter { name: name.to_string(), domain, only_if }, setter))
}

fn condition(when: &BTreeMap<String, Vec<String>>) -> Result<Condition, String> {
    let mut entries = when.iter();
    match (entries.next(), entries.next()) {
        (Some((parameter, one_of)), None) if !one_of.is_empty() => {
            Ok(Condition { parameter: parameter.clone(), one_of: one_of.clone() })
        }
        _ => Err("when names one choice and its values, like when = { gc = [\"G1\"] }".into()),
    }
}

/// What a parameter was written to set: the JVM option it is named after, its `option` template, or its `args`.
enum Sets {
    Named,
    Option(String),
    Args(Vec<String>),
}

/// The setter of a parameter named after its option, or the written template (JVM option or program arguments).
fn setter_for(name: &str, sets: Sets, size: bool) -> Result<Setter, String> {
    match sets {
        Sets::Option(template) => return Ok(Setter::Template { template, size }),
        Sets::Args(words) if words.iter().any(|word| word.contains("{}")) => return Ok(Setter::Args { words, size }),
        Sets::Args(words) => {
            return Err(format!(
                "args {words:?} has no {{}} where the value goes (only a parameter of values = [true, false] may \
                 leave it out: its args are then given for true)"
            ));
        }
        Sets::Named => {}
    }
    match name {
        "heap" => Ok(Setter::Template { template: "-Xmx{}".into(), size: true }),
        _ if name.starts_with("-XX:") || name.starts_with("-D") => {
            Ok(Setter::Template { template: format!("{name}={{}}"), size })
        }
        _ => Err(
            "say which JVM option it sets, like option = \"-Xss{}\" (or name it heap, gc, -XX:Flag or -Dproperty), \
             or which program arguments, like args = [\"--threads\", \"{}\"]"
                .to_string(),
        ),
    }
}

fn range_parameter(name: &str, table: &ParameterTable, sets: Sets) -> Result<(Domain, Setter), String> {
    let (Some(from), Some(to)) = (&table.from, &table.to) else {
        return Err("a range needs both from and to".into());
    };
    let domain = match (from, to) {
        (toml::Value::Integer(from), toml::Value::Integer(to)) => Domain::Int { from: *from, to: *to, log: table.log },
        (toml::Value::String(from), toml::Value::String(to)) => {
            let mib =
                |text: &str| parse_size(name, text).map(|bytes| (bytes / (1 << 20)) as i64).map_err(|e| e.to_string());
            let domain = Domain::Int { from: mib(from)?, to: mib(to)?, log: table.log };
            return Ok((domain, setter_for(name, sets, true)?));
        }
        (from, to) => match (
            from.as_float().or(from.as_integer().map(|i| i as f64)),
            to.as_float().or(to.as_integer().map(|i| i as f64)),
        ) {
            (Some(from), Some(to)) => Domain::Real { from, to, log: table.log },
            _ => return Err("from and to must both be numbers, or both sizes like \"64m\"".into()),
        },
    };
    if name == "heap" {
        return Err("heap is a size range: write from = \"64m\", to = \"1g\"".into());
    }
    Ok((domain, setter_for(name, sets, false)?))
}

fn values_parameter(name: &str, values: &[toml::Value], sets: Sets) -> Result<(Domain, Setter), String> {
    let booleans = values.iter().all(toml::Value::is_bool) && values.len() == 2;
    let both = || Domain::Choice(vec!["true".into(), "false".into()]);
    match &sets {
        Sets::Named if booleans && name.starts_with("-XX:") => {
            let flag = name.trim_start_matches("-XX:").trim_start_matches(['+', '-']).to_string();
            return Ok((both(), Setter::Flag(flag)));
        }
        Sets::Args(words) if booleans && !words.iter().any(|word| word.contains("{}")) => {
            return Ok((both(), Setter::ArgsWhenTrue(words.clone())));
        }
        _ => {}
    }
    let words: Vec<String> = values
        .iter()
        .map(|value| match value {
            toml::Value::String(text) => Ok(text.clone()),
            toml::Value::Integer(number) => Ok(number.to_string()),
            toml::Value::Float(number) => Ok(short_real(*number)),
            toml::Value::Boolean(flag) => Ok(flag.to_string()),
            other => Err(format!("value {other} is not a string, number or boolean")),
        })
        .collect::<Result<_, _>>()?;
    if words.len() < 2 {
        return Err("list at least two values to choose from".into());
    }
    if name == "gc" && matches!(sets, Sets::Named) {
        if let Some(unknown) = words.iter().find(|w| !w.starts_with('-') && collector_option(w) == **w) {
            let known: Vec<&str> = COLLECTORS.iter().map(|(name, _)| *name).collect();
            return Err(format!(
                "'{unknown}' is no collector jload knows ({}); or write its option, like \"-XX:+UseZGC\"",
                known.join(", ")
            ));
        }
        return Ok((Domain::Choice(words), Setter::Collector));
    }
    let setter = match setter_for(name, sets, false)? {
        Setter::Template { template, .. } if name == "heap" => Setter::Template { template, size: false },
        setter => setter,
    };
    Ok((ordered_or_choice(words), setter))
}

/// Values that are all numbers, or all sizes as the JVM writes them (`56m`, `1g`), are ordered, smallest first: the
/// model learns that 72m lies between 56m and 96m. Any other list (words) is a choice of unordered values.
fn ordered_or_choice(words: Vec<String>) -> Domain {
    let numbers: Option<Vec<f64>> = words.iter().map(|word| word.parse::<f64>().ok()).collect();
    let sizes = || words.iter().map(|word| parse_size("", word).ok().map(|bytes| bytes as f64)).collect();
    match numbers.or_else(sizes) {
        Some(values) => {
            let mut ranked: Vec<(f64, String)> = values.into_iter().zip(words).collect();
            ranked.sort_by(|a, b| a.0.total_cmp(&b.0));
            Domain::Ordered(ranked.into_iter().map(|(_, word)| word).collect())
        }
        None => Domain::Choice(words),
    }
}

#[cfg(test)]
#[path = "tune_tests.rs"]
mod tests;
