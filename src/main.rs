//! jload's command line: clap definitions, dispatch to the modules, and exit codes. Nothing else lives here.

mod error;
mod jvm;
mod load;

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
    /// Load-test one HTTP endpoint (wrk / ab style), with HdrHistogram latency and thresholds.
    Bench(load::cli::BenchArgs),
    /// Analyse a JDK 9+ GC log (-Xlog:gc…): pauses by kind, percentiles, safepoints, throughput, allocation rate.
    Gclog(jvm::gclog::cli::GclogArgs),
}

fn main() {
    let cli = Cli::parse();
    let outcome = match cli.command {
        Command::Bench(args) => load::cli::run(args),
        Command::Gclog(args) => jvm::gclog::cli::run(args),
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
