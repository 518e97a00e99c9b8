//! What one worker thread records: latency histograms (whole run, current second, per request name), outcome counters,
//! status codes, the generator's own schedule slips, and the requests left waiting when the run ended. Nothing is
//! stored per request, so memory stays flat however many requests are sent.

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

use super::pause_correction::record_corrected;
use super::slow::{CAPACITY_PER_THREAD, SlowRequest, SlowRequests};

/// Largest latency recorded exactly (one hour, in microseconds); longer ones are clamped.
pub const MAX_LATENCY_US: u64 = 3_600_000_000;
/// Open model: a send counts as slipped when the generator's own part of its delay (see the worker's
/// `count_lateness`) exceeds this. One millisecond is far above a healthy event loop's wake-up jitter (tens of microseconds, a few
/// hundred on a loaded machine) and below any latency objective worth setting, so a slip past it is the generator's
/// own delay (which the latency leaves out).
pub const SLIP_TOLERANCE_US: u64 = 1_000;
const SIGNIFICANT_DIGITS: u8 = 3;

/// What the handshake agreed on, for the result's header.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Negotiated {
    pub version: String,
    pub cipher: String,
    /// The ALPN protocol the server chose, if any.
    pub alpn: Option<String>,
}

/// Why a TLS handshake failed: the classes of the error table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TlsFailure {
    /// The server's certificate was refused (expired, unknown issuer, wrong name, …).
    Certificate,
    /// The server sent a fatal alert (it refused us: no common protocol or cipher, a client certificate required, …).
    Alert,
    /// Anything else: the server closed the connection, or sent what is not TLS.
    Handshake,
}

impl TlsFailure {
    pub fn of(err: &rustls::Error) -> TlsFailure {
        match err {
            rustls::Error::InvalidCertificate(_) => TlsFailure::Certificate,
            rustls::Error::AlertReceived(_) => TlsFailure::Alert,
            _ => TlsFailure::Handshake,
        }
    }
}

pub fn new_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, MAX_LATENCY_US, SIGNIFICANT_DIGITS).expect("valid histogram bounds")
}

/// Whether the wait of a request left waiting at the end enters the latency histograms: when it is longer than its
/// connection's usual answer (`usual_us`, the moving mean of its recent service times; 0 before any answer). Such a
/// request is known to be slower than usual, and its wait is a lower bound of a tail latency. One that waited less
/// would most likely have been answered as usual: its partial wait says nothing about the tail and would only drag
/// down the minimum and the low percentiles (every run with a duration ends with such requests in flight).
pub fn tells_about_the_tail(wait_us: u64, usual_us: u64) -> bool {
    wait_us > usual_us
}

/// The request index a never-sent request has among the slow requests: none was picked for it.
pub const NEVER_SENT: u16 = u16::MAX;

/// A request left waiting when the run ended: its wait so far (from its intended send), from its actual send (0 when
/// never sent), and the run's end on its clock (µs since the engine's start instant).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LeftWaiting {
    pub wait_us: u64,
    pub service_us: u64,
    pub ended_us: u64,
}

impl LeftWaiting {
    fn slow_request(self, request: usize) -> SlowRequest {
        SlowRequest::at(request, self.ended_us, self.wait_us, self.service_us, false)
    }
}

/// Errors by class: the one list of the classes, which a result's `errors` (`result::ErrorSummary`) holds flattened
/// into its JSON beside their total. `status` counts responses whose code is not a success (4xx/5xx by default),
/// `invalid_response` responses that are not valid HTTP, `read` the other failures to read an answer (a reset, a close
/// before the answer was complete). The connection classes (`connect` and the TLS handshake's) count connections that
/// never carried a request, the others requests.
#[derive(Debug, Default, Clone, Copy, Serialize, Deserialize, PartialEq)]
pub struct ErrorCounts {
    pub connect: u64,
    /// TLS handshakes that failed: certificate refused, fatal alert from the server, anything else. Absent from
    /// records written before TLS.
    #[serde(default)]
    pub tls_handshake: u64,
    #[serde(default)]
    pub tls_certificate: u64,
    #[serde(default)]
    pub tls_alert: u64,
    pub timeout: u64,
    pub read: u64,
    pub write: u64,
    /// Responses with a 4xx or 5xx status.
    pub status: u64,
    /// Responses that are not valid HTTP: not HTTP/1.x, a head over a bound, a bad chunk, a Content-Length that is not
    /// one number; over HTTP/2, a protocol error in what the server sent. Absent from records written before it.
    #[serde(default)]
    pub invalid_response: u64,
}

impl ErrorCounts {
    /// Every class with the name outputs give it, in the order they list them: the one list of the classes.
    /// `invalid response` comes last, so that a description can end with its reason (`ErrorSummary::describe`).
    pub fn by_class(&self) -> [(&'static str, u64); 9] {
        [
            ("connect", self.connect),
            ("tls handshake", self.tls_handshake),
            ("tls certificate", self.tls_certificate),
            ("tls alert", self.tls_alert),
            ("timeout", self.timeout),
            ("read", self.read),
            ("write", self.write),
            ("status", self.status),
            ("invalid response", self.invalid_response),
        ]
    }

    pub fn total(&self) -> u64 {
        self.by_class().iter().map(|(_, count)| count).sum()
    }

    /// Connections that failed before carrying a request: refused, timed out, or their TLS handshake failed.
    pub fn connection_failures(&self) -> u64 {
        self.connect + self.tls_handshake + self.tls_certificate + self.tls_alert
    }

    /// The classes as text, those with a count only ("connect 3, tls certificate 12"); "none" when there are none.
    pub fn describe(&self) -> String {
        let classes: Vec<String> = self
            .by_class()
            .iter()
            .filter(|(_, count)| *count > 0)
            .map(|(name, count)| format!("{name} {count}"))
            .collect();
        if classes.is_empty() { "none".to_string() } else { classes.join(", ") }
    }

    pub fn add(&mut self, other: &ErrorCounts) {
        self.connect += other.connect;
        self.tls_handshake += other.tls_handshake;
        self.tls_certificate += other.tls_certificate;
        self.tls_alert += other.tls_alert;
        self.timeout += other.timeout;
        self.read += other.read;
        self.write += other.write;
        self.status += other.status;
        self.invalid_response += other.invalid_response;
    }
}

/// The class of a failed request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    Connect,
    /// The TLS handshake failed, of this class.
    Tls(TlsFailure),
    Timeout,
    Read,
    Write,
    /// The response is not valid HTTP (recorded with its reason: [`Recorder::invalid_response`]).
    InvalidResponse,
}

/// Counters for one request name (or the whole run).
#[derive(Debug, Clone)]
pub struct Tally {
    /// Latency from the intended send time (equal to the actual send time in the closed model).
    pub latency: Histogram<u64>,
    /// Requests completed: a response of any status, or a timeout / read / write / invalid-response failure after
    /// sending.
    pub requests: u64,
    pub errors: ErrorCounts,
    /// Why the first of the `errors.invalid_response` was not valid HTTP.
    pub invalid_response_reason: Option<String>,
    /// Responses by status code (index = code, 0..=999).
    pub status_codes: Vec<u64>,
}

impl Tally {
    pub fn new() -> Tally {
        Tally {
            latency: new_histogram(),
            requests: 0,
            errors: ErrorCounts::default(),
            invalid_response_reason: None,
            status_codes: vec![0; 1000],
        }
    }

    /// Adds `other`'s counts; the first invalid response's reason stays this one's when it has one, else `other`'s.
    pub fn merge(&mut self, other: &Tally) {
        self.latency.add(&other.latency).expect("same histogram bounds");
        self.requests += other.requests;
        self.errors.add(&other.errors);
        if self.invalid_response_reason.is_none() {
            self.invalid_response_reason = other.invalid_response_reason.clone();
        }
        for (mine, theirs) in self.status_codes.iter_mut().zip(&other.status_codes) {
            *mine += theirs;
        }
    }

    fn record_response(&mut self, latency_us: u64, status: u16, ok: bool) {
        self.record_wait(latency_us);
        self.requests += 1;
        self.status_codes[usize::from(status).min(999)] += 1;
        if !ok {
            self.errors.status += 1;
        }
    }

    /// A latency in the histogram, without counting a request (the waits of unfinished requests are recorded so).
    fn record_wait(&mut self, latency_us: u64) {
        self.latency.saturating_record(latency_us.max(1));
    }

    fn record_failure(&mut self, failure: Failure) {
        match failure {
            Failure::Connect => self.errors.connect += 1,
            Failure::Tls(TlsFailure::Handshake) => self.errors.tls_handshake += 1,
            Failure::Tls(TlsFailure::Certificate) => self.errors.tls_certificate += 1,
            Failure::Tls(TlsFailure::Alert) => self.errors.tls_alert += 1,
            Failure::Timeout => {
                self.requests += 1;
                self.errors.timeout += 1;
            }
            Failure::Read => {
                self.requests += 1;
                self.errors.read += 1;
            }
            Failure::Write => {
                self.requests += 1;
                self.errors.write += 1;
            }
            Failure::InvalidResponse => {
                self.requests += 1;
                self.errors.invalid_response += 1;
            }
        }
    }

    /// An invalid response, and its reason when it is the first.
    fn record_invalid_response(&mut self, reason: &str) {
        self.record_failure(Failure::InvalidResponse);
        if self.invalid_response_reason.is_none() {
            self.invalid_response_reason = Some(reason.to_string());
        }
    }
}

/// Counts of the second being recorded; sent to the aggregator at each second boundary.
#[derive(Debug, Clone)]
pub struct IntervalCounts {
    pub latency: Histogram<u64>,
    pub requests: u64,
    pub errors: u64,
}

impl IntervalCounts {
    pub fn new() -> IntervalCounts {
        IntervalCounts { latency: new_histogram(), requests: 0, errors: 0 }
    }
}

/// Everything one worker measured.
#[derive(Debug, Clone)]
pub struct Recorder {
    pub total: Tally,
    /// Per request name, only when there are several requests (a mix).
    pub per_request: Vec<Tally>,
    /// Latency from the actual send (open model only).
    pub uncorrected: Option<Histogram<u64>>,
    /// Closed model only: latency with the requests a stalled connection would have sent meanwhile (see
    /// [`super::pause_correction`]).
    pub corrected: Option<Histogram<u64>>,
    pub interval: IntervalCounts,
    pub bytes_received: u64,
    pub bytes_sent: u64,
    /// Open model: requests sent after their intended time because their connection was still busy.
    pub late: u64,
    /// Connections opened again after the server closed them or after an error.
    pub reconnects: u64,
    /// Requests sent again on a new connection because the server had closed the old one before they reached it.
    pub resent: u64,
    /// Open model: the generator's own part of each send's delay (its slip), and how many were over
    /// [`SLIP_TOLERANCE_US`].
    pub slips: Option<Histogram<u64>>,
    pub slipped: u64,
    /// Open model: requests whose intended time fell before the end of the run (set when the run ends).
    pub due: u64,
    /// At the end of the run: requests that fell due but were never sent, and requests sent but not answered, with
    /// the longest wait of each (microseconds).
    pub never_sent: Waiting,
    pub unfinished: Waiting,
    /// CPU time of this worker thread over the run, in percent of the wall time (of one core); the largest of the
    /// workers once merged.
    pub busiest_thread_cpu_pct: f64,
    /// The share of the run this worker thread was not waiting for events (working, or ready to work but not given a
    /// CPU), in percent; the largest of the workers once merged. Near 100 the generator never waited for the target.
    pub busiest_thread_busy_pct: f64,
    /// Every completed or timed-out request slower than a rising threshold, one by one (bounded memory).
    pub slow: SlowRequests,
    /// The time each connection took to become ready for requests — the TCP connect plus, over TLS, the handshake —
    /// in microseconds; never part of a request's latency.
    pub connects: Histogram<u64>,
    /// TLS: what the first handshake agreed on, and why the first failed one failed.
    pub negotiated: Option<Negotiated>,
    pub tls_error: Option<String>,
}

/// Requests still waiting when the run ended: how many, and the longest wait among them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Waiting {
    pub count: u64,
    pub longest_us: u64,
}

impl Waiting {
    fn add(&mut self, wait_us: u64) {
        self.count += 1;
        self.longest_us = self.longest_us.max(wait_us);
    }

    fn merge(&mut self, other: &Waiting) {
        self.count += other.count;
        self.longest_us = self.longest_us.max(other.longest_us);
    }
}

impl Recorder {
    pub fn new(request_count: usize, open_model: bool) -> Recorder {
        let per_request =
            if request_count > 1 { (0..request_count).map(|_| Tally::new()).collect() } else { Vec::new() };
        Recorder {
            total: Tally::new(),
            per_request,
            uncorrected: open_model.then(new_histogram),
            corrected: (!open_model).then(new_histogram),
            interval: IntervalCounts::new(),
            bytes_received: 0,
            bytes_sent: 0,
            late: 0,
            reconnects: 0,
            resent: 0,
            slips: open_model.then(new_histogram),
            slipped: 0,
            due: 0,
            never_sent: Waiting::default(),
            unfinished: Waiting::default(),
            busiest_thread_cpu_pct: 0.0,
            busiest_thread_busy_pct: 0.0,
            slow: SlowRequests::with_capacity(CAPACITY_PER_THREAD),
            connects: new_histogram(),
            negotiated: None,
            tls_error: None,
        }
    }

    /// A complete response to request `request` (index in the set); `ok` when its status counts as success.
    pub fn response(&mut self, request: usize, latency_us: u64, uncorrected_us: u64, status: u16, ok: bool) {
        self.total.record_response(latency_us, status, ok);
        if let Some(tally) = self.per_request.get_mut(request) {
            tally.record_response(latency_us, status, ok);
        }
        if let Some(uncorrected) = &mut self.uncorrected {
            uncorrected.saturating_record(uncorrected_us.max(1));
        }
        self.interval.latency.saturating_record(latency_us.max(1));
        self.interval.requests += 1;
        if !ok {
            self.interval.errors += 1;
        }
    }

    /// A request given up after the timeout: an error of its class, and a latency like any answer's — the client
    /// waited `latency_us` (from the intended send; `uncorrected_us` from the actual one) and got nothing. The closed
    /// model corrects it against its connection's `expected_interval_us` like a response.
    pub fn timed_out(&mut self, request: usize, latency_us: u64, uncorrected_us: u64, expected_interval_us: u64) {
        self.failure(request, Failure::Timeout);
        self.record_wait(Some(request), latency_us);
        if let Some(uncorrected) = &mut self.uncorrected {
            uncorrected.saturating_record(uncorrected_us.max(1));
        }
        self.pause_corrected_response(uncorrected_us, expected_interval_us);
    }

    /// At the end of the run: a request sent but not answered. Counted, never as a completed request; its wait
    /// enters the latency as a lower bound when it tells about the tail (see [`tells_about_the_tail`]), in the closed
    /// model corrected against `usual_us` like a response, and is offered to the slow requests like any latency the
    /// histogram holds (so that the tails "is it the GC?" ranks are the histogram's: one p99 everywhere).
    pub fn unfinished_at_end(&mut self, request: usize, left: LeftWaiting, usual_us: u64) {
        self.unfinished.add(left.wait_us);
        if tells_about_the_tail(left.wait_us, usual_us) {
            self.record_wait(Some(request), left.wait_us);
            self.pause_corrected_response(left.wait_us, usual_us);
            self.slow.offer(left.slow_request(request));
        }
    }

    /// At the end of an open-model run: a request that fell due before the end and was never sent because its
    /// connection (whose usual answer takes `usual_us`) was busy. Counted; its wait enters the latency as a lower
    /// bound when it tells about the tail, and the slow requests as [`NEVER_SENT`]. It has no request name (none was
    /// picked) and no send time.
    pub fn never_sent_at_end(&mut self, left: LeftWaiting, usual_us: u64) {
        self.never_sent.add(left.wait_us);
        if tells_about_the_tail(left.wait_us, usual_us) {
            self.record_wait(None, left.wait_us);
            self.slow.offer(left.slow_request(usize::from(NEVER_SENT)));
        }
    }

    /// A wait in the latency histograms of the run, of its request name, and of the current second.
    fn record_wait(&mut self, request: Option<usize>, latency_us: u64) {
        self.total.record_wait(latency_us);
        if let Some(tally) = request.and_then(|request| self.per_request.get_mut(request)) {
            tally.record_wait(latency_us);
        }
        self.interval.latency.saturating_record(latency_us.max(1));
    }

    /// Open model: the generator's own delay in a send — from its intended time, or from when the generator knew its
    /// connection was free if that was later (see the worker's `count_lateness`).
    pub fn slip(&mut self, slip_us: u64) {
        if let Some(slips) = &mut self.slips {
            slips.saturating_record(slip_us);
        }
        if slip_us > SLIP_TOLERANCE_US {
            self.slipped += 1;
        }
    }

    /// Closed model: a response (or a timeout, or a request unanswered at the end) again, corrected for the requests its
    /// connection did not send while it waited longer than its expected interval (0: none known yet). Does nothing in
    /// the open model, which needs no correction.
    pub fn pause_corrected_response(&mut self, latency_us: u64, expected_interval_us: u64) {
        if let Some(corrected) = &mut self.corrected {
            record_corrected(corrected, latency_us, expected_interval_us);
        }
    }

    /// A request that failed after it was sent (not with an invalid response, which has a reason:
    /// [`Recorder::invalid_response`]).
    pub fn failure(&mut self, request: usize, failure: Failure) {
        debug_assert!(failure != Failure::InvalidResponse, "an invalid response is recorded with its reason");
        self.total.record_failure(failure);
        if let Some(tally) = self.per_request.get_mut(request) {
            tally.record_failure(failure);
        }
        self.interval.requests += 1;
        self.interval.errors += 1;
    }

    /// The response to a request is not valid HTTP, for `reason`: an error of its class, the reason kept when it is
    /// the first of the run (and of its request name).
    pub fn invalid_response(&mut self, request: usize, reason: &str) {
        self.total.record_invalid_response(reason);
        if let Some(tally) = self.per_request.get_mut(request) {
            tally.record_invalid_response(reason);
        }
        self.interval.requests += 1;
        self.interval.errors += 1;
    }

    /// A connection attempt that failed (refused, no answer within the timeout, or its TLS handshake failed: `failure`
    /// is `Connect` or `Tls`): not tied to a request name.
    pub fn connection_failure(&mut self, failure: Failure) {
        debug_assert!(matches!(failure, Failure::Connect | Failure::Tls(_)));
        self.total.record_failure(failure);
        self.interval.errors += 1;
    }

    /// A connection ready for requests `setup_us` after its connect began.
    pub fn connected(&mut self, setup_us: u64) {
        self.connects.saturating_record(setup_us.max(1));
    }

    /// Hand over the second just finished and start a new one.
    pub fn take_interval(&mut self) -> IntervalCounts {
        let fresh = IntervalCounts {
            latency: self.interval.latency.clone(),
            requests: self.interval.requests,
            errors: self.interval.errors,
        };
        self.interval.latency.reset();
        self.interval.requests = 0;
        self.interval.errors = 0;
        fresh
    }

    pub fn merge(&mut self, other: &Recorder) {
        self.total.merge(&other.total);
        for (mine, theirs) in self.per_request.iter_mut().zip(&other.per_request) {
            mine.merge(theirs);
        }
        for (mine, theirs) in [(&mut self.uncorrected, &other.uncorrected), (&mut self.corrected, &other.corrected)] {
            if let (Some(mine), Some(theirs)) = (mine, theirs) {
                mine.add(theirs).expect("same histogram bounds");
            }
        }
        self.bytes_received += other.bytes_received;
        self.bytes_sent += other.bytes_sent;
        self.late += other.late;
        self.reconnects += other.reconnects;
        self.resent += other.resent;
        if let (Some(mine), Some(theirs)) = (&mut self.slips, &other.slips) {
            mine.add(theirs).expect("same histogram bounds");
        }
        self.slipped += other.slipped;
        self.slow.merge(&other.slow);
        self.connects.add(&other.connects).expect("same histogram bounds");
        if self.negotiated.is_none() {
            self.negotiated = other.negotiated.clone();
        }
        if self.tls_error.is_none() {
            self.tls_error = other.tls_error.clone();
        }
        self.due += other.due;
        self.never_sent.merge(&other.never_sent);
        self.unfinished.merge(&other.unfinished);
        self.busiest_thread_cpu_pct = self.busiest_thread_cpu_pct.max(other.busiest_thread_cpu_pct);
        self.busiest_thread_busy_pct = self.busiest_thread_busy_pct.max(other.busiest_thread_busy_pct);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_left_waiting_enters_the_latency_only_when_slower_than_its_connections_usual_answer() {
        let mut recorder = Recorder::new(1, true);
        let left = |wait_us: u64, service_us: u64| LeftWaiting { wait_us, service_us, ended_us: 9_000 };
        recorder.unfinished_at_end(0, left(500, 500), 1_000);
        recorder.never_sent_at_end(left(800, 0), 1_000);
        assert_eq!(recorder.total.latency.len(), 0, "shorter than a usual answer: counted, not recorded");
        assert_eq!(recorder.slow.offered, 0, "nor offered to the slow requests");
        recorder.unfinished_at_end(0, left(5_000, 4_000), 1_000);
        recorder.never_sent_at_end(left(3_000, 0), 1_000);
        recorder.never_sent_at_end(left(2_000, 0), 0);
        assert_eq!(recorder.total.latency.len(), 3);
        // The slow requests hold the very latencies the histogram holds, ending at the run's end.
        assert_eq!(recorder.slow.offered, recorder.total.latency.len());
        let mut kept: Vec<(u64, u32, u32, u16)> =
            recorder.slow.kept.iter().map(|r| (r.done_us, r.latency_us, r.service_us, r.request)).collect();
        kept.sort();
        assert_eq!(kept, [(9_000, 2_000, 0, NEVER_SENT), (9_000, 3_000, 0, NEVER_SENT), (9_000, 5_000, 4_000, 0)]);
        assert_eq!(recorder.interval.latency.len(), 3, "in the second they were measured in, like any wait");
        assert_eq!(recorder.uncorrected.as_ref().unwrap().len(), 0, "not in the latency from the actual send");
        assert_eq!(recorder.unfinished, Waiting { count: 2, longest_us: 5_000 });
        assert_eq!(recorder.never_sent, Waiting { count: 3, longest_us: 3_000 });
        assert_eq!(recorder.total.requests, 0, "none of them completed");
    }

    #[test]
    fn a_results_errors_are_the_classes_flattened_beside_their_total() {
        let mut tally = Tally::new();
        tally.errors = ErrorCounts { connect: 1, tls_alert: 2, timeout: 3, status: 4, ..ErrorCounts::default() };
        let summary = crate::load::record::summary::ErrorSummary::of(&tally);
        let json = serde_json::to_string(&summary).unwrap();
        assert_eq!(
            json,
            r#"{"connect":1,"tls_handshake":0,"tls_certificate":0,"tls_alert":2,"timeout":3,"read":0,"write":0,"status":4,"invalid_response":0,"total":10}"#
        );
        let before_tls = r#"{"connect":1,"timeout":3,"read":0,"write":0,"status":4,"total":8}"#;
        let read: crate::load::record::summary::ErrorSummary = serde_json::from_str(before_tls).unwrap();
        assert_eq!((read.classes.tls_alert, read.classes.timeout, read.total), (0, 3, 8));
        assert_eq!((read.classes.invalid_response, read.invalid_response_reason), (0, None));
    }

    #[test]
    fn an_invalid_response_is_its_own_class_with_the_first_reason_kept() {
        let mut recorder = Recorder::new(2, false);
        recorder.invalid_response(1, "not an HTTP/1.x status line: 0x8f");
        recorder.invalid_response(0, "invalid chunk size line: \"zz\"");
        recorder.failure(1, Failure::Read);
        let errors = &recorder.total.errors;
        assert_eq!((errors.invalid_response, errors.read, errors.total(), recorder.total.requests), (2, 1, 3, 3));
        assert_eq!(recorder.total.invalid_response_reason.as_deref(), Some("not an HTTP/1.x status line: 0x8f"));
        assert_eq!(recorder.per_request[0].invalid_response_reason.as_deref(), Some("invalid chunk size line: \"zz\""));
        assert_eq!(recorder.per_request[1].errors.invalid_response, 1);
        assert_eq!((recorder.interval.requests, recorder.interval.errors), (3, 3));
        assert_eq!(errors.describe(), "read 1, invalid response 2");
    }

    #[test]
    fn merged_tallies_keep_the_first_invalid_response_reason_there_is() {
        let mut merged = Tally::new();
        let mut without = Tally::new();
        without.record_failure(Failure::Read);
        let mut first = Tally::new();
        first.record_invalid_response("first");
        let mut second = Tally::new();
        second.record_invalid_response("second");
        for tally in [&without, &first, &second] {
            merged.merge(tally);
        }
        assert_eq!((merged.invalid_response_reason.as_deref(), merged.errors.invalid_response), (Some("first"), 2));
    }

    #[test]
    fn a_timeout_is_an_error_and_a_latency() {
        let mut recorder = Recorder::new(1, true);
        recorder.timed_out(0, 150_000, 100_000, 0);
        assert_eq!((recorder.total.requests, recorder.total.errors.timeout), (1, 1));
        assert_eq!(recorder.total.latency.len(), 1);
        assert!(recorder.total.latency.equivalent(recorder.total.latency.max(), 150_000));
        let uncorrected = recorder.uncorrected.as_ref().unwrap();
        assert!(uncorrected.equivalent(uncorrected.max(), 100_000));
        assert_eq!((recorder.interval.requests, recorder.interval.errors, recorder.interval.latency.len()), (1, 1, 1));
    }

    #[test]
    fn a_closed_model_timeout_is_corrected_like_a_response() {
        let mut recorder = Recorder::new(1, false);
        // 100 ms without an answer on a connection answering every 10 ms: it also stands for the 9 requests not sent.
        recorder.timed_out(0, 100_000, 100_000, 10_000);
        assert_eq!(recorder.total.latency.len(), 1);
        assert_eq!(recorder.corrected.as_ref().unwrap().len(), 10);
    }

    #[test]
    fn a_slip_beyond_the_tolerance_counts_as_slipped() {
        let mut recorder = Recorder::new(1, true);
        recorder.slip(0);
        recorder.slip(SLIP_TOLERANCE_US);
        recorder.slip(SLIP_TOLERANCE_US + 1);
        assert_eq!(recorder.slipped, 1);
        assert_eq!(recorder.slips.as_ref().unwrap().len(), 3);
    }

    #[test]
    fn merging_adds_counts_and_keeps_the_longest_wait_and_the_busiest_thread() {
        let mut first = Recorder::new(1, true);
        first.unfinished_at_end(0, LeftWaiting { wait_us: 7_000, service_us: 7_000, ended_us: 0 }, 0);
        (first.due, first.busiest_thread_cpu_pct, first.busiest_thread_busy_pct) = (100, 40.0, 90.0);
        let mut second = Recorder::new(1, true);
        second.unfinished_at_end(0, LeftWaiting { wait_us: 3_000, service_us: 3_000, ended_us: 0 }, 0);
        second.slip(5_000);
        (second.due, second.busiest_thread_cpu_pct, second.busiest_thread_busy_pct) = (120, 70.0, 80.0);
        first.merge(&second);
        assert_eq!(first.unfinished, Waiting { count: 2, longest_us: 7_000 });
        assert_eq!((first.due, first.slipped), (220, 1));
        assert_eq!((first.busiest_thread_cpu_pct, first.busiest_thread_busy_pct), (70.0, 90.0));
    }
}
