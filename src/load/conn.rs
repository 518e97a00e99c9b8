//! One client connection: its socket, where it is in the request/response cycle, and the non-blocking socket
//! operations the worker's event loop calls (connect, write the request, read the response).

use std::io::{self, Read, Write};
use std::net::SocketAddr;
use std::time::Instant;

use mio::net::TcpStream;
use mio::{Interest, Registry, Token};

use super::http::{Progress, ResponseParser};

/// Where a connection is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// TCP handshake under way since the given time.
    Connecting(Instant),
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

/// Outcome of reading what a readable event announced.
#[derive(Debug)]
pub enum ReadOutcome {
    /// Response not complete yet; wait for the next event.
    Pending,
    Complete {
        status: u16,
        close: bool,
    },
    /// The peer closed the connection before a (complete) response.
    Closed,
    /// A socket error, or bytes that are not a valid HTTP response.
    Failed,
}

pub struct Conn {
    pub stream: Option<TcpStream>,
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
    writable_interest: bool,
}

impl Conn {
    pub fn new(now: Instant) -> Conn {
        Conn {
            stream: None,
            state: State::Done,
            request: 0,
            intended: now,
            sent: now,
            write_offset: 0,
            parser: ResponseParser::default(),
            scratch: Vec::new(),
            next_slot: 0,
            writable_interest: false,
        }
    }

    /// Start a non-blocking connect and register for its completion.
    pub fn connect(&mut self, registry: &Registry, token: Token, addr: SocketAddr, now: Instant) -> io::Result<()> {
        self.close(registry);
        let mut stream = TcpStream::connect(addr)?;
        registry.register(&mut stream, token, Interest::READABLE | Interest::WRITABLE)?;
        self.stream = Some(stream);
        self.writable_interest = true;
        self.state = State::Connecting(now);
        Ok(())
    }

    /// Called on the first event after `connect`: Ok when the handshake succeeded.
    pub fn finish_connect(&mut self, registry: &Registry, token: Token) -> io::Result<()> {
        let stream = self.stream.as_mut().ok_or_else(|| io::Error::from(io::ErrorKind::NotConnected))?;
        if let Some(err) = stream.take_error()? {
            return Err(err);
        }
        stream.peer_addr()?;
        stream.set_nodelay(true)?;
        registry.reregister(stream, token, Interest::READABLE)?;
        self.writable_interest = false;
        self.state = State::Idle;
        Ok(())
    }

    /// Drop the socket (closing it) and forget any partial response.
    pub fn close(&mut self, registry: &Registry) {
        if let Some(mut stream) = self.stream.take() {
            let _ = registry.deregister(&mut stream);
        }
        self.parser.reset(false);
        self.write_offset = 0;
    }

    /// Write as much of `bytes[write_offset..]` as the socket takes. Ok(true) when all is written.
    pub fn write_request(
        &mut self,
        registry: &Registry,
        token: Token,
        bytes: &[u8],
        bytes_sent: &mut u64,
    ) -> io::Result<bool> {
        let stream = self.stream.as_mut().ok_or_else(|| io::Error::from(io::ErrorKind::NotConnected))?;
        while self.write_offset < bytes.len() {
            match stream.write(&bytes[self.write_offset..]) {
                Ok(0) => return Err(io::Error::from(io::ErrorKind::WriteZero)),
                Ok(written) => {
                    self.write_offset += written;
                    *bytes_sent += written as u64;
                }
                Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
                Err(err) if err.kind() == io::ErrorKind::WouldBlock => {
                    if !self.writable_interest {
                        registry.reregister(stream, token, Interest::READABLE | Interest::WRITABLE)?;
                        self.writable_interest = true;
                    }
                    self.state = State::Writing;
                    return Ok(false);
                }
                Err(err) => return Err(err),
            }
        }
        if self.writable_interest {
            registry.reregister(stream, token, Interest::READABLE)?;
            self.writable_interest = false;
        }
        self.state = State::Reading;
        Ok(true)
    }

    /// Read what the socket has and feed the response parser. `buffer` is the worker's shared read buffer.
    pub fn read_response(&mut self, buffer: &mut [u8], bytes_received: &mut u64) -> ReadOutcome {
        let Some(stream) = self.stream.as_mut() else { return ReadOutcome::Closed };
        loop {
            match stream.read(buffer) {
                Ok(0) => {
                    return match self.parser.feed_eof() {
                        Ok(Progress::Complete { status, close }) => ReadOutcome::Complete { status, close },
                        _ => ReadOutcome::Closed,
                    };
                }
                Ok(count) => {
                    *bytes_received += count as u64;
                    match self.parser.feed(&buffer[..count]) {
                        Ok(Progress::Complete { status, close }) => return ReadOutcome::Complete { status, close },
                        Ok(Progress::NeedMore) if count < buffer.len() => return ReadOutcome::Pending,
                        Ok(Progress::NeedMore) => continue,
                        Err(_) => return ReadOutcome::Failed,
                    }
                }
                Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
                Err(err) if err.kind() == io::ErrorKind::WouldBlock => return ReadOutcome::Pending,
                Err(_) => return ReadOutcome::Failed,
            }
        }
    }
}
