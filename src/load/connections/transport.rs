//! The byte stream under one connection: a plain TCP socket, or TLS over it (rustls, driven without blocking). The
//! connection reads and writes application bytes through it the same way for both; TLS adds a handshake before the
//! first request and encrypted bytes that may wait in rustls until the socket takes them.

use std::io::{self, Read, Write};

use mio::net::TcpStream;
use rustls::ClientConnection;

use crate::load::input::tls::Security;
use crate::load::record::recorder::{Negotiated, TlsFailure};

/// Where a TLS handshake stands.
#[derive(Debug, PartialEq, Eq)]
pub enum Handshake {
    Done,
    /// Waiting for the server's bytes.
    WantRead,
    /// Bytes of ours wait for room in the socket.
    WantWrite,
}

/// Why a handshake failed.
#[derive(Debug)]
pub enum HandshakeError {
    Io(io::Error),
    Tls(TlsFailure, rustls::Error),
}

pub struct Transport {
    pub tcp: TcpStream,
    tls: Option<Box<ClientConnection>>,
    /// Bytes handed to the socket (TLS records included), to compare with what the peer acknowledged.
    pub sent_on_socket: u64,
}

impl Transport {
    pub fn new(tcp: TcpStream, security: &Security) -> io::Result<Transport> {
        let tls = match security {
            Security::Plain => None,
            Security::Tls { config, server_name } => {
                Some(Box::new(ClientConnection::new(config.clone(), server_name.clone()).map_err(io::Error::other)?))
            }
        };
        Ok(Transport { tcp, tls, sent_on_socket: 0 })
    }

    /// Advance the TLS handshake with what the socket has and takes (plain TCP has none: done at once).
    pub fn handshake(&mut self) -> Result<Handshake, HandshakeError> {
        let Some(tls) = self.tls.as_deref_mut() else { return Ok(Handshake::Done) };
        loop {
            if tls.wants_write() && !flush(tls, &mut self.tcp, &mut self.sent_on_socket).map_err(HandshakeError::Io)? {
                return Ok(Handshake::WantWrite);
            }
            if !tls.is_handshaking() {
                return Ok(Handshake::Done);
            }
            match tls.read_tls(&mut self.tcp) {
                Ok(0) => return Err(HandshakeError::Io(io::Error::from(io::ErrorKind::UnexpectedEof))),
                Ok(_) => {
                    if let Err(err) = tls.process_new_packets() {
                        // Tell the server why (the alert rustls queued), as far as the socket takes it.
                        let _ = flush(tls, &mut self.tcp, &mut self.sent_on_socket);
                        return Err(HandshakeError::Tls(TlsFailure::of(&err), err));
                    }
                }
                Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
                Err(err) if err.kind() == io::ErrorKind::WouldBlock => return Ok(Handshake::WantRead),
                Err(err) => return Err(HandshakeError::Io(err)),
            }
        }
    }

    /// What the handshake agreed on (None for plain TCP or before the handshake is done).
    pub fn negotiated(&self) -> Option<Negotiated> {
        let tls = self.tls.as_deref().filter(|tls| !tls.is_handshaking())?;
        Some(Negotiated {
            version: tls.protocol_version().map_or_else(String::new, |version| format!("{version:?}")),
            cipher: tls.negotiated_cipher_suite().map_or_else(String::new, |suite| format!("{:?}", suite.suite())),
            alpn: tls.alpn_protocol().map(|protocol| String::from_utf8_lossy(protocol).into_owned()),
        })
    }

    /// Write application bytes. Plain TCP: what the socket takes. TLS: all of them are taken (encrypted into rustls'
    /// buffer) unless earlier ones still wait for the socket; `flush` then sends them.
    pub fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        match self.tls.as_deref_mut() {
            None => {
                let written = self.tcp.write(bytes)?;
                self.sent_on_socket += written as u64;
                Ok(written)
            }
            Some(tls) => {
                if tls.wants_write() && !flush(tls, &mut self.tcp, &mut self.sent_on_socket)? {
                    return Err(io::Error::from(io::ErrorKind::WouldBlock));
                }
                tls.writer().write(bytes)
            }
        }
    }

    /// Send what waits in rustls; Ok(true) when nothing is left (always for plain TCP).
    pub fn flush(&mut self) -> io::Result<bool> {
        match self.tls.as_deref_mut() {
            None => Ok(true),
            Some(tls) => flush(tls, &mut self.tcp, &mut self.sent_on_socket),
        }
    }

    /// Read application bytes: Ok(0) at the end of the stream (for TLS also a close without close_notify, as
    /// browsers and wrk take it); WouldBlock when the socket has nothing more; a TLS error as InvalidData.
    pub fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        let Some(tls) = self.tls.as_deref_mut() else { return self.tcp.read(buffer) };
        loop {
            match tls.reader().read(buffer) {
                Ok(count) => return Ok(count),
                Err(err) if err.kind() == io::ErrorKind::UnexpectedEof => return Ok(0),
                Err(err) if err.kind() == io::ErrorKind::WouldBlock => {}
                Err(err) => return Err(err),
            }
            match tls.read_tls(&mut self.tcp) {
                Ok(0) => {
                    // The end of the TCP stream: the reader says next whether a close_notify came before it.
                    tls.process_new_packets().map_err(io::Error::other)?;
                    return match tls.reader().read(buffer) {
                        Ok(count) => Ok(count),
                        Err(err) if err.kind() == io::ErrorKind::UnexpectedEof => Ok(0),
                        Err(err) => Err(err),
                    };
                }
                Ok(_) => {
                    if let Err(err) = tls.process_new_packets() {
                        let _ = flush(tls, &mut self.tcp, &mut self.sent_on_socket);
                        return Err(io::Error::new(io::ErrorKind::InvalidData, err));
                    }
                    // A key update or an alert of ours goes out as far as the socket takes it now.
                    if tls.wants_write() {
                        let _ = flush(tls, &mut self.tcp, &mut self.sent_on_socket);
                    }
                }
                Err(err) => return Err(err),
            }
        }
    }

    /// Whether a read shorter than the buffer means the socket is drained (plain TCP); with TLS more records may wait.
    pub fn short_read_drains(&self) -> bool {
        self.tls.is_none()
    }
}

/// Write rustls' pending records to the socket (counting them in `sent`); Ok(false) when the socket is full before
/// they are all out.
fn flush(tls: &mut ClientConnection, tcp: &mut TcpStream, sent: &mut u64) -> io::Result<bool> {
    while tls.wants_write() {
        match tls.write_tls(tcp) {
            Ok(0) => return Err(io::Error::from(io::ErrorKind::WriteZero)),
            Ok(written) => *sent += written as u64,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) if err.kind() == io::ErrorKind::WouldBlock => return Ok(false),
            Err(err) => return Err(err),
        }
    }
    Ok(true)
}
