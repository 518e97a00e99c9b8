//! The protocol a load speaks beside its URLs: the HTTP version (1.1, 2, or whichever ALPN agrees on), HTTP/2's
//! streams per connection, and the TLS settings of an `https://` target. One definition that every front end (bench's
//! flags, a plan's phase, a mix) fills and the engine reads.

use std::io::Read;
use std::net::TcpStream;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use rustls::pki_types::ServerName;
use rustls::{ClientConfig, ClientConnection};
use serde::{Deserialize, Serialize};

use super::request::Endpoint;
use super::settings::Setting;
use super::tls::{ALPN_H2, ALPN_HTTP1, Security, TlsOptions, explain, server_name};
use crate::error::bad_input;

/// Which HTTP the connections speak.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HttpVersion {
    /// HTTP/1.1 (over TLS, ALPN offers http/1.1 only).
    #[default]
    Http1,
    /// HTTP/2: over TLS by ALPN (the server must agree), on `http://` with prior knowledge (h2c).
    Http2,
    /// TLS only: ALPN offers h2 and http/1.1 and each connection speaks what the server chose.
    Auto,
}

impl HttpVersion {
    /// `1.1`, `2` or `auto` (also `http1.1`, `h2`, …), as flags and plans write it.
    pub fn parse(text: &str) -> Result<HttpVersion, String> {
        match text.trim().to_ascii_lowercase().trim_start_matches("http").trim_start_matches('/') {
            "1.1" | "1" => Ok(HttpVersion::Http1),
            "2" | "h2" | "h2c" => Ok(HttpVersion::Http2),
            "auto" => Ok(HttpVersion::Auto),
            _ => Err(format!("'{text}' is not an HTTP version: give 1.1, 2 or auto")),
        }
    }
}

/// The protocol settings as a front end read them, the TLS files not yet read: `jload bench`'s flags and a plan
/// phase's keys both fill it, and [`ProtocolInput::into_options`] is the one road from them to [`ProtocolOptions`].
#[derive(Debug, Clone, Default)]
pub struct ProtocolInput {
    pub http: HttpVersion,
    /// Default: 1.
    pub streams: Option<usize>,
    pub insecure: bool,
    /// The CA bundle, client certificate and its key, resolved against the front end's folder.
    pub cacert: Option<PathBuf>,
    pub cert: Option<PathBuf>,
    pub key: Option<PathBuf>,
}

/// Why the protocol settings were refused: a TLS file (unreadable, not PEM, a certificate without its key), or the
/// streams against the HTTP version.
#[derive(Debug)]
pub enum ProtocolError {
    Tls(anyhow::Error),
    Streams(anyhow::Error),
}

impl ProtocolError {
    pub fn into_error(self) -> anyhow::Error {
        match self {
            ProtocolError::Tls(err) | ProtocolError::Streams(err) => err,
        }
    }
}

impl ProtocolInput {
    /// The checked options with the TLS files read into them (built once, here, for every front end); `name` calls
    /// each setting as the front end does, `add_http2` is how it asks for HTTP/2.
    pub fn into_options(
        self,
        name: impl Fn(Setting) -> &'static str,
        add_http2: &str,
    ) -> Result<ProtocolOptions, ProtocolError> {
        let tls = TlsOptions::from_files(
            self.insecure,
            self.cacert.as_deref(),
            self.cert.as_deref(),
            self.key.as_deref(),
            &name,
        )
        .map_err(ProtocolError::Tls)?;
        let options = ProtocolOptions { http: self.http, streams: self.streams.unwrap_or(1), tls };
        options.check(name, add_http2).map_err(ProtocolError::Streams)?;
        Ok(options)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProtocolOptions {
    #[serde(default)]
    pub http: HttpVersion,
    /// HTTP/2: concurrent streams per connection (requests in flight on it); 1 for HTTP/1.1.
    #[serde(default = "one_stream")]
    pub streams: usize,
    #[serde(default)]
    pub tls: TlsOptions,
}

fn one_stream() -> usize {
    1
}

impl Default for ProtocolOptions {
    fn default() -> Self {
        ProtocolOptions { http: HttpVersion::default(), streams: one_stream(), tls: TlsOptions::default() }
    }
}

impl ProtocolOptions {
    /// The settings that make no sense together, each named by `name` as the front end calls it; `add_http2` is how
    /// it asks for HTTP/2.
    pub fn check(&self, name: impl Fn(Setting) -> &'static str, add_http2: &str) -> anyhow::Result<()> {
        let streams = name(Setting::Streams);
        if self.streams == 0 {
            return Err(bad_input(format!("{streams} must be at least 1")));
        }
        if self.streams > 1 && self.http == HttpVersion::Http1 {
            return Err(bad_input(format!(
                "{streams} {} needs HTTP/2 (an HTTP/1.1 connection carries one request at a time): add {add_http2}",
                self.streams
            )));
        }
        Ok(())
    }

    /// The options with `auto` settled: one TLS handshake with the server (ALPN offering h2 and http/1.1) tells which
    /// HTTP every connection of the run speaks. Other versions are returned as they are.
    pub fn resolved(&self, endpoint: &Endpoint, timeout: Duration) -> anyhow::Result<ProtocolOptions> {
        if self.http != HttpVersion::Auto {
            return Ok(self.clone());
        }
        let Security::Tls { config, server_name } = self.security(endpoint)? else {
            unreachable!("auto is refused for http:// by security()")
        };
        let chosen = negotiate_alpn(endpoint, config, server_name, timeout).map_err(|err| {
            anyhow::anyhow!("{}: cannot learn the server's HTTP version (TLS handshake): {err}", endpoint.describe())
        })?;
        let http = if chosen.as_deref() == Some(ALPN_H2) { HttpVersion::Http2 } else { HttpVersion::Http1 };
        Ok(ProtocolOptions { http, ..self.clone() })
    }

    /// How the connections to `endpoint` are secured: plain TCP for `http://`, else TLS with this load's settings
    /// and the ALPN its HTTP version offers.
    pub fn security(&self, endpoint: &Endpoint) -> anyhow::Result<Security> {
        if !endpoint.tls {
            if self.http == HttpVersion::Auto {
                return Err(bad_input(
                    "HTTP version auto is negotiated by TLS (ALPN) and the URL is plain http://: use https://, or choose \
                     HTTP/2 (h2c prior knowledge) or HTTP/1.1",
                ));
            }
            return Ok(Security::Plain);
        }
        let alpn: &[&[u8]] = match self.http {
            HttpVersion::Http1 => &[ALPN_HTTP1],
            HttpVersion::Http2 => &[ALPN_H2],
            HttpVersion::Auto => &[ALPN_H2, ALPN_HTTP1],
        };
        let config = self.tls.client_config(alpn).map_err(|err| bad_input(err.to_string()))?;
        Ok(Security::Tls { config, server_name: server_name(&endpoint.host)? })
    }
}

/// One TLS handshake with `endpoint`, blocking (bounded by `timeout` per step): the ALPN protocol the server chose.
fn negotiate_alpn(
    endpoint: &Endpoint,
    config: Arc<ClientConfig>,
    server_name: ServerName<'static>,
    timeout: Duration,
) -> anyhow::Result<Option<Vec<u8>>> {
    let mut tcp = TcpStream::connect_timeout(&endpoint.addr, timeout)?;
    tcp.set_read_timeout(Some(timeout))?;
    tcp.set_write_timeout(Some(timeout))?;
    let mut tls = ClientConnection::new(config, server_name)?;
    while tls.is_handshaking() {
        tls.complete_io(&mut tcp).map_err(|err| match err.get_ref().and_then(|inner| inner.downcast_ref()) {
            Some(tls_error) => anyhow::anyhow!(explain(tls_error)),
            None => anyhow::Error::from(err),
        })?;
    }
    let chosen = tls.alpn_protocol().map(<[u8]>::to_vec);
    tls.send_close_notify();
    let _ = tls.complete_io(&mut tcp);
    let _ = tcp.read(&mut [0u8; 1]);
    Ok(chosen)
}

#[cfg(test)]
#[path = "protocol_tests.rs"]
mod tests;
