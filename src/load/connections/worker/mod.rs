//! One worker thread: its own epoll loop owning a share of the connections, driving them in the closed model (send
//! the next request when the previous answer is complete) or the open model (send at intended times), enforcing
//! timeouts, reporting each second's measurements to the aggregator, and at the end accounting for every request
//! that fell due but did not complete. The worker drives lanes (request slots) and knows no wire protocol: the
//! protocol is the type parameter `P` of `Worker`, a `Wire` (HTTP/1.1 and HTTP/2 in [`super::wire`]) that owns
//! the connections under the lanes — opening them, writing requests, reading responses — and hands each lane's
//! outcome back to the worker's lane operations (`complete`, `fail`, `start_next`, …).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Barrier, OnceLock};
use std::time::{Duration, Instant};

use mio::{Events, Poll, Token};

use super::conn::{Conn, State};
use super::timer::DeadlineTimer;
use crate::load::input::request::RequestSet;
use crate::load::input::status::OkStatus;
use crate::load::input::tls::Security;
use crate::load::record::recorder::{Failure, IntervalCounts, LeftWaiting, Recorder};
use crate::load::record::slow::SlowRequest;
use crate::load::record::thread_cpu::{cpu_pct, thread_cpu_time};

const TIMER_TOKEN: Token = Token(usize::MAX);
const READ_BUFFER_BYTES: usize = 64 * 1024;
/// Wait after a refused connect before trying again.
const CONNECT_BACKOFF: Duration = Duration::from_millis(10);

/// What every worker shares.
pub struct Shared {
    pub set: RequestSet,
    /// Plain TCP or TLS, with the configuration every connection shares.
    pub security: Security,
    /// Lanes — request slots, each with one request in flight at most — per connection, as the wire protocol has
    /// them (see `super::wire::WireKind::lanes_per_connection`).
    pub lanes_per_connection: usize,
    /// Lanes of the whole run (all workers): the open model's schedule is spread over them.
    pub total_lanes: usize,
    pub rate: Option<f64>,
    /// Open model: the schedule's phase, a fraction of its interval (see `LoadSpec::schedule_phase`).
    pub schedule_phase: f64,
    pub max_requests: Option<u64>,
    pub duration: Option<Duration>,
    pub timeout: Duration,
    pub ok_status: OkStatus,
    /// Set by Ctrl-C or by the caller to end the run early.
    pub stop: Arc<AtomicBool>,
    /// Workers connect, meet here, the coordinator sets `start`, and they meet again.
    pub barrier: Barrier,
    pub start: OnceLock<Instant>,
}

/// Messages from workers to the aggregator.
pub enum WorkerMessage {
    /// The measurements of one second (`second` counts from 0 at the start of the run).
    Interval { worker: usize, second: u64, counts: IntervalCounts },
    /// The worker ended at `end`; its last interval was already sent.
    Done { worker: usize, end: Instant },
}

/// This worker's share of the run.
pub struct Assignment {
    pub index: usize,
    /// Global index of this worker's first lane (spreads the open-model schedule across workers).
    pub first_lane: usize,
    pub connections: usize,
    /// Closed model with a request count: how many this worker sends.
    pub quota: Option<u64>,
}

/// The wire protocol a worker drives: the seam between the lanes (what the worker schedules, times and records) and
/// the connections under them, like wrk's table of socket functions. A protocol owns its connections (in its own
/// state, `Worker::wire`, and for HTTP/1.1 the socket of each lane) and implements the operations below; it calls
/// back the worker's lane operations (`complete`, `fail`, `start_next`, `resend`, `give_up_request`, `set_up_done`,
/// …). Calls are static (the worker is generic over the protocol): no dispatch per event, no allocation.
pub(crate) trait Wire: Sized {
    /// Open (or join) the connection lane `lane` sends on; a lane whose connection is not up waits for it.
    fn open(worker: &mut Worker<'_, Self>, lane: usize, now: Instant);
    /// An event on `token` before the run's clock starts, while connections are being set up.
    fn on_set_up_event(worker: &mut Worker<'_, Self>, token: usize, now: Instant);
    /// An event on `token` during the run. `peer_closed`: the event carries the peer's close (with edge triggering
    /// it is announced only this once).
    fn on_event(worker: &mut Worker<'_, Self>, token: usize, writable: bool, peer_closed: bool);
    /// Send lane `lane`'s request from its start: the one its [`Conn`] names (`request`, rendered into `scratch`
    /// when dynamic), new or sent again (`resent`).
    fn send(worker: &mut Worker<'_, Self>, lane: usize, now: Instant);
    /// Lane `lane` goes on after a failure, or after a response that closed its connection.
    fn lane_goes_on(worker: &mut Worker<'_, Self>, lane: usize, now: Instant);
    /// Lane `lane`'s request timed out (already recorded): what it held on the wire is dropped and the lane goes on.
    fn abandon(worker: &mut Worker<'_, Self>, lane: usize, now: Instant);
    /// The connect-timeout rule for a lane whose set-up (`state`, Connecting or Handshaking) lasted the whole
    /// timeout: the failure to count for it, or None when the lane waits for a connection that `scan` times.
    fn lane_set_up_expired(state: State) -> Option<Failure>;
    /// The protocol's part of the periodic scan, before the lanes': its own connections' timeouts.
    fn scan(worker: &mut Worker<'_, Self>, now: Instant);
    /// Close what the protocol holds beside the lanes, at the end of the run.
    fn close(worker: &mut Worker<'_, Self>);
}

/// One worker thread's state. Its fields are the protocols' too (see [`Wire`]).
pub(crate) struct Worker<'a, P> {
    pub(crate) shared: &'a Shared,
    assignment: Assignment,
    pub(crate) poll: Poll,
    timer: DeadlineTimer,
    /// Its lanes, `lanes_per_connection` per connection, lanes `k·n .. (k+1)·n` sharing connection k (with HTTP/1.1
    /// one per connection, each owning its socket).
    pub(crate) conns: Vec<Conn>,
    /// The wire protocol's own state (its connections, when they are not the lanes').
    pub(crate) wire: P,
    pub(crate) recorder: Recorder,
    rng: fastrand::Rng,
    pub(crate) read_buffer: Vec<u8>,
    /// Open model: idle connections by their next intended send time.
    pub(crate) schedule: BinaryHeap<Reverse<(Instant, usize)>>,
    quota_left: Option<u64>,
    start: Instant,
    /// The end of a run with a duration: no request due at or after it is sent.
    deadline: Option<Instant>,
    /// When the event loop's current batch of events arrived (the poll returned).
    events_at: Instant,
    /// Open model: time spent waiting in the poll for events, since the start.
    waited: Duration,
    scan_interval: Duration,
    /// The last successful connect or complete response.
    last_progress: Instant,
    /// Connects that failed since then.
    refused_since_progress: u64,
}

/// Run one worker to the end of the load over the wire protocol `wire`; returns everything it recorded.
pub(crate) fn run_worker<P: Wire>(
    shared: &Shared,
    assignment: Assignment,
    messages: Sender<WorkerMessage>,
    wire: P,
) -> std::io::Result<Recorder> {
    let poll = Poll::new()?;
    let timer = DeadlineTimer::new(poll.registry(), TIMER_TOKEN)?;
    let now = Instant::now();
    let mut worker = Worker {
        shared,
        poll,
        timer,
        conns: (0..assignment.connections * shared.lanes_per_connection).map(|_| Conn::new(now)).collect(),
        wire,
        recorder: Recorder::new(shared.set.requests.len(), shared.rate.is_some()),
        rng: fastrand::Rng::new(),
        read_buffer: vec![0; READ_BUFFER_BYTES],
        schedule: BinaryHeap::new(),
        quota_left: assignment.quota,
        start: now,
        deadline: None,
        events_at: now,
        waited: Duration::ZERO,
        scan_interval: (shared.timeout / 10).clamp(Duration::from_millis(1), Duration::from_millis(100)),
        last_progress: now,
        refused_since_progress: 0,
        assignment,
    };
    worker.connect_all();
    shared.barrier.wait();
    shared.barrier.wait();
    worker.start = *shared.start.get().expect("coordinator sets the start before releasing workers");
    worker.deadline = shared.duration.map(|duration| worker.start + duration);
    worker.last_progress = worker.last_progress.max(worker.start);
    let cpu_at_start = thread_cpu_time();
    let end = worker.drive(&messages)?;
    let wall = worker.start.elapsed();
    worker.recorder.busiest_thread_cpu_pct = cpu_pct(thread_cpu_time() - cpu_at_start, wall);
    worker.recorder.busiest_thread_busy_pct = cpu_pct(wall.saturating_sub(worker.waited), wall);
    let _ = messages.send(WorkerMessage::Done { worker: worker.assignment.index, end });
    Ok(worker.recorder)
}

impl<P: Wire> Worker<'_, P> {
    /// Open every connection and wait (bounded by the timeout) for the handshakes, before the clock starts.
    fn connect_all(&mut self) {
        let now = Instant::now();
        for index in 0..self.conns.len() {
            P::open(self, index, now);
        }
        let give_up = now + self.shared.timeout;
        let mut events = Events::with_capacity(1024);
        while self.conns.iter().any(Conn::setting_up) {
            let now = Instant::now();
            if now >= give_up || self.shared.stop.load(Ordering::Relaxed) {
                break;
            }
            if self.poll.poll(&mut events, Some(give_up - now)).is_err() {
                break;
            }
            for event in events.iter() {
                P::on_set_up_event(self, event.token().0, Instant::now());
            }
        }
    }

    /// The event loop proper; returns when the run ends for this worker.
    fn drive(&mut self, messages: &Sender<WorkerMessage>) -> std::io::Result<Instant> {
        let deadline = self.deadline;
        let mut next_tick = self.start + Duration::from_secs(1);
        let mut second = 0u64;
        let mut next_scan = self.start + self.scan_interval;
        let mut events = Events::with_capacity(1024);
        self.events_at = self.start;
        for index in 0..self.conns.len() {
            if self.conns[index].state == State::Idle {
                self.start_next(index, self.start);
            }
        }
        loop {
            let now = Instant::now();
            // Checked before the second boundary: a run of exactly N seconds has N rows, not an empty N+1st.
            if deadline.is_some_and(|deadline| now >= deadline) || self.shared.stop.load(Ordering::Relaxed) {
                break;
            }
            while now >= next_tick {
                let counts = self.recorder.take_interval();
                let _ = messages.send(WorkerMessage::Interval { worker: self.assignment.index, second, counts });
                second += 1;
                next_tick += Duration::from_secs(1);
            }
            if now >= next_scan {
                self.scan(now);
                if self.unreachable(now) {
                    break;
                }
                // While connections are refused, check more often than the timeouts need, to retry them sooner.
                let backing_off = self.conns.iter().any(|conn| matches!(conn.state, State::Backoff(_)));
                next_scan =
                    now + if backing_off { self.scan_interval.min(CONNECT_BACKOFF) } else { self.scan_interval };
            }
            self.send_what_is_due();
            if self.finished() {
                break;
            }
            let mut wake = next_tick.min(next_scan);
            if let Some(deadline) = deadline {
                wake = wake.min(deadline);
            }
            if let Some(&Reverse((at, _))) = self.schedule.peek() {
                wake = wake.min(at);
            }
            self.timer.arm(wake, now)?;
            // Open model only (the closed model has no schedule to keep): how long the loop waited, and when the
            // events arrived.
            let waiting_from = self.shared.rate.map(|_| Instant::now());
            let polled = self.poll.poll(&mut events, None);
            if let Some(waiting_from) = waiting_from {
                self.events_at = Instant::now();
                self.waited += self.events_at.saturating_duration_since(waiting_from);
            }
            match polled {
                Ok(()) => {}
                Err(err) if err.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(err) => return Err(err),
            }
            for event in events.iter() {
                match event.token() {
                    TIMER_TOKEN => self.timer.acknowledge(),
                    Token(index) => P::on_event(self, index, event.is_writable(), event.is_read_closed()),
                }
            }
        }
        let end = Instant::now().min(deadline.unwrap_or(Instant::now()));
        self.account_for_the_end(end);
        let counts = self.recorder.take_interval();
        let _ = messages.send(WorkerMessage::Interval { worker: self.assignment.index, second, counts });
        for conn in &mut self.conns {
            conn.close(self.poll.registry());
        }
        P::close(self);
        Ok(end)
    }

    /// True when nothing has connected or answered for a whole timeout while connects keep failing: the target is
    /// down, and retrying until the end of the run would only count more connect errors.
    fn unreachable(&self, now: Instant) -> bool {
        let none_connected = self.conns.iter().all(|conn| {
            matches!(conn.state, State::Backoff(_) | State::Connecting(_) | State::Handshaking(_) | State::Done)
        });
        self.refused_since_progress > 0
            && none_connected
            && now.duration_since(self.last_progress) >= self.shared.timeout
    }

    /// At the end of the run, account for every request that did not complete, each with its wait so far (a lower
    /// bound of its latency): the ones in flight, and in the open model the ones that fell due but were never sent
    /// because their connection was busy (or reconnecting) until the end — counted from the schedule, not stored.
    fn account_for_the_end(&mut self, end: Instant) {
        let ended_us = micros(end.saturating_duration_since(self.start));
        for index in 0..self.conns.len() {
            let conn = &self.conns[index];
            let usual = conn.recent_service.expected_interval_us();
            if matches!(conn.state, State::Writing | State::Reading) || conn.resend_when_connected {
                let wait_us = micros(end.saturating_duration_since(conn.intended));
                let service_us =
                    if conn.resend_when_connected { 0 } else { micros(end.saturating_duration_since(conn.sent)) };
                let left = LeftWaiting { wait_us, service_us, ended_us };
                self.recorder.unfinished_at_end(conn.request, left, usual);
            }
            if self.shared.rate.is_some() {
                let due = self.slots_due_before(index, end);
                self.recorder.due += due;
                for slot in self.conns[index].next_slot..due {
                    let at = self.slot_time(index, slot).expect("a due slot is in the schedule");
                    let wait_us = micros(end.saturating_duration_since(at));
                    self.recorder.never_sent_at_end(LeftWaiting { wait_us, service_us: 0, ended_us }, usual);
                }
            }
        }
    }

    /// True when this worker has nothing left to send and nothing in flight.
    fn finished(&self) -> bool {
        self.conns.iter().all(|conn| conn.state == State::Done)
    }

    /// A connected, idle connection: send its next request now or schedule it.
    pub(crate) fn start_next(&mut self, index: usize, now: Instant) {
        if self.shared.rate.is_some() {
            match self.next_send_time(index) {
                None => self.retire(index),
                Some(at) if at <= now && self.before_end(at) => {
                    let generators_part = self.count_lateness(index, at, now);
                    self.send(index, at + generators_part, now);
                }
                Some(at) => {
                    self.conns[index].state = State::Idle;
                    self.schedule.push(Reverse((at, index)));
                }
            }
            return;
        }
        match &mut self.quota_left {
            Some(0) => self.retire(index),
            Some(left) => {
                *left -= 1;
                self.send(index, now, now);
            }
            None => self.send(index, now, now),
        }
    }

    /// Whether lane `index` still has a request to send: one waiting for a stream or to be sent again, else a slot
    /// of the schedule (open model), else requests left in the quota (closed model). A lane without one is not
    /// given a new connection.
    pub(crate) fn has_work(&self, index: usize) -> bool {
        let conn = &self.conns[index];
        if conn.state == State::Writing || conn.resend_when_connected {
            true
        } else if self.shared.rate.is_some() {
            self.next_send_time(index).is_some()
        } else {
            self.quota_left != Some(0)
        }
    }

    fn retire(&mut self, index: usize) {
        self.conns[index].close(self.poll.registry());
        self.conns[index].state = State::Done;
    }

    /// Pick, render and write a request whose intended send time is `intended`.
    fn send(&mut self, index: usize, intended: Instant, now: Instant) {
        if self.conns[index].state != State::Idle {
            return; // a reconnect is under way; start_next runs again once it is connected
        }
        let set = &self.shared.set;
        let request = set.pick(&mut self.rng);
        let conn = &mut self.conns[index];
        conn.request = request;
        conn.intended = intended;
        conn.sent = now;
        conn.next_slot += 1;
        conn.resent = false;
        set.render_if_dynamic(request, &mut self.rng, &mut conn.scratch);
        P::send(self, index, now);
    }

    /// Write the request in flight again, unchanged, on the new connection. Its latency still counts from its first
    /// send (or its due time): the client waited all along.
    pub(crate) fn resend(&mut self, index: usize, now: Instant) {
        let conn = &mut self.conns[index];
        conn.resend_when_connected = false;
        conn.resent = true;
        self.recorder.resent += 1;
        P::send(self, index, now);
    }

    /// The response to lane `index`'s request is complete: recorded, and the lane goes on — on a new connection when
    /// the server closes this one (`closing`), announced or not.
    pub(crate) fn complete(&mut self, index: usize, status: u16, closing: bool, now: Instant) {
        self.last_progress = now;
        self.refused_since_progress = 0;
        let conn = &self.conns[index];
        let latency = micros(now.saturating_duration_since(conn.intended));
        let uncorrected = micros(now.saturating_duration_since(conn.sent));
        let ok = self.shared.ok_status.is_ok(status);
        self.recorder.response(conn.request, latency, uncorrected, status, ok);
        self.recorder.slow.offer(SlowRequest::finished(conn.request, self.start, now, latency, uncorrected, !ok));
        self.recorder.pause_corrected_response(uncorrected, conn.recent_service.expected_interval_us());
        self.conns[index].recent_service.observe(uncorrected);
        if closing {
            P::lane_goes_on(self, index, now);
        } else {
            self.conns[index].state = State::Idle;
            self.start_next(index, now);
        }
    }

    /// A request failed after it was sent: count it, drop the connection, open a new one.
    pub(crate) fn fail(&mut self, index: usize, failure: Failure, now: Instant) {
        self.recorder.failure(self.conns[index].request, failure);
        P::lane_goes_on(self, index, now);
    }

    /// The response to lane `index`'s request is not valid HTTP (`reason` says why): an `invalid response` error
    /// (the first one's reason kept), and the lane goes on as after any failure.
    pub(crate) fn fail_invalid(&mut self, index: usize, reason: &str, now: Instant) {
        self.recorder.invalid_response(self.conns[index].request, reason);
        P::lane_goes_on(self, index, now);
    }

    /// A request unanswered for the whole timeout: an error, recorded with the wait it had when the timeout expired
    /// (from its intended send to its send plus the timeout, however late the scan noticed), as the client saw it.
    fn time_out(&mut self, index: usize, now: Instant) {
        let conn = &self.conns[index];
        let latency = micros((conn.sent + self.shared.timeout).saturating_duration_since(conn.intended));
        let expected_interval = conn.recent_service.expected_interval_us();
        self.recorder.timed_out(conn.request, latency, micros(self.shared.timeout), expected_interval);
        let expired = conn.sent + self.shared.timeout;
        let timeout = micros(self.shared.timeout);
        self.recorder.slow.offer(SlowRequest::finished(conn.request, self.start, expired, latency, timeout, true));
        P::abandon(self, index, now);
    }

    /// Periodic check: timed-out requests and connects, and connections due to retry after a refused connect.
    fn scan(&mut self, now: Instant) {
        P::scan(self, now);
        let timeout = self.shared.timeout;
        for index in 0..self.conns.len() {
            match self.conns[index].state {
                state @ (State::Connecting(since) | State::Handshaking(since))
                    if now.duration_since(since) >= timeout =>
                {
                    if let Some(failure) = P::lane_set_up_expired(state) {
                        self.connect_failed(index, failure, now)
                    }
                }
                State::Writing | State::Reading if now.duration_since(self.conns[index].sent) >= timeout => {
                    self.time_out(index, now)
                }
                State::Backoff(until) if now >= until => {
                    if self.has_work(index) {
                        P::open(self, index, now)
                    } else {
                        self.conns[index].state = State::Done
                    }
                }
                _ => {}
            }
        }
    }
}

/// A duration in whole microseconds, the unit of every histogram.
pub(crate) fn micros(duration: Duration) -> u64 {
    duration.as_micros() as u64
}

mod connect;
mod schedule;
