//! `jload merge`: the results of several load generators (`jload bench --json` files written anywhere — other
//! machines, the pods of a Kubernetes Job) merged exactly into one (see [`crate::load::merge`]), printed as
//! `jload bench` prints a run, with a row per generator, and written as JSON and as an HdrHistogram interval log.

use std::path::{Path, PathBuf};

use clap::Args;

use crate::atomic_file::write_json;
use crate::bench;
use crate::error::bad_input;
use crate::load::figures::threshold::Threshold;
use crate::load::merge;
use crate::load::printout;
use crate::load::record::hlog;
use crate::load::record::result::BenchResult;

#[derive(Args, Debug, Clone)]
#[command(
    after_help = "Example (each generator ran `jload bench --start-at T -R 1000 --json genN.json …`):\n  jload merge \
                  gen1.json gen2.json gen3.json --json all.json --hlog all.hlog"
)]
pub struct MergeArgs {
    /// Results written by `jload bench --json`, one per load generator, of runs that started together.
    #[arg(required = true, value_name = "RESULT.json")]
    pub results: Vec<PathBuf>,
    /// Write the merged result as JSON to this file (the shape `jload bench --json` writes).
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Write the merged HdrHistogram interval log (one interval per second, microseconds) to this file.
    #[arg(long)]
    pub hlog: Option<PathBuf>,
    /// Pass/fail rule on the merged result, as `jload bench --threshold` (p99<50ms, errors<0.1%, rps>10000;
    /// repeatable); exit 99 if one fails.
    #[arg(long = "threshold")]
    pub thresholds: Vec<String>,
}

/// Run `jload merge` and return the process exit code.
pub fn run(args: MergeArgs) -> anyhow::Result<i32> {
    let thresholds = args.thresholds.iter().map(|text| Threshold::parse(text)).collect::<anyhow::Result<Vec<_>>>()?;
    let parts = args
        .results
        .iter()
        .map(|path| Ok((path.display().to_string(), read_result(path)?)))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let mut merged = merge::merge(&parts)?;
    merged.thresholds = thresholds.iter().map(|threshold| threshold.judge(&merged)).collect();
    // The files first: a closed stdout ends jload at the first print (see main.rs), and must not lose them.
    if let Some(path) = &args.json {
        write_json(path, &merged)?;
    }
    if let Some(path) = &args.hlog {
        hlog::write_result_log(&merged, path)?;
    }
    print!("{}", printout::render(&merged));
    Ok(bench::exit_code(&merged))
}

/// A load result from a JSON file, or a one-line error naming the file and what it is not.
fn read_result(path: &Path) -> anyhow::Result<BenchResult> {
    let text =
        std::fs::read_to_string(path).map_err(|err| bad_input(format!("cannot read {}: {err}", path.display())))?;
    serde_json::from_str(&text).map_err(|err| {
        bad_input(format!(
            "{} is not a load result written by `jload bench --json` ({err}): give the files of `--json`",
            path.display()
        ))
    })
}
