//! `jload run` with `[target] profile` (docs/profiling.md) against the real kv-service JVM on JDK 17 and 25: each
//! measured phase is recorded by JDK Flight Recorder into `<phase>.jfr`, a recording the JDK's own `jfr` tool reads
//! with execution and allocation samples in it, and never the fill, made with the JDK's profile settings (written
//! beside it) less the periodic thread dump; the phase record names the file and what its commands took; a box
//! with room is recorded with jload's share of the JVM's memory, one without runs on unrecorded; the profile of a
//! service whose requests wait on a lock names the lock, the longest wait and the service's frame that waited, in the
//! record and in report.md; the dry run says it; a plan without the switch records nothing.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::cgroups::boxes_left_behind;
use common::jdks::{jdk17, jdk25};
use common::kv_plan::kv_plan;
use common::machine;
use common::{folder_of, jload, json, tempdir};

const JDKS: &str =
    "[[axis]]\nname = \"jdk\"\nvalues = [{ label = \"17\", jdk = \"17\" }, { label = \"25\", jdk = \"25\" }]\n";

const FILL_THEN_GET: &str = "[[phase]]\nname = \"fill\"\nmeasure = false\n\
    url = \"http://127.0.0.1:{port}/random_set?keyRange=2000&valueSize=500\"\nconnections = 4\nrequests = 2000\n\
    [[phase]]\nname = \"get\"\nurl = \"http://127.0.0.1:{port}/random_get?keyRange=2000\"\nconnections = 4\nduration = \"2s\"\n";

fn rep_dir(out: &Path, id: &str) -> PathBuf {
    out.join("cells").join(folder_of(out, id)).join("rep-1")
}

/// The count `jfr summary` (of the JDK at `home`) gives event type `event` in `recording`.
fn events_in(home: &Path, recording: &Path, event: &str) -> u64 {
    let output = Command::new(home.join("bin/jfr")).arg("summary").arg(recording).output().unwrap();
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "jfr summary {}: {text}", recording.display());
    let line = text.lines().find(|line| line.split_whitespace().next() == Some(event));
    line.map_or(0, |line| line.split_whitespace().nth(1).unwrap().parse().unwrap())
}

#[test]
fn each_measured_phase_is_recorded_into_its_jfr_file_on_jdk_17_and_25_and_never_the_fill() {
    let _machine = machine::shared();
    let dir = tempdir();
    let out = dir.join("results");
    let plan =
        kv_plan("profile").target("profile = true\n").body(JDKS).body(FILL_THEN_GET).run("repeats = 1\n").write(&dir);
    let (output, _) = jload(&["run", plan.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    for (id, home) in [("jdk=17", jdk17("jfr")), ("jdk=25", jdk25("jfr"))] {
        let rep = rep_dir(&out, id);
        assert!(!rep.join("fill.jfr").exists(), "{id}: the fill is not measured, so not recorded");
        let record = json(&rep.join("get.json"));
        let recording = &record["flight_recording"];
        assert_eq!(recording["file"], "get.jfr", "{id}: {recording}");
        assert!(recording["error"].is_null(), "{id}: {recording}");
        assert!(recording["start_ms"].as_f64().unwrap() > 0.0 && recording["write_ms"].as_f64().unwrap() > 0.0);
        assert!(json(&rep.join("fill.json")).get("flight_recording").is_none(), "{id}");
        // The JDK's own tool reads the file, and it holds the phase's profile: samples of the code the load ran.
        let file = rep.join("get.jfr");
        // kv-service's event loop spends most of its time in epoll (native, sampled apart): a few Java samples.
        assert!(events_in(&home, &file, "jdk.ExecutionSample") >= 3, "{id}: 2 s sampled every 10-20 ms in Java code");
        assert!(events_in(&home, &file, "jdk.ObjectAllocationSample") > 0, "{id}");
        // The settings are the JDK's own profile, written beside the recording, without its thread dump every 60 s
        // (a safepoint of its own in the middle of a phase).
        let settings = std::fs::read_to_string(rep.join("jfr-settings.jfc")).unwrap();
        let thread_dump = &settings[settings.find("<event name=\"jdk.ThreadDump\">").unwrap()..];
        let thread_dump = &thread_dump[..thread_dump.find("</event>").unwrap()];
        assert!(thread_dump.contains("\">false</setting>") && !thread_dump.contains(">true<"), "{thread_dump}");
        assert!(settings.contains("<event name=\"jdk.JavaMonitorEnter\">"), "the rest of profile.jfc is kept");
        assert_eq!(events_in(&home, &file, "jdk.ThreadDump"), 0, "{id}");
    }
}

/// A 256 MiB box holds the JVM and its recordings, and the first recording's growth is jload's share, in the record;
/// a box without room for that growth is not recorded, and its cell runs on: jload's recording never kills a cell.
#[test]
fn a_box_with_room_is_recorded_with_jloads_share_and_one_without_is_not_recorded_and_runs_on() {
    let _machine = machine::shared();
    let dir = tempdir();
    let out = dir.join("results");
    let boxes = "[[axis]]\nname = \"box\"\nvalues = [{ label = \"roomy\", memory = \"256m\" }, \
        { label = \"tight\", memory = \"100m\" }]\n";
    let plan = kv_plan("boxed-profile")
        .target("profile = true\nnmt = false\n")
        .jvm(&["-Xmx32m", "-XX:+UseSerialGC"])
        .body(boxes)
        .body(FILL_THEN_GET)
        .run("repeats = 1\n")
        .write(&dir);
    let (output, _) = jload(&["run", plan.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let roomy = rep_dir(&out, "box=roomy");
    assert_eq!(json(&roomy.join("meta.json"))["status"], "ok");
    let recording = &json(&roomy.join("get.json"))["flight_recording"];
    assert_eq!(recording["file"], "get.jfr", "{recording}");
    let share = recording["recorder_rss_bytes"].as_u64().unwrap();
    assert!((4 << 20..=96 << 20).contains(&share), "JFR's classes, code and buffers: {share} bytes");
    let tight = rep_dir(&out, "box=tight");
    assert_eq!(json(&tight.join("meta.json"))["status"], "ok", "the cell ran on unrecorded");
    let recording = &json(&tight.join("get.json"))["flight_recording"];
    let error = recording["error"].as_str().unwrap_or_else(|| panic!("{recording}"));
    assert!(
        error.starts_with("not recorded: the box has ")
            && error.ends_with("less than the 64 MiB a first recording takes"),
        "{error}"
    );
    assert!(!tight.join("get.jfr").exists());
    assert_eq!(boxes_left_behind(), Vec::<PathBuf>::new());
}

/// A service whose requests wait on a lock a background thread holds for 150 ms every second
/// (tests/java/StallTarget.java): the profile names the lock's class, the longest wait, and the service's frame that
/// waited, in the phase record and in report.md.
#[test]
fn a_profile_names_the_lock_the_requests_waited_on_and_the_frame_that_waited() {
    let _machine = machine::shared();
    let dir = tempdir();
    let out = dir.join("results");
    let classes = common::jdks::compiled(&dir, "StallTarget.java");
    let plan = dir.join("lock.toml");
    let text = format!(
        "name = \"lock\"\n[target]\ncommand = \"java {{jvm}} -cp {classes} StallTarget --mode lock --stall-ms 150 \
         --period-ms 1000 --port {{port}}\"\nready = \"http://127.0.0.1:{{port}}/health\"\njdk = \"17\"\nprofile = true\n\
         jvm = [\"-XX:+UseSerialGC\"]\n\
         [[phase]]\nname = \"warm\"\nmeasure = false\nurl = \"http://127.0.0.1:{{port}}/\"\nconnections = 8\nrate = 200\n\
         duration = \"1s\"\n\
         [[phase]]\nname = \"get\"\nurl = \"http://127.0.0.1:{{port}}/\"\nconnections = 8\nrate = 200\nduration = \"3s\"\n\
         [run]\ncooldown = \"0s\"\n",
        classes = classes.display()
    );
    std::fs::write(&plan, text).unwrap();
    let (output, _) = jload(&["run", plan.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let record = json(&rep_dir(&out, "default").join("get.json"));
    let profile = &record["flight_recording"]["profile"];
    let parks = profile["parks"].as_array().unwrap_or_else(|| panic!("{record}"));
    let lock = &parks[0];
    assert_eq!(lock["on"], "java.util.concurrent.locks.ReentrantLock$NonfairSync", "{parks:?}");
    assert!(lock["count"].as_u64().unwrap() >= 3, "a stall a second in 3 s, several requests each: {lock}");
    assert!((100.0..=400.0).contains(&lock["longest_ms"].as_f64().unwrap()), "up to the 150 ms hold: {lock}");
    assert!(lock["waiting_frame"].as_str().unwrap().starts_with("StallTarget."), "the service's frame: {lock}");
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(report.contains("## Profiles (JDK Flight Recorder)\n"), "{report}");
    assert!(
        report.contains("idle pool workers left out): java.util.concurrent.locks.ReentrantLock$NonfairSync ×"),
        "{report}"
    );
    assert!(profile["idle_parks"].as_u64().unwrap() > 0, "the HTTP server's idle workers, counted apart");
}

#[test]
fn the_dry_run_says_a_profiled_cell_is_recorded_and_a_plan_without_the_switch_records_nothing() {
    let dir = tempdir();
    let profiled = kv_plan("profile").target("profile = true\n").body(FILL_THEN_GET).write(&dir);
    let (dry, _) = jload(&["run", profiled.to_str().unwrap(), "--dry-run"]);
    let text = String::from_utf8_lossy(&dry.stdout);
    assert_eq!(dry.status.code(), Some(0), "{}", String::from_utf8_lossy(&dry.stderr));
    assert!(
        text.contains("\n  jfr: a flight recording of each measured phase (settings=profile, at most 512 MiB each) into <phase>.jfr\n"),
        "{text}"
    );
    let plain = kv_plan("plain").body(FILL_THEN_GET).write(&dir);
    let (dry, _) = jload(&["run", plain.to_str().unwrap(), "--dry-run"]);
    assert!(!String::from_utf8_lossy(&dry.stdout).contains("jfr:"), "off by default");
}
