//! HTTP/1.1 on the wire: one lane per connection, the lane's [`Conn`](crate::load::connections::conn::Conn) owning its socket,
//! one request in flight on it at a time. The connection's set-up (TCP connect, TLS handshake) is timed per lane; a
//! failure or a closing response replaces the connection; a request the server closed under before reading it goes
//! out again on the next one.

use std::cmp::Reverse;
use std::time::Instant;

use mio::Token;

use crate::load::connections::conn::{PeerClose, ReadOutcome, State, peer_close};
use crate::load::connections::worker::{Wire, Worker};
use crate::load::record::recorder::Failure;
use crate::load::record::recorder::TlsFailure;

/// HTTP/1.1: nothing beside the lanes (each lane's [`Conn`](crate::load::connections::conn::Conn) is its connection).
pub(crate) struct Http1;

impl Wire for Http1 {
    fn open(worker: &mut Worker<'_, Self>, lane: usize, now: Instant) {
        let addr = worker.shared.set.endpoint.addr;
        let security = &worker.shared.security;
        if worker.conns[lane].connect(worker.poll.registry(), Token(lane), addr, security, now).is_err() {
            worker.connect_failed(lane, Failure::Connect, now);
        }
    }

    fn on_set_up_event(worker: &mut Worker<'_, Self>, token: usize, now: Instant) {
        if token < worker.conns.len() && worker.conns[token].setting_up() {
            worker.complete_connect(token, now, false);
        }
    }

    fn on_event(worker: &mut Worker<'_, Self>, lane: usize, writable: bool, peer_closed: bool) {
        let now = Instant::now();
        match worker.conns[lane].state {
            State::Connecting(_) | State::Handshaking(_) => worker.complete_connect(lane, now, true),
            State::Writing if writable => worker.continue_write(lane, now),
            State::Writing | State::Reading => worker.read(lane, peer_closed),
            State::Idle => worker.read_while_idle(lane),
            State::Backoff(_) | State::Done => {}
        }
    }

    /// From its first byte, its response parsed afresh.
    fn send(worker: &mut Worker<'_, Self>, lane: usize, now: Instant) {
        let conn = &mut worker.conns[lane];
        conn.write_offset = 0;
        conn.parser.reset(worker.shared.set.requests[conn.request].is_head);
        worker.continue_write(lane, now);
    }

    /// On a new connection.
    fn lane_goes_on(worker: &mut Worker<'_, Self>, lane: usize, now: Instant) {
        worker.recorder.reconnects += 1;
        Self::open(worker, lane, now);
    }

    /// The connection is dropped with the request: the lane goes on on a new one.
    fn abandon(worker: &mut Worker<'_, Self>, lane: usize, now: Instant) {
        Self::lane_goes_on(worker, lane, now);
    }

    /// A lane's set-up is its connection's: timed out in either step.
    fn lane_set_up_expired(state: State) -> Option<Failure> {
        match state {
            State::Connecting(_) => Some(Failure::Connect),
            _ => Some(Failure::Tls(TlsFailure::Handshake)),
        }
    }

    fn scan(_: &mut Worker<'_, Self>, _: Instant) {}

    fn close(_: &mut Worker<'_, Self>) {}
}

impl Worker<'_, Http1> {
    /// Write what the socket takes of the lane's request, from `write_offset` on.
    fn continue_write(&mut self, index: usize, now: Instant) {
        let conn = &mut self.conns[index];
        // The rendered bytes live in the connection; lend them out while it writes (no copy, no allocation).
        let scratch = std::mem::take(&mut conn.scratch);
        let bytes = self.shared.set.request_bytes(conn.request, &scratch);
        let written = conn.write_request(self.poll.registry(), Token(index), bytes, &mut self.recorder.bytes_sent);
        conn.scratch = scratch;
        if let Err(err) = written {
            match peer_close(&err) {
                Some(how) => self.closed_by_peer(index, how, Failure::Write, now),
                None => self.fail(index, Failure::Write, now),
            }
        }
    }

    /// An event on a connection being set up: the TCP connect's completion, or the TLS handshake's next step. Once
    /// the connection is ready, its setup time is recorded and (`running`) its next request goes out.
    fn complete_connect(&mut self, index: usize, now: Instant, running: bool) {
        let conn = &mut self.conns[index];
        let (registry, token) = (self.poll.registry(), Token(index));
        let (started, progressed) = match conn.state {
            State::Connecting(started) => (started, conn.finish_connect(registry, token)),
            State::Handshaking(started) => (started, conn.continue_handshake(registry, token)),
            _ => return,
        };
        match progressed {
            Ok(()) if conn.state != State::Idle => return, // the TLS handshake goes on
            Ok(()) => {}
            Err(err) => {
                let connecting = matches!(conn.state, State::Connecting(_));
                let failure = self.set_up_failed(err, connecting);
                self.connect_failed(index, failure, now);
                return;
            }
        }
        // What TLS agreed on is kept from the first connection only (read once: it builds strings).
        let first = self.recorder.negotiated.is_none();
        let negotiated = conn.socket.transport.as_ref().filter(|_| first).and_then(|transport| transport.negotiated());
        self.set_up_done(started, negotiated, now);
        if running && self.conns[index].resend_when_connected {
            self.resend(index, now);
        } else if running {
            self.start_next(index, now);
        }
    }

    fn read(&mut self, index: usize, peer_closed: bool) {
        let outcome =
            self.conns[index].read_response(&mut self.read_buffer, &mut self.recorder.bytes_received, peer_closed);
        let now = Instant::now();
        match outcome {
            ReadOutcome::Pending => {}
            ReadOutcome::Complete { status, close } => self.complete(index, status, close || peer_closed, now),
            ReadOutcome::Closed(how) => self.closed_by_peer(index, how, Failure::Read, now),
            ReadOutcome::Invalid(invalid) => self.fail_invalid(index, &invalid.0, now),
            ReadOutcome::Failed => self.fail(index, Failure::Read, now),
        }
    }

    /// The peer closed the connection under the request in flight. If it had closed before reading the request (the
    /// close came with or right after the previous response), the request was never processed: send it again on a
    /// new connection. Otherwise the server dropped a request it had read: a failure of this class.
    fn closed_by_peer(&mut self, index: usize, how: PeerClose, failure: Failure, now: Instant) {
        if self.conns[index].unanswered_because_closed(how) {
            self.conns[index].resend_when_connected = true;
            Http1::lane_goes_on(self, index, now);
        } else {
            self.fail(index, failure, now);
        }
    }

    /// Data or a close on a connection with no request in flight: the server ended an idle keep-alive connection.
    fn read_while_idle(&mut self, index: usize) {
        let conn = &mut self.conns[index];
        conn.parser.reset(false);
        if let ReadOutcome::Pending =
            conn.read_response(&mut self.read_buffer, &mut self.recorder.bytes_received, false)
        {
            return;
        }
        // Its scheduled send (if any) is re-planned from `next_slot` once the new connection is up.
        self.schedule.retain(|&Reverse((_, queued))| queued != index);
        Http1::lane_goes_on(self, index, Instant::now());
    }
}
