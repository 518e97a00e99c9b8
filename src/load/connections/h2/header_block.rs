//! Turning a complete HTTP/1.1 request, as jload renders it, into an HTTP/2 header block (HPACK, RFC 7541) and the
//! position of its body: pseudo-header fields from the request line and Host, connection-specific fields dropped,
//! names lower-cased. The encoder writes only static-table references and literals without indexing (no Huffman),
//! so it keeps no state and never touches the peer's dynamic table.

use super::encoder_table::{EncoderTable, Field};

/// The most header fields a request may carry.
pub const MAX_REQUEST_HEADERS: usize = 64;

/// Header fields that are meaningful for one HTTP/1.1 connection only and must not appear in HTTP/2 (RFC 9113
/// §8.2.2); Host becomes `:authority`.
const DROPPED_FIELDS: [&str; 6] =
    ["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "host"];

/// Static-table indices (RFC 7541 Appendix A) of the pseudo-header fields, by name and by name and value.
mod static_index {
    pub const AUTHORITY: usize = 1;
    pub const METHOD: usize = 2;
    pub const METHOD_GET: usize = 2;
    pub const METHOD_POST: usize = 3;
    pub const PATH: usize = 4;
    pub const PATH_ROOT: usize = 4;
    pub const SCHEME_HTTP: usize = 6;
    pub const SCHEME_HTTPS: usize = 7;
}

/// Encode the header block of `request` into `block` (cleared first) for a connection of `scheme` ("http" or
/// "https"). Returns where the body starts in `request`; everything after the head is the body. Errors name what
/// makes the request unusable.
pub fn encode_request(
    request: &[u8],
    scheme: &str,
    table: &mut EncoderTable,
    block: &mut Vec<u8>,
) -> Result<usize, &'static str> {
    let mut fields = [httparse::EMPTY_HEADER; MAX_REQUEST_HEADERS];
    let mut parsed = httparse::Request::new(&mut fields);
    let head_length = match parsed.parse(request) {
        Ok(httparse::Status::Complete(length)) => length,
        Ok(httparse::Status::Partial) => return Err("the request head is incomplete"),
        Err(_) => return Err("the request head is not valid HTTP/1.1"),
    };
    let (Some(method), Some(path)) = (parsed.method, parsed.path) else { return Err("no request line") };
    let authority = parsed
        .headers
        .iter()
        .find(|field| field.name.eq_ignore_ascii_case("host"))
        .ok_or("no Host header (HTTP/2 needs it for :authority)")?
        .value;
    let body_length = request.len() - head_length;
    for field in parsed.headers.iter() {
        if field.name.eq_ignore_ascii_case("transfer-encoding") && !field.value.eq_ignore_ascii_case(b"identity") {
            return Err("a Transfer-Encoding body (chunked) cannot be sent over HTTP/2");
        }
        if field.name.eq_ignore_ascii_case("content-length") && parse_decimal(field.value) != Some(body_length) {
            return Err("Content-Length differs from the length of the body");
        }
    }

    block.clear();
    if let Some(size) = table.take_size_update() {
        put_integer(block, 0x20, 5, size);
    }
    match method {
        "GET" => put_indexed(block, static_index::METHOD_GET),
        "POST" => put_indexed(block, static_index::METHOD_POST),
        other => put_literal_with_indexed_name(block, static_index::METHOD, other.as_bytes()),
    }
    match scheme {
        "https" => put_indexed(block, static_index::SCHEME_HTTPS),
        _ => put_indexed(block, static_index::SCHEME_HTTP),
    }
    put_field(block, table, static_index::AUTHORITY, b":authority", authority);
    match path {
        "/" => put_indexed(block, static_index::PATH_ROOT),
        other => put_literal_with_indexed_name(block, static_index::PATH, other.as_bytes()),
    }
    for field in parsed.headers.iter() {
        if DROPPED_FIELDS.iter().any(|dropped| field.name.eq_ignore_ascii_case(dropped)) {
            continue;
        }
        if field.name.eq_ignore_ascii_case("te") && !field.value.eq_ignore_ascii_case(b"trailers") {
            continue; // the only TE value HTTP/2 allows
        }
        put_field(block, table, 0, field.name.as_bytes(), field.value);
    }
    Ok(head_length)
}

fn parse_decimal(value: &[u8]) -> Option<usize> {
    std::str::from_utf8(value).ok()?.trim().parse().ok()
}

/// An HPACK integer with an `prefix_bits`-bit prefix in a first byte that already carries `pattern` (RFC 7541 §5.1).
fn put_integer(block: &mut Vec<u8>, pattern: u8, prefix_bits: u32, value: usize) {
    let prefix_max = (1usize << prefix_bits) - 1;
    if value < prefix_max {
        block.push(pattern | value as u8);
        return;
    }
    block.push(pattern | prefix_max as u8);
    let mut rest = value - prefix_max;
    while rest >= 0x80 {
        block.push((rest & 0x7f) as u8 | 0x80);
        rest >>= 7;
    }
    block.push(rest as u8);
}

/// An HPACK string literal, not Huffman-coded (RFC 7541 §5.2).
fn put_string(block: &mut Vec<u8>, bytes: &[u8]) {
    put_integer(block, 0x00, 7, bytes.len());
    block.extend_from_slice(bytes);
}

/// An indexed header field (RFC 7541 §6.1).
fn put_indexed(block: &mut Vec<u8>, index: usize) {
    put_integer(block, 0x80, 7, index);
}

/// A field the server may keep in its dynamic table: its index when it is there, else a literal that adds it when
/// it fits, else a plain literal; its name written lower-case, as HTTP/2 requires. `name_index` is its name's
/// static-table index, 0 for none.
fn put_field(block: &mut Vec<u8>, table: &mut EncoderTable, name_index: usize, name: &[u8], value: &[u8]) {
    match table.field(name, value) {
        Field::Indexed(index) => put_indexed(block, index),
        Field::Added if name_index > 0 => {
            put_integer(block, 0x40, 6, name_index);
            put_string(block, value);
        }
        Field::Added => {
            block.push(0x40);
            put_lowercase_string(block, name);
            put_string(block, value);
        }
        Field::Literal if name_index > 0 => put_literal_with_indexed_name(block, name_index, value),
        Field::Literal => {
            block.push(0x00);
            put_lowercase_string(block, name);
            put_string(block, value);
        }
    }
}

/// A string literal of `bytes` lower-cased.
fn put_lowercase_string(block: &mut Vec<u8>, bytes: &[u8]) {
    put_integer(block, 0x00, 7, bytes.len());
    block.extend(bytes.iter().map(u8::to_ascii_lowercase));
}

/// A literal header field without indexing whose name is a static-table entry (RFC 7541 §6.2.2).
fn put_literal_with_indexed_name(block: &mut Vec<u8>, name_index: usize, value: &[u8]) {
    put_integer(block, 0x00, 4, name_index);
    put_string(block, value);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Encode, then decode with an independent HPACK decoder.
    fn fields_of(request: &[u8], scheme: &str) -> (Vec<(String, String)>, usize) {
        let mut block = Vec::new();
        let body_start = encode_request(request, scheme, &mut EncoderTable::default(), &mut block).unwrap();
        let decoded = loona_hpack::Decoder::new().decode(&block).unwrap();
        let fields = decoded
            .into_iter()
            .map(|(name, value)| (String::from_utf8(name).unwrap(), String::from_utf8(value).unwrap()))
            .collect();
        (fields, body_start)
    }

    fn pairs(expected: &[(&str, &str)]) -> Vec<(String, String)> {
        expected.iter().map(|(name, value)| (name.to_string(), value.to_string())).collect()
    }

    #[test]
    fn a_get_becomes_pseudo_headers_and_lower_case_fields() {
        let request = b"GET /items?id=7 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nAccept: */*\r\nX-Trace-Id: abc\r\n\r\n";
        let (fields, body_start) = fields_of(request, "http");
        assert_eq!(
            fields,
            pairs(&[
                (":method", "GET"),
                (":scheme", "http"),
                (":authority", "127.0.0.1:8080"),
                (":path", "/items?id=7"),
                ("accept", "*/*"),
                ("x-trace-id", "abc"),
            ])
        );
        assert_eq!(body_start, request.len());
    }

    #[test]
    fn connection_specific_fields_are_dropped() {
        let request =
            b"DELETE / HTTP/1.1\r\nHost: a\r\nConnection: keep-alive\r\nKeep-Alive: 5\r\nProxy-Connection: x\r\n\
Upgrade: h2c\r\nTE: gzip\r\nTransfer-Encoding: identity\r\n\r\n";
        let (fields, _) = fields_of(request, "https");
        assert_eq!(fields, pairs(&[(":method", "DELETE"), (":scheme", "https"), (":authority", "a"), (":path", "/")]));
        let with_trailers = b"GET / HTTP/1.1\r\nHost: a\r\nTE: trailers\r\n\r\n";
        assert_eq!(fields_of(with_trailers, "http").0.last().unwrap(), &("te".to_string(), "trailers".to_string()));
    }

    #[test]
    fn the_body_starts_after_the_head() {
        let request = b"POST /p HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello";
        let (fields, body_start) = fields_of(request, "http");
        assert_eq!(&request[body_start..], b"hello");
        assert_eq!(fields[0], (":method".to_string(), "POST".to_string()));
        assert_eq!(fields[4], ("content-length".to_string(), "5".to_string()));
    }

    #[test]
    fn long_names_and_values_use_multi_byte_lengths() {
        let value = "v".repeat(300);
        let name = "X-".to_string() + &"n".repeat(200);
        let request = format!("GET / HTTP/1.1\r\nHost: a\r\n{name}: {value}\r\n\r\n");
        let (fields, _) = fields_of(request.as_bytes(), "http");
        assert_eq!(fields[4], (name.to_ascii_lowercase(), value));
    }

    #[test]
    fn unusable_requests_are_refused() {
        let mut block = Vec::new();
        assert!(
            encode_request(b"GET / HTTP/1.1\r\nHost: a\r\n", "http", &mut EncoderTable::default(), &mut block).is_err(),
            "incomplete head"
        );
        assert!(
            encode_request(b"GET / HTTP/1.1\r\n\r\n", "http", &mut EncoderTable::default(), &mut block).is_err(),
            "no Host"
        );
        assert!(encode_request(b"\x01garbage\r\n\r\n", "http", &mut EncoderTable::default(), &mut block).is_err());
        let chunked = b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n";
        assert!(encode_request(chunked, "http", &mut EncoderTable::default(), &mut block).is_err());
        let short = b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 9\r\n\r\nabc";
        assert!(encode_request(short, "http", &mut EncoderTable::default(), &mut block).is_err());
    }
}
