//! Reports from a results directory: `jload report DIR` writes report.md (the seeds' tables, pasteable into a wiki),
//! report.html (the same plus charts, one self-contained file) and report.json (every figure with its interval);
//! `jload compare A B` sets two runs or two cells side by side and says which differences are real.
//!
//! Only reads a results directory (through [`crate::results`]), and writes nothing there but report.{md,html,json},
//! so any report can be regenerated later. The analysis decides, renderers render. Deciding: `metrics` defines the
//! figures, `stats` the medians, intervals and tests, `spectrum` the latency percentile spectrum, `cell_attribution`
//! "is it the GC?" over a cell's repeats and `tail_points` the slow requests and stops its chart draws, `timelines`
//! each cell's typical repeat over time, `curves` latency against throughput over ladder and search steps (ranked per
//! step), `capacity` a cell's capacity over its repeats, `equal_load` which latencies are comparable (same achieved
//! rate), `connections` the connection counts a plan swept side by side, `recommend` the recommendation, `host_effect` whether a repeat's
//! server explains a cell's spread (sweeps over several servers), and `analysis` puts it together into the `model` (report.json). Rendering:
//! `tables` the table values, `grid` the headline figures of a sweep over two axes as grids, `cell_styles` each
//! cell's look in the charts, `prose` jload's own sentences with their code spans, `markdown`, `html` (with `charts`) and `terminal` (the end-of-run tables). `compare`
//! compares two runs, `cli` the subcommands. User documentation: docs/report.md.

mod analysis;
mod capacity;
mod cell_attribution;
mod cell_styles;
mod charts;
pub mod cli;
mod compare;
mod connections;
mod curves;
mod equal_load;
mod grid;
mod host_effect;
#[cfg(test)]
mod host_effect_tests;
mod host_fit;
mod html;
mod markdown;
mod metrics;
mod model;
mod prose;
mod recommend;
mod spectrum;
mod stats;
mod steadiness;
mod tables;
mod tail_points;
mod terminal;
#[cfg(test)]
mod test_fixtures;
mod timelines;

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
    analysis: model::Analysis,
}

impl Report {
    /// Read the results directory `dir` and analyse it; bad input when it is not one.
    pub fn open(dir: &Path) -> anyhow::Result<Report> {
        let results = Results::open(dir)?;
        let analysis = analysis::analyse(&results);
        Ok(Report { results, analysis })
    }

    /// Write report.md, report.html and report.json into the results directory (each atomically).
    pub fn write(&self) -> anyhow::Result<Written> {
        let dir = &self.results.dir;
        let written = Written { markdown: dir.report_markdown(), html: dir.report_html(), json: dir.report_json() };
        write_atomically(&written.markdown, markdown::render(&self.analysis).as_bytes())?;
        write_atomically(&written.html, html::render(&self.analysis).as_bytes())?;
        write_json(&written.json, &self.analysis)?;
        Ok(written)
    }

    /// The compact per-phase tables printed at the end of a run.
    pub fn terminal_tables(&self) -> String {
        terminal::phase_tables(&self.analysis)
    }
}
