//! One HTTP/2 connection of a worker: its socket, its session (see [`super::h2`]), where its set-up stands, and the
//! lanes — request slots, `--streams` of them — that share it. The worker's lanes are its [`super::conn::Conn`]s;
//! this holds only what belongs to the connection: bytes in and out, and lanes waiting for a free stream.

use std::collections::VecDeque;
use std::io;
use std::net::SocketAddr;
use std::ops::Range;
use std::time::Instant;

use mio::{Registry, Token};

use super::h2::{Event, Scheme, Session, SessionConfig};
use super::socket::{Setup, Socket};
use super::transport::HandshakeError;
use crate::load::input::tls::{ALPN_H2, Security};
use crate::load::record::recorder::TlsFailure;

/// Where the connection stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkState {
    /// No socket (never opened, or given up after a failure: its lanes back off).
    Down,
    /// TCP connect under way since the given time.
    Connecting(Instant),
    /// TLS handshake under way; the connect began at the given time.
    Handshaking(Instant),
    Up,
}

/// How reading ended.
#[derive(Debug)]
pub enum Received {
    /// Everything the socket had was read.
    Drained,
    /// The server closed the connection.
    Closed,
    /// What the server sent is not valid HTTP/2: a protocol error, in words.
    Invalid(String),
    /// A socket error or a TLS error.
    Failed,
}

pub struct H2Link {
    pub socket: Socket,
    pub session: Session,
    pub state: LinkState,
    /// The lanes that share this connection.
    pub lanes: Range<usize>,
    /// Lanes whose request waits for a stream (the server allows fewer at once than `--streams`), oldest first.
    pub waiting: VecDeque<usize>,
    config: SessionConfig,
}

impl H2Link {
    pub fn new(lanes: Range<usize>, scheme: Scheme) -> H2Link {
        let config = SessionConfig::new(lanes.len(), scheme);
        H2Link {
            socket: Socket::default(),
            session: Session::new(config.clone()),
            state: LinkState::Down,
            waiting: VecDeque::with_capacity(lanes.len()),
            lanes,
            config,
        }
    }

    /// Connect (again): a new socket and a fresh session. Lanes waiting for a stream keep waiting, for the new one.
    pub fn connect(
        &mut self,
        registry: &Registry,
        token: Token,
        addr: SocketAddr,
        security: &Security,
        now: Instant,
    ) -> io::Result<()> {
        self.session = Session::new(self.config.clone());
        self.state = LinkState::Connecting(now);
        let connected = self.socket.connect(registry, token, addr, security);
        if connected.is_err() {
            self.state = LinkState::Down;
        }
        connected
    }

    /// The next step of the set-up on an event: the TCP connect's outcome, then the TLS handshake. Over TLS the
    /// server must have chosen h2 by ALPN. Once ready, the session's preface goes out. After an error the state
    /// still tells which step failed.
    pub fn set_up(&mut self, registry: &Registry, token: Token, bytes_sent: &mut u64) -> Result<Setup, HandshakeError> {
        if let LinkState::Connecting(since) = self.state {
            self.socket.finish_connect().map_err(HandshakeError::Io)?;
            self.state = LinkState::Handshaking(since);
        }
        if self.socket.continue_handshake(registry, token)? == Setup::Handshaking {
            return Ok(Setup::Handshaking);
        }
        let transport = self.socket.transport_mut().map_err(HandshakeError::Io)?;
        if let Some(negotiated) = transport.negotiated()
            && negotiated.alpn.as_deref().map(str::as_bytes) != Some(ALPN_H2)
        {
            let chose = negotiated.alpn.unwrap_or_else(|| "no protocol".to_string());
            return Err(HandshakeError::Tls(
                TlsFailure::Handshake,
                rustls::Error::General(format!(
                    "the server did not agree to HTTP/2 (ALPN: {chose}); leave out --http2, or use --http auto"
                )),
            ));
        }
        self.state = LinkState::Up;
        self.flush(registry, token, bytes_sent).map_err(HandshakeError::Io)?;
        Ok(Setup::Ready)
    }

    /// When the set-up under way began (None when there is none).
    pub fn setting_up_since(&self) -> Option<Instant> {
        match self.state {
            LinkState::Connecting(since) | LinkState::Handshaking(since) => Some(since),
            LinkState::Down | LinkState::Up => None,
        }
    }

    /// Write what the session has queued as far as the socket takes; ask for writable events for the rest.
    pub fn flush(&mut self, registry: &Registry, token: Token, bytes_sent: &mut u64) -> io::Result<()> {
        let transport = self.socket.transport_mut()?;
        let mut blocked = false;
        while !self.session.output().is_empty() {
            match transport.write(self.session.output()) {
                Ok(0) => return Err(io::Error::from(io::ErrorKind::WriteZero)),
                Ok(written) => {
                    self.session.consumed(written);
                    *bytes_sent += written as u64;
                }
                Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                Err(err) if err.kind() == io::ErrorKind::WouldBlock => {
                    blocked = true;
                    break;
                }
                Err(err) => return Err(err),
            }
        }
        if !blocked {
            blocked = !transport.flush()?;
        }
        self.socket.set_writable_interest(registry, token, blocked)
    }

    /// Read everything the socket has into the session, which reports each stream's outcome in `events`.
    pub fn receive(&mut self, buffer: &mut [u8], bytes_received: &mut u64, events: &mut Vec<Event>) -> Received {
        let Ok(transport) = self.socket.transport_mut() else { return Received::Closed };
        loop {
            match transport.read(buffer) {
                Ok(0) => return Received::Closed,
                Ok(count) => {
                    *bytes_received += count as u64;
                    if let Err(error) = self.session.receive(&buffer[..count], &mut |event| events.push(event)) {
                        return Received::Invalid(error.to_string());
                    }
                }
                Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                Err(err) if err.kind() == io::ErrorKind::WouldBlock => return Received::Drained,
                Err(_) => return Received::Failed,
            }
        }
    }

    pub fn close(&mut self, registry: &Registry) {
        self.socket.close(registry);
        self.state = LinkState::Down;
    }
}
