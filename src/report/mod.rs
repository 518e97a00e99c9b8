//! Reports from a results directory: `jload report DIR` writes report.md (the seeds' tables, pasteable into a wiki),
//! report.html (the same plus charts, one self-contained file) and report.json (every figure with its interval);
//! `jload compare A B` sets two runs or two cells side by side and says which differences are real.
//!
//! Only reads a results directory, and writes nothing there but report.{md,html,json}, so any report can be
//! regenerated later. Module jobs: `input` reads the directory, `metrics` defines the figures, `stats` the medians,
//! intervals and tests, `spectrum` the latency percentile spectrum, `gc_tail` GC against tail latency, `analysis`
//! puts it together (report.json), `recommend` the recommendation, `tables` the table values, `grid` the headline
//! figures of a sweep over two axes as grids, `cell_styles` each cell's look in the charts, `markdown` and `html`
//! (with `charts`) the two documents, `compare` the comparison, `cli` the subcommands. User documentation:
//! docs/report.md.

mod analysis;
mod cell_styles;
mod charts;
pub mod cli;
mod compare;
mod gc_tail;
mod grid;
mod html;
mod input;
mod markdown;
mod metrics;
mod recommend;
mod spectrum;
mod stats;
mod tables;

use std::path::{Path, PathBuf};

use crate::atomic_file::{write_atomically, write_json};

/// Where the reports went.
pub struct Written {
    pub markdown: PathBuf,
    pub html: PathBuf,
    pub json: PathBuf,
}

/// Read the results directory `dir` and write report.md, report.html and report.json into it (each atomically).
pub fn write_reports(dir: &Path) -> anyhow::Result<Written> {
    let results = input::Results::open(dir)?;
    let analysis = analysis::analyse(&results);
    let written =
        Written { markdown: dir.join("report.md"), html: dir.join("report.html"), json: dir.join("report.json") };
    write_atomically(&written.markdown, markdown::render(&analysis).as_bytes())?;
    write_atomically(&written.html, html::render(&analysis, &results).as_bytes())?;
    write_json(&written.json, &analysis)?;
    Ok(written)
}
