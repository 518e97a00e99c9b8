//! The result of one load run as a plain serde value: what `--json` writes, what `jload run` stores per phase, and
//! what the reports read. Built from the merged worker recorders and the per-second series.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::histogram_codec;
use super::named_figures::NamedFigures;
use super::outcomes::{Capacity, Limit, Step};
use super::recorder::{IntervalCounts, Negotiated, Recorder, Tally};
use super::slow::{SlowRequests, SlowTailInfo};
use super::summary::{ErrorSummary, LatencySummary, ms};

/// Version of this JSON shape; bumped when a field changes meaning or disappears.
pub const RESULT_VERSION: u32 = 1;

/// How the connections were set up: how many became ready and how long that took (TCP connect plus TLS handshake),
/// and what TLS agreed on.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct ConnectionSetup {
    pub connections: u64,
    pub time_ms: LatencySummary,
    /// TLS: the protocol version, cipher suite and ALPN of the first handshake.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls: Option<Negotiated>,
    /// TLS: why the first failed handshake failed (rustls' words), when one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls_error: Option<String>,
}

/// One second of the run (the last row may be shorter).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct SeriesRow {
    /// Seconds since the start of the run at which this row begins.
    pub second: u64,
    pub duration_s: f64,
    pub requests: u64,
    pub errors: u64,
    pub rps: f64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
    /// This second's latency histogram (the interval the `.hlog` holds for it), base64 of HdrHistogram's V2 deflate
    /// encoding, microseconds. Absent from records written before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub histogram: Option<String>,
}

impl SeriesRow {
    /// The row of the second beginning `second` seconds into the run, lasting `length` seconds, that measured `counts`.
    pub fn of(second: u64, length: f64, counts: &IntervalCounts) -> SeriesRow {
        let latency = &counts.latency;
        let figure = |value: u64| if latency.is_empty() { 0.0 } else { ms(value) };
        SeriesRow {
            second,
            duration_s: length,
            requests: counts.requests,
            errors: counts.errors,
            rps: per_second(counts.requests, length),
            p50_ms: figure(latency.value_at_quantile(0.5)),
            p99_ms: figure(latency.value_at_quantile(0.99)),
            max_ms: figure(latency.max()),
            histogram: Some(histogram_codec::encode(latency)),
        }
    }
}

/// Every histogram a result's latency figures come from, each as base64 of HdrHistogram's V2 deflate encoding (the
/// `.hlog` encoding; microseconds): what lets results of several generators be merged exactly (see
/// [`super::merge`]), histograms added, never percentiles averaged.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct ResultHistograms {
    /// `latency_ms`'s.
    pub total: String,
    /// `latency_uncorrected_ms`'s (open model).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uncorrected: Option<String>,
    /// `latency_corrected_ms`'s (closed model).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub corrected: Option<String>,
    /// The generator's own slips (open model; see `generator`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slips: Option<String>,
    /// The latency of each request name, in the order of `per_request`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub per_request: Vec<String>,
    /// `connection_setup`'s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connects: Option<String>,
}

impl ResultHistograms {
    fn of(merged: &Recorder) -> ResultHistograms {
        ResultHistograms {
            total: histogram_codec::encode(&merged.total.latency),
            uncorrected: merged.uncorrected.as_ref().map(histogram_codec::encode),
            corrected: merged.corrected.as_ref().map(histogram_codec::encode),
            slips: merged.slips.as_ref().map(histogram_codec::encode),
            per_request: merged.per_request.iter().map(|tally| histogram_codec::encode(&tally.latency)).collect(),
            connects: Some(histogram_codec::encode(&merged.connects)),
        }
    }
}

/// One generator's own figures in a merged result: to spot one that was overloaded or far from the others.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct HostFigures {
    /// Where its result came from: its host, or its file.
    pub label: String,
    pub requests: u64,
    pub rps: f64,
    /// Its latency figures, fields of the JSON beside the others (`p50_ms`, `p99_ms`, `max_ms`: the registry's
    /// per-request columns, `figures::latency_figures(View::PerRequest)`).
    #[serde(flatten)]
    pub latency: NamedFigures,
    pub errors: u64,
    /// Open model: the CPU of its busiest worker thread, in percent of one core.
    pub busiest_thread_cpu_pct: Option<f64>,
    /// Open model: whose limit it hit, when it did not sustain its rate (see `limited_by`).
    pub limited_by: Option<Limit>,
}

/// Results of one request name in a mix.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RequestResult {
    pub name: String,
    pub requests: u64,
    pub rps: f64,
    pub latency_ms: LatencySummary,
    pub errors: ErrorSummary,
    pub status_codes: BTreeMap<String, u64>,
}

/// Whether a `--threshold` rule held.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ThresholdOutcome {
    pub expression: String,
    /// None when the run has no such figure (an error share when nothing was attempted): the rule failed.
    pub actual: Option<f64>,
    pub passed: bool,
}

/// Everything one load run measured.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct BenchResult {
    pub version: u32,
    /// The URL (or the first request's URL with a mix).
    pub url: String,
    /// "closed" (fixed concurrency) or "open" (fixed rate).
    pub model: String,
    pub connections: usize,
    /// HTTP/2: requests in flight per connection (`--streams`); 1 for HTTP/1.1. Absent from older records.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub streams: usize,
    pub threads: usize,
    /// Target rate of the open model, requests per second.
    pub rate: Option<f64>,
    /// Requests completed: a response of any status, or a timeout / read / write / invalid-response failure after
    /// sending.
    pub requests: u64,
    pub duration_s: f64,
    pub rps: f64,
    pub bytes_received: u64,
    pub bytes_sent: u64,
    /// Latency; in the open model measured from each request's intended send time (coordinated-omission corrected),
    /// less the generator's own part of its delay (its slip, in `generator`).
    /// It holds every answer, every timeout (its wait until the timeout expired), and the requests still waiting at
    /// the end — unfinished, and in the open model never sent — with their wait so far, a lower bound.
    pub latency_ms: LatencySummary,
    /// Open model only: latency measured from the actual send (answers, timeouts, unfinished requests).
    pub latency_uncorrected_ms: Option<LatencySummary>,
    /// Closed model only: latency corrected for coordinated omission — a response slower than its connection's recent
    /// mean service time also stands for the requests the connection would have sent meanwhile (see
    /// [`super::pause_correction`]). `latency_ms` stays the raw figure. Absent from records written before it existed.
    #[serde(default)]
    pub latency_corrected_ms: Option<LatencySummary>,
    /// Open model only: requests sent after their intended time because their connection was busy (target late; the
    /// generator's own slips are in `generator`).
    pub late: Option<u64>,
    pub errors: ErrorSummary,
    pub status_codes: BTreeMap<String, u64>,
    pub reconnects: u64,
    /// The connections' setup: count, time, TLS parameters. Absent from records written before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connection_setup: Option<ConnectionSetup>,
    /// Requests sent again on a new connection because the server had closed the old one before they reached it
    /// (they were not processed, so they are counted once).
    #[serde(default)]
    pub resent: u64,
    /// Per request name, only with a mix of several requests.
    pub per_request: Vec<RequestResult>,
    pub series: Vec<SeriesRow>,
    /// True when the run was stopped early (Ctrl-C).
    pub interrupted: bool,
    pub thresholds: Vec<ThresholdOutcome>,
    /// Open model: requests that fell due during the run (the schedule's count up to its end, capped by -n).
    #[serde(default)]
    pub due: Option<u64>,
    /// Open model: requests that fell due but were never sent (their connection was busy until the end).
    #[serde(default)]
    pub never_sent: u64,
    /// Requests sent but not answered when the run ended.
    #[serde(default)]
    pub unfinished: u64,
    /// The longest wait among the never-sent requests and among the unfinished ones at the end (from the intended
    /// send in the open model), in milliseconds; 0 when there were none.
    #[serde(default)]
    pub never_sent_longest_wait_ms: f64,
    #[serde(default)]
    pub unfinished_longest_wait_ms: f64,
    /// Open model: how well the generator kept its own schedule.
    #[serde(default)]
    pub generator: Option<GeneratorHealth>,
    /// Open model: whose limit the run hit when it did not sustain its rate or the generator could not keep it (see
    /// [`super::whose_limit::limited_by`]); None when it sustained the rate, and in the closed model.
    #[serde(default)]
    pub limited_by: Option<Limit>,
    /// A rate ladder or capacity search: each step, in the order run (empty for a single run).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<Step>,
    /// A capacity search: what it found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity: Option<Capacity>,
    /// A rate ladder or capacity search: its warm-up until steady, the check after its last step, and whether the
    /// target changed under its steps (None when the rule was off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steadiness: Option<super::outcomes::Steadiness>,
    /// Wall-clock time of the run's start instant (microseconds since the Unix epoch): the origin of the series, the
    /// interval log and the slow requests' times.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_unix_us: Option<i64>,
    /// The slow requests one by one (see [`super::slow`]); not in the JSON (a plan phase writes them to their own
    /// file), which says how many were kept above which threshold in `slow_requests`.
    #[serde(skip)]
    pub slow: SlowRequests,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slow_requests: Option<SlowTailInfo>,
    /// Every histogram the latency figures come from (absent from records written before they were kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub histograms: Option<ResultHistograms>,
    /// A merged result (see [`super::merge`]): each generator's own figures, in the order merged.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<HostFigures>,
}

/// How well the generator kept its own schedule in the open model: its own part of each send's delay (the slip, which
/// the latency leaves out), and the CPU of its busiest thread. A saturated thread, or slips with the rate short, mean
/// the generator, not the target, set the pace.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq)]
pub struct GeneratorHealth {
    /// Sends the generator itself made later than their intended time, on a connection that was free, by more than
    /// its tolerance ([`super::recorder::SLIP_TOLERANCE_US`], 1 ms).
    pub slipped: u64,
    pub slip_p99_ms: f64,
    pub slip_max_ms: f64,
    /// CPU time of the busiest worker thread over the run, in percent of one core.
    pub busiest_thread_cpu_pct: f64,
    /// The largest share of the run a worker thread was not waiting for events — working, or ready to work and
    /// waiting for a CPU the machine gave to others — in percent. Near 100 the generator never waited for the target.
    #[serde(default)]
    pub busiest_thread_busy_pct: f64,
}

fn one() -> usize {
    1
}

fn is_one(value: &usize) -> bool {
    *value == 1
}

/// Facts about the run that the recorders do not hold.
pub struct RunFacts {
    pub url: String,
    pub connections: usize,
    /// Requests in flight per connection (HTTP/2's streams; 1 for HTTP/1.1).
    pub streams: usize,
    pub threads: usize,
    pub rate: Option<f64>,
    pub duration_s: f64,
    pub request_names: Vec<String>,
    pub series: Vec<SeriesRow>,
    pub interrupted: bool,
    /// Wall-clock time of the run's start instant, µs since the Unix epoch.
    pub start_unix_us: Option<i64>,
}

/// The slow requests a result keeps: the slowest 5 % of the requests (at least 1,000), which hold the p99 and p99.9
/// tails whole and are the points of a run's slow-request chart.
fn slow_tail(store: &SlowRequests) -> SlowRequests {
    let mut tail = store.clone();
    tail.keep_slowest((store.offered / 20).max(1_000) as usize);
    tail
}

fn status_map(codes: &[u64]) -> BTreeMap<String, u64> {
    codes.iter().enumerate().filter(|(_, count)| **count > 0).map(|(code, count)| (code.to_string(), *count)).collect()
}

/// How well the generator kept the open model's schedule: its slips and its busiest thread's CPU.
fn generator_health(merged: &Recorder) -> GeneratorHealth {
    let slips = merged.slips.as_ref().filter(|slips| !slips.is_empty());
    GeneratorHealth {
        slipped: merged.slipped,
        slip_p99_ms: slips.map_or(0.0, |slips| ms(slips.value_at_quantile(0.99))),
        slip_max_ms: slips.map_or(0.0, |slips| ms(slips.max())),
        busiest_thread_cpu_pct: merged.busiest_thread_cpu_pct,
        busiest_thread_busy_pct: merged.busiest_thread_busy_pct,
    }
}

fn per_second(count: u64, seconds: f64) -> f64 {
    if seconds > 0.0 { count as f64 / seconds } else { 0.0 }
}

fn request_result(name: &str, tally: &Tally, duration_s: f64) -> RequestResult {
    RequestResult {
        name: name.to_string(),
        requests: tally.requests,
        rps: per_second(tally.requests, duration_s),
        latency_ms: LatencySummary::from_histogram(&tally.latency),
        errors: ErrorSummary::of(tally),
        status_codes: status_map(&tally.status_codes),
    }
}

impl BenchResult {
    pub fn build(merged: &Recorder, facts: RunFacts) -> BenchResult {
        let slow = slow_tail(&merged.slow);
        let total = &merged.total;
        let per_request = facts
            .request_names
            .iter()
            .zip(&merged.per_request)
            .map(|(name, tally)| request_result(name, tally, facts.duration_s))
            .collect();
        BenchResult {
            version: RESULT_VERSION,
            url: facts.url,
            model: if facts.rate.is_some() { "open" } else { "closed" }.to_string(),
            connections: facts.connections,
            streams: facts.streams,
            threads: facts.threads,
            rate: facts.rate,
            requests: total.requests,
            duration_s: facts.duration_s,
            rps: per_second(total.requests, facts.duration_s),
            bytes_received: merged.bytes_received,
            bytes_sent: merged.bytes_sent,
            latency_ms: LatencySummary::from_histogram(&total.latency),
            latency_uncorrected_ms: merged.uncorrected.as_ref().map(LatencySummary::from_histogram),
            latency_corrected_ms: merged.corrected.as_ref().map(LatencySummary::from_histogram),
            late: facts.rate.map(|_| merged.late),
            errors: ErrorSummary::of(total),
            status_codes: status_map(&total.status_codes),
            reconnects: merged.reconnects,
            connection_setup: Some(ConnectionSetup {
                connections: merged.connects.len(),
                time_ms: LatencySummary::from_histogram(&merged.connects),
                tls: merged.negotiated.clone(),
                tls_error: merged.tls_error.clone(),
            }),
            resent: merged.resent,
            per_request,
            series: facts.series,
            interrupted: facts.interrupted,
            thresholds: Vec::new(),
            due: facts.rate.map(|_| merged.due),
            never_sent: merged.never_sent.count,
            unfinished: merged.unfinished.count,
            never_sent_longest_wait_ms: ms(merged.never_sent.longest_us),
            unfinished_longest_wait_ms: ms(merged.unfinished.longest_us),
            generator: facts.rate.map(|_| generator_health(merged)),
            limited_by: None,
            steps: Vec::new(),
            capacity: None,
            steadiness: None,
            start_unix_us: facts.start_unix_us,
            slow_requests: Some(slow.info()),
            slow,
            histograms: Some(ResultHistograms::of(merged)),
            hosts: Vec::new(),
        }
    }

    /// The result without its histograms (`histograms`, each second's `histogram`): for a summary of many results,
    /// which the figures suffice for; each result's own record keeps them.
    pub fn without_histograms(mut self) -> BenchResult {
        self.histograms = None;
        self.series.iter_mut().for_each(|row| row.histogram = None);
        self
    }

    /// Latency corrected for coordinated omission: from the due time in the open model, with the requests a waiting
    /// connection did not send in the closed model. None for a closed-model record written before the correction.
    pub fn corrected_latency(&self) -> Option<&LatencySummary> {
        if self.rate.is_some() { Some(&self.latency_ms) } else { self.latency_corrected_ms.as_ref() }
    }

    /// Latency measured from each request's actual send, as a closed-model tool (wrk, ab, JMeter) reports it.
    pub fn uncorrected_latency(&self) -> Option<&LatencySummary> {
        if self.rate.is_some() { self.latency_uncorrected_ms.as_ref() } else { Some(&self.latency_ms) }
    }

    /// How many requests the load could have in flight at once: connections × streams.
    pub fn request_slots(&self) -> usize {
        self.connections * self.streams
    }

    /// The connections as the printout and reasons name them: "50 connections", or "4 connections × 10 streams".
    pub fn describe_connections(&self) -> String {
        match self.streams {
            1 => format!("{} connections", self.connections),
            streams => format!("{} connections × {streams} HTTP/2 streams", self.connections),
        }
    }

    /// Requests that got a 2xx/3xx response.
    pub fn successes(&self) -> u64 {
        self.requests.saturating_sub(self.errors.total - self.errors.connection_failures())
    }

    /// Errors as a share of the attempts (requests completed plus connections that failed), in percent; None when
    /// nothing was attempted, which has no share (a threshold on it fails, a report shows no figure). The one
    /// definition for the bench summary, thresholds, `[slo]` and every report.
    pub fn error_pct(&self) -> Option<f64> {
        let attempts = self.requests + self.errors.connection_failures();
        (attempts > 0).then(|| self.errors.total as f64 * 100.0 / attempts as f64)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::load::record::recorder::{Failure, LeftWaiting};

    /// The result of a one-second run of one request name that recorded what `recorder` holds.
    pub(crate) fn result_of(recorder: &Recorder) -> BenchResult {
        let facts = RunFacts {
            url: "http://127.0.0.1:1/".to_string(),
            connections: 1,
            streams: 1,
            threads: 1,
            rate: None,
            duration_s: 1.0,
            request_names: vec!["get".to_string()],
            series: Vec::new(),
            interrupted: false,
            start_unix_us: None,
        };
        BenchResult::build(recorder, facts)
    }

    #[test]
    fn the_error_share_counts_failed_connections_as_attempts() {
        let mut recorder = Recorder::new(1, false);
        for _ in 0..6 {
            recorder.response(0, 100, 100, 200, true);
        }
        recorder.response(0, 100, 100, 500, false);
        recorder.failure(0, Failure::Timeout);
        recorder.connection_failure(Failure::Connect);
        recorder.connection_failure(Failure::Connect);
        // 8 requests completed and 2 connections failed: 4 errors of 10 attempts.
        assert_eq!(result_of(&recorder).error_pct(), Some(40.0));
    }

    #[test]
    fn a_closed_model_result_has_raw_and_pause_corrected_latency() {
        let mut recorder = Recorder::new(1, false);
        let mut merged = Recorder::new(1, false);
        for _ in 0..98 {
            recorder.response(0, 1_000, 1_000, 200, true);
            recorder.pause_corrected_response(1_000, 1_000);
        }
        // One 100 ms wait on a connection answering every millisecond: it also stands for 98 requests not sent.
        recorder.response(0, 100_000, 100_000, 200, true);
        recorder.pause_corrected_response(100_000, 1_000);
        merged.merge(&recorder);
        let result = result_of(&merged);
        assert_eq!(result.latency_ms.p90, 1.0);
        let corrected = result.latency_corrected_ms.expect("closed model");
        // 99 values of 1 ms (98 raw, 1 added) and 2, 3, … 100 ms: the 179th of 198 is 81 ms (to the histogram's 3
        // significant digits).
        assert!((corrected.p90 - 81.0).abs() < 0.1, "corrected p90 {}", corrected.p90);
        assert_eq!(corrected.max, result.latency_ms.max);
        assert_eq!(result.uncorrected_latency(), Some(&result.latency_ms));
        assert_eq!(result.corrected_latency(), Some(&corrected));
    }

    #[test]
    fn the_open_model_records_no_pause_correction() {
        let mut recorder = Recorder::new(1, true);
        recorder.pause_corrected_response(100_000, 1_000);
        assert!(recorder.corrected.is_none());
        assert_eq!(result_of(&recorder).latency_corrected_ms, None);
    }

    #[test]
    fn an_open_model_result_carries_what_was_left_waiting_and_the_generators_health() {
        let mut recorder = Recorder::new(1, true);
        recorder.response(0, 1_000, 800, 200, true);
        let left = |wait_us: u64| LeftWaiting { wait_us, service_us: 0, ended_us: 2_500_000 };
        recorder.unfinished_at_end(0, left(2_500_000), 0);
        recorder.never_sent_at_end(left(1_999_000), 0);
        recorder.slip(300);
        recorder.slip(4_000);
        (recorder.due, recorder.busiest_thread_cpu_pct, recorder.busiest_thread_busy_pct) = (3, 35.0, 40.0);
        let facts = RunFacts {
            url: "http://127.0.0.1:1/".to_string(),
            connections: 1,
            streams: 1,
            threads: 1,
            rate: Some(3.0),
            duration_s: 1.0,
            request_names: vec!["get".to_string()],
            series: Vec::new(),
            interrupted: false,
            start_unix_us: None,
        };
        let result = BenchResult::build(&recorder, facts);
        assert_eq!((result.due, result.requests, result.unfinished, result.never_sent), (Some(3), 1, 1, 1));
        assert_eq!((result.unfinished_longest_wait_ms, result.never_sent_longest_wait_ms), (2_500.0, 1_999.0));
        let health = result.generator.expect("open model");
        assert_eq!((health.slipped, health.busiest_thread_cpu_pct, health.busiest_thread_busy_pct), (1, 35.0, 40.0));
        assert!((health.slip_max_ms - 4.0).abs() < 0.01, "{}", health.slip_max_ms);
        // The percentiles hold the answer and both waits; the rate holds only the answer.
        assert!((result.latency_ms.max - 2_500.0).abs() < 2.0, "{}", result.latency_ms.max);
        assert_eq!(result.rps, 1.0);
    }

    #[test]
    fn a_closed_model_result_has_no_schedule_and_no_generator_block() {
        let result = result_of(&Recorder::new(1, false));
        assert_eq!((result.due, result.generator, result.limited_by), (None, None, None));
    }

    #[test]
    fn a_result_without_histograms_keeps_every_figure() {
        let mut recorder = Recorder::new(1, false);
        recorder.response(0, 2_000, 2_000, 200, true);
        let mut result = result_of(&recorder);
        result.series = vec![SeriesRow::of(0, 1.0, &recorder.take_interval())];
        assert!(result.histograms.is_some() && result.series[0].histogram.is_some());
        let stripped = result.clone().without_histograms();
        assert_eq!((stripped.histograms.as_ref(), stripped.series[0].histogram.as_ref()), (None, None));
        let figures = |result: &BenchResult| (result.requests, result.latency_ms, result.series[0].p99_ms);
        assert_eq!(figures(&stripped), figures(&result));
    }

    #[test]
    fn nothing_attempted_has_no_error_share() {
        assert_eq!(result_of(&Recorder::new(1, false)).error_pct(), None);
    }
}
