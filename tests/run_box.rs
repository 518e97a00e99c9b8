//! `jload run` with cells in a cgroup box (docs/containers.md), on this machine's real cgroups with the real
//! kv-service JVM: a roomy box is ok and its phase records carry the box's figures; a half-CPU quota makes the JVM
//! itself say 1 CPU and Serial (and the preflight agree) and shows throttling; a target pushed past its box is
//! killed by the memory limit (after ready: crashed; the slab store's arena at start: failed), with its own failure
//! kind, locally and on a target's own server (through its agent, real OpenSSH in network namespaces); bad keys exit
//! 2 with one line; no box is left behind by any run.

use crate::common;

use std::path::{Path, PathBuf};

use common::cgroups::{boxes_left_behind, mount_cgroups_on};
use common::kv_plan::kv_plan;
use common::machine::{alone, shared};
use common::sshnet::SshNet;
use common::{folder_of, interrupt_run_after, jload, json, tempdir};

// JVM-heavy tests share the machine two at a time (common::machine), except those that must have it to themselves:
// the quota's verdict weighs timings, and a killed jload's box must be left for the next start of the test's own jload.

fn plan(dir: &Path, name: &str, target_extra: &str, axes: &str, phases: &str) -> PathBuf {
    kv_plan(name).target(target_extra).body(axes).body(phases).run("repeats = 1\n").write(dir)
}

const SHORT_PHASES: &str = "[[phase]]\nname = \"fill\"\nmeasure = false\n\
    url = \"http://127.0.0.1:{port}/random_set?keyRange=2000&valueSize=500\"\nconnections = 4\nrequests = 2000\n\
    [[phase]]\nname = \"get\"\nurl = \"http://127.0.0.1:{port}/random_get?keyRange=2000\"\nconnections = 4\nduration = \"2s\"\n";

fn rep_dir(out: &Path, id: &str) -> PathBuf {
    out.join("cells").join(folder_of(out, id)).join("rep-1")
}

#[test]
fn a_roomy_box_is_ok_with_its_figures_and_a_half_cpu_quota_makes_the_jvm_say_one_cpu_and_serial() {
    let _machine = shared();
    let dir = tempdir();
    let out = dir.join("results");
    let axes = "[[axis]]\nname = \"box\"\nvalues = [{ label = \"roomy\", memory = \"768m\" }, \
        { label = \"half-cpu\", memory = \"768m\", cpus_quota = 0.5 }]\n";
    let plan = plan(&dir, "roomy", "", axes, SHORT_PHASES);
    let (dry, _) = jload(&["run", plan.to_str().unwrap(), "--dry-run"]);
    let dry_out = String::from_utf8_lossy(&dry.stdout);
    assert_eq!(dry.status.code(), Some(0), "{}", String::from_utf8_lossy(&dry.stderr));
    assert!(dry_out.contains("  box: memory 768 MiB (a cgroup of its own per cell-repeat)"), "{dry_out}");
    assert!(
        dry_out.contains("  box: memory 768 MiB, CPU quota 0.5 (a cgroup of its own per cell-repeat)"),
        "{dry_out}"
    );
    let (output, _) = jload(&["run", plan.to_str().unwrap(), "--out", out.to_str().unwrap(), "--seed", "1"]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));

    let roomy = rep_dir(&out, "box=roomy");
    let meta = json(&roomy.join("meta.json"));
    assert_eq!(meta["status"], "ok", "{meta}");
    assert_eq!(meta["box"]["memory_bytes"], 768u64 << 20);
    assert!(meta["box"]["cpus_quota"].is_null());
    let record = json(&roomy.join("get.json"));
    let figures = &record["box"];
    assert_eq!(figures["memory_limit"], 768u64 << 20, "{figures}");
    assert_eq!(figures["oom_kills"], 0, "{figures}");
    let peak = figures["memory_peak"].as_u64().unwrap();
    let usage = figures["memory_usage"].as_u64().unwrap();
    assert!(peak >= usage && usage > 20 << 20 && peak < 768 << 20, "{figures}");
    assert!(figures["anon"].as_u64().unwrap() > 10 << 20, "{figures}");
    assert_eq!(meta["jvm_said"]["cpus_available"], meta["jvm_said"]["cpus_total"], "{meta}");

    let half = rep_dir(&out, "box=half-cpu");
    let meta = json(&half.join("meta.json"));
    assert_eq!(meta["status"], "ok", "{meta}");
    assert_eq!(meta["box"]["cpus_quota"], 0.5);
    assert_eq!(meta["jvm_said"]["collector"], "Serial", "the JVM in a half-CPU box picks Serial: {meta}");
    assert_eq!(meta["jvm_said"]["cpus_available"], 1, "{meta}");
    assert_eq!(meta["jvm_said"]["memory"], "768M", "the JVM sees the box's memory: {meta}");
    assert_eq!(meta["flags"]["collector"], "Serial", "the preflight ran in the same box: {meta}");
    let figures = &json(&half.join("get.json"))["box"];
    assert_eq!(figures["cpus_quota"], 0.5, "{figures}");
    assert!(figures["throttled_periods"].as_u64().unwrap() > 0, "a busy half CPU is throttled: {figures}");
    assert!(figures["periods"].as_u64().unwrap() >= figures["throttled_periods"].as_u64().unwrap(), "{figures}");
    assert!(figures["throttled_ms"].as_f64().unwrap() > 0.0, "{figures}");
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    for row in ["|memory limit (MB)|768|768|", "|memory peak (MB)|", "|CPU throttled %|-|"] {
        assert!(report.contains(row), "{row} in {report}");
    }
    assert_eq!(boxes_left_behind(), Vec::<PathBuf>::new());
}

#[test]
fn a_target_pushed_past_its_box_is_killed_by_the_memory_limit() {
    let _machine = shared();
    let dir = tempdir();
    let out = dir.join("results");
    // The heap store given a heap far above its box, filled with 16 KB values well past 200 MiB (at 1500 req/s, so it
    // dies seconds into the phase, after a few of the watch's every-second samples); the slab store
    // reserving (and zeroing) a 256 MiB arena at start in the same box.
    let axes = "[[axis]]\nname = \"store\"\nvalues = [\
        { label = \"heap\", memory = \"200m\", jvm = [\"-Xmx1g\", \"-XX:+UseSerialGC\"] }, \
        { label = \"slab\", memory = \"200m\", jvm = [\"-Dkv.store=offheap\", \"-Dkv.offheap.capacity=256m\", \
          \"-XX:MaxDirectMemorySize=400m\", \"-Xmx64m\"] }]\n";
    let phases = "[[phase]]\nname = \"fill\"\nmeasure = false\n\
        url = \"http://127.0.0.1:{port}/random_set?keyRange=40000&valueSize=16000\"\nconnections = 4\nrate = 1500\nduration = \"30s\"\n\
        [[phase]]\nname = \"get\"\nurl = \"http://127.0.0.1:{port}/random_get?keyRange=2000\"\nconnections = 4\nduration = \"2s\"\n";
    let killed = plan(&dir, "killed", "", axes, phases);
    let (output, _) = jload(&["run", killed.to_str().unwrap(), "--out", out.to_str().unwrap(), "--seed", "1"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_ne!(output.status.code(), Some(2), "{stderr}");

    let meta = json(&rep_dir(&out, "store=heap").join("meta.json"));
    assert_eq!(meta["status"], "crashed", "{meta}");
    assert_eq!(meta["failure"], "memory_limit", "{meta}");
    let cause = meta["cause"].as_str().unwrap();
    assert!(cause.starts_with("killed by the memory limit (200 MiB): peak "), "{cause}");
    assert_eq!(meta["exit"]["signal"], 9, "{meta}");
    let fill = json(&rep_dir(&out, "store=heap").join("fill.json"));
    assert_eq!(fill["box"]["memory_limit"], 200u64 << 20, "{}", fill["box"]);
    assert_eq!(fill["box"]["oom_kills"], 1, "{}", fill["box"]);
    assert!(
        fill["jvm"]["samples"].as_u64().unwrap() >= 1,
        "the phase it died in keeps its JVM figures: {}",
        fill["jvm"]
    );

    let meta = json(&rep_dir(&out, "store=slab").join("meta.json"));
    assert_eq!(meta["status"], "failed", "{meta}");
    assert_eq!(meta["failure"], "memory_limit", "a verdict on the configuration, kept by --resume: {meta}");
    let cause = meta["cause"].as_str().unwrap();
    assert!(cause.starts_with("before it was ready: killed by the memory limit (200 MiB)"), "{cause}");
    assert_eq!(boxes_left_behind(), Vec::<PathBuf>::new());

    // A box the JVM cannot even start in: the preflight, run in the same box, says so.
    let tiny = "[[axis]]\nname = \"box\"\nvalues = [{ label = \"tiny\", memory = \"32m\", \
        jvm = [\"-Xms128m\", \"-XX:+AlwaysPreTouch\"] }]\n";
    let tiny = plan(&dir, "tiny", "", tiny, SHORT_PHASES);
    let (dry, _) = jload(&["run", tiny.to_str().unwrap(), "--dry-run"]);
    let shown = String::from_utf8_lossy(&dry.stdout);
    assert!(
        shown.contains(
            "INVALID: the JVM was killed by the memory limit (32 MiB) while starting; give the box more memory"
        ),
        "{shown}"
    );
    assert_eq!(boxes_left_behind(), Vec::<PathBuf>::new());
}

#[test]
fn a_target_on_its_own_server_is_boxed_there_and_killed_by_the_memory_limit() {
    let _machine = shared();
    let net = SshNet::start(&["server"]);
    mount_cgroups_on(&net, "server");
    let dir = tempdir();
    let out = dir.join("results");
    let plan = kv_plan("remote-box")
        .on(&format!("host = \"{}\"", net.destination("server")))
        .target("memory = \"200m\"\n")
        .jvm(&["-Xmx1g", "-XX:+UseSerialGC"])
        .body(
            "[[phase]]\nname = \"fill\"\nmeasure = false\n\
             url = \"http://{host}:{port}/random_set?keyRange=40000&valueSize=16000\"\nconnections = 4\nduration = \"30s\"\n",
        )
        .run("repeats = 1\n")
        .write(&dir);
    let output = net.jload_run(&plan, &out).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    let rep = out.join("cells/default/rep-1");
    assert!(rep.join("meta.json").is_file(), "{stderr}");
    let meta = json(&rep.join("meta.json"));
    assert_eq!((&meta["status"], &meta["failure"]), (&"crashed".into(), &"memory_limit".into()), "{stderr}\n{meta:#}");
    let cause = meta["cause"].as_str().unwrap();
    assert!(cause.starts_with("killed by the memory limit (200 MiB): peak "), "{cause}");
    assert_eq!(meta["jvm_said"]["memory"], "200M", "the JVM there saw its box, and its GC log came home: {meta}");
    let initial_heap = meta["flags"]["initial_heap_bytes"].as_u64().unwrap();
    assert!(initial_heap < 16 << 20, "the preflight there ran in the box (1/64 of 200 MiB): {meta}");
    let fill = json(&rep.join("fill.json"));
    assert_eq!((&fill["box"]["memory_limit"], &fill["box"]["oom_kills"]), (&(200u64 << 20).into(), &1.into()));
    // Its box.csv was written there, a row a second up to the kill, and came home with the other files.
    let rows = jload::cgroup::box_csv::read(&std::fs::read_to_string(rep.join("box.csv")).unwrap()).unwrap();
    let memory = rows.last().unwrap().sample.memory.clone().unwrap();
    assert!(rows.len() >= 3 && memory.limit == Some(200 << 20) && memory.oom_kills == Some(1), "{rows:?}");
    let left: Vec<_> = net.processes("server").into_iter().filter(|(_, name)| name == "java").collect();
    assert_eq!(left, []);
    assert_eq!(boxes_left_behind(), Vec::<PathBuf>::new());
}

#[test]
fn ctrl_c_removes_the_box_and_the_box_of_a_killed_jload_goes_at_the_next_start() {
    let _machine = alone();
    let dir = tempdir();
    let phases = "[[phase]]\nname = \"get\"\nurl = \"http://127.0.0.1:{port}/random_get?keyRange=2000\"\n\
        connections = 2\nduration = \"60s\"\n";
    let plan = plan(&dir, "interrupted", "memory = \"512m\"", "", phases);
    let out = dir.join("results");
    let gcstat = out.join("cells/default/rep-1/gcstat.csv");
    assert_eq!(interrupt_run_after(&plan, &out, &gcstat, "the phase's start"), Some(130));
    assert_eq!(boxes_left_behind(), Vec::<PathBuf>::new(), "Ctrl-C removes the box");

    let killed_out = dir.join("killed");
    // Run from the test's folder, the JVM's working directory too: a jload killed while it attaches to the JVM (a
    // box tracks native memory) leaves the attach trigger `.attach_pid<pid>` there, as the JDK's own tools do.
    let mut jload_run = std::process::Command::new(env!("CARGO_BIN_EXE_jload"))
        .current_dir(&dir)
        .args(["run", plan.to_str().unwrap(), "--out", killed_out.to_str().unwrap()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = killed_out.join("cells/default/rep-1/gcstat.csv");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(90);
    while !started.exists() {
        assert!(std::time::Instant::now() < deadline, "the phase never started");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    jload_run.kill().unwrap();
    jload_run.wait().unwrap();
    let left = boxes_left_behind();
    assert_eq!(left.len(), 2, "SIGKILL leaves its box in the memory and cpu hierarchies: {left:?}");
    let (next, _) = jload(&["run", plan.to_str().unwrap(), "--dry-run"]);
    assert_eq!(next.status.code(), Some(0), "{}", String::from_utf8_lossy(&next.stderr));
    let said = String::from_utf8_lossy(&next.stderr);
    assert!(said.contains("jload: removed cgroup box(es) left by a jload that was killed: "), "{said}");
    assert_eq!(boxes_left_behind(), Vec::<PathBuf>::new(), "the next start removed it");
}

#[test]
fn bad_box_keys_are_refused_in_one_line_before_anything_starts() {
    let dir = tempdir();
    for (target_extra, axes, expected) in [
        ("memory = \"lots\"", "", "line 8: target.memory: 'lots' is not a size; write it like 512m, 2g or 1.5g"),
        (
            "cpus_quota = 0",
            "",
            "line 8: target.cpus_quota: CPU quota 0: give a positive number of CPUs, e.g. 0.5 or 1.5",
        ),
        ("cpus_quota = -1.5", "", "target.cpus_quota: CPU quota -1.5: give a positive number of CPUs"),
        (
            "",
            "[[axis]]\nname = \"box\"\nvalues = [{ label = \"a\", memory = \"12q\" }]\n",
            "line 11: axis 'box': memory: '12q' is not a size",
        ),
        ("memory = \"0\"", "", "target.memory: memory limit 0: give a limit above zero"),
    ] {
        let plan = plan(&dir, "bad", target_extra, axes, SHORT_PHASES);
        let out = dir.join("never");
        let (output, _) = jload(&["run", plan.to_str().unwrap(), "--out", out.to_str().unwrap()]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{target_extra}{axes}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains(plan.to_str().unwrap()) && stderr.contains(expected), "{expected} in {stderr}");
        assert!(!out.exists(), "nothing started");
    }
}

/// Warm kv-service up, then drive it flat out with 8 connections: in a box with a CPU quota the quota holds it back
/// every period.
const FLAT_OUT_PHASES: &str = "[[phase]]\nname = \"fill\"\nmeasure = false\n\
    url = \"http://127.0.0.1:{port}/random_set?keyRange=2000&valueSize=500\"\nconnections = 4\nrequests = 1000\n\
    [[phase]]\nname = \"warm\"\nmeasure = false\nurl = \"http://127.0.0.1:{port}/random_get?keyRange=2000\"\n\
    connections = 8\nduration = \"1s\"\n\
    [[phase]]\nname = \"get\"\nurl = \"http://127.0.0.1:{port}/random_get?keyRange=2000\"\nconnections = 8\nduration = \"3s\"\n";

/// It needs the machine alone: started first by tests/tests.rs (`a_started_first::a_alone::run_box::`), before any
/// test it would wait for.
pub(crate) fn a_quota_that_holds_the_jvm_back_is_in_box_csv_in_the_phase_record_and_named_by_is_it_the_gc() {
    let _machine = alone();
    let dir = tempdir();
    let out = dir.join("results");
    // A fifth of a CPU: on this shared 2-core machine a JVM under a half CPU often gets little more than that from
    // the machine anyway, and then the quota is not what holds it back (docs/containers.md).
    let axes = "[[axis]]\nname = \"box\"\nvalues = [{ label = \"quota\", memory = \"768m\", cpus_quota = 0.2 }, \
        { label = \"free\", memory = \"768m\" }]\n";
    // A young generation that the 5 s of load do not fill: no collection competes with the quota for the tail (with
    // kv-service's default heap, collections that the quota stretched made GC the verdict in 2 of 7 runs).
    let heap = ["-Xms512m", "-Xmx512m", "-Xmn384m", "-XX:+UseSerialGC"];
    let plan = kv_plan("quota").jvm(&heap).body(axes).body(FLAT_OUT_PHASES).run("repeats = 1\n").write(&dir);
    let (output, _) = jload(&["run", plan.to_str().unwrap(), "--out", out.to_str().unwrap(), "--seed", "1"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));

    // box.csv: a row a second over the target's whole life (and one more at its stop), the quota's counters rising.
    let quota = rep_dir(&out, "box=quota");
    let rows = jload::cgroup::box_csv::read(&std::fs::read_to_string(quota.join("box.csv")).unwrap()).unwrap();
    assert!(rows.len() >= 6, "start-up, fill, warm-up and the phase: {} rows", rows.len());
    let every_second = &rows[..rows.len() - 1];
    for pair in every_second.windows(2) {
        let apart = pair[1].unix_ms - pair[0].unix_ms;
        assert!((500..=1500).contains(&apart), "rows {apart} ms apart: {:?}", pair);
    }
    let span_ms = every_second.last().unwrap().unix_ms - every_second[0].unix_ms;
    let mean_ms = span_ms as f64 / (every_second.len() - 1) as f64;
    assert!((950.0..=1050.0).contains(&mean_ms), "a row a second: {mean_ms} ms apart on average");
    let cpu: Vec<_> = rows.iter().map(|row| row.sample.cpu.clone().unwrap()).collect();
    assert!(cpu.iter().all(|cpu| cpu.quota_cpus == Some(0.2)), "{cpu:?}");
    assert!(cpu.windows(2).all(|pair| pair[1].throttled_periods >= pair[0].throttled_periods), "{cpu:?}");
    assert!(cpu.last().unwrap().throttled_periods > cpu[0].throttled_periods + 20, "{cpu:?}");
    let uptimes: Vec<f64> = rows.iter().filter_map(|row| row.uptime_s).collect();
    assert!(uptimes.len() >= 4 && uptimes.windows(2).all(|pair| pair[1] > pair[0]), "{uptimes:?}");
    assert!(rows.last().unwrap().uptime_s.is_some(), "the JVM's uptime once its PerfData was read");

    // The phase's own throttling beside the box's since it was made.
    let record = json(&quota.join("get.json"));
    let figures = &record["box"];
    let (periods, throttled) =
        (figures["phase_periods"].as_u64().unwrap(), figures["phase_throttled_periods"].as_u64().unwrap());
    assert!(periods >= 25 && periods < figures["periods"].as_u64().unwrap(), "3 s of 100 ms periods: {figures}");
    assert!(throttled > 0 && throttled <= periods, "{figures}");
    assert!(figures["phase_throttled_ms"].as_f64().unwrap() > 0.0, "{figures}");

    // Is it the GC? The quota.
    let attribution = &record["gc_attribution"];
    assert_eq!(attribution["verdict"]["kind"], "cpu_quota", "{}", attribution["verdict"]);
    assert_eq!(attribution["verdict"]["rule"], "quota_makes_the_tail");
    assert!(attribution["stops"]["throttled_periods"].as_u64().unwrap() >= 20, "{}", attribution["stops"]);
    let said = stdout.lines().skip_while(|line| !line.contains("is it the GC?")).collect::<Vec<_>>().join(" ");
    assert!(said.contains("quota: CPU quota: p99 "), "{stdout}");
    assert!(said.contains("without the time the quota held the JVM back"), "{stdout}");
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(report.contains("The CPU quota makes this tail: p99 "), "{report}");
    let row = report.lines().find(|line| line.starts_with("|CPU throttled %|")).unwrap();
    assert!(row.ends_with("|-|"), "no quota, no figure: {row}");

    // Without a quota nothing is said of one.
    let free = rep_dir(&out, "box=free");
    let attribution = &json(&free.join("get.json"))["gc_attribution"];
    assert!(attribution["quota_time_share"].is_null() && attribution["p99"]["quota"].is_null(), "{attribution}");
    assert!(!attribution["verdict"]["text"].as_str().unwrap().contains("quota"), "{}", attribution["verdict"]);
    let rows = jload::cgroup::box_csv::read(&std::fs::read_to_string(free.join("box.csv")).unwrap()).unwrap();
    assert!(rows.len() >= 6 && rows.iter().all(|row| row.sample.cpu.as_ref().unwrap().quota_cpus.is_none()));
    assert_eq!(boxes_left_behind(), Vec::<PathBuf>::new());
}
