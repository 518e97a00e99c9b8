//! The session's receiving side: cutting the server's bytes into frames (they may arrive split anywhere) and acting
//! on each frame: settings, pings, windows, response headers and bodies, resets and GOAWAY. Connection errors end the
//! session with a GOAWAY carrying the matching error code.

use super::frame::{self, FrameHeader, code, flag, kind, setting};
use super::session::{Event, HeaderBlockInProgress, Session, SessionError};

/// The largest frame we accept: we never announce SETTINGS_MAX_FRAME_SIZE, so its initial value holds.
const MAX_RECEIVED_FRAME: usize = frame::DEFAULT_MAX_FRAME_SIZE;
/// The largest response header block (HEADERS plus CONTINUATIONs) we assemble.
const MAX_HEADER_BLOCK: usize = 256 * 1024;

fn protocol_error(reason: impl Into<String>) -> SessionError {
    SessionError::new(code::PROTOCOL_ERROR, reason)
}

fn frame_size_error(what: &str, length: usize) -> SessionError {
    SessionError::new(code::FRAME_SIZE_ERROR, format!("{what} frame of {length} bytes"))
}

fn flow_control_error(reason: impl Into<String>) -> SessionError {
    SessionError::new(code::FLOW_CONTROL_ERROR, reason)
}

impl Session {
    /// Feed bytes read from the connection (after TLS); `on_event` hears about finished, reset and unprocessed
    /// requests. An error is a connection error: the session is over (its GOAWAY is queued in `output()`).
    pub fn receive(&mut self, bytes: &[u8], on_event: &mut impl FnMut(Event)) -> Result<(), SessionError> {
        if let Some(failure) = &self.failure {
            return Err(failure.clone());
        }
        let result = if self.inbound.is_empty() {
            let (used, result) = self.handle_frames(bytes, on_event);
            self.inbound.extend_from_slice(&bytes[used..]);
            result
        } else {
            let mut inbound = std::mem::take(&mut self.inbound);
            inbound.extend_from_slice(bytes);
            let (used, result) = self.handle_frames(&inbound, on_event);
            inbound.drain(..used);
            self.inbound = inbound;
            result
        };
        result.map_err(|error| self.fail(error))
    }

    /// Handle every complete frame at the start of `bytes`; returns how many bytes they took.
    fn handle_frames(&mut self, bytes: &[u8], on_event: &mut impl FnMut(Event)) -> (usize, Result<(), SessionError>) {
        let mut used = 0;
        while let Some(header) = FrameHeader::parse(&bytes[used..]) {
            if !self.peer_preface_seen && (header.kind != kind::SETTINGS || header.has(flag::ACK)) {
                return (used, Err(protocol_error("the server's first frame is not SETTINGS (not an HTTP/2 server?)")));
            }
            if header.length > MAX_RECEIVED_FRAME {
                return (used, Err(frame_size_error("a larger than allowed", header.length)));
            }
            let end = used + frame::FRAME_HEADER_BYTES + header.length;
            let Some(payload) = bytes.get(used + frame::FRAME_HEADER_BYTES..end) else { break };
            used = end;
            if let Err(error) = self.handle_frame(header, payload, on_event) {
                return (used, Err(error));
            }
        }
        (used, Ok(()))
    }

    fn handle_frame(
        &mut self,
        header: FrameHeader,
        payload: &[u8],
        on_event: &mut impl FnMut(Event),
    ) -> Result<(), SessionError> {
        if let Some(in_progress) = self.block_in_progress
            && (header.kind != kind::CONTINUATION || header.stream != in_progress.stream)
        {
            return Err(protocol_error("a header block interrupted by another frame"));
        }
        match header.kind {
            kind::DATA => self.on_data(header, payload, on_event),
            kind::HEADERS => self.on_headers(header, payload, on_event),
            kind::CONTINUATION => self.on_continuation(header, payload, on_event),
            kind::SETTINGS => self.on_settings(header, payload),
            kind::PING => self.on_ping(header, payload),
            kind::WINDOW_UPDATE => self.on_window_update(header, payload),
            kind::RST_STREAM => self.on_rst_stream(header, payload, on_event),
            kind::GOAWAY => self.on_goaway(header, payload, on_event),
            kind::PRIORITY if header.length != 5 => Err(frame_size_error("a PRIORITY", header.length)),
            kind::PUSH_PROMISE => Err(protocol_error("PUSH_PROMISE although we disabled push")),
            _ => Ok(()), // PRIORITY, and frame types this version does not know: ignored (RFC 9113 §4.1, §5.5)
        }
    }

    /// Frames on a stream we never opened (or on an even, server-initiated one) are connection errors; a stream that
    /// was opened and is no longer in the table is closed (finished, reset or cancelled): its frames are ignored.
    fn check_stream_was_opened(&self, header: &FrameHeader) -> Result<(), SessionError> {
        if header.stream == 0 || header.stream.is_multiple_of(2) || header.stream > self.highest_stream_started() {
            return Err(protocol_error(format!("frame type {} on stream {} never opened", header.kind, header.stream)));
        }
        Ok(())
    }

    fn on_settings(&mut self, header: FrameHeader, payload: &[u8]) -> Result<(), SessionError> {
        if header.stream != 0 {
            return Err(protocol_error("SETTINGS on a stream"));
        }
        if header.has(flag::ACK) {
            return if payload.is_empty() { Ok(()) } else { Err(frame_size_error("a SETTINGS ACK", header.length)) };
        }
        if !payload.len().is_multiple_of(6) {
            return Err(frame_size_error("a SETTINGS", header.length));
        }
        if !self.peer_preface_seen {
            self.peer_preface_seen = true;
            self.encoder_table.set_server_size(frame::DEFAULT_HEADER_TABLE_SIZE);
        }
        for entry in payload.chunks_exact(6) {
            let value = frame::read_u32(&entry[2..]);
            match u16::from_be_bytes([entry[0], entry[1]]) {
                setting::ENABLE_PUSH if value > 0 => return Err(protocol_error("a server set ENABLE_PUSH")),
                setting::MAX_CONCURRENT_STREAMS => self.peer_max_streams = value as usize,
                setting::INITIAL_WINDOW_SIZE => self.change_initial_window(value)?,
                setting::MAX_FRAME_SIZE => {
                    if !(frame::DEFAULT_MAX_FRAME_SIZE as u32..=frame::MAX_ALLOWED_FRAME_SIZE).contains(&value) {
                        return Err(protocol_error(format!("SETTINGS_MAX_FRAME_SIZE {value}")));
                    }
                    self.peer_max_frame = value as usize;
                }
                setting::HEADER_TABLE_SIZE => self.encoder_table.set_server_size(value as usize),
                // MAX_HEADER_LIST_SIZE (advisory), unknown ones.
                _ => {}
            }
        }
        frame::put_settings_ack(&mut self.output);
        self.send_waiting_bodies();
        Ok(())
    }

    /// A new INITIAL_WINDOW_SIZE moves every open stream's send window by the difference (RFC 9113 §6.9.2); windows
    /// may go negative, but none may pass 2^31-1.
    fn change_initial_window(&mut self, value: u32) -> Result<(), SessionError> {
        let value = i64::from(value);
        if value > frame::MAX_WINDOW {
            return Err(flow_control_error(format!("SETTINGS_INITIAL_WINDOW_SIZE {value}")));
        }
        let difference = value - self.peer_initial_window;
        self.peer_initial_window = value;
        for (_, stream) in self.streams.slots_mut() {
            if stream.is_open() {
                stream.send_window += difference;
                if stream.send_window > frame::MAX_WINDOW {
                    return Err(flow_control_error(format!("stream {} window above 2^31-1", stream.id)));
                }
            }
        }
        Ok(())
    }

    fn on_ping(&mut self, header: FrameHeader, payload: &[u8]) -> Result<(), SessionError> {
        if header.stream != 0 {
            return Err(protocol_error("PING on a stream"));
        }
        let Ok(opaque) = <&[u8; 8]>::try_from(payload) else { return Err(frame_size_error("a PING", header.length)) };
        if !header.has(flag::ACK) {
            frame::put_ping_ack(&mut self.output, opaque);
        }
        Ok(())
    }

    fn on_window_update(&mut self, header: FrameHeader, payload: &[u8]) -> Result<(), SessionError> {
        if payload.len() != 4 {
            return Err(frame_size_error("a WINDOW_UPDATE", header.length));
        }
        let increment = i64::from(frame::read_u32(payload) & 0x7fff_ffff);
        if increment == 0 {
            return Err(protocol_error(format!("WINDOW_UPDATE of 0 on stream {}", header.stream)));
        }
        if header.stream == 0 {
            self.connection_send_window += increment;
            if self.connection_send_window > frame::MAX_WINDOW {
                return Err(flow_control_error("connection window above 2^31-1"));
            }
            self.send_waiting_bodies();
            return Ok(());
        }
        self.check_stream_was_opened(&header)?;
        let Some(index) = self.streams.index_of_id(header.stream) else { return Ok(()) };
        let stream = self.streams.get_mut(index);
        stream.send_window += increment;
        if stream.send_window > frame::MAX_WINDOW {
            return Err(flow_control_error(format!("stream {} window above 2^31-1", header.stream)));
        }
        self.send_body(index);
        Ok(())
    }

    fn on_headers(
        &mut self,
        header: FrameHeader,
        payload: &[u8],
        on_event: &mut impl FnMut(Event),
    ) -> Result<(), SessionError> {
        self.check_stream_was_opened(&header)?;
        let fragment = frame::strip_padding_and_priority(&header, payload)
            .ok_or_else(|| protocol_error("HEADERS padding longer than the frame"))?;
        self.response_block.clear();
        self.response_block.extend_from_slice(fragment);
        let in_progress = HeaderBlockInProgress { stream: header.stream, end_stream: header.has(flag::END_STREAM) };
        if header.has(flag::END_HEADERS) {
            self.on_header_block(in_progress, on_event)
        } else {
            self.block_in_progress = Some(in_progress);
            Ok(())
        }
    }

    fn on_continuation(
        &mut self,
        header: FrameHeader,
        payload: &[u8],
        on_event: &mut impl FnMut(Event),
    ) -> Result<(), SessionError> {
        let Some(in_progress) = self.block_in_progress else {
            return Err(protocol_error("CONTINUATION without HEADERS before it"));
        };
        if self.response_block.len() + payload.len() > MAX_HEADER_BLOCK {
            return Err(SessionError::new(code::ENHANCE_YOUR_CALM, "response header block above 256 KiB"));
        }
        self.response_block.extend_from_slice(payload);
        if header.has(flag::END_HEADERS) {
            self.block_in_progress = None;
            self.on_header_block(in_progress, on_event)?;
        }
        Ok(())
    }

    /// A whole header block arrived: decode it (always, to keep the HPACK table in step) and apply it to its stream
    /// if still open: an informational (1xx) response is skipped, the first final one sets the status, a later block
    /// is trailers.
    fn on_header_block(
        &mut self,
        block: HeaderBlockInProgress,
        on_event: &mut impl FnMut(Event),
    ) -> Result<(), SessionError> {
        let mut status = None;
        self.decoder
            .decode(&self.response_block, &mut |name, value| {
                if name == b":status" {
                    status = parse_status(value);
                }
            })
            .map_err(|error| SessionError::new(code::COMPRESSION_ERROR, format!("HPACK: {error}")))?;
        let Some(index) = self.streams.index_of_id(block.stream) else { return Ok(()) };
        let stream = self.streams.get_mut(index);
        if stream.status == 0 {
            match status {
                None => return Err(protocol_error(format!("response on stream {} without :status", block.stream))),
                Some(100..=199) if block.end_stream => {
                    return Err(protocol_error(format!("informational response ending stream {}", block.stream)));
                }
                Some(100..=199) => return Ok(()),
                Some(final_status) => stream.status = final_status,
            }
        } else if !block.end_stream {
            return Err(protocol_error(format!("trailers without END_STREAM on stream {}", block.stream)));
        }
        if block.end_stream {
            self.complete(index, on_event);
        }
        Ok(())
    }

    fn on_data(
        &mut self,
        header: FrameHeader,
        payload: &[u8],
        on_event: &mut impl FnMut(Event),
    ) -> Result<(), SessionError> {
        self.check_stream_was_opened(&header)?;
        let flow_controlled = payload.len() as i64; // padding included (RFC 9113 §6.1)
        self.connection_receive_window -= flow_controlled;
        if self.connection_receive_window < 0 {
            return Err(flow_control_error("the server sent more than the connection window"));
        }
        self.connection_received_since_update += flow_controlled as u64;
        if self.connection_received_since_update >= u64::from(self.config.connection_window / 2) {
            let increment = self.connection_received_since_update as u32;
            frame::put_window_update(&mut self.output, 0, increment);
            self.connection_receive_window += i64::from(increment);
            self.connection_received_since_update = 0;
        }
        let data = frame::strip_padding_and_priority(&header, payload)
            .ok_or_else(|| protocol_error("DATA padding longer than the frame"))?;
        let Some(index) = self.streams.index_of_id(header.stream) else { return Ok(()) };
        let stream_window = self.config.stream_window;
        let stream = self.streams.get_mut(index);
        if stream.status == 0 {
            return Err(protocol_error(format!("DATA before the response HEADERS on stream {}", header.stream)));
        }
        stream.receive_window -= flow_controlled;
        if stream.receive_window < 0 {
            return Err(flow_control_error(format!("the server sent more than stream {}'s window", header.stream)));
        }
        stream.body_bytes += data.len() as u64;
        if header.has(flag::END_STREAM) {
            self.complete(index, on_event);
            return Ok(());
        }
        stream.received_since_update += flow_controlled as u32;
        if stream.received_since_update >= stream_window / 2 {
            let increment = stream.received_since_update;
            stream.receive_window += i64::from(increment);
            stream.received_since_update = 0;
            frame::put_window_update(&mut self.output, header.stream, increment);
        }
        Ok(())
    }

    fn on_rst_stream(
        &mut self,
        header: FrameHeader,
        payload: &[u8],
        on_event: &mut impl FnMut(Event),
    ) -> Result<(), SessionError> {
        if payload.len() != 4 {
            return Err(frame_size_error("a RST_STREAM", header.length));
        }
        self.check_stream_was_opened(&header)?;
        if let Some(index) = self.streams.index_of_id(header.stream) {
            let closed = self.streams.close(index);
            on_event(Event::Reset { lane: closed.lane, stream: closed.id, code: frame::read_u32(payload) });
        }
        Ok(())
    }

    /// The server stops: report it, then every open stream above its last stream as unprocessed (forgotten here:
    /// the caller sends those requests again elsewhere). Streams up to the last stream go on until they end.
    fn on_goaway(
        &mut self,
        header: FrameHeader,
        payload: &[u8],
        on_event: &mut impl FnMut(Event),
    ) -> Result<(), SessionError> {
        if header.stream != 0 {
            return Err(protocol_error("GOAWAY on a stream"));
        }
        if payload.len() < 8 {
            return Err(frame_size_error("a GOAWAY", header.length));
        }
        let last_stream = frame::read_u32(payload) & frame::MAX_STREAM_ID;
        let error_code = frame::read_u32(&payload[4..]);
        let kept = self.goaway_last_stream.map_or(last_stream, |earlier| earlier.min(last_stream));
        self.goaway_last_stream = Some(kept);
        on_event(Event::GoAway { last_stream, code: error_code });
        for index in 0..self.streams.len() {
            let stream = self.streams.get_mut(index);
            if stream.is_open() && stream.id > kept {
                let closed = self.streams.close(index);
                on_event(Event::Unprocessed { lane: closed.lane });
            }
        }
        Ok(())
    }

    /// The response on stream `index` ended: report it and free the stream. A request body still unsent is not
    /// wanted any more (RFC 9113 §8.1): the stream is reset so the server frees it too.
    fn complete(&mut self, index: usize, on_event: &mut impl FnMut(Event)) {
        let closed = self.streams.close(index);
        if !closed.request_done {
            frame::put_rst_stream(&mut self.output, closed.id, code::CANCEL);
        }
        on_event(Event::Response {
            lane: closed.lane,
            stream: closed.id,
            status: closed.status,
            body_bytes: closed.body_bytes,
        });
    }
}

/// The three digits of a `:status` value.
fn parse_status(value: &[u8]) -> Option<u16> {
    match value {
        [a, b, c] if value.iter().all(u8::is_ascii_digit) => {
            Some(u16::from(a - b'0') * 100 + u16::from(b - b'0') * 10 + u16::from(c - b'0'))
        }
        _ => None,
    }
}
