//! Whose server answered, end to end with real processes: a foreign server that takes a plan's fixed port while the
//! cell's JVM starts slowly fails the cell naming its pid and is never measured; a port already in use refuses every
//! cell-repeat before it starts while the sweep goes on; a foreign listener on a later phase's port fails the cell
//! before that phase; the same two checks on a remote target's server, made there by the agent; fixed ports in URLs
//! are warned about; a missing `-jar` is refused in one line before anything starts; a target killed mid-phase is
//! never ok.

use crate::common;

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use common::kv_plan::kv_plan;
use common::machine;
use common::{folder_of, jload, json, jvms_with, kv_jar, tempdir};

// The JVM-heavy tests share the machine two at a time (common::machine): what they assert is who answered and what
// was recorded, never how fast.

/// A loopback port that was free a moment ago.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// A plan against kv-service: `command` and `port` (a number, or `{port}`) as given, one `get` phase of `duration`.
fn plan(dir: &Path, command: &str, port: &str, axes: &str, duration: &str) -> PathBuf {
    let get = format!(
        "[[phase]]\nname = \"get\"\nurl = \"http://127.0.0.1:{port}/random_get?keyRange=100\"\n\
         connections = 4\nduration = \"{duration}\"\n"
    );
    kv_plan("owner").command(command).port(port).jvm(&["-Xmx64m"]).body(axes).body(&get).write(dir)
}

const ONE_CELL: &str = "[[axis]]\nname = \"gc\"\nvalues = [\"-XX:+UseSerialGC\"]\n";

/// A plain HTTP/1.1 server on `listener` that answers every request 200 (keep-alive) and counts the requests that
/// were not its ready probe (`/health`).
fn answer_200(listener: TcpListener) -> Arc<AtomicU64> {
    let not_health = Arc::new(AtomicU64::new(0));
    let counter = not_health.clone();
    thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let counter = counter.clone();
            thread::spawn(move || {
                let mut buffer = Vec::new();
                let mut chunk = [0u8; 4096];
                loop {
                    while let Some(end) = buffer.windows(4).position(|window| window == b"\r\n\r\n") {
                        let head = String::from_utf8_lossy(&buffer[..end]).to_string();
                        buffer.drain(..end + 4);
                        if !head.starts_with("GET /health ") {
                            counter.fetch_add(1, Ordering::SeqCst);
                        }
                        if stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok").is_err() {
                            return;
                        }
                    }
                    match stream.read(&mut chunk) {
                        Ok(0) | Err(_) => return,
                        Ok(count) => buffer.extend_from_slice(&chunk[..count]),
                    }
                }
            });
        }
    });
    not_health
}

/// Wait (at most 90 s) until `path` exists, while `child` runs.
fn wait_for(path: &Path, child: &mut std::process::Child) {
    let deadline = Instant::now() + Duration::from_secs(90);
    while !path.exists() {
        assert!(child.try_wait().unwrap().is_none(), "jload ended before {} appeared", path.display());
        assert!(Instant::now() < deadline, "{} never appeared", path.display());
        thread::sleep(Duration::from_millis(20));
    }
}

/// Wait (at most 120 s) for jload to end; its exit code and stderr.
fn finish(mut child: std::process::Child) -> (Option<i32>, String) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while child.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "jload did not end");
        thread::sleep(Duration::from_millis(100));
    }
    let output = child.wait_with_output().unwrap();
    (output.status.code(), String::from_utf8_lossy(&output.stderr).to_string())
}

fn spawn_run(plan: &Path, out: &Path) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_jload"))
        .args(["run", plan.to_str().unwrap(), "--out", out.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// The files of a cell-repeat's folder, by name.
fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|entry| entry.unwrap().file_name().to_string_lossy().to_string()).collect();
    names.sort();
    names
}

#[test]
fn a_foreign_server_answering_the_fixed_port_while_the_jvm_starts_slowly_fails_the_cell_naming_its_pid() {
    let _machine = machine::shared();
    let dir = tempdir();
    let out = dir.join("results");
    let port = free_port().to_string();
    // The start script waits 4 s before the JVM starts: the foreign server takes the port meanwhile, after jload
    // found it free.
    let command = format!("sh -c 'sleep 4; exec java {{jvm}} -jar {}'", kv_jar().display());
    let plan = plan(&dir, &command, &port, ONE_CELL, "3s");
    let mut child = spawn_run(&plan, &out);
    let rep = out.join("cells").join("gc=-XX_+UseSerialGC").join("rep-1");
    wait_for(&rep.join("stdout.log"), &mut child);
    let foreign = TcpListener::bind(format!("127.0.0.1:{port}")).expect("the port is still free: the JVM sleeps");
    let measured = answer_200(foreign);
    let (code, stderr) = finish(child);
    assert_eq!(code, Some(1), "the only cell-repeat failed: {stderr}");
    let meta = json(&rep.join("meta.json"));
    assert_eq!((meta["status"].as_str(), meta["failure"].as_str()), (Some("failed"), Some("environment")), "{meta:#}");
    let cause = meta["cause"].as_str().unwrap();
    let me = std::process::id();
    assert!(cause.contains(&format!("port {port} here is held by pid {me} (")), "{cause}");
    assert!(cause.contains("not measured") && cause.contains("{port}"), "{cause}");
    assert!(meta["ready_s"].is_null(), "never ready: {meta:#}");
    assert_eq!(measured.load(Ordering::SeqCst), 0, "the foreign server got only ready probes, no load");
    assert!(!files_in(&rep).iter().any(|name| name.starts_with("get.")), "no phase record: {:?}", files_in(&rep));
    let summary = json(&out.join("summary.json"));
    assert_eq!(summary["cells"][0]["status"], "failed", "{summary:#}");
    assert!(jvms_with(out.to_str().unwrap()).is_empty(), "the cell's own JVM was stopped");
}

#[test]
fn a_port_in_use_before_the_start_refuses_each_cell_repeat_naming_its_holder_and_the_sweep_goes_on() {
    let _machine = machine::shared();
    let dir = tempdir();
    let out = dir.join("results");
    let holder = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = holder.local_addr().unwrap().port().to_string();
    let command = format!("java {{jvm}} -jar {}", kv_jar().display());
    let two_cells = "[[axis]]\nname = \"gc\"\nvalues = [\"-XX:+UseSerialGC\", \"-XX:+UseParallelGC\"]\n";
    let plan = plan(&dir, &command, &port, two_cells, "2s");
    let (output, _) = jload(&["run", plan.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "every cell-repeat failed: {stderr}");
    let me = std::process::id();
    for id in ["gc=-XX:+UseSerialGC", "gc=-XX:+UseParallelGC"] {
        let rep = out.join("cells").join(folder_of(&out, id)).join("rep-1");
        let meta = json(&rep.join("meta.json"));
        assert_eq!(meta["status"], "failed", "{id}: {meta:#}");
        assert_eq!(meta["failure"], "environment", "--resume runs it again once the port is free");
        let cause = meta["cause"].as_str().unwrap();
        assert!(
            cause.starts_with(&format!("port {port} was already in use by pid {me} (")),
            "{id}: the holder named: {cause}"
        );
        assert!(cause.contains("before the target started, so it was not started"), "{cause}");
        assert!(meta["pid"].is_null(), "{id} was never started: {meta:#}");
        assert_eq!(files_in(&rep), ["meta.json"], "{id}: nothing started, nothing written");
    }
    // jload stops only its own tree: the holder still listens.
    assert!(std::net::TcpStream::connect(holder.local_addr().unwrap()).is_ok());
}

#[test]
fn urls_that_name_a_fixed_port_are_warned_about_in_one_line_and_placeholder_ports_are_not() {
    let _machine = machine::shared();
    let dir = tempdir();
    let command = format!("java {{jvm}} -jar {}", kv_jar().display());
    let fixed = plan(&dir, &command, "18088", ONE_CELL, "1s");
    let (output, _) = jload(&["run", fixed.to_str().unwrap(), "--dry-run"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "a warning, not an error: {stderr}");
    let warnings: Vec<&str> = stderr.lines().filter(|line| line.contains("warning")).collect();
    assert_eq!(
        warnings,
        ["jload: warning: target.ready, phase 'get' name the fixed port 18088 instead of {port}: each cell-repeat is \
          refused while another process holds it; write {port} in the URLs and pass it to the service (e.g. \
          -Dkv.port={port})"],
        "{stderr}"
    );
    let placeholder = plan(&dir, &command, "{port}", ONE_CELL, "1s");
    let (output, _) = jload(&["run", placeholder.to_str().unwrap(), "--dry-run"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("warning"), "{stderr}");
}

#[test]
fn a_missing_jar_is_refused_in_one_line_before_anything_starts() {
    let dir = tempdir();
    let out = dir.join("results");
    let plan = plan(&dir, "java {jvm} -jar missing/kv-service.jar", "{port}", ONE_CELL, "1s");
    let workdir = std::env::current_dir().unwrap();
    let expected = format!(
        "jload: target.command: the -jar file {} does not exist here; build it first (a [target] build step such as \
         `mvn -q package -DskipTests`) or fix the path (relative paths are from the target's workdir)\n",
        workdir.join("missing/kv-service.jar").display()
    );
    for dry_run in [false, true] {
        let mut args = vec!["run", plan.to_str().unwrap(), "--out", out.to_str().unwrap()];
        if dry_run {
            args.push("--dry-run");
        }
        let (output, _) = jload(&args);
        assert_eq!(output.status.code(), Some(2), "dry run {dry_run}");
        assert_eq!(String::from_utf8_lossy(&output.stderr), expected, "dry run {dry_run}");
        assert!(!out.exists(), "nothing written before the refusal");
    }
}

#[test]
fn a_target_killed_mid_phase_is_recorded_crashed_never_ok() {
    let _machine = machine::shared();
    let dir = tempdir();
    let out = dir.join("results");
    let command = format!("java {{jvm}} -jar {}", kv_jar().display());
    let plan = plan(&dir, &command, "{port}", ONE_CELL, "60s");
    let mut child = spawn_run(&plan, &out);
    let rep = out.join("cells").join("gc=-XX_+UseSerialGC").join("rep-1");
    // The JVM is watched from the phase's start: its gcstat.csv appears then.
    wait_for(&rep.join("gcstat.csv"), &mut child);
    thread::sleep(Duration::from_secs(2));
    let jload_pid = child.id();
    let jvms: Vec<u32> = jvms_with(out.to_str().unwrap()).into_iter().filter(|&pid| pid != jload_pid).collect();
    assert_eq!(jvms.len(), 1, "the cell's JVM: {jvms:?}");
    unsafe { libc::kill(jvms[0] as i32, libc::SIGKILL) };
    let started = Instant::now();
    let (code, stderr) = finish(child);
    assert!(started.elapsed() < Duration::from_secs(40), "the phase ended with its target, not after 60 s");
    let meta = json(&rep.join("meta.json"));
    assert_eq!(meta["status"], "crashed", "{stderr}\n{meta:#}");
    assert!(meta["cause"].as_str().unwrap().starts_with("the target died ("), "{meta:#}");
    assert_eq!(meta["phases"], serde_json::json!([]), "the cut phase is not counted as finished");
    let summary = json(&out.join("summary.json"));
    assert_eq!(summary["cells"][0]["status"], "crashed", "{summary:#}");
    assert_eq!(code, Some(0), "a crash is a result (docs/plan.md, exit codes): {stderr}");
}

#[test]
fn a_port_in_use_on_the_targets_server_is_refused_there_naming_its_holder() {
    let _machine = machine::shared();
    let net = common::sshnet::SshNet::start(&["server"]);
    let dir = tempdir();
    let out = dir.join("results");
    let port = 18088;
    let listen =
        format!("import socket, time; s = socket.socket(); s.bind(('0.0.0.0', {port})); s.listen(); time.sleep(120)");
    let started = net.ssh("server", &format!("setsid python3 -c \"{listen}\" </dev/null >/dev/null 2>&1 &"));
    assert!(started.status.success(), "{}", String::from_utf8_lossy(&started.stderr));
    let deadline = Instant::now() + Duration::from_secs(30);
    let holder = loop {
        if let Some((pid, _)) = net.processes("server").into_iter().find(|(_, name)| name == "python3") {
            break pid;
        }
        assert!(Instant::now() < deadline, "the holder never started on the server");
        thread::sleep(Duration::from_millis(100));
    };
    thread::sleep(Duration::from_secs(1)); // it binds right after it starts
    let plan = remote_plan(&dir, &net, &format!("java {{jvm}} -jar {}", kv_jar().display()), "/health", port);
    let output = Command::new(env!("CARGO_BIN_EXE_jload"))
        .args(["run", plan.to_str().unwrap(), "--out", out.to_str().unwrap()])
        .env("JLOAD_SSH_COMMAND", net.ssh_command())
        .output()
        .unwrap();
    unsafe { libc::kill(holder as i32, libc::SIGKILL) };
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    let meta = json(&out.join("cells").join(folder_of(&out, "gc=-XX:+UseSerialGC")).join("rep-1/meta.json"));
    let cause = meta["cause"].as_str().unwrap();
    let expected = format!("port {port} was already in use by pid {holder} (");
    assert!(cause.starts_with(&expected) && cause.contains("python3 -c import socket"), "the holder named: {cause}");
    let server = net.destination("server");
    assert!(cause.contains(&format!("on {server} before the target started, so it was not started")), "{cause}");
    assert!(meta["pid"].is_null(), "never started: {meta:#}");
}

#[test]
fn a_foreign_server_answering_on_a_remote_targets_server_is_named_by_the_agent_and_never_measured() {
    let _machine = machine::shared();
    let net = common::sshnet::SshNet::start(&["server"]);
    let dir = tempdir();
    let out = dir.join("results");
    let port = 18089;
    // The start script sleeps before the JVM starts: the foreign server takes the port on the server meanwhile.
    let command = format!("sh -c 'sleep 6; exec java {{jvm}} -jar {}'", kv_jar().display());
    let plan = remote_plan(&dir, &net, &command, "/", port);
    let mut child = Command::new(env!("CARGO_BIN_EXE_jload"))
        .args(["run", plan.to_str().unwrap(), "--out", out.to_str().unwrap()])
        .env("JLOAD_SSH_COMMAND", net.ssh_command())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(90);
    while !net.processes("server").iter().any(|(_, name)| name == "sleep") {
        assert!(child.try_wait().unwrap().is_none(), "jload ended before the target started");
        assert!(Instant::now() < deadline, "the target never started on the server");
        thread::sleep(Duration::from_millis(50));
    }
    let address = net.address("server");
    let serve =
        format!("setsid python3 -m http.server {port} --bind {address} --directory / </dev/null >/dev/null 2>&1 &");
    assert!(net.ssh("server", &serve).status.success());
    let (code, stderr) = finish(child);
    let holder = net.processes("server").into_iter().find(|(_, name)| name == "python3").map(|(pid, _)| pid);
    if let Some(pid) = holder {
        unsafe { libc::kill(pid as i32, libc::SIGKILL) };
    }
    assert_eq!(code, Some(1), "{stderr}");
    let rep = out.join("cells").join(folder_of(&out, "gc=-XX:+UseSerialGC")).join("rep-1");
    let meta = json(&rep.join("meta.json"));
    let cause = meta["cause"].as_str().unwrap();
    let server = net.destination("server");
    let expected = format!("port {port} on {server} is held by pid {} (", holder.expect("the foreign server ran"));
    assert!(cause.contains(&expected) && cause.contains("not measured"), "the agent named it: {cause}");
    assert!(meta["ready_s"].is_null() && !rep.join("get.json").exists(), "never measured: {meta:#}");
}

#[test]
fn a_foreign_listener_that_takes_a_later_phases_port_fails_the_cell_before_that_phase() {
    let _machine = machine::shared();
    let dir = tempdir();
    let out = dir.join("results");
    let fixed = free_port();
    let command = format!("java {{jvm}} -jar {}", kv_jar().display());
    let path = plan(&dir, &command, "{port}", ONE_CELL, "4s");
    // A second phase whose URL names a fixed port no process of the cell listens on.
    let later = format!(
        "[[phase]]\nname = \"later\"\nurl = \"http://127.0.0.1:{fixed}/random_get?keyRange=100\"\nduration = \"1s\"\n"
    );
    let text = std::fs::read_to_string(&path).unwrap().replace("[run]\n", &format!("{later}[run]\n"));
    std::fs::write(&path, text).unwrap();
    let mut child = spawn_run(&path, &out);
    let rep = out.join("cells").join("gc=-XX_+UseSerialGC").join("rep-1");
    // The first phase's interval log is begun once its load starts: the target was ready and its ports its own.
    wait_for(&rep.join("get.hlog.tmp"), &mut child);
    let measured = answer_200(TcpListener::bind(format!("127.0.0.1:{fixed}")).unwrap());
    let (code, stderr) = finish(child);
    assert_eq!(code, Some(1), "{stderr}");
    let meta = json(&rep.join("meta.json"));
    assert_eq!((meta["status"].as_str(), meta["failure"].as_str()), (Some("failed"), Some("environment")), "{meta:#}");
    let cause = meta["cause"].as_str().unwrap();
    let me = std::process::id();
    assert!(cause.starts_with(&format!("before phase 'later' port {fixed} here was held by pid {me} (")), "{cause}");
    assert_eq!(meta["phases"], serde_json::json!(["get"]), "the first phase ran against the target");
    assert_eq!(measured.load(Ordering::SeqCst), 0, "the foreign server got no load");
    assert!(!rep.join("later.json").exists());
}

/// A one-cell plan (a 2-s get phase) whose target runs `command` on the test network's server, ready at `ready_path`
/// on the fixed `port`, written into `dir`.
fn remote_plan(dir: &Path, net: &common::sshnet::SshNet, command: &str, ready_path: &str, port: u16) -> PathBuf {
    let get = format!(
        "[[phase]]\nname = \"get\"\nurl = \"http://{{host}}:{port}/random_get?keyRange=100\"\nduration = \"2s\"\n"
    );
    kv_plan("owner-remote")
        .on(&format!("host = \"{}\"", net.destination("server")))
        .command(command)
        .port(&port.to_string())
        .ready(&format!("http://{{host}}:{port}{ready_path}"))
        .jvm(&["-Xmx64m"])
        .body(ONE_CELL)
        .body(&get)
        .write(dir)
}
