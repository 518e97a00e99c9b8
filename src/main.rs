//! jload's command line: clap definitions, dispatch to the modules, and exit codes. Nothing else lives here.

use jload::{bench, error, jvm, merge_cli, remote, report, run};

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{Parser, Subcommand};
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
    let cli = Cli::try_parse().unwrap_or_else(|err| match one_line_usage_error(&err) {
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
        Command::Report(args) => report::cli::run_report(args),
        Command::Compare(args) => report::cli::run_compare(args),
        Command::Agent(args) => remote::cli::run(args),
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

/// jload's own one-line message, instead of clap's several lines, for a bad value given to a flag: a negative number
/// (every count, rate, duration and size jload takes is positive; clap would call `-5` an unexpected argument) or a
/// value the flag's type refuses. Other usage errors keep clap's text (suggestions, usage).
fn one_line_usage_error(err: &clap::Error) -> Option<String> {
    let context = |kind| match err.get(kind) {
        Some(ContextValue::String(text)) => Some(text.as_str()),
        _ => None,
    };
    let flag_of = |arg: &str| arg.split(' ').next().unwrap_or(arg).to_string();
    match err.kind() {
        ErrorKind::UnknownArgument => {
            let unexpected = context(ContextKind::InvalidArg)?;
            if !looks_negative(unexpected) {
                return None;
            }
            // Clap reports `-1` of `-1s`: name the whole word the user typed, and the flag before it.
            let words: Vec<String> = std::env::args().collect();
            let at = words.iter().position(|word| word.starts_with(unexpected))?;
            let value = &words[at];
            let flag = words[..at].last().filter(|word| word.starts_with('-')).map_or("", String::as_str);
            Some(error::negative_value(flag, value))
        }
        ErrorKind::ValueValidation | ErrorKind::InvalidValue => {
            let flag = flag_of(context(ContextKind::InvalidArg)?);
            let value = context(ContextKind::InvalidValue).unwrap_or("");
            if looks_negative(value) {
                return Some(error::negative_value(&flag, value));
            }
            let reason = std::error::Error::source(err).map(|source| format!(": {source}")).unwrap_or_default();
            let valid = match err.get(ContextKind::ValidValue) {
                Some(ContextValue::Strings(values)) => format!(" (one of: {})", values.join(", ")),
                _ => String::new(),
            };
            Some(format!("invalid value '{value}' for {flag}{reason}{valid}"))
        }
        _ => None,
    }
}

/// `-5`, `-0.5`, `-1s`, `-.5`: a minus sign before a number (no jload flag starts with a digit).
fn looks_negative(word: &str) -> bool {
    word.strip_prefix('-')
        .and_then(|rest| rest.chars().next())
        .is_some_and(|first| first.is_ascii_digit() || first == '.')
}

#[cfg(test)]
mod tests {
    use super::looks_negative;

    #[test]
    fn a_minus_before_a_number_is_a_negative_value_and_a_flag_is_not() {
        for word in ["-5", "-0.5", "-.5", "-1s", "-500ms", "-5%"] {
            assert!(looks_negative(word), "{word}");
        }
        for word in ["-c", "--rate", "-", "5", "-R5x", ""] {
            assert!(!looks_negative(word), "{word}");
        }
    }
}
