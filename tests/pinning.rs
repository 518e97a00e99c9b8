//! CPU pinning from the command line and plans: `jload bench --cpus` runs its workers on those CPUs only, and CPUs this
//! machine lacks are refused in one line; a plan's `[target] cpus` / `[load] cpus` are checked for a local run and
//! their overlap is warned about.

use crate::common;

use common::kv_plan::kv_plan;
use common::machine;
use common::{folder_of, jload, json, jvms_with, ok, serve, tempdir};
use std::path::Path;
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

/// The CPUs this test may run on, as the kernel lists them (e.g. [0, 1]).
fn available_cpus() -> Vec<usize> {
    let list = allowed_list(Path::new("/proc/self/status"));
    list.split(',')
        .flat_map(|part| match part.split_once('-') {
            Some((from, to)) => (from.parse().unwrap()..=to.parse().unwrap()).collect::<Vec<usize>>(),
            None => vec![part.parse().unwrap()],
        })
        .collect()
}

fn allowed_list(status: &Path) -> String {
    let text = std::fs::read_to_string(status).unwrap_or_default();
    text.lines().find_map(|line| line.strip_prefix("Cpus_allowed_list:")).unwrap_or_default().trim().to_string()
}

/// (thread name, Cpus_allowed_list) of every `jload-worker-*` thread of a process.
fn workers_of(pid: u32) -> Vec<(String, String)> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else { return Vec::new() };
    tasks
        .filter_map(|task| {
            let task = task.ok()?.path();
            let name = std::fs::read_to_string(task.join("comm")).ok()?.trim().to_string();
            name.starts_with("jload-worker-").then(|| (name, allowed_list(&task.join("status"))))
        })
        .collect()
}

/// Run `jload bench -d 3s --cpus CPUS EXTRA… URL` against a local server and return its worker threads (name,
/// Cpus_allowed_list) as seen once the load is flowing (the workers pin themselves before the first request).
fn workers_during_bench(cpus: &str, extra: &[&str]) -> Vec<(String, String)> {
    let server = serve(|_| ok("pinned"));
    let mut bench = Command::new(env!("CARGO_BIN_EXE_jload"))
        .args(["bench", "-q", "-d", "3s", "--cpus", cpus])
        .args(extra)
        .arg(server.url("/"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while server.count_of("/") == 0 {
        assert!(Instant::now() < deadline, "no request reached the server");
        thread::sleep(Duration::from_millis(10));
    }
    let mut workers = workers_of(bench.id());
    workers.sort();
    let status = bench.wait().unwrap();
    assert!(status.success(), "jload bench exited {status}");
    workers
}

#[test]
fn bench_with_cpus_runs_one_worker_per_cpu_of_the_list_and_only_there() {
    let _machine = machine::shared();
    let cpu = available_cpus().last().unwrap().to_string();
    let workers = workers_during_bench(&cpu, &["-c", "4"]);
    assert_eq!(workers, vec![("jload-worker-0".to_string(), cpu)]);
}

#[test]
fn bench_with_more_threads_than_cpus_pins_every_worker_to_the_list() {
    let _machine = machine::shared();
    let cpu = available_cpus().last().unwrap().to_string();
    let workers = workers_during_bench(&cpu, &["-c", "6", "-t", "3"]);
    let expected: Vec<(String, String)> = (0..3).map(|index| (format!("jload-worker-{index}"), cpu.clone())).collect();
    assert_eq!(workers, expected);
}

#[test]
fn bench_with_a_cpu_this_machine_lacks_is_refused_in_one_line() {
    let beyond = available_cpus().last().unwrap() + 1;
    let available = allowed_list(Path::new("/proc/self/status"));
    let (output, _) = jload(&["bench", "--cpus", &beyond.to_string(), "http://127.0.0.1:9/"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        format!("jload: --cpus {beyond}: CPU {beyond} is not available here; choose from {available}\n")
    );
}

const PLAN: &str = "name = \"pin\"\n[target]\ncommand = \"java {jvm} -jar x.jar\"\nready = \"http://{host}:{port}/\"\n";
const PHASE: &str = "[[phase]]\nname = \"get\"\nurl = \"http://{host}:{port}/\"\nduration = \"1s\"\n";

/// `jload run PLAN --dry-run` on a plan of `PLAN` + `target` lines + `PHASE` + `rest`: (exit code, stderr).
fn dry_run(target: &str, rest: &str) -> (Option<i32>, String) {
    let dir = tempdir();
    let plan = dir.join("pin.toml");
    // The -jar file must exist (preflight checks it); it is never started.
    let jar = dir.join("x.jar");
    std::fs::write(&jar, "").unwrap();
    let text = format!("{PLAN}{target}\n{PHASE}{rest}").replace("x.jar", &jar.display().to_string());
    std::fs::write(&plan, text).unwrap();
    let (output, _) = jload(&["run", plan.to_str().unwrap(), "--dry-run"]);
    (output.status.code(), String::from_utf8_lossy(&output.stderr).into_owned())
}

#[test]
fn a_plan_pinning_the_local_target_or_load_to_a_cpu_this_machine_lacks_is_refused_at_its_line() {
    let beyond = available_cpus().last().unwrap() + 1;
    let available = allowed_list(Path::new("/proc/self/status"));
    let (code, stderr) = dry_run(&format!("cpus = \"{beyond}\""), "");
    assert_eq!(code, Some(2));
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains(&format!("line 5: target.cpus: CPU {beyond} is not available here; choose from {available}")),
        "{stderr}"
    );
    let (code, stderr) = dry_run("", &format!("[load]\ncpus = \"0,{beyond}\"\n"));
    assert_eq!(code, Some(2));
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains(&format!("load.cpus: CPU {beyond} is not available here; choose from {available}")));
}

#[test]
fn a_remote_targets_cpus_are_its_servers_and_not_checked_here() {
    let beyond = available_cpus().last().unwrap() + 1;
    let (code, stderr) = dry_run(&format!("host = \"root@jload.invalid\"\ncpus = \"{beyond}\""), "");
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.starts_with("jload: target host: ssh root@jload.invalid: `true` failed"),
        "the plan passed its checks, CPU list included; only logging in to the server failed: {stderr}"
    );
}

#[test]
fn a_run_whose_target_and_load_share_cpus_is_warned_once() {
    let (code, stderr) = dry_run("cpus = \"0-1\"", "[load]\ncpus = \"0\"\n");
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(
        stderr,
        "jload: warning: target.cpus (0-1) and load.cpus (0) share CPU 0: the JVM and the load generator will \
         compete for it; give them separate CPUs\n"
    );
    let (_, apart) = dry_run("cpus = \"0\"", "[load]\ncpus = \"1\"\n");
    assert_eq!(apart, "", "sets apart: no warning");
}

/// Poll `read` until it gives `expected` or 60 s pass; returns the last value read.
fn eventually<T: PartialEq>(expected: &T, mut read: impl FnMut() -> T) -> T {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let value = read();
        if value == *expected || Instant::now() > deadline {
            return value;
        }
        thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_run_starts_the_jvm_on_the_targets_cpus_and_loads_it_from_the_loads() {
    let _machine = machine::shared();
    let cpus = available_cpus();
    let (target_cpu, load_cpu) = (cpus[0], cpus[cpus.len() - 1]);
    let dir = tempdir();
    let out = dir.join("results");
    let plan = kv_plan("pinned")
        .default_store()
        .target(&format!("cpus = \"{target_cpu}\"\n"))
        .body(&format!(
            "[load]\ncpus = \"{load_cpu}\"\n[[phase]]\nname = \"get\"\n\
             url = \"http://127.0.0.1:{{port}}/random_get?keyRange=100\"\nconnections = 4\nduration = \"4s\"\n"
        ))
        .write(&dir);
    let mut run = Command::new(env!("CARGO_BIN_EXE_jload"))
        .args(["run", plan.to_str().unwrap(), "--out", out.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // The cell's JVM: neither jload itself, nor a child jload forked that has not yet become `java` (it still shows
    // jload's command line, and jload's CPUs until it sets the target's), nor the preflight's `java …
    // -XX:+PrintFlagsFinal -version` (all of them name the results folder too).
    let jload_pid = run.id();
    let cell_jvm = || {
        jvms_with(&out.display().to_string()).into_iter().filter(|&pid| pid != jload_pid).find(|pid| {
            let cmdline = String::from_utf8_lossy(&std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default())
                .into_owned();
            let program = cmdline.split('\0').next().unwrap_or_default();
            Path::new(program).file_name().is_some_and(|name| name == "java") && !cmdline.contains("PrintFlagsFinal")
        })
    };
    let jvm = eventually(&true, || cell_jvm().is_some()).then(cell_jvm).flatten();
    let jvm_cpus = allowed_list(Path::new(&format!("/proc/{}/status", jvm.expect("the cell's JVM started"))));
    let expected_workers = vec![("jload-worker-0".to_string(), load_cpu.to_string())];
    let workers = eventually(&expected_workers, || workers_of(run.id()));
    assert!(run.wait().unwrap().success());
    assert_eq!(jvm_cpus, target_cpu.to_string(), "the JVM");
    assert_eq!(workers, expected_workers, "one worker per CPU of load.cpus, pinned there");
    let phase = json(&out.join("cells").join(folder_of(&out, "default")).join("rep-1/get.json"));
    assert_eq!(phase["threads"], 1);
    assert!(phase["requests"].as_u64().unwrap() > 0);
}
