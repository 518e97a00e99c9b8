//! A cell's command line: the JVM options of one start of its target — the plan's, the cell's, then jload's own
//! telemetry options (GC log, PerfData, crash file, exit on OOM) and its probes' (Native Memory Tracking) — its command
//! words with the cell's program arguments placed (`{args}`, else at the end) and its environment, with every
//! placeholder (`{jvm}`, `{port}`, `{host}`, `{dir}`, `{java}`, `{memory*F}`) filled in.

use std::collections::BTreeMap;
use std::path::Path;

use super::probes;
use crate::load::input::spec::fill_target;
use crate::plan::jdks::Jdk;
use crate::plan::matrix::Cell;
use crate::plan::{Plan, args, relative};
use crate::results::RepFiles;

/// The JVM options jload adds to every cell: GC log into the cell's folder, PerfData on, crash file beside it,
/// (unless the plan says otherwise) exit on OutOfMemoryError.
pub fn telemetry_options(dir: &Path, exit_on_oom: bool) -> Vec<String> {
    let mut options = vec![
        "-XX:+UsePerfData".to_string(),
        format!("-Xlog:gc*,safepoint:file={}:time,uptime,uptimenanos,level,tags", RepFiles::of(dir).gc_log().display()),
        format!("-XX:ErrorFile={}", RepFiles::of(dir).error_file_pattern().display()),
    ];
    if exit_on_oom {
        options.push("-XX:+ExitOnOutOfMemoryError".to_string());
    }
    options
}

/// Where one start of the target runs: its server's address (`{host}`), its port (`{port}`), its folder (`{dir}`).
#[derive(Debug, Clone, Copy)]
pub struct Placement<'a> {
    pub host: &'a str,
    pub port: &'a str,
    pub dir: &'a Path,
}

/// `text` with `{host}`, `{port}`, `{java}`, `{dir}` and the box's `{memory…}` ([`relative::fill`]) filled in.
fn fill_placeholders(text: &str, jdk: &Jdk, at: Placement<'_>, cell: &Cell) -> String {
    relative::fill(&fill_target(text, at.host, at.port), cell.limits.memory_bytes)
        .replace("{java}", &jdk.java().display().to_string())
        .replace("{dir}", &at.dir.display().to_string())
}

/// Every JVM option of a cell, in order: target.jvm, the cell's axis options, jload's telemetry options, then
/// those its probes need ([`probes::jvm_options`]: Native Memory Tracking where the plan tracks the cell's native
/// memory), with `{port}`, `{dir}` and `{java}` filled in.
pub fn jvm_options(plan: &Plan, cell: &Cell, jdk: &Jdk, at: Placement<'_>) -> Vec<String> {
    let mut options: Vec<String> =
        plan.target.jvm.iter().chain(cell.jvm.iter()).map(|option| fill_placeholders(option, jdk, at, cell)).collect();
    let probe_options = probes::jvm_options(plan, cell, &options);
    options.extend(telemetry_options(at.dir, plan.target.exit_on_oom));
    options.extend(probe_options);
    options
}

/// The cell's command line: `{jvm}` → all JVM options, `{port}`, `{dir}` (the cell-repeat's folder), `{java}` and a
/// leading `java` → the cell's JDK; the cell's program arguments at `{args}`, else after the last word
/// ([`args::place_args`]).
pub fn command_line(plan: &Plan, cell: &Cell, jdk: &Jdk, at: Placement<'_>) -> Vec<String> {
    let options = jvm_options(plan, cell, jdk, at);
    let mut words = Vec::new();
    for (index, word) in plan.target.command.iter().enumerate() {
        if word == "{jvm}" {
            words.extend(options.iter().cloned());
        } else if word == args::ARGS_PLACEHOLDER {
            words.push(word.clone());
        } else if index == 0 && word == "java" {
            words.push(jdk.java().display().to_string());
        } else {
            words.push(fill_with_options(word, &options, jdk, at, cell));
        }
    }
    args::place_args(words, &program_args(cell, jdk, at))
}

/// The cell's program arguments, in axis order (a tune trial's after its cell's), with `{port}`, `{host}`, `{dir}`,
/// `{java}` and `{memory…}` filled in.
pub fn program_args(cell: &Cell, jdk: &Jdk, at: Placement<'_>) -> Vec<String> {
    cell.args.iter().map(|word| fill_placeholders(word, jdk, at, cell)).collect()
}

/// The cell's extra environment: target.env, then the cell's axis env, with every placeholder filled in
/// (`{jvm}` in `CATALINA_OPTS`, `JAVA_OPTS` or `JAVA_TOOL_OPTIONS` is how a start script gets the options), and
/// JAVA_HOME set to the cell's JDK.
pub fn target_env(plan: &Plan, cell: &Cell, jdk: &Jdk, at: Placement<'_>) -> BTreeMap<String, String> {
    let options = jvm_options(plan, cell, jdk, at);
    let mut env: BTreeMap<String, String> = plan
        .target
        .env
        .iter()
        .chain(cell.env.iter())
        .map(|(key, value)| (key.clone(), fill_with_options(value, &options, jdk, at, cell)))
        .collect();
    env.insert("JAVA_HOME".to_string(), jdk.home.display().to_string());
    env
}

/// `text` with `{jvm}` → the options as one string (see [`join_options`]), then the other placeholders.
fn fill_with_options(text: &str, options: &[String], jdk: &Jdk, at: Placement<'_>, cell: &Cell) -> String {
    fill_placeholders(&text.replace("{jvm}", &join_options(options)), jdk, at, cell)
}

/// The options joined with spaces for one variable or word. An option with whitespace, quotes or shell operators is
/// single-quoted: start scripts that pass the variable through `eval` (`catalina.sh`) and HotSpot's own
/// JAVA_TOOL_OPTIONS / JDK_JAVA_OPTIONS honour those quotes. Others stay bare, so a script that expands `$JAVA_OPTS`
/// unquoted gets them intact (glob characters such as `gc*` match no file name).
pub fn join_options(options: &[String]) -> String {
    let needs_quotes = |option: &str| option.chars().any(|c| c.is_whitespace() || "'\"\\$`;&|<>()".contains(c));
    let words: Vec<String> = options
        .iter()
        .map(|option| if needs_quotes(option) { shell_words::quote(option).into_owned() } else { option.clone() })
        .collect();
    words.join(" ")
}

/// Every JVM option of a cell, jload's and its probes' included, with the placeholders of one start left empty: what
/// decides which probes watch it ([`probes::for_cell`]).
pub fn every_jvm_option(plan: &Plan, cell: &Cell, jdk: &Jdk) -> Vec<String> {
    jvm_options(plan, cell, jdk, Placement { host: "", port: "", dir: Path::new("") })
}
