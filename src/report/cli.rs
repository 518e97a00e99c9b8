//! `jload report DIR` and `jload compare A B`: flags, output, exit codes.

use std::path::PathBuf;

use clap::Args;

use super::analysis::{compare, parse_threshold, render_comparison as render};
use crate::error::{bad_input, exit};

#[derive(Args, Debug)]
#[command(
    after_help = "Examples:\n  jload report results/quickstart-20261122-101500\n  open results/quickstart-20261122-101500/report.html"
)]
pub struct ReportArgs {
    /// A results directory written by `jload run`.
    pub dir: PathBuf,
}

#[derive(Args, Debug)]
#[command(after_help = "Examples:\n  jload compare results/before results/after\n  \
    jload compare 'results/sweep:heap=-Xmx64m,gc=G1' 'results/sweep:heap=-Xmx256m,gc=G1'\n  \
    jload compare results/main results/branch --threshold 5% --fail-on-regression\n\n\
    Exit codes: 0 compared; 99 with --fail-on-regression when B is worse than A beyond the threshold with significance, \
    or B has no measurement of a phase A measured (crashed); \
    2 bad input (also: --fail-on-regression with a side of one repeat, which nothing can qualify).")]
pub struct CompareArgs {
    /// Baseline: a results directory, or DIR:cell-id for one cell.
    pub a: String,
    /// Candidate: a results directory, or DIR:cell-id.
    pub b: String,
    /// Smallest relative change that counts as a regression or improvement.
    #[arg(long, default_value = "5%")]
    pub threshold: String,
    /// Exit 99 when B is worse than A beyond the threshold with significance (p < 0.05), or crashed where A measured.
    #[arg(long)]
    pub fail_on_regression: bool,
    /// Print the comparison as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run_report(args: ReportArgs) -> anyhow::Result<i32> {
    let written = super::Report::open(&args.dir)?.write()?;
    println!("{}\n{}\n{}", written.markdown.display(), written.html.display(), written.json.display());
    Ok(exit::OK)
}

pub fn run_compare(args: CompareArgs) -> anyhow::Result<i32> {
    let threshold = parse_threshold(&args.threshold)?;
    let comparison = compare(&args.a, &args.b, threshold)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&comparison)?);
    } else {
        print!("{}", render(&comparison));
    }
    if args.fail_on_regression
        && let Some(why) = comparison.why_unqualified()
    {
        return Err(bad_input(format!("--fail-on-regression cannot judge: {why}")));
    }
    Ok(if args.fail_on_regression && comparison.regressions() > 0 { exit::THRESHOLDS } else { exit::OK })
}
