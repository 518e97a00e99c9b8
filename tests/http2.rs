//! `jload bench --http2` against a real nginx on 127.0.0.1: h2c with prior knowledge and h2 over TLS (ALPN), many
//! streams per connection, GOAWAY in the middle of a run (nginx's keepalive_requests), a server allowing fewer
//! streams than asked for, the open model, and `--http auto`. Every count is checked against nginx's access log.

use crate::common;

use common::machine;
use common::nginx::Nginx;
use common::pki::Pki;
use common::{bench_json, tempdir};
use serde_json::Value;

/// nginx answering "hello" over HTTP/2 on its port: h2c, or TLS with the Pki's server certificate; `extra` goes in
/// the server block.
fn nginx_h2(tls: Option<&Pki>, extra: &str) -> Nginx {
    let (ssl, certificate) = match tls {
        Some(pki) => (
            "ssl",
            format!(
                "ssl_certificate {};\nssl_certificate_key {};\nssl_protocols TLSv1.2 TLSv1.3;",
                pki.path("server.pem"),
                pki.path("server.key")
            ),
        ),
        None => ("", String::new()),
    };
    let extra = extra.to_string();
    Nginx::start(move |port, _| {
        format!(
            "keepalive_requests 1000000;\n\
             server {{\n\
               listen 127.0.0.1:{port} {ssl} http2;\n\
               {certificate}\n\
               {extra}\n\
               location / {{ return 200 \"hello\"; }}\n\
             }}"
        )
    })
}

/// nginx over TLS without HTTP/2 (ALPN: http/1.1 only).
fn nginx_tls_http1_only(pki: &Pki) -> Nginx {
    let (pem, key) = (pki.path("server.pem"), pki.path("server.key"));
    Nginx::start(move |port, _| {
        format!(
            "server {{ listen 127.0.0.1:{port} ssl; ssl_certificate {pem}; ssl_certificate_key {key}; \
             location / {{ return 200 \"hello\"; }} }}"
        )
    })
}

fn count(result: &Value, pointer: &str) -> u64 {
    result.pointer(pointer).and_then(Value::as_u64).unwrap_or_else(|| panic!("no {pointer} in {result}"))
}

/// Every access-log line says HTTP/2.0, and there are `expected` of them.
fn assert_served_over_http2(nginx: &Nginx, expected: usize) {
    let lines = nginx.access_log_lines_once(expected);
    assert_eq!(lines.len(), expected);
    assert!(lines.iter().all(|line| line == "GET / 200 HTTP/2.0"), "{:?}", &lines[..3.min(lines.len())]);
}

#[test]
fn h2c_with_prior_knowledge_carries_every_request_on_few_connections_and_many_streams() {
    let nginx = nginx_h2(None, "");
    let url = format!("http://127.0.0.1:{}/", nginx.port);
    let (code, result, _) = bench_json(&["-n", "3000", "-c", "2", "-t", "1", "--http2", "--streams", "8", &url]);
    assert_eq!(code, 0, "{result}");
    assert_eq!((count(&result, "/requests"), count(&result, "/errors/total")), (3000, 0));
    assert_eq!(count(&result, "/connection_setup/connections"), 2);
    assert_eq!((count(&result, "/connections"), count(&result, "/streams")), (2, 8));
    assert_eq!(count(&result, "/reconnects"), 0);
    assert_served_over_http2(&nginx, 3000);
}

#[test]
fn h2_over_tls_is_chosen_by_alpn() {
    let dir = tempdir();
    let pki = Pki::create(&dir);
    let nginx = nginx_h2(Some(&pki), "");
    let url = format!("https://localhost:{}/", nginx.port);
    let ca = pki.path("ca.pem");
    let (code, result, _) =
        bench_json(&["-n", "1000", "-c", "2", "-t", "1", "--http2", "--streams", "4", "--cacert", &ca, &url]);
    assert_eq!(code, 0, "{result}");
    assert_eq!((count(&result, "/requests"), count(&result, "/errors/total")), (1000, 0));
    assert_eq!(result["connection_setup"]["tls"]["alpn"], "h2");
    assert_served_over_http2(&nginx, 1000);
}

#[test]
fn http_auto_speaks_what_the_server_chose() {
    let dir = tempdir();
    let pki = Pki::create(&dir);
    // 100 requests with `--http auto` to `nginx`: what ALPN chose.
    let auto_run = |nginx: &Nginx| {
        let url = format!("https://localhost:{}/", nginx.port);
        let (code, result, _) = bench_json(&["-n", "100", "-c", "1", "-t", "1", "--http", "auto", "-k", &url]);
        assert_eq!(code, 0, "{result}");
        result["connection_setup"]["tls"]["alpn"].clone()
    };
    let h2 = nginx_h2(Some(&pki), "");
    assert_eq!(auto_run(&h2), "h2");
    assert_served_over_http2(&h2, 100);
    let h1 = nginx_tls_http1_only(&pki);
    assert_eq!(auto_run(&h1), "http/1.1");
    assert_eq!(h1.access_log_lines_once(100).len(), 100);
}

#[test]
fn http2_against_a_tls_server_without_it_is_refused_by_alpn() {
    let dir = tempdir();
    let pki = Pki::create(&dir);
    let h1 = nginx_tls_http1_only(&pki);
    let (code, result, _) =
        bench_json(&["-d", "500ms", "-c", "1", "-t", "1", "--http2", "-k", &format!("https://localhost:{}/", h1.port)]);
    assert_eq!(code, 1);
    // nginx answers an ALPN offer of h2 alone with the no_application_protocol alert.
    assert!(count(&result, "/errors/tls_alert") >= 1, "{result}");
    let reason = result["connection_setup"]["tls_error"].as_str().unwrap();
    assert!(reason.contains("NoApplicationProtocol"), "{reason}");
    assert!(h1.access_log_lines().is_empty());
}

#[test]
fn goaway_mid_run_moves_the_unprocessed_requests_to_a_new_connection_and_loses_none() {
    // nginx ends a connection with GOAWAY after 100 requests (the server block's setting wins over the http block's).
    let nginx = nginx_h2(None, "keepalive_requests 100;");
    let url = format!("http://127.0.0.1:{}/", nginx.port);
    let (code, result, _) = bench_json(&["-n", "2000", "-c", "2", "-t", "1", "--http2", "--streams", "6", &url]);
    assert_eq!(code, 0, "{result}");
    assert_eq!((count(&result, "/requests"), count(&result, "/errors/total")), (2000, 0), "{result}");
    let connections = count(&result, "/connection_setup/connections");
    assert!(connections >= 20, "2,000 requests at 100 per connection: {result}");
    assert_eq!(count(&result, "/reconnects"), connections - 2, "every connection after the first two replaced one");
    assert_served_over_http2(&nginx, 2000);
}

#[test]
fn a_server_allowing_fewer_streams_than_asked_for_gets_them_queued() {
    let nginx = nginx_h2(None, "http2_max_concurrent_streams 2;");
    let url = format!("http://127.0.0.1:{}/", nginx.port);
    let (code, result, _) = bench_json(&["-n", "1000", "-c", "1", "-t", "1", "--http2", "--streams", "16", &url]);
    assert_eq!(code, 0, "{result}");
    assert_eq!((count(&result, "/requests"), count(&result, "/errors/total")), (1000, 0), "{result}");
    assert_served_over_http2(&nginx, 1000);
}

#[test]
fn the_open_model_spreads_its_schedule_over_every_stream() {
    let _machine = machine::shared();
    let nginx = nginx_h2(None, "");
    let url = format!("http://127.0.0.1:{}/", nginx.port);
    let (code, result, _) =
        bench_json(&["-R", "500", "-d", "2s", "-c", "2", "-t", "1", "--http2", "--streams", "4", &url]);
    assert_eq!(code, 0, "{result}");
    assert_eq!(count(&result, "/due"), 1000);
    assert_eq!((count(&result, "/requests"), count(&result, "/errors/total")), (1000, 0), "{result}");
    assert_served_over_http2(&nginx, 1000);
}

#[test]
fn a_stream_that_times_out_is_reset_and_its_connection_carries_the_next_request() {
    // nginx sends /slow's 100 KiB at 10 KiB/s: every request outlives the timeout.
    let nginx = Nginx::start(|port, folder| {
        std::fs::write(folder.join("slow.bin"), vec![b'x'; 100 * 1024]).unwrap();
        format!(
            "server {{ listen 127.0.0.1:{port} http2; root {}; location /slow.bin {{ limit_rate 10k; }} }}",
            folder.display()
        )
    });
    let url = format!("http://127.0.0.1:{}/slow.bin", nginx.port);
    let (code, result, _) = bench_json(&["-n", "4", "-c", "1", "-t", "1", "--http2", "--timeout", "300ms", &url]);
    assert_eq!(code, 1, "nothing succeeded: {result}");
    assert_eq!((count(&result, "/requests"), count(&result, "/errors/timeout")), (4, 4), "{result}");
    assert_eq!(count(&result, "/connection_setup/connections"), 1, "the connection outlived its reset streams");
    assert_eq!(count(&result, "/reconnects"), 0);
    assert_eq!(nginx.access_log_lines_once(4).len(), 4, "nginx closed each reset stream");
}
