//! Several load hosts as one generator (`[load] hosts`, `jload bench --hosts`): each runs its share of the load
//! (`LoadSpec::share`: the open model's rate, the connections and threads split) from the same wall-clock instant,
//! and their results are merged exactly (`load::merge`: histograms added, never percentiles averaged) into the
//! one result the rest of jload understands, each host's own figures kept beside it.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, SystemTime};

use anyhow::Context;

use super::install::ensure_jload;
use super::link::AgentLink;
use super::messages::{Event, LoadJob, Request, silence_limit};
use super::ssh::Ssh;
use crate::load::engine::{RunOptions, unix_us};
use crate::load::generator::Generator;
use crate::load::input::spec::{LoadSpec, Setting};
use crate::load::merge::merge;
use crate::load::record::hlog::write_result_log;
use crate::load::record::result::BenchResult;
use crate::load::record::slow::SlowRequests;

/// How far ahead of now the shares start: time for every host's agent to start and open its connections.
const START_LEAD: Duration = Duration::from_secs(3);
/// A share's answer comes when its run ends, however long that is; a lost connection ends the wait before.
const NO_ANSWER_LIMIT: Duration = Duration::from_secs(7 * 24 * 3600);

pub struct LoadHosts {
    hosts: Vec<LoadHost>,
}

struct LoadHost {
    ssh: Ssh,
    /// This build of jload there.
    jload: String,
    /// How long its agent waits without a word from jload before it ends its share (`JLOAD_SILENCE_LIMIT`).
    silence_limit: Duration,
}

impl LoadHosts {
    /// Log in to every load host (in parallel), copying jload there where it is missing.
    pub fn connect(destinations: &[String]) -> anyhow::Result<LoadHosts> {
        let connected: Vec<anyhow::Result<LoadHost>> = std::thread::scope(|scope| {
            let handles: Vec<_> = destinations
                .iter()
                .map(|destination| {
                    scope.spawn(move || -> anyhow::Result<LoadHost> {
                        let silence_limit = silence_limit()?;
                        let ssh = Ssh::new(destination)?;
                        ssh.check()?;
                        let jload = ensure_jload(&ssh)?;
                        Ok(LoadHost { ssh, jload, silence_limit })
                    })
                })
                .collect();
            handles.into_iter().map(|handle| handle.join().expect("connect thread")).collect()
        });
        let hosts = connected.into_iter().collect::<anyhow::Result<Vec<_>>>().context("load host")?;
        Ok(LoadHosts { hosts })
    }
}

impl Generator for LoadHosts {
    fn run(&self, spec: &LoadSpec, options: &RunOptions) -> anyhow::Result<BenchResult> {
        let count = self.hosts.len();
        let shares = (0..count)
            .map(|index| {
                spec.share(count, index).map_err(|err| anyhow::anyhow!("[load] hosts: {}", err.describe(Setting::key)))
            })
            .collect::<anyhow::Result<Vec<LoadSpec>>>()?;
        let start_at = options.start_at.unwrap_or_else(|| SystemTime::now() + START_LEAD);
        let links = self
            .hosts
            .iter()
            .map(|host| AgentLink::open(&host.ssh, &host.jload, "load", host.silence_limit))
            .collect::<anyhow::Result<Vec<Arc<AgentLink>>>>()?;
        let parts = std::thread::scope(|scope| {
            let runs: Vec<_> = links
                .iter()
                .zip(&self.hosts)
                .zip(shares)
                .map(|((link, host), share)| {
                    scope.spawn(move || run_share(link, host.ssh.destination(), share, start_at))
                })
                .collect();
            let mut told_to_end = false;
            while !runs.iter().all(|run| run.is_finished()) {
                if !told_to_end && options.stop.load(Ordering::Relaxed) {
                    told_to_end = true;
                    for link in &links {
                        link.tell(&Request::EndLoad);
                    }
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            runs.into_iter().map(|run| run.join().expect("load host thread")).collect::<anyhow::Result<Vec<_>>>()
        })?;
        let mut merged = merge(&parts)?;
        merged.interrupted |= options.stop.load(Ordering::Relaxed);
        if let Some(path) = &options.hlog {
            write_result_log(&merged, Path::new(path))?;
        }
        Ok(merged)
    }
}

/// One host's share: its result with its slow requests, its start moved onto this machine's clock (the host's clock
/// offset measured over the connection), labelled with the host.
fn run_share(
    link: &AgentLink,
    destination: &str,
    share: LoadSpec,
    start_at: SystemTime,
) -> anyhow::Result<(String, BenchResult)> {
    let offset_us = link.clock_offset().map_or(0, |(offset, _)| offset);
    let job = LoadJob { spec: share, start_at_unix_us: unix_us(start_at) + offset_us };
    let answer = link.ask(&Request::Load(job), NO_ANSWER_LIMIT, |event| {
        matches!(event, Event::LoadDone { .. } | Event::LoadFailed { .. })
    });
    match answer {
        Some(Event::LoadDone { result, slow }) => {
            let mut result = *result;
            if let Some(info) = result.slow_requests {
                result.slow = SlowRequests::from_parts(info, slow);
            }
            result.start_unix_us = result.start_unix_us.map(|start| start - offset_us);
            Ok((destination.to_string(), result))
        }
        Some(Event::LoadFailed { message }) => anyhow::bail!("load host {destination}: {message}"),
        _ => anyhow::bail!("load host {destination}: {}", link.lost().unwrap_or_else(|| "no answer".to_string())),
    }
}
