//! The one definition of each load setting that both front ends take (ripgrep's `Flag`, as far as clap's derive
//! allows): its key in a plan's `[[phase]]` (also the neutral name of [`Setting::key`]), its `jload bench` flag —
//! long and short name and the help line of `jload bench --help` —, and the name `bench`'s errors give it
//! ([`Setting::flag_name`]). `bench`'s clap attributes read their names and help from here; unit tests hold the
//! flags `clap` builds, the plan schema's keys and the tables of docs/bench.md and docs/plan.md to it.

/// A setting of a load run, for naming it (each front end has its own name for it: [`SettingDef`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Setting {
    Url,
    Mix,
    Method,
    Headers,
    Body,
    Connections,
    Threads,
    Requests,
    Duration,
    Rate,
    Timeout,
    OkStatus,
    Http,
    Streams,
    Insecure,
    CaCert,
    Cert,
    Key,
    Rates,
    Capacity,
    Precision,
    StepWarmup,
    Step,
    MinRequests,
    MaxRate,
    StartRate,
    SteadyMax,
    SteadyTolerance,
}

/// One load setting as every front end and the docs name it.
#[derive(Debug, Clone, Copy)]
pub struct SettingDef {
    pub setting: Setting,
    /// The key in a plan's `[[phase]]`, and the setting's neutral name in errors.
    pub key: &'static str,
    /// The phase key whose inline table holds the key, for a part of one (`capacity = { precision = "5%" }`).
    pub within: Option<&'static str>,
    /// `jload bench`'s long flag, without `--` (None: the URL, given as an argument).
    pub long: Option<&'static str>,
    /// `jload bench`'s short flag.
    pub short: Option<char>,
    /// How `jload bench`'s errors name it.
    pub flag_name: &'static str,
    /// Its help in `jload bench --help` (clap's form of a doc comment: one line, no final period).
    pub help: &'static str,
}

pub const URL: SettingDef = SettingDef {
    setting: Setting::Url,
    key: "url",
    within: None,
    long: None,
    short: None,
    flag_name: "a URL (http://127.0.0.1:8088/path)",
    help: "Target URL (http:// or https://). May contain {rand:LO..HI} and {seq} placeholders. Optional with --mix",
};
pub const MIX: SettingDef = SettingDef {
    setting: Setting::Mix,
    key: "mix",
    within: None,
    long: Some("mix"),
    short: None,
    flag_name: "--mix FILE",
    help: "A TOML file of weighted requests ([[request]] name, weight, method, url, headers, body)",
};
pub const METHOD: SettingDef = SettingDef {
    setting: Setting::Method,
    key: "method",
    within: None,
    long: Some("method"),
    short: Some('m'),
    flag_name: "-m",
    help: "HTTP method",
};
pub const HEADERS: SettingDef = SettingDef {
    setting: Setting::Headers,
    key: "headers",
    within: None,
    long: Some("header"),
    short: Some('H'),
    flag_name: "-H",
    help: "Extra request header \"Name: value\" (repeatable). May contain placeholders",
};
pub const BODY: SettingDef = SettingDef {
    setting: Setting::Body,
    key: "body",
    within: None,
    long: Some("body"),
    short: None,
    flag_name: "--body/--body-file",
    help: "Request body. May contain placeholders",
};
pub const CONNECTIONS: SettingDef = SettingDef {
    setting: Setting::Connections,
    key: "connections",
    within: None,
    long: Some("connections"),
    short: Some('c'),
    flag_name: "-c/--connections",
    help: "Concurrent connections (like wrk -c / ab -c)",
};
pub const THREADS: SettingDef = SettingDef {
    setting: Setting::Threads,
    key: "threads",
    within: None,
    long: Some("threads"),
    short: Some('t'),
    flag_name: "-t/--threads",
    help: "Worker threads, each with its own event loop [default: number of cores]",
};
pub const REQUESTS: SettingDef = SettingDef {
    setting: Setting::Requests,
    key: "requests",
    within: None,
    long: Some("requests"),
    short: Some('n'),
    flag_name: "-n/--requests",
    help: "Total requests to send, then stop (like ab -n)",
};
pub const DURATION: SettingDef = SettingDef {
    setting: Setting::Duration,
    key: "duration",
    within: None,
    long: Some("duration"),
    short: Some('d'),
    flag_name: "-d/--duration",
    help: "How long to run: 10s, 2m, 1h, 500ms (like wrk -d). Without -n or -d: 10s",
};
pub const RATE: SettingDef = SettingDef {
    setting: Setting::Rate,
    key: "rate",
    within: None,
    long: Some("rate"),
    short: Some('R'),
    flag_name: "-R/--rate",
    help: "Open model: requests per second in total, on an even schedule; latency is corrected for coordinated \
           omission",
};
pub const TIMEOUT: SettingDef = SettingDef {
    setting: Setting::Timeout,
    key: "timeout",
    within: None,
    long: Some("timeout"),
    short: None,
    flag_name: "--timeout",
    help: "Per-request timeout (like ab -s): the connection is closed, the request counted as a timeout [default: 5s]",
};
pub const OK_STATUS: SettingDef = SettingDef {
    setting: Setting::OkStatus,
    key: "ok_status",
    within: None,
    long: Some("ok-status"),
    short: None,
    flag_name: "--ok-status",
    help: "Status codes that count as success, e.g. 200-299,404 when a 404 is a normal answer [default: 200-399]",
};
pub const HTTP: SettingDef = SettingDef {
    setting: Setting::Http,
    key: "http",
    within: None,
    long: Some("http"),
    short: None,
    flag_name: "--http",
    help: "HTTP version: 1.1, 2, or auto (https:// only: ALPN offers h2 and http/1.1, the server chooses) [default: \
           1.1]",
};
pub const STREAMS: SettingDef = SettingDef {
    setting: Setting::Streams,
    key: "streams",
    within: None,
    long: Some("streams"),
    short: None,
    flag_name: "--streams",
    help: "HTTP/2: concurrent streams (requests in flight) per connection, like h2load -m [default: 1]",
};
pub const INSECURE: SettingDef = SettingDef {
    setting: Setting::Insecure,
    key: "insecure",
    within: None,
    long: Some("insecure"),
    short: Some('k'),
    flag_name: "-k/--insecure",
    help: "Accept any server certificate (a self-signed test server), like curl -k",
};
pub const CA_CERT: SettingDef = SettingDef {
    setting: Setting::CaCert,
    key: "cacert",
    within: None,
    long: Some("cacert"),
    short: None,
    flag_name: "--cacert",
    help: "Trust the CA certificates of this PEM file instead of the system's",
};
pub const CERT: SettingDef = SettingDef {
    setting: Setting::Cert,
    key: "cert",
    within: None,
    long: Some("cert"),
    short: None,
    flag_name: "--cert",
    help: "Client certificate (PEM chain) for servers that ask for one; with --key",
};
pub const KEY: SettingDef = SettingDef {
    setting: Setting::Key,
    key: "key",
    within: None,
    long: Some("key"),
    short: None,
    flag_name: "--key",
    help: "The client certificate's private key (PEM)",
};

// The rate ladder and the capacity search.
pub const RATES: SettingDef = SettingDef {
    setting: Setting::Rates,
    key: "rates",
    within: None,
    long: Some("rates"),
    short: None,
    flag_name: "--rates",
    help: "Rate ladder: one open-model step per rate, listed (2000,4000,8000) or geometric (1000..40000:8 is 8 steps)",
};
pub const CAPACITY: SettingDef = SettingDef {
    setting: Setting::Capacity,
    key: "capacity",
    within: None,
    long: Some("capacity"),
    short: None,
    flag_name: "--capacity",
    help: "Capacity search: the highest rate whose step meets these SLO rules (repeatable or comma-separated, e.g. \
           p99<=10ms); errors<=0.1% is added unless a rule bounds errors",
};
pub const PRECISION: SettingDef = SettingDef {
    setting: Setting::Precision,
    key: "precision",
    within: Some("capacity"),
    long: Some("precision"),
    short: None,
    flag_name: "--precision",
    help: "Capacity search: stop when the lowest failing rate is within this of the highest passing one [default: 5%]",
};
pub const STEP_WARMUP: SettingDef = SettingDef {
    setting: Setting::StepWarmup,
    key: "step_warmup",
    within: None,
    long: Some("step-warmup"),
    short: None,
    flag_name: "--step-warmup",
    help: "Load before each step's measured window, at the step's rate, not recorded [default: 2s]",
};
pub const STEP: SettingDef = SettingDef {
    setting: Setting::Step,
    key: "step",
    within: None,
    long: Some("step"),
    short: None,
    flag_name: "--step",
    help: "Each step's measured window, extended to hold --min-requests [default: 5s]",
};
pub const MIN_REQUESTS: SettingDef = SettingDef {
    setting: Setting::MinRequests,
    key: "min_requests",
    within: None,
    long: Some("min-requests"),
    short: None,
    flag_name: "--min-requests",
    help: "At least this many requests in each step's measured window [default: 2000]",
};
pub const MAX_RATE: SettingDef = SettingDef {
    setting: Setting::MaxRate,
    key: "max_rate",
    within: Some("capacity"),
    long: Some("max-rate"),
    short: None,
    flag_name: "--max-rate",
    help: "Capacity search: never try above this rate",
};
pub const START_RATE: SettingDef = SettingDef {
    setting: Setting::StartRate,
    key: "start_rate",
    within: Some("capacity"),
    long: Some("start-rate"),
    short: None,
    flag_name: "--start-rate",
    help: "Capacity search: the first rate tried [default: half the warm-up's closed-model throughput]",
};
pub const STEADY_MAX: SettingDef = SettingDef {
    setting: Setting::SteadyMax,
    key: "steady_max",
    within: None,
    long: Some("steady-max"),
    short: None,
    flag_name: "--steady-max",
    help: "Before the first step, warm up in the closed model until 1 s windows agree, for at most this long; after \
           the last, check the target did not change under the steps (0s: neither) [default: 60s]",
};
pub const STEADY_TOLERANCE: SettingDef = SettingDef {
    setting: Setting::SteadyTolerance,
    key: "steady_tolerance",
    within: None,
    long: Some("steady-tolerance"),
    short: None,
    flag_name: "--steady-tolerance",
    help: "The warm-up is steady when its last 3 windows' throughputs agree within this share [default: 20%]",
};

/// Every load setting, once.
pub static SETTINGS: [SettingDef; 28] = [
    URL,
    MIX,
    METHOD,
    HEADERS,
    BODY,
    CONNECTIONS,
    THREADS,
    REQUESTS,
    DURATION,
    RATE,
    TIMEOUT,
    OK_STATUS,
    HTTP,
    STREAMS,
    INSECURE,
    CA_CERT,
    CERT,
    KEY,
    RATES,
    CAPACITY,
    PRECISION,
    STEP_WARMUP,
    STEP,
    MIN_REQUESTS,
    MAX_RATE,
    START_RATE,
    STEADY_MAX,
    STEADY_TOLERANCE,
];

impl Setting {
    /// The setting's one definition.
    pub fn def(self) -> &'static SettingDef {
        SETTINGS.iter().find(|def| def.setting == self).expect("every setting has a definition in SETTINGS")
    }

    /// The setting's name as a plan phase key (the neutral name).
    pub fn key(self) -> &'static str {
        self.def().key
    }

    /// The setting as the `jload bench` flag that sets it, for errors.
    pub fn flag_name(self) -> &'static str {
        self.def().flag_name
    }
}

#[cfg(test)]
#[path = "settings_tests.rs"]
mod tests;
