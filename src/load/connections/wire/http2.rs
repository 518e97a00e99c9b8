//! HTTP/2 on the wire: lanes (request slots) share a connection, `--streams` of them each. A lane is driven by the
//! worker exactly as an HTTP/1.1 connection is — schedule, quota, latency, timeouts, accounting at the end — except
//! that its request goes out as a stream of its link's session, and the events of a link's socket are the link's,
//! which hands each stream's outcome to its lane. Connection set-ups are timed and failures counted once per link,
//! not per lane; a timed-out request resets its stream and the lane goes on on the same connection.

use std::time::Instant;

use mio::Token;

use crate::load::connections::conn::State;
use crate::load::connections::h2::{Event, Scheme, StartError, error_code};
use crate::load::connections::h2_link::{H2Link, LinkState, Received};
use crate::load::connections::socket::Setup;
use crate::load::connections::worker::{Wire, Worker};
use crate::load::record::recorder::Failure;
use crate::load::record::recorder::TlsFailure;

/// HTTP/2: a worker's connections, each carrying its lanes' requests as streams.
pub(crate) struct Http2 {
    links: Vec<H2Link>,
    /// The stream events of the connection being read (a buffer kept between reads).
    stream_events: Vec<Event>,
    /// The link whose events are being handled, which writes what they queued once, at the end.
    flush_deferred_for: Option<usize>,
}

impl Http2 {
    /// `connections` connections of `lanes_per_connection` lanes each, lanes `k·n .. (k+1)·n` sharing link k; their
    /// requests name `scheme`.
    pub(crate) fn new(connections: usize, lanes_per_connection: usize, scheme: Scheme) -> Http2 {
        let lanes = lanes_per_connection;
        Http2 {
            links: (0..connections).map(|link| H2Link::new(link * lanes..(link + 1) * lanes, scheme)).collect(),
            stream_events: Vec::new(),
            flush_deferred_for: None,
        }
    }
}

impl Wire for Http2 {
    fn open(worker: &mut Worker<'_, Self>, lane: usize, now: Instant) {
        worker.open_lane(lane, now);
    }

    fn on_set_up_event(worker: &mut Worker<'_, Self>, token: usize, now: Instant) {
        worker.on_link_setup_event(token, now, false);
    }

    fn on_event(worker: &mut Worker<'_, Self>, token: usize, _writable: bool, _peer_closed: bool) {
        worker.on_link_event(token);
    }

    /// As a new stream (the lane's [`Conn`](crate::load::connections::conn::Conn) keeps no wire state of its own).
    fn send(worker: &mut Worker<'_, Self>, lane: usize, now: Instant) {
        worker.start_stream(lane, now);
    }

    /// On its connection as it is, once that takes requests.
    fn lane_goes_on(worker: &mut Worker<'_, Self>, lane: usize, now: Instant) {
        worker.lane_goes_on_link(lane, now);
    }

    /// The stream is abandoned; the connection carries the lane's next request.
    fn abandon(worker: &mut Worker<'_, Self>, lane: usize, now: Instant) {
        worker.abandon_stream(lane, now);
    }

    /// Lanes wait for their link, whose set-up `scan` times (lanes are never Handshaking themselves).
    fn lane_set_up_expired(_: State) -> Option<Failure> {
        None
    }

    fn scan(worker: &mut Worker<'_, Self>, now: Instant) {
        worker.scan_links(now);
    }

    fn close(worker: &mut Worker<'_, Self>) {
        for link in &mut worker.wire.links {
            link.close(worker.poll.registry());
        }
    }
}

impl Worker<'_, Http2> {
    fn link_of(&self, lane: usize) -> usize {
        lane / self.shared.lanes_per_connection
    }

    /// Lane `lane` needs its connection: connect it when it is down, else wait for it or go on on it.
    fn open_lane(&mut self, lane: usize, now: Instant) {
        let link = self.link_of(lane);
        if self.wire.links[link].state == LinkState::Down {
            self.connect_link(link, now);
        }
        match self.wire.links[link].state {
            LinkState::Down => {} // the connect failed at once: the lane backs off
            LinkState::Connecting(since) | LinkState::Handshaking(since) => {
                self.conns[lane].state = State::Connecting(since)
            }
            LinkState::Up => self.lane_ready(lane, now),
        }
    }

    /// Open link `link` (again); its lanes that still have work wait for it (those waiting for a stream stay so).
    fn connect_link(&mut self, link: usize, now: Instant) {
        let addr = self.shared.set.endpoint.addr;
        let registry = self.poll.registry();
        if self.wire.links[link].connect(registry, Token(link), addr, &self.shared.security, now).is_err() {
            return self.link_set_up_failed(link, Failure::Connect, now);
        }
        let lanes = self.wire.links[link].lanes.clone();
        // Their scheduled sends (if any) are planned again from `next_slot` once the connection is up.
        self.schedule.retain(|&std::cmp::Reverse((_, queued))| !lanes.contains(&queued));
        for lane in lanes {
            if !matches!(self.conns[lane].state, State::Done | State::Writing) {
                self.conns[lane].state = State::Connecting(now);
            }
        }
    }

    /// An event on a link being set up (during the connect phase before the start, `running` false).
    fn on_link_setup_event(&mut self, link: usize, now: Instant, running: bool) {
        let Some(started) = self.wire.links.get(link).and_then(|link| link.setting_up_since()) else { return };
        let connecting = matches!(self.wire.links[link].state, LinkState::Connecting(_));
        match self.wire.links[link].set_up(self.poll.registry(), Token(link), &mut self.recorder.bytes_sent) {
            Ok(Setup::Handshaking) => {}
            Ok(Setup::Ready) => {
                let first = self.recorder.negotiated.is_none();
                let transport = self.wire.links[link].socket.transport.as_ref().filter(|_| first);
                let negotiated = transport.and_then(|transport| transport.negotiated());
                self.set_up_done(started, negotiated, now);
                for lane in self.wire.links[link].lanes.clone() {
                    if self.conns[lane].setting_up() {
                        self.conns[lane].state = State::Idle;
                        if running {
                            self.lane_ready(lane, now);
                        }
                    }
                }
                self.start_waiting_lanes(link, now);
            }
            Err(err) => {
                let failure = self.set_up_failed(err, connecting);
                self.link_set_up_failed(link, failure, now);
            }
        }
    }

    /// The link could not be set up: counted once, and every lane waiting for it gives up its request (a lane
    /// waiting for a stream, the request it was about to send).
    fn link_set_up_failed(&mut self, link: usize, failure: Failure, now: Instant) {
        self.count_failed_connection(failure);
        self.wire.links[link].close(self.poll.registry());
        self.wire.links[link].waiting.clear();
        for lane in self.wire.links[link].lanes.clone() {
            match self.conns[lane].state {
                State::Done => continue,
                State::Writing => self.conns[lane].resend_when_connected = true,
                _ => {}
            }
            self.give_up_request(lane, now);
        }
    }

    /// A lane whose connection is up: its request waiting to be re-sent goes out, else its next one.
    fn lane_ready(&mut self, lane: usize, now: Instant) {
        self.conns[lane].state = State::Idle;
        if self.conns[lane].resend_when_connected {
            self.resend(lane, now);
        } else {
            self.start_next(lane, now);
        }
    }

    /// Lane `lane` goes on after its request failed or completed with a close: on its connection when that still
    /// takes requests, else once it is replaced.
    fn lane_goes_on_link(&mut self, lane: usize, now: Instant) {
        let link = self.link_of(lane);
        if self.wire.links[link].state == LinkState::Up && !self.wire.links[link].session.is_going_away() {
            self.lane_ready(lane, now);
        } else {
            self.conns[lane].state = State::Connecting(now);
        }
    }

    /// Send lane `lane`'s request as a new stream; without a free stream it waits for one (its latency runs).
    fn start_stream(&mut self, lane: usize, now: Instant) {
        let link = self.link_of(lane);
        let conn = &mut self.conns[lane];
        let scratch = std::mem::take(&mut conn.scratch);
        let bytes = self.shared.set.request_bytes(conn.request, &scratch);
        let started = self.wire.links[link].session.start_request(lane, bytes);
        self.conns[lane].scratch = scratch;
        match started {
            Ok(_) => {
                self.conns[lane].state = State::Reading;
                if self.wire.flush_deferred_for != Some(link) {
                    self.flush_link(link, now);
                }
            }
            Err(StartError::NoStreamSlot | StartError::GoingAway | StartError::StreamIdsExhausted) => {
                self.conns[lane].state = State::Writing;
                if !self.wire.links[link].waiting.contains(&lane) {
                    self.wire.links[link].waiting.push_back(lane);
                }
            }
            Err(StartError::Unparsable(_)) => self.fail(lane, Failure::Write, now),
        }
    }

    /// Write what link `link`'s session queued; a socket that fails loses the link.
    fn flush_link(&mut self, link: usize, now: Instant) {
        let flushed = self.wire.links[link].flush(self.poll.registry(), Token(link), &mut self.recorder.bytes_sent);
        if flushed.is_err() {
            self.link_lost(link, None, now);
        }
    }

    /// Readable or writable: read what came (each stream's outcome to its lane), start the lanes waiting for a
    /// stream, write what all that queued, and replace the connection once it has gone away.
    fn on_link_event(&mut self, link: usize) {
        let now = Instant::now();
        match self.wire.links.get(link).map(|link| link.state) {
            Some(LinkState::Connecting(_) | LinkState::Handshaking(_)) => {
                return self.on_link_setup_event(link, now, true);
            }
            Some(LinkState::Up) => {}
            Some(LinkState::Down) | None => return,
        }
        let mut events = std::mem::take(&mut self.wire.stream_events);
        let received =
            self.wire.links[link].receive(&mut self.read_buffer, &mut self.recorder.bytes_received, &mut events);
        let now = Instant::now();
        self.wire.flush_deferred_for = Some(link);
        for event in events.drain(..) {
            self.on_stream_event(link, event, now);
        }
        self.wire.stream_events = events;
        self.start_waiting_lanes(link, now);
        self.wire.flush_deferred_for = None;
        match received {
            Received::Drained => {}
            Received::Invalid(reason) => return self.link_lost(link, Some(&reason), now),
            Received::Closed | Received::Failed => return self.link_lost(link, None, now),
        }
        if self.wire.links[link].state == LinkState::Up {
            self.flush_link(link, now);
        }
        if self.wire.links[link].state == LinkState::Up && self.wire.links[link].session.finished() {
            self.replace_link(link, now);
        }
    }

    fn on_stream_event(&mut self, link: usize, event: Event, now: Instant) {
        match event {
            Event::Response { lane, status, .. } => self.complete(lane, status, false, now),
            // Refused before processing: the request goes out again (once) on this connection.
            Event::Reset { lane, code, .. } if code == error_code::REFUSED_STREAM && !self.conns[lane].resent => {
                self.conns[lane].resent = true;
                self.recorder.resent += 1;
                self.start_stream(lane, now);
            }
            Event::Reset { lane, .. } => self.fail(lane, Failure::Read, now),
            Event::GoAway { .. } => {}
            // Above the GOAWAY's last stream: never processed, sent again on the next connection.
            Event::Unprocessed { lane } => {
                let conn = &mut self.conns[lane];
                conn.resend_when_connected = true;
                conn.state = State::Connecting(now);
                self.wire.links[link].waiting.retain(|&waiting| waiting != lane);
            }
        }
    }

    /// Lanes waiting for a stream start, oldest first, as far as the session has streams free.
    fn start_waiting_lanes(&mut self, link: usize, now: Instant) {
        while self.wire.links[link].session.can_start() {
            let Some(lane) = self.wire.links[link].waiting.pop_front() else { break };
            if self.conns[lane].state == State::Writing {
                self.start_stream(lane, now);
            }
        }
    }

    /// A lane's request timed out: its stream is reset, and the lane sends its next request on the connection.
    fn abandon_stream(&mut self, lane: usize, now: Instant) {
        let link = self.link_of(lane);
        self.wire.links[link].waiting.retain(|&waiting| waiting != lane);
        if self.wire.links[link].session.cancel(lane) {
            self.flush_link(link, now);
        }
        // A connection going away may have waited for this stream alone.
        if self.wire.links[link].state == LinkState::Up && self.wire.links[link].session.finished() {
            self.replace_link(link, now);
        }
        self.lane_goes_on_link(lane, now);
    }

    /// The connection broke — closed by the server, a socket or TLS error (a `read` error for each request in flight
    /// on it), or a protocol error in what the server sent (`invalid`, its reason: an `invalid response` for each) —
    /// and the requests waiting for a stream wait for one of the new connection.
    fn link_lost(&mut self, link: usize, invalid: Option<&str>, now: Instant) {
        self.wire.links[link].close(self.poll.registry());
        for lane in self.wire.links[link].lanes.clone() {
            if self.conns[lane].state == State::Reading {
                let request = self.conns[lane].request;
                match invalid {
                    Some(reason) => self.recorder.invalid_response(request, reason),
                    None => self.recorder.failure(request, Failure::Read),
                }
            }
        }
        self.replace_link(link, now);
    }

    /// Connect link `link` again (after GOAWAY, or after it broke) — unless none of its lanes has a request left to
    /// send (the run's last requests were its last), when its lanes are done and nothing reconnects.
    fn replace_link(&mut self, link: usize, now: Instant) {
        self.wire.links[link].close(self.poll.registry());
        let lanes = self.wire.links[link].lanes.clone();
        if !lanes.clone().any(|lane| self.conns[lane].state != State::Done && self.has_work(lane)) {
            for lane in lanes {
                self.conns[lane].state = State::Done;
            }
            return;
        }
        self.recorder.reconnects += 1;
        self.connect_link(link, now);
    }

    /// Links whose set-up outlasted the timeout fail (counted once each).
    fn scan_links(&mut self, now: Instant) {
        for link in 0..self.wire.links.len() {
            let Some(since) = self.wire.links[link].setting_up_since() else { continue };
            if now.duration_since(since) >= self.shared.timeout {
                let failure = match self.wire.links[link].state {
                    LinkState::Connecting(_) => Failure::Connect,
                    _ => Failure::Tls(TlsFailure::Handshake),
                };
                self.link_set_up_failed(link, failure, now);
            }
        }
    }
}
