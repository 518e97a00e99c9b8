//! `jload gclog`: flags, finding the log (a file, or the file a running JVM writes), and printing the analysis as
//! text or JSON.

use std::fs;
use std::path::PathBuf;

use clap::Args;
use serde::Serialize;

use super::report::{Lists, print_report};
use super::{GcLog, GcLogSummary, in_window, log_file_from_args, parse_run};
use crate::error::{bad_input, exit};

#[derive(Args, Debug, Clone)]
#[command(
    after_help = "Enable the log with: java -Xlog:gc*,safepoint:file=gc.log:time,uptime,level,tags …\n\nExamples:\n  jload gclog gc.log\n  jload gclog gc.log --from 60 --to 120 --pauses\n  jload gclog gc.log --stalls\n  jload gclog --pid 4242 --json"
)]
pub struct GclogArgs {
    /// GC log written by -Xlog:gc… (JDK 9+). Rotated siblings of the same JVM run (FILE.0, FILE.1, …) are read too.
    #[arg(required_unless_present = "pid", conflicts_with = "pid")]
    pub file: Option<PathBuf>,
    /// Analyse the GC log of this running JVM (the file named by its -Xlog:…:file= option).
    #[arg(long)]
    pub pid: Option<u32>,
    /// Print JSON (pauses, concurrent, safepoints, summary; schema in docs/gclog.md) instead of text.
    #[arg(long)]
    pub json: bool,
    /// Only events that start at or after this JVM uptime, in seconds.
    #[arg(long, value_name = "SECONDS")]
    pub from: Option<f64>,
    /// Only events that start at or before this JVM uptime, in seconds.
    #[arg(long, value_name = "SECONDS")]
    pub to: Option<f64>,
    /// List every pause, not only the summary.
    #[arg(long)]
    pub pauses: bool,
    /// List every stall (ZGC allocation stall, Shenandoah allocation failure) with its thread.
    #[arg(long)]
    pub stalls: bool,
    /// Read FILE only, not its rotated siblings.
    #[arg(long)]
    pub no_rotated: bool,
    /// When the log holds several JVM runs (its uptime goes back), analyse run N (1 = the first); default the last.
    #[arg(long, value_name = "N")]
    pub run: Option<usize>,
}

/// The JSON document: the log's events (inside the window) and the summary.
#[derive(Serialize)]
struct JsonReport<'a> {
    #[serde(flatten)]
    log: &'a GcLog,
    summary: GcLogSummary,
}

/// Run `jload gclog` and return the process exit code.
pub fn run(args: GclogArgs) -> anyhow::Result<i32> {
    let window = window(args.from, args.to)?;
    let path = match (&args.file, args.pid) {
        (Some(file), _) => file.clone(),
        (None, Some(pid)) => log_file_of_process(pid)?,
        (None, None) => return Err(bad_input("give a GC log FILE or --pid PID")),
    };
    let log = parse_run(&path, !args.no_rotated, args.run)?;
    if let Some(run) = args.run
        && (run == 0 || run > log.runs.len().max(1))
    {
        let runs = log.runs.len().max(1);
        return Err(bad_input(format!("--run {run}: {} holds {runs} JVM run(s); give 1 to {runs}", path.display())));
    }
    let summary = log.summary(window);
    let shown = events_in_window(log, window);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&JsonReport { log: &shown, summary })?);
    } else {
        print_report(&shown, &summary, Lists { pauses: args.pauses, stalls: args.stalls });
    }
    Ok(exit::OK)
}

/// `--from` / `--to` as a window; one end alone leaves the other open.
fn window(from: Option<f64>, to: Option<f64>) -> anyhow::Result<Option<(f64, f64)>> {
    for (flag, value) in [("--from", from), ("--to", to)] {
        if value.is_some_and(|seconds| !seconds.is_finite() || seconds < 0.0) {
            return Err(bad_input(format!("{flag} must be a JVM uptime in seconds, 0 or more")));
        }
    }
    match (from, to) {
        (None, None) => Ok(None),
        (Some(from), Some(to)) if from > to => {
            Err(bad_input(format!("--from {from} is after --to {to}: give the earlier uptime to --from")))
        }
        (from, to) => Ok(Some((from.unwrap_or(0.0), to.unwrap_or(f64::MAX)))),
    }
}

/// The log with only the events inside the window (kept in place: a big log is not copied).
fn events_in_window(mut shown: GcLog, window: Option<(f64, f64)>) -> GcLog {
    shown.pauses.retain(|pause| in_window(pause.start_s, window));
    shown.concurrent.retain(|cycle| in_window(cycle.start_s, window));
    shown.safepoints.retain(|safepoint| in_window(safepoint.start_s, window));
    shown.stalls.retain(|stall| in_window(stall.start_s, window));
    shown
}

/// The GC log file named on the command line of the running process `pid`.
fn log_file_of_process(pid: u32) -> anyhow::Result<PathBuf> {
    let cmdline = fs::read(format!("/proc/{pid}/cmdline"))
        .map_err(|err| bad_input(format!("cannot read the command line of pid {pid}: {err}; is it running?")))?;
    let args: Vec<String> = cmdline
        .split(|&byte| byte == 0)
        .filter(|arg| !arg.is_empty())
        .map(|arg| String::from_utf8_lossy(arg).into_owned())
        .collect();
    log_file_from_args(&args, pid).ok_or_else(|| {
        bad_input(format!(
            "pid {pid} writes no GC log file: start the JVM with -Xlog:gc*,safepoint:file=gc.log:time,uptime,level,tags"
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_from_the_flags() {
        assert_eq!(window(None, None).unwrap(), None);
        assert_eq!(window(Some(1.5), Some(3.0)).unwrap(), Some((1.5, 3.0)));
        assert_eq!(window(Some(2.0), None).unwrap(), Some((2.0, f64::MAX)));
        assert_eq!(window(None, Some(2.0)).unwrap(), Some((0.0, 2.0)));
        assert!(window(Some(3.0), Some(1.0)).unwrap_err().to_string().contains("--from 3 is after --to 1"));
        assert!(window(Some(-1.0), None).is_err());
    }
}
