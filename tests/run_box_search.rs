//! The smallest box that holds the SLO (`[box_search]`, docs/containers.md), on this machine's real cgroups with real
//! JVMs: a Java program of a known fixed footprint (tests/java/Footprint.java: 200 MiB of direct memory, every page
//! written, then it serves) is searched between 64 MiB and 1 GiB to 10 %, interrupted by Ctrl-C midway and resumed
//! with the trials already done kept; the answer brackets the footprint, its failing bound was killed by the memory
//! limit, and every output says so. The CPU quota is searched the same way (Footprint refusing to start below 2 CPUs
//! as the JVM sees them), and memory at a share of the capacity found in the largest box (`at_capacity`). Options
//! relative to the box (`-Xmx{memory*0.75}`) expand in a dry run, in the preflight's real JVM and in the search's
//! trials. Bad input exits 2 with one line and starts nothing. No cgroup is left behind.

use crate::common;

use std::path::{Path, PathBuf};

use common::cgroups::boxes_left_behind;
use common::jdks::compiled;
use common::machine;
use common::{interrupt_run_after, jload, json, tempdir};

const MIB: f64 = (1u64 << 20) as f64;
/// What Footprint.java allocates and writes.
const FOOTPRINT_MIB: f64 = 200.0;

/// A plan running Footprint (200 MiB) with `target_extra` and `tail` (an `[slo]`, a `[box_search]`).
fn plan(dir: &Path, classes: &Path, target_extra: &str, tail: &str) -> PathBuf {
    let text = format!(
        "name = \"smallest\"\n[target]\ncommand = \"java {{jvm}} -cp {classes} Footprint {{port}} {FOOTPRINT_MIB}\"\n\
         ready = \"http://127.0.0.1:{{port}}/\"\njdk = \"17\"\nstartup_timeout = \"30s\"\nstop_timeout = \"5s\"\n\
         {target_extra}\n\
         [[phase]]\nname = \"get\"\nurl = \"http://127.0.0.1:{{port}}/\"\nconnections = 2\nrate = 100\nduration = \"1s\"\n\
         [run]\ncooldown = \"0s\"\n{tail}\n",
        classes = classes.display()
    );
    let path = dir.join("smallest.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// A loose SLO: a trial's 100 requests run against a cold JVM on a loaded machine, and what the search must find is
/// the footprint, not the JIT's warm-up.
const SEARCH: &str = "[slo]\np99 = \"2s\"\n[box_search]\nmemory = { from = \"64m\", to = \"1g\", precision = 0.1 }\n";
const OPTIONS: &str = "jvm = [\"-XX:+UseSerialGC\", \"-Xmx{memory*0.1}\", \"-XX:MaxDirectMemorySize=1g\"]";

#[test]
fn the_search_finds_a_fixed_footprints_smallest_box_within_the_precision_across_an_interrupt() {
    let _machine = machine::shared();
    let dir = tempdir();
    let classes = compiled(&dir, "Footprint.java");
    let plan = plan(&dir, &classes, OPTIONS, SEARCH);
    let out = dir.join("results");

    // The upper bound, the lower, then 256 MiB (√(64 × 1024)): interrupted while that trial runs.
    let third = out.join("cells/memory=256m/rep-1/meta.json");
    assert_eq!(interrupt_run_after(&plan, &out, &third, "the third trial"), Some(130));
    let (output, _) = jload(&["run", "--resume", out.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    for before in ["memory=1024m", "memory=64m"] {
        assert!(stderr.contains(&format!("{before} already ran")), "{before} not kept: {stderr}");
    }

    let record = json(&out.join("box_search.json"));
    let search = &record["searches"][0];
    assert_eq!(record["searches"].as_array().unwrap().len(), 1, "{record}");
    assert_eq!(search["answer"]["kind"], "between", "{record}");
    let failing = search["answer"]["highest_failing"].as_f64().unwrap();
    let passing = search["answer"]["lowest_passing"].as_f64().unwrap();
    assert!(passing / failing - 1.0 <= 0.1, "not within 10 %: {record}");
    assert!(passing >= FOOTPRINT_MIB * MIB, "the footprint alone does not fit {passing}: {record}");
    assert!(passing <= (FOOTPRINT_MIB + 150.0) * MIB, "a small JVM needs far less than 150 MiB beside it: {record}");
    let trials = search["trials"].as_array().unwrap();
    assert_eq!(trials[0]["limit"].as_f64(), Some(1024.0 * MIB));
    assert_eq!(trials[1]["limit"].as_f64(), Some(64.0 * MIB));
    assert_eq!(trials[2]["limit"].as_f64(), Some(256.0 * MIB));
    let at = |limit: f64| trials.iter().find(|trial| trial["limit"].as_f64() == Some(limit)).unwrap();
    let why = at(failing)["failure"].as_str().unwrap().to_string();
    assert!(why.contains(&format!("killed by the memory limit ({} MiB)", failing / MIB)), "{why}");
    assert_eq!(at(passing)["failure"], serde_json::Value::Null);
    for trial in trials.iter().filter(|trial| trial["passed"] == false) {
        let why = trial["failure"].as_str().unwrap();
        assert!(why.contains("killed by the memory limit"), "{why}");
    }

    // The passing trial: its own box, its heap a tenth of it (rounded down to whole MiB), its peak within it.
    let passing_dir = out.join("cells").join(at(passing)["dir"].as_str().unwrap()).join("rep-1");
    let meta = json(&passing_dir.join("meta.json"));
    assert_eq!(meta["box"]["memory_bytes"].as_f64(), Some(passing));
    let heap = format!("-Xmx{}m", (passing / MIB * 0.1).floor());
    assert!(meta["command"].as_array().unwrap().iter().any(|word| word == &heap), "{heap} not in {}", meta["command"]);
    let get = json(&passing_dir.join("get.json"));
    let peak = get["box"]["memory_peak"].as_f64().unwrap();
    assert!(peak <= passing && peak >= FOOTPRINT_MIB * MIB, "peak {peak} in {passing}");

    let sentence = format!(
        "default needs {}–{} MiB at 100 req/s within p99<=2s (fails at {} MiB: before it was ready: killed by the \
         memory limit",
        failing / MIB,
        passing / MIB,
        failing / MIB
    );
    assert!(stdout.contains("smallest box holding the SLO:"), "{stdout}");
    assert!(stdout.contains(&sentence), "'{sentence}' not in {stdout}");
    let summary = json(&out.join("summary.json"));
    assert_eq!(summary["axes"], serde_json::json!(["memory"]));
    assert_eq!(summary["cells"].as_array().unwrap().len(), trials.len());
    let markdown = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(markdown.contains("## Smallest box holding the SLO\n\n- ") && markdown.contains(&sentence), "{markdown}");
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains(&sentence.replace('<', "&lt;")), "the sentence, HTML-escaped");
    let report = json(&out.join("report.json"));
    assert!(report["box_searches"][0]["sentence"].as_str().unwrap().starts_with(&sentence), "{report}");
    assert_eq!(report["box_searches"][0]["answer"], search["answer"]);
    assert_eq!(boxes_left_behind(), Vec::<PathBuf>::new());
}

#[test]
fn at_capacity_the_trials_run_at_a_share_of_the_capacity_found_in_the_largest_box() {
    let _machine = machine::shared();
    let dir = tempdir();
    let classes = compiled(&dir, "Footprint.java");
    let plan = plan(&dir, &classes, OPTIONS, "");
    // The measured phase becomes a capacity search (100, then 200 req/s: both meet the SLO; 200, the cap, measured
    // again: capacity 200).
    let text = std::fs::read_to_string(&plan).unwrap().replace(
        "rate = 100\nduration = \"1s\"\n",
        "capacity = { start_rate = 100, max_rate = 200 }\nstep = \"1s\"\nstep_warmup = \"0s\"\n\
         steady_max = \"0s\"\nmin_requests = 50\n",
    );
    let search = SEARCH.replace("precision = 0.1 }", "precision = 0.5 }\nat_capacity = 0.5");
    std::fs::write(&plan, text + &search).unwrap();
    let out = dir.join("results");
    let (output, _) = jload(&["run", plan.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");

    let record = json(&out.join("box_search.json"));
    let search = &record["searches"][0];
    assert_eq!(search["capacity"]["rps"].as_f64(), Some(200.0), "{record}");
    assert_eq!(search["capacity"]["share"].as_f64(), Some(0.5));
    assert_eq!(search["load"], "100 req/s, 50% of the 200 req/s found in the largest box");
    let capacity_run = out.join("cells").join(search["capacity"]["dir"].as_str().unwrap()).join("rep-1");
    assert_eq!(json(&capacity_run.join("get.json"))["steps"].as_array().unwrap().len(), 3);
    assert_eq!(json(&capacity_run.join("meta.json"))["box"]["memory_bytes"].as_f64(), Some(1024.0 * MIB));
    // Each trial that got to its phases ran it at the fixed rate, as one run.
    let largest = out.join("cells").join(search["trials"][0]["dir"].as_str().unwrap()).join("rep-1");
    let get = json(&largest.join("get.json"));
    assert_eq!(get["rate"].as_f64(), Some(100.0), "{get}");
    assert!(get["steps"].as_array().is_none_or(Vec::is_empty), "no ladder in a trial");
    assert_eq!(search["answer"]["kind"], "between", "{record}");
    let failing = search["answer"]["highest_failing"].as_f64().unwrap();
    let passing = search["answer"]["lowest_passing"].as_f64().unwrap();
    assert!(passing / failing - 1.0 <= 0.5 && passing >= FOOTPRINT_MIB * MIB, "{record}");
    assert!(String::from_utf8_lossy(&output.stdout).contains(&format!(
        "default needs {}–{} MiB at 100 req/s, 50% of the 200 req/s found in the largest box within p99<=2s",
        failing / MIB,
        passing / MIB
    )));
    assert_eq!(boxes_left_behind(), Vec::<PathBuf>::new());
}

#[test]
fn the_cpu_quota_search_finds_the_quota_above_which_the_jvm_sees_two_cpus() {
    let _machine = machine::shared();
    let dir = tempdir();
    let classes = compiled(&dir, "Footprint.java");
    // Footprint refuses to start when the JVM sees fewer than 2 CPUs: any quota up to 1.0 (the JVM rounds it up).
    let plan = plan(&dir, &classes, "jvm = [\"-XX:+UseSerialGC\"]", "");
    let text = std::fs::read_to_string(&plan).unwrap().replace(" {port} 200\"", " {port} 16 2\"");
    let search = "[slo]\np99 = \"2s\"\n[box_search]\ncpus_quota = { from = 0.25, to = 2, precision = 0.2 }\n";
    std::fs::write(&plan, text + search).unwrap();
    let out = dir.join("results");
    let (output, _) = jload(&["run", plan.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));

    let record = json(&out.join("box_search.json"));
    let search = &record["searches"][0];
    assert_eq!(search["range"]["dimension"], "cpus_quota", "{record}");
    assert_eq!(search["answer"]["kind"], "between", "{record}");
    let failing = search["answer"]["highest_failing"].as_f64().unwrap();
    let passing = search["answer"]["lowest_passing"].as_f64().unwrap();
    assert!(failing <= 1.0 && passing > 1.0 && passing / failing - 1.0 <= 0.2, "{record}");
    let trials = search["trials"].as_array().unwrap();
    let limits: Vec<f64> = trials.iter().map(|trial| trial["limit"].as_f64().unwrap()).collect();
    assert_eq!(limits[..3], [2.0, 0.25, 0.7], "the upper bound, the lower, then √(0.25 × 2) in hundredths");
    let why =
        trials.iter().find(|trial| trial["limit"].as_f64() == Some(failing)).unwrap()["failure"].as_str().unwrap();
    assert!(why.starts_with("exited before it was ready") && why.contains("needs 2 CPUs, sees 1"), "{why}");
    let passing_dir = trials.iter().find(|trial| trial["limit"].as_f64() == Some(passing)).unwrap()["dir"].as_str();
    let meta = json(&out.join("cells").join(passing_dir.unwrap()).join("rep-1/meta.json"));
    assert_eq!(meta["box"]["cpus_quota"].as_f64(), Some(passing));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let sentence = format!("default needs {failing}–{passing} CPU at 100 req/s within p99<=2s (fails at {failing} CPU");
    assert!(stdout.contains(&sentence), "'{sentence}' not in {stdout}");
    assert_eq!(boxes_left_behind(), Vec::<PathBuf>::new());
}

#[test]
fn an_option_relative_to_the_box_is_filled_in_whole_mebibytes_in_the_dry_run_and_the_jvms_own_heap() {
    let _machine = machine::shared();
    let dir = tempdir();
    let classes = compiled(&dir, "Footprint.java");
    let options = "memory = \"512m\"\njvm = [\"-XX:+UseSerialGC\", \"-Xmx{memory*0.75}\", \"-Xms{memory*0.3}\"]";
    let plan = plan(&dir, &classes, options, "");
    let (output, _) = jload(&["run", plan.to_str().unwrap(), "--dry-run"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    // 0.3 × 512 = 153.6 MiB: rounded down.
    assert!(stdout.contains(" -XX:+UseSerialGC -Xmx384m -Xms153m "), "{stdout}");
    // The preflight's JVM, in the 512 MiB box, reports the heap it was given (the initial heap aligned up).
    assert!(stdout.contains("ok: Serial heap 15") && stdout.contains("–384 MiB"), "{stdout}");
    assert_eq!(boxes_left_behind(), Vec::<PathBuf>::new());
}

#[test]
fn bad_box_search_input_exits_2_with_one_line_and_starts_nothing() {
    let dir = tempdir();
    let classes = dir.join("classes");
    let search = |range: &str| format!("[slo]\np99 = \"200ms\"\n[box_search]\nmemory = {{ {range} }}\n");
    let cases = [
        ("", search("from = \"1g\", to = \"64m\""), "box_search.memory: from = '1g' must be below to = '64m'"),
        ("", search("from = \"64m\", to = \"64m\""), "box_search.memory: from = '64m' must be below to = '64m'"),
        ("", search("from = \"64m\", to = \"1g\", precision = 0"), "box_search.memory: precision 0 must be a share"),
        ("", search("from = \"64m\", to = \"1g\", precision = 1"), "box_search.memory: precision 1 must be a share"),
        ("", search("from = \"sixty\", to = \"1g\""), "box_search.memory: from: 'sixty' is not a size"),
        (
            "",
            "[box_search]\nmemory = { from = \"64m\", to = \"1g\" }\n".to_string(),
            "box_search: a search needs an [slo]",
        ),
        ("memory = \"512m\"", search("from = \"64m\", to = \"1g\""), "target.memory cannot fix it too"),
        (
            "",
            search("from = \"64m\", to = \"1g\"") + "at_capacity = 0.5\n",
            "box_search.at_capacity: needs exactly one measured phase with capacity = …, found 0",
        ),
        (
            "jvm = [\"-Xmx{memory*0.5}\"]",
            String::new(),
            "'-Xmx{memory*0.5}' is relative to the box, but cell 'default' has no memory limit",
        ),
    ];
    for (target_extra, tail, expected) in cases {
        let plan = plan(&dir, &classes, target_extra, &tail);
        let out = dir.join("results");
        let (output, _) = jload(&["run", plan.to_str().unwrap(), "--out", out.to_str().unwrap()]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains(expected), "expected '{expected}' in {stderr}");
        assert!(!out.exists(), "nothing is started or written");
    }
    let axis = "[[axis]]\nname = \"box\"\nmemory = [\"256m\", \"512m\"]\n";
    let plan = plan(&dir, &classes, &format!("\n{axis}"), &search("from = \"64m\", to = \"1g\""));
    let (output, _) = jload(&["run", plan.to_str().unwrap(), "--dry-run"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("box_search: memory is searched, so axis 'box' cannot set it too"), "{stderr}");
}
