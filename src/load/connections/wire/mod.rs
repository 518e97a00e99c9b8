//! The wire protocols a worker can drive, each a `Wire` (see `super::worker`) in its own module — HTTP/1.1
//! (`http1.rs`) and HTTP/2 (`http2.rs`) — and the one place that picks the protocol of a run ([`WireKind`]) and
//! starts a worker over it. The worker itself names no protocol.

mod http1;
mod http2;

use std::sync::mpsc::Sender;

use super::h2::Scheme;
use super::worker::{Assignment, Shared, WorkerMessage, run_worker};
use crate::load::input::protocol::{HttpVersion, ProtocolOptions};
use crate::load::input::request::Endpoint;
use crate::load::record::recorder::Recorder;

/// The wire protocol of a run's connections.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WireKind {
    Http1,
    /// HTTP/2, its requests naming this `:scheme`.
    Http2(Scheme),
}

impl WireKind {
    /// What the protocol options ask for on `endpoint`.
    pub fn of(protocol: &ProtocolOptions, endpoint: &Endpoint) -> WireKind {
        match protocol.http {
            HttpVersion::Http2 => WireKind::Http2(if endpoint.tls { Scheme::Https } else { Scheme::Http }),
            // `auto` is settled by one handshake before the run (`ProtocolOptions::resolved`).
            HttpVersion::Http1 | HttpVersion::Auto => WireKind::Http1,
        }
    }

    /// Lanes — request slots, each with one request in flight at most — per connection: HTTP/2's `streams`; 1 for
    /// HTTP/1.1.
    pub fn lanes_per_connection(self, streams: usize) -> usize {
        match self {
            WireKind::Http1 => 1,
            WireKind::Http2(_) => streams,
        }
    }

    /// Run one worker over this protocol to the end of the load (see `super::worker::run_worker`).
    pub fn run_worker(
        self,
        shared: &Shared,
        assignment: Assignment,
        messages: Sender<WorkerMessage>,
    ) -> std::io::Result<Recorder> {
        match self {
            WireKind::Http1 => run_worker(shared, assignment, messages, http1::Http1),
            WireKind::Http2(scheme) => {
                let wire = http2::Http2::new(assignment.connections, shared.lanes_per_connection, scheme);
                run_worker(shared, assignment, messages, wire)
            }
        }
    }
}
