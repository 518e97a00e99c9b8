//! jload's command line: clap definitions, dispatch to the modules, and exit codes. Nothing else lives here.

mod atomic_file;
mod bench;
mod error;
mod jvm;
mod load;
mod plan;
mod report;
mod results;
mod run;
mod tomlfile;
mod units;

use clap::{Parser, Subcommand};
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
    /// Print a JVM's GC counters exactly like `jstat -gcutil` (or -gc), read from its PerfData, no JDK tool spawned.
    Gcstat(jvm::cli::GcstatArgs),
    /// Analyse a JDK 9+ GC log (-Xlog:gc…): pauses by kind, percentiles, safepoints, throughput, allocation rate.
    Gclog(jvm::gclog::cli::GclogArgs),
    /// List local JVMs (pid, main class or jar, JVM version, arguments) from their PerfData files, like jps.
    Jps(jvm::cli::JpsArgs),
    /// List the installed JDKs jload can use (JAVA_HOME, PATH, /usr/lib/jvm, SDKMAN).
    Jdks(run::cli::JdksArgs),
    /// Write report.md, report.html and report.json for a results directory: tables, charts, statistics, advice.
    Report(report::cli::ReportArgs),
    /// Compare two runs (or two cells, DIR:cell-id) per phase: ratios and significance; CI mode exits 99 on regression.
    Compare(report::cli::CompareArgs),
}

fn main() {
    let cli = Cli::parse();
    let outcome = match cli.command {
        Command::Run(args) => run::cli::run(args),
        Command::Bench(args) => bench::run(*args),
        Command::Jdks(args) => run::cli::run_jdks(args),
        Command::Gcstat(args) => jvm::cli::run_gcstat(args),
        Command::Jps(args) => jvm::cli::run_jps(args),
        Command::Gclog(args) => jvm::gclog::cli::run(args),
        Command::Report(args) => report::cli::run_report(args),
        Command::Compare(args) => report::cli::run_compare(args),
    };
    let code = match outcome {
        Ok(code) => code,
        Err(err) => {
            let bad_input = err.downcast_ref::<BadInput>().is_some();
            eprintln!("jload: {err:#}");
            if bad_input { exit::BAD_INPUT } else { exit::FAILED }
        }
    };
    std::process::exit(code);
}
