//! The HTTP/2 client session (src/load/h2) against a real nginx speaking h2c with prior knowledge: many requests on
//! one connection over few streams, flow control both ways (100 KiB responses, a 1 MiB upload), GOAWAY after
//! `keepalive_requests`, and nginx's access log counting what it answered. The session is driven here over a
//! blocking socket with a read timeout, as the worker drives it over its event loop.

#[allow(dead_code)]
use crate::common::nginx;

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::time::{Duration, Instant};

use jload::load::connections::h2::{self, Event, Scheme, Session, SessionConfig};
use nginx::Nginx;

/// The most any test's exchange may take.
const TEST_DEADLINE: Duration = Duration::from_secs(60);
/// A read that waits longer than this fails the test (the server went silent).
const READ_TIMEOUT: Duration = Duration::from_secs(5);
const FILE_BYTES: usize = 100 * 1024;

/// An nginx with h2c on its port serving `/file.bin` (100 KiB) and `/hello` ("hello"), accepting PUTs of up to
/// 2 MiB under `/upload/`, with `extra` added to its server block.
fn nginx_h2c(extra: &str) -> Nginx {
    let extra = extra.to_string();
    Nginx::start(move |port, folder: &Path| {
        let www = folder.join("www");
        std::fs::create_dir_all(www.join("upload")).unwrap();
        std::fs::write(www.join("file.bin"), file_content()).unwrap();
        format!(
            "server {{\n\
               listen 127.0.0.1:{port} http2;\n\
               root {www};\n\
               keepalive_timeout 60s;\n\
               {extra}\n\
               location = /hello {{ return 200 \"hello\"; }}\n\
               location /upload/ {{ dav_methods PUT; client_max_body_size 2m; }}\n\
             }}",
            www = www.display(),
        )
    })
}

fn file_content() -> Vec<u8> {
    (0..FILE_BYTES).map(|index| (index % 251) as u8).collect()
}

fn get(nginx: &Nginx, path: &str) -> Vec<u8> {
    format!(
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nUser-Agent: jload-test\r\nConnection: keep-alive\r\n\r\n",
        nginx.port
    )
    .into_bytes()
}

/// A session over a blocking TCP connection, written and read in turns.
struct Client {
    socket: TcpStream,
    session: Session,
    buffer: Vec<u8>,
    started: Instant,
}

impl Client {
    fn connect(nginx: &Nginx, config: SessionConfig) -> Client {
        let socket = TcpStream::connect(nginx.addr()).expect("connect to nginx");
        socket.set_read_timeout(Some(READ_TIMEOUT)).unwrap();
        socket.set_nodelay(true).unwrap();
        let mut client =
            Client { socket, session: Session::new(config), buffer: vec![0; 64 * 1024], started: Instant::now() };
        client.flush();
        client
    }

    /// Write everything the session queued.
    fn flush(&mut self) {
        let output = self.session.output();
        if output.is_empty() {
            return;
        }
        self.socket.write_all(output).expect("write to nginx");
        let written = output.len();
        self.session.consumed(written);
    }

    /// Read once, feed the session, write what it answered; false when nginx closed the connection.
    fn exchange(&mut self, events: &mut Vec<Event>) -> bool {
        assert!(self.started.elapsed() < TEST_DEADLINE, "the exchange took longer than {TEST_DEADLINE:?}");
        let count = match self.socket.read(&mut self.buffer) {
            Ok(count) => count,
            Err(err) if matches!(err.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                panic!("nginx sent nothing for {READ_TIMEOUT:?} with {} streams open", self.session.open_streams())
            }
            Err(err) if err.kind() == ErrorKind::ConnectionReset => return false,
            Err(err) => panic!("read from nginx: {err}"),
        };
        if count == 0 {
            return false;
        }
        self.session.receive(&self.buffer[..count], &mut |event| events.push(event)).expect("a valid HTTP/2 peer");
        self.flush();
        true
    }
}

/// What one connection did with `total` requests sent `streams` at a time.
#[derive(Debug, Default)]
struct Outcome {
    started: usize,
    /// (status, body bytes) of every response.
    responses: Vec<(u16, u64)>,
    unprocessed: usize,
    resets: Vec<u32>,
    goaways: Vec<(u32, u32)>,
    /// nginx closed the connection.
    closed: bool,
}

/// Send `total` copies of `request` over one connection, `streams` at a time (each lane re-used as soon as its
/// response is in), until all are answered, or the session finished after a GOAWAY, or nginx closed.
fn run(client: &mut Client, request: &[u8], total: usize, streams: usize) -> Outcome {
    let mut outcome = Outcome::default();
    let mut free_lanes: Vec<usize> = (0..streams).rev().collect();
    let mut events = Vec::new();
    while outcome.responses.len() < total && !client.session.finished() {
        while outcome.started < total && client.session.can_start() {
            let lane = free_lanes.pop().expect("a free lane whenever the session has a free stream");
            client.session.start_request(lane, request).expect("the request starts");
            outcome.started += 1;
        }
        client.flush();
        if !client.exchange(&mut events) {
            outcome.closed = true;
            break;
        }
        for event in events.drain(..) {
            match event {
                Event::Response { lane, status, body_bytes, .. } => {
                    outcome.responses.push((status, body_bytes));
                    free_lanes.push(lane);
                }
                Event::Unprocessed { lane } => {
                    outcome.unprocessed += 1;
                    free_lanes.push(lane);
                }
                Event::Reset { lane, code, .. } => {
                    outcome.resets.push(code);
                    free_lanes.push(lane);
                }
                Event::GoAway { last_stream, code } => outcome.goaways.push((last_stream, code)),
            }
        }
    }
    outcome
}

#[test]
fn h2_a_thousand_gets_on_ten_streams_of_one_connection_all_complete() {
    let nginx = nginx_h2c("keepalive_requests 100000;");
    let mut client = Client::connect(&nginx, SessionConfig::new(10, Scheme::Http));
    let outcome = run(&mut client, &get(&nginx, "/file.bin"), 1000, 10);
    assert_eq!((outcome.started, outcome.unprocessed, outcome.closed), (1000, 0, false), "{:?}", outcome.resets);
    assert_eq!(outcome.responses.len(), 1000);
    assert!(outcome.responses.iter().all(|&response| response == (200, FILE_BYTES as u64)), "{:?}", outcome.responses);
    assert!(outcome.goaways.is_empty() && outcome.resets.is_empty());
    assert_eq!(client.session.open_streams(), 0);
    assert_eq!(nginx.access_log_lines_once(1000).len(), 1000, "nginx answered as many requests as responses seen");
}

#[test]
fn h2_small_receive_windows_are_given_back_so_responses_larger_than_them_complete() {
    let nginx = nginx_h2c("");
    let small =
        SessionConfig { stream_window: 16_384, connection_window: 65_535, ..SessionConfig::new(4, Scheme::Http) };
    let mut client = Client::connect(&nginx, small);
    let outcome = run(&mut client, &get(&nginx, "/file.bin"), 40, 4);
    assert_eq!(outcome.responses, vec![(200, FILE_BYTES as u64); 40]);
}

#[test]
fn h2_the_server_counts_exactly_the_responses_seen() {
    let nginx = nginx_h2c("");
    let mut client = Client::connect(&nginx, SessionConfig::new(8, Scheme::Http));
    let outcome = run(&mut client, &get(&nginx, "/hello"), 300, 8);
    assert_eq!(outcome.responses, vec![(200, 5); 300]);
    let lines = nginx.access_log_lines_once(300);
    assert_eq!(lines.len(), 300);
    assert!(lines.iter().all(|line| line == "GET /hello 200 HTTP/2.0"), "{:?}", &lines[..3]);
}

#[test]
fn h2_keepalive_requests_ends_the_connection_with_goaway_after_exactly_that_many() {
    let nginx = nginx_h2c("keepalive_requests 50;");
    let mut client = Client::connect(&nginx, SessionConfig::new(10, Scheme::Http));
    let outcome = run(&mut client, &get(&nginx, "/hello"), 1000, 10);
    assert_eq!(outcome.responses, vec![(200, 5); 50]);
    assert_eq!(outcome.goaways.len(), 1, "{:?}", outcome.goaways);
    let (last_stream, code) = outcome.goaways[0];
    assert_eq!((last_stream, code), (99, h2::error_code::NO_ERROR), "the 50th stream is stream 99");
    assert!(outcome.resets.is_empty(), "{:?}", outcome.resets);
    assert_eq!(outcome.started, 50 + outcome.unprocessed, "every request beyond the 50th is reported unprocessed");
    assert!(client.session.finished());
    assert!(!client.session.can_start());
    assert_eq!(nginx.access_log_lines_once(50).len(), 50);
}

#[test]
fn h2_a_one_mebibyte_upload_goes_out_within_the_servers_windows() {
    let nginx = nginx_h2c("");
    let mut client = Client::connect(&nginx, SessionConfig::new(4, Scheme::Http));
    let body: Vec<u8> = (0..1024 * 1024).map(|index| (index % 253) as u8).collect();
    let mut request = format!(
        "PUT /upload/big.bin HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/octet-stream\r\nContent-Length: {}\r\n\r\n",
        nginx.port,
        body.len()
    )
    .into_bytes();
    request.extend_from_slice(&body);
    assert_eq!(client.session.start_request(0, &request), Ok(1));
    assert!(
        client.session.output().len() < 70_000,
        "only the initial 65,535-byte window of body goes out before nginx grants more"
    );
    let mut events = Vec::new();
    while events.is_empty() {
        client.flush();
        assert!(client.exchange(&mut events), "nginx closed the connection: {}", nginx.error_log());
    }
    assert_eq!(events, vec![Event::Response { lane: 0, stream: 1, status: 201, body_bytes: 0 }]);
    let stored = std::fs::read(nginx.folder().join("www/upload/big.bin")).expect("nginx stored the upload");
    assert_eq!(stored.len(), body.len());
    assert!(stored == body, "the stored upload differs from the body sent");
    assert_eq!(nginx.access_log_lines_once(1), vec!["PUT /upload/big.bin 201 HTTP/2.0".to_string()]);
}
