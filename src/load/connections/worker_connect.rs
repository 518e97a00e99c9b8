//! The worker's connections being set up: opening one, the TCP connect's and the TLS handshake's completion (its
//! set-up time recorded apart from any request), and a failed set-up counted under its class with the request it was
//! for given up, so that `-n` always ends.

use std::time::Instant;

use mio::Token;

use super::{CONNECT_BACKOFF, Worker, micros};
use crate::load::connections::conn::State;
use crate::load::connections::tls::{TlsFailure, explain};
use crate::load::connections::transport::{HandshakeError, Negotiated};
use crate::load::record::recorder::Failure;

impl Worker<'_> {
    pub(super) fn open(&mut self, index: usize, now: Instant) {
        if self.shared.http2.is_some() {
            return self.open_lane(index, now);
        }
        let addr = self.shared.set.endpoint.addr;
        let security = &self.shared.security;
        if self.conns[index].connect(self.poll.registry(), Token(index), addr, security, now).is_err() {
            self.connect_failed(index, Failure::Connect, now);
        }
    }

    /// An event on a connection being set up: the TCP connect's completion, or the TLS handshake's next step. Once
    /// the connection is ready, its setup time is recorded and (`running`) its next request goes out.
    pub(super) fn complete_connect(&mut self, index: usize, now: Instant, running: bool) {
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

    /// A connection's set-up failed with `err`, in its TCP connect (`connecting`) or its TLS handshake: the class
    /// it is counted under (the first TLS failure's reason is kept).
    pub(super) fn set_up_failed(&mut self, err: HandshakeError, connecting: bool) -> Failure {
        let (failure, reason) = match err {
            HandshakeError::Io(_) if connecting => (Failure::Connect, None),
            HandshakeError::Io(err) => (Failure::Tls(TlsFailure::Handshake), Some(err.to_string())),
            HandshakeError::Tls(class, err) => (Failure::Tls(class), Some(explain(&err))),
        };
        if self.recorder.tls_error.is_none() {
            self.recorder.tls_error = reason;
        }
        failure
    }

    /// A connection became ready for requests: its set-up time (since `started`) recorded, what TLS agreed on kept
    /// from the first.
    pub(super) fn set_up_done(&mut self, started: Instant, negotiated: Option<Negotiated>, now: Instant) {
        self.recorder.connected(micros(now.saturating_duration_since(started)));
        if self.recorder.negotiated.is_none() {
            self.recorder.negotiated = negotiated;
        }
        self.last_progress = now;
        self.refused_since_progress = 0;
    }

    /// A failed or timed-out connect or TLS handshake (`failure`): counted, and its request given up.
    pub(super) fn connect_failed(&mut self, index: usize, failure: Failure, now: Instant) {
        self.count_failed_connection(failure);
        self.give_up_request(index, now);
    }

    pub(super) fn count_failed_connection(&mut self, failure: Failure) {
        self.recorder.connection_failure(failure);
        self.refused_since_progress += 1;
    }

    /// Lane `index` could not get a connection: so that `-n` always ends, it uses up the request it was for — the
    /// one waiting to be re-sent, if any, else the next one — and waits before trying again.
    pub(super) fn give_up_request(&mut self, index: usize, now: Instant) {
        self.conns[index].close(self.poll.registry());
        if std::mem::take(&mut self.conns[index].resend_when_connected) {
            // Its quota or schedule slot was taken when it was first sent.
        } else if self.shared.rate.is_some() {
            if self.next_send_time(index).is_some_and(|at| at <= now && self.before_end(at)) {
                self.conns[index].next_slot += 1;
            }
        } else if let Some(left) = &mut self.quota_left {
            *left = left.saturating_sub(1);
        }
        self.conns[index].state = State::Backoff(now + CONNECT_BACKOFF);
    }
}
