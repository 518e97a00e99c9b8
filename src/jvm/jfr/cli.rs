//! `jload jfr`: its subcommands' flags and printing; `jload jfr summary FILE` prints what the JDK's `jfr summary`
//! prints.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use super::file::JfrFile;
use super::summary::{render, summarize};
use crate::error::exit;

#[derive(Args, Debug, Clone)]
pub struct JfrArgs {
    #[command(subcommand)]
    pub command: JfrCommand,
}

#[derive(Subcommand, Debug, Clone)]
pub enum JfrCommand {
    /// Print the recording's version, chunks, start, duration and each event type's count and bytes, laid out as
    /// the JDK's `jfr summary` lays them out.
    #[command(after_help = "Examples:\n  jload jfr summary recording.jfr")]
    Summary(SummaryArgs),
}

#[derive(Args, Debug, Clone)]
pub struct SummaryArgs {
    /// A JFR recording (.jfr), as written by -XX:StartFlightRecording or jcmd PID JFR.dump.
    pub file: PathBuf,
}

/// Run `jload jfr …` and return the process exit code.
pub fn run(args: JfrArgs) -> anyhow::Result<i32> {
    match args.command {
        JfrCommand::Summary(summary_args) => {
            let mut file = JfrFile::open(&summary_args.file)?;
            print!("{}", render(&summarize(&mut file)?));
            Ok(exit::OK)
        }
    }
}
