//! Finds and reads the files of one GC log: the file itself and its rotated siblings (`gc.log.0`, `gc.log.1`, …,
//! written with `-Xlog:…:file=gc.log::filecount=N,filesize=S`), oldest first, of one JVM run only.
//!
//! The JVM always writes to `gc.log`; when that is full it becomes `gc.log.<i>` with `i` counting round modulo
//! `filecount`, so numbers do not give the order. At start-up the JVM also archives the previous run's `gc.log`
//! the same way, so siblings may belong to an earlier run. Files are put in order by the wall clock of their first
//! line (or by modification time when a file has no wall-clock decoration), and the set is cut where the JVM uptime
//! goes backwards from one file to the next: everything before that cut is an earlier run and is left out.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use chrono::{DateTime, FixedOffset};

use super::input::{LogLine, LogReader};
use super::line::split_line;
use crate::error::bad_input;

/// The files of one JVM run, oldest first, and the siblings left out.
pub struct LogFiles {
    pub files: Vec<PathBuf>,
    pub ignored: Vec<PathBuf>,
}

/// One file with what its order depends on.
struct Candidate {
    path: PathBuf,
    first_wall: Option<DateTime<FixedOffset>>,
    first_uptime: Option<f64>,
    last_uptime: Option<f64>,
    modified: Option<SystemTime>,
}

/// Finds `path` and, with `with_rotated`, its rotated siblings. A path that is itself a rotated file (`gc.log.3`)
/// is read alone. The files are scanned (streamed) for their times only when there are siblings to order.
pub fn find_log_files(path: &Path, with_rotated: bool) -> anyhow::Result<LogFiles> {
    let cannot_read = |err: std::io::Error| {
        bad_input(format!(
            "cannot read GC log {}: {err}; give the file named in the JVM's -Xlog:gc…:file=PATH option",
            path.display()
        ))
    };
    if fs::metadata(path).map_err(cannot_read)?.is_dir() {
        return Err(cannot_read(std::io::Error::other("it is a directory")));
    }
    LogReader::open(path)?;
    let siblings = if with_rotated && rotation_index(path).is_none() { rotated_siblings(path) } else { Vec::new() };
    if siblings.is_empty() {
        return Ok(LogFiles { files: vec![path.to_path_buf()], ignored: Vec::new() });
    }
    let current = scan_candidate(path).map_err(|err| bad_input(format!("{err:#}")))?;
    Ok(order_one_run(siblings, current))
}

/// The times of a file's first and last lines, read line by line.
fn scan_candidate(path: &Path) -> anyhow::Result<Candidate> {
    let metadata = fs::metadata(path)?;
    let mut candidate = Candidate {
        path: path.to_path_buf(),
        first_wall: None,
        first_uptime: None,
        last_uptime: None,
        modified: metadata.modified().ok(),
    };
    let mut reader = LogReader::open(path)?;
    while let Some(line) = reader.next_line()? {
        let LogLine::Text(raw) = line else { continue };
        let Ok(line) = split_line(&raw) else { continue };
        candidate.first_wall = candidate.first_wall.or(line.wall);
        if line.uptime_s.is_some() {
            candidate.first_uptime = candidate.first_uptime.or(line.uptime_s);
            candidate.last_uptime = line.uptime_s;
        }
    }
    Ok(candidate)
}

/// `3` for `gc.log.3`.
fn rotation_index(path: &Path) -> Option<u32> {
    path.extension()?.to_str()?.parse().ok()
}

/// The readable `NAME.<digits>` files beside `path`.
fn rotated_siblings(path: &Path) -> Vec<Candidate> {
    let Some(name) = path.file_name().and_then(|name| name.to_str()) else {
        return Vec::new();
    };
    let directory = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let Ok(entries) = fs::read_dir(directory) else {
        return Vec::new();
    };
    entries
        .filter_map(|entry| entry.ok())
        .filter(|entry| {
            let file_name = entry.file_name();
            let suffix = file_name.to_str().and_then(|sibling| sibling.strip_prefix(name)?.strip_prefix('.'));
            suffix.is_some_and(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
        })
        .filter_map(|entry| scan_candidate(&directory.join(entry.file_name())).ok())
        .collect()
}

fn order_one_run(mut siblings: Vec<Candidate>, current: Candidate) -> LogFiles {
    if siblings.iter().all(|sibling| sibling.first_wall.is_some()) {
        siblings.sort_by_key(|sibling| sibling.first_wall);
    } else {
        siblings.sort_by_key(|sibling| sibling.modified);
    }
    let mut kept = vec![current];
    let mut ignored = Vec::new();
    while let Some(previous) = siblings.pop() {
        let next = kept.last().expect("kept starts with the current file");
        if ignored.is_empty() && same_run(&previous, next) {
            kept.push(previous);
        } else {
            ignored.push(previous.path);
        }
    }
    kept.reverse();
    ignored.sort();
    LogFiles { files: kept.into_iter().map(|candidate| candidate.path).collect(), ignored }
}

/// Whether `next` continues the JVM run of `previous`: uptime does not go back, nor the wall clock.
fn same_run(previous: &Candidate, next: &Candidate) -> bool {
    let uptime_continues = match (previous.last_uptime, next.first_uptime) {
        (Some(last), Some(first)) => first >= last,
        _ => true,
    };
    let wall_continues = match (previous.first_wall, next.first_wall) {
        (Some(previous_start), Some(next_start)) => next_start >= previous_start,
        _ => true,
    };
    uptime_continues && wall_continues
}
