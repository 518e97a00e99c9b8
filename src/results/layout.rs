//! The layout of a results directory: every file name in it, in one place. `run` writes and `report` reads through
//! these paths; nothing else spells a file name.
//!
//! ```text
//! <out>/plan.toml  run.json  env.json  summary.json  report.md  report.html  report.json
//! <out>/cells/<cell>/rep-<n>/meta.json  <phase>.json  <phase>.hlog  <phase>.slow.csv  gcstat.csv  box.csv  nmt.csv  gc.log  stdout.log  stderr.log
//!                            hs_err_pid<pid>.log (when the JVM died of a fatal error)
//! ```

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::records::{PhaseRecord, RepMeta};

/// A results directory: the paths of its files.
#[derive(Debug, Clone)]
pub struct ResultsDir {
    pub root: PathBuf,
}

impl ResultsDir {
    pub fn new(root: PathBuf) -> ResultsDir {
        ResultsDir { root }
    }

    /// True when `jload run` wrote here: the folder has a summary.
    pub fn holds_results(&self) -> bool {
        self.summary().is_file()
    }

    /// The plan file as it was run.
    pub fn plan_copy(&self) -> PathBuf {
        self.root.join("plan.toml")
    }

    /// [`super::RunRecord`]: what `--resume` needs.
    pub fn run_record(&self) -> PathBuf {
        self.root.join("run.json")
    }

    /// [`super::Env`]: the machine and tools.
    pub fn env(&self) -> PathBuf {
        self.root.join("env.json")
    }

    /// [`super::Summary`]: every cell and repeat with its phases.
    pub fn summary(&self) -> PathBuf {
        self.root.join("summary.json")
    }

    /// [`super::box_search_json::BoxSearchRecord`]: a box search's trials and answers (a plan with `[box_search]`).
    pub fn box_search(&self) -> PathBuf {
        self.root.join("box_search.json")
    }

    /// [`super::tune_json::TuneRecord`]: a tune's trials per cell, their figures and what mattered (a plan with `[tune]`).
    pub fn tune(&self) -> PathBuf {
        self.root.join("tune.json")
    }

    pub fn report_markdown(&self) -> PathBuf {
        self.root.join("report.md")
    }

    pub fn report_html(&self) -> PathBuf {
        self.root.join("report.html")
    }

    pub fn report_json(&self) -> PathBuf {
        self.root.join("report.json")
    }

    /// The folder holding one folder per cell.
    pub fn cells(&self) -> PathBuf {
        self.root.join("cells")
    }

    /// The folder of one cell-repeat (`cell_dir` is the cell's folder name under `cells/`).
    pub fn rep_dir(&self, cell_dir: &str, rep: u32) -> PathBuf {
        self.cells().join(cell_dir).join(format!("rep-{rep}"))
    }

    pub fn read_meta(&self, cell_dir: &str, rep: u32) -> Option<RepMeta> {
        read_json(&RepFiles::of(&self.rep_dir(cell_dir, rep)).meta())
    }

    pub fn read_phase(&self, cell_dir: &str, rep: u32, phase: &str) -> Option<PhaseRecord> {
        read_json(&RepFiles::of(&self.rep_dir(cell_dir, rep)).phase_record(phase))
    }
}

/// The files of one cell-repeat's folder.
#[derive(Debug, Clone, Copy)]
pub struct RepFiles<'a> {
    dir: &'a Path,
}

/// How the JVM names its fatal-error file (`-XX:ErrorFile`, `%p` its pid).
pub const ERROR_FILE_PREFIX: &str = "hs_err_pid";

impl RepFiles<'_> {
    pub fn of(dir: &Path) -> RepFiles<'_> {
        RepFiles { dir }
    }

    /// [`RepMeta`]: how the cell-repeat went.
    pub fn meta(&self) -> PathBuf {
        self.dir.join("meta.json")
    }

    /// [`PhaseRecord`]: one phase's result.
    pub fn phase_record(&self, phase: &str) -> PathBuf {
        self.dir.join(format!("{phase}.json"))
    }

    /// The phase's HdrHistogram interval log: every request's latency.
    pub fn phase_hlog(&self, phase: &str) -> PathBuf {
        self.dir.join(format!("{phase}.hlog"))
    }

    /// The phase's slow requests, one per line (see `results::slow_csv`).
    pub fn phase_slow_requests(&self, phase: &str) -> PathBuf {
        self.dir.join(format!("{phase}.slow.csv"))
    }

    /// A measured phase's flight recording (docs/profiling.md), written by the target's JVM.
    pub fn phase_recording(&self, phase: &str) -> PathBuf {
        self.dir.join(format!("{phase}.jfr"))
    }

    /// The JVM sampled every second over its life ([`crate::jvm::watch::gcstat_csv`]).
    pub fn gcstat(&self) -> PathBuf {
        self.dir.join("gcstat.csv")
    }

    /// The target's cgroup box sampled every second over its life ([`crate::cgroup::box_csv`]); a boxed cell only.
    pub fn box_csv(&self) -> PathBuf {
        self.dir.join("box.csv")
    }

    /// The JVM's native memory read every few seconds and at each phase's end ([`crate::jvm::attach::nmt_csv`]); a cell
    /// with NMT on only.
    pub fn nmt_csv(&self) -> PathBuf {
        self.dir.join("nmt.csv")
    }

    /// The JVM's own GC log (`-Xlog:gc*`).
    pub fn gc_log(&self) -> PathBuf {
        self.dir.join("gc.log")
    }

    /// The `-XX:ErrorFile` pattern: where a JVM that dies of a fatal error writes its report.
    pub fn error_file_pattern(&self) -> PathBuf {
        self.dir.join(format!("{ERROR_FILE_PREFIX}%p.log"))
    }

    pub fn stdout_log(&self) -> PathBuf {
        self.dir.join("stdout.log")
    }

    pub fn stderr_log(&self) -> PathBuf {
        self.dir.join("stderr.log")
    }
}

/// A JSON record, or None when the file is missing or not that record.
pub fn read_json<T: for<'de> Deserialize<'de>>(path: &Path) -> Option<T> {
    let text = std::fs::read_to_string(path).ok()?;
    serde_json::from_str(&text).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_repeats_files_sit_in_cells_cell_rep_n() {
        let results = ResultsDir::new(PathBuf::from("/r"));
        let rep = results.rep_dir("gc=G1", 2);
        assert_eq!(rep, Path::new("/r/cells/gc=G1/rep-2"));
        let files = RepFiles::of(&rep);
        assert_eq!(files.meta(), Path::new("/r/cells/gc=G1/rep-2/meta.json"));
        assert_eq!(files.phase_record("get"), Path::new("/r/cells/gc=G1/rep-2/get.json"));
        assert_eq!(files.phase_hlog("get"), Path::new("/r/cells/gc=G1/rep-2/get.hlog"));
        assert_eq!(files.error_file_pattern(), Path::new("/r/cells/gc=G1/rep-2/hs_err_pid%p.log"));
        assert_eq!(results.summary(), Path::new("/r/summary.json"));
    }
}
