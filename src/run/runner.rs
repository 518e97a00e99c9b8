//! The sweep: preflight every cell, build the target once, then run every missing cell × repeat in the planned order
//! (shuffled rounds or sequential), keeping `summary.json` current after each, until done or interrupted.

use std::collections::{BTreeMap, HashSet};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use super::cell::command::{Placement, jvm_options};
use super::cell::{CellRun, run_cell_rep, unix_now};
use super::store::{build_summary, needs_run, repeats_of};
use crate::atomic_file::write_json;
use crate::error::{bad_input, exit};
use crate::load::generator::Generator;
use crate::load::input::spec::STAND_IN_HOST;
use crate::plan::jdks::{self, Jdk};
use crate::plan::matrix::Cell;
use crate::plan::preflight::{self, EffectiveFlags, Preflight};
use crate::plan::{Order, Plan};
use crate::remote::server::RemoteServer;
use crate::results::{FailureKind, RepFiles, RepMeta, ResultsDir, Status};

/// A cell with the JDK it runs on and what preflight said about its options.
pub struct PreparedCell {
    pub cell: Cell,
    pub jdk: Jdk,
    pub preflight: Preflight,
}

/// Log in to the target's servers (in parallel), copying jload there where it is missing. A server that cannot be
/// reached is bad input: the one-line error says which and how to check it.
pub fn connect_servers(plan: &Plan) -> anyhow::Result<Vec<RemoteServer>> {
    let connected: Vec<anyhow::Result<RemoteServer>> = std::thread::scope(|scope| {
        let handles: Vec<_> =
            plan.target.hosts.iter().map(|host| scope.spawn(move || RemoteServer::connect(host))).collect();
        handles.into_iter().map(|handle| handle.join().expect("connect thread")).collect()
    });
    connected.into_iter().map(|server| server.map_err(|err| bad_input(format!("target host: {err:#}")))).collect()
}

/// Resolve each cell's JDK and preflight the complete option set it will start with: jload's telemetry options
/// included, with the GC log and crash file in a scratch copy of the cell's folder (one `java -version` per cell).
/// With remote servers, on the first of them (they are meant to be identical).
pub fn prepare(plan: &Plan, cells: Vec<Cell>, server: Option<&RemoteServer>) -> anyhow::Result<Vec<PreparedCell>> {
    let installed = match server {
        None => jdks::discover(),
        Some(server) => server.jdks()?,
    };
    let scratch_dir = tempfile::Builder::new().prefix("jload-preflight-").tempdir()?;
    let scratch = ResultsDir::new(scratch_dir.path().to_path_buf());
    let mut checked: BTreeMap<(PathBuf, Vec<String>, String), Preflight> = BTreeMap::new();
    let mut prepared = Vec::new();
    for cell in cells {
        let jdk = jdks::choose(cell.jdk.as_deref().or(plan.target.jdk.as_deref()), &installed)?;
        let dir = scratch.rep_dir(&cell.dir, 1);
        std::fs::create_dir_all(&dir)?;
        let at = Placement { host: server.map_or(STAND_IN_HOST, |server| &server.address), port: "1", dir: &dir };
        let options = jvm_options(plan, &cell, &jdk, at);
        let key = (jdk.home.clone(), options.clone(), format!("{:?}", cell.limits));
        let outcome = checked
            .entry(key)
            .or_insert_with(|| match server {
                None => preflight::check_boxed(&jdk.java(), &options, plan.target.cpus.as_ref(), &cell.limits),
                Some(server) => server.preflight(&jdk.java(), &options, plan.target.cpus.as_ref(), &cell.limits, &dir),
            })
            .clone();
        prepared.push(PreparedCell { cell, jdk, preflight: outcome });
    }
    Ok(prepared)
}

/// The order cell-repeats run in: `(index into cells, repeat)`.
pub fn schedule(cell_count: usize, repeats: u32, order: Order, seed: u64) -> Vec<(usize, u32)> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut slots = Vec::new();
    for rep in 1..=repeats {
        let mut round: Vec<usize> = (0..cell_count).collect();
        if order == Order::Interleaved {
            rng.shuffle(&mut round);
        }
        slots.extend(round.into_iter().map(|cell| (cell, rep)));
    }
    if order == Order::Sequential {
        slots.sort_by_key(|&(cell, rep)| (cell, rep));
    }
    slots
}

/// Run `target.build` once in the target's working directory: here, or on each of its servers.
pub fn build_target(plan: &Plan, servers: &[RemoteServer]) -> anyhow::Result<()> {
    let Some(build) = &plan.target.build else { return Ok(()) };
    for server in servers {
        say!("jload: building the target on {}: {build}", server.destination());
        server
            .build(build, &plan.target.workdir)
            .map_err(|err| anyhow::anyhow!("target.build on {}: {err:#}", server.destination()))?;
    }
    if !servers.is_empty() {
        return Ok(());
    }
    say!("jload: building the target: {build}");
    let output = Command::new("sh").arg("-c").arg(build).current_dir(&plan.target.workdir).output()?;
    if !output.status.success() {
        let text = String::from_utf8_lossy(&output.stderr).to_string() + &String::from_utf8_lossy(&output.stdout);
        let tail: Vec<&str> = text.lines().rev().take(15).collect::<Vec<_>>().into_iter().rev().collect();
        anyhow::bail!("target.build '{build}' failed ({}):\n{}", output.status, tail.join("\n"));
    }
    Ok(())
}

/// Refuse a target command whose `-jar` file does not exist where the target runs (here, or on each server): bad
/// input, before any cell starts.
pub fn check_jar(plan: &Plan, servers: &[RemoteServer]) -> anyhow::Result<()> {
    let Some(jar) = preflight::jar_file(&plan.target.command, &plan.target.workdir) else { return Ok(()) };
    if servers.is_empty() {
        return if jar.is_file() { Ok(()) } else { Err(bad_input(preflight::missing_jar_error(&jar, "here"))) };
    }
    for server in servers {
        let quoted = shell_words::quote(&jar.display().to_string()).into_owned();
        if server.ssh.run(&format!("test -f {quoted}")).is_err() {
            let place = format!("on {}", server.destination());
            return Err(bad_input(preflight::missing_jar_error(&jar, &place)));
        }
    }
    Ok(())
}

/// Record a cell that preflight rejected as failed, without starting it.
pub(super) fn record_rejected(
    results: &ResultsDir,
    prepared: &PreparedCell,
    rep: u32,
    message: &str,
) -> anyhow::Result<()> {
    let dir = results.rep_dir(&prepared.cell.dir, rep);
    std::fs::create_dir_all(&dir)?;
    let now = unix_now();
    let mut meta = RepMeta::begun(prepared.cell.id.clone(), prepared.cell.axes.clone(), rep, prepared.jdk.clone(), now);
    meta.status = Status::Failed;
    meta.cause = Some(format!("preflight: {message}"));
    meta.failure = Some(FailureKind::Rejected);
    meta.finished_unix_s = Some(now);
    write_json(&RepFiles::of(&dir).meta(), &meta)
}

/// Run every cell-repeat of `prepared` the plan asks for, then the confirmation's (`run.confirm`), that is not
/// already final in `results`. Returns true when interrupted.
pub fn sweep(
    plan: &Plan,
    prepared: &[PreparedCell],
    results: &ResultsDir,
    seed: u64,
    stop: &Arc<AtomicBool>,
    servers: &[RemoteServer],
    generator: &dyn Generator,
) -> anyhow::Result<bool> {
    let slots = schedule(prepared.len(), plan.run.repeats, plan.run.order, seed);
    if run_slots(plan, prepared, results, slots, stop, servers, generator)? {
        return Ok(true);
    }
    let Some(confirm) = plan.run.confirm.filter(|&confirm| confirm > plan.run.repeats) else { return Ok(false) };
    let cells: Vec<Cell> = prepared.iter().map(|prepared| prepared.cell.clone()).collect();
    let contenders = match super::contenders::contenders(plan, &cells, results) {
        Ok(contenders) if !contenders.is_empty() => contenders,
        Ok(_) => return Ok(false),
        Err(err) => {
            say!("jload: no confirmation: the sweep's results could not be judged ({err:#})");
            return Ok(false);
        }
    };
    let ids: Vec<&str> = contenders.iter().map(|&index| cells[index].id.as_str()).collect();
    say!("jload: confirming the contenders for the best cell, to {confirm} repeats each: {}", ids.join(", "));
    let slots = confirmation_schedule(&contenders, plan.run.repeats, confirm, plan.run.order, seed);
    run_slots(plan, prepared, results, slots, stop, servers, generator)
}

/// The confirmation's cell-repeats, `(index into the sweep's cells, repeat)`: repeats `after + 1 ..= confirm` of
/// each contender, in rounds shuffled by the seed when the plan interleaves, else each contender's together.
fn confirmation_schedule(contenders: &[usize], after: u32, confirm: u32, order: Order, seed: u64) -> Vec<(usize, u32)> {
    schedule(contenders.len(), confirm - after, order, seed)
        .into_iter()
        .map(|(index, round)| (contenders[index], after + round))
        .collect()
}

/// Run the cell-repeats of `slots` (`(index into prepared, repeat)`, in order) not already final in `results`: one
/// after another here or on the one server, in parallel on several servers (each takes the next cell-repeat,
/// preferring a cell it has not run, so the repeats of a cell spread over the servers). Returns true when
/// interrupted.
fn run_slots(
    plan: &Plan,
    prepared: &[PreparedCell],
    results: &ResultsDir,
    slots: Vec<(usize, u32)>,
    stop: &Arc<AtomicBool>,
    servers: &[RemoteServer],
    generator: &dyn Generator,
) -> anyhow::Result<bool> {
    let cells: Vec<Cell> = prepared.iter().map(|prepared| prepared.cell.clone()).collect();
    let pending: Vec<(usize, u32)> = slots
        .into_iter()
        .filter(|&(index, rep)| needs_run(results.read_meta(&prepared[index].cell.dir, rep).as_ref()))
        .collect();
    let most_repeats = pending.iter().map(|&(_, rep)| rep).max().unwrap_or(0).max(plan.run.repeats);
    let queue = Mutex::new(SweepQueue::new(pending, prepared, results, most_repeats));
    let places: Vec<Option<&RemoteServer>> =
        if servers.is_empty() { vec![None] } else { servers.iter().map(Some).collect() };
    let summary = Mutex::new(());
    let write_summary = || -> anyhow::Result<()> {
        let _one_writer = summary.lock().expect("summary");
        write_json(&results.summary(), &build_summary(plan, &cells, results))
    };
    let announce = places.len() == 1;
    let show_progress = announce && std::io::stderr().is_terminal();
    let sweep_started = Instant::now();
    std::thread::scope(|scope| -> anyhow::Result<()> {
        let workers: Vec<_> = places
            .iter()
            .map(|&server| {
                let (queue, write_summary) = (&queue, &write_summary);
                scope.spawn(move || -> anyhow::Result<()> {
                    let host = server.map(|server| server.destination().to_string());
                    loop {
                        if stop.load(Ordering::Relaxed) {
                            return Ok(());
                        }
                        let Some((index, rep, number, total, done)) =
                            queue.lock().expect("queue").take(host.as_deref())
                        else {
                            return Ok(());
                        };
                        let item = &prepared[index];
                        let eta = if done > 0 {
                            let left = sweep_started.elapsed().as_secs_f64() / done as f64 * (total - done) as f64;
                            format!(", about {:.0} min left", (left / 60.0).ceil())
                        } else {
                            String::new()
                        };
                        let on = host.as_deref().map(|host| format!(" on {host}")).unwrap_or_default();
                        say!("jload: [{number}/{total}] {} rep {rep}{on}{eta}", item.cell.id);
                        match &item.preflight {
                            Preflight::Invalid(message) => record_rejected(results, item, rep, message)?,
                            Preflight::Valid(flags) => {
                                let run = CellRun {
                                    plan,
                                    cell: &item.cell,
                                    rep,
                                    jdk: &item.jdk,
                                    flags: Some(EffectiveFlags::clone(flags)),
                                    results,
                                    stop,
                                    announce,
                                    show_progress,
                                    server,
                                    generator,
                                };
                                let meta = run_cell_rep(&run)?;
                                let note = meta.cause.as_deref().map(|cause| format!(": {cause}")).unwrap_or_default();
                                say!("jload:        {} rep {rep}{on} {:?}{note}", item.cell.id, meta.status);
                            }
                        }
                        let more = queue.lock().expect("queue").finished();
                        write_summary()?;
                        if more && !stop.load(Ordering::Relaxed) {
                            std::thread::sleep(plan.run.cooldown);
                        }
                    }
                })
            })
            .collect();
        let mut outcome = Ok(());
        for worker in workers {
            let result = worker.join().map_err(|_| anyhow::anyhow!("a sweep worker panicked"))?;
            if outcome.is_ok() {
                outcome = result;
            }
        }
        outcome
    })?;
    write_summary()?;
    Ok(stop.load(Ordering::Relaxed))
}

/// The cell-repeats still to run, handed out one at a time: to a server, the first in the planned order whose cell
/// has not run on it yet (else simply the first), so that a cell's repeats land on different servers.
struct SweepQueue {
    pending: Vec<(usize, u32)>,
    total: usize,
    taken: usize,
    finished: usize,
    /// (cell index, host) pairs already run.
    ran_on: HashSet<(usize, String)>,
}

impl SweepQueue {
    fn new(pending: Vec<(usize, u32)>, prepared: &[PreparedCell], results: &ResultsDir, repeats: u32) -> SweepQueue {
        let mut ran_on = HashSet::new();
        for (index, item) in prepared.iter().enumerate() {
            for rep in 1..=repeats {
                if let Some(host) = results.read_meta(&item.cell.dir, rep).and_then(|meta| meta.host) {
                    ran_on.insert((index, host));
                }
            }
        }
        SweepQueue { total: pending.len(), pending, taken: 0, finished: 0, ran_on }
    }

    /// The next cell-repeat for `host`: (cell index, repeat, its number in the sweep, total, finished so far).
    fn take(&mut self, host: Option<&str>) -> Option<(usize, u32, usize, usize, usize)> {
        if self.pending.is_empty() {
            return None;
        }
        let position = host
            .and_then(|host| {
                self.pending.iter().position(|&(cell, _)| !self.ran_on.contains(&(cell, host.to_string())))
            })
            .unwrap_or(0);
        let (cell, rep) = self.pending.remove(position);
        if let Some(host) = host {
            self.ran_on.insert((cell, host.to_string()));
        }
        self.taken += 1;
        Some((cell, rep, self.taken, self.total, self.finished))
    }

    /// Count one cell-repeat finished; whether any is still waiting.
    fn finished(&mut self) -> bool {
        self.finished += 1;
        !self.pending.is_empty()
    }
}

/// Whether any repeat of `cell` is still to run in `results`.
pub fn has_work(results: &ResultsDir, cell: &Cell, repeats: u32) -> bool {
    (1..=repeats).any(|rep| needs_run(results.read_meta(&cell.dir, rep).as_ref()))
}

/// Refuse to start when preflight rejected a cell that is still to run, unless `--skip-invalid`.
pub fn check_preflight(
    prepared: &[PreparedCell],
    results: &ResultsDir,
    repeats: u32,
    skip_invalid: bool,
) -> anyhow::Result<()> {
    let invalid: Vec<String> = prepared
        .iter()
        .filter(|item| has_work(results, &item.cell, repeats))
        .filter_map(|item| match &item.preflight {
            Preflight::Invalid(message) => Some(format!("{}: {message}", item.cell.id)),
            Preflight::Valid(_) => None,
        })
        .collect();
    if invalid.is_empty() || skip_invalid {
        for line in &invalid {
            say!("jload: skipping invalid cell {line}");
        }
        return Ok(());
    }
    Err(bad_input(format!(
        "preflight rejected {} cell(s): {}; fix the options or run with --skip-invalid",
        invalid.len(),
        invalid.join(" | ")
    )))
}

/// How the cell-repeats of a sweep ended: the exit code and the closing advice come from it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SweepTally {
    /// Ran to the end or crashed after they were ready: results.
    pub ran: usize,
    pub failed: usize,
    /// Failed for a reason of the environment: `--resume` runs them again.
    pub retryable: usize,
}

impl SweepTally {
    /// The plan's `repeats` of each cell and those a confirmation added.
    pub fn of(results: &ResultsDir, cells: &[Cell], repeats: u32) -> SweepTally {
        let mut tally = SweepTally::default();
        for cell in cells {
            for rep in 1..=repeats_of(results, cell, repeats) {
                let meta = results.read_meta(&cell.dir, rep);
                match meta.as_ref().map(|meta| meta.status) {
                    Some(Status::Ok | Status::Crashed) => tally.ran += 1,
                    Some(Status::Failed) => {
                        tally.failed += 1;
                        tally.retryable += usize::from(needs_run(meta.as_ref()));
                    }
                    Some(Status::Incomplete) | None => {}
                }
            }
        }
        tally
    }

    /// 1 when nothing ran because every cell-repeat failed (no result at all), else 0.
    pub fn exit_code(&self) -> i32 {
        if self.ran == 0 && self.failed > 0 { exit::FAILED } else { exit::OK }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_whose_every_cell_failed_exits_1_and_one_result_makes_it_0() {
        let all_failed = SweepTally { ran: 0, failed: 4, retryable: 4 };
        assert_eq!(all_failed.exit_code(), exit::FAILED);
        let one_ran = SweepTally { ran: 1, failed: 3, retryable: 3 };
        assert_eq!(one_ran.exit_code(), exit::OK);
        assert_eq!(SweepTally { ran: 2, ..SweepTally::default() }.exit_code(), exit::OK);
    }

    #[test]
    fn the_confirmation_runs_the_repeats_after_the_plans_of_the_contenders_only() {
        assert_eq!(confirmation_schedule(&[4, 1], 1, 3, Order::Sequential, 7), [(4, 2), (4, 3), (1, 2), (1, 3)]);
        let interleaved = confirmation_schedule(&[0, 2, 5], 2, 4, Order::Interleaved, 7);
        assert_eq!(interleaved.len(), 6);
        for (round, rep) in [(0, 3), (1, 4)] {
            let mut cells: Vec<usize> = interleaved[round * 3..round * 3 + 3]
                .iter()
                .map(|&(cell, r)| {
                    assert_eq!(r, rep, "{interleaved:?}");
                    cell
                })
                .collect();
            cells.sort_unstable();
            assert_eq!(cells, [0, 2, 5], "every contender once per round");
        }
    }

    #[test]
    fn sequential_order_keeps_each_cells_repeats_together_and_interleaved_shuffles_rounds() {
        assert_eq!(schedule(2, 2, Order::Sequential, 1), [(0, 1), (0, 2), (1, 1), (1, 2)]);
        let interleaved = schedule(5, 3, Order::Interleaved, 42);
        assert_eq!(interleaved.len(), 15);
        for rep in 1..=3 {
            let mut round: Vec<usize> = interleaved[(rep as usize - 1) * 5..rep as usize * 5]
                .iter()
                .map(|&(cell, r)| {
                    assert_eq!(r, rep);
                    cell
                })
                .collect();
            round.sort_unstable();
            assert_eq!(round, [0, 1, 2, 3, 4], "every cell once per round");
        }
        assert_eq!(interleaved, schedule(5, 3, Order::Interleaved, 42), "the seed decides the order");
    }
}
