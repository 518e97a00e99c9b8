//! Why a response head httparse refused is not HTTP/1.1, in words: the reason an `invalid response` error keeps. It
//! names the offending line — the status line, or the first header line httparse rejects on its own — and shows its
//! first bytes: quoted when they are printable text, in hex when they are not.

/// Text of an offending line shown, in characters, before it is cut.
const SHOWN_TEXT: usize = 40;
/// Bytes of an offending line shown in hex when it is not printable text.
const SHOWN_BYTES: usize = 8;

/// Why `head` (a response head, complete or not, as it arrived) is not HTTP/1.1, httparse having refused it with
/// `error`; `max_headers` is the most header lines the parser takes.
pub(super) fn head_reason(head: &[u8], error: httparse::Error, max_headers: usize) -> String {
    if error == httparse::Error::TooManyHeaders {
        return format!("more than {max_headers} header lines in the response head");
    }
    // httparse skips empty lines before the status line.
    let start = head.iter().position(|&byte| byte != b'\r' && byte != b'\n').unwrap_or(head.len());
    let mut lines = head[start..].split_inclusive(|&byte| byte == b'\n');
    let status_line = lines.next().unwrap_or_default();
    if httparse::Response::new(&mut []).parse(status_line).is_err() {
        return format!("not an HTTP/1.x status line: {}", excerpt(status_line));
    }
    for line in lines {
        let mut header = [httparse::EMPTY_HEADER; 1];
        match httparse::parse_headers(line, &mut header) {
            Err(line_error) => return format!("invalid header line ({line_error}): {}", excerpt(line)),
            Ok(httparse::Status::Complete(_)) => break, // the head's end: no one line is at fault
            Ok(httparse::Status::Partial) => {}
        }
    }
    format!("unparsable response head ({error})")
}

/// The first bytes of `line` (its line end left out): quoted when it is printable text, else in hex; `…` when cut.
pub(super) fn excerpt(line: &[u8]) -> String {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let printable = line.iter().all(|&byte| byte == b'\t' || (b' '..=b'~').contains(&byte));
    if printable {
        let shown = &line[..line.len().min(SHOWN_TEXT)];
        let cut = if shown.len() < line.len() { "…" } else { "" };
        format!("\"{}\"{cut}", String::from_utf8_lossy(shown))
    } else {
        let hex: Vec<String> = line.iter().take(SHOWN_BYTES).map(|byte| format!("0x{byte:02x}")).collect();
        let cut = if line.len() > SHOWN_BYTES { " …" } else { "" };
        format!("{}{cut}", hex.join(" "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printable_text_is_quoted_and_cut_after_forty_characters() {
        assert_eq!(excerpt(b"SSH-2.0-OpenSSH\r\n"), "\"SSH-2.0-OpenSSH\"");
        assert_eq!(excerpt(b""), "\"\"");
        let long = [b'a'; 50];
        assert_eq!(excerpt(&long), format!("\"{}\"…", "a".repeat(40)));
    }

    #[test]
    fn bytes_that_are_not_text_are_shown_in_hex_eight_at_most() {
        assert_eq!(excerpt(&[0x8f, 0x1c, b'A']), "0x8f 0x1c 0x41");
        let bytes: Vec<u8> = (0..20).collect();
        assert_eq!(excerpt(&bytes), "0x00 0x01 0x02 0x03 0x04 0x05 0x06 0x07 …");
    }

    #[test]
    fn a_bad_status_line_is_named_with_its_bytes() {
        let reason = head_reason(b"\x8f\x1c\xff\x00garbage", httparse::Error::Version, 64);
        assert_eq!(reason, "not an HTTP/1.x status line: 0x8f 0x1c 0xff 0x00 0x67 0x61 0x72 0x62 …");
        let reason = head_reason(b"\r\nHTTP/2 200\r\n\r\n", httparse::Error::Version, 64);
        assert_eq!(reason, "not an HTTP/1.x status line: \"HTTP/2 200\"");
    }

    #[test]
    fn a_bad_header_line_is_named_with_its_bytes() {
        let head = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nBad Name: x\r\nDate: today\r\n\r\n";
        let reason = head_reason(head, httparse::Error::HeaderName, 64);
        assert_eq!(reason, "invalid header line (invalid header name): \"Bad Name: x\"");
    }

    #[test]
    fn too_many_header_lines_name_the_bound() {
        let reason = head_reason(b"HTTP/1.1 200 OK\r\n", httparse::Error::TooManyHeaders, 64);
        assert_eq!(reason, "more than 64 header lines in the response head");
    }
}
