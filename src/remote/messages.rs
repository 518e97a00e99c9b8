//! What the controlling jload and `jload agent target` (on the target's server) or `jload agent load` (on a load host)
//! say to each other: one JSON object per
//! line, requests on the agent's standard input, events on its standard output; and how long an agent waits for a
//! word before it takes the connection for lost (the silence limit, `JLOAD_SILENCE_LIMIT`).

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::error::bad_input;
use crate::launcher::{LaunchSpec, Listener, PortInUse};
use crate::load::input::spec::LoadSpec;
use crate::load::record::result::BenchResult;
use crate::load::record::slow::SlowRequest;
use crate::results::ExitInfo;
use crate::units::parse_duration;

/// Controller → agent.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Request {
    /// Start the target (its folder is created); answered by `Started` or `StartFailed`.
    Start(LaunchSpec),
    /// A call to the far side of the probe named `probe` (`run::cell::probes`), answered by `Probed`: what a probe
    /// must do where the target runs, its call and answer serde values of the probe's own types.
    Probe { probe: String, call: serde_json::Value },
    /// The agent's wall clock now; answered by `Pong`.
    Ping,
    /// The addresses listening on the target's port there; answered by `Listening`.
    Listening,
    /// The processes listening on these ports there, each marked whether it is of the target's tree; answered by
    /// `Listeners`.
    Listeners { ports: Vec<u16> },
    /// Nothing but "still here": an agent that hears nothing for its silence limit ([`silence_limit`]) stops the
    /// target and exits.
    Heartbeat,
    /// Stop the target's whole tree (SIGTERM, SIGKILL after the grace); answered by `Stopped`, then the agent exits.
    Stop { grace_ms: u64 },
    /// A load host: run this share of a load, starting at the given wall-clock instant; answered by `LoadDone` or
    /// `LoadFailed`, then the agent exits.
    Load(LoadJob),
    /// A load host: end the running load now (Ctrl-C or the target's death on the controller's side).
    EndLoad,
}

/// `jload agent preflight`'s question on its standard input: preflight these options in a cgroup box there (see
/// [`crate::plan::preflight::check_boxed`]), made in `scratch`; answered with the `Preflight` as JSON on its output.
#[derive(Debug, Serialize, Deserialize)]
pub struct BoxedPreflight {
    pub java: std::path::PathBuf,
    pub options: Vec<String>,
    pub cpus: Option<crate::cpuset::CpuSet>,
    pub limits: crate::cgroup::Limits,
    pub scratch: std::path::PathBuf,
}

/// One load host's share of a run.
#[derive(Debug, Serialize, Deserialize)]
pub struct LoadJob {
    pub spec: LoadSpec,
    /// When the run's clock starts (µs since the Unix epoch, on the load host's own clock).
    pub start_at_unix_us: i64,
}

/// Agent → controller.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Event {
    Started {
        pid: u32,
    },
    StartFailed {
        message: String,
        /// The start was refused because a port of the cell was already in use there.
        #[serde(default)]
        port_in_use: Option<PortInUse>,
    },
    /// The started process ended by itself (sent once, whenever it happens).
    Exited {
        exit: ExitInfo,
        daemon_note: Option<String>,
    },
    /// A probe's answer; None: no such probe, or a call it cannot read.
    Probed {
        probe: String,
        answer: Option<serde_json::Value>,
    },
    Pong {
        unix_us: i64,
    },
    Stopped {
        exit: ExitInfo,
        daemon_note: Option<String>,
    },
    /// The share's result with its histograms, and its slow requests one by one (not in the result's JSON).
    LoadDone {
        result: Box<BenchResult>,
        slow: Vec<SlowRequest>,
    },
    LoadFailed {
        message: String,
    },
    Listening {
        addresses: Vec<std::net::SocketAddr>,
    },
    Listeners {
        ports: Vec<(u16, Vec<Listener>)>,
    },
}

/// How long an agent waits without a word from the controller before it takes the connection for lost, unless
/// [`SILENCE_LIMIT_VARIABLE`] says otherwise.
pub const DEFAULT_SILENCE_LIMIT: Duration = Duration::from_secs(10);
/// The environment variable that sets the silence limit, as `JLOAD_SSH_COMMAND` sets ssh: read by the controlling
/// jload when it logs in, which tells each agent it starts (`jload agent target --silence-limit-ms N`). Longer for a
/// link that can stall for a while, shorter to have a JVM stopped sooner after a cut.
pub const SILENCE_LIMIT_VARIABLE: &str = "JLOAD_SILENCE_LIMIT";
/// How often the controller says it is still there.
pub const HEARTBEAT_INTERVAL_MS: u64 = 1000;
/// The shortest silence limit: two heartbeats, so that one late heartbeat alone never ends a run.
const SHORTEST_SILENCE_LIMIT: Duration = Duration::from_millis(2 * HEARTBEAT_INTERVAL_MS);

/// The silence limit [`SILENCE_LIMIT_VARIABLE`] sets (a duration such as `30s`), else the default. A value that is no
/// duration, or shorter than two heartbeats, is bad input.
pub fn silence_limit() -> anyhow::Result<Duration> {
    match std::env::var(SILENCE_LIMIT_VARIABLE) {
        Ok(text) if !text.trim().is_empty() => checked_silence_limit(&text),
        _ => Ok(DEFAULT_SILENCE_LIMIT),
    }
}

fn checked_silence_limit(text: &str) -> anyhow::Result<Duration> {
    let limit = parse_duration(SILENCE_LIMIT_VARIABLE, text)?;
    if limit < SHORTEST_SILENCE_LIMIT {
        return Err(bad_input(format!(
            "{SILENCE_LIMIT_VARIABLE}: '{}' is shorter than {} s; jload says it is still there once a second, and an \
             agent must hear it at least once before it gives up",
            text.trim(),
            SHORTEST_SILENCE_LIMIT.as_secs()
        )));
    }
    Ok(limit)
}

/// A silence limit as jload's messages give it: `10 s`, `2.5 s`.
pub fn in_seconds(limit: Duration) -> String {
    format!("{} s", limit.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_silence_limit_is_a_duration_of_at_least_two_heartbeats() {
        assert_eq!(checked_silence_limit("3s").unwrap(), Duration::from_secs(3));
        assert_eq!(checked_silence_limit(" 2500ms ").unwrap(), Duration::from_millis(2500));
        assert_eq!(
            checked_silence_limit("1s").unwrap_err().to_string(),
            "JLOAD_SILENCE_LIMIT: '1s' is shorter than 2 s; jload says it is still there once a second, and an agent \
             must hear it at least once before it gives up"
        );
        assert_eq!(
            checked_silence_limit("soon").unwrap_err().to_string(),
            "JLOAD_SILENCE_LIMIT: 'soon' is not a duration; write it like 10s, 2m, 1h, 500ms or 1.5s"
        );
        assert_eq!(
            (in_seconds(DEFAULT_SILENCE_LIMIT), in_seconds(Duration::from_millis(2500))),
            ("10 s".into(), "2.5 s".into())
        );
    }
}
