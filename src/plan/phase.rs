//! A plan's `[[phase]]`s: name and whether each is measured, its load through the same conversion to a checked
//! `LoadSpec` as `jload bench` flags ([`LoadInput::into_spec`]), and its ladder when it has one
//! ([`super::phase_ladder`]), with errors naming the plan file, line and key.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::PlanBase;
use super::phase_ladder::{PhaseLadder, parse_ladder};
use super::schema::PhaseFile;
use crate::cpuset::CpuSet;
use crate::load::input::protocol::{HttpVersion, ProtocolError, ProtocolInput, ProtocolOptions};
use crate::load::input::spec::{LoadInput, LoadSpec, Setting, threads_or_pinned};
use crate::load::input::status::OkStatus;
use crate::tomlfile::Source;

/// One phase of the load.
#[derive(Debug, Clone)]
pub struct Phase {
    pub name: String,
    pub measure: bool,
    /// The checked load, with `{host}` and `{port}` still to be filled in ([`LoadSpec::with_target`]). In a ladder phase its rate is
    /// the first step's (when known) and its stop one step's measured window: the ladder sets both for each step.
    pub load: LoadSpec,
    /// A rate ladder or a capacity search: one open-model step per rate instead of one run.
    pub ladder: Option<PhaseLadder>,
}

impl Phase {
    /// This phase as one run at `rate`, open-model — the one rule by which a box search's `at_capacity` runs its
    /// capacity phase at a share of the capacity and a tune's `at_rate` runs every measured phase at that rate: a
    /// ladder or search becomes one run as long as one of its steps' measured windows (its load carries that
    /// already), a plain phase keeps its stop.
    pub fn run_at_fixed_rate(&mut self, rate: f64) {
        self.ladder = None;
        self.load.rate = Some(rate);
    }

    /// The phase's load in one line, for `--dry-run`: the requests, the connections, and how long and at what rate
    /// it runs (or its ladder).
    pub fn describe(&self) -> String {
        let load = &self.load;
        let how = match &self.ladder {
            Some(ladder) => ladder.describe(),
            None => {
                let bound = match (load.stop.requests, load.stop.duration) {
                    (Some(requests), Some(duration)) => format!("{requests} requests or {duration:?}"),
                    (Some(requests), None) => format!("{requests} requests"),
                    (None, Some(duration)) => format!("{duration:?}"),
                    (None, None) => String::new(),
                };
                bound + &load.rate.map(|rate| format!(" at {rate} req/s")).unwrap_or_default()
            }
        };
        format!(
            "{}{}: {} × {} connections, {how}",
            self.name,
            if self.measure { "" } else { " (not measured)" },
            load.requests.iter().map(|request| request.url.as_str()).collect::<Vec<_>>().join(" | "),
            load.connections
        )
    }
}

/// Check every phase: at least one, unique names, each load and ladder checked. `plan_slo` is the plan's `[slo]` as
/// threshold expressions (a capacity search without its own SLO searches under it); `load_cpus` the CPUs this machine's
/// generator is pinned to (a phase without `threads` then gets one per CPU).
pub(super) fn parse_phases(
    source: Source<'_>,
    base: &PlanBase,
    phases: &Spanned<Vec<PhaseFile>>,
    plan_slo: &[String],
    load_cpus: Option<&CpuSet>,
) -> anyhow::Result<Vec<Phase>> {
    if phases.get_ref().is_empty() {
        return Err(source.error_at(phases.span(), "no [[phase]]; add at least one"));
    }
    let mut parsed = Vec::new();
    let mut names = HashSet::new();
    let key_spans = phase_key_spans(source.text);
    for (index, phase) in phases.get_ref().iter().enumerate() {
        let spans = key_spans.get(index).cloned().unwrap_or_default();
        let checked = parse_phase(source, base, phase, &spans, plan_slo, load_cpus)?;
        if !names.insert(checked.name.clone()) {
            return Err(source.error_at(phase.name.span(), format!("duplicate phase name '{}'", checked.name)));
        }
        parsed.push(checked);
    }
    Ok(parsed)
}

/// One phase, checked; `key_spans` says where it writes each key (see [`phase_key_spans`]).
fn parse_phase(
    source: Source<'_>,
    base: &PlanBase,
    phase: &PhaseFile,
    key_spans: &HashMap<String, Range<usize>>,
    plan_slo: &[String],
    load_cpus: Option<&CpuSet>,
) -> anyhow::Result<Phase> {
    let name = phase.name.get_ref().trim().to_string();
    if name.is_empty() || name.contains(['/', '\\', ',', '=']) {
        return Err(source
            .error_at(phase.name.span(), format!("phase name '{name}' must be non-empty without '/', ',' or '='")));
    }
    let ladder = parse_ladder(source, phase, &name, plan_slo)?;
    let mut input = load_input(source, base, phase, &name)?;
    input.threads = threads_or_pinned(input.threads, load_cpus);
    if let Some(ladder) = &ladder {
        // The ladder replaces both for every step; the spec carries one step's so it is checked like any load.
        input.rate = ladder.first_rate();
        input.duration = Some(ladder.timing.measure);
    }
    let load = input.into_spec().map_err(|err| {
        // A mix file's error names its own file and line; the plan's line is then the phase's.
        let setting = err.setting().filter(|setting| *setting != Setting::Mix);
        let span = setting.and_then(|setting| key_spans.get(setting.key()).cloned());
        let span = span.unwrap_or_else(|| phase.name.span());
        source.error_at(span, format!("phase '{name}': {err}"))
    })?;
    Ok(Phase { name, measure: phase.measure, load, ladder })
}

/// The phase's load settings as typed values; durations and status codes are parsed here, at their keys.
fn load_input(source: Source<'_>, base: &PlanBase, phase: &PhaseFile, name: &str) -> anyhow::Result<LoadInput> {
    let ok_status = match &phase.ok_status {
        Some(spanned) => Some(
            OkStatus::parse(spanned.get_ref())
                .map_err(|err| source.error_at(spanned.span(), format!("phase '{name}': {err}")))?,
        ),
        None => None,
    };
    Ok(LoadInput {
        url: phase.url.clone(),
        mix: phase.mix.as_ref().map(|mix| base.plan_dir.join(mix)),
        method: phase.method.clone(),
        headers: phase.headers.clone(),
        body: phase.body.clone(),
        raw_body: None,
        connections: value(&phase.connections),
        threads: value(&phase.threads),
        requests: value(&phase.requests),
        duration: source.duration(&phase.duration, &format!("phase '{name}' duration"))?,
        rate: value(&phase.rate),
        timeout: source.duration(&phase.timeout, &format!("phase '{name}' timeout"))?,
        ok_status,
        protocol: protocol_options(source, base, phase, name)?,
    })
}

/// The phase's `http`, `streams`, `insecure`, `cacert`, `cert` and `key`, checked at their keys through the same
/// [`ProtocolInput::into_options`] as `jload bench`'s flags; a TLS file's error points at the first file key given.
fn protocol_options(
    source: Source<'_>,
    base: &PlanBase,
    phase: &PhaseFile,
    name: &str,
) -> anyhow::Result<ProtocolOptions> {
    let at = |spanned: Option<Range<usize>>, err: String| {
        source.error_at(spanned.unwrap_or_else(|| phase.name.span()), format!("phase '{name}': {err}"))
    };
    let http = match &phase.http {
        Some(text) => HttpVersion::parse(text.get_ref()).map_err(|err| at(Some(text.span()), err))?,
        None => HttpVersion::default(),
    };
    let file = |key: &Option<Spanned<String>>| key.as_ref().map(|path| base.plan_dir.join(path.get_ref()));
    let input = ProtocolInput {
        http,
        streams: value(&phase.streams),
        insecure: phase.insecure,
        cacert: file(&phase.cacert),
        cert: file(&phase.cert),
        key: file(&phase.key),
    };
    input.into_options(Setting::key, "http = \"2\"").map_err(|err| match err {
        ProtocolError::Tls(err) => {
            let first_file_key = [&phase.cacert, &phase.cert, &phase.key].into_iter().flatten().next();
            at(first_file_key.map(Spanned::span), err.to_string())
        }
        ProtocolError::Streams(err) => at(phase.streams.as_ref().map(Spanned::span), err.to_string()),
    })
}

fn value<T: Copy>(spanned: &Option<Spanned<T>>) -> Option<T> {
    spanned.as_ref().map(|spanned| *spanned.get_ref())
}

/// Where each `[[phase]]` writes each of its keys' values, by key, in the order of the phases: read from the document
/// itself, so that an error about a setting finds its line by the setting's one key ([`Setting::key`]).
fn phase_key_spans(text: &str) -> Vec<HashMap<String, Range<usize>>> {
    let Ok(document) = DeTable::parse(text) else { return Vec::new() };
    let phases = document.get_ref().iter().find(|(key, _)| key.get_ref() == "phase");
    let Some((_, phases)) = phases else { return Vec::new() };
    let DeValue::Array(phases) = phases.get_ref() else { return Vec::new() };
    let keys = |phase: &Spanned<DeValue<'_>>| match phase.get_ref() {
        DeValue::Table(table) => table.iter().map(|(key, value)| (key.get_ref().to_string(), value.span())).collect(),
        _ => HashMap::new(),
    };
    phases.iter().map(keys).collect()
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::super::{PlanBase, parse_plan};

    const HEAD: &str =
        "name = \"p\"\n[target]\ncommand = \"java {jvm} -jar x.jar\"\nready = \"http://127.0.0.1:{port}/\"\n";

    fn parse(phase: &str) -> anyhow::Result<super::Phase> {
        let base = PlanBase { plan_dir: "/plans".into(), cwd: "/here".into() };
        parse_plan("p.toml", &format!("{HEAD}[[phase]]\nname = \"get\"\n{phase}"), &base)
            .map(|plan| plan.phases[0].clone())
    }

    #[test]
    fn a_phase_becomes_a_checked_load_with_the_port_still_open() {
        let phase = parse("url = \"http://127.0.0.1:{port}/\"\nrequests = 10\nconnections = 4\nrate = 20.0\n").unwrap();
        assert_eq!(phase.load.requests[0].url, "http://127.0.0.1:{port}/");
        assert_eq!((phase.load.connections, phase.load.stop.requests, phase.load.rate), (4, Some(10), Some(20.0)));
        assert_eq!(phase.load.stop.duration, None);
        assert_eq!(phase.load.timeout, Duration::from_secs(5));
    }

    #[test]
    fn a_load_error_points_at_the_line_of_its_key() {
        let err = parse("url = \"http://127.0.0.1:{port}/\"\nduration = \"1s\"\n\nconnections = 0\n").unwrap_err();
        assert_eq!(err.to_string(), "p.toml: line 10: phase 'get': connections must be at least 1");
        let err = parse("url = \"http://127.0.0.1:{port}/\"\nduration = \"0s\"\n").unwrap_err();
        assert_eq!(err.to_string(), "p.toml: line 8: phase 'get': duration must be longer than 0s");
    }

    #[test]
    fn a_load_error_in_a_later_phase_points_at_that_phases_key() {
        let second = "[[phase]]\nname = \"two\"\nurl = \"http://127.0.0.1:{port}/\"\nduration = \"1s\"\nthreads = 0\n";
        let err = parse(&format!("url = \"http://127.0.0.1:{{port}}/\"\nduration = \"1s\"\nthreads = 2\n{second}"));
        assert_eq!(err.unwrap_err().to_string(), "p.toml: line 14: phase 'two': threads must be at least 1");
    }

    #[test]
    fn an_error_about_no_one_key_points_at_the_phase_name() {
        let err = parse("duration = \"1s\"\n").unwrap_err();
        assert_eq!(err.to_string(), "p.toml: line 6: phase 'get': nothing to send: give url or mix");
        let err = parse("mix = \"m.toml\"\nheaders = [\"A: b\"]\nduration = \"1s\"\n").unwrap_err();
        assert_eq!(
            err.to_string(),
            "p.toml: line 6: phase 'get': headers does not apply with mix: each [[request]] in the mix file sets its own"
        );
    }

    /// The keys serde knows for `T`, from its error for an unknown one.
    fn schema_keys<T: serde::de::DeserializeOwned>() -> Vec<String> {
        let message = toml::from_str::<T>("no_such_key = 1").err().expect("an unknown key is refused").to_string();
        let (_, expected) = message.split_once("expected one of").expect("serde lists the keys");
        expected.split('`').skip(1).step_by(2).map(str::to_string).collect()
    }

    #[test]
    fn the_phase_schema_has_a_key_for_every_load_setting() {
        let phase_keys = schema_keys::<super::PhaseFile>();
        let capacity_keys = schema_keys::<crate::plan::schema::CapacityGoalFile>();
        for def in &crate::load::input::settings::SETTINGS {
            let keys = match def.within {
                None => &phase_keys,
                Some("capacity") => &capacity_keys,
                Some(other) => panic!("{other} = {{ … }} is no table of a phase"),
            };
            assert!(
                keys.iter().any(|key| key == def.key),
                "no key `{}` in {:?} (it has {keys:?})",
                def.key,
                def.within
            );
        }
    }

    fn threads_with_load(load: &str, threads: &str) -> usize {
        let base = PlanBase { plan_dir: "/plans".into(), cwd: "/here".into() };
        let text = format!(
            "{}[load]\n{load}\n[[phase]]\nname = \"get\"\nurl = \"http://{{host}}:{{port}}/\"\nduration = \"1s\"\n{threads}",
            HEAD.replace("127.0.0.1", "{host}")
        );
        parse_plan("p.toml", &text, &base).unwrap().phases[0].load.threads
    }

    #[test]
    fn a_phase_without_threads_gets_one_per_cpu_the_local_load_is_pinned_to() {
        let cpu = crate::cpuset::CpuSet::available().unwrap().cpus()[0];
        assert_eq!(threads_with_load(&format!("cpus = \"{cpu}\""), ""), 1);
        assert_eq!(threads_with_load(&format!("cpus = \"{cpu}\""), "threads = 3"), 3, "threads given win");
        let remote = format!("hosts = [\"gen1\"]\ncpus = \"{cpu}\"");
        assert_eq!(
            threads_with_load(&remote, ""),
            crate::load::input::spec::cores(),
            "load hosts: not this machine's CPUs"
        );
    }
}
