//! The fully resolved description of one load run, as the engine takes it (from `jload bench` flags or a plan phase).

use std::time::Duration;

use super::request::RequestSpec;
use super::status::OkStatus;

/// When a run ends: after a number of requests, after a duration, or whichever comes first.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StopCondition {
    pub requests: Option<u64>,
    pub duration: Option<Duration>,
}

/// The machine's cores: the default number of worker threads.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |cores| cores.get())
}

/// One load run.
#[derive(Debug, Clone)]
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
}
