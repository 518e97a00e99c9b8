//! `jload bench`: flags (wrk / ab style), turning them into a load spec, running it, printing and saving the result.

use std::path::PathBuf;

use clap::Args;

#[derive(Args, Debug, Clone)]
#[command(after_help = "Examples:\n  jload bench -c 50 -d 30s 'http://127.0.0.1:8088/random_get?keyRange=100000'\n  jload bench -R 2000 -d 1m --threshold 'p99<50ms' 'http://127.0.0.1:8088/get?key={rand:1..9999999}'\n  jload bench --mix mixes/kv.toml -d 20s --json out.json")]
pub struct BenchArgs {
    /// Target URL (http:// only). May contain {rand:LO..HI} and {seq} placeholders. Optional with --mix.
    pub url: Option<String>,
    /// Concurrent connections (like wrk -c / ab -c).
    #[arg(short = 'c', long, default_value_t = 50)]
    pub connections: usize,
    /// Worker threads, each with its own event loop [default: number of cores].
    #[arg(short = 't', long)]
    pub threads: Option<usize>,
    /// Total requests to send, then stop (like ab -n).
    #[arg(short = 'n', long)]
    pub requests: Option<u64>,
    /// How long to run: 10s, 2m, 1h, 500ms (like wrk -d). Without -n or -d: 10s.
    #[arg(short = 'd', long)]
    pub duration: Option<String>,
    /// Open model: requests per second in total, on an even schedule; latency is corrected for coordinated omission.
    #[arg(short = 'R', long)]
    pub rate: Option<f64>,
    /// Per-request timeout (like ab -s): the connection is closed, the request counted as a timeout.
    #[arg(long, default_value = "5s")]
    pub timeout: String,
    /// HTTP method.
    #[arg(short = 'm', long, default_value = "GET")]
    pub method: String,
    /// Extra request header "Name: value" (repeatable). May contain placeholders.
    #[arg(short = 'H', long = "header")]
    pub headers: Vec<String>,
    /// Request body. May contain placeholders.
    #[arg(long, conflicts_with_all = ["body_file"])]
    pub body: Option<String>,
    /// Request body read from a file (sent as is, no placeholders).
    #[arg(long)]
    pub body_file: Option<PathBuf>,
    /// A TOML file of weighted requests ([[request]] name, weight, method, url, headers, body).
    #[arg(long, conflicts_with_all = ["body", "body_file"])]
    pub mix: Option<PathBuf>,
    /// Write the full result as JSON to this file (schema: docs/bench-json.md).
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Write an HdrHistogram interval log (one interval per second, values in microseconds).
    #[arg(long)]
    pub hlog: Option<PathBuf>,
    /// Pass/fail rule such as p99<50ms, p999<=200ms, errors<0.1%, rps>10000 (repeatable); exit 99 if one fails.
    #[arg(long = "threshold")]
    pub thresholds: Vec<String>,
    /// No progress line and only the summary.
    #[arg(short = 'q', long)]
    pub quiet: bool,
}

/// Run `jload bench` and return the process exit code.
pub fn run(_args: BenchArgs) -> anyhow::Result<i32> {
    anyhow::bail!("jload bench is being built")
}
