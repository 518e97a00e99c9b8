//! The worker's HTTP/2 side: lanes (request slots) share a connection, `--streams` of them each. A lane is driven
//! exactly as an HTTP/1.1 connection is — schedule, quota, latency, timeouts, accounting at the end — except that
//! its request goes out as a stream of its link's session, and the events of a link's socket are the link's, which
//! hands each stream's outcome to its lane. Connection failures are counted once per link, not per lane.

use std::time::Instant;

use mio::Token;

use super::Worker;
use crate::load::connections::conn::State;
use crate::load::connections::h2::{Event, StartError, error_code};
use crate::load::connections::h2_link::{LinkState, Received};
use crate::load::connections::socket::Setup;
use crate::load::connections::tls::TlsFailure;
use crate::load::record::recorder::Failure;

impl Worker<'_> {
    fn link_of(&self, lane: usize) -> usize {
        lane / self.shared.lanes_per_connection
    }

    /// Lane `lane` needs its connection: connect it when it is down, else wait for it or go on on it.
    pub(super) fn open_lane(&mut self, lane: usize, now: Instant) {
        let link = self.link_of(lane);
        if self.links[link].state == LinkState::Down {
            self.connect_link(link, now);
        }
        match self.links[link].state {
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
        if self.links[link].connect(registry, Token(link), addr, &self.shared.security, now).is_err() {
            return self.link_set_up_failed(link, Failure::Connect, now);
        }
        let lanes = self.links[link].lanes.clone();
        // Their scheduled sends (if any) are planned again from `next_slot` once the connection is up.
        self.schedule.retain(|&std::cmp::Reverse((_, queued))| !lanes.contains(&queued));
        for lane in lanes {
            if !matches!(self.conns[lane].state, State::Done | State::Writing) {
                self.conns[lane].state = State::Connecting(now);
            }
        }
    }

    /// An event on a link being set up (during the connect phase before the start, `running` false).
    pub(super) fn on_link_setup_event(&mut self, link: usize, now: Instant, running: bool) {
        let Some(started) = self.links.get(link).and_then(|link| link.setting_up_since()) else { return };
        let connecting = matches!(self.links[link].state, LinkState::Connecting(_));
        match self.links[link].set_up(self.poll.registry(), Token(link), &mut self.recorder.bytes_sent) {
            Ok(Setup::Handshaking) => {}
            Ok(Setup::Ready) => {
                let first = self.recorder.negotiated.is_none();
                let transport = self.links[link].socket.transport.as_ref().filter(|_| first);
                let negotiated = transport.and_then(|transport| transport.negotiated());
                self.set_up_done(started, negotiated, now);
                for lane in self.links[link].lanes.clone() {
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
        self.links[link].close(self.poll.registry());
        self.links[link].waiting.clear();
        for lane in self.links[link].lanes.clone() {
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
    pub(super) fn lane_goes_on(&mut self, lane: usize, now: Instant) {
        let link = self.link_of(lane);
        if self.links[link].state == LinkState::Up && !self.links[link].session.is_going_away() {
            self.lane_ready(lane, now);
        } else {
            self.conns[lane].state = State::Connecting(now);
        }
    }

    /// Send lane `lane`'s request as a new stream; without a free stream it waits for one (its latency runs).
    pub(super) fn start_stream(&mut self, lane: usize, now: Instant) {
        let link = self.link_of(lane);
        let conn = &mut self.conns[lane];
        let scratch = std::mem::take(&mut conn.scratch);
        let bytes = self.shared.set.request_bytes(conn.request, &scratch);
        let started = self.links[link].session.start_request(lane, bytes);
        self.conns[lane].scratch = scratch;
        match started {
            Ok(_) => {
                self.conns[lane].state = State::Reading;
                if self.flush_deferred_for != Some(link) {
                    self.flush_link(link, now);
                }
            }
            Err(StartError::NoStreamSlot | StartError::GoingAway | StartError::StreamIdsExhausted) => {
                self.conns[lane].state = State::Writing;
                if !self.links[link].waiting.contains(&lane) {
                    self.links[link].waiting.push_back(lane);
                }
            }
            Err(StartError::Unparsable(_)) => self.fail(lane, Failure::Write, now),
        }
    }

    /// Write what link `link`'s session queued; a socket that fails loses the link.
    fn flush_link(&mut self, link: usize, now: Instant) {
        let flushed = self.links[link].flush(self.poll.registry(), Token(link), &mut self.recorder.bytes_sent);
        if flushed.is_err() {
            self.link_lost(link, now);
        }
    }

    /// Readable or writable: read what came (each stream's outcome to its lane), start the lanes waiting for a
    /// stream, write what all that queued, and replace the connection once it has gone away.
    pub(super) fn on_link_event(&mut self, link: usize) {
        let now = Instant::now();
        match self.links.get(link).map(|link| link.state) {
            Some(LinkState::Connecting(_) | LinkState::Handshaking(_)) => {
                return self.on_link_setup_event(link, now, true);
            }
            Some(LinkState::Up) => {}
            Some(LinkState::Down) | None => return,
        }
        let mut events = std::mem::take(&mut self.stream_events);
        let received = self.links[link].receive(&mut self.read_buffer, &mut self.recorder.bytes_received, &mut events);
        let now = Instant::now();
        self.flush_deferred_for = Some(link);
        for event in events.drain(..) {
            self.on_stream_event(link, event, now);
        }
        self.stream_events = events;
        self.start_waiting_lanes(link, now);
        self.flush_deferred_for = None;
        if !matches!(received, Received::Drained) {
            return self.link_lost(link, now);
        }
        if self.links[link].state == LinkState::Up {
            self.flush_link(link, now);
        }
        if self.links[link].state == LinkState::Up && self.links[link].session.finished() {
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
                self.links[link].waiting.retain(|&waiting| waiting != lane);
            }
        }
    }

    /// Lanes waiting for a stream start, oldest first, as far as the session has streams free.
    fn start_waiting_lanes(&mut self, link: usize, now: Instant) {
        while self.links[link].session.can_start() {
            let Some(lane) = self.links[link].waiting.pop_front() else { break };
            if self.conns[lane].state == State::Writing {
                self.start_stream(lane, now);
            }
        }
    }

    /// A lane's request timed out: its stream is reset, and the lane sends its next request on the connection.
    pub(super) fn abandon_stream(&mut self, lane: usize, now: Instant) {
        let link = self.link_of(lane);
        self.links[link].waiting.retain(|&waiting| waiting != lane);
        if self.links[link].session.cancel(lane) {
            self.flush_link(link, now);
        }
        // A connection going away may have waited for this stream alone.
        if self.links[link].state == LinkState::Up && self.links[link].session.finished() {
            self.replace_link(link, now);
        }
        self.lane_goes_on(lane, now);
    }

    /// The connection broke (closed by the server, a socket or TLS error, an HTTP/2 protocol error): each request
    /// in flight on it fails; those waiting for a stream wait for one of the new connection.
    fn link_lost(&mut self, link: usize, now: Instant) {
        self.links[link].close(self.poll.registry());
        for lane in self.links[link].lanes.clone() {
            if self.conns[lane].state == State::Reading {
                self.recorder.failure(self.conns[lane].request, Failure::Read);
            }
        }
        self.replace_link(link, now);
    }

    /// Connect link `link` again (after GOAWAY, or after it broke).
    fn replace_link(&mut self, link: usize, now: Instant) {
        self.recorder.reconnects += 1;
        self.links[link].close(self.poll.registry());
        self.connect_link(link, now);
    }

    /// Links whose set-up outlasted the timeout fail (counted once each).
    pub(super) fn scan_links(&mut self, now: Instant) {
        for link in 0..self.links.len() {
            let Some(since) = self.links[link].setting_up_since() else { continue };
            if now.duration_since(since) >= self.shared.timeout {
                let failure = match self.links[link].state {
                    LinkState::Connecting(_) => Failure::Connect,
                    _ => Failure::Tls(TlsFailure::Handshake),
                };
                self.link_set_up_failed(link, failure, now);
            }
        }
    }
}
