//! `jload gcstat` (jstat -gcutil / -gc without a JDK tool) and `jload jps`: flags, the sampling loop and output.

use std::io::{self, Write};
use std::time::{Duration, Instant};

use anyhow::Result;
use clap::{ArgAction, Args};

use super::discovery::{self, JvmInfo};
use super::perfdata::gcutil::{self, Column, Columns, GC, GCUTIL};
use super::perfdata::sampler::{JvmSample, JvmSampler};
use super::resolve::resolve;
use crate::error::{bad_input, exit};
use crate::text_table;

#[derive(Args, Debug, Clone)]
#[command(
    disable_help_flag = true,
    after_help = "Prints exactly what `jstat -gcutil PID [INTERVAL [COUNT]]` prints (or jstat -gc with --gc), read \
                  from the JVM's PerfData file without starting a JDK tool.\n\nExamples:\n  jload gcstat 12345\n  \
                  jload gcstat -t port:8088 1000\n  jload gcstat KvService 1000 60 --proc\n  jload gcstat 12345 250 --json"
)]
pub struct GcstatArgs {
    /// The JVM: a pid, port:N (the JVM listening on TCP port N), or part of its main class / jar name (jload jps).
    pub target: String,
    /// Time between samples in milliseconds ("250ms" and "2s" work too). Without it: one sample.
    pub interval: Option<String>,
    /// Number of samples. Without it (and with an interval): until the JVM exits or Ctrl-C.
    pub count: Option<u64>,
    /// jstat -gc's columns: capacities and usages in KB instead of percentages.
    #[arg(long)]
    pub gc: bool,
    /// Add /proc columns: RSS in MB, CPU % of one core since the previous sample (first line: since start), threads.
    #[arg(long = "proc")]
    pub proc_columns: bool,
    /// One JSON object per line per sample: raw counters, derived percentages and seconds, /proc figures.
    #[arg(long)]
    pub json: bool,
    /// Repeat the column header every N samples (like jstat -h N).
    #[arg(short = 'h', value_name = "N")]
    pub header_every: Option<u64>,
    /// A first column `Timestamp`: the JVM's uptime in seconds at each sample (like jstat -t).
    #[arg(short = 't')]
    pub timestamp: bool,
    /// Print help.
    #[arg(long, action = ArgAction::Help)]
    help: Option<bool>,
}

#[derive(Args, Debug, Clone)]
pub struct JpsArgs {
    /// Also show the JVM options (java.rt.vmArgs), like jps -v.
    #[arg(short = 'v', long)]
    pub jvm_args: bool,
    /// One JSON object per line per JVM.
    #[arg(long)]
    pub json: bool,
}

/// The /proc columns of `--proc`.
static PROC_COLUMNS: [Column<JvmSample>; 3] = [
    Column { header: "RSS_MB", width: 9, decimals: 1, value: |s| s.rss_bytes as f64 / (1024.0 * 1024.0) },
    Column { header: "CPU%", width: 6, decimals: 1, value: |s| s.cpu_pct.unwrap_or(f64::NAN) },
    Column { header: "THR", width: 5, decimals: 0, value: |s| s.threads as f64 },
];

/// How one sample is printed.
struct Output {
    gc_columns: &'static Columns<gcutil::GcCounters>,
    proc_columns: bool,
    json: bool,
    header_every: Option<u64>,
    timestamp: bool,
}

/// jstat -t's first column: `Timestamp` left-aligned over a right-aligned uptime in seconds ("0.0"), 15 wide.
const TIMESTAMP_HEADER: &str = "Timestamp";
const TIMESTAMP_WIDTH: usize = 15;

impl Output {
    fn header(&self) -> String {
        let mut line = gcutil::header_line(self.gc_columns);
        if self.timestamp {
            line = format!("{TIMESTAMP_HEADER:<TIMESTAMP_WIDTH$} {line}");
        }
        if self.proc_columns {
            line = format!("{line} {}", gcutil::header_line(&[&PROC_COLUMNS]));
        }
        line
    }

    fn row(&self, sample: &JvmSample) -> Result<String> {
        if self.json {
            return Ok(serde_json::to_string(sample)?);
        }
        let mut line = gcutil::row_line(self.gc_columns, &sample.gc);
        if self.timestamp {
            line = format!("{:>TIMESTAMP_WIDTH$} {line}", gcutil::format_number(sample.uptime_s, 1));
        }
        if self.proc_columns {
            line = format!("{line} {}", gcutil::row_line(&[&PROC_COLUMNS], sample));
        }
        Ok(line)
    }

    /// jstat's JStatLogger: the header before the first row, then again every N rows with -h N.
    fn header_due(&self, rows_printed: u64) -> bool {
        !self.json && (rows_printed == 0 || self.header_every.is_some_and(|n| rows_printed.is_multiple_of(n)))
    }
}

/// Runs `jload gcstat` and returns the exit code.
pub fn run_gcstat(args: GcstatArgs) -> Result<i32> {
    let interval = args.interval.as_deref().map(parse_interval).transpose()?;
    let count = if interval.is_none() { Some(1) } else { args.count };
    if count == Some(0) {
        return Err(bad_input("COUNT must be at least 1"));
    }
    if args.header_every == Some(0) {
        return Err(bad_input("-h N needs N of at least 1"));
    }
    let output = Output {
        gc_columns: if args.gc { GC } else { GCUTIL },
        proc_columns: args.proc_columns,
        json: args.json,
        header_every: args.header_every,
        timestamp: args.timestamp,
    };
    let pid = resolve(&args.target)?;
    let mut sampler = JvmSampler::open(pid)?;
    sample_loop(&mut sampler, &output, interval.unwrap_or_default(), count)
}

fn sample_loop(sampler: &mut JvmSampler, output: &Output, interval: Duration, count: Option<u64>) -> Result<i32> {
    let mut stdout = io::stdout().lock();
    let started = Instant::now();
    let mut rows = 0u64;
    while count.is_none_or(|count| rows < count) {
        if rows > 0 {
            // A fixed schedule (start + n × interval), so the printing time does not make the samples drift.
            let due = started + interval.saturating_mul(u32::try_from(rows).unwrap_or(u32::MAX));
            std::thread::sleep(due.saturating_duration_since(Instant::now()));
        }
        let Some(sample) = sampler.sample()? else {
            eprintln!("jload: JVM {} exited; stopped after {rows} sample(s)", sampler.pid());
            return Ok(exit::OK);
        };
        if output.header_due(rows) {
            writeln!(stdout, "{}", output.header())?;
        }
        writeln!(stdout, "{}", output.row(&sample)?)?;
        rows += 1;
    }
    Ok(exit::OK)
}

/// jstat's interval syntax: `N` or `Nms` (milliseconds) or `Ns` (seconds).
fn parse_interval(text: &str) -> Result<Duration> {
    let (digits, unit_ms) = if let Some(ms) = text.strip_suffix("ms") {
        (ms, 1)
    } else if let Some(s) = text.strip_suffix('s') {
        (s, 1000)
    } else {
        (text, 1)
    };
    let value: u64 = digits
        .parse()
        .map_err(|_| bad_input(format!("invalid interval '{text}': give milliseconds, e.g. 1000, 250ms or 2s")))?;
    Ok(Duration::from_millis(value.saturating_mul(unit_ms)))
}

/// Runs `jload jps` and returns the exit code.
pub fn run_jps(args: JpsArgs) -> Result<i32> {
    let jvms = discovery::list_jvms();
    let mut stdout = io::stdout().lock();
    if args.json {
        for jvm in &jvms {
            writeln!(stdout, "{}", serde_json::to_string(jvm)?)?;
        }
    } else {
        print_jps_table(&mut stdout, &jvms, args.jvm_args)?;
    }
    Ok(exit::OK)
}

fn print_jps_table(out: &mut impl Write, jvms: &[JvmInfo], with_jvm_args: bool) -> Result<()> {
    let mut rows = vec![["PID", "MAIN", "VERSION", "ARGS", "JVM_ARGS"].map(str::to_owned).to_vec()];
    rows.extend(jvms.iter().map(|jvm| {
        vec![jvm.pid.to_string(), jvm.main.clone(), jvm.version.clone(), jvm.args.clone(), jvm.jvm_args.clone()]
    }));
    let text = text_table::Column::left(0).after(2);
    let mut columns = vec![text_table::Column::right(0), text, text, text];
    if with_jvm_args {
        columns.push(text);
    }
    for line in text_table::render(&columns, &rows) {
        writeln!(out, "{line}")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_like_jstat() {
        assert_eq!(parse_interval("1000").unwrap(), Duration::from_millis(1000));
        assert_eq!(parse_interval("250ms").unwrap(), Duration::from_millis(250));
        assert_eq!(parse_interval("2s").unwrap(), Duration::from_secs(2));
        assert_eq!(parse_interval("0").unwrap(), Duration::ZERO);
        for bad in ["", "1m", "-5", "fast"] {
            assert!(parse_interval(bad).unwrap_err().downcast_ref::<crate::error::BadInput>().is_some(), "{bad}");
        }
    }

    #[test]
    fn header_repeats_every_n_rows_like_jstat_h() {
        let output =
            Output { gc_columns: GCUTIL, proc_columns: false, json: false, header_every: Some(3), timestamp: false };
        let due: Vec<u64> = (0..7).filter(|&r| output.header_due(r)).collect();
        assert_eq!(due, vec![0, 3, 6]);
        let once = Output { header_every: None, ..output };
        assert_eq!((0..7).filter(|&r| once.header_due(r)).count(), 1);
    }
}
