//! `jload run` (a plan, or `--resume DIR`), `--dry-run`, and `jload jdks`: flags, results-directory set-up, Ctrl-C.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use clap::Args;
use signal_hook::consts::SIGINT;

use super::box_search::{SearchContext, read_record, run_search};
use super::cell::command::{Placement, command_line, every_jvm_option, target_env};
use super::runner::{
    PreparedCell, SweepTally, build_target, check_jar, check_preflight, connect_servers, prepare, sweep,
};
use super::store::needs_run;
use crate::atomic_file::{write_atomically, write_json};
use crate::error::{bad_input, exit};
use crate::load::generator::{Generator, LocalEngine};
use crate::load::input::spec::{HOST_PLACEHOLDER, PORT_PLACEHOLDER};
use crate::plan::box_search::BoxSearch;
use crate::plan::estimate::{START_STOP_ALLOWANCE, estimate};
use crate::plan::folder::{safe_part, unsafe_char};
use crate::plan::jdks;
use crate::plan::matrix::{Cell, cells, select};
use crate::plan::preflight::Preflight;
use crate::plan::{Plan, PlanBase, load_plan};
use crate::remote::load::LoadHosts;
use crate::report::Report;
use crate::results::{Env, ResultsDir, RunRecord, Status, read_json};

#[derive(Args, Debug)]
#[command(
    after_help = "Examples:\n  jload run plans/quickstart.toml\n  jload run plans/quickstart.toml --only 'gc=G1' --repeats 1\n  jload run plans/quickstart.toml --dry-run\n  jload run --resume results/quickstart-20261122-101500"
)]
pub struct RunArgs {
    /// The plan file (TOML, see docs/plan.md).
    #[arg(required_unless_present = "resume")]
    pub plan: Option<PathBuf>,
    /// Results directory [default: results/<name>-<yyyymmdd-hhmmss>].
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Run only the cells matching axis=label[,axis=label].
    #[arg(long)]
    pub only: Option<String>,
    /// Override run.repeats.
    #[arg(long)]
    pub repeats: Option<u32>,
    /// Print the cells and their exact commands; start nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Continue an interrupted run in DIR: run only the missing cell-repeats, never rewrite finished ones.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["plan", "out", "repeats"])]
    pub resume: Option<PathBuf>,
    /// Seed of the shuffled (interleaved) order [default: from the clock; stored in env.json].
    #[arg(long)]
    pub seed: Option<u64>,
    /// Run the cells whose JVM options pass preflight and record the others as failed.
    #[arg(long)]
    pub skip_invalid: bool,
}

#[derive(Args, Debug)]
pub struct JdksArgs {
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

pub fn run_jdks(args: JdksArgs) -> anyhow::Result<i32> {
    let found = jdks::discover();
    if args.json {
        println!("{}", serde_json::to_string_pretty(&found)?);
    } else {
        println!("{:<10} {:<28} {:<11} HOME", "VERSION", "IMPLEMENTOR", "FOUND IN");
        for jdk in &found {
            println!("{:<10} {:<28} {:<11} {}", jdk.version, jdk.implementor, jdk.found_in, jdk.home.display());
        }
    }
    Ok(if found.is_empty() { exit::FAILED } else { exit::OK })
}

/// Local time for results folder names: `20261122-101500`.
fn timestamp() -> String {
    chrono::Local::now().format("%Y%m%d-%H%M%S").to_string()
}

/// A run to start or go on with: the checked plan, where its results go, and what `run.json` records.
struct Opened {
    plan: Plan,
    results: ResultsDir,
    record: RunRecord,
    resuming: bool,
}

pub fn run(args: RunArgs) -> anyhow::Result<i32> {
    let Opened { plan, results, record, resuming } = match &args.resume {
        Some(dir) => open_resume(dir)?,
        None => open_new(&args)?,
    };
    check_results_path(&results.root)?;
    let mut selected = cells(&plan);
    for cell in &mut selected {
        if let Some(dir) = record.cells.get(&cell.id) {
            cell.dir = dir.clone();
        }
    }
    if let Some(only) = &args.only {
        selected = select(selected, only, &plan)?;
        if selected.is_empty() {
            return Err(bad_input(format!("--only '{only}' matches no cell")));
        }
    }
    if let Some(search) = &plan.box_search {
        // A box search preflights and shows each cell in its largest box; its trials are boxes of their own.
        for cell in &mut selected {
            cell.limits = search.largest_box(cell.limits);
        }
    }
    let servers = connect_servers(&plan)?;
    super::cell::probes::target_box::check_boxes(&selected, &servers)?;
    let prepared = prepare(&plan, selected, servers.first())?;
    for warning in plan.cpu_overlap_warning().into_iter().chain(plan.fixed_port_warning()) {
        say!("jload: {warning}");
    }
    // A -jar file the build makes is checked after the build.
    if plan.target.build.is_none() {
        check_jar(&plan, &servers)?;
    }
    if args.dry_run {
        print_dry_run(&plan, &prepared, &results);
        return Ok(exit::OK);
    }
    check_preflight(&prepared, &results, plan.run.repeats, args.skip_invalid)?;
    let seed = args.seed.unwrap_or_else(super::cell::unix_now);
    if !resuming {
        if results.root.exists() && std::fs::read_dir(&results.root)?.next().is_some() {
            return Err(bad_input(format!(
                "--out {} exists and is not empty; choose another directory or use --resume",
                results.root.display()
            )));
        }
        std::fs::create_dir_all(&results.root)?;
        write_atomically(&results.plan_copy(), &std::fs::read(&record.plan_file)?)?;
        write_json(&results.run_record(), &record)?;
        let mut env = Env::of_this_machine(jdks::discover(), seed);
        for server in &servers {
            let facts = server.environment().map_err(|err| bad_input(format!("target host: {err:#}")))?;
            env.servers.insert(server.destination().to_string(), facts);
        }
        write_json(&results.env(), &env)?;
    }
    build_target(&plan, &servers)?;
    check_jar(&plan, &servers)?;
    let stop = Arc::new(AtomicBool::new(false));
    signal_hook::flag::register_conditional_shutdown(SIGINT, 130, stop.clone())?;
    signal_hook::flag::register(SIGINT, stop.clone())?;
    let load_hosts = match plan.load.hosts.as_slice() {
        [] => None,
        hosts => Some(LoadHosts::connect(hosts).map_err(|err| bad_input(format!("load host: {err:#}")))?),
    };
    let generator: &dyn Generator = match &load_hosts {
        Some(hosts) => hosts,
        None => &LocalEngine,
    };
    let context = SearchContext { plan: &plan, results: &results, stop: &stop, server: servers.first(), generator };
    let interrupted = match (&plan.box_search, &plan.tune) {
        (Some(search), _) => run_search(&context, search, &prepared)?,
        (None, Some(tune)) => super::tune::run_tune(&context, tune, &prepared)?,
        (None, None) => sweep(&plan, &prepared, &results, seed, &stop, &servers, generator)?,
    };
    // Also after an interrupt: the tables and the report cover what finished (incomplete cells are marked as such).
    report(&results);
    print_box_answers(&results);
    if let Some(text) = super::tune::answers_text(&results) {
        let _ = std::io::Write::write_all(&mut std::io::stdout(), text.as_bytes());
    }
    if interrupted {
        say!("jload: interrupted; finished work is kept. Continue with: jload run --resume {}", results.root.display());
        return Ok(130);
    }
    let run_cells: Vec<Cell> = prepared.into_iter().map(|item| item.cell).collect();
    let tally = match (&plan.box_search, &plan.tune) {
        (Some(_), _) => box_search_tally(&results),
        (None, Some(_)) => trials_tally(&results, tune_trial_dirs(&results)),
        (None, None) => SweepTally::of(&results, &run_cells, plan.run.repeats),
    };
    if tally.retryable > 0 {
        say!(
            "jload: {} cell-repeat(s) failed for a reason outside their configuration — not ready, or their server \
             lost (see their cause); once it is fixed, run them again with: jload run --resume {}",
            tally.retryable,
            results.root.display()
        );
    }
    if tally.exit_code() != exit::OK {
        say!("jload: every cell-repeat failed; no results (exit {})", tally.exit_code());
    }
    say!("jload: results in {}", results.root.display());
    Ok(tally.exit_code())
}

/// A new run of the plan file given on the command line.
fn open_new(args: &RunArgs) -> anyhow::Result<Opened> {
    let path = args.plan.as_ref().expect("clap requires a plan without --resume");
    let base = PlanBase::of_plan_file(path)?;
    let mut plan = load_plan(path, &base)?;
    if let Some(repeats) = args.repeats {
        if repeats == 0 {
            return Err(bad_input("--repeats must be at least 1"));
        }
        if let Some(confirm) = plan.run.confirm.filter(|&confirm| confirm <= repeats) {
            return Err(bad_input(format!(
                "--repeats {repeats} is not below the plan's run.confirm ({confirm}); give fewer repeats or raise \
                 run.confirm"
            )));
        }
        plan.run.repeats = repeats;
    }
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("results").join(format!("{}-{}", safe_part(&plan.name, 64), timestamp())));
    let record = RunRecord {
        plan_file: base.cwd.join(path),
        repeats: plan.run.repeats,
        cells: cells(&plan).into_iter().map(|cell| (cell.id, cell.dir)).collect(),
        base,
    };
    Ok(Opened { plan, results: ResultsDir::new(out), record, resuming: false })
}

/// Go on with the run in `dir`: its plan copy, read with the paths and repeats the first run used.
fn open_resume(dir: &Path) -> anyhow::Result<Opened> {
    let results = ResultsDir::new(dir.to_path_buf());
    if !results.plan_copy().is_file() {
        return Err(bad_input(format!("--resume {}: not a jload results directory (no plan.toml)", dir.display())));
    }
    let record: RunRecord = read_json(&results.run_record()).ok_or_else(|| {
        bad_input(format!(
            "--resume {}: no readable run.json (an older jload made it); start the plan again with a new --out",
            dir.display()
        ))
    })?;
    let mut plan = load_plan(&results.plan_copy(), &record.base)?;
    plan.run.repeats = record.repeats;
    Ok(Opened { plan, results, record, resuming: true })
}

/// Refuse a results directory whose path the JVM's option syntax or a shell would take apart (the cells' GC log and
/// crash file paths are inside it).
fn check_results_path(root: &Path) -> anyhow::Result<()> {
    let absolute = std::env::current_dir()?.join(root);
    match unsafe_char(&absolute) {
        None => Ok(()),
        Some(c) => Err(bad_input(format!(
            "results directory {}: its path contains {c:?}, which JVM options (-Xlog:…:file=PATH) cannot hold; \
             choose a path of letters, digits and ._-+= (--out DIR)",
            absolute.display()
        ))),
    }
}

/// Print the end-of-run tables and write the reports into the results directory, from one analysis; a failure is
/// printed and never costs the run.
fn report(results: &ResultsDir) {
    match Report::open(&results.root).and_then(|report| {
        // Like `say!`: a closed stdout must not stop the run before its reports are written.
        let _ = std::io::Write::write_all(&mut std::io::stdout(), report.terminal_tables().as_bytes());
        report.write()
    }) {
        Ok(written) => say!(
            "jload: report in {} (and {}, {})",
            written.html.display(),
            written.markdown.display(),
            written.json.display()
        ),
        Err(err) => say!(
            "jload: the results are kept, but the report failed: {err:#}; retry with: jload report {}",
            results.root.display()
        ),
    }
}

fn print_dry_run(plan: &Plan, prepared: &[PreparedCell], results: &ResultsDir) {
    println!(
        "plan '{}': {} cell(s) × {} repeat(s), {:?} order",
        plan.name,
        prepared.len(),
        plan.run.repeats,
        plan.run.order
    );
    if let Some(confirm) = plan.run.confirm {
        println!(
            "then: the contenders for each measured phase's best cell (at most {} a figure) measured again to {confirm} \
             repeats each",
            Report::CONTENDERS_MOST
        );
    }
    if let Some(build) = &plan.target.build {
        println!("build: {build}");
    }
    println!("workdir: {}", plan.target.workdir.display());
    for item in prepared {
        let dir = PathBuf::from("<results>").join("cells").join(&item.cell.dir).join("rep-N");
        let shown = Placement { host: HOST_PLACEHOLDER, port: PORT_PLACEHOLDER, dir: &dir };
        let command = command_line(plan, &item.cell, &item.jdk, shown);
        let verdict = match &item.preflight {
            Preflight::Valid(flags) => format!(
                "ok: {} heap {}–{} MiB, {} GC threads",
                flags.collector,
                flags.initial_heap_bytes >> 20,
                flags.max_heap_bytes >> 20,
                flags.parallel_gc_threads
            ),
            Preflight::Invalid(message) => format!("INVALID: {message}"),
        };
        println!("\n{}  [JDK {} {}]", item.cell.id, item.jdk.version, verdict);
        println!("  {}", shell_words::join(&command));
        if let Some(text) = crate::plan::box_limits::describe(&item.cell.limits) {
            println!("  box: {text} (a cgroup of its own per cell-repeat)");
        }
        let options = every_jvm_option(plan, &item.cell, &item.jdk);
        for line in super::cell::probes::for_cell(plan, &item.cell, &options).dry_run_lines() {
            println!("  {line}");
        }
        let env: Vec<String> = target_env(plan, &item.cell, &item.jdk, shown)
            .iter()
            .map(|(key, value)| format!("{key}={}", shell_words::quote(value)))
            .collect();
        println!("  env: {}", env.join(" "));
        match &plan.box_search {
            None if plan.tune.is_some() => {
                let folder =
                    std::iter::once(item.cell.dir.clone()).filter(|dir| dir != "default").chain(["trial=tNN".into()]);
                println!("  folders: <results>/cells/{}/rep-1, one per trial", folder.collect::<Vec<_>>().join("__"));
            }
            None => println!("  folder: {}", dir.display()),
            Some(search) => {
                let keys: Vec<String> =
                    search.ranges().iter().map(|range| format!("{}=…", range.dimension.key())).collect();
                let folder = std::iter::once(item.cell.dir.clone()).filter(|dir| dir != "default").chain(keys);
                println!("  folders: <results>/cells/{}/rep-1, one per trial", folder.collect::<Vec<_>>().join("__"));
            }
        }
    }
    for phase in &plan.phases {
        println!("\nphase {}", phase.describe());
    }
    if let Some(tune) = &plan.tune {
        print!("{}", super::tune::dry_run_text(tune, prepared.len()));
    }
    let to_run = match &plan.box_search {
        Some(search) => print_box_search(search, prepared.len()),
        None if plan.tune.is_some() => {
            let tune = plan.tune.as_ref().expect("checked");
            // A budget of time alone is not counted here: the tune stops when it is spent.
            if tune.trials == u64::MAX { 0 } else { prepared.len() * tune.trials as usize }
        }
        None => prepared
            .iter()
            .map(|item| {
                (1..=plan.run.repeats).filter(|&rep| needs_run(results.read_meta(&item.cell.dir, rep).as_ref()))
            })
            .map(Iterator::count)
            .sum::<usize>(),
    };
    print_estimate(plan, to_run as u64);
}

/// How long the cell-repeats still to run take, about (every one before a first run; the missing ones on resume).
fn print_estimate(plan: &Plan, to_run: u64) {
    let estimate = estimate(plan, to_run);
    let seconds = |duration: std::time::Duration| {
        humantime::format_duration(std::time::Duration::from_secs(duration.as_secs_f64().round() as u64))
    };
    println!(
        "\nestimated duration: about {} = {} cell-repeat(s) to run × ({} of load + ~{} to start and stop) + {} × {} cooldown",
        seconds(estimate.total),
        estimate.cell_repeats,
        seconds(estimate.load_per_rep),
        seconds(START_STOP_ALLOWANCE),
        estimate.cell_repeats.saturating_sub(1),
        seconds(plan.run.cooldown)
    );
    if !estimate.open_ended.is_empty() {
        println!(
            "  not counted: phase(s) {} (they end after their request count, at the target's speed)",
            estimate.open_ended.join(", ")
        );
    }
    for search in &estimate.searches {
        println!("  {}", search.describe());
    }
}

/// What `--dry-run` says of a box search; the trials it takes at most.
fn print_box_search(search: &BoxSearch, cells: usize) -> usize {
    println!("\nbox search: the smallest box holding the SLO, per cell (shown above in its largest box)");
    let mut trials = 0;
    for range in search.ranges() {
        let most = BoxSearch::most_trials(&range) as usize;
        trials += most;
        println!(
            "  {} from {} to {}, precision {}%: at most {most} trial(s) per cell, each a fresh JVM",
            range.dimension.key(),
            range.dimension.words(range.from),
            range.dimension.words(range.to),
            range.precision * 100.0
        );
    }
    if let Some(share) = search.at_capacity {
        println!(
            "  at {}% of the capacity its measured capacity phase finds in the largest box, run first (one run per cell)",
            share * 100.0
        );
        trials += 1;
    }
    trials * cells
}

/// The box search's answers at the end of the run, one line per cell and searched limit (stdout, after the tables).
fn print_box_answers(results: &ResultsDir) {
    let record = read_record(results);
    if record.searches.is_empty() {
        return;
    }
    let mut text = String::from("\nsmallest box holding the SLO:\n");
    for search in &record.searches {
        text.push_str(&format!("  {}\n", search.sentence()));
    }
    let _ = std::io::Write::write_all(&mut std::io::stdout(), text.as_bytes());
}

/// How a box search's trials ended, for the exit code: a trial that ran (ok or crashed) is a result.
fn box_search_tally(results: &ResultsDir) -> SweepTally {
    let record = read_record(results);
    let dirs = record.searches.iter().flat_map(|search| &search.trials).map(|trial| trial.dir.clone());
    trials_tally(results, dirs.collect())
}

/// A tune's trial folders, in the order they ran.
fn tune_trial_dirs(results: &ResultsDir) -> Vec<String> {
    let record = super::tune::read_record(results);
    record.iter().flat_map(|record| &record.cells).flat_map(|cell| &cell.trials).map(|t| t.dir.clone()).collect()
}

/// How a search's trials ended, for the exit code: a trial that ran (ok or crashed) is a result.
fn trials_tally(results: &ResultsDir, dirs: Vec<String>) -> SweepTally {
    let mut tally = SweepTally::default();
    for dir in dirs {
        match results.read_meta(&dir, 1).map(|meta| meta.status) {
            Some(Status::Ok | Status::Crashed) => tally.ran += 1,
            Some(Status::Failed) => tally.failed += 1,
            _ => {}
        }
    }
    tally
}
