//! `jload bench`: flags (wrk / ab style), turning them into a load spec, running it (one run, or a rate ladder or
//! capacity search, see `ladder_flags`) while optionally watching the target JVM (`--jvm`), printing and saving the
//! result.

mod ladder_flags;
mod protocol_flags;

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, SystemTime};

use clap::Args;
use serde::Serialize;
use signal_hook::consts::SIGINT;

use crate::atomic_file::write_json;
use crate::attribution::gather::{self, JvmStops, Missing};
use crate::attribution::{self, GcAttribution};
use crate::cpuset::CpuSet;
use crate::error::{bad_input, exit};
use crate::jvm;
use crate::jvm::clock::{ClockInterval, ClockSource};
use crate::jvm::perfdata::sampler::JvmSample;
use crate::jvm::watch::JvmWatch;
use crate::jvm::watch::window::{JvmWindow, WindowPauses};
use crate::load::connections::start_at;
use crate::load::engine::RunOptions;
use crate::load::figures::threshold::Threshold;
use crate::load::generator::{Generator, LocalEngine};
use crate::load::input::request::parse_url;
use crate::load::input::settings::{
    BODY, CAPACITY, CONNECTIONS, DURATION, HEADERS, MAX_RATE, METHOD, MIN_REQUESTS, MIX, OK_STATUS, PRECISION, RATE,
    RATES, REQUESTS, START_RATE, STEADY_MAX, STEADY_TOLERANCE, STEP, STEP_WARMUP, Setting, THREADS, TIMEOUT, URL,
};
use crate::load::input::spec::{DEFAULT_CONNECTIONS, LoadInput, LoadSpec, threads_or_pinned};
use crate::load::input::status::OkStatus;
use crate::load::printout;
use crate::load::record::outcomes::Side;
use crate::load::record::result::BenchResult;
use crate::load::search::ladder::{self};
use crate::load::search::ladder_printout::{self, StepProgress};
use crate::remote::load::LoadHosts;
use crate::units::parse_duration;

/// How long a run lasts when neither -n nor -d is given (like wrk).
const DEFAULT_DURATION: Duration = Duration::from_secs(10);
/// The heading of the rate ladder's and capacity search's flags in `--help`.
const LADDER_HEADING: &str = "Rate ladder and capacity search";
/// The method of a URL's requests when -m is not given.
const DEFAULT_METHOD: &str = "GET";

#[derive(Args, Debug, Clone)]
#[command(
    after_help = "Examples:\n  jload bench -c 50 -d 30s 'http://127.0.0.1:8088/random_get?keyRange=100000'\n  jload bench -R 2000 -d 1m --threshold 'p99<50ms' 'http://127.0.0.1:8088/get?key={rand:1..9999999}'\n  jload bench --mix mixes/kv.toml -d 20s --json out.json\n  jload bench --capacity 'p99<=10ms' 'http://127.0.0.1:8088/random_get?keyRange=100000'\n  jload bench --rates 1000..32000:6 --step 10s 'http://127.0.0.1:8088/random_get?keyRange=100000'"
)]
pub struct BenchArgs {
    #[arg(help = URL.help)]
    pub url: Option<String>,
    #[arg(short = CONNECTIONS.short, long = CONNECTIONS.long, help = CONNECTIONS.help)]
    #[arg(default_value_t = DEFAULT_CONNECTIONS)]
    pub connections: usize,
    #[arg(short = THREADS.short, long = THREADS.long, help = THREADS.help)]
    pub threads: Option<usize>,
    /// Pin the worker threads to these CPUs, written like taskset's list ("1", "2-3,6"); the threads default to
    /// one per CPU of the list. Keeps the generator off the CPUs of a JVM on the same machine.
    #[arg(long, value_name = "CPUS")]
    pub cpus: Option<String>,
    #[arg(short = REQUESTS.short, long = REQUESTS.long, help = REQUESTS.help)]
    pub requests: Option<u64>,
    #[arg(short = DURATION.short, long = DURATION.long, help = DURATION.help)]
    pub duration: Option<String>,
    #[arg(short = RATE.short, long = RATE.long, help = RATE.help)]
    pub rate: Option<f64>,
    #[arg(long = TIMEOUT.long, help = TIMEOUT.help)]
    pub timeout: Option<String>,
    #[arg(short = METHOD.short, long = METHOD.long, help = METHOD.help, default_value = DEFAULT_METHOD)]
    pub method: String,
    #[arg(short = HEADERS.short, long = HEADERS.long, help = HEADERS.help)]
    pub headers: Vec<String>,
    #[arg(long = BODY.long, help = BODY.help, conflicts_with_all = ["body_file"])]
    pub body: Option<String>,
    /// Request body read from a file (sent as is, no placeholders).
    #[arg(long)]
    pub body_file: Option<PathBuf>,
    #[arg(long = MIX.long, help = MIX.help, conflicts_with_all = ["body", "body_file"])]
    pub mix: Option<PathBuf>,
    #[arg(long = OK_STATUS.long, help = OK_STATUS.help, value_name = "CODES")]
    pub ok_status: Option<String>,
    /// Write the full result as JSON to this file (schema: docs/bench.md).
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Write an HdrHistogram interval log (one interval per second, values in microseconds).
    #[arg(long)]
    pub hlog: Option<PathBuf>,
    /// Connect every connection, then start the run at exactly this wall-clock time: unix seconds (1767225600.5) or
    /// RFC 3339 (2026-01-01T00:00:00Z). Several generators given one time start together; `jload merge` adds them up.
    #[arg(long, value_name = "TIME", value_parser = start_at::parse)]
    pub start_at: Option<SystemTime>,
    /// Run only this generator's share of the load given, when COUNT generators share it (INDEX from 0): the rate
    /// split evenly (the schedules interleaved), connections, threads and -n as evenly as possible, the duration
    /// unchanged (see `jload merge`).
    #[arg(long, value_name = "INDEX/COUNT", value_parser = parse_share)]
    pub share: Option<(usize, usize)>,
    /// Generate the load from these hosts over ssh (user@host or ~/.ssh/config aliases, comma-separated): each runs
    /// its share from the same instant and their histograms are merged exactly (docs/distributed.md).
    #[arg(long, value_name = "HOST,…", value_delimiter = ',', conflicts_with = "share")]
    pub hosts: Vec<String>,
    /// Pass/fail rule such as p99<50ms, p999<=200ms, errors<0.1%, rps>10000 (repeatable); exit 99 if one fails.
    #[arg(long = "threshold")]
    pub thresholds: Vec<String>,
    /// No progress line and only the summary.
    #[arg(short = 'q', long)]
    pub quiet: bool,
    /// Accepted for wrk's `--latency` and does nothing: jload always prints the latency percentiles.
    #[arg(long)]
    pub latency: bool,
    /// Watch this JVM during the run: a pid, port:N, a main-class fragment, or `auto` (the JVM listening on the
    /// URL's port). Adds GC counts and time, old-gen, RSS and CPU over the run, and GC-log pauses when it logs GC.
    #[arg(long, value_name = "TARGET")]
    pub jvm: Option<String>,
    /// How often to sample the JVM with --jvm.
    #[arg(long, default_value = "1s")]
    pub jvm_interval: String,
    #[arg(long = RATES.long, help = RATES.help, value_name = "RATES", help_heading = LADDER_HEADING)]
    pub rates: Option<String>,
    #[arg(long = CAPACITY.long, help = CAPACITY.help, value_name = "SLO", help_heading = LADDER_HEADING)]
    pub capacity: Vec<String>,
    #[arg(long = PRECISION.long, help = PRECISION.help, help_heading = LADDER_HEADING)]
    pub precision: Option<String>,
    #[arg(long = STEP_WARMUP.long, help = STEP_WARMUP.help, value_name = "DURATION", help_heading = LADDER_HEADING)]
    pub step_warmup: Option<String>,
    #[arg(long = STEP.long, help = STEP.help, value_name = "DURATION", help_heading = LADDER_HEADING)]
    pub step: Option<String>,
    #[arg(long = MIN_REQUESTS.long, help = MIN_REQUESTS.help, value_name = "N", help_heading = LADDER_HEADING)]
    pub min_requests: Option<u64>,
    #[arg(long = MAX_RATE.long, help = MAX_RATE.help, value_name = "RATE", help_heading = LADDER_HEADING)]
    pub max_rate: Option<f64>,
    #[arg(long = START_RATE.long, help = START_RATE.help, value_name = "RATE", help_heading = LADDER_HEADING)]
    pub start_rate: Option<f64>,
    #[arg(long = STEADY_MAX.long, help = STEADY_MAX.help, value_name = "DURATION", help_heading = LADDER_HEADING)]
    pub steady_max: Option<String>,
    #[arg(long = STEADY_TOLERANCE.long, help = STEADY_TOLERANCE.help, help_heading = LADDER_HEADING)]
    #[arg(value_name = "SHARE")]
    pub steady_tolerance: Option<String>,
    #[command(flatten)]
    pub protocol: protocol_flags::ProtocolFlags,
}

/// What `--json` writes: the load result, plus the JVM's figures with `--jvm`.
#[derive(Serialize)]
struct BenchOutput<'a> {
    #[serde(flatten)]
    bench: &'a BenchResult,
    #[serde(skip_serializing_if = "Option::is_none")]
    jvm: Option<&'a JvmWindow>,
    /// Every JVM sample taken during the run (per --jvm-interval).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    jvm_series: Vec<JvmSample>,
    /// The run's tail laid over the JVM's GC pauses, stalls and safepoints.
    #[serde(skip_serializing_if = "Option::is_none")]
    gc_attribution: Option<&'a GcAttribution>,
}

/// The JVM under load, watched for the length of the run.
struct WatchedJvm {
    watch: JvmWatch,
    start: JvmSample,
    gc_log: Option<PathBuf>,
    /// JVM uptime 0 on the wall clock, from PerfData, measured before the run.
    clock: Option<(ClockSource, ClockInterval)>,
}

/// What watching the JVM gave: its window, its samples, and the attribution of the run's tail (or why there is none).
#[derive(Default)]
struct Watched {
    window: Option<JvmWindow>,
    series: Vec<JvmSample>,
    attribution: Option<Result<GcAttribution, Missing>>,
}

impl WatchedJvm {
    fn start(target: &str, url: &str, interval: &str) -> anyhow::Result<WatchedJvm> {
        let interval = parse_duration("--jvm-interval", interval)?;
        let pid = if target == "auto" {
            let (endpoint, _) = parse_url(url)?;
            jvm::resolve::resolve_port(endpoint.addr.port())?
        } else {
            jvm::resolve::resolve(target)?
        };
        let watch = JvmWatch::start(pid, interval, None, Duration::from_secs(2))?;
        let start = watch.mark().ok_or_else(|| anyhow::anyhow!("JVM {pid} exited before the run started"))?;
        let arguments = jvm::procfs::cmdline(pid).unwrap_or_default();
        let gc_log = jvm::gclog::log_file_from_args(&arguments, pid);
        Ok(WatchedJvm { watch, start, gc_log, clock: jvm::clock::from_perfdata(pid) })
    }

    /// The window from the start to now, with the GC-log pauses inside it, and the attribution of `result`'s tail.
    fn finish(self, result: &BenchResult) -> Watched {
        let Some(end) = self.watch.mark() else { return Watched::default() };
        let mut window = self.watch.window(&self.start, &end);
        let log = self.gc_log.as_deref().and_then(|path| jvm::gclog::parse_path(path).ok());
        let jvm_stops = log.as_ref().map(|log| JvmStops::of(log, self.clock));
        if let Some(log) = &log {
            // The GC log's figures over the load's own span, on the clock the attribution uses: one count, longest
            // pause and GC time share in both blocks (the jstat counters stay those of the samples around it). A
            // ladder's block keeps every step; its attribution is its headline step's.
            let span = jvm_stops.as_ref().and_then(|stops| stops.uptime_span(result));
            if let Some((start_s, end_s)) = span.filter(|_| result.steps.is_empty()) {
                (window.uptime_start_s, window.uptime_end_s) = (start_s, end_s);
            }
            window.pauses = Some(WindowPauses::from_log(log, window.uptime_start_s, window.uptime_end_s));
        }
        let attribution = Some(gather::of_run(result, jvm_stops.as_ref()));
        Watched { window: Some(window), series: self.watch.samples_between(&self.start, &end), attribution }
    }
}

/// Run `jload bench` and return the process exit code.
pub fn run(args: BenchArgs) -> anyhow::Result<i32> {
    let thresholds = args.thresholds.iter().map(|text| Threshold::parse(text)).collect::<anyhow::Result<Vec<_>>>()?;
    let ladder = ladder_flags::ladder_setup(&args)?;
    let cpus = cpu_flag(&args)?;
    let spec = load_spec(&args, cpus.as_ref())?;
    let stop = Arc::new(AtomicBool::new(false));
    // A first Ctrl-C ends the run and prints what was measured; a second one exits at once.
    signal_hook::flag::register_conditional_shutdown(SIGINT, 130, stop.clone())?;
    signal_hook::flag::register(SIGINT, stop.clone())?;
    let options = RunOptions {
        progress: !args.quiet && std::io::stderr().is_terminal(),
        hlog: args.hlog.clone(),
        stop,
        start_at: args.start_at,
        cpus,
    };
    let watched = match &args.jvm {
        Some(target) => Some(WatchedJvm::start(target, &spec.requests[0].url, &args.jvm_interval)?),
        None => None,
    };
    let load_hosts = load_hosts(&args.hosts, &spec)?;
    let generator: &dyn Generator = match &load_hosts {
        Some(hosts) => hosts,
        None => &LocalEngine,
    };
    let mut ladder_ended = None;
    let mut result = match &ladder {
        None => generator.run(&spec, &options)?,
        Some(setup) => {
            let mut progress = StepProgress::new(setup.timing, args.quiet);
            let result =
                ladder::run_ladder(&spec, &setup.plan, &setup.timing, &[], &options, &mut progress, generator)?;
            ladder_ended = progress.ended;
            result
        }
    };
    let watched = watched.map(|watched| watched.finish(&result)).unwrap_or_default();
    let gc_attribution = watched.attribution.as_ref().and_then(|attribution| attribution.as_ref().ok());
    result.thresholds = thresholds.iter().map(|threshold| threshold.judge(&result)).collect();
    // The file first: a closed stdout ends jload at the first print (see main.rs), and must not lose the result.
    if let Some(path) = &args.json {
        let output =
            BenchOutput { bench: &result, jvm: watched.window.as_ref(), jvm_series: watched.series, gc_attribution };
        write_json(path, &output)?;
    }
    print!("{}", printout::render(&result));
    if ladder.is_some() {
        print!("{}", ladder_printout::render(&result, ladder_ended.as_deref()));
    }
    if let Some(window) = &watched.window {
        print!("{}", window.render());
    }
    match &watched.attribution {
        Some(Ok(attribution)) => print!("{}", attribution::render(attribution)),
        Some(Err(missing)) => println!("{:>26}: {}", "Is it the GC?", missing.describe()),
        None => {}
    }
    Ok(exit_code(&result))
}

/// 1 when nothing succeeded, 3 when a capacity search ran out of generator, 99 when a threshold failed or a search
/// found no rate meeting its SLO, 0 otherwise.
pub fn exit_code(result: &BenchResult) -> i32 {
    let capacity = result.capacity.as_ref();
    if result.successes() == 0 {
        exit::FAILED
    } else if capacity.is_some_and(|found| found.limited_by == Side::Generator) {
        exit::GENERATOR_LIMITED
    } else if result.thresholds.iter().any(|outcome| !outcome.passed) || capacity.is_some_and(|c| c.rps.is_none()) {
        exit::THRESHOLDS
    } else {
        exit::OK
    }
}

/// `--cpus`, read and checked against the CPUs this process may use.
fn cpu_flag(args: &BenchArgs) -> anyhow::Result<Option<CpuSet>> {
    let Some(text) = &args.cpus else { return Ok(None) };
    let cpus = CpuSet::parse(text).map_err(|err| bad_input(format!("--cpus: {err}")))?;
    cpus.check_available().map_err(|err| bad_input(format!("--cpus {cpus}: {err}")))?;
    Ok(Some(cpus))
}

/// Turn the flags into a checked load spec (see [`LoadInput::into_spec`]); every problem names its flag. Without
/// -t, the threads are one per CPU of `cpus` when the load is pinned.
pub fn load_spec(args: &BenchArgs, cpus: Option<&CpuSet>) -> anyhow::Result<LoadSpec> {
    let raw_body = match &args.body_file {
        Some(path) => Some(
            std::fs::read(path)
                .map_err(|err| bad_input(format!("cannot read --body-file {}: {err}", path.display())))?,
        ),
        None => None,
    };
    let duration = args.duration.as_deref().map(|text| parse_duration(DURATION.flag_name, text)).transpose()?;
    let input = LoadInput {
        url: args.url.clone(),
        mix: args.mix.clone(),
        // -m has a default; only a method other than it is one the user chose.
        method: Some(args.method.clone()).filter(|method| method != DEFAULT_METHOD),
        headers: args.headers.clone(),
        body: args.body.clone(),
        raw_body,
        connections: Some(args.connections),
        threads: threads_or_pinned(args.threads, cpus),
        requests: args.requests,
        duration: if duration.is_none() && args.requests.is_none() { Some(DEFAULT_DURATION) } else { duration },
        rate: args.rate,
        timeout: args.timeout.as_deref().map(|text| parse_duration(TIMEOUT.flag_name, text)).transpose()?,
        ok_status: args.ok_status.as_deref().map(OkStatus::parse).transpose()?,
        protocol: args.protocol.options()?,
    };
    let spec = input.into_spec().map_err(|err| bad_input(err.describe(Setting::flag_name)))?;
    match args.share {
        Some((index, count)) => spec.share(count, index).map_err(|err| bad_input(err.describe(Setting::flag_name))),
        None => Ok(spec),
    }
}

/// `--hosts`: the load hosts, logged in to (jload copied there where missing); None without the flag. Their URL must
/// reach the target from there: a loopback URL would load each host itself.
fn load_hosts(hosts: &[String], spec: &LoadSpec) -> anyhow::Result<Option<LoadHosts>> {
    if hosts.is_empty() {
        return Ok(None);
    }
    if let Some(request) = spec.requests.iter().find(|request| crate::plan::names_loopback(&request.url)) {
        return Err(bad_input(format!(
            "--hosts: {} names this machine's loopback, which on each load host is that host itself; give the \
             target's address as the load hosts reach it",
            request.url
        )));
    }
    spec.share(hosts.len(), 0).map_err(|err| bad_input(format!("--hosts: {}", err.describe(Setting::flag_name))))?;
    LoadHosts::connect(hosts).map(Some).map_err(|err| bad_input(format!("--hosts: {err:#}")))
}

/// `--share INDEX/COUNT`: generator INDEX (from 0) of COUNT.
fn parse_share(text: &str) -> Result<(usize, usize), String> {
    let numbers = text.split_once('/').and_then(|(index, count)| Some((index.parse().ok()?, count.parse().ok()?)));
    match numbers {
        Some((index, count)) if index < count => Ok((index, count)),
        _ => Err(format!("give INDEX/COUNT with INDEX from 0 to COUNT-1 (0/3, 1/3, 2/3), not '{text}'")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::record::outcomes::Capacity;

    /// A real phase record of a kv-service run (sweep25 fixture), as a load result.
    fn fixture() -> BenchResult {
        let path = "tests/fixtures/results/sweep25/cells/heap=64m,gc=Shenandoah/rep-1/get.json";
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    fn with_capacity(rps: Option<f64>, limited_by: Side) -> BenchResult {
        let capacity = Capacity { rps, slo: String::new(), limited_by, bounds: [None, None], verdict: String::new() };
        BenchResult { capacity: Some(capacity), ..fixture() }
    }

    #[test]
    fn bench_flags_take_their_names_and_help_from_the_settings_definitions() {
        use crate::load::input::settings::SETTINGS;
        use clap::Args;
        let command = BenchArgs::augment_args(clap::Command::new("bench"));
        for def in &SETTINGS {
            let arg = match def.long {
                Some(long) => command.get_arguments().find(|arg| arg.get_long() == Some(long)),
                None => command.get_positionals().next(),
            };
            let arg = arg.unwrap_or_else(|| panic!("no bench flag for {:?}", def.setting));
            assert_eq!(arg.get_short(), def.short, "{:?}", def.setting);
            assert_eq!(arg.get_help().map(ToString::to_string).as_deref(), Some(def.help), "{:?}", def.setting);
        }
    }

    #[test]
    fn a_search_exits_0_with_a_capacity_3_when_the_generator_ran_out_and_99_when_no_rate_met_the_slo() {
        assert_eq!(exit_code(&with_capacity(Some(497.0), Side::Target)), exit::OK);
        assert_eq!(exit_code(&with_capacity(None, Side::Generator)), exit::GENERATOR_LIMITED);
        assert_eq!(exit_code(&with_capacity(None, Side::Target)), exit::THRESHOLDS);
    }
}
