//! The HTTP/2 wire vocabulary (RFC 9113 §4, §6, §7): frame types, flags, settings and error codes, reading a frame
//! header, and appending the frames a client sends to an output buffer.

/// Every connection starts with these bytes from the client (RFC 9113 §3.4).
pub const CLIENT_PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
/// The size of every frame header.
pub const FRAME_HEADER_BYTES: usize = 9;
/// SETTINGS_HEADER_TABLE_SIZE when the server does not set it (RFC 9113 §6.5.2).
pub const DEFAULT_HEADER_TABLE_SIZE: usize = 4_096;
/// The frame size every peer accepts until it says otherwise (SETTINGS_MAX_FRAME_SIZE's initial value).
pub const DEFAULT_MAX_FRAME_SIZE: usize = 16_384;
/// The largest SETTINGS_MAX_FRAME_SIZE a peer may announce.
pub const MAX_ALLOWED_FRAME_SIZE: u32 = 16_777_215;
/// Flow-control windows start at this size, for the connection and for every stream.
pub const DEFAULT_WINDOW: u32 = 65_535;
/// The largest flow-control window (2^31 - 1).
pub const MAX_WINDOW: i64 = 0x7fff_ffff;
/// The largest stream id.
pub const MAX_STREAM_ID: u32 = 0x7fff_ffff;

/// Frame types (RFC 9113 §6).
pub mod kind {
    pub const DATA: u8 = 0x0;
    pub const HEADERS: u8 = 0x1;
    pub const PRIORITY: u8 = 0x2;
    pub const RST_STREAM: u8 = 0x3;
    pub const SETTINGS: u8 = 0x4;
    pub const PUSH_PROMISE: u8 = 0x5;
    pub const PING: u8 = 0x6;
    pub const GOAWAY: u8 = 0x7;
    pub const WINDOW_UPDATE: u8 = 0x8;
    pub const CONTINUATION: u8 = 0x9;
}

/// Frame flags; their meaning depends on the frame type.
pub mod flag {
    pub const END_STREAM: u8 = 0x1;
    pub const ACK: u8 = 0x1;
    pub const END_HEADERS: u8 = 0x4;
    pub const PADDED: u8 = 0x8;
    pub const PRIORITY: u8 = 0x20;
}

/// SETTINGS parameters (RFC 9113 §6.5.2).
pub mod setting {
    #![allow(dead_code)] // the registry whole, as the RFC lists it
    pub const HEADER_TABLE_SIZE: u16 = 0x1;
    pub const ENABLE_PUSH: u16 = 0x2;
    pub const MAX_CONCURRENT_STREAMS: u16 = 0x3;
    pub const INITIAL_WINDOW_SIZE: u16 = 0x4;
    pub const MAX_FRAME_SIZE: u16 = 0x5;
    pub const MAX_HEADER_LIST_SIZE: u16 = 0x6;
}

/// Error codes of RST_STREAM and GOAWAY (RFC 9113 §7).
pub mod code {
    #![allow(dead_code)] // the registry whole, as the RFC lists it
    pub const NO_ERROR: u32 = 0x0;
    pub const PROTOCOL_ERROR: u32 = 0x1;
    pub const INTERNAL_ERROR: u32 = 0x2;
    pub const FLOW_CONTROL_ERROR: u32 = 0x3;
    pub const SETTINGS_TIMEOUT: u32 = 0x4;
    pub const STREAM_CLOSED: u32 = 0x5;
    pub const FRAME_SIZE_ERROR: u32 = 0x6;
    /// The stream was refused before any processing: it is safe to send the request again.
    pub const REFUSED_STREAM: u32 = 0x7;
    pub const CANCEL: u32 = 0x8;
    pub const COMPRESSION_ERROR: u32 = 0x9;
    pub const CONNECT_ERROR: u32 = 0xa;
    pub const ENHANCE_YOUR_CALM: u32 = 0xb;
    pub const INADEQUATE_SECURITY: u32 = 0xc;
    pub const HTTP_1_1_REQUIRED: u32 = 0xd;
}

/// The fixed 9-byte header in front of every frame's payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameHeader {
    pub length: usize,
    pub kind: u8,
    pub flags: u8,
    pub stream: u32,
}

impl FrameHeader {
    /// Read the header at the start of `bytes`, None when fewer than 9 bytes are there.
    pub fn parse(bytes: &[u8]) -> Option<FrameHeader> {
        let header: &[u8; FRAME_HEADER_BYTES] = bytes.get(..FRAME_HEADER_BYTES)?.try_into().ok()?;
        Some(FrameHeader {
            length: (usize::from(header[0]) << 16) | (usize::from(header[1]) << 8) | usize::from(header[2]),
            kind: header[3],
            flags: header[4],
            stream: read_u32(&header[5..9]) & MAX_STREAM_ID,
        })
    }

    pub fn has(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }
}

/// A big-endian u32 from the first four bytes of `bytes`.
pub fn read_u32(bytes: &[u8]) -> u32 {
    u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])
}

/// Append a frame header for a payload of `length` bytes.
pub fn put_frame_header(out: &mut Vec<u8>, length: usize, kind: u8, flags: u8, stream: u32) {
    debug_assert!(length <= MAX_ALLOWED_FRAME_SIZE as usize);
    let length = length as u32;
    out.extend_from_slice(&length.to_be_bytes()[1..]);
    out.push(kind);
    out.push(flags);
    out.extend_from_slice(&(stream & MAX_STREAM_ID).to_be_bytes());
}

/// Append a whole frame.
pub fn put_frame(out: &mut Vec<u8>, kind: u8, flags: u8, stream: u32, payload: &[u8]) {
    put_frame_header(out, payload.len(), kind, flags, stream);
    out.extend_from_slice(payload);
}

/// Append a SETTINGS frame carrying `(parameter, value)` pairs.
pub fn put_settings(out: &mut Vec<u8>, settings: &[(u16, u32)]) {
    put_frame_header(out, settings.len() * 6, kind::SETTINGS, 0, 0);
    for &(parameter, value) in settings {
        out.extend_from_slice(&parameter.to_be_bytes());
        out.extend_from_slice(&value.to_be_bytes());
    }
}

/// Append a SETTINGS acknowledgement.
pub fn put_settings_ack(out: &mut Vec<u8>) {
    put_frame_header(out, 0, kind::SETTINGS, flag::ACK, 0);
}

/// Append a WINDOW_UPDATE granting `increment` more bytes on `stream` (0: the connection).
pub fn put_window_update(out: &mut Vec<u8>, stream: u32, increment: u32) {
    put_frame(out, kind::WINDOW_UPDATE, 0, stream, &(increment & 0x7fff_ffff).to_be_bytes());
}

/// Append a RST_STREAM ending `stream` with `error_code`.
pub fn put_rst_stream(out: &mut Vec<u8>, stream: u32, error_code: u32) {
    put_frame(out, kind::RST_STREAM, 0, stream, &error_code.to_be_bytes());
}

/// Append a PING acknowledgement echoing the peer's 8 bytes.
pub fn put_ping_ack(out: &mut Vec<u8>, opaque: &[u8; 8]) {
    put_frame(out, kind::PING, flag::ACK, 0, opaque);
}

/// Append a GOAWAY: the last peer-initiated stream we processed (always 0 for a client without push), the error
/// code and a short text for the peer's logs.
pub fn put_goaway(out: &mut Vec<u8>, last_stream: u32, error_code: u32, debug_text: &str) {
    put_frame_header(out, 8 + debug_text.len(), kind::GOAWAY, 0, 0);
    out.extend_from_slice(&(last_stream & MAX_STREAM_ID).to_be_bytes());
    out.extend_from_slice(&error_code.to_be_bytes());
    out.extend_from_slice(debug_text.as_bytes());
}

/// The payload of a HEADERS, PUSH_PROMISE or DATA frame without its padding (and, for HEADERS, without the priority
/// fields), or None when the padding length is larger than the frame.
pub fn strip_padding_and_priority<'a>(header: &FrameHeader, payload: &'a [u8]) -> Option<&'a [u8]> {
    let mut start = 0;
    let mut padding = 0;
    if header.has(flag::PADDED) {
        padding = usize::from(*payload.first()?);
        start = 1;
    }
    if header.kind == kind::HEADERS && header.has(flag::PRIORITY) {
        start += 5;
    }
    let end = payload.len().checked_sub(padding)?;
    payload.get(start..end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_header_reads_back_as_written() {
        let mut out = Vec::new();
        put_frame_header(&mut out, 0x01_02_03, kind::HEADERS, flag::END_HEADERS, 0x8000_0005);
        assert_eq!(out, [1, 2, 3, 1, 4, 0, 0, 0, 5]);
        let header = FrameHeader::parse(&out).unwrap();
        assert_eq!(
            header,
            FrameHeader { length: 0x01_02_03, kind: kind::HEADERS, flags: flag::END_HEADERS, stream: 5 }
        );
        assert_eq!(FrameHeader::parse(&out[..8]), None);
    }

    #[test]
    fn the_reserved_bit_of_a_stream_id_is_ignored() {
        let header = FrameHeader::parse(&[0, 0, 0, 0, 0, 0x80, 0, 0, 3]).unwrap();
        assert_eq!(header.stream, 3);
    }

    #[test]
    fn padding_and_priority_are_stripped() {
        let header = FrameHeader { length: 10, kind: kind::HEADERS, flags: flag::PADDED | flag::PRIORITY, stream: 1 };
        let payload = [2, 0, 0, 0, 0, 16, b'a', b'b', 0, 0];
        assert_eq!(strip_padding_and_priority(&header, &payload), Some(&b"ab"[..]));
        let data = FrameHeader { length: 3, kind: kind::DATA, flags: flag::PADDED, stream: 1 };
        assert_eq!(strip_padding_and_priority(&data, &[5, b'x', 0]), None, "padding longer than the frame");
        assert_eq!(strip_padding_and_priority(&data, &[1, b'x', 0]), Some(&b"x"[..]));
    }
}
