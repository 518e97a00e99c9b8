//! Reports from a results directory: `jload report DIR` writes report.md (the seeds' tables, pasteable into a wiki),
//! report.html (the same plus charts, one self-contained file) and report.json (every figure with its interval);
//! `jload compare A B` sets two runs or two cells side by side and says which differences are real.
//!
//! Only reads a results directory (through [`crate::results`]), and writes nothing there but report.{md,html,json},
//! so any report can be regenerated later. The analysis decides, renderers only read the model, and the compiler
//! holds that line: `analysis/` computes the model (report.json) and shows the rest of `report` nothing but the
//! model's types and the figure registry's labels and formats (its modules are private); `render/` reads the model
//! into report.md, report.html and the end-of-run tables. `words` is the one leaf both sides share: how the report
//! words a verdict, a share and a bound (pure formatters). `analysis::compare` compares two runs, `cli` the
//! subcommands. User documentation: docs/report.md.

mod analysis;
pub mod cli;
mod render;
#[cfg(test)]
mod test_fixtures;
mod words;

use std::path::{Path, PathBuf};

use crate::atomic_file::{write_atomically, write_json};
use crate::results::Results;

/// Where the reports went.
pub struct Written {
    pub markdown: PathBuf,
    pub html: PathBuf,
    pub json: PathBuf,
}

/// A results directory, read and analysed once: what every output renders.
pub struct Report {
    results: Results,
    analysis: analysis::Analysis,
}

impl Report {
    /// Read the results directory `dir` and analyse it; bad input when it is not one.
    pub fn open(dir: &Path) -> anyhow::Result<Report> {
        let results = Results::open(dir)?;
        let analysis = analysis::analyse(&results);
        Ok(Report { results, analysis })
    }

    /// The most cells that contend for a phase's best on one figure.
    pub const CONTENDERS_MOST: usize = analysis::CONTENDERS_MOST;

    /// The report of results already read (a sweep's view of its records before its summary.json says it).
    pub fn of(results: Results) -> Report {
        let analysis = analysis::analyse(&results);
        Report { results, analysis }
    }

    /// The cells that contend for some measured phase's best cell (`run.confirm` measures them again), in phase
    /// order, each once.
    pub fn contenders(&self) -> Vec<String> {
        let mut ids: Vec<String> = Vec::new();
        for id in self.analysis.phases.iter().flat_map(analysis::contenders) {
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
        ids
    }

    /// Write report.md, report.html and report.json into the results directory (each atomically).
    pub fn write(&self) -> anyhow::Result<Written> {
        let dir = &self.results.dir;
        let written = Written { markdown: dir.report_markdown(), html: dir.report_html(), json: dir.report_json() };
        write_atomically(&written.markdown, render::markdown::render(&self.analysis).as_bytes())?;
        write_atomically(&written.html, render::html::render(&self.analysis).as_bytes())?;
        write_json(&written.json, &self.analysis)?;
        Ok(written)
    }

    /// The compact per-phase tables printed at the end of a run.
    pub fn terminal_tables(&self) -> String {
        render::terminal::phase_tables(&self.analysis)
    }
}
