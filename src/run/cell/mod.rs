//! One cell × repeat: start a fresh target JVM with the cell's options, wait until it is ready, drive it through the
//! plan's phases while it is watched, stop it, read its GC log, and record everything in the cell's folder.
//!
//! Beside it: how the target is started (`command`) and where it runs (`target_process`), waiting until it is ready
//! (`ready`), how it ended (`crash`), and whatever watches it besides the load (`probes`: its JVM's PerfData, its
//! box, its native memory), which the cell drives without naming one.

pub mod command;
pub mod crash;
pub mod probes;
mod ready;
pub mod target_process;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::atomic_file::write_json;
use crate::attribution::gather::{self, JvmStops};
use crate::jvm::clock::{ClockInterval, ClockSource};
use crate::jvm::watch::window::WindowPauses;
use crate::jvm::{gc_init, gclog};
use crate::launcher::{LaunchSpec, RunningTarget, free_port};
use crate::load::engine::RunOptions;
use crate::load::figures::threshold::Threshold;
use crate::load::generator::Generator;
use crate::load::input::spec::LoadSpec;
use crate::load::input::spec::STAND_IN_HOST;
use crate::load::record::outcomes::{Limit, Side, Step};
use crate::load::record::result::BenchResult;
use crate::load::record::slow::SlowRequests;
use crate::load::search::ladder::{LadderPlan, StepObserver, TargetCounters, run_ladder};
use crate::plan::box_limits::unlimited;
use crate::plan::jdks::Jdk;
use crate::plan::matrix::Cell;
use crate::plan::preflight::EffectiveFlags;
use crate::plan::{Phase, Plan};
use crate::remote::messages::{DEFAULT_SILENCE_LIMIT, in_seconds};
use crate::remote::remote_target::RemoteTarget;
use crate::remote::server::RemoteServer;
use crate::results::slow_csv;
use crate::results::{ExitInfo, FailureKind, PhaseRecord, RepFiles, RepMeta, ResultsDir, Status, read_json};
use command::{Placement, command_line, every_jvm_option, target_env};
use crash::{Ending, Evidence};
use probes::{PhaseStarting, Probes, Ready};
use ready::{cell_ports, foreign_before_phase, port_in_use_cause, wait_until_ready};
use target_process::TargetProcess;

/// What one cell-repeat needs from the sweep.
pub struct CellRun<'a> {
    pub plan: &'a Plan,
    pub cell: &'a Cell,
    pub rep: u32,
    pub jdk: &'a Jdk,
    pub flags: Option<EffectiveFlags>,
    pub results: &'a ResultsDir,
    /// Ctrl-C.
    pub stop: &'a Arc<AtomicBool>,
    /// A line on stderr for each phase, ladder step and steadiness check (the sweep runs in one place, so its lines
    /// do not interleave with another server's), whether stderr is a terminal or a log file.
    pub announce: bool,
    /// The live progress bar of each load (stderr is a terminal).
    pub show_progress: bool,
    /// The server the target runs on; None: this machine.
    pub server: Option<&'a RemoteServer>,
    /// Where the load comes from: this machine or the plan's load hosts.
    pub generator: &'a dyn Generator,
}

/// What the attribution needs to put the JVM's clock on the requests' clock: PerfData's uptime 0 (on the target's
/// wall clock) and, for a target on its own server, that server's clock offset from this machine's with its bound (µs).
#[derive(Default)]
struct JvmClocks {
    perfdata: Option<(ClockSource, ClockInterval)>,
    server_offset: Option<(i64, i64)>,
}

pub fn unix_now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |elapsed| elapsed.as_secs())
}

/// Run one cell-repeat to its end; the returned meta is also written to the cell's folder.
pub fn run_cell_rep(run: &CellRun<'_>) -> anyhow::Result<RepMeta> {
    let dir = fresh_rep_dir(run)?;
    // A remote target writes into the same layout under the sweep's folder on its server; fetched home at the end.
    let target_dir = match run.server {
        None => dir.clone(),
        Some(server) => ResultsDir::new(server.work_root().into()).rep_dir(&run.cell.dir, run.rep),
    };
    let port = match run.server {
        None => free_port(),
        Some(server) => server.free_port(),
    };
    let launch = launch_spec(run, &target_dir, *port.as_ref().unwrap_or(&0));
    let mut meta = first_meta(run, &launch);
    write_json(&RepFiles::of(&dir).meta(), &meta)?;
    let (stdout_log, stderr_log) = (RepFiles::of(&dir).stdout_log(), RepFiles::of(&dir).stderr_log());
    let evidence = Evidence { stdout: &stdout_log, stderr: &stderr_log, error_dir: &dir };
    let started = port.and_then(|_| match run.server {
        None => RunningTarget::start(&launch).map(TargetProcess::Local),
        Some(server) => RemoteTarget::start(server, &launch).map(TargetProcess::Remote),
    });
    let target = match started {
        Ok(target) => Arc::new(Mutex::new(target)),
        Err(err) => {
            meta.status = Status::Failed;
            meta.failure = Some(FailureKind::Environment);
            let cause = port_in_use_cause(run, &err);
            meta.cause = Some(cause.unwrap_or_else(|| format!("{err:#} (in {})", launch.workdir.display())));
            return finish(&dir, meta);
        }
    };
    meta.pid = Some(target.lock().expect("target").pid());
    // Made after the target, so they end before it: a box's watch before its box is removed.
    let mut probes = probes::for_cell(run.plan, run.cell, &every_jvm_option(run.plan, run.cell, run.jdk));
    probes.started(&target, &target_dir);
    wait_until_ready(run, &target, &mut probes, &evidence, (&target_dir, &dir), &launch, &mut meta);
    let mut clocks = JvmClocks::default();
    if meta.ready_s.is_some() && meta.status != Status::Failed {
        clocks = drive_phases(run, &target, &mut probes, (&target_dir, &dir), &launch, &mut meta)?;
    }
    stop_and_judge(run, &target, &mut probes, &evidence, (&target_dir, &dir), &mut meta);
    attach_gc_log(&dir, &meta, &clocks, &probes)?;
    complete_phase_records(&dir, &meta, &probes)?;
    finish(&dir, meta)
}

/// The address URLs reach the target at (`{host}`).
pub(super) fn target_address(run: &CellRun<'_>) -> String {
    run.server.map_or(STAND_IN_HOST.to_string(), |server| server.address.clone())
}

/// A remote target's files (logs, GC log, gcstat CSV, crash files) copied into the local folder `dir`, once the
/// target has ended; they are removed there after the last copy. Nothing to do for a local target.
pub(super) fn bring_files_home(run: &CellRun<'_>, target_dir: &Path, dir: &Path, last: bool) -> Option<String> {
    let server = run.server?;
    let remote = target_dir.display().to_string();
    let failed = server
        .fetch(&remote, dir)
        .err()
        .map(|err| format!("the target's files stayed on {}: {err:#}", server.destination()));
    if last && failed.is_none() {
        server.remove(&remote);
    }
    failed
}

/// The cell-repeat's folder, empty: an interrupted earlier attempt is redone from scratch.
fn fresh_rep_dir(run: &CellRun<'_>) -> anyhow::Result<PathBuf> {
    let dir = run.results.rep_dir(&run.cell.dir, run.rep);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    Ok(dir.canonicalize()?)
}

/// How the cell's target is started on `port`, logging into `target_dir` (on the target's machine).
fn launch_spec(run: &CellRun<'_>, target_dir: &Path, port: u16) -> LaunchSpec {
    let (host, port_text) = (target_address(run), port.to_string());
    let at = Placement { host: &host, port: &port_text, dir: target_dir };
    let command = command_line(run.plan, run.cell, run.jdk, at);
    LaunchSpec {
        ports: cell_ports(run.plan, &host, port),
        program: command[0].clone().into(),
        args: command[1..].to_vec(),
        env: target_env(run.plan, run.cell, run.jdk, at),
        workdir: run.plan.target.workdir.clone(),
        stdout: RepFiles::of(target_dir).stdout_log(),
        stderr: RepFiles::of(target_dir).stderr_log(),
        marker: target_dir.display().to_string(),
        port,
        cpus: run.plan.target.cpus.clone(),
        limits: run.cell.limits,
    }
}

/// The meta of a cell-repeat about to start: incomplete until it says otherwise.
fn first_meta(run: &CellRun<'_>, launch: &LaunchSpec) -> RepMeta {
    let mut command = vec![launch.program.display().to_string()];
    command.extend(launch.args.iter().cloned());
    let mut meta = RepMeta::begun(run.cell.id.clone(), run.cell.axes.clone(), run.rep, run.jdk.clone(), unix_now());
    meta.command = command;
    meta.flags = run.flags.clone();
    meta.port = launch.port;
    meta.host = run.server.map(|server| server.destination().to_string());
    meta.cell_box = Some(run.cell.limits).filter(|limits| !unlimited(limits));
    meta
}

/// Stop the target (with whatever it left behind), bring a remote target's files home, and, if it became ready,
/// judge how it ended. A lost connection to the target's server fails the cell-repeat (`--resume` runs it again).
/// A kill by what a probe watches (the box's memory limit) is a crash, its cause ending with what the probes saw
/// last (the JVM's native memory at the last read before it).
fn stop_and_judge(
    run: &CellRun<'_>,
    shared_target: &Mutex<TargetProcess>,
    probes: &mut Probes,
    evidence: &Evidence<'_>,
    (target_dir, dir): (&Path, &Path),
    meta: &mut RepMeta,
) {
    let left_behind = shared_target.lock().expect("target").daemon_note();
    // Before the stop: a remote target's probes go with its agent.
    probes.before_stop(shared_target);
    let exit = shared_target.lock().expect("target").stop(run.plan.target.stop_timeout);
    probes.after_stop(shared_target);
    let files_note = bring_files_home(run, target_dir, dir, true);
    let target = shared_target.lock().expect("target");
    meta.jvm_said = gc_init::read(&RepFiles::of(dir).gc_log());
    meta.exit = Some(exit.clone());
    if let Some(lost) = target.lost().filter(|_| meta.status != Status::Failed) {
        let during = run.plan.phases.get(meta.phases.len());
        let when = during.map_or("after the last phase".to_string(), |phase| format!("during phase '{}'", phase.name));
        meta.status = Status::Failed;
        meta.failure = Some(FailureKind::Environment);
        meta.cause = Some(lost_cause(run, &lost, &when));
        return;
    }
    if meta.ready_s.is_some() && meta.status != Status::Failed {
        (meta.status, meta.cause) = ending_after_ready(run, meta, evidence, &exit, left_behind);
        drop(target);
        if let Some(cause) = probes.kill_cause(shared_target, &exit) {
            (meta.status, meta.failure, meta.cause) = (Status::Crashed, Some(FailureKind::MemoryLimit), Some(cause));
        }
    }
    if let Some(note) = files_note {
        meta.cause = Some(meta.cause.take().map_or(note.clone(), |cause| format!("{cause}; {note}")));
    }
}

/// The cause of a cell-repeat whose server could not be reached any more.
pub(super) fn lost_cause(run: &CellRun<'_>, lost: &str, when: &str) -> String {
    let host = run.server.map_or("the target's server", |server| server.destination());
    let silence_limit = in_seconds(run.server.map_or(DEFAULT_SILENCE_LIMIT, |server| server.silence_limit));
    format!(
        "lost the connection to {host} {when} ({lost}); the agent there stops the target by itself within {silence_limit}"
    )
}

/// Stamp the end and write the final meta.
fn finish(dir: &Path, mut meta: RepMeta) -> anyhow::Result<RepMeta> {
    meta.finished_unix_s = Some(unix_now());
    write_json(&RepFiles::of(dir).meta(), &meta)?;
    Ok(meta)
}

/// How a cell-repeat that became ready ended: failed when its command daemonized (`left_behind`), crashed on the
/// JVM's own evidence ([`Evidence::judge`]), incomplete when interrupted or cut short, else ok. With the cause.
fn ending_after_ready(
    run: &CellRun<'_>,
    meta: &RepMeta,
    evidence: &Evidence<'_>,
    exit: &ExitInfo,
    left_behind: Option<String>,
) -> (Status, Option<String>) {
    if let Some(note) = left_behind {
        return (Status::Failed, Some(note));
    }
    if let Ending::Crashed(cause) = evidence.judge(exit) {
        return (Status::Crashed, Some(cause));
    }
    if run.stop.load(Ordering::Relaxed) || meta.phases.len() < run.plan.phases.len() {
        return (Status::Incomplete, meta.cause.clone());
    }
    (Status::Ok, meta.cause.clone())
}

/// Run the phases in order while the probes watch the target; stops at Ctrl-C, when the target dies or its server
/// is lost. Returns what the attribution at the end needs of the JVM's clock (see [`JvmClocks`]).
fn drive_phases(
    run: &CellRun<'_>,
    target: &Arc<Mutex<TargetProcess>>,
    probes: &mut Probes,
    (target_dir, dir): (&Path, &Path),
    launch: &LaunchSpec,
    meta: &mut RepMeta,
) -> anyhow::Result<JvmClocks> {
    let port = launch.port;
    let mut ready = Ready { target, target_dir, dir, clock: None, meta };
    probes.ready(&mut ready);
    let perfdata = ready.clock;
    let server_offset = target.lock().expect("target").clock_offset();
    let slo: Vec<Threshold> = run.plan.slo.iter().filter_map(|expression| Threshold::parse(expression).ok()).collect();
    for phase in &run.plan.phases {
        if must_end(target, run.stop) {
            break;
        }
        if let Some(cause) = foreign_before_phase(run, target, &launch.ports, &phase.name) {
            meta.status = Status::Failed;
            meta.failure = Some(FailureKind::Environment);
            meta.cause = Some(cause);
            break;
        }
        let record = match run_phase(run, target, probes, dir, port, phase, &slo) {
            Ok(record) => record,
            Err(err) if phase.ladder.is_some() => {
                // A ladder fails only when no step was measured (Ctrl-C or the target's death before its first step
                // ended, a start probe nothing answered): no record, the cell-repeat stays incomplete, the sweep goes on.
                let why = format!("phase '{}' measured no step: {err:#}", phase.name);
                meta.cause = Some(meta.cause.take().map_or(why.clone(), |earlier| format!("{earlier}; {why}")));
                break;
            }
            Err(err) => return Err(err),
        };
        let interrupted = record.bench.interrupted;
        slow_csv::write(&RepFiles::of(dir).phase_slow_requests(&phase.name), &record.bench.slow)?;
        write_json(&RepFiles::of(dir).phase_record(&phase.name), &record)?;
        if interrupted {
            break; // Ctrl-C or the target died: this phase is not complete
        }
        meta.phases.push(phase.name.clone());
        write_json(&RepFiles::of(dir).meta(), meta)?;
    }
    probes.phases_done(target);
    Ok(JvmClocks { perfdata, server_offset })
}

/// Drive one phase against the target on `port` while the probes watch it; the phase's record, SLO judged, with
/// what each probe adds. A ladder phase runs its steps, each seen by the probes.
fn run_phase(
    run: &CellRun<'_>,
    target: &Arc<Mutex<TargetProcess>>,
    probes: &mut Probes,
    dir: &Path,
    port: u16,
    phase: &Phase,
    slo: &[Threshold],
) -> anyhow::Result<PhaseRecord> {
    if run.announce {
        say!("jload:        phase {}", phase.name);
    }
    let phase_stop = Arc::new(AtomicBool::new(false));
    probes.phase_started(target, &PhaseStarting { name: &phase.name, measured: phase.measure });
    let start_s = target.lock().expect("target").started().elapsed().as_secs_f64();
    let options = RunOptions {
        progress: run.show_progress,
        hlog: Some(RepFiles::of(dir).phase_hlog(&phase.name)),
        stop: phase_stop.clone(),
        start_at: None,
        cpus: run.plan.load.cpus.clone(),
    };
    let spec = phase.load.with_target(&target_address(run), port);
    let mut steps = StepsSeen { probes, target, stop: run.stop, phase_stop: &phase_stop, announce: run.announce };
    let (mut bench, cut_short) = std::thread::scope(|scope| {
        let guard = scope.spawn(|| end_phase_early(target, run.stop, &phase_stop));
        let result = drive_load(phase, &spec, &options, slo, &mut steps, run.generator);
        let cut_short = phase_stop.swap(true, Ordering::Relaxed);
        guard.thread().unpark();
        let _ = guard.join();
        result.map(|bench| (bench, cut_short))
    })?;
    // A ladder's headline step may be one that ran before Ctrl-C or the target's death cut a later step short.
    bench.interrupted |= cut_short;
    let slo_passed = (!slo.is_empty()).then(|| slo.iter().all(|threshold| threshold.judge(&bench).passed));
    let mut record = PhaseRecord::of_load(&phase.name, phase.measure, start_s, bench, slo_passed);
    probes.phase_ended(target, &mut record);
    Ok(record)
}

/// One run of the phase's load, or its ladder: each step judged on the capacity search's SLO, else the plan's.
fn drive_load(
    phase: &Phase,
    spec: &LoadSpec,
    options: &RunOptions,
    slo: &[Threshold],
    steps: &mut StepsSeen<'_>,
    generator: &dyn Generator,
) -> anyhow::Result<BenchResult> {
    match &phase.ladder {
        None => generator.run(spec, options),
        Some(ladder) => {
            let step_slo = match &ladder.plan {
                LadderPlan::Capacity(goal) => goal.slo.as_slice(),
                LadderPlan::Rates(_) => slo,
            };
            run_ladder(spec, &ladder.plan, &ladder.timing, step_slo, options, steps, generator)
        }
    }
}

/// Told of each ladder step: a step starts already ended when Ctrl-C was pressed or the target died, the probes
/// see each step's start and end, the target's counters are the probes', and each step's outcome is a progress line.
struct StepsSeen<'a> {
    probes: &'a mut Probes,
    target: &'a Mutex<TargetProcess>,
    stop: &'a AtomicBool,
    phase_stop: &'a AtomicBool,
    announce: bool,
}

impl StepObserver for StepsSeen<'_> {
    fn step_started(&mut self, _requested_rps: f64) {
        if must_end(self.target, self.stop) {
            self.phase_stop.store(true, Ordering::Relaxed);
        }
        self.probes.step_started(self.target);
    }

    fn step_finished(&mut self, step: &Step) {
        if self.announce {
            say!("jload:          step {}", step_line(step));
        }
        self.probes.step_finished(self.target);
    }

    fn steadiness(&mut self, line: &str) {
        if self.announce {
            say!("jload:          {line}");
        }
    }

    fn rate_pooled(&mut self, pooled: &Step) {
        if self.announce {
            say!("jload:            {}", pooled_line(pooled));
        }
    }

    fn target_counters(&mut self) -> Option<TargetCounters> {
        self.probes.counters(self.target)
    }
}

/// `, SLO met`, `, SLO missed`, or nothing for a step judged on no SLO.
fn slo_verdict(meets_slo: Option<bool>) -> &'static str {
    match meets_slo {
        Some(true) => ", SLO met",
        Some(false) => ", SLO missed",
        None => "",
    }
}

/// A ladder step in one line: `4000 req/s: 3998 achieved, p99 4.1 ms, SLO met`.
fn step_line(step: &Step) -> String {
    let verdict = slo_verdict(step.meets_slo);
    let limit = match &step.limited_by {
        Some(Limit { side: Side::Target, reason }) => format!("; limited by the target: {reason}"),
        Some(Limit { side: Side::Generator, reason }) => format!("; limited by jload (the generator): {reason}"),
        None => String::new(),
    };
    format!(
        "{} req/s: {:.0} achieved, p99 {:.2} ms{verdict}{limit}",
        step.requested_rps, step.achieved_rps, step.latency_ms.p99
    )
}

/// A rate's windows pooled, in one line: `over 2 windows, 6.0 s: p99 11.20 ms, SLO missed`.
fn pooled_line(pooled: &Step) -> String {
    let verdict = slo_verdict(pooled.meets_slo);
    format!("{}: p99 {:.2} ms{verdict}", pooled.pooled_windows(), pooled.latency_ms.p99)
}

/// Whether load must end now: Ctrl-C was pressed, the target died or its server cannot be reached.
fn must_end(target: &Mutex<TargetProcess>, stop: &AtomicBool) -> bool {
    stop.load(Ordering::Relaxed) || target.lock().expect("target").gone()
}

/// Watches a running phase every 100 ms: ends it early when Ctrl-C is pressed or the target dies. Unparked when the
/// phase ends, so that it lets go at once.
fn end_phase_early(target: &Arc<Mutex<TargetProcess>>, stop: &AtomicBool, phase_stop: &Arc<AtomicBool>) {
    while !phase_stop.load(Ordering::Relaxed) {
        if must_end(target, stop) {
            phase_stop.store(true, Ordering::Relaxed);
            return;
        }
        std::thread::park_timeout(Duration::from_millis(100));
    }
}

/// Read the cell's GC log and add to each phase's stored record the pauses inside its window (and each ladder
/// step's), and the attribution of its tail to the JVM's stops with what the probes add to them (its slow requests
/// read back from their file).
fn attach_gc_log(dir: &Path, meta: &RepMeta, clocks: &JvmClocks, probes: &Probes) -> anyhow::Result<()> {
    let Ok(log) = gclog::parse_path(&RepFiles::of(dir).gc_log()) else { return Ok(()) };
    let mut jvm_stops = probes.stops(JvmStops::of(&log, clocks.perfdata), dir);
    if let Some((offset_us, bound_us)) = clocks.server_offset {
        jvm_stops = jvm_stops.seen_from_afar(offset_us, bound_us);
    }
    for phase in &meta.phases {
        let files = RepFiles::of(dir);
        let path = files.phase_record(phase);
        let Some(mut record) = read_json::<PhaseRecord>(&path) else { continue };
        // A phase of one run: its GC figures over the load's own span, on the clock its attribution uses, so that
        // the two count the same pauses (a ladder's steps keep their windows: warm-up and measurement).
        if record.bench.steps.is_empty()
            && let (Some(jvm), Some((start_s, end_s))) = (record.jvm.as_mut(), jvm_stops.uptime_span(&record.bench))
        {
            (jvm.uptime_start_s, jvm.uptime_end_s) = (start_s, end_s);
        }
        let windows = record.jvm.iter_mut().chain(record.step_jvm.iter_mut().flatten());
        for jvm in windows {
            jvm.pauses = Some(WindowPauses::from_log(&log, jvm.uptime_start_s, jvm.uptime_end_s));
        }
        if let (Some(info), Some(kept)) =
            (record.bench.slow_requests, slow_csv::read(&files.phase_slow_requests(phase)))
        {
            record.bench.slow = SlowRequests::from_parts(info, kept);
            record.gc_attribution = gather::of_run(&record.bench, Some(&jvm_stops)).ok();
        }
        write_json(&path, &record)?;
    }
    Ok(())
}

/// What the probes add to each stored phase record from the files the cell-repeat left (a phase's profile from its
/// flight recording).
fn complete_phase_records(dir: &Path, meta: &RepMeta, probes: &Probes) -> anyhow::Result<()> {
    for phase in &meta.phases {
        let path = RepFiles::of(dir).phase_record(phase);
        let Some(mut record) = read_json::<PhaseRecord>(&path) else { continue };
        let before = record.clone();
        probes.complete(dir, &mut record);
        if record != before {
            write_json(&path, &record)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
