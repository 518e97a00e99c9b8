//! The one road from a front end's protocol settings to [`ProtocolOptions`]: the TLS files read once into the
//! options, every error naming the setting as the front end calls it (`bench`'s flag, a plan's key).

use std::path::Path;

use rcgen::{CertificateParams, KeyPair};

use super::*;

/// A self-signed certificate and its key, written as PEM files into `dir`: (certificate, key).
fn certificate_files(dir: &Path) -> (PathBuf, PathBuf) {
    let key = KeyPair::generate().unwrap();
    let certificate = CertificateParams::new(vec!["localhost".to_string()]).unwrap().self_signed(&key).unwrap();
    let (cert_file, key_file) = (dir.join("client.pem"), dir.join("client.key"));
    std::fs::write(&cert_file, certificate.pem()).unwrap();
    std::fs::write(&key_file, key.serialize_pem()).unwrap();
    (cert_file, key_file)
}

#[test]
fn the_tls_files_are_read_into_the_options_once_for_every_front_end() {
    let dir = tempfile::tempdir().unwrap();
    let (cert, key) = certificate_files(dir.path());
    let input = ProtocolInput {
        http: HttpVersion::Http2,
        streams: Some(8),
        insecure: false,
        cacert: Some(cert.clone()),
        cert: Some(cert.clone()),
        key: Some(key.clone()),
    };
    let options = input.into_options(Setting::key, "http = \"2\"").unwrap();
    let pem = std::fs::read_to_string(&cert).unwrap();
    assert_eq!((options.http, options.streams), (HttpVersion::Http2, 8));
    assert_eq!(options.tls.ca_pem.as_deref(), Some(pem.as_str()));
    assert_eq!(options.tls.client_cert_pem.as_deref(), Some(pem.as_str()));
    assert_eq!(options.tls.client_key_pem.unwrap().expose(), std::fs::read_to_string(&key).unwrap());
}

#[test]
fn a_tls_file_that_cannot_be_read_is_named_as_the_front_end_calls_it() {
    let missing = Path::new("/nonexistent-jload-test/ca.pem");
    let input = ProtocolInput { cacert: Some(missing.to_path_buf()), ..ProtocolInput::default() };
    let named = |name: fn(Setting) -> &'static str| match input.clone().into_options(name, "") {
        Err(ProtocolError::Tls(err)) => err.to_string(),
        other => panic!("{other:?}"),
    };
    assert!(named(Setting::flag_name).starts_with("--cacert /nonexistent-jload-test/ca.pem: cannot read it ("));
    assert!(named(Setting::key).starts_with("cacert /nonexistent-jload-test/ca.pem: cannot read it ("));
}

#[test]
fn streams_beside_http1_are_refused_with_the_front_ends_way_to_ask_for_http2() {
    let input = ProtocolInput { streams: Some(4), ..ProtocolInput::default() };
    match input.into_options(Setting::flag_name, "--http2") {
        Err(ProtocolError::Streams(err)) => assert_eq!(
            err.to_string(),
            "--streams 4 needs HTTP/2 (an HTTP/1.1 connection carries one request at a time): add --http2"
        ),
        other => panic!("{other:?}"),
    }
    let input = ProtocolInput { streams: Some(0), ..ProtocolInput::default() };
    let err = input.into_options(Setting::key, "http = \"2\"").unwrap_err().into_error();
    assert_eq!(err.to_string(), "streams must be at least 1");
}
