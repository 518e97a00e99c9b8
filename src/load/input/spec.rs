//! The fully resolved description of one load run as the engine takes it ([`LoadSpec`]), and the one road to it from
//! what a user wrote (`jload bench` flags or a plan phase, both as a [`LoadInput`]): the "URL or mix" rule, the load
//! limits, the defaults, and `{port}` filling. Errors are typed ([`LoadError`]) so each front end can name a setting
//! in its own terms: a flag for `bench`, a key with file and line for a plan (both names from [`super::settings`]).

use crate::cpuset::CpuSet;
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::mix::load_mix;
use super::protocol::ProtocolOptions;
use super::request::{RequestSet, RequestSpec};
pub use super::settings::Setting;
use super::status::OkStatus;

/// Concurrent connections when none are given (bench `-c`, a phase's `connections`).
pub const DEFAULT_CONNECTIONS: usize = 50;
/// Per-request timeout when none is given (bench `--timeout`, a phase's `timeout`).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);
/// The placeholder for the target's port, filled in once the port is known (plans; `bench` has a fixed URL).
pub const PORT_PLACEHOLDER: &str = "{port}";
/// The port requests are checked with before the real one is known: any valid port will do.
const STAND_IN_PORT: u16 = 1;

/// Where a plan's URLs name the target's server: 127.0.0.1 for a local target, the server's address for a remote one.
pub const HOST_PLACEHOLDER: &str = "{host}";
/// The target's address while a plan is checked, before any server is known.
pub const STAND_IN_HOST: &str = "127.0.0.1";

/// `text` with every `{port}` replaced by `port` (a number, or the placeholder itself when showing a command).
pub fn fill_port(text: &str, port: &str) -> String {
    text.replace(PORT_PLACEHOLDER, port)
}

/// `text` with `{host}` and `{port}` filled in: the target's address and port.
pub fn fill_target(text: &str, host: &str, port: &str) -> String {
    fill_port(&text.replace(HOST_PLACEHOLDER, host), port)
}

/// When a run ends: after a number of requests, after a duration, or whichever comes first.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct StopCondition {
    pub requests: Option<u64>,
    pub duration: Option<Duration>,
}

/// The machine's cores: the default number of worker threads.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |cores| cores.get())
}

/// The worker threads asked for or, when none were and the generator is pinned, one per CPU of its set (with neither,
/// [`LoadInput::into_spec`] takes [`cores`]).
pub fn threads_or_pinned(threads: Option<usize>, pinned: Option<&CpuSet>) -> Option<usize> {
    threads.or(pinned.map(|cpus| cpus.cpus().len()))
}

/// One load run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoadSpec {
    pub requests: Vec<RequestSpec>,
    pub connections: usize,
    pub threads: usize,
    pub stop: StopCondition,
    /// Open model: total requests per second on an even schedule. `None`: closed model.
    pub rate: Option<f64>,
    pub timeout: Duration,
    /// Status codes that count as success (others are `status` errors).
    pub ok_status: OkStatus,
    /// Open model: where this generator's sends fall within the schedule's interval, as a fraction of it (0 ≤ φ < 1).
    /// Generator i of n sharing a load ([`LoadSpec::share`]) sends at (k + i/n) / its rate, so that together they
    /// keep one even schedule at the total rate instead of sending in groups. 0 for a load of its own.
    #[serde(default)]
    pub schedule_phase: f64,
    /// HTTP version, HTTP/2 streams, TLS settings.
    #[serde(default)]
    pub protocol: ProtocolOptions,
}

/// What is wrong with a [`LoadInput`].
#[derive(Debug)]
pub enum LoadError {
    /// Both a URL and a mix file.
    UrlAndMix,
    /// Neither a URL nor a mix file.
    NoRequests,
    /// Request settings given beside a mix file, whose `[[request]]`s set their own.
    NotWithMix(Vec<Setting>),
    /// The mix file cannot be read or is malformed (the error names the file and line).
    Mix(anyhow::Error),
    /// A URL, header or placeholder that does not make a request.
    Request(anyhow::Error),
    /// A count (connections, threads, requests) or a time (duration, timeout) of zero.
    Zero(Setting),
    /// A rate that is not a positive number.
    Rate(f64),
    /// Neither a request count nor a duration ends the run.
    Unbounded,
    /// Fewer connections (or requests) than the load generators that are to share them.
    TooFewToShare { setting: Setting, given: u64, parts: usize },
}

impl LoadError {
    /// The setting the error is about, when it is about one (for pointing at it).
    pub fn setting(&self) -> Option<Setting> {
        match self {
            LoadError::Mix(_) => Some(Setting::Mix),
            LoadError::Zero(setting) => Some(*setting),
            LoadError::Rate(_) => Some(Setting::Rate),
            LoadError::TooFewToShare { setting, .. } => Some(*setting),
            _ => None,
        }
    }

    /// The one-line message, with each setting called by `name` (a flag for `bench`, a key for a plan).
    pub fn describe(&self, name: impl Fn(Setting) -> &'static str) -> String {
        match self {
            LoadError::UrlAndMix => format!("give {} or {}, not both", name(Setting::Url), name(Setting::Mix)),
            LoadError::NoRequests => format!("nothing to send: give {} or {}", name(Setting::Url), name(Setting::Mix)),
            LoadError::NotWithMix(settings) => {
                let names: Vec<&str> = settings.iter().map(|setting| name(*setting)).collect();
                let verb = if names.len() == 1 { "does" } else { "do" };
                format!(
                    "{} {verb} not apply with {}: each [[request]] in the mix file sets its own",
                    names.join(" and "),
                    name(Setting::Mix)
                )
            }
            LoadError::Mix(err) | LoadError::Request(err) => err.to_string(),
            LoadError::Zero(setting @ (Setting::Duration | Setting::Timeout)) => {
                format!("{} must be longer than 0s", name(*setting))
            }
            LoadError::Zero(setting) => format!("{} must be at least 1", name(*setting)),
            LoadError::Rate(rate) => {
                format!("{} must be a positive number of requests per second, not {rate}", name(Setting::Rate))
            }
            LoadError::Unbounded => format!(
                "neither {} nor {} is set; give one (or both) to bound the run",
                name(Setting::Requests),
                name(Setting::Duration)
            ),
            LoadError::TooFewToShare { setting, given, parts } => format!(
                "{} = {given} cannot be shared by {parts} load generators: give at least one per generator",
                name(*setting)
            ),
        }
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe(Setting::key))
    }
}

impl std::error::Error for LoadError {}

/// What the user wrote for one load run, as typed values (the front end parses durations and status codes, since it
/// knows where they came from). `None` takes the default.
#[derive(Debug, Clone, Default)]
pub struct LoadInput {
    pub url: Option<String>,
    /// The mix file, resolved against the front end's folder.
    pub mix: Option<PathBuf>,
    pub method: Option<String>,
    pub headers: Vec<String>,
    pub body: Option<String>,
    /// Body bytes sent as they are (`--body-file`).
    pub raw_body: Option<Vec<u8>>,
    pub connections: Option<usize>,
    /// Default: the machine's cores.
    pub threads: Option<usize>,
    pub requests: Option<u64>,
    pub duration: Option<Duration>,
    pub rate: Option<f64>,
    pub timeout: Option<Duration>,
    pub ok_status: Option<OkStatus>,
    pub protocol: ProtocolOptions,
}

impl LoadInput {
    /// The checked load spec. Its requests may still hold `{host}` and `{port}` (see [`LoadSpec::with_target`]); they are checked
    /// with a stand-in port.
    pub fn into_spec(self) -> Result<LoadSpec, LoadError> {
        let requests = self.requests_to_send()?;
        let spec = LoadSpec {
            requests,
            connections: self.connections.unwrap_or(DEFAULT_CONNECTIONS),
            threads: self.threads.unwrap_or_else(cores),
            stop: StopCondition { requests: self.requests, duration: self.duration },
            rate: self.rate,
            timeout: self.timeout.unwrap_or(DEFAULT_TIMEOUT),
            ok_status: self.ok_status.unwrap_or_default(),
            schedule_phase: 0.0,
            protocol: self.protocol,
        };
        spec.check_limits()?;
        let set = RequestSet::compile(&spec.with_target(STAND_IN_HOST, STAND_IN_PORT).requests)
            .map_err(LoadError::Request)?;
        // The protocol against the scheme (`auto` needs https://), and the TLS settings built once, before any run.
        spec.protocol.security(&set.endpoint).map_err(LoadError::Request)?;
        Ok(spec)
    }

    /// The "URL or mix" rule: one URL with its method, headers and body, or a mix file whose `[[request]]`s set
    /// their own.
    fn requests_to_send(&self) -> Result<Vec<RequestSpec>, LoadError> {
        match (&self.url, &self.mix) {
            (Some(_), Some(_)) => Err(LoadError::UrlAndMix),
            (None, None) => Err(LoadError::NoRequests),
            (None, Some(mix)) => {
                let beside_mix = [
                    (Setting::Method, self.method.is_some()),
                    (Setting::Headers, !self.headers.is_empty()),
                    (Setting::Body, self.body.is_some() || self.raw_body.is_some()),
                ];
                let given: Vec<Setting> =
                    beside_mix.iter().filter(|(_, given)| *given).map(|(setting, _)| *setting).collect();
                if !given.is_empty() {
                    return Err(LoadError::NotWithMix(given));
                }
                load_mix(mix).map_err(LoadError::Mix)
            }
            (Some(url), None) => Ok(vec![RequestSpec {
                name: None,
                weight: 1,
                method: self.method.clone().unwrap_or_else(|| "GET".to_string()),
                url: url.clone(),
                headers: self.headers.clone(),
                body: self.body.clone(),
                raw_body: self.raw_body.clone(),
            }]),
        }
    }
}

impl LoadSpec {
    /// The load limits: at least one connection, thread and request, a duration and timeout above zero, a positive
    /// rate, and a bound on the run.
    pub fn check_limits(&self) -> Result<(), LoadError> {
        let zero_counts = [
            (Setting::Connections, self.connections == 0),
            (Setting::Threads, self.threads == 0),
            (Setting::Requests, self.stop.requests == Some(0)),
            (Setting::Duration, self.stop.duration.is_some_and(|duration| duration.is_zero())),
            (Setting::Timeout, self.timeout.is_zero()),
        ];
        if let Some((setting, _)) = zero_counts.iter().find(|(_, zero)| *zero) {
            return Err(LoadError::Zero(*setting));
        }
        if let Some(rate) = self.rate
            && !(rate.is_finite() && rate > 0.0)
        {
            return Err(LoadError::Rate(rate));
        }
        if self.stop.requests.is_none() && self.stop.duration.is_none() {
            return Err(LoadError::Unbounded);
        }
        Ok(())
    }

    /// The spec with `{host}` and `{port}` filled in every request's URL, headers and body.
    pub fn with_target(&self, host: &str, port: u16) -> LoadSpec {
        let port = port.to_string();
        let fill = |text: &str| fill_target(text, host, &port);
        let requests = self
            .requests
            .iter()
            .map(|request| RequestSpec {
                url: fill(&request.url),
                headers: request.headers.iter().map(|header| fill(header)).collect(),
                body: request.body.as_deref().map(fill),
                ..request.clone()
            })
            .collect();
        LoadSpec { requests, ..self.clone() }
    }

    /// Generator `index`'s part of this load when `parts` generators share it, starting together: the open model's
    /// rate split evenly (its schedule a `index / parts` interval later than the first's, so that together they send
    /// on one even schedule), the connections, threads and `-n` requests as evenly as possible (the first ones take
    /// one more), the duration unchanged. Refused when there are fewer connections (or `-n` requests) than generators.
    pub fn share(&self, parts: usize, index: usize) -> Result<LoadSpec, LoadError> {
        assert!(index < parts, "generator {index} of {parts}");
        let too_few =
            |setting, given: u64| (given < parts as u64).then_some(LoadError::TooFewToShare { setting, given, parts });
        if let Some(err) = too_few(Setting::Connections, self.connections as u64)
            .or_else(|| self.stop.requests.and_then(|requests| too_few(Setting::Requests, requests)))
        {
            return Err(err);
        }
        Ok(LoadSpec {
            connections: even_share(self.connections, parts, index),
            threads: even_share(self.threads, parts, index).max(1),
            stop: StopCondition {
                requests: self.stop.requests.map(|requests| even_share(requests as usize, parts, index) as u64),
                duration: self.stop.duration,
            },
            rate: self.rate.map(|rate| rate / parts as f64),
            schedule_phase: index as f64 / parts as f64,
            ..self.clone()
        })
    }
}

/// Part `index`'s share of `total` split as evenly as possible among `parts` (the first `total % parts` take one more).
pub fn even_share(total: usize, parts: usize, index: usize) -> usize {
    total / parts + usize::from(index < total % parts)
}

#[cfg(test)]
#[path = "spec_tests.rs"]
mod tests;
