//! `jload bench`'s protocol flags (HTTP version, HTTP/2 streams, TLS trust and client certificate), turned into the
//! load's [`ProtocolOptions`] through [`ProtocolInput::into_options`], as a plan's phase keys are. Names and help
//! come from the settings' definitions (`load::input::settings`).

use std::path::PathBuf;

use clap::Args;

use crate::load::input::protocol::{HttpVersion, ProtocolInput, ProtocolOptions};
use crate::load::input::settings::{CA_CERT, CERT, HTTP, INSECURE, KEY, STREAMS, Setting};

#[derive(Args, Debug, Clone, Default)]
pub struct ProtocolFlags {
    /// Speak HTTP/2: negotiated by ALPN over https://, prior knowledge (h2c) over http:// (same as --http 2).
    #[arg(long, conflicts_with = "http", help_heading = "Protocol")]
    pub http2: bool,
    #[arg(long = HTTP.long, help = HTTP.help, help_heading = "Protocol")]
    #[arg(value_name = "VERSION", value_parser = HttpVersion::parse)]
    pub http: Option<HttpVersion>,
    #[arg(long = STREAMS.long, help = STREAMS.help, value_name = "N", help_heading = "Protocol")]
    pub streams: Option<usize>,
    #[arg(short = INSECURE.short, long = INSECURE.long, help = INSECURE.help, help_heading = "Protocol")]
    pub insecure: bool,
    #[arg(long = CA_CERT.long, help = CA_CERT.help, value_name = "FILE", help_heading = "Protocol")]
    pub cacert: Option<PathBuf>,
    #[arg(long = CERT.long, help = CERT.help, value_name = "FILE", requires = "key", help_heading = "Protocol")]
    pub cert: Option<PathBuf>,
    #[arg(long = KEY.long, help = KEY.help, value_name = "FILE", requires = "cert", help_heading = "Protocol")]
    pub key: Option<PathBuf>,
}

impl ProtocolFlags {
    /// The checked protocol options; every problem names its flag.
    pub fn options(&self) -> anyhow::Result<ProtocolOptions> {
        let input = ProtocolInput {
            http: if self.http2 { HttpVersion::Http2 } else { self.http.unwrap_or_default() },
            streams: self.streams,
            insecure: self.insecure,
            cacert: self.cacert.clone(),
            cert: self.cert.clone(),
            key: self.key.clone(),
        };
        input.into_options(Setting::flag_name, "--http2").map_err(|err| err.into_error())
    }
}
