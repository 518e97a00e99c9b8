//! jload's command line: clap definitions, dispatch to the modules, and exit codes. Nothing else lives here.

use jload::{bench, error, jvm, merge_cli, remote, report, run, usage_error};

use clap::{CommandFactory, Parser, Subcommand};
use std::io::Write as _;

use error::{BadInput, exit};

/// jload: find the JVM heap, collector and settings that make a Java service fastest, and what breaks first.
#[derive(Parser)]
#[command(name = "jload", version, about, long_about = None, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a plan: a matrix of JVM configurations, each started fresh and driven through load phases.
    Run(run::cli::RunArgs),
    /// Load-test one HTTP endpoint (wrk / ab style), with HdrHistogram latency and thresholds.
    Bench(Box<bench::BenchArgs>),
    /// Merge the results of several load generators (`jload bench --json` files) exactly: histograms added.
    Merge(merge_cli::MergeArgs),
    /// Print a JVM's GC counters exactly like `jstat -gcutil` (or -gc), read from its PerfData, no JDK tool spawned.
    Gcstat(jvm::cli::GcstatArgs),
    /// Analyse a JDK 9+ GC log (-Xlog:gc…): pauses by kind, percentiles, safepoints, throughput, allocation rate.
    Gclog(jvm::gclog::cli::GclogArgs),
    /// Read JDK Flight Recorder files (.jfr): `jload jfr summary FILE` prints what the JDK's `jfr summary` prints.
    Jfr(jvm::jfr::cli::JfrArgs),
    /// List local JVMs (pid, main class or jar, JVM version, arguments) from their PerfData files, like jps.
    Jps(jvm::cli::JpsArgs),
    /// List the installed JDKs jload can use (JAVA_HOME, PATH, /usr/lib/jvm, SDKMAN).
    Jdks(run::cli::JdksArgs),
    /// Write report.md, report.html and report.json for a results directory: tables, charts, statistics, advice.
    Report(report::cli::ReportArgs),
    /// Compare two runs (or two cells, DIR:cell-id) per phase: ratios and significance; CI mode exits 99 on regression.
    Compare(report::cli::CompareArgs),
    /// The far side of a remote target or load host, run by jload itself over ssh.
    #[command(hide = true)]
    Agent(remote::cli::AgentArgs),
}

fn main() {
    let cli = Cli::try_parse().unwrap_or_else(|err| match usage_error::one_line(&err, &Cli::command()) {
        Some(message) => {
            eprintln!("jload: {message}");
            std::process::exit(exit::BAD_INPUT);
        }
        None => err.exit(),
    });
    // A sweep is the exception: it owns running targets and unwritten reports, so it outlives its output.
    if !matches!(&cli.command, Command::Run(args) if !args.dry_run) {
        end_quietly_on_closed_stdout();
    }
    let outcome = match cli.command {
        Command::Run(args) => run::cli::run(args),
        Command::Bench(args) => bench::run(*args),
        Command::Merge(args) => merge_cli::run(args),
        Command::Jdks(args) => run::cli::run_jdks(args),
        Command::Gcstat(args) => jvm::cli::run_gcstat(args),
        Command::Jps(args) => jvm::cli::run_jps(args),
        Command::Gclog(args) => jvm::gclog::cli::run(args),
        Command::Jfr(args) => jvm::jfr::cli::run(args),
        Command::Report(args) => report::cli::run_report(args),
        Command::Compare(args) => report::cli::run_compare(args),
        Command::Agent(args) => remote::cli::run(args, run::cell::probes::far_probe),
    };
    let code = match outcome {
        Ok(code) => code,
        Err(err) => {
            let bad_input = err.downcast_ref::<BadInput>().is_some();
            let _ = writeln!(std::io::stderr(), "jload: {err:#}");
            if bad_input { exit::BAD_INPUT } else { exit::FAILED }
        }
    };
    std::process::exit(code);
}

/// `jload … | head -1`: once the reader has gone, jload ends quietly, as any Unix filter does (killed by SIGPIPE, shell
/// status 141), in every command. Rust starts programs with SIGPIPE ignored, which turns each later print into a
/// panic (exit 101); this restores the default. Sockets are not affected: std's TcpStream, under the load engine and
/// the probes, writes with MSG_NOSIGNAL, so a peer's reset stays an error code. Commands write their files before
/// they print, so a closed stdout loses nothing. Not for a sweep (`jload run` without `--dry-run`): it drops what it
/// cannot print and goes on (`run::say!`), so its targets are stopped and its results and reports written.
fn end_quietly_on_closed_stdout() {
    // SAFETY: setting a signal's disposition to its default, before any thread is started.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
}
