//! The worker's side of connection set-up, whatever the wire protocol: a ready connection's set-up time recorded
//! apart from any request (and what TLS agreed on, from the first), a failed set-up counted under its class, and the
//! request a lane could not send for want of a connection given up, so that `-n` always ends.
use std::time::Instant;

use super::{CONNECT_BACKOFF, Wire, Worker, micros};
use crate::load::connections::conn::State;
use crate::load::connections::transport::HandshakeError;
use crate::load::input::tls::explain;
use crate::load::record::recorder::Failure;
use crate::load::record::recorder::{Negotiated, TlsFailure};

impl<P: Wire> Worker<'_, P> {
    /// A connection's set-up failed with `err`, in its TCP connect (`connecting`) or its TLS handshake: the class
    /// it is counted under (the first TLS failure's reason is kept).
    pub(crate) fn set_up_failed(&mut self, err: HandshakeError, connecting: bool) -> Failure {
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
    pub(crate) fn set_up_done(&mut self, started: Instant, negotiated: Option<Negotiated>, now: Instant) {
        self.recorder.connected(micros(now.saturating_duration_since(started)));
        if self.recorder.negotiated.is_none() {
            self.recorder.negotiated = negotiated;
        }
        self.last_progress = now;
        self.refused_since_progress = 0;
    }

    /// A failed or timed-out connect or TLS handshake (`failure`): counted, and its request given up.
    pub(crate) fn connect_failed(&mut self, index: usize, failure: Failure, now: Instant) {
        self.count_failed_connection(failure);
        self.give_up_request(index, now);
    }

    pub(crate) fn count_failed_connection(&mut self, failure: Failure) {
        self.recorder.connection_failure(failure);
        self.refused_since_progress += 1;
    }

    /// Lane `index` could not get a connection: so that `-n` always ends, it uses up the request it was for — the
    /// one waiting to be re-sent, if any, else the next one — and waits before trying again.
    pub(crate) fn give_up_request(&mut self, index: usize, now: Instant) {
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
