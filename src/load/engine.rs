//! Runs a [`LoadSpec`]: starts the worker threads, starts the clock once every connection is up, gathers each second's
//! measurements into the series (and the HdrHistogram interval log), shows progress, and merges the final result.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Barrier, OnceLock};
use std::time::{Duration, Instant, SystemTime};

use hdrhistogram::serialization::V2DeflateSerializer;
use hdrhistogram::serialization::interval_log::{IntervalLogWriter, IntervalLogWriterBuilder};
use indicatif::{ProgressBar, ProgressStyle};

use super::limit::limited_by;
use super::limits::ensure_open_files;
use super::recorder::IntervalCounts;
use super::request::RequestSet;
use super::result::{BenchResult, RunFacts, SeriesRow};
use super::spec::LoadSpec;
use super::worker::{Assignment, Shared, WorkerMessage, run_worker};
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
    /// Pin every worker thread to these CPUs (checked before any starts).
    pub cpus: Option<CpuSet>,
}

/// Run the load described by `spec`.
pub fn run(spec: &LoadSpec, options: &RunOptions) -> anyhow::Result<BenchResult> {
    // The front ends check through `LoadInput::into_spec`; a spec built another way is checked by the same rule.
    spec.check_limits().map_err(|err| bad_input(err.to_string()))?;
    let set = RequestSet::compile(&spec.requests)?;
    if let Some(cpus) = &options.cpus {
        cpus.check_available().map_err(|err| bad_input(format!("load CPUs {cpus}: {err}")))?;
    }
    let threads = spec.threads.min(spec.connections);
    ensure_open_files(spec.connections, threads)?;
    let request_names = set.requests.iter().map(|request| request.name.clone()).collect();
    let shared = Shared {
        set,
        total_connections: spec.connections,
        rate: spec.rate,
        max_requests: spec.stop.requests,
        duration: spec.stop.duration,
        timeout: spec.timeout,
        ok_status: spec.ok_status.clone(),
        stop: options.stop.clone(),
        barrier: Barrier::new(threads + 1),
        start: OnceLock::new(),
    };
    let (sender, receiver) = mpsc::channel();
    let mut hlog = HlogFile::create(options.hlog.as_ref())?;
    let mut start_unix_us = 0;
    let (recorders, collected) = std::thread::scope(|scope| -> anyhow::Result<_> {
        let mut handles = Vec::new();
        let mut first_connection = 0;
        for index in 0..threads {
            let connections = share(spec.connections, threads, index);
            let quota = match (spec.rate, spec.stop.requests) {
                (None, Some(total)) => Some(share(total as usize, threads, index) as u64),
                _ => None,
            };
            let assignment = Assignment { index, first_connection, connections, quota };
            first_connection += connections;
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
                    let recorder = run_worker(shared, assignment, sender);
                    pinned
                        .map_err(|err| std::io::Error::new(err.kind(), format!("cannot pin a load worker: {err}")))?;
                    recorder
                })?;
            handles.push(handle);
        }
        drop(sender);
        shared.barrier.wait();
        let start = Instant::now();
        start_unix_us = unix_us(SystemTime::now());
        shared.start.set(start).expect("start is set once");
        shared.barrier.wait();
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
    hlog.finish()?;
    let mut merged = recorders[0].clone();
    for recorder in &recorders[1..] {
        merged.merge(recorder);
    }
    let facts = RunFacts {
        url: spec.requests[0].url.clone(),
        connections: spec.connections,
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

/// Worker `index`'s share of `total` split as evenly as possible among `parts`.
fn share(total: usize, parts: usize, index: usize) -> usize {
    total / parts + usize::from(index < total % parts)
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
                series.push(series_row(previous, 1.0, &previous_counts));
            }
        }
    }
    let duration = end.saturating_duration_since(start);
    if let Some((second, counts)) = held {
        let length = (duration.as_secs_f64() - second as f64).clamp(0.0, 1.0);
        hlog.write(&counts.latency, Duration::from_secs(second), Duration::from_secs_f64(length))?;
        series.push(series_row(second, length, &counts));
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

fn series_row(second: u64, length: f64, counts: &IntervalCounts) -> SeriesRow {
    let ms = |micros: u64| micros as f64 / 1000.0;
    let empty = counts.latency.is_empty();
    SeriesRow {
        second,
        duration_s: length,
        requests: counts.requests,
        errors: counts.errors,
        rps: if length > 0.0 { counts.requests as f64 / length } else { 0.0 },
        p50_ms: if empty { 0.0 } else { ms(counts.latency.value_at_quantile(0.5)) },
        p99_ms: if empty { 0.0 } else { ms(counts.latency.value_at_quantile(0.99)) },
        max_ms: if empty { 0.0 } else { ms(counts.latency.max()) },
    }
}

/// The optional HdrHistogram interval log, streamed to a temporary file and renamed when complete.
struct HlogFile {
    target: Option<(PathBuf, PathBuf, BufWriter<File>)>,
    serializer: V2DeflateSerializer,
}

impl HlogFile {
    fn create(path: Option<&PathBuf>) -> anyhow::Result<HlogFile> {
        let mut hlog = HlogFile { target: None, serializer: V2DeflateSerializer::new() };
        let Some(path) = path else { return Ok(hlog) };
        let mut temporary = path.clone().into_os_string();
        temporary.push(".tmp");
        let temporary = PathBuf::from(temporary);
        let file = File::create(&temporary)
            .map_err(|err| bad_input(format!("cannot write --hlog {}: {err}", path.display())))?;
        let mut file = BufWriter::new(file);
        let now = SystemTime::now();
        IntervalLogWriterBuilder::new()
            .add_comment(&format!("jload {} latency interval log, values in microseconds", env!("CARGO_PKG_VERSION")))
            .with_start_time(now)
            .with_base_time(now)
            .with_max_value_divisor(1000.0)
            .begin_log_with(&mut file, &mut hlog.serializer)?;
        file.write_all(b"\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n")?;
        hlog.target = Some((path.clone(), temporary, file));
        Ok(hlog)
    }

    fn write(
        &mut self,
        histogram: &hdrhistogram::Histogram<u64>,
        start: Duration,
        length: Duration,
    ) -> anyhow::Result<()> {
        let Some((_, _, file)) = &mut self.target else { return Ok(()) };
        // A builder with no headers writes nothing itself: this just appends one interval line.
        let mut writer: IntervalLogWriter<'_, '_, BufWriter<File>, V2DeflateSerializer> =
            IntervalLogWriterBuilder::new().begin_log_with(file, &mut self.serializer)?;
        writer
            .write_histogram(histogram, start, length, None)
            .map_err(|err| anyhow::anyhow!("cannot write an hlog interval: {err}"))?;
        Ok(())
    }

    fn finish(self) -> anyhow::Result<()> {
        let Some((path, temporary, file)) = self.target else { return Ok(()) };
        let finish = || -> std::io::Result<()> {
            file.into_inner().map_err(|err| err.into_error())?.sync_all()?;
            std::fs::rename(&temporary, &path)
        };
        finish().map_err(|err| anyhow::anyhow!("cannot write --hlog {}: {err}", path.display()))
    }
}
