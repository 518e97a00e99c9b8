//! `<phase>.slow.csv`: a phase's slow requests (`load::record::slow`), one per line, slowest first, written atomically.
//! Columns: `done_us` (µs since the phase's start instant, whose wall time is the phase record's `start_unix_us`),
//! `latency_us`, `service_us` (from the actual send), `request` (index in the phase's requests), `failed` (0/1).

use std::fmt::Write as _;
use std::path::Path;

use crate::load::record::slow::{SlowRequest, SlowRequests};

const HEADER: &str = "done_us,latency_us,service_us,request,failed";

/// Write the kept requests of `slow`, slowest first.
pub fn write(path: &Path, slow: &SlowRequests) -> anyhow::Result<()> {
    let mut text = String::with_capacity(32 * (slow.kept.len() + 1));
    text.push_str(HEADER);
    text.push('\n');
    for r in slow.slowest_first() {
        let _ = writeln!(text, "{},{},{},{},{}", r.done_us, r.latency_us, r.service_us, r.request, u8::from(r.failed));
    }
    crate::atomic_file::write_atomically(path, text.as_bytes())
}

/// The requests of a file written by [`write`], in its order; None when it is missing or not such a file.
pub fn read(path: &Path) -> Option<Vec<SlowRequest>> {
    let text = std::fs::read_to_string(path).ok()?;
    let mut lines = text.lines();
    if lines.next()? != HEADER {
        return None;
    }
    lines.map(parse_line).collect()
}

fn parse_line(line: &str) -> Option<SlowRequest> {
    let mut fields = line.split(',');
    let mut next = || fields.next();
    let request = SlowRequest {
        done_us: next()?.parse().ok()?,
        latency_us: next()?.parse().ok()?,
        service_us: next()?.parse().ok()?,
        request: next()?.parse().ok()?,
        failed: next()? == "1",
    };
    Some(request)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_written_file_reads_back_slowest_first() {
        let dir = std::env::temp_dir().join(format!("jload-slow-csv-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("run.slow.csv");
        let mut slow = SlowRequests::with_capacity(4);
        let fast = SlowRequest { done_us: 10, latency_us: 5, service_us: 4, request: 0, failed: false };
        let slowest = SlowRequest { done_us: 90, latency_us: 70, service_us: 30, request: 1, failed: true };
        slow.offer(fast);
        slow.offer(slowest);
        write(&path, &slow).unwrap();
        assert_eq!(read(&path), Some(vec![slowest, fast]));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
