//! A single blocking HTTP GET with a deadline, for readiness checks ("does the target answer 2xx yet?"); over TLS for
//! an `https://` URL, whose certificate it does not check (the load's own connections do).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use rustls::{ClientConnection, StreamOwned};

use crate::load::input::request::parse_url;
use crate::load::input::tls::{ALPN_HTTP1, TlsOptions, server_name};

trait ReadWrite: Read + Write {}
impl<T: Read + Write> ReadWrite for T {}

/// GET `url` once; Ok(status) when a response head arrived within `timeout`.
pub fn get_status(url: &str, timeout: Duration) -> anyhow::Result<u16> {
    let (endpoint, target) = parse_url(url)?;
    let tcp = TcpStream::connect_timeout(&endpoint.addr, timeout)?;
    tcp.set_read_timeout(Some(timeout))?;
    tcp.set_write_timeout(Some(timeout))?;
    let mut stream: Box<dyn ReadWrite> = if endpoint.tls {
        let config = TlsOptions { insecure: true, ..TlsOptions::default() }.client_config(&[ALPN_HTTP1])?;
        let connection = ClientConnection::new(config, server_name(&endpoint.host)?)?;
        Box::new(StreamOwned::new(connection, tcp))
    } else {
        Box::new(tcp)
    };
    let request = format!("GET {target} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n", endpoint.authority);
    stream.write_all(request.as_bytes())?;
    let mut received = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let count = stream.read(&mut chunk)?;
        if count == 0 {
            anyhow::bail!("connection closed before a response");
        }
        received.extend_from_slice(&chunk[..count]);
        let mut headers = [httparse::EMPTY_HEADER; 64];
        let mut response = httparse::Response::new(&mut headers);
        if let httparse::Status::Complete(_) = response.parse(&received)? {
            return Ok(response.code.unwrap_or(0));
        }
        if received.len() > 64 * 1024 {
            anyhow::bail!("response head too large");
        }
    }
}
