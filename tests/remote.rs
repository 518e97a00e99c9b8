//! `jload run` beyond one machine, with real OpenSSH between network namespaces of this machine (tests/common/sshnet):
//! the target on its own server, several load hosts merged into one result, a connection cut mid-phase (the agents'
//! silence limit set short by `JLOAD_SILENCE_LIMIT`), and nothing left running on the server afterwards.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::kv_plan::kv_plan;
use common::machine;
use common::sshnet::SshNet;
use common::{folder_of, json, kv_jar, tempdir};

/// A plan against kv-service on `servers` (one: `host`, several: `hosts`; its URLs name `{host}`), two cells (G1,
/// Parallel), a fill and a get phase in the open model; `extra` is appended after `[run]` (`repeats`, a `[load]` table).
fn remote_plan(dir: &Path, servers: &[String], get_duration: &str, extra: &str) -> PathBuf {
    let target_hosts = match servers {
        [server] => format!("host = \"{server}\""),
        servers => format!("hosts = {servers:?}"),
    };
    let body = format!(
        "[[axis]]\nname = \"gc\"\n\
         values = [ {{ label = \"G1\", jvm = [\"-XX:+UseG1GC\"] }}, {{ label = \"Parallel\", jvm = [\"-XX:+UseParallelGC\"] }} ]\n\
         [[phase]]\nname = \"fill\"\nmeasure = false\n\
         url = \"http://{{host}}:{{port}}/random_set?keyRange=2000&valueSize=100\"\nconnections = 4\nrequests = 2000\n\
         [[phase]]\nname = \"get\"\nurl = \"http://{{host}}:{{port}}/random_get?keyRange=2000\"\nok_status = \"200-299,404\"\n\
         connections = 8\nrate = 600\nduration = \"{get_duration}\"\n"
    );
    kv_plan("remote").on(&target_hosts).jvm(&["-Xms32m", "-Xmx64m"]).body(&body).run(extra).write(dir)
}

fn run(net: &SshNet, plan: &Path, out: &Path) -> Output {
    net.jload_run(plan, out).output().expect("jload runs")
}

/// Wait (90 s at most) until the run in `out` has finished cell gc=G1's fill phase, its JVM running on "server".
fn wait_until_the_get_phase_runs(net: &SshNet, out: &Path) {
    let deadline = Instant::now() + Duration::from_secs(90);
    let fill_done = || {
        out.join("run.json").is_file()
            && out.join("cells").join(folder_of(out, "gc=G1")).join("rep-1/fill.json").is_file()
    };
    while !fill_done() {
        assert!(Instant::now() < deadline, "the fill phase never ended");
        std::thread::sleep(Duration::from_millis(200));
    }
    assert!(net.processes("server").iter().any(|(_, name)| name == "java"), "the target runs on the server");
}

/// Java processes and jload agents still running on `host`.
fn left_on(net: &SshNet, host: &str) -> Vec<(u32, String)> {
    net.processes(host).into_iter().filter(|(_, name)| name == "java" || name.starts_with("jload")).collect()
}

#[test]
fn a_sweep_runs_each_cell_on_its_server_pinned_to_its_cpus_there_and_brings_its_files_home() {
    let _machine = machine::shared();
    let net = SshNet::start(&["server"]);
    let dir = tempdir();
    let out = dir.join("results");
    let plan = remote_plan(&dir, &[net.destination("server")], "3s", "");
    let pinned =
        std::fs::read_to_string(&plan).unwrap().replace("[target]\n", "[target]\ncpus = \"0\"\nprofile = true\n");
    std::fs::write(&plan, pinned).unwrap();
    let output = run(&net, &plan, &out);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    for id in ["gc=G1", "gc=Parallel"] {
        let rep = out.join("cells").join(folder_of(&out, id)).join("rep-1");
        let meta = json(&rep.join("meta.json"));
        assert_eq!(meta["status"], "ok", "{meta:#}");
        assert_eq!(meta["host"], net.destination("server"));
        assert_eq!(meta["flags"]["parallel_gc_threads"], 1, "preflight pinned there like the target: {meta}");
        let said = std::fs::read_to_string(rep.join("stdout.log")).unwrap();
        assert!(said.contains(" threads=1 "), "the JVM there saw the one CPU it was pinned to: {said}");
        let command = meta["command"].as_array().unwrap();
        assert!(command.contains(&format!("-Dkv.bind={}", net.address("server")).into()), "{{host}} filled: {meta}");
        let record = json(&rep.join("get.json"));
        assert!(record["requests"].as_u64().unwrap() >= 1500, "{record}");
        assert_eq!(record["errors"]["total"], 0, "{record}");
        assert!(
            record["jvm"]["samples"].as_u64().unwrap_or(0) >= 2,
            "the JVM sampled there every second: {}",
            record["jvm"]
        );
        assert!(record["jvm"]["pauses"].is_object(), "the GC log came home and was read: {record}");
        for file in ["gc.log", "gcstat.csv", "stdout.log", "stderr.log", "get.hlog", "get.jfr", "jfr-settings.jfc"] {
            assert!(rep.join(file).is_file(), "{id}: {file} missing in {}", rep.display());
        }
        assert_eq!(record["flight_recording"]["file"], "get.jfr", "recorded there, and the file came home: {record}");
        let clock_error = record["gc_attribution"]["clock_error_ms"].as_f64().unwrap();
        assert!(clock_error < 5.0, "the server's clock offset is measured, not guessed: {clock_error} ms");
    }
    let env = json(&out.join("env.json"));
    let server_env = &env["servers"][net.destination("server")];
    assert!(server_env["cores"].as_u64().unwrap() >= 1, "env.json holds the server's own facts: {env}");
    assert!(!server_env["jdks"].as_array().unwrap().is_empty(), "{env}");
    let copies: Vec<_> = std::fs::read_dir(net.cache_dir("server").join("jload/bin")).unwrap().collect();
    assert_eq!(copies.len(), 1, "jload copied itself to the server once");
    assert_eq!(left_on(&net, "server"), [], "no JVM or agent left on the server");
}

#[test]
fn two_load_hosts_share_a_phase_and_merge_into_one_result() {
    let _machine = machine::shared();
    let net = SshNet::start(&["server", "gen1", "gen2"]);
    let dir = tempdir();
    let out = dir.join("results");
    let hosts = format!("[load]\nhosts = [\"{}\", \"{}\"]\n", net.destination("gen1"), net.destination("gen2"));
    let plan = remote_plan(&dir, &[net.destination("server")], "4s", &hosts);
    // One cell is enough here: the merge is per phase (two cells are the other tests' matter).
    let output = net.jload_run(&plan, &out).args(["--only", "gc=G1"]).output().expect("jload runs");
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let rep = out.join("cells").join(folder_of(&out, "gc=G1")).join("rep-1");
    let bench = &json(&rep.join("get.json"));
    assert_eq!(bench["rate"], 600.0, "the rates of the shares add up: {bench}");
    assert_eq!(bench["connections"], 8);
    let parts = bench["hosts"].as_array().unwrap();
    let labels: Vec<&str> = parts.iter().map(|part| part["label"].as_str().unwrap()).collect();
    assert_eq!(labels, [net.destination("gen1"), net.destination("gen2")]);
    let sum: u64 = parts.iter().map(|part| part["requests"].as_u64().unwrap()).sum();
    assert_eq!(bench["requests"].as_u64().unwrap(), sum, "{bench}");
    // Each share scheduled its 300 req/s for 4 s (what a loaded machine's target then answered may be less).
    assert_eq!(bench["due"], 2400, "{bench}");
    for part in parts {
        assert!(part["requests"].as_u64().unwrap() > 0, "{part}");
    }
    assert!(rep.join("get.hlog").is_file(), "the merged interval log");
    for host in ["server", "gen1", "gen2"] {
        assert_eq!(left_on(&net, host), [], "nothing left on {host}");
    }
}

#[test]
fn a_connection_cut_mid_phase_fails_the_cell_and_the_server_stops_its_jvm() {
    let _machine = machine::shared();
    let net = SshNet::start(&["server"]);
    let dir = tempdir();
    let out = dir.join("results");
    let plan = remote_plan(&dir, &[net.destination("server")], "40s", "");
    // The agent gives up after 3 s without a word from jload (10 s unless JLOAD_SILENCE_LIMIT says otherwise).
    let child = net
        .jload_run(&plan, &out)
        .env("JLOAD_SILENCE_LIMIT", "3s")
        .arg("--only")
        .arg("gc=G1")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_until_the_get_phase_runs(&net, &out);
    std::thread::sleep(Duration::from_secs(1)); // the 40-s get phase runs
    net.cut("server");
    let cut = Instant::now();
    while !left_on(&net, "server").is_empty() {
        // 3 s of silence and the JVM's stop (3.0–3.2 s when measured); the default 10 s would fail here.
        assert!(
            cut.elapsed() < Duration::from_secs(8),
            "the JVM outlived the connection and the 3-s silence limit: {:?}",
            left_on(&net, "server")
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    net.restore("server");
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "the only cell-repeat failed: {stderr}");
    assert!(stderr.contains("1 cell-repeat(s) failed for a reason outside their configuration"), "{stderr}");
    let meta = json(&out.join("cells").join(folder_of(&out, "gc=G1")).join("rep-1/meta.json"));
    assert_eq!(meta["status"], "failed", "{meta:#}");
    assert_eq!(meta["failure"], "environment", "--resume runs it again: {meta:#}");
    let cause = meta["cause"].as_str().unwrap();
    assert!(
        cause.starts_with(&format!("lost the connection to {} during phase 'get'", net.destination("server"))),
        "{cause}"
    );
    assert!(cause.ends_with("the agent there stops the target by itself within 3 s"), "the limit set: {cause}");
    assert!(cut.elapsed() < Duration::from_secs(60), "jload noticed within seconds");
}

#[test]
fn cells_spread_over_two_servers_run_in_parallel_and_a_cells_repeats_change_server() {
    let _machine = machine::shared();
    let net = SshNet::start(&["s1", "s2"]);
    let dir = tempdir();
    let out = dir.join("results");
    let servers = [net.destination("s1"), net.destination("s2")];
    let plan = remote_plan(&dir, &servers, "3s", "repeats = 2\n");
    let output = run(&net, &plan, &out);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let mut spans = Vec::new();
    for id in ["gc=G1", "gc=Parallel"] {
        let hosts: Vec<String> = (1..=2)
            .map(|rep| {
                let meta = json(&out.join("cells").join(folder_of(&out, id)).join(format!("rep-{rep}/meta.json")));
                assert_eq!(meta["status"], "ok", "{meta:#}");
                let host = meta["host"].as_str().unwrap().to_string();
                assert!(servers.contains(&host), "{host}");
                spans.push((
                    host.clone(),
                    meta["started_unix_s"].as_u64().unwrap(),
                    meta["finished_unix_s"].as_u64().unwrap(),
                ));
                host
            })
            .collect();
        assert_ne!(hosts[0], hosts[1], "{id}: its two repeats ran on different servers");
    }
    let overlapping = spans.iter().any(|(host_a, start_a, end_a)| {
        spans.iter().any(|(host_b, start_b, end_b)| host_a != host_b && start_a < end_b && start_b < end_a)
    });
    assert!(overlapping, "cell-repeats on different servers ran at the same time: {spans:?}");
    let report = json(&out.join("report.json"));
    let get = report["phases"].as_array().unwrap().iter().find(|phase| phase["name"] == "get").unwrap();
    let mut sorted = servers.to_vec();
    sorted.sort();
    assert_eq!(get["hosts"]["hosts"], serde_json::json!(sorted), "the report weighs the host: {}", get["hosts"]);
    assert!(!get["hosts"]["sentence"].as_str().unwrap().is_empty());
    for host in ["s1", "s2"] {
        assert_eq!(left_on(&net, host), [], "nothing left on {host}");
    }
}

#[test]
fn bench_from_two_load_hosts_prints_one_merged_result_with_each_hosts_share() {
    let _machine = machine::shared();
    let net = SshNet::start(&["server", "gen1", "gen2"]);
    let port = 18_000 + std::process::id() % 1000;
    let address = net.address("server");
    let java = format!("exec java -Dkv.bind={address} -Dkv.port={port} -Xmx64m -jar {}", kv_jar().display());
    let mut service =
        net.ssh_process("server", &[], &java).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    let url = format!("http://{address}:{port}/health");
    let ready = Instant::now();
    while std::net::TcpStream::connect(format!("{address}:{port}")).is_err() {
        assert!(ready.elapsed() < Duration::from_secs(30), "kv-service never listened on the server");
        std::thread::sleep(Duration::from_millis(200));
    }
    let dir = tempdir();
    let json_path = dir.join("merged.json");
    let hosts = format!("{},{}", net.destination("gen1"), net.destination("gen2"));
    let output = Command::new(env!("CARGO_BIN_EXE_jload"))
        .args(["bench", "-q", "--hosts", &hosts, "-R", "400", "-c", "4", "-d", "3s", "--json"])
        .arg(&json_path)
        .arg(&url)
        .env("JLOAD_SSH_COMMAND", net.ssh_command())
        .output()
        .unwrap();
    let _ = service.kill();
    let _ = service.wait();
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains(&net.destination("gen1")) && stdout.contains(&net.destination("gen2")),
        "per-host table: {stdout}"
    );
    let result = json(&json_path);
    let parts = result["hosts"].as_array().unwrap();
    assert_eq!(parts.len(), 2);
    let sum: u64 = parts.iter().map(|part| part["requests"].as_u64().unwrap()).sum();
    assert_eq!(result["requests"].as_u64().unwrap(), sum);
    for part in parts {
        assert!(part["requests"].as_u64().unwrap() >= 500, "each host sent its 200 req/s for 3 s: {part}");
    }
    assert_eq!(result["rate"], 400.0);
    assert_eq!(result["errors"]["total"], 0, "{result}");
}

#[test]
fn bench_hosts_refuses_a_loopback_url_before_logging_in() {
    let output = Command::new(env!("CARGO_BIN_EXE_jload"))
        .args(["bench", "--hosts", "nobody@jload.invalid", "-d", "1s", "http://127.0.0.1:9/"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "jload: --hosts: http://127.0.0.1:9/ names this machine's loopback, which on each load host is that host \
         itself; give the target's address as the load hosts reach it\n"
    );
}

#[test]
fn a_silence_limit_shorter_than_two_heartbeats_is_refused_in_one_line_before_logging_in() {
    let dir = tempdir();
    let out = dir.join("results");
    let plan = remote_plan(&dir, &["nobody@jload.invalid".to_string()], "1s", "");
    let output = Command::new(env!("CARGO_BIN_EXE_jload"))
        .args(["run", plan.to_str().unwrap(), "--out", out.to_str().unwrap()])
        .env("JLOAD_SILENCE_LIMIT", "1500ms")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "jload: target host: JLOAD_SILENCE_LIMIT: '1500ms' is shorter than 2 s; jload says it is still there once a \
         second, and an agent must hear it at least once before it gives up\n"
    );
    assert!(!out.exists(), "nothing started");
}

#[test]
fn a_target_listening_only_on_its_servers_loopback_fails_with_the_fix() {
    let _machine = machine::shared();
    let net = SshNet::start(&["server"]);
    let dir = tempdir();
    let out = dir.join("results");
    let plan = remote_plan(&dir, &[net.destination("server")], "3s", "");
    let text = std::fs::read_to_string(&plan).unwrap();
    std::fs::write(&plan, text.replace("-Dkv.bind={host}", "-Dkv.bind=127.0.0.1").replace("\"60s\"", "\"8s\""))
        .unwrap();
    let output = net.jload_run(&plan, &out).args(["--only", "gc=G1"]).output().unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", String::from_utf8_lossy(&output.stderr));
    let meta = json(&out.join("cells").join(folder_of(&out, "gc=G1")).join("rep-1/meta.json"));
    let port = meta["port"].as_u64().unwrap();
    assert_eq!(
        meta["cause"].as_str().unwrap(),
        format!(
            "not ready at http://{address}:{port}/health within 8s: on {server} the target listens only on \
             127.0.0.1:{port}, which the load cannot reach from another machine; make it listen on {{host}} \
             (kv-service: -Dkv.bind={{host}}; Tomcat: the Connector's address)",
            address = net.address("server"),
            server = net.destination("server"),
        )
    );
    assert_eq!(left_on(&net, "server"), []);
}

#[test]
fn a_remote_target_that_runs_out_of_memory_is_recorded_crashed_from_its_own_words() {
    let _machine = machine::shared();
    let net = SshNet::start(&["server"]);
    let dir = tempdir();
    let out = dir.join("results");
    let plan = remote_plan(&dir, &[net.destination("server")], "3s", "");
    let text = std::fs::read_to_string(&plan).unwrap();
    let starved = text
        .replace("\"-Xmx64m\"", "\"-Xmx32m\", \"-Dkv.maxMemory=1g\"")
        .replace("keyRange=2000&valueSize=100\"", "keyRange=2000&valueSize=100000\"");
    std::fs::write(&plan, starved).unwrap();
    let output = net.jload_run(&plan, &out).args(["--only", "gc=G1"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    let rep = out.join("cells").join(folder_of(&out, "gc=G1")).join("rep-1");
    let meta = json(&rep.join("meta.json"));
    assert_eq!(meta["status"], "crashed", "{stderr}\n{meta:#}");
    let cause = meta["cause"].as_str().unwrap();
    let evidence = "Terminating due to java.lang.OutOfMemoryError";
    assert!(cause.starts_with(&format!("Java OOM: Java heap space — {evidence}")), "{cause}");
    let said = ["stdout.log", "stderr.log"].map(|file| std::fs::read_to_string(rep.join(file)).unwrap()).concat();
    assert!(said.contains(cause.trim_start_matches("Java OOM: Java heap space — ")), "the evidence came home: {said}");
    assert_eq!(left_on(&net, "server"), []);
}

#[test]
fn jload_killed_mid_phase_leaves_no_jvm_on_the_server() {
    let _machine = machine::shared();
    let net = SshNet::start(&["server"]);
    let dir = tempdir();
    let out = dir.join("results");
    let plan = remote_plan(&dir, &[net.destination("server")], "40s", "");
    let mut child = net
        .jload_run(&plan, &out)
        .args(["--only", "gc=G1"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_until_the_get_phase_runs(&net, &out);
    child.kill().unwrap(); // SIGKILL: jload cannot stop anything itself
    child.wait().unwrap();
    let killed = Instant::now();
    while !left_on(&net, "server").is_empty() {
        assert!(
            killed.elapsed() < Duration::from_secs(15),
            "the JVM outlived the jload that started it: {:?}",
            left_on(&net, "server")
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}
