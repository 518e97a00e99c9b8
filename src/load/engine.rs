//! Runs a [`LoadSpec`]: starts the worker threads, starts the clock once every connection is up, gathers each second's
//! measurements into the series (and the HdrHistogram interval log), shows progress, and merges the final result.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Barrier, OnceLock};
use std::time::{Duration, Instant, SystemTime};

use indicatif::{ProgressBar, ProgressStyle};

use super::connections::open_files::ensure_open_files;
use super::connections::start_at;
use super::connections::wire::WireKind;
use super::connections::worker::{Assignment, Shared, WorkerMessage};
use super::input::request::RequestSet;
use super::input::spec::{LoadSpec, even_share};
use super::record::hlog::HlogFile;
use super::record::recorder::IntervalCounts;
use super::record::result::{BenchResult, RunFacts, SeriesRow};
use super::record::whose_limit::limited_by;
use crate::cpuset::CpuSet;
use crate::error::bad_input;

/// How the run is observed, beyond its result.
#[derive(Default)]
pub struct RunOptions {
    /// Show a live progress line on stderr.
    pub progress: bool,
    /// Write an HdrHistogram interval log here (written to a temporary name, then renamed).
    pub hlog: Option<PathBuf>,
    /// Setting this flag ends the run early (Ctrl-C).
    pub stop: Arc<AtomicBool>,
    /// Start the run's clock at this wall-clock instant, once every connection is up, so that several generators
    /// start together (see [`super::connections::start_at`]); None: as soon as the connections are up.
    pub start_at: Option<SystemTime>,
    /// Pin every worker thread to these CPUs (checked before any starts).
    pub cpus: Option<CpuSet>,
}

/// Run the load described by `spec`.
pub fn run(spec: &LoadSpec, options: &RunOptions) -> anyhow::Result<BenchResult> {
    // The front ends check through `LoadInput::into_spec`; a spec built another way is checked by the same rule.
    spec.check_limits().map_err(|err| bad_input(err.to_string()))?;
    if let Some(at) = options.start_at {
        start_at::check(at, SystemTime::now()).map_err(bad_input)?;
    }
    let set = RequestSet::compile(&spec.requests)?;
    if let Some(cpus) = &options.cpus {
        cpus.check_available().map_err(|err| bad_input(format!("load CPUs {cpus}: {err}")))?;
    }
    let threads = spec.threads.min(spec.connections);
    ensure_open_files(spec.connections, threads)?;
    let request_names = set.requests.iter().map(|request| request.name.clone()).collect();
    let protocol = spec.protocol.resolved(&set.endpoint, spec.timeout)?;
    let security = protocol.security(&set.endpoint)?;
    let wire = WireKind::of(&protocol, &set.endpoint);
    let lanes_per_connection = wire.lanes_per_connection(protocol.streams);
    let shared = Shared {
        security,
        lanes_per_connection,
        total_lanes: spec.connections * lanes_per_connection,
        set,
        rate: spec.rate,
        schedule_phase: spec.schedule_phase,
        max_requests: spec.stop.requests,
        duration: spec.stop.duration,
        timeout: spec.timeout,
        ok_status: spec.ok_status.clone(),
        stop: options.stop.clone(),
        barrier: Barrier::new(threads + 1),
        start: OnceLock::new(),
    };
    let (sender, receiver) = mpsc::channel();
    let mut hlog = HlogFile::create(options.hlog.as_deref())?;
    let mut start_unix_us = 0;
    let mut late = None;
    let (recorders, collected) = std::thread::scope(|scope| -> anyhow::Result<_> {
        let mut handles = Vec::new();
        let mut first_lane = 0;
        for index in 0..threads {
            let connections = even_share(spec.connections, threads, index);
            let quota = match (spec.rate, spec.stop.requests) {
                (None, Some(total)) => Some(even_share(total as usize, threads, index) as u64),
                _ => None,
            };
            let assignment = Assignment { index, first_lane, connections, quota };
            first_lane += connections * lanes_per_connection;
            let sender = sender.clone();
            let shared = &shared;
            let cpus = options.cpus.as_ref();
            let handle =
                std::thread::Builder::new().name(format!("jload-worker-{index}")).spawn_scoped(scope, move || {
                    // A worker that cannot pin itself still meets the others at the start (the coordinator waits
                    // for every one), but stops the run at once and reports why.
                    let pinned = cpus.map_or(Ok(()), CpuSet::pin_current_thread);
                    if pinned.is_err() {
                        shared.stop.store(true, Ordering::Relaxed);
                    }
                    let recorder = wire.run_worker(shared, assignment, sender);
                    pinned
                        .map_err(|err| std::io::Error::new(err.kind(), format!("cannot pin a load worker: {err}")))?;
                    recorder
                })?;
            handles.push(handle);
        }
        drop(sender);
        shared.barrier.wait();
        let (start, start_time) = start_at::wait_until(options.start_at).unwrap_or_else(|behind| {
            // Too late to start together with the others: the workers are released to stop at once.
            late = Some(behind);
            options.stop.store(true, Ordering::Relaxed);
            (Instant::now(), SystemTime::now())
        });
        start_unix_us = unix_us(start_time);
        shared.start.set(start).expect("start is set once");
        shared.barrier.wait();
        hlog.begin(start_time)?;
        let progress = options.progress.then(|| ProgressLine::new(spec));
        let collected = collect(&receiver, threads, start, progress.as_ref(), &mut hlog)?;
        if let Some(progress) = progress {
            progress.bar.finish_and_clear();
        }
        let mut recorders = Vec::new();
        for handle in handles {
            let recorder = handle.join().map_err(|_| anyhow::anyhow!("a load worker thread panicked"))??;
            recorders.push(recorder);
        }
        Ok((recorders, collected))
    })?;
    if let Some(behind) = late {
        hlog.discard();
        anyhow::bail!(
            "connecting took until {} ms past the start time {}: give a later start time",
            behind.as_millis(),
            humantime::format_rfc3339_micros(options.start_at.expect("only a start time can be missed"))
        );
    }
    hlog.finish()?;
    let mut merged = recorders[0].clone();
    for recorder in &recorders[1..] {
        merged.merge(recorder);
    }
    let facts = RunFacts {
        url: spec.requests[0].url.clone(),
        connections: spec.connections,
        streams: lanes_per_connection,
        threads,
        rate: spec.rate,
        duration_s: collected.duration.as_secs_f64(),
        request_names,
        series: collected.series,
        interrupted: options.stop.load(Ordering::Relaxed),
        start_unix_us: Some(start_unix_us),
    };
    let mut result = BenchResult::build(&merged, facts);
    result.limited_by = spec.rate.and_then(|rate| limited_by(&result, rate));
    Ok(result)
}

/// Microseconds since the Unix epoch.
pub fn unix_us(time: SystemTime) -> i64 {
    time.duration_since(std::time::UNIX_EPOCH).map_or(0, |since| i64::try_from(since.as_micros()).unwrap_or(i64::MAX))
}

struct Collected {
    series: Vec<SeriesRow>,
    duration: Duration,
}

/// Gather interval messages until every worker is done; merge each second once all workers have reported it.
/// Only the seconds still being reported and the last complete one are held, so memory stays flat.
fn collect(
    receiver: &Receiver<WorkerMessage>,
    workers: usize,
    start: Instant,
    progress: Option<&ProgressLine>,
    hlog: &mut HlogFile,
) -> anyhow::Result<Collected> {
    let mut pending: BTreeMap<u64, IntervalCounts> = BTreeMap::new();
    let mut reported: Vec<Option<u64>> = vec![None; workers];
    let mut done = vec![false; workers];
    let mut end = start;
    let mut series = Vec::new();
    // The newest complete second, written once the next one completes (the last one may be shorter than 1 s).
    let mut held: Option<(u64, IntervalCounts)> = None;
    while done.iter().any(|finished| !finished) {
        match receiver.recv_timeout(Duration::from_millis(200)) {
            Ok(WorkerMessage::Interval { worker, second, counts }) => {
                reported[worker] = Some(second);
                match pending.get_mut(&second) {
                    Some(merged) => {
                        merged.latency.add(&counts.latency).expect("same histogram bounds");
                        merged.requests += counts.requests;
                        merged.errors += counts.errors;
                    }
                    None => {
                        pending.insert(second, counts);
                    }
                }
            }
            Ok(WorkerMessage::Done { worker, end: worker_end }) => {
                done[worker] = true;
                end = end.max(worker_end);
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => break,
        }
        while let Some((&second, _)) = pending.first_key_value() {
            let complete =
                (0..workers).all(|worker| done[worker] || reported[worker].is_some_and(|upto| upto >= second));
            if !complete {
                break;
            }
            let counts = pending.remove(&second).expect("present");
            if let Some(progress) = progress {
                progress.second_done(second, &counts);
            }
            if let Some((previous, previous_counts)) = held.replace((second, counts)) {
                hlog.write(&previous_counts.latency, Duration::from_secs(previous), Duration::from_secs(1))?;
                series.push(SeriesRow::of(previous, 1.0, &previous_counts));
            }
        }
    }
    let duration = end.saturating_duration_since(start);
    if let Some((second, counts)) = held {
        let length = (duration.as_secs_f64() - second as f64).clamp(0.0, 1.0);
        hlog.write(&counts.latency, Duration::from_secs(second), Duration::from_secs_f64(length))?;
        series.push(SeriesRow::of(second, length, &counts));
    }
    Ok(Collected { series, duration })
}

/// The live progress line.
struct ProgressLine {
    bar: ProgressBar,
    by_requests: bool,
    requests: std::cell::Cell<u64>,
    errors: std::cell::Cell<u64>,
}

impl ProgressLine {
    fn new(spec: &LoadSpec) -> ProgressLine {
        let (length, by_requests, unit) = match (spec.stop.duration, spec.stop.requests) {
            (Some(duration), _) => (duration.as_secs().max(1), false, "s"),
            (None, requests) => (requests.unwrap_or(0), true, " req"),
        };
        let bar = ProgressBar::new(length);
        let template = format!("{{elapsed:>4}} [{{bar:30}}] {{pos}}/{{len}}{unit}  {{msg}}");
        bar.set_style(ProgressStyle::with_template(&template).expect("valid template").progress_chars("=> "));
        bar.enable_steady_tick(Duration::from_millis(200));
        ProgressLine { bar, by_requests, requests: 0.into(), errors: 0.into() }
    }

    fn second_done(&self, second: u64, counts: &IntervalCounts) {
        self.requests.set(self.requests.get() + counts.requests);
        self.errors.set(self.errors.get() + counts.errors);
        self.bar.set_position(if self.by_requests { self.requests.get() } else { second + 1 });
        self.bar.set_message(format!(
            "{} requests, {} req/s, {} errors",
            self.requests.get(),
            counts.requests,
            self.errors.get()
        ));
    }
}
