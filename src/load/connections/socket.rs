//! A transport registered in a worker's event loop: the non-blocking connect, the TLS handshake after it, which
//! events it asks for, and closing it. An HTTP/1.1 connection ([`super::conn::Conn`]) and an HTTP/2 connection
//! ([`super::h2_link::H2Link`]) each own one.

use std::io;
use std::net::SocketAddr;

use mio::net::TcpStream;
use mio::{Interest, Registry, Token};

use super::transport::{Handshake, HandshakeError, Transport};
use crate::load::input::tls::Security;

/// How far the set-up got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Setup {
    /// Ready for requests.
    Ready,
    /// The TLS handshake goes on (wait for the next event).
    Handshaking,
}

#[derive(Default)]
pub struct Socket {
    pub transport: Option<Transport>,
    writable_interest: bool,
}

impl Socket {
    /// Start a non-blocking connect (closing any earlier transport) and register for its completion.
    pub fn connect(
        &mut self,
        registry: &Registry,
        token: Token,
        addr: SocketAddr,
        security: &Security,
    ) -> io::Result<()> {
        self.close(registry);
        let mut stream = TcpStream::connect(addr)?;
        registry.register(&mut stream, token, Interest::READABLE | Interest::WRITABLE)?;
        self.transport = Some(Transport::new(stream, security)?);
        self.writable_interest = true;
        Ok(())
    }

    /// Called on the first event after `connect`: Ok when the TCP connect succeeded (then `continue_handshake`).
    pub fn finish_connect(&mut self) -> io::Result<()> {
        let transport = self.transport_mut()?;
        if let Some(err) = transport.tcp.take_error()? {
            return Err(err);
        }
        transport.tcp.peer_addr()?;
        transport.tcp.set_nodelay(true)
    }

    /// Advance the TLS handshake (plain TCP is ready at once).
    pub fn continue_handshake(&mut self, registry: &Registry, token: Token) -> Result<Setup, HandshakeError> {
        let progress = self.transport_mut().map_err(HandshakeError::Io)?.handshake()?;
        self.set_writable_interest(registry, token, progress == Handshake::WantWrite).map_err(HandshakeError::Io)?;
        Ok(if progress == Handshake::Done { Setup::Ready } else { Setup::Handshaking })
    }

    /// Ask for writable events too, or stop asking (only when it changes).
    pub fn set_writable_interest(&mut self, registry: &Registry, token: Token, writable: bool) -> io::Result<()> {
        if self.writable_interest == writable {
            return Ok(());
        }
        let transport = self.transport_mut()?;
        let interest = if writable { Interest::READABLE | Interest::WRITABLE } else { Interest::READABLE };
        registry.reregister(&mut transport.tcp, token, interest)?;
        self.writable_interest = writable;
        Ok(())
    }

    /// Drop the transport, closing the socket.
    pub fn close(&mut self, registry: &Registry) {
        if let Some(mut transport) = self.transport.take() {
            let _ = registry.deregister(&mut transport.tcp);
        }
    }

    pub fn transport_mut(&mut self) -> io::Result<&mut Transport> {
        self.transport.as_mut().ok_or_else(|| io::Error::from(io::ErrorKind::NotConnected))
    }
}
