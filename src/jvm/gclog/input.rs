//! Opens a GC log file as a stream of text lines: plain or gzip-compressed (rotated logs are often `.gz`), a UTF-8
//! byte-order mark dropped. What is no text — UTF-16 (a Windows redirect), binary data — is refused with one line
//! saying what it is. Lines are read one at a time, so memory does not grow with the file.

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

    /// The next line without its line end (invalid UTF-8 replaced), or None at the end.
    pub fn next_line(&mut self) -> std::io::Result<Option<String>> {
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
        Ok(Some(String::from_utf8_lossy(bytes).into_owned()))
    }
}

/// The first bytes of the (decompressed) content, without consuming them.
fn fill_head(reader: &mut Box<dyn BufRead>) -> std::io::Result<Vec<u8>> {
    // One fill_buf may return a short read; a gzip stream gives its first block, which is enough to judge.
    Ok(reader.fill_buf()?.to_vec())
}

/// What the content is when it is not UTF-8 text.
fn not_text(head: &[u8]) -> Option<&'static str> {
    if head.starts_with(&[0xFF, 0xFE]) || head.starts_with(&[0xFE, 0xFF]) || looks_like_utf16(head) {
        return Some("UTF-16 text (convert it: iconv -f UTF-16 -t UTF-8 FILE > FILE.utf8)");
    }
    let binary = head.contains(&0) || head.iter().filter(|&&b| b < 0x09 || (0x0e..0x20).contains(&b)).count() > 4;
    // A multi-byte character may be cut at the end of the sniffed block: judge what is complete.
    let valid_utf8 = match std::str::from_utf8(head) {
        Ok(_) => true,
        Err(err) => err.error_len().is_none(),
    };
    (binary || !valid_utf8).then_some("binary data (no UTF-8 text)")
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
        // A character cut by the end of the sniffed block is not binary.
        assert_eq!(not_text(&"ab é".as_bytes()[..4]), None);
        assert_eq!(not_text(b""), None);
    }
}
