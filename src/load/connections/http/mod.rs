//! Incremental HTTP/1.1 response parser: the head with `httparse`, then the body by Content-Length, chunked encoding,
//! or until the server closes. Body bytes are counted, never stored. Bytes that are not a valid response are an
//! [`InvalidResponse`] with its reason in words (`invalid.rs` words a refused head); a close before the response
//! is complete is [`Truncated`].

mod invalid;

use invalid::{excerpt, head_reason};

/// The largest response head accepted; a longer one is an invalid response.
const MAX_HEAD_BYTES: usize = 64 * 1024;
/// The most header lines a response head may have; more are an invalid response.
const MAX_HEADERS: usize = 64;

/// What feeding bytes to the parser produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Parsed {
    /// The response is not complete yet.
    NeedMore,
    /// A whole response was read; `close` when the server announced it closes the connection.
    Complete { status: u16, close: bool },
}

/// Why the bytes received are not a valid HTTP/1.1 response, in words (the reason an `invalid response` error keeps).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidResponse(pub String);

/// The connection closed before the response was complete (a read failure: what came was valid so far).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Truncated;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    Head,
    Body { remaining: u64 },
    ChunkSize,
    ChunkData { remaining: u64 },
    ChunkDataEnd { missing: u8 },
    Trailer,
    UntilClose,
}

/// Parses one response at a time; `reset` before each request.
#[derive(Debug)]
pub struct ResponseParser {
    stage: Stage,
    /// Partial head or chunk-size / trailer line carried over between reads (usually empty, never allocated then).
    pending: Vec<u8>,
    status: u16,
    close: bool,
    no_body: bool,
}

impl Default for ResponseParser {
    fn default() -> Self {
        ResponseParser { stage: Stage::Head, pending: Vec::new(), status: 0, close: false, no_body: false }
    }
}

impl ResponseParser {
    /// Prepare for the response to a new request; `no_body` for HEAD requests.
    pub fn reset(&mut self, no_body: bool) {
        self.stage = Stage::Head;
        self.pending.clear();
        self.status = 0;
        self.close = false;
        self.no_body = no_body;
    }

    /// True once any byte of the current response has arrived.
    pub fn started(&self) -> bool {
        self.stage != Stage::Head || !self.pending.is_empty() || self.status != 0
    }

    /// Feed the bytes read from the socket.
    pub fn feed(&mut self, mut data: &[u8]) -> Result<Parsed, InvalidResponse> {
        loop {
            match self.stage {
                Stage::Head => {
                    let consumed = match self.parse_head(data)? {
                        Some(consumed) => consumed,
                        None => return Ok(Parsed::NeedMore),
                    };
                    data = &data[consumed..];
                }
                Stage::Body { remaining } => {
                    let take = remaining.min(data.len() as u64);
                    if take == remaining {
                        return Ok(self.complete()); // bytes after the response are not ours: no pipelining
                    }
                    self.stage = Stage::Body { remaining: remaining - take };
                    return Ok(Parsed::NeedMore);
                }
                Stage::ChunkSize => {
                    let Some(line_end) = self.take_line(&mut data)? else { return Ok(Parsed::NeedMore) };
                    let size = parse_chunk_size_line(&self.pending[..line_end])?;
                    self.pending.clear();
                    self.stage = if size == 0 { Stage::Trailer } else { Stage::ChunkData { remaining: size } };
                }
                Stage::ChunkData { remaining } => {
                    let take = remaining.min(data.len() as u64);
                    data = &data[take as usize..];
                    if take < remaining {
                        self.stage = Stage::ChunkData { remaining: remaining - take };
                        return Ok(Parsed::NeedMore);
                    }
                    self.stage = Stage::ChunkDataEnd { missing: 2 };
                }
                Stage::ChunkDataEnd { missing } => {
                    let expected: &[u8] = if missing == 2 { b"\r\n" } else { b"\n" };
                    let available = data.len().min(missing as usize);
                    if data[..available] != expected[..available] {
                        return Err(InvalidResponse("chunk data not followed by CRLF".into()));
                    }
                    data = &data[available..];
                    if available < missing as usize {
                        self.stage = Stage::ChunkDataEnd { missing: missing - available as u8 };
                        return Ok(Parsed::NeedMore);
                    }
                    self.stage = Stage::ChunkSize;
                }
                Stage::Trailer => {
                    let Some(line_end) = self.take_line(&mut data)? else { return Ok(Parsed::NeedMore) };
                    let empty = line_end == 0;
                    self.pending.clear();
                    if empty {
                        return Ok(self.complete());
                    }
                }
                Stage::UntilClose => return Ok(Parsed::NeedMore),
            }
        }
    }

    /// The server closed the connection: completes a response delimited by close; any other is cut short.
    pub fn feed_eof(&mut self) -> Result<Parsed, Truncated> {
        match self.stage {
            Stage::UntilClose => {
                self.close = true;
                Ok(self.complete())
            }
            _ => Err(Truncated),
        }
    }

    fn complete(&mut self) -> Parsed {
        let progress = Parsed::Complete { status: self.status, close: self.close };
        self.stage = Stage::Head;
        self.pending.clear();
        progress
    }

    /// Try to parse the head from carried-over plus new bytes; returns how many new bytes it used.
    fn parse_head(&mut self, data: &[u8]) -> Result<Option<usize>, InvalidResponse> {
        let carried = self.pending.len();
        if carried > 0 {
            self.pending.extend_from_slice(data);
        }
        let buffer: &[u8] = if carried > 0 { &self.pending } else { data };
        let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
        let mut response = httparse::Response::new(&mut headers);
        let head_len = match response.parse(buffer) {
            Ok(httparse::Status::Complete(length)) => length,
            Ok(httparse::Status::Partial) => {
                if buffer.len() > MAX_HEAD_BYTES {
                    return Err(InvalidResponse(format!("response head larger than {MAX_HEAD_BYTES} bytes")));
                }
                if carried == 0 {
                    self.pending.extend_from_slice(data);
                }
                return Ok(None);
            }
            Err(err) => return Err(InvalidResponse(head_reason(buffer, err, MAX_HEADERS))),
        };
        let status = response.code.unwrap_or(0);
        let mut content_length: Option<u64> = None;
        let mut chunked = false;
        let mut close = response.version == Some(0);
        for header in response.headers.iter() {
            if header.name.eq_ignore_ascii_case("content-length") {
                let length = parse_content_length(header.value)?;
                if let Some(earlier) = content_length.filter(|&earlier| earlier != length) {
                    return Err(InvalidResponse(format!(
                        "two Content-Length headers disagree: {earlier} and {length}"
                    )));
                }
                content_length = Some(length);
            } else if header.name.eq_ignore_ascii_case("transfer-encoding") {
                chunked =
                    header.value.len() >= 7 && header.value[header.value.len() - 7..].eq_ignore_ascii_case(b"chunked");
            } else if header.name.eq_ignore_ascii_case("connection") {
                // Compared without copying (no allocation per response).
                if contains_ignoring_case(header.value, b"close") {
                    close = true;
                } else if contains_ignoring_case(header.value, b"keep-alive") {
                    close = false;
                }
            }
        }
        let used_from_data = head_len - carried;
        self.pending.clear();
        self.status = status;
        self.close = close;
        self.stage = if (100..200).contains(&status) {
            Stage::Head // an interim response (100 Continue): the real one follows
        } else if self.no_body || status == 204 || status == 304 {
            Stage::Body { remaining: 0 }
        } else if chunked {
            Stage::ChunkSize
        } else if let Some(length) = content_length {
            Stage::Body { remaining: length }
        } else {
            Stage::UntilClose
        };
        Ok(Some(used_from_data))
    }

    /// Move bytes up to and including the next LF into `pending`; the index of the line end (CR or LF) when complete.
    fn take_line(&mut self, data: &mut &[u8]) -> Result<Option<usize>, InvalidResponse> {
        match data.iter().position(|&byte| byte == b'\n') {
            Some(newline) => {
                self.pending.extend_from_slice(&data[..=newline]);
                *data = &data[newline + 1..];
                let mut end = self.pending.len() - 1;
                if end > 0 && self.pending[end - 1] == b'\r' {
                    end -= 1;
                }
                Ok(Some(end))
            }
            None => {
                self.pending.extend_from_slice(data);
                *data = &[];
                if self.pending.len() > MAX_HEAD_BYTES {
                    return Err(InvalidResponse(format!(
                        "chunk size or trailer line longer than {MAX_HEAD_BYTES} bytes"
                    )));
                }
                Ok(None)
            }
        }
    }
}

/// Parse a chunk-size line (hex size, optional `;extensions`).
fn parse_chunk_size_line(line: &[u8]) -> Result<u64, InvalidResponse> {
    let mut with_crlf = line.to_vec();
    with_crlf.extend_from_slice(b"\r\n");
    match httparse::parse_chunk_size(&with_crlf) {
        Ok(httparse::Status::Complete((_, size))) => Ok(size),
        _ => Err(InvalidResponse(format!("invalid chunk size line: {}", excerpt(line)))),
    }
}

/// A Content-Length value: decimal digits only (white space around them aside), within 64 bits.
fn parse_content_length(value: &[u8]) -> Result<u64, InvalidResponse> {
    let digits = std::str::from_utf8(value.trim_ascii())
        .ok()
        .filter(|text| !text.is_empty() && text.bytes().all(|byte| byte.is_ascii_digit()));
    let length = digits.and_then(|digits| digits.parse().ok());
    length.ok_or_else(|| InvalidResponse(format!("Content-Length is not a number: {}", excerpt(value))))
}

/// Whether `haystack` contains `needle`, ASCII case ignored.
fn contains_ignoring_case(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|window| window.eq_ignore_ascii_case(needle))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feed `response` split at every possible point and check the same outcome each time.
    fn parse_split_everywhere(response: &[u8], no_body: bool) -> Parsed {
        let mut outcome = None;
        for split in 0..=response.len() {
            let mut parser = ResponseParser::default();
            parser.reset(no_body);
            let first = parser.feed(&response[..split]).unwrap();
            let result =
                if let Parsed::Complete { .. } = first { first } else { parser.feed(&response[split..]).unwrap() };
            if let Some(previous) = outcome {
                assert_eq!(previous, result, "split at {split}");
            }
            outcome = Some(result);
        }
        outcome.unwrap()
    }

    #[test]
    fn content_length_body() {
        let response = b"HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\nhello world\n";
        assert_eq!(parse_split_everywhere(response, false), Parsed::Complete { status: 200, close: false });
    }

    #[test]
    fn chunked_body_with_extension_and_trailer() {
        let response = b"HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: 1\r\n\r\n";
        assert_eq!(parse_split_everywhere(response, false), Parsed::Complete { status: 201, close: false });
    }

    #[test]
    fn connection_close_and_http10() {
        let response = b"HTTP/1.1 503 Busy\r\nConnection: close\r\nContent-Length: 0\r\n\r\n";
        assert_eq!(parse_split_everywhere(response, false), Parsed::Complete { status: 503, close: true });
        let response = b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok";
        assert_eq!(parse_split_everywhere(response, false), Parsed::Complete { status: 200, close: true });
    }

    #[test]
    fn head_and_204_have_no_body() {
        let response = b"HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n";
        assert_eq!(parse_split_everywhere(response, true), Parsed::Complete { status: 200, close: false });
        let response = b"HTTP/1.1 204 No Content\r\n\r\n";
        assert_eq!(parse_split_everywhere(response, false), Parsed::Complete { status: 204, close: false });
    }

    #[test]
    fn interim_100_continue_is_skipped() {
        let response = b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx";
        assert_eq!(parse_split_everywhere(response, false), Parsed::Complete { status: 200, close: false });
    }

    #[test]
    fn started_once_any_byte_of_the_response_arrived() {
        let mut parser = ResponseParser::default();
        parser.reset(false);
        assert!(!parser.started());
        assert_eq!(parser.feed(b"HTTP/1.1 2").unwrap(), Parsed::NeedMore);
        assert!(parser.started(), "a partial head");
        parser.reset(false);
        assert_eq!(parser.feed(b"HTTP/1.1 100 Continue\r\n\r\n").unwrap(), Parsed::NeedMore);
        assert!(parser.started(), "an interim response");
    }

    #[test]
    fn body_until_close() {
        let mut parser = ResponseParser::default();
        assert_eq!(parser.feed(b"HTTP/1.1 200 OK\r\n\r\nsome body").unwrap(), Parsed::NeedMore);
        assert_eq!(parser.feed_eof().unwrap(), Parsed::Complete { status: 200, close: true });
    }

    /// The reason `response`, fed whole, is invalid.
    fn invalid(response: &[u8]) -> String {
        let mut parser = ResponseParser::default();
        match parser.feed(response) {
            Err(InvalidResponse(reason)) => reason,
            parsed => panic!("not refused: {parsed:?}"),
        }
    }

    #[test]
    fn bytes_that_are_not_a_status_line_are_invalid_with_their_first_bytes() {
        assert_eq!(
            invalid(b"\x8f\x1c\x03\xe2\x99\x00\x7f\x80\x81\r\n"),
            "not an HTTP/1.x status line: 0x8f 0x1c 0x03 0xe2 0x99 0x00 0x7f 0x80 …"
        );
        assert_eq!(invalid(b"SSH-2.0-OpenSSH\r\n\r\n"), "not an HTTP/1.x status line: \"SSH-2.0-OpenSSH\"");
    }

    #[test]
    fn an_endless_header_section_is_invalid_past_the_most_header_lines() {
        let mut parser = ResponseParser::default();
        assert_eq!(parser.feed(b"HTTP/1.1 200 OK\r\n").unwrap(), Parsed::NeedMore);
        let mut refused = None;
        for line in 0..100_000 {
            if let Err(InvalidResponse(reason)) = parser.feed(format!("X-Line-{line}: {line}\r\n").as_bytes()) {
                refused = Some((line, reason));
                break;
            }
        }
        let (line, reason) = refused.expect("refused before 100,000 header lines");
        assert_eq!(line, MAX_HEADERS, "the line past the bound");
        assert_eq!(reason, "more than 64 header lines in the response head");
    }

    #[test]
    fn a_head_longer_than_64_kib_is_invalid() {
        let mut parser = ResponseParser::default();
        let long_value = vec![b'v'; MAX_HEAD_BYTES];
        assert_eq!(parser.feed(b"HTTP/1.1 200 OK\r\nX-Long: ").unwrap(), Parsed::NeedMore);
        assert_eq!(parser.feed(&long_value), Err(InvalidResponse("response head larger than 65536 bytes".into())));
    }

    #[test]
    fn a_bad_header_line_is_invalid_with_the_line() {
        let reason = invalid(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nNo colon here\r\n\r\n");
        assert_eq!(reason, "invalid header line (invalid header name): \"No colon here\"");
    }

    #[test]
    fn a_bad_chunk_size_is_invalid_with_its_line() {
        let reason = invalid(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\nzz\r\n");
        assert_eq!(reason, "invalid chunk size line: \"zz\"");
        let reason = invalid(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabcd\r\n");
        assert_eq!(reason, "chunk data not followed by CRLF");
    }

    #[test]
    fn disagreeing_content_lengths_are_invalid_and_repeated_equal_ones_are_not() {
        let reason = invalid(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\nhello");
        assert_eq!(reason, "two Content-Length headers disagree: 5 and 7");
        let response = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nok";
        assert_eq!(parse_split_everywhere(response, false), Parsed::Complete { status: 200, close: false });
    }

    #[test]
    fn a_content_length_that_is_not_a_number_is_invalid() {
        assert_eq!(invalid(b"HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n"), "Content-Length is not a number: \"x\"");
        assert_eq!(invalid(b"HTTP/1.1 200 OK\r\nContent-Length: +5\r\n\r\n"), "Content-Length is not a number: \"+5\"");
        let reason = invalid(b"HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n");
        assert_eq!(reason, "Content-Length is not a number: \"99999999999999999999\"");
    }

    #[test]
    fn a_close_before_the_response_is_complete_is_truncated_not_invalid() {
        let mut parser = ResponseParser::default();
        assert_eq!(parser.feed(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc").unwrap(), Parsed::NeedMore);
        assert_eq!(parser.feed_eof(), Err(Truncated));
        let mut parser = ResponseParser::default();
        assert_eq!(parser.feed(b"HTTP/1.1 2").unwrap(), Parsed::NeedMore);
        assert_eq!(parser.feed_eof(), Err(Truncated));
    }

    #[test]
    fn random_bytes_never_panic() {
        let mut rng = fastrand::Rng::with_seed(42);
        for _ in 0..20_000 {
            let length = rng.usize(0..200);
            let mut bytes: Vec<u8> = (0..length).map(|_| rng.u8(..)).collect();
            if rng.bool() {
                bytes.splice(0..0, b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".iter().copied());
            }
            let mut parser = ResponseParser::default();
            let split = rng.usize(0..=bytes.len());
            let _ = parser.feed(&bytes[..split]).and_then(|_| parser.feed(&bytes[split..]));
            let _ = parser.feed_eof();
        }
    }
}
