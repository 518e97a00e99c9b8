//! A cell-repeat's target until it is ready, and whose server answers it: the ports the cell's URLs reach (refused
//! before the start while one is in use, see [`crate::launcher::PortInUse`]), waiting for the ready URL with every
//! listener on those ports the target's own, and the one-line cause of a target that never became ready — it
//! exited, nothing listened, a foreign process answered instead, the port was taken.

use std::path::Path;
use std::sync::Mutex;

use super::{CellRun, bring_files_home, lost_cause, target_address};
use crate::launcher::{LaunchSpec, Listener, PortInUse, Readiness};
use crate::load::input::spec::fill_target;
use crate::plan::Plan;
use crate::results::{ExitInfo, FailureKind, RepMeta, Status};
use crate::run::cell::crash::Evidence;
use crate::run::cell::probes::Probes;
use crate::run::cell::target_process::TargetProcess;

/// What to do instead of a fixed port, for every cause about one.
const USE_PORT_PLACEHOLDER: &str =
    "stop that process, or let jload pick a free port: {port} in the command (e.g. -Dkv.port={port}) and the URLs";

/// Every port the cell's URLs reach on the target's `host` once `{port}` is `port`: the ready URL's and each
/// phase's requests', in order, once each. A URL that cannot be read adds none (the plan check refuses those).
pub fn cell_ports(plan: &Plan, host: &str, port: u16) -> Vec<u16> {
    let port_text = port.to_string();
    let mut ports = Vec::new();
    for (_, url) in plan.urls() {
        let filled = fill_target(url, host, &port_text);
        if let Some(found) = url::Url::parse(&filled).ok().and_then(|url| url.port_or_known_default())
            && !ports.contains(&found)
        {
            ports.push(found);
        }
    }
    ports
}

/// Where the target runs, for a cause: `here` or `on user@server`.
fn place(run: &CellRun<'_>) -> String {
    run.server.map_or("here".to_string(), |server| format!("on {}", server.destination()))
}

/// The cause of a start refused because a port of the cell was in use (None for any other failure to start).
pub fn port_in_use_cause(run: &CellRun<'_>, err: &anyhow::Error) -> Option<String> {
    let refused = err.chain().find_map(|cause| cause.downcast_ref::<PortInUse>())?;
    Some(format!("{refused} {} before the target started, so it was not started: {USE_PORT_PLACEHOLDER}", place(run)))
}

/// The cause of a ready URL answered while a process outside the target's tree listens on `port`.
fn foreign_cause(run: &CellRun<'_>, ready_url: &str, port: u16, pid: u32, listeners: &[Listener]) -> String {
    let foreign: Vec<Listener> = listeners.iter().filter(|listener| !listener.own).cloned().collect();
    format!(
        "{ready_url} answered, but port {port} {} is held by {}, not by the target (pid {pid}) or a process it \
         started, so that process would have been measured; not measured: {USE_PORT_PLACEHOLDER}",
        place(run),
        Listener::describe_all(&foreign)
    )
}

/// Wait for the target's ready URL; record when it answered, or why it never did (a foreign process answering is
/// never readiness).
pub fn wait_until_ready(
    run: &CellRun<'_>,
    target: &Mutex<TargetProcess>,
    probes: &mut Probes,
    evidence: &Evidence<'_>,
    (target_dir, dir): (&Path, &Path),
    launch: &LaunchSpec,
    meta: &mut RepMeta,
) {
    let port = launch.port;
    let ready_url = fill_target(&run.plan.target.ready, &target_address(run), &port.to_string());
    let startup_timeout = run.plan.target.startup_timeout;
    let readiness = target.lock().expect("target").wait_ready(&ready_url, &launch.ports, startup_timeout, run.stop);
    let failed = |meta: &mut RepMeta, kind: FailureKind, cause: String| {
        meta.status = Status::Failed;
        meta.failure = Some(kind);
        meta.cause = Some(cause);
    };
    match readiness {
        Readiness::Ready(after) => meta.ready_s = Some(after.as_secs_f64()),
        Readiness::Exited(exit) => {
            bring_files_home(run, target_dir, dir, false);
            let daemonized = target.lock().expect("target").daemon_note();
            let crashed = daemonized.is_none() && evidence.cause().is_some();
            let kind = if crashed { FailureKind::StartupCrash } else { FailureKind::Environment };
            match probes.kill_cause(target, &exit) {
                Some(cause) => failed(meta, FailureKind::MemoryLimit, format!("before it was ready: {cause}")),
                None => failed(meta, kind, exited_early_cause(&exit, daemonized, evidence)),
            }
            meta.exit = Some(exit);
        }
        Readiness::Foreign { port, listeners } => {
            let pid = target.lock().expect("target").pid();
            failed(meta, FailureKind::Environment, foreign_cause(run, &ready_url, port, pid, &listeners));
        }
        Readiness::Lost(lost) => {
            failed(meta, FailureKind::Environment, lost_cause(run, &lost, "before the target was ready"));
        }
        Readiness::TimedOut => {
            let listening = target.lock().expect("target").listening(port);
            let hint = listening.map(|addresses| why_not_ready(run, port, &addresses)).unwrap_or_default();
            failed(
                meta,
                FailureKind::Environment,
                format!("not ready at {ready_url} within {startup_timeout:?}{hint}"),
            );
        }
        Readiness::Interrupted => meta.cause = Some("interrupted before it was ready".to_string()),
    }
}

/// Before a phase: the cause when a process outside the target's tree now listens on one of the cell's ports (the
/// load would reach it, not the target); None while every listener is the target's own.
pub fn foreign_before_phase(
    run: &CellRun<'_>,
    target: &Mutex<TargetProcess>,
    ports: &[u16],
    phase: &str,
) -> Option<String> {
    let target = target.lock().expect("target");
    let (port, listeners) = target.foreign_listener(ports)?;
    let foreign: Vec<Listener> = listeners.into_iter().filter(|listener| !listener.own).collect();
    Some(format!(
        "before phase '{phase}' port {port} {} was held by {}, not by the target (pid {}); not measured further: \
         {USE_PORT_PLACEHOLDER}",
        place(run),
        Listener::describe_all(&foreign),
        target.pid()
    ))
}

/// What the addresses listening on the cell's port say about a target that never answered its ready URL: nothing
/// listens (the command ignores `{port}`), or only loopback does while the load comes from another machine.
fn why_not_ready(run: &CellRun<'_>, port: u16, addresses: &[std::net::SocketAddr]) -> String {
    let place = place(run);
    if addresses.is_empty() {
        return format!(": nothing listens on port {port} {place} (does the command pass {{port}} to the service?)");
    }
    if run.server.is_some() && addresses.iter().all(|address| address.ip().is_loopback()) {
        let shown: Vec<String> = addresses.iter().map(ToString::to_string).collect();
        return format!(
            ": {place} the target listens only on {}, which the load cannot reach from another machine; make it \
             listen on {{host}} (kv-service: -Dkv.bind={{host}}; Tomcat: the Connector's address)",
            shown.join(", ")
        );
    }
    String::new()
}

/// Why a target ended before it was ready: the JVM's own report, a daemon it left behind, or its last words.
fn exited_early_cause(exit: &ExitInfo, daemonized: Option<String>, evidence: &Evidence<'_>) -> String {
    let detail = daemonized
        .or_else(|| evidence.cause())
        .or_else(|| last_line(evidence.stderr))
        .or_else(|| last_line(evidence.stdout));
    format!("exited before it was ready ({}){}", exit.describe(), detail.map(|d| format!(": {d}")).unwrap_or_default())
}

/// The last non-empty line of a log file (what a service says as it gives up).
fn last_line(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    text.lines().rev().map(str::trim).find(|line| !line.is_empty()).map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::cell_ports;
    use crate::plan::{PlanBase, parse_plan};

    #[test]
    fn the_ports_of_a_cell_are_its_ready_urls_and_each_phases_once_each_in_order() {
        let text = "name = \"p\"\n[target]\ncommand = \"java {jvm} -jar x.jar\"\n\
            ready = \"http://127.0.0.1:{port}/health\"\n\
            [[phase]]\nname = \"a\"\nurl = \"http://127.0.0.1:9000/a\"\nduration = \"1s\"\n\
            [[phase]]\nname = \"b\"\nurl = \"http://{host}:{port}/b?k={rand:1..9}\"\nduration = \"1s\"\n\
            [[phase]]\nname = \"c\"\nurl = \"http://localhost/c\"\nduration = \"1s\"\n";
        let plan = parse_plan("p.toml", text, &PlanBase { plan_dir: "/tmp".into(), cwd: "/tmp".into() }).unwrap();
        assert_eq!(cell_ports(&plan, "127.0.0.1", 41234), [41234, 9000, 80]);
    }
}
