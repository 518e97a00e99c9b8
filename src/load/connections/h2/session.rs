//! The client session's state and its sending side: the connection preface, starting requests (HEADERS,
//! CONTINUATION, DATA within the send windows), cancelling them, and the output buffer the caller drains. Received
//! frames are handled in `inbound.rs`.

use std::fmt;

use super::encoder_table::EncoderTable;
use super::frame::{self, code, flag, kind, setting};
use super::header_block::encode_request;
use super::hpack;
use super::streams::StreamTable;

/// The largest DATA frame we send, even when the peer accepts larger ones (keeps one stream from holding the
/// connection for long).
const MAX_DATA_FRAME: usize = 64 * 1024;
/// Output already written is moved out of the buffer once it is this large.
const COMPACT_OUTPUT_AFTER: usize = 64 * 1024;

/// The scheme the requests' `:scheme` names (the connection's: TLS or not).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheme {
    Http,
    Https,
}

impl Scheme {
    pub fn as_str(self) -> &'static str {
        match self {
            Scheme::Http => "http",
            Scheme::Https => "https",
        }
    }
}

/// How a session behaves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionConfig {
    /// The most streams (requests) open at once (`--streams`); the peer's MAX_CONCURRENT_STREAMS may lower it.
    pub max_streams: usize,
    pub scheme: Scheme,
    /// Our INITIAL_WINDOW_SIZE: how much response body the server may send on a stream before we give credit back.
    pub stream_window: u32,
    /// The connection's receive window (raised from 65,535 with a WINDOW_UPDATE in the preface).
    pub connection_window: u32,
}

impl SessionConfig {
    /// 16 MiB windows per stream and 64 MiB for the connection: a server is never held back by us.
    pub fn new(max_streams: usize, scheme: Scheme) -> SessionConfig {
        SessionConfig { max_streams, scheme, stream_window: 16 << 20, connection_window: 64 << 20 }
    }
}

/// What the session reports while receiving.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// The response on `stream` is complete (END_STREAM): its final status and how many body bytes it had.
    Response { lane: usize, stream: u32, status: u16, body_bytes: u64 },
    /// The server reset the stream; `code` REFUSED_STREAM (0x7) means it was not processed (safe to send again).
    Reset { lane: usize, stream: u32, code: u32 },
    /// The server is closing the connection: streams up to `last_stream` still complete, no new ones start.
    GoAway { last_stream: u32, code: u32 },
    /// The request of `lane` was never processed by the server (its stream was above GOAWAY's last stream): send it
    /// again on a new connection.
    Unprocessed { lane: usize },
}

/// Why a request could not start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StartError {
    /// As many streams are open as we or the peer allow.
    NoStreamSlot,
    /// The session is going away (GOAWAY received) or has failed: connect again.
    GoingAway,
    /// Every client stream id was used: connect again.
    StreamIdsExhausted,
    /// The request bytes are not a complete HTTP/1.1 request usable over HTTP/2.
    Unparsable(&'static str),
}

impl fmt::Display for StartError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StartError::NoStreamSlot => formatter.write_str("no HTTP/2 stream free"),
            StartError::GoingAway => formatter.write_str("the HTTP/2 connection is going away"),
            StartError::StreamIdsExhausted => formatter.write_str("the HTTP/2 connection used all its stream ids"),
            StartError::Unparsable(reason) => write!(formatter, "request not sendable over HTTP/2: {reason}"),
        }
    }
}

impl std::error::Error for StartError {}

/// A connection-level protocol error: the session is dead (a GOAWAY with `code` is queued).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionError {
    /// The HTTP/2 error code sent in our GOAWAY (see `frame::code`).
    pub code: u32,
    pub reason: String,
}

impl SessionError {
    pub fn new(code: u32, reason: impl Into<String>) -> SessionError {
        SessionError { code, reason: reason.into() }
    }
}

impl fmt::Display for SessionError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "HTTP/2 protocol error (code {:#x}): {}", self.code, self.reason)
    }
}

impl std::error::Error for SessionError {}

/// A header block being received across HEADERS and CONTINUATION frames.
#[derive(Debug, Clone, Copy)]
pub(super) struct HeaderBlockInProgress {
    pub stream: u32,
    pub end_stream: bool,
}

/// An HTTP/2 client connection without I/O; see the module documentation.
pub struct Session {
    pub(super) config: SessionConfig,
    /// Bytes to write to the socket; `output[written..]` is still unwritten.
    pub(super) output: Vec<u8>,
    written: usize,
    /// A partial frame carried over between `receive` calls.
    pub(super) inbound: Vec<u8>,
    /// Scratch for the header block of the request being started.
    request_block: Vec<u8>,
    /// The response header block being assembled from HEADERS and CONTINUATION.
    pub(super) response_block: Vec<u8>,
    pub(super) block_in_progress: Option<HeaderBlockInProgress>,
    pub(super) decoder: hpack::Decoder,
    pub(super) streams: StreamTable,
    /// The id the next request gets (odd, rising).
    pub(super) next_stream_id: u32,
    /// The peer's settings as they apply now.
    pub(super) peer_max_streams: usize,
    pub(super) peer_initial_window: i64,
    pub(super) peer_max_frame: usize,
    /// How many more DATA bytes the peer accepts on the connection.
    pub(super) connection_send_window: i64,
    /// How many more DATA bytes the peer may send on the connection before we give credit back.
    pub(super) connection_receive_window: i64,
    pub(super) connection_received_since_update: u64,
    /// The server's first SETTINGS (its preface) arrived.
    pub(super) peer_preface_seen: bool,
    /// The fields our requests added to the server's HPACK table.
    pub(super) encoder_table: EncoderTable,
    /// GOAWAY's last stream, once one arrived.
    pub(super) goaway_last_stream: Option<u32>,
    /// The connection error that ended the session.
    pub(super) failure: Option<SessionError>,
}

impl Session {
    /// A new session with the client preface, our SETTINGS and the connection window's raise already queued.
    pub fn new(config: SessionConfig) -> Session {
        let mut output = Vec::with_capacity(16 * 1024);
        output.extend_from_slice(frame::CLIENT_PREFACE);
        frame::put_settings(
            &mut output,
            &[(setting::ENABLE_PUSH, 0), (setting::INITIAL_WINDOW_SIZE, config.stream_window)],
        );
        let connection_raise = config.connection_window.saturating_sub(frame::DEFAULT_WINDOW);
        if connection_raise > 0 {
            frame::put_window_update(&mut output, 0, connection_raise);
        }
        let decoder = hpack::Decoder::new(4096); // SETTINGS_HEADER_TABLE_SIZE's default, which we keep
        Session {
            streams: StreamTable::with_capacity(config.max_streams),
            connection_receive_window: i64::from(config.connection_window.max(frame::DEFAULT_WINDOW)),
            config,
            output,
            written: 0,
            inbound: Vec::with_capacity(frame::DEFAULT_MAX_FRAME_SIZE + frame::FRAME_HEADER_BYTES),
            request_block: Vec::with_capacity(1024),
            response_block: Vec::with_capacity(1024),
            block_in_progress: None,
            decoder,
            next_stream_id: 1,
            peer_max_streams: usize::MAX,
            peer_initial_window: i64::from(frame::DEFAULT_WINDOW),
            peer_max_frame: frame::DEFAULT_MAX_FRAME_SIZE,
            connection_send_window: i64::from(frame::DEFAULT_WINDOW),
            connection_received_since_update: 0,
            peer_preface_seen: false,
            encoder_table: EncoderTable::default(),
            goaway_last_stream: None,
            failure: None,
        }
    }

    /// Bytes waiting to be written to the socket.
    pub fn output(&self) -> &[u8] {
        &self.output[self.written..]
    }

    /// The first `count` bytes of `output()` were written.
    pub fn consumed(&mut self, count: usize) {
        self.written = (self.written + count).min(self.output.len());
        if self.written == self.output.len() {
            self.output.clear();
            self.written = 0;
        } else if self.written >= COMPACT_OUTPUT_AFTER {
            self.output.drain(..self.written);
            self.written = 0;
        }
    }

    /// Start `request` (complete HTTP/1.1 bytes: head and body) on a new stream for `lane`, which must have none open;
    /// returns its stream id. Its HEADERS and as much body as the send windows allow are queued at once, the rest as
    /// WINDOW_UPDATEs arrive.
    pub fn start_request(&mut self, lane: usize, request: &[u8]) -> Result<u32, StartError> {
        debug_assert!(self.streams.index_of_lane(lane).is_none(), "lane {lane} already has a stream open");
        if self.failure.is_some() || self.goaway_last_stream.is_some() {
            return Err(StartError::GoingAway);
        }
        if self.next_stream_id > frame::MAX_STREAM_ID {
            return Err(StartError::StreamIdsExhausted);
        }
        if !self.has_stream_slot() {
            return Err(StartError::NoStreamSlot);
        }
        let body_start =
            encode_request(request, self.config.scheme.as_str(), &mut self.encoder_table, &mut self.request_block)
                .map_err(StartError::Unparsable)?;
        let body = &request[body_start..];
        let id = self.next_stream_id;
        self.next_stream_id += 2;
        let index = self
            .streams
            .open(id, lane, self.peer_initial_window, i64::from(self.config.stream_window))
            .expect("has_stream_slot checked for a free slot");
        self.put_header_frames(id, body.is_empty());
        let stream = self.streams.get_mut(index);
        if body.is_empty() {
            stream.request_done = true;
        } else {
            stream.body.extend_from_slice(body);
            self.send_body(index);
        }
        Ok(id)
    }

    /// The request of `lane` is abandoned (timed out): reset its stream and forget it. Later frames of the stream
    /// are ignored. False when `lane` has no open stream.
    pub fn cancel(&mut self, lane: usize) -> bool {
        let Some(index) = self.streams.index_of_lane(lane) else { return false };
        let closed = self.streams.close(index);
        frame::put_rst_stream(&mut self.output, closed.id, code::CANCEL);
        true
    }

    /// Streams started and not yet finished, reset, cancelled or reported unprocessed.
    #[allow(dead_code)] // tests/h2_session.rs asks
    pub fn open_streams(&self) -> usize {
        self.streams.open_count()
    }

    /// True when `start_request` would find a stream (the request itself still has to be usable).
    pub fn can_start(&self) -> bool {
        self.failure.is_none()
            && self.goaway_last_stream.is_none()
            && self.next_stream_id <= frame::MAX_STREAM_ID
            && self.has_stream_slot()
    }

    /// True once the server sent GOAWAY (or the session failed): no new requests on this connection.
    pub fn is_going_away(&self) -> bool {
        self.goaway_last_stream.is_some() || self.failure.is_some()
    }

    /// True when the connection has nothing more to do: it is going away and every stream it keeps has ended. The
    /// caller writes what `output()` still holds (if it can) and connects again.
    pub fn finished(&self) -> bool {
        self.is_going_away() && (self.failure.is_some() || self.streams.open_count() == 0)
    }

    /// The id of the last stream started (0 before the first).
    pub(super) fn highest_stream_started(&self) -> u32 {
        self.next_stream_id.saturating_sub(2)
    }

    fn has_stream_slot(&self) -> bool {
        !self.streams.is_full() && self.streams.open_count() < self.peer_max_streams
    }

    /// Queue the request's header block as HEADERS and, if it exceeds the peer's frame size, CONTINUATIONs.
    fn put_header_frames(&mut self, stream: u32, end_stream: bool) {
        let mut chunks = self.request_block.chunks(self.peer_max_frame).peekable();
        let mut kind = kind::HEADERS;
        let mut flags = if end_stream { flag::END_STREAM } else { 0 };
        if chunks.peek().is_none() {
            frame::put_frame(&mut self.output, kind, flags | flag::END_HEADERS, stream, &[]);
        }
        while let Some(chunk) = chunks.next() {
            if chunks.peek().is_none() {
                flags |= flag::END_HEADERS;
            }
            frame::put_frame(&mut self.output, kind, flags, stream, chunk);
            kind = kind::CONTINUATION;
            flags = 0;
        }
    }

    /// Queue as much of stream `index`'s body as both send windows allow; END_STREAM goes on its last byte.
    pub(super) fn send_body(&mut self, index: usize) {
        let max_frame = self.peer_max_frame.min(MAX_DATA_FRAME);
        let stream = self.streams.get_mut(index);
        while !stream.request_done {
            let allowed = stream.send_window.min(self.connection_send_window);
            let unsent = stream.unsent_body();
            let length = unsent.len().min(max_frame).min(allowed.max(0) as usize);
            if length == 0 {
                return;
            }
            let last = length == unsent.len();
            let flags = if last { flag::END_STREAM } else { 0 };
            frame::put_frame(&mut self.output, kind::DATA, flags, stream.id, &unsent[..length]);
            stream.body_sent += length;
            stream.send_window -= length as i64;
            self.connection_send_window -= length as i64;
            stream.request_done = last;
        }
    }

    /// Send what waits for window on every stream (after the windows grew).
    pub(super) fn send_waiting_bodies(&mut self) {
        for index in 0..self.streams.len() {
            if self.connection_send_window <= 0 {
                return;
            }
            let stream = self.streams.get_mut(index);
            if stream.is_open() && !stream.request_done {
                self.send_body(index);
            }
        }
    }

    /// End the session with a connection error: queue a GOAWAY with its code and remember it.
    pub(super) fn fail(&mut self, error: SessionError) -> SessionError {
        if self.failure.is_none() {
            frame::put_goaway(&mut self.output, 0, error.code, &error.reason);
            self.failure = Some(error.clone());
        }
        error
    }
}
