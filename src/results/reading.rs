//! Reading a results directory back: `summary.json` (what every report is built from), `env.json`, the plan copy,
//! and per cell-repeat the files beside the JSON: `meta.json`, the phase's HdrHistogram interval log, `gcstat.csv`,
//! `box.csv`, `nmt.csv` and `gc.log`.
//! Only reads; a missing optional file is `None`, an unreadable one an error the caller turns into a note.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::Context;
use hdrhistogram::Histogram;
use hdrhistogram::serialization::interval_log::{IntervalLogIterator, LogEntry};

use super::box_search_json::BoxSearchRecord;
use super::layout::{RepFiles, ResultsDir, read_json};
use super::records::{Env, RepMeta, SUMMARY_VERSION, Summary};
use crate::cgroup::box_csv::{self, BoxRow};
use crate::error::bad_input;
use crate::jvm::attach::nmt_csv::{self, NmtRead};
use crate::jvm::gclog::{self, GcLog};
use crate::jvm::watch::gcstat_csv::{HeapSample, read_heap_samples};
use crate::load::record::histogram_codec;

/// A results directory, opened.
#[derive(Debug)]
pub struct Results {
    pub dir: ResultsDir,
    pub summary: Summary,
    pub env: Option<Env>,
    pub plan_text: Option<String>,
    /// `box_search.json`: a box search's trials and answers (empty for a plain sweep).
    pub box_search: BoxSearchRecord,
    /// `tune.json`: a tune's trials (None without `[tune]`).
    pub tune: Option<super::tune_json::TuneRecord>,
    /// (cell id, repeat) → its folder, from the `meta.json` files found.
    rep_dirs: HashMap<(String, u32), PathBuf>,
}

impl Results {
    /// Open `root`; bad input when it is not a results directory jload can read.
    pub fn open(root: &Path) -> anyhow::Result<Results> {
        if !root.is_dir() {
            return Err(bad_input(format!("{}: no such directory; give the folder `jload run` wrote", root.display())));
        }
        let dir = ResultsDir::new(root.to_path_buf());
        let summary_path = dir.summary();
        let text = std::fs::read_to_string(&summary_path).map_err(|_| {
            bad_input(format!(
                "{}: not a jload results directory (no summary.json); give the folder `jload run` wrote",
                root.display()
            ))
        })?;
        let summary: Summary = serde_json::from_str(&text).map_err(|err| {
            bad_input(format!("{}: cannot read it ({err}); was it written by this jload?", summary_path.display()))
        })?;
        if summary.version != SUMMARY_VERSION {
            return Err(bad_input(format!(
                "{}: version {} but this jload reads version {SUMMARY_VERSION}; use the jload that wrote it",
                summary_path.display(),
                summary.version
            )));
        }
        Ok(Results {
            env: read_json(&dir.env()),
            plan_text: std::fs::read_to_string(dir.plan_copy()).ok(),
            box_search: read_json(&dir.box_search()).unwrap_or_default(),
            tune: read_json(&dir.tune()),
            rep_dirs: find_rep_dirs(&dir),
            summary,
            dir,
        })
    }

    /// The files of a cell-repeat (None when it has no folder with a meta.json).
    pub fn rep_files(&self, cell: &str, rep: u32) -> Option<RepFiles<'_>> {
        self.rep_dirs.get(&(cell.to_string(), rep)).map(|dir| RepFiles::of(dir))
    }

    /// The port jload gave the cell-repeat (from its meta.json).
    pub fn port(&self, cell: &str, rep: u32) -> Option<u16> {
        read_json::<RepMeta>(&self.rep_files(cell, rep)?.meta()).map(|meta| meta.port)
    }

    /// The server the cell-repeat ran on (its ssh destination, from its meta.json); None: this machine.
    pub fn host(&self, cell: &str, rep: u32) -> Option<String> {
        read_json::<RepMeta>(&self.rep_files(cell, rep)?.meta())?.host
    }

    /// Every request of a phase in one cell-repeat: the intervals of `<phase>.hlog` added up (µs).
    pub fn histogram(&self, cell: &str, rep: u32, phase: &str) -> anyhow::Result<Option<Histogram<u64>>> {
        let Some(path) = self.rep_files(cell, rep).map(|files| files.phase_hlog(phase)) else {
            return Ok(None);
        };
        if !path.is_file() {
            return Ok(None);
        }
        let text = std::fs::read(&path)?;
        read_hlog(&text).with_context(|| format!("{}", path.display())).map(Some)
    }

    /// The JVM's heap occupancy, one sample a second over its whole life (empty without `gcstat.csv`).
    pub fn heap_samples(&self, cell: &str, rep: u32) -> anyhow::Result<Vec<HeapSample>> {
        let Some(path) = self.rep_files(cell, rep).map(|files| files.gcstat()) else {
            return Ok(Vec::new());
        };
        if !path.is_file() {
            return Ok(Vec::new());
        }
        let text = std::fs::read_to_string(&path)?;
        read_heap_samples(&text).with_context(|| format!("{}", path.display()))
    }

    /// The cell-repeat's `meta.json` (None when it has none that reads).
    pub fn meta(&self, cell: &str, rep: u32) -> Option<RepMeta> {
        read_json::<RepMeta>(&self.rep_files(cell, rep)?.meta())
    }

    /// The target's box sampled every second over its life (empty without `box.csv`).
    pub fn box_rows(&self, cell: &str, rep: u32) -> anyhow::Result<Vec<BoxRow>> {
        let path = self.rep_files(cell, rep).map(|files| files.box_csv());
        read_optional(path, box_csv::read)
    }

    /// The JVM's native memory read every few seconds and at each phase's end (empty without `nmt.csv`).
    pub fn nmt_reads(&self, cell: &str, rep: u32) -> anyhow::Result<Vec<NmtRead>> {
        let path = self.rep_files(cell, rep).map(|files| files.nmt_csv());
        read_optional(path, nmt_csv::read)
    }

    /// The cell-repeat's GC log, parsed (None when there is none).
    pub fn gc_log(&self, cell: &str, rep: u32) -> Option<GcLog> {
        let path = self.rep_files(cell, rep)?.gc_log();
        path.is_file().then(|| gclog::parse_path(&path).ok()).flatten()
    }
}

/// A per-second file of a cell-repeat read by `read`: empty when there is none, an error naming it when it does not
/// read.
fn read_optional<T>(path: Option<PathBuf>, read: fn(&str) -> anyhow::Result<Vec<T>>) -> anyhow::Result<Vec<T>> {
    let Some(path) = path.filter(|path| path.is_file()) else {
        return Ok(Vec::new());
    };
    let text = std::fs::read_to_string(&path).with_context(|| format!("{}", path.display()))?;
    read(&text).with_context(|| format!("{}", path.display()))
}

/// Map every `cells/<dir>/rep-<n>/meta.json` to its cell id and repeat.
fn find_rep_dirs(dir: &ResultsDir) -> HashMap<(String, u32), PathBuf> {
    let mut found = HashMap::new();
    let Ok(cells) = std::fs::read_dir(dir.cells()) else {
        return found;
    };
    for cell_dir in cells.flatten() {
        let Ok(reps) = std::fs::read_dir(cell_dir.path()) else {
            continue;
        };
        for rep_dir in reps.flatten() {
            if let Some(meta) = read_json::<RepMeta>(&RepFiles::of(&rep_dir.path()).meta()) {
                found.insert((meta.cell, meta.rep), rep_dir.path());
            }
        }
    }
    found
}

/// Add up every interval of an HdrHistogram interval log.
fn read_hlog(text: &[u8]) -> anyhow::Result<Histogram<u64>> {
    let mut total: Histogram<u64> = Histogram::new(3)?;
    for entry in IntervalLogIterator::new(text) {
        let entry = entry.map_err(|err| anyhow::anyhow!("not an HdrHistogram interval log: {err:?}"))?;
        if let LogEntry::Interval(interval) = entry {
            total.add(&histogram_codec::decode(interval.encoded_histogram())?)?;
        }
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn garbage_is_not_an_hlog() {
        assert!(read_hlog(b"0.000,1.000,3.0,not-base64!!\n").is_err());
        assert_eq!(read_hlog(b"#just a comment\n").unwrap().len(), 0);
    }
}
