//! `jload bench`'s protocol flags (HTTP version, HTTP/2 streams, TLS trust and client certificate), turned into the
//! load's [`ProtocolOptions`].

use std::path::PathBuf;

use clap::Args;

use crate::load::connections::tls::TlsOptions;
use crate::load::input::protocol::{HttpVersion, ProtocolOptions};

#[derive(Args, Debug, Clone, Default)]
pub struct ProtocolFlags {
    /// Speak HTTP/2: negotiated by ALPN over https://, prior knowledge (h2c) over http:// (same as --http 2).
    #[arg(long, conflicts_with = "http", help_heading = "Protocol")]
    pub http2: bool,
    /// HTTP version: 1.1, 2, or auto (https:// only: ALPN offers h2 and http/1.1, the server chooses) [default: 1.1].
    #[arg(long, value_name = "VERSION", value_parser = HttpVersion::parse, help_heading = "Protocol")]
    pub http: Option<HttpVersion>,
    /// HTTP/2: concurrent streams (requests in flight) per connection, like h2load -m [default: 1].
    #[arg(long, value_name = "N", help_heading = "Protocol")]
    pub streams: Option<usize>,
    /// Accept any server certificate (a self-signed test server), like curl -k.
    #[arg(short = 'k', long, help_heading = "Protocol")]
    pub insecure: bool,
    /// Trust the CA certificates of this PEM file instead of the system's.
    #[arg(long, value_name = "FILE", help_heading = "Protocol")]
    pub cacert: Option<PathBuf>,
    /// Client certificate (PEM chain) for servers that ask for one; with --key.
    #[arg(long, value_name = "FILE", requires = "key", help_heading = "Protocol")]
    pub cert: Option<PathBuf>,
    /// The client certificate's private key (PEM).
    #[arg(long, value_name = "FILE", requires = "cert", help_heading = "Protocol")]
    pub key: Option<PathBuf>,
}

impl ProtocolFlags {
    /// The checked protocol options; every problem names its flag.
    pub fn options(&self) -> anyhow::Result<ProtocolOptions> {
        let http = if self.http2 { HttpVersion::Http2 } else { self.http.unwrap_or_default() };
        let tls = TlsOptions::from_files(
            self.insecure,
            self.cacert.as_deref(),
            self.cert.as_deref(),
            self.key.as_deref(),
            ["--cacert", "--cert", "--key"],
        )?;
        let options = ProtocolOptions { http, streams: self.streams.unwrap_or(1), tls };
        options.check(["--streams", "--http2"])?;
        Ok(options)
    }
}
