//! TLS for the load engine: the user's TLS settings (`--insecure`, `--cacert`, `--cert`/`--key`, carried inside the
//! load spec as PEM text so that a load host needs no files), the one rustls client configuration every connection
//! of a run shares (roots, client certificate, ALPN), what a connection needs to open its transport ([`Security`]),
//! and rustls' words for a failed handshake.

use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::{ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};
use serde::{Deserialize, Serialize};

use super::settings::Setting;
use crate::error::bad_input;

/// ALPN identifiers.
pub const ALPN_HTTP1: &[u8] = b"http/1.1";
pub const ALPN_H2: &[u8] = b"h2";

/// What a connection needs to open its transport: nothing for plain TCP, the shared configuration and the server's
/// name for TLS.
#[derive(Clone)]
pub enum Security {
    Plain,
    Tls { config: Arc<ClientConfig>, server_name: ServerName<'static> },
}

/// The user's TLS settings for an `https://` target.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TlsOptions {
    /// Accept any server certificate (a self-signed test server): no verification at all.
    #[serde(default)]
    pub insecure: bool,
    /// PEM certificates trusted instead of the system's roots (`--cacert`).
    #[serde(default)]
    pub ca_pem: Option<String>,
    /// The client certificate chain and its private key, PEM (`--cert`, `--key`).
    #[serde(default)]
    pub client_cert_pem: Option<String>,
    #[serde(default)]
    pub client_key_pem: Option<PrivateKeyPem>,
}

/// A client private key in PEM. It travels inside the load spec (serialized only for `jload agent load` over ssh,
/// whose spec is never written to a results file), and nothing else can show it: `{:?}` prints
/// `PrivateKeyPem(<redacted>)`, and there is no `Display`. Read the key with [`PrivateKeyPem::expose`] where it is used.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct PrivateKeyPem(String);

impl PrivateKeyPem {
    pub fn new(pem: String) -> PrivateKeyPem {
        PrivateKeyPem(pem)
    }

    /// The PEM text, for the one place that builds the TLS configuration from it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for PrivateKeyPem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PrivateKeyPem(<redacted>)")
    }
}

/// rustls' words for a failed handshake, with what to do about the usual certificate problems of test servers.
pub fn explain(err: &rustls::Error) -> String {
    use rustls::CertificateError;
    let hint = match err {
        rustls::Error::InvalidCertificate(CertificateError::UnknownIssuer) => {
            " (give the issuer's certificate with --cacert, or --insecure for a test server)"
        }
        rustls::Error::InvalidCertificate(CertificateError::Other(other))
            if other.to_string().contains("CaUsedAsEndEntity") =>
        {
            " (the server presents a CA certificate, e.g. one made by `openssl req -x509`: sign a server certificate \
             with that CA, or use --insecure)"
        }
        rustls::Error::InvalidCertificate(
            CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
        ) => " (the URL's host is not among the certificate's names: use one of them in the URL)",
        _ => "",
    };
    format!("{err}{hint}")
}

impl TlsOptions {
    /// Read the CA bundle, client certificate and key files into the options (through
    /// [`crate::load::input::protocol::ProtocolInput::into_options`], for every front end), each named by `name` as the front end
    /// calls it; a missing or unreadable file is bad input.
    pub(in crate::load) fn from_files(
        insecure: bool,
        ca_file: Option<&std::path::Path>,
        cert_file: Option<&std::path::Path>,
        key_file: Option<&std::path::Path>,
        name: impl Fn(Setting) -> &'static str,
    ) -> anyhow::Result<TlsOptions> {
        let read = |path: Option<&std::path::Path>, name: &str| {
            path.map(|path| {
                std::fs::read_to_string(path)
                    .map_err(|err| bad_input(format!("{name} {}: cannot read it ({err})", path.display())))
            })
            .transpose()
        };
        let options = TlsOptions {
            insecure,
            ca_pem: read(ca_file, name(Setting::CaCert))?,
            client_cert_pem: read(cert_file, name(Setting::Cert))?,
            client_key_pem: read(key_file, name(Setting::Key))?.map(PrivateKeyPem::new),
        };
        if options.client_cert_pem.is_some() != options.client_key_pem.is_some() {
            return Err(bad_input(format!(
                "{} and {} go together: give the client certificate and its private key",
                name(Setting::Cert),
                name(Setting::Key)
            )));
        }
        options.client_config(&[ALPN_HTTP1]).map_err(|err| bad_input(err.to_string()))?;
        Ok(options)
    }

    /// The rustls configuration of a run, offering `alpn` (most preferred first).
    pub fn client_config(&self, alpn: &[&[u8]]) -> anyhow::Result<Arc<ClientConfig>> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let builder = ClientConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()
            .expect("ring supports the default protocol versions");
        let builder = if self.insecure {
            builder.dangerous().with_custom_certificate_verifier(Arc::new(AcceptAnyCertificate(provider)))
        } else {
            builder.with_root_certificates(self.roots()?)
        };
        let mut config = match (&self.client_cert_pem, &self.client_key_pem) {
            (Some(cert), Some(key)) => {
                let chain = certificates(cert, Setting::Cert.flag_name())?;
                let key = PrivateKeyDer::from_pem_slice(key.expose().as_bytes()).map_err(|err| {
                    anyhow::anyhow!("{} holds no usable PEM private key ({err})", Setting::Key.flag_name())
                })?;
                builder.with_client_auth_cert(chain, key).map_err(|err| {
                    let (cert, key) = (Setting::Cert.flag_name(), Setting::Key.flag_name());
                    anyhow::anyhow!("{cert} and {key} do not make a client certificate: {err}")
                })?
            }
            _ => builder.with_no_client_auth(),
        };
        config.alpn_protocols = alpn.iter().map(|protocol| protocol.to_vec()).collect();
        Ok(Arc::new(config))
    }

    /// The trusted roots: the given bundle, or the system's.
    fn roots(&self) -> anyhow::Result<RootCertStore> {
        let mut roots = RootCertStore::empty();
        match &self.ca_pem {
            Some(pem) => {
                for certificate in certificates(pem, Setting::CaCert.flag_name())? {
                    roots.add(certificate).map_err(|err| {
                        anyhow::anyhow!("{}: a certificate is unusable ({err})", Setting::CaCert.flag_name())
                    })?;
                }
            }
            None => {
                let found = rustls_native_certs::load_native_certs();
                let (added, _) = roots.add_parsable_certificates(found.certs);
                if added == 0 {
                    return Err(anyhow::anyhow!(
                        "no trusted root certificate on this machine (install ca-certificates), or give --cacert FILE, or --insecure for a test server"
                    ));
                }
            }
        }
        Ok(roots)
    }
}

/// Every certificate of a PEM text; none is an error naming the option.
fn certificates(pem: &str, option: &str) -> anyhow::Result<Vec<CertificateDer<'static>>> {
    let certificates = CertificateDer::pem_slice_iter(pem.as_bytes())
        .collect::<Result<Vec<_>, _>>()
        .map_err(|err| anyhow::anyhow!("{option} is not a PEM certificate file ({err})"))?;
    if certificates.is_empty() {
        return Err(anyhow::anyhow!("{option} holds no PEM certificate (-----BEGIN CERTIFICATE-----)"));
    }
    Ok(certificates)
}

/// The name a connection presents (SNI) and checks the certificate against: the URL's host, an IP address as such.
pub fn server_name(host: &str) -> anyhow::Result<ServerName<'static>> {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    ServerName::try_from(host.to_string())
        .map_err(|err| bad_input(format!("'{host}' is not a TLS server name ({err})")))
}

/// `--insecure`: every certificate is accepted, signatures still checked for well-formedness by the provider.
#[derive(Debug)]
struct AcceptAnyCertificate(Arc<rustls::crypto::CryptoProvider>);

impl ServerCertVerifier for AcceptAnyCertificate {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.0.signature_verification_algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.0.signature_verification_algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Not a usable key (none is needed to show that it is never printed): a PEM-shaped text with a marker in its body.
    const KEY: &str = "-----BEGIN TEST KEY-----\nMC4CAQAwBQYDK2VwBCIEIJ+secretbytes\n-----END TEST KEY-----\n";

    fn with_key() -> TlsOptions {
        TlsOptions { client_key_pem: Some(PrivateKeyPem::new(KEY.to_string())), ..TlsOptions::default() }
    }

    #[test]
    fn debug_output_redacts_the_client_private_key() {
        let shown = format!("{:?} {:#?}", with_key(), with_key());
        assert!(!shown.contains("secretbytes"), "{shown}");
        assert!(!shown.contains("BEGIN TEST KEY"), "{shown}");
        assert!(shown.contains("PrivateKeyPem(<redacted>)"), "{shown}");
    }

    #[test]
    fn the_private_key_survives_the_agent_wire_round_trip() {
        let wire = serde_json::to_string(&with_key()).unwrap();
        let back: TlsOptions = serde_json::from_str(&wire).unwrap();
        assert_eq!(back.client_key_pem.unwrap().expose(), KEY);
    }
}
