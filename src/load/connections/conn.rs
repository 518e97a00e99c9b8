//! One client connection: its transport (TCP, or TLS over it), where it is in the request/response cycle, and the
//! non-blocking operations the worker's event loop calls (connect, handshake, write the request, read the response).

use std::io;
use std::net::SocketAddr;
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

use mio::{Registry, Token};

use super::http::{InvalidResponse, Parsed, ResponseParser};
use super::socket::{Setup, Socket};
use super::transport::HandshakeError;
use crate::load::input::tls::Security;
use crate::load::record::pause_correction::RecentServiceTime;

/// Where a connection is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// TCP handshake under way since the given time.
    Connecting(Instant),
    /// TLS handshake under way; the connect started at the given time.
    Handshaking(Instant),
    /// Connected, no request in flight (open model: waiting for its next send time).
    Idle,
    /// Request partly written.
    Writing,
    /// Request written, response not complete.
    Reading,
    /// Waiting before connecting again after a failed connect.
    Backoff(Instant),
    /// Nothing more to send.
    Done,
}

/// How the peer ended a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PeerClose {
    /// An orderly close (FIN): the end of the stream, or a reset that followed it (EPIPE).
    Fin,
    /// A reset without a FIN: the peer's kernel discarded the connection, with any request still unread in it.
    Reset,
}

/// Outcome of reading what a readable event announced.
#[derive(Debug)]
pub enum ReadOutcome {
    /// Response not complete yet; wait for the next event.
    Pending,
    Complete {
        status: u16,
        close: bool,
    },
    /// The peer closed or reset the connection before the response was complete.
    Closed(PeerClose),
    /// The bytes received are not a valid HTTP/1.1 response.
    Invalid(InvalidResponse),
    /// Another socket error.
    Failed,
}

pub struct Conn {
    pub socket: Socket,
    pub state: State,
    /// Index of the request in flight (in the request set).
    pub request: usize,
    /// When the request should have been sent (open model) or was sent (closed model).
    pub intended: Instant,
    /// When its first byte was written.
    pub sent: Instant,
    pub write_offset: usize,
    pub parser: ResponseParser,
    /// Rendered bytes of a dynamic request (kept until fully written).
    pub scratch: Vec<u8>,
    /// Open model: the number of this connection's scheduled requests already consumed.
    pub next_slot: u64,
    /// The request in flight is already a re-send (see `unanswered_because_closed`): it is never re-sent twice.
    pub resent: bool,
    /// The request in flight goes out again as soon as the new connection is up.
    pub resend_when_connected: bool,
    /// Open model: how far behind its schedule this connection is through the generator's own delays (its last send's
    /// slip, plus what it inherited from the sends before; see the worker's `count_lateness`).
    pub behind_by_generator: Duration,
    /// Closed model: the moving mean of this connection's recent service times (its expected request interval).
    pub recent_service: RecentServiceTime,
}

impl Conn {
    pub fn new(now: Instant) -> Conn {
        Conn {
            socket: Socket::default(),
            state: State::Done,
            request: 0,
            intended: now,
            sent: now,
            write_offset: 0,
            parser: ResponseParser::default(),
            scratch: Vec::new(),
            next_slot: 0,
            resent: false,
            resend_when_connected: false,
            behind_by_generator: Duration::ZERO,
            recent_service: RecentServiceTime::default(),
        }
    }

    /// True while the TCP connect or the TLS handshake is under way.
    pub fn setting_up(&self) -> bool {
        matches!(self.state, State::Connecting(_) | State::Handshaking(_))
    }

    /// Start a non-blocking connect and register for its completion.
    pub fn connect(
        &mut self,
        registry: &Registry,
        token: Token,
        addr: SocketAddr,
        security: &Security,
        now: Instant,
    ) -> io::Result<()> {
        self.close(registry);
        self.socket.connect(registry, token, addr, security)?;
        self.state = State::Connecting(now);
        Ok(())
    }

    /// Called on the first event after `connect`: Ok when the TCP connect succeeded. The connection is then Idle
    /// (plain TCP) or Handshaking (TLS; `continue_handshake` on its next events).
    pub fn finish_connect(&mut self, registry: &Registry, token: Token) -> Result<(), HandshakeError> {
        let State::Connecting(started) = self.state else { return Ok(()) };
        self.socket.finish_connect().map_err(HandshakeError::Io)?;
        self.state = State::Handshaking(started);
        self.continue_handshake(registry, token)
    }

    /// Advance the TLS handshake; the connection becomes Idle when it is done.
    pub fn continue_handshake(&mut self, registry: &Registry, token: Token) -> Result<(), HandshakeError> {
        if self.socket.continue_handshake(registry, token)? == Setup::Ready {
            self.state = State::Idle;
        }
        Ok(())
    }

    /// Drop the transport (closing the socket) and forget any partial response.
    pub fn close(&mut self, registry: &Registry) {
        self.socket.close(registry);
        self.parser.reset(false);
        self.write_offset = 0;
    }

    /// Write as much of `bytes[write_offset..]` as the transport takes. Ok(true) when all is written (with TLS: also
    /// sent on to the socket).
    pub fn write_request(
        &mut self,
        registry: &Registry,
        token: Token,
        bytes: &[u8],
        bytes_sent: &mut u64,
    ) -> io::Result<bool> {
        let done = self.write_what_fits(bytes, bytes_sent)?;
        self.socket.set_writable_interest(registry, token, !done)?;
        self.state = if done { State::Reading } else { State::Writing };
        Ok(done)
    }

    /// Ok(true) when every byte is out of this process, Ok(false) when the socket is full before that.
    fn write_what_fits(&mut self, bytes: &[u8], bytes_sent: &mut u64) -> io::Result<bool> {
        let transport = self.socket.transport_mut()?;
        while self.write_offset < bytes.len() {
            match transport.write(&bytes[self.write_offset..]) {
                Ok(0) => return Err(io::Error::from(io::ErrorKind::WriteZero)),
                Ok(written) => {
                    self.write_offset += written;
                    *bytes_sent += written as u64;
                }
                Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
                Err(err) if err.kind() == io::ErrorKind::WouldBlock => return Ok(false),
                Err(err) => return Err(err),
            }
        }
        // TLS: the encrypted request may still wait for room in the socket.
        transport.flush()
    }

    /// Read what the socket has and feed the response parser. `buffer` is the worker's shared read buffer.
    /// `peer_closed`: the event said the peer has closed its side, so the end of the stream is already there (edge
    /// triggering announces it once): read on to it rather than stopping at a short read.
    pub fn read_response(&mut self, buffer: &mut [u8], bytes_received: &mut u64, peer_closed: bool) -> ReadOutcome {
        let Some(transport) = self.socket.transport.as_mut() else { return ReadOutcome::Closed(PeerClose::Fin) };
        let short_read_drains = transport.short_read_drains();
        loop {
            match transport.read(buffer) {
                Ok(0) => {
                    return match self.parser.feed_eof() {
                        Ok(Parsed::Complete { status, close }) => ReadOutcome::Complete { status, close },
                        _ => ReadOutcome::Closed(PeerClose::Fin),
                    };
                }
                Ok(count) => {
                    *bytes_received += count as u64;
                    match self.parser.feed(&buffer[..count]) {
                        Ok(Parsed::Complete { status, close }) => return ReadOutcome::Complete { status, close },
                        Ok(Parsed::NeedMore) if count < buffer.len() && !peer_closed && short_read_drains => {
                            return ReadOutcome::Pending;
                        }
                        Ok(Parsed::NeedMore) => continue,
                        Err(invalid) => return ReadOutcome::Invalid(invalid),
                    }
                }
                Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
                Err(err) if err.kind() == io::ErrorKind::WouldBlock => return ReadOutcome::Pending,
                Err(err) => {
                    return match peer_close(&err) {
                        Some(how) => ReadOutcome::Closed(how),
                        None => ReadOutcome::Failed,
                    };
                }
            }
        }
    }

    /// True when the request in flight failed only because the peer had closed the connection before reading it, so
    /// the server never processed it and it may go out again on a new connection. Never for a re-send (so a request
    /// goes out at most twice) nor once any byte of its response arrived. A reset without a FIN means the peer's
    /// kernel discarded the connection with the request unread in it. After a FIN, the FIN's acknowledgement tells:
    /// a server that read the request before closing acknowledged it; one that had closed before it arrived did not
    /// (it answered the request with a reset).
    pub fn unanswered_because_closed(&self, how: PeerClose) -> bool {
        if self.resent || self.parser.started() {
            return false;
        }
        match how {
            PeerClose::Reset => true,
            PeerClose::Fin => {
                let sent = self.socket.transport.as_ref().map_or(0, |transport| transport.sent_on_socket);
                self.acknowledged_bytes().is_some_and(|acked| acked < sent)
            }
        }
    }

    /// Bytes the peer acknowledged on this connection (TCP_INFO; kept after a reset), the SYN counted as one.
    fn acknowledged_bytes(&self) -> Option<u64> {
        let stream = &self.socket.transport.as_ref()?.tcp;
        // SAFETY: an all-zero tcp_info is valid; getsockopt writes at most `length` bytes into it.
        let mut info: libc::tcp_info = unsafe { std::mem::zeroed() };
        let mut length = std::mem::size_of::<libc::tcp_info>() as libc::socklen_t;
        // SAFETY: a valid socket, a correctly sized buffer and its length.
        let rc = unsafe {
            libc::getsockopt(
                stream.as_raw_fd(),
                libc::IPPROTO_TCP,
                libc::TCP_INFO,
                (&mut info as *mut libc::tcp_info).cast(),
                &mut length,
            )
        };
        (rc == 0).then_some(info.tcpi_bytes_acked)
    }
}

/// How the peer ended the connection, when this socket error means it did. Linux reports a reset that follows the
/// peer's FIN as EPIPE, one without a FIN as ECONNRESET.
pub fn peer_close(err: &io::Error) -> Option<PeerClose> {
    match err.kind() {
        io::ErrorKind::BrokenPipe => Some(PeerClose::Fin),
        io::ErrorKind::ConnectionReset | io::ErrorKind::ConnectionAborted => Some(PeerClose::Reset),
        _ => None,
    }
}
