//! `jload bench` over HTTPS against real servers on 127.0.0.1: nginx with certificates made in the test (a CA's,
//! an expired one, a server that asks for a client certificate, one that allows no cipher rustls speaks), nginx's
//! plain port taken for TLS, a rustls server that speaks garbage once the handshake is done, and a listener that
//! never answers a handshake (timed per connection: each HTTP/1.1 lane's, once per HTTP/2 connection). Counts are
//! checked at the server (nginx's access log) as well as in jload's result.

use crate::common;

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use common::machine;
use common::nginx::Nginx;
use common::pki::Pki;
use common::{bench_json, jload, tempdir};
use serde_json::Value;

/// nginx serving "hello" over TLS with the certificate `cert` (a name in the Pki folder) on its port, with `extra`
/// in the server block (TLS 1.2 and 1.3 unless it sets `ssl_protocols`).
fn nginx_tls(pki: &Pki, cert: &str, extra: &str) -> Nginx {
    let (pem, key) = (pki.path(&format!("{cert}.pem")), pki.path(&format!("{cert}.key")));
    let protocols = if extra.contains("ssl_protocols") { "" } else { "ssl_protocols TLSv1.2 TLSv1.3;" };
    let extra = format!("{protocols}\n{extra}");
    Nginx::start(move |port, _| {
        format!(
            "keepalive_requests 1000000;\n\
             server {{\n\
               listen 127.0.0.1:{port} ssl;\n\
               ssl_certificate {pem};\n\
               ssl_certificate_key {key};\n\
               {extra}\n\
               location / {{ return 200 \"hello\"; }}\n\
             }}"
        )
    })
}

fn url(nginx: &Nginx, host: &str) -> String {
    format!("https://{host}:{}/", nginx.port)
}

fn count(result: &Value, pointer: &str) -> u64 {
    result.pointer(pointer).and_then(Value::as_u64).unwrap_or_else(|| panic!("no {pointer} in {result}"))
}

#[test]
fn an_https_keep_alive_run_verified_by_the_given_ca_answers_every_request_and_the_server_logs_each() {
    let dir = tempdir();
    let pki = Pki::create(&dir);
    let nginx = nginx_tls(&pki, "server", "");
    let ca = pki.path("ca.pem");
    let (code, result, _) =
        bench_json(&["-n", "2000", "-c", "4", "-t", "1", "--cacert", &ca, &url(&nginx, "localhost")]);
    assert_eq!(code, 0, "{result}");
    assert_eq!((count(&result, "/requests"), count(&result, "/errors/total")), (2000, 0));
    assert_eq!(count(&result, "/connection_setup/connections"), 4, "one handshake per connection, kept alive");
    assert_eq!(result["connection_setup"]["tls"]["version"], "TLSv1_3");
    assert_eq!(result["connection_setup"]["tls"]["alpn"], "http/1.1");
    let lines = nginx.access_log_lines_once(2000);
    assert_eq!(lines.len(), 2000);
    assert!(lines.iter().all(|line| line == "GET / 200 HTTP/1.1"), "{:?}", &lines[..3]);
}

#[test]
fn the_handshake_time_is_reported_apart_from_the_request_latency() {
    let _machine = machine::shared();
    let dir = tempdir();
    let pki = Pki::create(&dir);
    let nginx = nginx_tls(&pki, "server", "");
    let target = url(&nginx, "127.0.0.1");
    let (code, result, _) =
        bench_json(&["-n", "200", "-c", "2", "-t", "1", "-k", "--threshold", "connect_p99<10s", &target]);
    assert_eq!(code, 0, "{result}");
    let setup = &result["connection_setup"];
    assert_eq!(result["thresholds"][0]["actual"], setup["time_ms"]["p99"], "a rule can bound the handshake");
    assert_eq!(count(setup, "/connections"), 2);
    let handshake_p50 = setup["time_ms"]["p50"].as_f64().unwrap();
    assert!(handshake_p50 > 0.0, "{setup}");
    assert!(result["histograms"]["connects"].is_string(), "kept for exact merges");
}

#[test]
fn an_expired_certificate_fails_every_handshake_as_a_certificate_error_and_no_request_reaches_the_server() {
    let dir = tempdir();
    let pki = Pki::create(&dir);
    let nginx = nginx_tls(&pki, "expired", "");
    let ca = pki.path("ca.pem");
    let (code, result, _) = bench_json(&["-d", "1s", "-c", "2", "-t", "1", "--cacert", &ca, &url(&nginx, "localhost")]);
    assert_eq!(code, 1, "nothing succeeded: {result}");
    assert_eq!(count(&result, "/requests"), 0);
    let failed = count(&result, "/errors/tls_certificate");
    assert!(failed >= 2, "{result}");
    assert_eq!(count(&result, "/errors/total"), failed, "every error is a certificate error");
    let reason = result["connection_setup"]["tls_error"].as_str().unwrap();
    assert!(reason.contains("certificate expired"), "{reason}");
    assert!(nginx.access_log_lines().is_empty());
}

#[test]
fn insecure_accepts_an_expired_certificate() {
    let dir = tempdir();
    let pki = Pki::create(&dir);
    let nginx = nginx_tls(&pki, "expired", "");
    let (code, result, _) = bench_json(&["-n", "100", "-c", "1", "-t", "1", "--insecure", &url(&nginx, "localhost")]);
    assert_eq!(code, 0, "{result}");
    assert_eq!((count(&result, "/requests"), count(&result, "/errors/total")), (100, 0));
}

#[test]
fn a_server_certificate_from_an_unknown_issuer_is_refused_with_the_fix_named() {
    let dir = tempdir();
    let pki = Pki::create(&dir);
    let nginx = nginx_tls(&pki, "server", "");
    // The system's roots do not hold the test CA.
    let (code, result, _) = bench_json(&["-d", "500ms", "-c", "1", "-t", "1", &url(&nginx, "localhost")]);
    assert_eq!(code, 1);
    assert!(count(&result, "/errors/tls_certificate") >= 1, "{result}");
    let reason = result["connection_setup"]["tls_error"].as_str().unwrap();
    assert!(reason.contains("UnknownIssuer") && reason.contains("--cacert"), "{reason}");
}

#[test]
fn the_client_certificate_is_presented_when_the_server_asks_for_one() {
    let dir = tempdir();
    let pki = Pki::create(&dir);
    let verify = format!("ssl_verify_client on;\nssl_client_certificate {};", pki.path("ca.pem"));
    let nginx = nginx_tls(&pki, "server", &verify);
    let ca = pki.path("ca.pem");
    let target = url(&nginx, "localhost");
    let (cert, key) = (pki.path("client.pem"), pki.path("client.key"));
    let (code, result, _) =
        bench_json(&["-n", "50", "-c", "1", "-t", "1", "--cacert", &ca, "--cert", &cert, "--key", &key, &target]);
    assert_eq!(code, 0, "{result}");
    assert_eq!(result["status_codes"]["200"], 50);
    // Without it nginx completes the handshake and answers 400 ("No required SSL certificate was sent").
    let (_, without, _) = bench_json(&["-n", "50", "-c", "1", "-t", "1", "--cacert", &ca, &target]);
    assert_eq!((without["status_codes"]["400"].as_u64(), count(&without, "/errors/status")), (Some(50), 50));
}

#[test]
fn a_server_that_allows_no_cipher_rustls_speaks_is_counted_as_a_tls_alert() {
    let dir = tempdir();
    let pki = Pki::create(&dir);
    // TLS 1.2 with a CBC cipher only: nginx answers rustls' ClientHello with a handshake_failure alert.
    let nginx = nginx_tls(&pki, "server", "ssl_protocols TLSv1.2;\nssl_ciphers AES128-SHA;");
    let (code, result, _) = bench_json(&["-d", "500ms", "-c", "1", "-t", "1", "-k", &url(&nginx, "localhost")]);
    assert_eq!(code, 1);
    assert!(count(&result, "/errors/tls_alert") >= 1, "{result}");
    assert_eq!(count(&result, "/errors/total"), count(&result, "/errors/tls_alert"));
    let reason = result["connection_setup"]["tls_error"].as_str().unwrap();
    assert!(reason.contains("HandshakeFailure"), "{reason}");
}

#[test]
fn https_to_a_plain_http_port_is_a_handshake_error() {
    let nginx =
        Nginx::start(|port, _| format!("server {{ listen 127.0.0.1:{port}; location / {{ return 200 \"hello\"; }} }}"));
    let (code, result, _) =
        bench_json(&["-d", "500ms", "-c", "1", "-t", "1", "-k", &format!("https://127.0.0.1:{}/", nginx.port)]);
    assert_eq!(code, 1);
    assert!(count(&result, "/errors/tls_handshake") >= 1, "{result}");
    assert_eq!(count(&result, "/errors/total"), count(&result, "/errors/tls_handshake"));
}

/// A TCP listener that accepts every connection and never sends a byte: a TLS handshake with it waits for the
/// timeout. Its port.
fn silent_listener() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming() {
            held.extend(stream.ok());
        }
    });
    port
}

#[test]
fn a_handshake_that_never_completes_fails_each_http1_connection_at_the_timeout() {
    let url = format!("https://127.0.0.1:{}/", silent_listener());
    let (code, result, _) = bench_json(&["-n", "2", "-c", "2", "-t", "1", "-k", "--timeout", "1s", &url]);
    assert_eq!(code, 1, "{result}");
    // An HTTP/1.1 lane owns its connection: each of the two timed out and was counted, its request given up.
    let counts =
        (count(&result, "/requests"), count(&result, "/errors/tls_handshake"), count(&result, "/errors/total"));
    assert_eq!(counts, (0, 2, 2), "{result}");
}

#[test]
fn a_handshake_that_never_completes_fails_an_http2_connection_once_for_all_its_streams() {
    let url = format!("https://127.0.0.1:{}/", silent_listener());
    let args = ["-n", "4", "-c", "1", "-t", "1", "--http2", "--streams", "4", "-k", "--timeout", "1s", &url];
    let (code, result, _) = bench_json(&args);
    assert_eq!(code, 1, "{result}");
    // The four lanes wait for one connection, timed and counted once; each gives up its request.
    let counts =
        (count(&result, "/requests"), count(&result, "/errors/tls_handshake"), count(&result, "/errors/total"));
    assert_eq!(counts, (0, 1, 1), "{result}");
}

#[test]
fn garbage_after_the_handshake_fails_the_request_as_a_read_error() {
    let dir = tempdir();
    let pki = Pki::create(&dir);
    let server = GarbageServer::start(&pki);
    let (code, result, _) = bench_json(&[
        "-n",
        "20",
        "-c",
        "1",
        "-t",
        "1",
        "-k",
        "--timeout",
        "2s",
        &format!("https://127.0.0.1:{}/", server.port),
    ]);
    assert_eq!(code, 1, "{result}");
    assert_eq!((count(&result, "/requests"), count(&result, "/errors/read")), (20, 20), "{result}");
    // Each failure replaces its connection (the last one too, before the worker sees it has nothing left to send).
    let connections = count(&result, "/connection_setup/connections");
    assert!((20..=21).contains(&connections), "{result}");
    assert_eq!(server.handshakes_once(connections), connections, "the server completed every handshake jload did");
}

#[test]
fn connection_close_makes_a_new_handshake_for_every_request() {
    let dir = tempdir();
    let pki = Pki::create(&dir);
    let nginx = nginx_tls(&pki, "server", "");
    let (code, result, _) =
        bench_json(&["-n", "300", "-c", "2", "-t", "1", "-k", "-H", "Connection: close", &url(&nginx, "localhost")]);
    assert_eq!(code, 0, "{result}");
    assert_eq!((count(&result, "/requests"), count(&result, "/errors/total")), (300, 0));
    assert!(count(&result, "/connection_setup/connections") >= 300, "{result}");
    assert_eq!(nginx.access_log_lines_once(300).len(), 300);
}

#[test]
fn the_open_model_keeps_its_rate_over_tls() {
    let _machine = machine::shared();
    let dir = tempdir();
    let pki = Pki::create(&dir);
    let nginx = nginx_tls(&pki, "server", "");
    let (code, result, _) =
        bench_json(&["-R", "400", "-d", "2s", "-c", "8", "-t", "1", "-k", &url(&nginx, "localhost")]);
    assert_eq!(code, 0, "{result}");
    assert_eq!(count(&result, "/due"), 800);
    assert_eq!((count(&result, "/requests"), count(&result, "/errors/total")), (800, 0), "{result}");
    assert_eq!(nginx.access_log_lines_once(800).len(), 800);
}

#[test]
fn tls_flags_that_cannot_work_are_refused_with_one_line_and_exit_2() {
    let dir = tempdir();
    let missing = dir.join("none.pem").display().to_string();
    let cases: [(&[&str], &str); 3] = [
        (&["--cacert", &missing], "--cacert"),
        (&["--streams", "4"], "--streams 4 needs HTTP/2"),
        (&["--http", "auto"], "negotiated by TLS"),
    ];
    for (flags, says) in cases {
        let mut args = vec!["bench", "-n", "1"];
        args.extend_from_slice(flags);
        args.push("http://127.0.0.1:9/");
        let (output, _) = jload(&args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{flags:?}: {stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
        assert!(stderr.contains(says), "{flags:?}: {stderr}");
    }
}

/// A rustls server that completes each handshake, then answers the request with bytes that are not TLS.
struct GarbageServer {
    port: u16,
    handshakes: Arc<AtomicU64>,
}

impl GarbageServer {
    /// The handshakes the server completed, once they are `count` or after two seconds (the last one may finish on
    /// the server just after jload ended).
    fn handshakes_once(&self, count: u64) -> u64 {
        let deadline = std::time::Instant::now() + Duration::from_secs(2);
        while self.handshakes.load(Ordering::SeqCst) < count && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        self.handshakes.load(Ordering::SeqCst)
    }

    fn start(pki: &Pki) -> GarbageServer {
        use rustls::pki_types::pem::PemObject;
        use rustls::pki_types::{CertificateDer, PrivateKeyDer};
        let chain = CertificateDer::pem_file_iter(pki.path("server.pem")).unwrap().map(Result::unwrap).collect();
        let key = PrivateKeyDer::from_pem_file(pki.path("server.key")).unwrap();
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(chain, key)
            .unwrap();
        let config = Arc::new(config);
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let handshakes = Arc::new(AtomicU64::new(0));
        let counted = handshakes.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut tcp) = stream else { return };
                let (config, counted) = (config.clone(), counted.clone());
                std::thread::spawn(move || {
                    tcp.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
                    let mut tls = rustls::ServerConnection::new(config).unwrap();
                    while tls.is_handshaking() {
                        if tls.complete_io(&mut tcp).is_err() {
                            return;
                        }
                    }
                    counted.fetch_add(1, Ordering::SeqCst);
                    // Wait for the request (it may have come with the handshake's last bytes), then answer in plain
                    // text on the TLS connection.
                    let mut request = [0u8; 4096];
                    loop {
                        match tls.reader().read(&mut request) {
                            Ok(count) if count > 0 => break,
                            Err(err) if err.kind() == std::io::ErrorKind::WouldBlock => {
                                if tls.complete_io(&mut tcp).is_err() {
                                    return;
                                }
                            }
                            _ => return,
                        }
                    }
                    let _ = tcp.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello");
                    std::thread::sleep(Duration::from_millis(200));
                });
            }
        });
        GarbageServer { port, handshakes }
    }
}
