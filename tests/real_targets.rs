//! `jload run` on targets nobody here wrote, as real processes: a service that logs lines merely mentioning
//! OutOfMemoryError (and one whose thread really runs out of heap), a start script that runs java without exec,
//! a script that daemonizes like `startup.sh`, a plan whose options would never reach the JVM, and a real Apache
//! Tomcat fetched through Maven by plans/tomcat.toml's build step (cached under target/tomcat/), and a real WireMock
//! (plans/wiremock.toml's, from Maven Central into target/wiremock/) whose program arguments switch its request
//! journal off. After every run no process of the target is left, checked by scanning /proc.

use crate::common;

use std::path::{Path, PathBuf};

use common::machine::{alone, shared};
use common::{folder_of, jload, json, repo, tempdir};

// JVM-heavy tests share the machine two at a time (common::machine): they assert what was recorded, not how fast
// (Tomcat's ladder only that it got requests through without errors). Except one: the late daemon's script gives jload
// one second to see its target ready.

/// A plan file: `target` is the body of [target] without `ready` (always the service's /health).
fn plan(dir: &Path, name: &str, target: &str, axes: &str) -> PathBuf {
    let text = format!(
        "name = \"{name}\"\n[target]\n{target}\nready = \"http://127.0.0.1:{{port}}/health\"\nstartup_timeout = \"60s\"\n\
         stop_timeout = \"5s\"\n{axes}\n[[phase]]\nname = \"get\"\nurl = \"http://127.0.0.1:{{port}}/\"\n\
         connections = 4\nduration = \"2s\"\n[run]\ncooldown = \"0s\"\norder = \"sequential\"\n"
    );
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, text).unwrap();
    path
}

fn misleading_source() -> String {
    repo().join("tests/java/Misleading.java").display().to_string()
}

/// A shell script in `dir`.
fn script(dir: &Path, name: &str, body: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    path.display().to_string()
}

fn run(plan: &Path, out: &Path, extra: &[&str]) -> (i32, String, String) {
    let mut args = vec!["run", plan.to_str().unwrap(), "--out", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    let (output, _) = jload(&args);
    let stdout = String::from_utf8_lossy(&output.stdout).to_string();
    let stderr = String::from_utf8_lossy(&output.stderr).to_string();
    (output.status.code().unwrap_or(-1), stdout, stderr)
}

/// Live processes whose environment or command line mentions `marker` (a results folder): jload marks every
/// process of a target with `JLOAD_TARGET=<cell folder>`.
fn processes_mentioning(marker: &str) -> Vec<(u32, String)> {
    let mentions =
        |file: String| std::fs::read(file).is_ok_and(|bytes| String::from_utf8_lossy(&bytes).contains(marker));
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| *pid != std::process::id())
        .filter(|pid| mentions(format!("/proc/{pid}/environ")) || mentions(format!("/proc/{pid}/cmdline")))
        .map(|pid| (pid, std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default().trim().to_string()))
        .collect()
}

/// The line of the terminal table that starts with `row`, split into cells.
fn terminal_row<'a>(stdout: &'a str, row: &str) -> Vec<&'a str> {
    let line = stdout.lines().find(|line| line.trim_start().starts_with(row)).unwrap_or_else(|| panic!("{stdout}"));
    line.split_whitespace().skip(row.split_whitespace().count()).collect()
}

#[test]
fn lines_that_mention_out_of_memory_are_no_crash_and_a_real_one_is_the_same_crash_everywhere() {
    let _machine = shared();
    let dir = tempdir();
    let target = format!(
        "command = \"java {{jvm}} {} --port {{port}}\"\njvm = [\"-Xmx32m\", \"-XX:+UseSerialGC\"]\nexit_on_oom = false",
        misleading_source()
    );
    let axes = "[[axis]]\nname = \"mode\"\nvalues = [{ label = \"calm\", jvm = [] }, \
                { label = \"hoarder\", jvm = [\"-Dmisleading.oomThread=true\"] }]\n";
    let plan = plan(&dir, "misleading", &target, axes);
    let out = dir.join("results");
    let (code, stdout, stderr) = run(&plan, &out, &[]);
    assert_eq!(code, 0, "{stderr}");
    let summary = json(&out.join("summary.json"));
    let (calm, hoarder) = (&summary["cells"][0], &summary["cells"][1]);
    assert_eq!((calm["id"].as_str(), calm["status"].as_str()), (Some("mode=calm"), Some("ok")), "{calm}");
    assert_eq!(calm["reps"][0]["cause"], serde_json::Value::Null);
    let calm_log = std::fs::read_to_string(out.join("cells/mode=calm/rep-1/stdout.log")).unwrap();
    assert!(calm_log.contains("Command line argument: -XX:+ExitOnOutOfMemoryError"), "the misleading lines ran");
    assert_eq!(hoarder["status"], "crashed", "{hoarder}");
    let cause = hoarder["reps"][0]["cause"].as_str().unwrap();
    assert!(
        cause.starts_with("Java OOM: Java heap space — Exception in thread \"hoarder\" java.lang.OutOfMemoryError"),
        "{cause}"
    );
    let meta = json(&out.join("cells/mode=hoarder/rep-1/meta.json"));
    assert_eq!(meta["exit"]["stopped_by_jload"], true, "the JVM kept running; its own report made it a crash");
    // The terminal, the report and summary.json say the same of every cell.
    assert_eq!(terminal_row(&stdout, "status"), ["ok", "crashed"], "{stdout}");
    assert!(stderr.contains("mode=calm rep 1 Ok") && stderr.contains("mode=hoarder rep 1 Crashed"), "{stderr}");
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    let troubled = report.split("## Crashed, failed and incomplete cells").nth(1).expect("a crash section");
    let troubled = troubled.split("\n## ").next().unwrap();
    assert_eq!(troubled.matches("\n- ").count(), 1, "{troubled}");
    assert!(troubled.contains("hoarder: crashed") && !troubled.contains("calm"), "{troubled}");
    let report_json = json(&out.join("report.json"));
    let crashed_findings: Vec<&str> = report_json["phases"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|phase| phase["recommendation"]["findings"].as_array())
        .flatten()
        .filter(|finding| finding["kind"] == "crashed")
        .map(|finding| finding["cell"].as_str().unwrap())
        .collect();
    assert_eq!(crashed_findings, ["mode=hoarder"]);
    assert!(processes_mentioning(&out.display().to_string()).is_empty());
}

#[test]
fn a_wrapper_without_exec_gets_the_options_through_env_and_its_jvm_is_sampled() {
    let _machine = shared();
    let dir = tempdir();
    let wrapper = script(
        &dir,
        "wrapper.sh",
        "# runs java as a child (no exec), like many start scripts\n\"$JAVA_HOME/bin/java\" $JAVA_OPTS \"$@\"\n\
         echo \"wrapper: java exited with $?\"",
    );
    let target = format!(
        "command = \"sh {wrapper} {} --port {{port}}\"\nenv = {{ JAVA_OPTS = \"{{jvm}}\" }}",
        misleading_source()
    );
    let axes =
        "[[axis]]\nname = \"gc\"\nvalues = [{ label = \"Serial\", jvm = [\"-XX:+UseSerialGC\", \"-Xmx48m\"] }]\n";
    let plan = plan(&dir, "wrapper", &target, axes);
    let out = dir.join("results");
    let (code, _, stderr) = run(&plan, &out, &[]);
    assert_eq!(code, 0, "{stderr}");
    let rep = out.join("cells/gc=Serial/rep-1");
    let meta = json(&rep.join("meta.json"));
    assert_eq!(meta["status"], "ok", "{meta}");
    assert_eq!(meta["cause"], serde_json::Value::Null, "{meta}");
    let phase = json(&rep.join("get.json"));
    let (shell, jvm) = (meta["pid"].as_u64().unwrap(), phase["jvm"]["pid"].as_u64().unwrap());
    assert_ne!(shell, jvm, "the JVM sampled is the wrapper's child, not the wrapper");
    assert!(phase["jvm"]["ygc"].as_u64().is_some(), "GC counters sampled: {phase}");
    assert!(phase["jvm"]["pauses"]["count"].as_u64().is_some(), "its GC log read: {phase}");
    assert!(std::fs::read_to_string(rep.join("gcstat.csv")).unwrap().lines().count() >= 3);
    let gc_log = std::fs::read_to_string(rep.join("gc.log")).unwrap();
    assert!(gc_log.contains("Using Serial"), "the axis options reached the JVM through JAVA_OPTS");
    assert!(gc_log.contains("Heap Max Capacity: 48M"), "{gc_log}");
    assert!(processes_mentioning(&out.display().to_string()).is_empty(), "the whole tree is stopped");
}

#[test]
fn a_launcher_that_is_a_jvm_itself_is_passed_over_for_the_jvm_serving_the_port() {
    let _machine = shared();
    let dir = tempdir();
    let launcher = repo().join("tests/java/Launcher.java");
    let target = format!(
        "command = \"java {} {{jvm}} {} --port {{port}}\"\njvm = [\"-XX:+UseParallelGC\"]",
        launcher.display(),
        misleading_source()
    );
    let plan = plan(&dir, "launcher", &target, "");
    let out = dir.join("results");
    let (code, _, stderr) = run(&plan, &out, &[]);
    assert_eq!(code, 0, "{stderr}");
    let rep = out.join("cells/default/rep-1");
    let meta = json(&rep.join("meta.json"));
    assert_eq!(meta["status"], "ok", "{meta}");
    let phase = json(&rep.join("get.json"));
    let (launcher_jvm, sampled) = (meta["pid"].as_u64().unwrap(), phase["jvm"]["pid"].as_u64().unwrap());
    assert_ne!(launcher_jvm, sampled, "the launcher JVM has PerfData too, but the child serves the port");
    assert!(phase["jvm"]["pauses"]["count"].as_u64().is_some(), "the child's GC log read: {phase}");
    assert!(std::fs::read_to_string(rep.join("gc.log")).unwrap().contains("Using Parallel"));
    assert!(processes_mentioning(&out.display().to_string()).is_empty(), "launcher and child both stopped");
}

/// Runs a one-cell plan whose command is `bash SCRIPT {port} Misleading.java --port {port}` with JAVA_OPTS={jvm};
/// returns meta.json and jload's stderr, after checking that no process of the target is left.
fn run_script_target(name: &str, body: &str) -> (serde_json::Value, String) {
    let dir = tempdir();
    let script = script(&dir, &format!("{name}.sh"), body);
    let target = format!(
        "command = \"bash {script} {{port}} {} --port {{port}}\"\nenv = {{ JAVA_OPTS = \"{{jvm}}\" }}",
        misleading_source()
    );
    let plan = plan(&dir, name, &target, "");
    let out = dir.join("results");
    let (_, _, stderr) = run(&plan, &out, &[]);
    assert!(processes_mentioning(&out.display().to_string()).is_empty(), "the daemon was found and stopped");
    (json(&out.join("cells/default/rep-1/meta.json")), stderr)
}

const FOREGROUND_HINT: &str = "the command must stay in the foreground, e.g. `catalina.sh run` instead of `startup.sh`";

#[test]
fn a_command_that_daemonizes_fails_with_a_foreground_hint_and_its_jvm_is_stopped() {
    let _machine = shared();
    let (meta, stderr) = run_script_target(
        "startup",
        "# like Tomcat's startup.sh: start java in the background, in a session of its own, and return at once\n\
         shift\nsetsid \"$JAVA_HOME/bin/java\" $JAVA_OPTS \"$@\" </dev/null >/dev/null 2>&1 &\necho \"started\"\nexit 0",
    );
    assert_eq!(meta["status"], "failed", "{meta}");
    let cause = meta["cause"].as_str().unwrap();
    assert!(
        cause.starts_with("exited before it was ready (exit code 0): the command exited and left process"),
        "{cause}"
    );
    assert!(cause.ends_with(FOREGROUND_HINT), "{cause}");
    assert_eq!(cause.lines().count(), 1);
    assert!(stderr.contains(FOREGROUND_HINT), "{stderr}");
}

#[test]
fn a_command_that_daemonizes_after_the_target_is_ready_fails_the_same_way() {
    let _machine = alone();
    let (meta, _) = run_script_target(
        "late-daemon",
        "# starts java in the background, returns once it listens (and a moment later)\nport=$1\nshift\n\
         setsid \"$JAVA_HOME/bin/java\" $JAVA_OPTS \"$@\" </dev/null >/dev/null 2>&1 &\n\
         until (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null; do sleep 0.1; done\nsleep 1\nexit 0",
    );
    assert!(meta["ready_s"].as_f64().is_some(), "it was ready: {meta}");
    assert_eq!(meta["status"], "failed", "{meta}");
    let cause = meta["cause"].as_str().unwrap();
    assert!(cause.starts_with("the command exited and left process") && cause.ends_with(FOREGROUND_HINT), "{cause}");
    assert_eq!(meta["exit"]["code"], 0);
}

#[test]
fn a_plan_whose_options_never_reach_the_jvm_is_refused_naming_the_key() {
    let dir = tempdir();
    let axes = "[[axis]]\nname = \"heap\"\nvalues = [\"-Xmx64m\", \"-Xmx128m\"]\n";
    let refused = plan(&dir, "unused", "command = \"catalina.sh run\"\nenv = { CATALINA_OPTS = \"-Xms32m\" }", axes);
    let out = dir.join("results");
    let (code, _, stderr) = run(&refused, &out, &[]);
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(stderr.contains("axis 'heap' sets JVM options but neither target.command nor target.env uses {jvm}"));
    assert!(stderr.contains("unused.toml") && stderr.contains("CATALINA_OPTS"), "{stderr}");
    assert!(!out.exists());
    let fixed = plan(&dir, "used", "command = \"catalina.sh run\"\nenv = { CATALINA_OPTS = \"{jvm}\" }", axes);
    let (output, _) = jload(&["run", fixed.to_str().unwrap(), "--dry-run"]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
}

/// One of the longest tests, started first by tests/tests.rs (`a_started_first::real_targets::`), so that it does not
/// start last.
pub(crate) fn a_tomcat_started_with_catalina_sh_run_on_jdk_17_and_25_is_measured_and_not_called_crashed() {
    let _machine = shared();
    let dir = tempdir();
    // The shipped plan, with the repository as its workdir, short phases, a two-step ladder without the warm-up until
    // steady (what is tested here is the start, the sampling and the crash rules), no cooldown and a JDK axis.
    let shipped = std::fs::read_to_string(repo().join("plans/tomcat.toml")).unwrap();
    let text = shipped
        .replace("workdir = \"..\"", &format!("workdir = \"{}\"", repo().display()))
        .replace("duration = \"5s\"", "duration = \"1s\"")
        .replace("duration = \"15s\"", "duration = \"2s\"")
        .replace("rates = { from = 500, to = 8000, steps = 5 }", "rates = [500, 1000]")
        .replace("step = \"2s\"", "step = \"1s\"")
        .replace("min_requests = 1000", "min_requests = 200\nsteady_max = \"0s\"")
        .replace("[run]\n", "[run]\ncooldown = \"0s\"\n")
        + "[[axis]]\nname = \"jdk\"\nvalues = [{ label = \"17\", jdk = \"17\" }, { label = \"25\", jdk = \"25\" }]\n";
    assert!(text.contains("rates = [500, 1000]") && text.contains("steady_max = \"0s\""), "{text}");
    assert!(text.contains("cooldown = \"0s\""), "{text}");
    let plan = dir.join("tomcat.toml");
    std::fs::write(&plan, text).unwrap();
    let out = dir.join("results");
    let (code, stdout, stderr) = run(&plan, &out, &["--only", "heap=-Xmx64m,gc=Serial"]);
    assert_eq!(code, 0, "{stderr}");
    for jdk in ["17", "25"] {
        let rep = out.join("cells").join(folder_of(&out, &format!("heap=-Xmx64m,gc=Serial,jdk={jdk}"))).join("rep-1");
        let meta = json(&rep.join("meta.json"));
        assert_eq!(meta["status"], "ok", "{meta}");
        assert!(meta["jdk"]["version"].as_str().unwrap().starts_with(jdk), "{meta}");
        let tomcat_log = std::fs::read_to_string(rep.join("stderr.log")).unwrap();
        assert!(tomcat_log.contains("VersionLoggerListener.log Command line argument: -XX:+ExitOnOutOfMemoryError"));
        assert!(tomcat_log.contains(&format!("[\"http-nio-127.0.0.1-{}\"]", meta["port"])), "the cell's own port");
        let phase = json(&rep.join("index.json"));
        assert!(phase["requests"].as_u64().unwrap() > 100, "{phase}");
        assert_eq!(phase["errors"]["total"], 0, "{phase}");
        assert!(phase["jvm"]["ygc"].as_u64().is_some_and(|ygc| ygc > 0), "Tomcat's JVM sampled: {phase}");
        assert!(phase["jvm"]["pauses"]["count"].as_u64().is_some_and(|count| count > 0), "GC log read: {phase}");
        assert!(rep.join("work").is_dir(), "the cell's own work directory");
    }
    assert_eq!(terminal_row(&stdout, "status"), ["ok", "ok"], "{stdout}");
    let base = repo().join("target/tomcat-base");
    assert!(!base.join("logs").exists(), "no log files under catalina.base");
    assert!(processes_mentioning(&out.display().to_string()).is_empty());
}

/// WireMock standalone from Maven Central (plans/wiremock.toml's build step fetches it into target/wiremock/), which
/// is configured by its program arguments: the shipped plan, short, with both journal values at 10 container
/// threads, and a last phase that asks WireMock's admin API for its request journal — answered with the journal on,
/// refused with `--no-request-journal`: each JVM got its cell's args and acted on them.
#[test]
fn a_wiremock_gets_its_request_journal_switch_and_threads_as_program_arguments() {
    let _machine = shared();
    let dir = tempdir();
    let shipped = std::fs::read_to_string(repo().join("plans/wiremock.toml")).unwrap();
    let text = shipped
        .replace("workdir = \"..\"", &format!("workdir = \"{}\"", repo().display()))
        .replace("duration = \"10s\"", "duration = \"1s\"")
        .replace("rates = [1000, 2000, 4000]", "rates = [500]")
        .replace("step = \"4s\"", "step = \"1s\"")
        .replace("min_requests = 1000", "min_requests = 200\nsteady_max = \"0s\"")
        .replace("cooldown = \"1s\"", "cooldown = \"0s\"")
        .replace("\"-Xms1g\", \"-Xmx1g\"", "\"-Xmx128m\"")
        + "[[phase]]\nname = \"journal\"\nmeasure = false\nurl = \"http://127.0.0.1:{port}/__admin/requests?limit=1\"\n\
           connections = 1\nrequests = 3\n";
    assert!(text.contains("rates = [500]") && text.contains("steady_max = \"0s\""), "{text}");
    assert!(text.contains("duration = \"1s\"") && text.contains("cooldown = \"0s\""), "{text}");
    assert!(text.contains("jvm = [\"-Xmx128m\", "), "{text}");
    let plan = dir.join("wiremock.toml");
    std::fs::write(&plan, text).unwrap();
    let out = dir.join("results");
    let (code, _, stderr) = run(&plan, &out, &["--only", "threads=10"]);
    assert_eq!(code, 0, "{stderr}");
    for (journal, args, journal_errors) in
        [("on", "--container-threads 10", 0), ("off", "--no-request-journal --container-threads 10", 3)]
    {
        let rep = out.join("cells").join(folder_of(&out, &format!("journal={journal},threads=10"))).join("rep-1");
        let meta = json(&rep.join("meta.json"));
        assert_eq!(meta["status"], "ok", "{meta}");
        let command: Vec<&str> =
            meta["command"].as_array().unwrap().iter().map(|word| word.as_str().unwrap()).collect();
        assert!(command.join(" ").ends_with(&format!("--disable-banner {args}")), "at {{args}}: {command:?}");
        // A cold WireMock's one-second step, on a loaded machine perhaps not answered yet: recorded, without errors
        // (how fast is not what this test asks).
        let hello = json(&rep.join("hello.json"));
        assert_eq!(hello["errors"]["total"], 0, "{hello}");
        let asked = json(&rep.join("journal.json"));
        assert_eq!(asked["requests"], 3, "{asked}");
        assert_eq!(asked["errors"]["total"], journal_errors, "journal {journal}: {asked}");
    }
    assert!(processes_mentioning(&out.display().to_string()).is_empty());
}
