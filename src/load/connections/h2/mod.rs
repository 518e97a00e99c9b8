//! An HTTP/2 client connection (RFC 9113) as a state machine without I/O, for the load engine's workers.
//!
//! # How a worker drives it
//! The worker owns the socket (plain TCP, or TLS whose decrypted bytes it hands over) and its event loop. It creates
//! a [`Session`] (which queues the client preface, our SETTINGS and a raise of the connection window), writes
//! [`Session::output`] to the socket and reports what was written with [`Session::consumed`], starts requests with
//! [`Session::start_request`], feeds every byte it reads to [`Session::receive`] and hears of results as [`Event`]s.
//!
//! # Lanes
//! A lane is the caller's index for a request slot (one of its `--streams` per connection). Every request is started
//! for a lane and every event names it, so the caller never maps stream ids back to its own state; stream ids are
//! returned for logs only. [`Session::cancel`] takes a lane too (a request that timed out: RST_STREAM CANCEL).
//!
//! # Windows
//! Receiving: we announce a large INITIAL_WINDOW_SIZE ([`SessionConfig::stream_window`]) and raise the connection
//! window to [`SessionConfig::connection_window`]. Response bodies are counted, never kept, so the bytes are consumed
//! as they arrive; credit goes back in a WINDOW_UPDATE once half a window was used, for the stream (unless it just
//! ended) and for the connection (DATA of cancelled or finished streams included), so a long run never stalls.
//! Sending: request bodies go out in DATA frames as far as both the stream's and the connection's send windows
//! allow; the rest waits in the stream's slot and goes out as the server's WINDOW_UPDATEs (or a larger
//! INITIAL_WINDOW_SIZE) arrive. A SETTINGS change of INITIAL_WINDOW_SIZE moves every open stream's send window by the
//! difference, which may leave it negative.
//!
//! # GOAWAY
//! After a GOAWAY no stream starts. Open streams with an id above its last stream were never processed by the
//! server: each is reported [`Event::Unprocessed`] (the caller sends it again on a new connection) and forgotten.
//! Streams up to the last stream go on until they end; then [`Session::finished`] is true and the caller connects
//! again.
//!
//! # Errors
//! A stream's trouble arrives as [`Event::Reset`]. Connection errors (a peer that is not HTTP/2, bad frame sizes,
//! HPACK failures, flow-control violations, frames on streams never opened) return a [`session::SessionError`] after queueing
//! a GOAWAY with the matching code. A few errors the RFC lets a peer treat as stream errors (a stream's flow-control
//! violation, trailers without END_STREAM) are connection errors here: a server that commits them is broken.
//!
//! # Allocation
//! The output buffer, the partial-frame buffer, header scratch and the stream table (a fixed number of slots found by
//! linear search, each keeping its body buffer) are reused, so a warmed-up session does not allocate per request.
//! The HPACK decoder allocates for its dynamic table and for Huffman-coded values, as it must.

mod encoder_table;
mod frame;
mod header_block;
mod hpack;
mod inbound;
mod session;
mod streams;

pub use frame::code as error_code;
#[cfg(test)]
pub use session::SessionError;
pub use session::{Event, Scheme, Session, SessionConfig, StartError};

#[cfg(test)]
#[path = "session_tests.rs"]
mod session_tests;

#[cfg(test)]
#[path = "allocation_tests.rs"]
mod allocation_tests;
