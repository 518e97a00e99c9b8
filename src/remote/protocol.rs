//! What the controlling jload and `jload agent target` (on the target's server) or `jload agent load` (on a load host)
//! say to each other: one JSON object per
//! line, requests on the agent's standard input, events on its standard output.

use serde::{Deserialize, Serialize};

use crate::cgroup::BoxSample;
use crate::jvm::clock::{ClockInterval, ClockSource};
use crate::jvm::window::JvmWindow;
use crate::launcher::{LaunchSpec, Listener, PortInUse};
use crate::load::input::spec::LoadSpec;
use crate::load::record::result::BenchResult;
use crate::load::record::slow::SlowRequest;
use crate::results::ExitInfo;

/// Controller → agent.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Request {
    /// Start the target (its folder is created); answered by `Started` or `StartFailed`.
    Start(LaunchSpec),
    /// Find the target's JVM and sample it every second into the folder's gcstat CSV; answered by `Watching`.
    Watch,
    /// Sample the JVM now and keep the sample as mark `id`; answered by `Marked`.
    Mark { id: u64 },
    /// Summarise the window between two marks; answered by `Window`.
    Window { start: u64, end: u64 },
    /// The agent's wall clock now; answered by `Pong`.
    Ping,
    /// The addresses listening on the target's port there; answered by `Listening`.
    Listening,
    /// The processes listening on these ports there, each marked whether it is of the target's tree; answered by
    /// `Listeners`.
    Listeners { ports: Vec<u16> },
    /// The target's cgroup box now (a launch with limits); answered by `BoxSampled`.
    BoxSample,
    /// The JVM's native memory now (attached on the first read), with the box's usage right after; answered by
    /// `NmtRead`.
    NmtRead,
    /// Nothing but "still here": an agent that hears nothing for [`SILENCE_LIMIT_S`] stops the target and exits.
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
    Watching {
        jvm_pid: Option<u32>,
        clock: Option<(ClockSource, ClockInterval)>,
    },
    Marked {
        id: u64,
        taken: bool,
    },
    Window {
        window: Option<Box<JvmWindow>>,
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
    /// None: the target has no box, or it cannot be read.
    BoxSampled {
        sample: Option<BoxSample>,
    },
    /// None: the JVM could not be read (no JVM found, gone, NMT off, attach refused); `box_usage`: None without a box.
    NmtRead {
        taken: Option<crate::jvm::nmt_reader::NmtTaken>,
        box_usage: Option<u64>,
    },
}

/// How long the agent waits without a word from the controller before it takes the connection for lost.
pub const SILENCE_LIMIT_S: u64 = 10;
/// How often the controller says it is still there.
pub const HEARTBEAT_INTERVAL_MS: u64 = 1000;
