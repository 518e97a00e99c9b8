//! The session against server frames built by hand from RFC 9113 (a tiny frame builder below), for the framing edge
//! cases a real server cannot be made to produce on demand. Server header blocks are encoded with loona-hpack's
//! encoder, an implementation independent of the session's.

use super::frame::{FrameHeader, code, flag, kind, setting};
use super::*;

const GET: &[u8] = b"GET /hello HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n";

/// A frame as the session sent it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Sent {
    kind: u8,
    flags: u8,
    stream: u32,
    payload: Vec<u8>,
}

/// The server side of a test: builds frames, keeps the HPACK encoder's state.
pub(super) struct Server {
    encoder: loona_hpack::Encoder<'static>,
}

impl Server {
    pub(super) fn new() -> Server {
        Server { encoder: loona_hpack::Encoder::new() }
    }

    pub(super) fn frame(kind: u8, flags: u8, stream: u32, payload: &[u8]) -> Vec<u8> {
        let length = payload.len() as u32;
        let mut bytes = vec![(length >> 16) as u8, (length >> 8) as u8, length as u8, kind, flags];
        bytes.extend_from_slice(&stream.to_be_bytes());
        bytes.extend_from_slice(payload);
        bytes
    }

    fn settings(entries: &[(u16, u32)]) -> Vec<u8> {
        let payload: Vec<u8> =
            entries.iter().flat_map(|(id, value)| id.to_be_bytes().into_iter().chain(value.to_be_bytes())).collect();
        Server::frame(kind::SETTINGS, 0, 0, &payload)
    }

    fn block(&mut self, fields: &[(&str, &str)]) -> Vec<u8> {
        self.encoder.encode(fields.iter().map(|(name, value)| (name.as_bytes(), value.as_bytes())))
    }

    pub(super) fn headers(&mut self, stream: u32, flags: u8, fields: &[(&str, &str)]) -> Vec<u8> {
        let block = self.block(fields);
        Server::frame(kind::HEADERS, flags | flag::END_HEADERS, stream, &block)
    }

    pub(super) fn data(stream: u32, flags: u8, body: &[u8]) -> Vec<u8> {
        Server::frame(kind::DATA, flags, stream, body)
    }

    fn window_update(stream: u32, increment: u32) -> Vec<u8> {
        Server::frame(kind::WINDOW_UPDATE, 0, stream, &increment.to_be_bytes())
    }

    fn rst_stream(stream: u32, error_code: u32) -> Vec<u8> {
        Server::frame(kind::RST_STREAM, 0, stream, &error_code.to_be_bytes())
    }

    fn goaway(last_stream: u32, error_code: u32) -> Vec<u8> {
        let mut payload = last_stream.to_be_bytes().to_vec();
        payload.extend_from_slice(&error_code.to_be_bytes());
        Server::frame(kind::GOAWAY, 0, 0, &payload)
    }
}

fn config(max_streams: usize) -> SessionConfig {
    SessionConfig::new(max_streams, Scheme::Http)
}

/// A session whose preface went out and that received the server's (empty) SETTINGS.
pub(super) fn connected(config: SessionConfig) -> Session {
    let mut session = Session::new(config);
    let preface = session.output().len();
    session.consumed(preface);
    assert_eq!(receive(&mut session, &Server::settings(&[])).unwrap(), vec![]);
    assert_eq!(sent(&mut session), vec![ack()]);
    session
}

fn ack() -> Sent {
    Sent { kind: kind::SETTINGS, flags: flag::ACK, stream: 0, payload: vec![] }
}

fn receive(session: &mut Session, bytes: &[u8]) -> Result<Vec<Event>, SessionError> {
    let mut events = Vec::new();
    session.receive(bytes, &mut |event| events.push(event))?;
    Ok(events)
}

/// The frames the session queued since last asked (the client preface skipped), marked written.
fn sent(session: &mut Session) -> Vec<Sent> {
    let mut bytes = session.output().to_vec();
    session.consumed(bytes.len());
    if bytes.starts_with(frame::CLIENT_PREFACE) {
        bytes.drain(..frame::CLIENT_PREFACE.len());
    }
    let mut frames = Vec::new();
    let mut at = 0;
    while let Some(header) = FrameHeader::parse(&bytes[at..]) {
        let start = at + frame::FRAME_HEADER_BYTES;
        let payload = bytes[start..start + header.length].to_vec();
        frames.push(Sent { kind: header.kind, flags: header.flags, stream: header.stream, payload });
        at = start + header.length;
    }
    assert_eq!(at, bytes.len(), "output ends with a whole frame");
    frames
}

/// (stream, length, flags) of every DATA frame.
fn data_frames(frames: &[Sent]) -> Vec<(u32, usize, u8)> {
    frames
        .iter()
        .filter(|sent| sent.kind == kind::DATA)
        .map(|sent| (sent.stream, sent.payload.len(), sent.flags))
        .collect()
}

fn post(body_length: usize) -> Vec<u8> {
    let mut request = format!("POST /upload HTTP/1.1\r\nHost: a\r\nContent-Length: {body_length}\r\n\r\n").into_bytes();
    request.extend(std::iter::repeat_n(b'x', body_length));
    request
}

fn response(lane: usize, stream: u32, status: u16, body_bytes: u64) -> Event {
    Event::Response { lane, stream, status, body_bytes }
}

#[test]
fn a_new_session_queues_the_preface_settings_and_a_connection_window_raise() {
    let mut session = Session::new(config(4));
    assert!(session.output().starts_with(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"));
    let settings: Vec<u8> = [(setting::ENABLE_PUSH, 0u32), (setting::INITIAL_WINDOW_SIZE, 16 << 20)]
        .iter()
        .flat_map(|(id, value)| id.to_be_bytes().into_iter().chain(value.to_be_bytes()))
        .collect();
    assert_eq!(
        sent(&mut session),
        vec![
            Sent { kind: kind::SETTINGS, flags: 0, stream: 0, payload: settings },
            Sent {
                kind: kind::WINDOW_UPDATE,
                flags: 0,
                stream: 0,
                payload: ((64 << 20) - 65_535u32).to_be_bytes().to_vec()
            },
        ]
    );
    assert!(session.output().is_empty());
}

#[test]
fn a_get_gets_its_response_with_status_and_body_length() {
    let mut session = connected(config(4));
    let mut server = Server::new();
    assert_eq!(session.start_request(7, GET), Ok(1));
    let frames = sent(&mut session);
    assert_eq!(frames.len(), 1);
    assert_eq!(
        (frames[0].kind, frames[0].flags, frames[0].stream),
        (kind::HEADERS, flag::END_HEADERS | flag::END_STREAM, 1)
    );
    let mut reply = server.headers(1, 0, &[(":status", "200"), ("content-type", "text/plain")]);
    reply.extend(Server::data(1, 0, b"hello "));
    reply.extend(Server::data(1, flag::END_STREAM, b"world"));
    assert_eq!(receive(&mut session, &reply).unwrap(), vec![response(7, 1, 200, 11)]);
    assert_eq!(session.open_streams(), 0);
}

#[test]
fn frames_split_byte_by_byte_give_the_same_events() {
    let mut session = Session::new(config(4));
    let mut server = Server::new();
    assert_eq!(session.start_request(0, GET), Ok(1));
    assert_eq!(session.start_request(1, GET), Ok(3));
    let mut bytes = Server::settings(&[(setting::MAX_CONCURRENT_STREAMS, 100)]);
    bytes.extend(server.headers(3, flag::END_STREAM, &[(":status", "404")]));
    bytes.extend(server.headers(1, 0, &[(":status", "200"), ("server", "test")]));
    bytes.extend(Server::frame(kind::DATA, flag::PADDED | flag::END_STREAM, 1, &[3, b'a', b'b', 0, 0, 0]));
    let mut events = Vec::new();
    for byte in &bytes {
        events.extend(receive(&mut session, std::slice::from_ref(byte)).unwrap());
    }
    assert_eq!(events, vec![response(1, 3, 404, 0), response(0, 1, 200, 2)]);
    assert!(session.inbound.is_empty());
}

#[test]
fn a_response_header_block_continues_in_continuation_frames() {
    let mut session = connected(config(4));
    let mut server = Server::new();
    session.start_request(0, GET).unwrap();
    let long_value = "v".repeat(100);
    let block = server.block(&[(":status", "201"), ("x-long", &long_value)]);
    let mut bytes = Server::frame(kind::HEADERS, flag::END_STREAM, 1, &block[..10]);
    bytes.extend(Server::frame(kind::CONTINUATION, 0, 1, &block[10..50]));
    bytes.extend(Server::frame(kind::CONTINUATION, flag::END_HEADERS, 1, &block[50..]));
    assert_eq!(receive(&mut session, &bytes).unwrap(), vec![response(0, 1, 201, 0)]);
}

#[test]
fn a_header_block_interrupted_by_another_frame_is_a_protocol_error() {
    let mut session = connected(config(4));
    let mut server = Server::new();
    session.start_request(0, GET).unwrap();
    let block = server.block(&[(":status", "200")]);
    let mut bytes = Server::frame(kind::HEADERS, 0, 1, &block);
    bytes.extend(Server::frame(kind::PING, 0, 0, &[0; 8]));
    let error = receive(&mut session, &bytes).unwrap_err();
    assert_eq!(error.code, code::PROTOCOL_ERROR);
    let goaway = sent(&mut session).pop().unwrap();
    assert_eq!((goaway.kind, &goaway.payload[..8]), (kind::GOAWAY, &[0, 0, 0, 0, 0, 0, 0, 1][..]));
    assert!(session.finished());
    assert_eq!(session.start_request(1, GET), Err(StartError::GoingAway));
}

#[test]
fn a_request_header_block_larger_than_the_peer_frame_size_goes_out_in_continuations() {
    let mut session = connected(config(4));
    let request = format!("GET / HTTP/1.1\r\nHost: a\r\nX-Big: {}\r\n\r\n", "b".repeat(40_000));
    session.start_request(0, request.as_bytes()).unwrap();
    let frames = sent(&mut session);
    let shape: Vec<(u8, u8, usize)> = frames.iter().map(|sent| (sent.kind, sent.flags, sent.payload.len())).collect();
    let block_length: usize = frames.iter().map(|sent| sent.payload.len()).sum();
    assert_eq!(
        shape,
        vec![
            (kind::HEADERS, flag::END_STREAM, 16_384),
            (kind::CONTINUATION, 0, 16_384),
            (kind::CONTINUATION, flag::END_HEADERS, block_length - 2 * 16_384),
        ]
    );
    let block: Vec<u8> = frames.iter().flat_map(|sent| sent.payload.clone()).collect();
    let fields = loona_hpack::Decoder::new().decode(&block).unwrap();
    assert_eq!(fields[4], (b"x-big".to_vec(), vec![b'b'; 40_000]));
}

#[test]
fn a_body_bigger_than_the_window_waits_for_window_updates() {
    let mut session = connected(config(4));
    session.start_request(0, &post(70_000)).unwrap();
    let frames = sent(&mut session);
    assert_eq!(
        data_frames(&frames),
        vec![(1, 16_384, 0), (1, 16_384, 0), (1, 16_384, 0), (1, 16_383, 0)],
        "65,535 bytes: the initial window of both the stream and the connection"
    );
    assert_eq!(receive(&mut session, &Server::window_update(0, 10_000)).unwrap(), vec![]);
    assert_eq!(data_frames(&sent(&mut session)), vec![], "the stream's window is still empty");
    assert_eq!(receive(&mut session, &Server::window_update(1, 10_000)).unwrap(), vec![]);
    assert_eq!(data_frames(&sent(&mut session)), vec![(1, 4_465, flag::END_STREAM)]);
}

#[test]
fn a_settings_change_of_initial_window_size_moves_open_stream_windows() {
    let mut session = connected(config(4));
    session.start_request(0, &post(100_000)).unwrap();
    let first: usize = data_frames(&sent(&mut session)).iter().map(|(_, length, _)| length).sum();
    assert_eq!(first, 65_535);
    assert_eq!(receive(&mut session, &Server::window_update(0, 100_000)).unwrap(), vec![]);
    // The stream's window goes from 0 to 1,000 - 65,535 = -64,535.
    assert_eq!(receive(&mut session, &Server::settings(&[(setting::INITIAL_WINDOW_SIZE, 1_000)])).unwrap(), vec![]);
    assert_eq!(sent(&mut session), vec![ack()]);
    assert_eq!(receive(&mut session, &Server::window_update(1, 64_635)).unwrap(), vec![]);
    assert_eq!(data_frames(&sent(&mut session)), vec![(1, 100, 0)], "-64,535 + 64,635 = 100 bytes of window");
    // Back to 65,535: the window becomes 0 + 64,535, enough for the 34,365 bytes left.
    assert_eq!(receive(&mut session, &Server::settings(&[(setting::INITIAL_WINDOW_SIZE, 65_535)])).unwrap(), vec![]);
    let frames = sent(&mut session);
    assert_eq!(frames[0], ack());
    assert_eq!(data_frames(&frames), vec![(1, 16_384, 0), (1, 16_384, 0), (1, 1_597, flag::END_STREAM)]);
}

#[test]
fn a_window_above_two_to_the_31_is_a_flow_control_error() {
    let mut session = connected(config(4));
    let error = receive(&mut session, &Server::window_update(0, 0x7fff_ffff)).unwrap_err();
    assert_eq!(error.code, code::FLOW_CONTROL_ERROR);
}

#[test]
fn response_bodies_give_credit_back_at_half_a_window() {
    let small = SessionConfig { stream_window: 1_000, connection_window: 65_535, ..config(4) };
    let mut session = connected(small);
    session.start_request(0, GET).unwrap();
    sent(&mut session);
    let mut server = Server::new();
    receive(&mut session, &server.headers(1, 0, &[(":status", "200")])).unwrap();
    receive(&mut session, &Server::data(1, 0, &[0; 499])).unwrap();
    assert_eq!(sent(&mut session), vec![]);
    receive(&mut session, &Server::data(1, 0, &[0; 1])).unwrap();
    let update = Sent { kind: kind::WINDOW_UPDATE, flags: 0, stream: 1, payload: 500u32.to_be_bytes().to_vec() };
    assert_eq!(sent(&mut session), vec![update]);
    // 1,000 bytes of window again: 500 left plus the 500 given back.
    let error = receive(&mut session, &Server::data(1, 0, &[0; 1_001])).unwrap_err();
    assert_eq!(error.code, code::FLOW_CONTROL_ERROR);
}

#[test]
fn the_connection_window_is_given_back_for_every_stream_even_cancelled_ones() {
    let small = SessionConfig { stream_window: 40_000, connection_window: 65_535, ..config(4) };
    let mut session = connected(small);
    let mut server = Server::new();
    session.start_request(0, GET).unwrap();
    sent(&mut session);
    receive(&mut session, &server.headers(1, 0, &[(":status", "200")])).unwrap();
    assert!(session.cancel(0));
    let reset = Sent { kind: kind::RST_STREAM, flags: 0, stream: 1, payload: code::CANCEL.to_be_bytes().to_vec() };
    assert_eq!(sent(&mut session), vec![reset]);
    assert!(!session.cancel(0), "the lane has no stream any more");
    assert_eq!(receive(&mut session, &Server::data(1, 0, &[0; 16_000])).unwrap(), vec![]);
    assert_eq!(receive(&mut session, &Server::data(1, 0, &[0; 16_000])).unwrap(), vec![]);
    assert_eq!(sent(&mut session), vec![], "32,000 < 65,535 / 2");
    assert_eq!(receive(&mut session, &Server::data(1, flag::END_STREAM, &[0; 1_000])).unwrap(), vec![]);
    let update = Sent { kind: kind::WINDOW_UPDATE, flags: 0, stream: 0, payload: 33_000u32.to_be_bytes().to_vec() };
    assert_eq!(sent(&mut session), vec![update], "33,000 ≥ 65,535 / 2");
}

#[test]
fn goaway_reports_exactly_the_streams_above_its_last_stream_as_unprocessed() {
    let mut session = connected(config(8));
    let mut server = Server::new();
    for lane in 10..15 {
        session.start_request(lane, GET).unwrap(); // streams 1, 3, 5, 7, 9
    }
    let events = receive(&mut session, &Server::goaway(5, code::NO_ERROR)).unwrap();
    assert_eq!(
        events,
        vec![
            Event::GoAway { last_stream: 5, code: code::NO_ERROR },
            Event::Unprocessed { lane: 13 },
            Event::Unprocessed { lane: 14 }
        ]
    );
    assert!(session.is_going_away());
    assert!(!session.can_start());
    assert_eq!(session.start_request(15, GET), Err(StartError::GoingAway));
    assert_eq!(session.open_streams(), 3);
    assert!(!session.finished());
    let mut rest = server.headers(1, flag::END_STREAM, &[(":status", "200")]);
    rest.extend(server.headers(3, flag::END_STREAM, &[(":status", "200")]));
    assert_eq!(receive(&mut session, &rest).unwrap().len(), 2);
    assert!(!session.finished(), "stream 5 is still open");
    let last = server.headers(5, flag::END_STREAM, &[(":status", "503")]);
    assert_eq!(receive(&mut session, &last).unwrap(), vec![response(12, 5, 503, 0)]);
    assert!(session.finished());
}

#[test]
fn a_reset_stream_is_reported_with_its_code_and_its_later_frames_ignored() {
    let mut session = connected(config(4));
    let mut server = Server::new();
    session.start_request(3, GET).unwrap();
    let events = receive(&mut session, &Server::rst_stream(1, code::REFUSED_STREAM)).unwrap();
    assert_eq!(events, vec![Event::Reset { lane: 3, stream: 1, code: 0x7 }]);
    assert_eq!(session.open_streams(), 0);
    let late = server.headers(1, flag::END_STREAM, &[(":status", "200")]);
    assert_eq!(receive(&mut session, &late).unwrap(), vec![]);
}

#[test]
fn a_ping_is_answered_with_the_same_eight_bytes() {
    let mut session = connected(config(4));
    let opaque = [1, 2, 3, 4, 5, 6, 7, 8];
    assert_eq!(receive(&mut session, &Server::frame(kind::PING, 0, 0, &opaque)).unwrap(), vec![]);
    assert_eq!(
        sent(&mut session),
        vec![Sent { kind: kind::PING, flags: flag::ACK, stream: 0, payload: opaque.to_vec() }]
    );
    receive(&mut session, &Server::frame(kind::PING, flag::ACK, 0, &opaque)).unwrap();
    assert_eq!(sent(&mut session), vec![], "a PING ACK is not answered");
}

#[test]
fn informational_responses_are_skipped_and_trailers_end_the_stream() {
    let mut session = connected(config(4));
    let mut server = Server::new();
    session.start_request(0, GET).unwrap();
    let mut bytes = server.headers(1, 0, &[(":status", "103"), ("link", "</a.css>")]);
    bytes.extend(server.headers(1, 0, &[(":status", "200")]));
    bytes.extend(Server::data(1, 0, b"abc"));
    bytes.extend(server.headers(1, flag::END_STREAM, &[("grpc-status", "0")]));
    assert_eq!(receive(&mut session, &bytes).unwrap(), vec![response(0, 1, 200, 3)]);
}

#[test]
fn streams_are_limited_by_our_maximum_and_the_peer_maximum() {
    let mut session = connected(config(3));
    for lane in 0..3 {
        session.start_request(lane, GET).unwrap();
    }
    assert!(!session.can_start());
    assert_eq!(session.start_request(3, GET), Err(StartError::NoStreamSlot));
    let mut other = connected(config(3));
    receive(&mut other, &Server::settings(&[(setting::MAX_CONCURRENT_STREAMS, 1)])).unwrap();
    other.start_request(0, GET).unwrap();
    assert_eq!(other.start_request(1, GET), Err(StartError::NoStreamSlot));
}

#[test]
fn stream_ids_run_out() {
    let mut session = connected(config(3));
    session.next_stream_id = frame::MAX_STREAM_ID;
    assert_eq!(session.start_request(0, GET), Ok(frame::MAX_STREAM_ID));
    assert!(!session.can_start());
    assert_eq!(session.start_request(1, GET), Err(StartError::StreamIdsExhausted));
}

#[test]
fn an_unparsable_request_starts_nothing() {
    let mut session = connected(config(3));
    assert!(matches!(session.start_request(0, b"GET / HTTP/1.1\r\n\r\n"), Err(StartError::Unparsable(_))));
    assert_eq!(session.open_streams(), 0);
    assert_eq!(sent(&mut session), vec![]);
    assert_eq!(session.start_request(0, GET), Ok(1), "no stream id was used");
}

#[test]
fn a_server_that_is_not_http2_is_a_protocol_error() {
    let mut session = Session::new(config(3));
    let error = receive(&mut session, b"HTTP/1.1 400 Bad Request\r\n\r\n").unwrap_err();
    assert_eq!(error.code, code::PROTOCOL_ERROR);
    assert!(receive(&mut session, b"more").is_err(), "the session stays failed");
}

#[test]
fn protocol_violations_are_connection_errors_with_their_codes() {
    let cases: Vec<(&str, Vec<u8>, u32)> = vec![
        ("push promise", Server::frame(kind::PUSH_PROMISE, flag::END_HEADERS, 1, &[0, 0, 0, 2]), code::PROTOCOL_ERROR),
        ("data on a stream never opened", Server::data(3, 0, b"x"), code::PROTOCOL_ERROR),
        (
            "headers on a server stream",
            Server::frame(kind::HEADERS, flag::END_HEADERS, 2, &[0x88]),
            code::PROTOCOL_ERROR,
        ),
        ("oversized frame", Server::frame(kind::DATA, 0, 1, &[0; 16_385]), code::FRAME_SIZE_ERROR),
        ("short ping", Server::frame(kind::PING, 0, 0, &[0; 7]), code::FRAME_SIZE_ERROR),
        ("zero window update", Server::window_update(0, 0), code::PROTOCOL_ERROR),
        ("bad HPACK index", Server::frame(kind::HEADERS, flag::END_HEADERS, 1, &[0xff, 0x7f]), code::COMPRESSION_ERROR),
        ("continuation alone", Server::frame(kind::CONTINUATION, flag::END_HEADERS, 1, &[0x88]), code::PROTOCOL_ERROR),
        ("push enabled", Server::settings(&[(setting::ENABLE_PUSH, 1)]), code::PROTOCOL_ERROR),
        ("tiny max frame size", Server::settings(&[(setting::MAX_FRAME_SIZE, 100)]), code::PROTOCOL_ERROR),
    ];
    for (what, bytes, expected) in cases {
        let mut session = connected(config(3));
        session.start_request(0, GET).unwrap();
        sent(&mut session);
        let error = receive(&mut session, &bytes).unwrap_err();
        assert_eq!(error.code, expected, "{what}: {error}");
        let goaway = sent(&mut session).pop().unwrap();
        assert_eq!((goaway.kind, frame::read_u32(&goaway.payload[4..])), (kind::GOAWAY, expected), "{what}");
    }
}

#[test]
fn unknown_frames_and_priority_are_ignored() {
    let mut session = connected(config(3));
    session.start_request(0, GET).unwrap();
    sent(&mut session);
    let mut bytes = Server::frame(0xfa, 0xff, 1, b"whatever");
    bytes.extend(Server::frame(kind::PRIORITY, 0, 1, &[0, 0, 0, 0, 16]));
    assert_eq!(receive(&mut session, &bytes).unwrap(), vec![]);
    assert_eq!(sent(&mut session), vec![]);
}

#[test]
fn a_response_that_ends_before_the_request_body_resets_the_stream() {
    let mut session = connected(config(3));
    let mut server = Server::new();
    session.start_request(0, &post(100_000)).unwrap();
    sent(&mut session);
    let early = server.headers(1, flag::END_STREAM, &[(":status", "413")]);
    assert_eq!(receive(&mut session, &early).unwrap(), vec![response(0, 1, 413, 0)]);
    let reset = Sent { kind: kind::RST_STREAM, flags: 0, stream: 1, payload: code::CANCEL.to_be_bytes().to_vec() };
    assert_eq!(sent(&mut session), vec![reset]);
    receive(&mut session, &Server::window_update(0, 100_000)).unwrap();
    assert_eq!(sent(&mut session), vec![], "the rest of the body is not sent");
}
