//! Opens a GC log file as a stream of lines: plain or gzip-compressed (rotated logs are often `.gz`), a UTF-8
//! byte-order mark dropped. A line that is not text — bytes that are no UTF-8, NULs (what a host crash leaves at the
//! end of a file that was being written), control characters — is read as such, with its bytes escaped, for the
//! parser to count as unparsed; only a file that is mostly not text (UTF-16 from a Windows redirect, binary data) is
//! refused, with one line saying what it is. Lines are read one at a time, so memory does not grow with the file.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use flate2::read::MultiGzDecoder;

use crate::error::bad_input;

/// How many bytes at the start of the file decide what it is.
const SNIFF_BYTES: usize = 64 * 1024;

/// A log file opened for reading line by line.
pub struct LogReader {
    reader: Box<dyn BufRead>,
    buffer: Vec<u8>,
    at_start: bool,
}

impl LogReader {
    /// Opens `path`, decompressing gzip. Fails (as bad input) on unreadable files, UTF-16 and binary content.
    pub fn open(path: &Path) -> anyhow::Result<LogReader> {
        let cannot_read = |err: std::io::Error| {
            bad_input(format!(
                "cannot read GC log {}: {err}; give the file named in the JVM's -Xlog:gc…:file=PATH option",
                path.display()
            ))
        };
        let mut file = BufReader::with_capacity(SNIFF_BYTES, File::open(path).map_err(cannot_read)?);
        let gzip = file.fill_buf().map_err(cannot_read)?.starts_with(&[0x1f, 0x8b]);
        let mut reader: Box<dyn BufRead> = if gzip {
            Box::new(BufReader::with_capacity(SNIFF_BYTES, MultiGzDecoder::new(file)))
        } else {
            Box::new(file)
        };
        let head = fill_head(&mut reader)
            .map_err(|err| bad_input(format!("cannot read GC log {}: {err} (a damaged gzip file?)", path.display())))?;
        if let Some(what) = not_text(&head) {
            return Err(bad_input(format!("{} is {what}, not a GC log text file", path.display())));
        }
        Ok(LogReader { reader, buffer: Vec::new(), at_start: true })
    }

    /// The next line without its line end, or None at the end.
    pub fn next_line(&mut self) -> std::io::Result<Option<LogLine>> {
        self.buffer.clear();
        if self.reader.read_until(b'\n', &mut self.buffer)? == 0 {
            return Ok(None);
        }
        let mut bytes = self.buffer.as_slice();
        if std::mem::take(&mut self.at_start) {
            bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        }
        while let Some(rest) = bytes.strip_suffix(b"\n").or_else(|| bytes.strip_suffix(b"\r")) {
            bytes = rest;
        }
        Ok(Some(match std::str::from_utf8(bytes) {
            Ok(text) if is_text(text) => LogLine::Text(text.to_owned()),
            _ => LogLine::NotText(escaped(bytes)),
        }))
    }
}

/// One line of a log file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LogLine {
    Text(String),
    /// A line holding bytes that are not text, as printable text: each such byte as `\xNN`.
    NotText(String),
}

/// Whether a valid UTF-8 line is text: no control character but a tab (a NUL, an escape, a form feed are not).
fn is_text(line: &str) -> bool {
    !line.chars().any(|c| c.is_control() && c != '\t')
}

/// `bytes` as printable text: valid UTF-8 as it is, control characters and bytes that are no UTF-8 as `\xNN`.
pub fn escaped(bytes: &[u8]) -> String {
    let mut text = String::new();
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\t' => text.push(c),
                c if c.is_control() && (c as u32) < 0x100 => text += &format!("\\x{:02x}", c as u32),
                c => text.push(c),
            }
        }
        text.extend(chunk.invalid().iter().map(|byte| format!("\\x{byte:02x}")));
    }
    text
}

/// The first bytes of the (decompressed) content, without consuming them.
fn fill_head(reader: &mut Box<dyn BufRead>) -> std::io::Result<Vec<u8>> {
    // One fill_buf may return a short read; a gzip stream gives its first block, which is enough to judge.
    Ok(reader.fill_buf()?.to_vec())
}

/// A file is refused as binary when more than this share of the lines at its start are not text.
const NOT_TEXT_LINES_SHARE: f64 = 0.5;

/// What the content is when it is mostly not UTF-8 text.
fn not_text(head: &[u8]) -> Option<&'static str> {
    if head.starts_with(&[0xFF, 0xFE]) || head.starts_with(&[0xFE, 0xFF]) || looks_like_utf16(head) {
        return Some("UTF-16 text (convert it: iconv -f UTF-16 -t UTF-8 FILE > FILE.utf8)");
    }
    // A multi-byte character may be cut at the end of the sniffed block: judge what is complete.
    let complete = match std::str::from_utf8(head) {
        Err(err) if err.error_len().is_none() => &head[..err.valid_up_to()],
        _ => head,
    };
    let lines: Vec<&[u8]> = complete.split(|&byte| byte == b'\n').filter(|line| !line.is_empty()).collect();
    let not_text = lines
        .iter()
        .filter(|line| {
            std::str::from_utf8(line.strip_suffix(b"\r").unwrap_or(line)).map_or(true, |line| !is_text(line))
        })
        .count();
    (not_text as f64 > NOT_TEXT_LINES_SHARE * lines.len() as f64).then_some("binary data (mostly no UTF-8 text)")
}

/// UTF-16 without a byte-order mark: every other byte of ASCII text is zero.
fn looks_like_utf16(head: &[u8]) -> bool {
    let pairs = head.len() / 2;
    if pairs < 4 {
        return false;
    }
    let zeros_even = head.iter().step_by(2).filter(|&&b| b == 0).count();
    let zeros_odd = head.iter().skip(1).step_by(2).filter(|&&b| b == 0).count();
    zeros_even.max(zeros_odd) * 10 >= pairs * 9
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_not_text() {
        let utf16: Vec<u8> = "[0.1s][info][gc] Using G1\n".encode_utf16().flat_map(|unit| unit.to_le_bytes()).collect();
        assert!(not_text(&utf16).unwrap().starts_with("UTF-16"));
        let mut with_bom = vec![0xFF, 0xFE];
        with_bom.extend(&utf16);
        assert!(not_text(&with_bom).unwrap().starts_with("UTF-16"));
        assert!(not_text(&[0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0, 0]).unwrap().starts_with("binary"));
        assert!(not_text(&[0xC3, 0x28, b'a', b'b']).unwrap().starts_with("binary"));
        assert_eq!(not_text("[0.1s][info][gc] Using G1 é\n".as_bytes()), None);
        // One line in three not text is a text file with a damaged line.
        assert_eq!(not_text(b"[0.1s][info][gc] Using G1\n# host: m\xe9tro\n[0.2s][info][gc] GC(0)\n"), None);
        assert!(not_text(b"[0.1s][info][gc] Using G1\n\x00\x00\x00\n\x01\x02\n").unwrap().starts_with("binary"));
        // A character cut by the end of the sniffed block is not binary.
        assert_eq!(not_text(&"ab é".as_bytes()[..4]), None);
        assert_eq!(not_text(b""), None);
    }

    #[test]
    fn a_line_of_latin_1_or_nuls_is_read_as_not_text_with_its_bytes_escaped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gc.log");
        std::fs::write(&path, b"[0.1s][info][gc] Using G1\r\n# host: m\xe9tro\n\x00\x00\x00\x00\n\tindented\n")
            .unwrap();
        let mut reader = LogReader::open(&path).unwrap();
        let mut lines = Vec::new();
        while let Some(line) = reader.next_line().unwrap() {
            lines.push(line);
        }
        assert_eq!(
            lines,
            [
                LogLine::Text("[0.1s][info][gc] Using G1".into()),
                LogLine::NotText("# host: m\\xe9tro".into()),
                LogLine::NotText("\\x00\\x00\\x00\\x00".into()),
                LogLine::Text("\tindented".into()),
            ]
        );
    }
}
