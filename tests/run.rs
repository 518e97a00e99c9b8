//! `jload run` end to end with the real kv-service JVM: a 2 × 2 plan, --dry-run, preflight, a cell that runs out of
//! heap, Ctrl-C then --resume, no orphan JVM left behind, and malformed plans rejected before anything starts.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::kv_plan::kv_plan;
use common::machine;
use common::{folder_of, interrupt_run_after, jload, json, jvms_with, kv_jar, repo, tempdir, without_histograms};

/// A plan against kv-service with the given axes and phases (TOML fragments).
fn plan(dir: &Path, name: &str, axes: &str, phases: &str, extra: &str) -> PathBuf {
    kv_plan(name).body(axes).body(phases).run(extra).write(dir)
}

const TWO_BY_TWO: &str = "[[axis]]\nname = \"heap\"\nvalues = [\"-Xmx64m\", \"-Xmx96m\"]\n\
    [[axis]]\nname = \"gc\"\nvalues = [{ label = \"G1\", jvm = [\"-XX:+UseG1GC\"] }, { label = \"Serial\", jvm = [\"-XX:+UseSerialGC\"] }]\n";

const SHORT_PHASES: &str = "[[phase]]\nname = \"fill\"\nmeasure = false\n\
    url = \"http://127.0.0.1:{port}/random_set?keyRange=5000&valueSize=500\"\nconnections = 8\nrequests = 5000\n\
    [[phase]]\nname = \"get\"\nurl = \"http://127.0.0.1:{port}/random_get?keyRange=5000\"\nconnections = 8\nduration = \"2s\"\n";

#[test]
fn two_by_two_plan_fills_a_consistent_summary() {
    let _machine = machine::shared();
    let dir = tempdir();
    let out = dir.join("results");
    let plan = plan(&dir, "twobytwo", TWO_BY_TWO, SHORT_PHASES, "repeats = 1\n[slo]\np99 = \"5s\"\n");
    let (output, _) = jload(&["run", plan.to_str().unwrap(), "--out", out.to_str().unwrap(), "--seed", "7"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("req/s") && stdout.contains("-Xmx96m G1"), "final table: {stdout}");
    // The run ends with the reports (tests/report.rs checks their content).
    assert!(stderr.contains(&format!("jload: report in {}", out.join("report.html").display())), "{stderr}");
    let markdown = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        markdown.contains("|metrics \\\\ heap gc|-Xmx64m G1|-Xmx64m Serial|-Xmx96m G1|-Xmx96m Serial|"),
        "{markdown}"
    );
    assert!(markdown.contains("\n|CPU GC/JIT/VM/app (cores)|"), "{markdown}");
    assert!(json(&out.join("report.json"))["phases"].as_array().is_some());
    let summary = json(&out.join("summary.json"));
    let cells = summary["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 4);
    for cell in cells {
        assert_eq!(cell["status"], "ok", "{cell}");
        let rep = &cell["reps"][0];
        let id = cell["id"].as_str().unwrap();
        let folder = out.join("cells").join(folder_of(&out, id));
        let phase_file = folder.join("rep-1/get.json");
        let on_disk = json(&phase_file);
        assert!(on_disk["histograms"]["total"].is_string(), "the phase file keeps its histograms");
        assert!(on_disk["series"].as_array().unwrap().iter().all(|row| row["histogram"].is_string()));
        assert_eq!(rep["phases"]["get"], without_histograms(&on_disk), "summary repeats the phase file of {id}");
        assert_eq!(rep["phases"]["fill"]["requests"], 5000);
        assert!(on_disk["requests"].as_u64().unwrap() > 100);
        assert_eq!(on_disk["model"], "closed");
        assert!(on_disk["latency_corrected_ms"]["p99"].as_f64().is_some(), "closed-model phases keep both latencies");
        assert!(on_disk["jvm"]["ygc"].as_u64().is_some(), "GC counters sampled");
        assert!(on_disk["jvm"]["pauses"]["count"].as_u64().is_some(), "GC log read");
        // One pause count and longest pause for the phase: its JVM block and its attribution read the same stops.
        let stops = &on_disk["gc_attribution"]["stops"];
        assert_eq!(on_disk["jvm"]["pauses"]["count"], stops["gc_pauses"], "{id}: {stops}");
        let longest = on_disk["jvm"]["pauses"]["max_ms"].as_f64().unwrap();
        assert!((longest - stops["longest_gc_pause_ms"].as_f64().unwrap()).abs() < 0.002, "{id}: {longest} {stops}");
        assert_eq!(on_disk["slo_passed"], true);
        // The JVM's CPU by thread group: the application's threads serve the load; the JIT compiles through the fill
        // (the JVM's first seconds) far more than in the phase after it.
        let cpu = |phase: &serde_json::Value, group: &str| phase["thread_cpu"][group].as_f64().unwrap();
        let fill = json(&folder.join("rep-1/fill.json"));
        assert!(cpu(&on_disk, "application") > 0.2, "{id}: {}", on_disk["thread_cpu"]);
        assert!(
            cpu(&fill, "jit") > cpu(&on_disk, "jit"),
            "{id}: {} then {}",
            fill["thread_cpu"],
            on_disk["thread_cpu"]
        );
        let meta = json(&folder.join("rep-1/meta.json"));
        let flags = &meta["flags"];
        let expected_heap = if id.contains("64m") { 64 << 20 } else { 96 << 20 };
        assert_eq!(flags["max_heap_bytes"], expected_heap);
        assert_eq!(flags["collector"], if id.contains("G1") { "G1" } else { "Serial" });
        for file in ["gc.log", "gcstat.csv", "get.hlog", "stdout.log", "stderr.log"] {
            assert!(folder.join("rep-1").join(file).is_file(), "{id}: {file}");
        }
    }
    assert!(out.join("plan.toml").is_file() && out.join("env.json").is_file());
    assert!(jvms_with(&out.display().to_string()).is_empty(), "no JVM outlives the run");
}

#[test]
fn dry_run_prints_every_cell_and_starts_nothing() {
    let dir = tempdir();
    let plan = plan(
        &dir,
        "dry",
        &TWO_BY_TWO.replace("\"G1\", jvm", "\"G1\", env = { KV_NOTE = \"x\" }, jvm"),
        SHORT_PHASES,
        "",
    );
    let (output, _) = jload(&["run", plan.to_str().unwrap(), "--dry-run"]);
    assert_eq!(output.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(stdout.matches("\nheap=").count(), 4, "{stdout}");
    assert!(stdout.contains("-Xmx96m -XX:+UseSerialGC"), "{stdout}");
    assert!(stdout.contains("-XX:+ExitOnOutOfMemoryError"), "{stdout}");
    assert_eq!(stdout.matches("\n  env: JAVA_HOME=/").count(), 4, "{stdout}");
    assert!(stdout.contains("env: JAVA_HOME=/") && stdout.contains(" KV_NOTE=x"), "{stdout}");
    assert!(
        stdout.contains(
            "estimated duration: about 28s = 4 cell-repeat(s) to run × (2s of load + ~5s to start and stop) + 3 × 0s cooldown"
        ),
        "{stdout}"
    );
    assert!(stdout.contains("not counted: phase(s) fill"), "{stdout}");
    assert!(!dir.join("results").exists());
}

#[test]
fn preflight_rejects_seed_000s_invalid_heap_flag() {
    let _machine = machine::shared();
    let dir = tempdir();
    let axes = "[[axis]]\nname = \"heap\"\nvalues = [\"-Xmx64m\", \"-Xms=25g\"]\n";
    let plan = plan(&dir, "preflight", axes, SHORT_PHASES, "");
    let out = dir.join("results");
    let (output, _) = jload(&["run", plan.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("heap=-Xms=25g") && stderr.contains("--skip-invalid"), "{stderr}");
    assert!(!out.exists(), "nothing started");
}

#[test]
fn preflight_checks_the_complete_option_set_with_logging_options_and_folders() {
    let _machine = machine::shared();
    let dir = tempdir();
    // Both values write a log into the cell's folder; the second has a decorator the JVM does not know.
    let axes = "[[axis]]\nname = \"log\"\nvalues = [\"-Xlog:gc:file={dir}/own.log:uptime\", \"-Xlog:gc:file={dir}/own.log:bogus\"]\n";
    let plan = plan(&dir, "preflight-log", axes, SHORT_PHASES, "");
    let out = dir.join("results");
    let (output, _) = jload(&["run", plan.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    assert!(stderr.contains("preflight rejected 1 cell(s): log=-Xlog:gc:file={dir}/own.log:bogus: "), "{stderr}");
    assert!(stderr.contains("Invalid decorator 'bogus'"), "the JVM's own message: {stderr}");
    assert!(!out.exists(), "nothing started");
}

#[test]
fn a_cell_that_runs_out_of_heap_is_recorded_as_crashed_and_the_sweep_goes_on() {
    let _machine = machine::shared();
    let dir = tempdir();
    // maxMemory above the heap: the store keeps everything and the 32m JVM dies during the fill.
    let axes = "[[axis]]\nname = \"heap\"\nvalues = [{ label = \"tiny\", jvm = [\"-Xmx32m\", \"-Dkv.maxMemory=400m\"] }, \"-Xmx96m\"]\n";
    let phases = "[[phase]]\nname = \"fill\"\nmeasure = false\n\
        url = \"http://127.0.0.1:{port}/random_set?keyRange=200000&valueSize=2000\"\nconnections = 8\nrequests = 60000\nduration = \"40s\"\n\
        [[phase]]\nname = \"get\"\nurl = \"http://127.0.0.1:{port}/random_get?keyRange=1000\"\nconnections = 4\nduration = \"1s\"\n";
    let plan = plan(&dir, "oom", axes, phases, "order = \"sequential\"\n");
    let out = dir.join("results");
    let (output, _) = jload(&["run", plan.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let summary = json(&out.join("summary.json"));
    let tiny = &summary["cells"][0];
    assert_eq!(tiny["id"], "heap=tiny");
    assert_eq!(tiny["status"], "crashed");
    let cause = tiny["reps"][0]["cause"].as_str().unwrap();
    assert!(cause.contains("OutOfMemoryError"), "{cause}");
    let meta = json(&out.join("cells/heap=tiny/rep-1/meta.json"));
    assert_eq!(meta["exit"]["code"], 3, "ExitOnOutOfMemoryError exits with 3");
    assert_eq!(summary["cells"][1]["status"], "ok", "the next cell still ran");
}

#[test]
fn the_contenders_for_the_best_cell_are_measured_again_to_confirm_and_a_resume_picks_the_same() {
    let _machine = machine::shared();
    let dir = tempdir();
    // Two cells of one configuration contend on throughput and on P99; the interpreter's is many times slower.
    let axes = "[[axis]]\nname = \"jit\"\nvalues = [{ label = \"twin-a\", jvm = [] }, { label = \"twin-b\", jvm = [] }, \
        { label = \"interpreted\", jvm = [\"-Xint\"] }]\n";
    let phases = "[[phase]]\nname = \"get\"\nurl = \"http://127.0.0.1:{port}/random_get?keyRange=100\"\nconnections = 4\nduration = \"2s\"\n";
    let plan = plan(&dir, "confirm", axes, phases, "confirm = 2\n");
    let out = dir.join("results");
    let (dry, _) = jload(&["run", plan.to_str().unwrap(), "--dry-run"]);
    assert!(
        String::from_utf8_lossy(&dry.stdout).contains(
            "then: the contenders for each measured phase's best cell (at most 3 a figure) measured again to 2 \
             repeats each"
        ),
        "{}",
        String::from_utf8_lossy(&dry.stdout)
    );
    let (too_many, _) = jload(&["run", plan.to_str().unwrap(), "--repeats", "2", "--out", out.to_str().unwrap()]);
    assert_eq!(too_many.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&too_many.stderr),
        "jload: --repeats 2 is not below the plan's run.confirm (2); give fewer repeats or raise run.confirm\n"
    );
    let (output, _) = jload(&["run", plan.to_str().unwrap(), "--out", out.to_str().unwrap(), "--seed", "3"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let confirming = "jload: confirming the contenders for the best cell, to 2 repeats each: ";
    let line = stderr.lines().find(|line| line.starts_with(confirming)).unwrap_or_else(|| panic!("{stderr}"));
    let mut named: Vec<&str> = line[confirming.len()..].split(", ").collect();
    named.sort_unstable();
    assert_eq!(named, ["jit=twin-a", "jit=twin-b"], "{line}");
    let summary = json(&out.join("summary.json"));
    let reps = |id: &str| -> Vec<u64> {
        let cell = summary["cells"].as_array().unwrap().iter().find(|cell| cell["id"] == id).unwrap();
        assert_eq!(cell["status"], "ok", "{cell}");
        cell["reps"].as_array().unwrap().iter().map(|rep| rep["rep"].as_u64().unwrap()).collect()
    };
    assert_eq!((reps("jit=twin-a"), reps("jit=twin-b"), reps("jit=interpreted")), (vec![1, 2], vec![1, 2], vec![1]));
    assert!(out.join("cells/jit=twin-b/rep-2/get.json").is_file() && !out.join("cells/jit=interpreted/rep-2").exists());
    // The best is tested against the other contender; the interpreter, measured once, is beyond a launch's spread.
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    let best =
        report.lines().find(|line| line.contains("Best throughput: twin-")).unwrap_or_else(|| panic!("{report}"));
    assert!(
        best.contains(
            "the cells with fewer repeats are more than the 30 % one launch of a JVM can differ from the next below it"
        ),
        "{best}"
    );
    // A resume has nothing left to run: it judges the same contenders on the plan's repeats and starts no JVM.
    let meta = std::fs::read(out.join("cells/jit=twin-a/rep-2/meta.json")).unwrap();
    let (resumed, _) = jload(&["run", "--resume", out.to_str().unwrap()]);
    let resumed_err = String::from_utf8_lossy(&resumed.stderr);
    assert_eq!(resumed.status.code(), Some(0), "{resumed_err}");
    assert!(resumed_err.contains(line), "{resumed_err}");
    assert!(!resumed_err.contains("] jit="), "nothing ran again: {resumed_err}");
    assert_eq!(std::fs::read(out.join("cells/jit=twin-a/rep-2/meta.json")).unwrap(), meta);
    assert!(jvms_with(&out.display().to_string()).is_empty(), "no JVM outlives the run");
}

#[test]
fn interrupted_sweep_resumes_exactly_the_missing_cells() {
    let _machine = machine::shared();
    let dir = tempdir();
    let axes = "[[axis]]\nname = \"heap\"\nvalues = [\"-Xmx64m\", \"-Xmx80m\", \"-Xmx96m\"]\n";
    let phases = "[[phase]]\nname = \"get\"\nurl = \"http://127.0.0.1:{port}/random_get?keyRange=100\"\nconnections = 4\nduration = \"3s\"\n";
    let plan = plan(&dir, "resume", axes, phases, "order = \"sequential\"\n");
    let out = dir.join("results");
    // Once the first cell is done and the second has started, press Ctrl-C.
    let second = out.join("cells/heap=-Xmx80m/rep-1/meta.json");
    assert_eq!(interrupt_run_after(&plan, &out, &second, "the second cell's start"), Some(130));
    assert!(out.join("report.md").is_file(), "an interrupted run still reports what finished");
    assert!(jvms_with(&out.display().to_string()).is_empty(), "no JVM outlives an interrupt");
    let first_meta = std::fs::read(out.join("cells/heap=-Xmx64m/rep-1/meta.json")).unwrap();
    let summary = json(&out.join("summary.json"));
    assert_eq!(summary["cells"][0]["status"], "ok");
    assert_eq!(summary["cells"][1]["status"], "incomplete");
    let (output, _) = jload(&["run", "--resume", out.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let summary = json(&out.join("summary.json"));
    for cell in summary["cells"].as_array().unwrap() {
        assert_eq!(cell["status"], "ok", "{cell}");
    }
    assert_eq!(
        std::fs::read(out.join("cells/heap=-Xmx64m/rep-1/meta.json")).unwrap(),
        first_meta,
        "finished work untouched"
    );
    assert!(jvms_with(&out.display().to_string()).is_empty());
}

#[test]
fn malformed_plans_are_rejected_with_file_line_and_key() {
    let dir = tempdir();
    let base =
        "name = \"p\"\n[target]\ncommand = \"java {jvm} -jar x.jar\"\nready = \"http://127.0.0.1:{port}/health\"\n";
    let phase = "[[phase]]\nname = \"get\"\nurl = \"http://127.0.0.1:{port}/\"\nduration = \"1s\"\n";
    let cases: Vec<(String, &str)> = vec![
        (format!("{base}{phase}colour = \"red\"\n"), "unknown field `colour`"),
        (format!("{base}startup_timeout = \"soon\"\n{phase}"), "not a duration"),
        (format!("{base}{phase}[run]\nrepeats = \"three\"\n"), "line 10"),
        (format!("{base}{phase}[run]\nrepeats = 0\n"), "run.repeats must be at least 1"),
        (format!("{base}{phase}[run]\norder = \"random\"\n"), "interleaved"),
        (base.to_string(), "missing field `phase`"),
        (format!("name = \"p\"\n{phase}"), "missing field `target`"),
        (
            format!("{base}[[phase]]\nname = \"get\"\nurl = \"http://127.0.0.1:{{port}}/\"\n"),
            "neither requests nor duration",
        ),
        (format!("{base}[[phase]]\nname = \"get\"\nduration = \"1s\"\n"), "give url or mix"),
        (format!("{base}{phase}{phase}"), "duplicate phase name 'get'"),
        (format!("{base}[[axis]]\nname = \"heap\"\nvalues = []\n{phase}"), "has no values"),
        (
            format!("{base}[[axis]]\nname = \"heap\"\nvalues = [\"-Xmx1g\", \"-Xmx1g\"]\n{phase}"),
            "duplicate label '-Xmx1g'",
        ),
        (
            format!(
                "{base}[[axis]]\nname = \"a\"\nvalues = [\"-X\"]\n[[axis]]\nname = \"a\"\nvalues = [\"-Y\"]\n{phase}"
            ),
            "duplicate axis name",
        ),
        (format!("{base}[[axis]]\nname = \"gc\"\nvalues = [{{ label = \"G1\", jvmm = [] }}]\n{phase}"), "line 7"),
        (
            format!("{base}[[phase]]\nname = \"get\"\nurl = \"ftp://127.0.0.1:{{port}}/\"\nduration = \"1s\"\n"),
            "unsupported scheme",
        ),
        (
            format!(
                "{base}[[phase]]\nname = \"get\"\nurl = \"http://127.0.0.1:{{port}}/?k={{rand:9..1}}\"\nduration = \"1s\"\n"
            ),
            "malformed placeholder",
        ),
        (
            format!(
                "{base}[[phase]]\nname = \"get\"\nurl = \"http://127.0.0.1:{{port}}/\"\nduration = \"1s\"\nconnections = 0\n"
            ),
            "at least 1",
        ),
        (format!("{base}{phase}[slo]\np99 = \"fast\"\n"), "[slo]"),
        (format!("{base}{phase}[run]\ncost_axis = \"heap\"\n"), "not an axis"),
        (format!("name = \"a/b\"\n[target]\ncommand = \"java\"\nready = \"http://x/\"\n{phase}"), "without slashes"),
        (format!("{base}ready = \"tcp://x\"\n{phase}"), "duplicate key"),
        (
            format!(
                "{base}[[phase]]\nname = \"get\"\nurl = \"http://127.0.0.1:{{port}}/\"\nduration = \"1s\"\nrate = -3.0\n"
            ),
            "rate must be a positive",
        ),
    ];
    for (index, (text, expected)) in cases.iter().enumerate() {
        let path = dir.join(format!("bad{index}.toml"));
        std::fs::write(&path, text).unwrap();
        let (output, _) = jload(&["run", path.to_str().unwrap(), "--dry-run"]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "case {index}: {stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "case {index}: one line: {stderr}");
        assert!(stderr.contains(&path.display().to_string()), "case {index}: names the file: {stderr}");
        assert!(stderr.contains(expected), "case {index}: expected '{expected}' in {stderr}");
    }
}

#[test]
fn every_example_plan_passes_its_checks_and_preflight() {
    let _machine = machine::shared();
    let plans = std::fs::read_dir(repo().join("plans")).unwrap();
    let mut checked = 0;
    for entry in plans {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|extension| extension != "toml") {
            continue;
        }
        let (output, _) = jload(&["run", path.to_str().unwrap(), "--dry-run"]);
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert_eq!(output.status.code(), Some(0), "{}: {}", path.display(), String::from_utf8_lossy(&output.stderr));
        assert!(!stdout.contains("INVALID"), "{}: {stdout}", path.display());
        checked += 1;
    }
    assert!(checked >= 10, "quickstart and the seed plans");
}

/// Uptimes of `gcstat.csv`'s rows.
fn gcstat_uptimes(path: &Path) -> Vec<f64> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines().skip(1).map(|line| line.split(',').nth(1).unwrap().parse().unwrap()).collect()
}

#[test]
fn unlabelled_collector_values_and_labels_of_any_character_run_clean() {
    let _machine = machine::shared();
    let dir = tempdir();
    let long = "x".repeat(300);
    let label = format!("a:b, c=d/e 'q' \\\"dq\\\" ü 50% $HOME {long}");
    let axes = format!(
        "[[axis]]\nname = \"gc\"\nvalues = [\"-XX:+UseSerialGC\", \"-XX:+UseParallelGC\"]\n\
         [[axis]]\nname = \"note\"\nvalues = [{{ label = \"{label}\", jvm = [\"-Dnote=1\"] }}]\n"
    );
    let plan = plan(&dir, "anyvalue", &axes, SHORT_PHASES, "");
    let out = dir.join("results");
    let (output, _) = jload(&["run", plan.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let summary = json(&out.join("summary.json"));
    let ids: Vec<&str> = summary["cells"].as_array().unwrap().iter().map(|cell| cell["id"].as_str().unwrap()).collect();
    let human = format!("a:b, c=d/e 'q' \"dq\" ü 50% $HOME {long}");
    assert_eq!(ids, [format!("gc=-XX:+UseSerialGC,note={human}"), format!("gc=-XX:+UseParallelGC,note={human}")]);
    for (cell, collector) in summary["cells"].as_array().unwrap().iter().zip(["Serial", "Parallel"]) {
        assert_eq!(cell["status"], "ok", "{cell}");
        assert_eq!(cell["flags"]["collector"], collector);
        let folder = folder_of(&out, cell["id"].as_str().unwrap());
        assert!(folder.chars().all(|c| c.is_ascii_alphanumeric() || "._+=-".contains(c)), "{folder}");
        assert!(folder.len() <= 160, "{folder}");
        let rep = out.join("cells").join(&folder).join("rep-1");
        let gc_log = std::fs::read_to_string(rep.join("gc.log")).unwrap();
        assert!(gc_log.contains(&format!("Using {collector}")), "the JVM wrote its GC log into {folder}");
        assert!(json(&rep.join("get.json"))["jvm"]["pauses"]["count"].as_u64().is_some(), "GC log read");
        // One gcstat.csv row per second: no row repeated by the phase-edge samples.
        let uptimes = gcstat_uptimes(&rep.join("gcstat.csv"));
        assert!(uptimes.len() >= 2, "{uptimes:?}");
        for pair in uptimes.windows(2) {
            assert!(pair[1] - pair[0] >= 0.5, "rows at most once per interval: {uptimes:?}");
        }
    }
    let markdown = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(markdown.contains("-XX:+UseSerialGC"), "reports show the human label: {markdown}");
    assert!(jvms_with(&out.display().to_string()).is_empty());
}

#[test]
fn a_results_path_the_jvm_cannot_take_is_refused_before_anything_starts() {
    let dir = tempdir();
    let plan = plan(&dir, "badout", TWO_BY_TWO, SHORT_PHASES, "");
    for name in ["my results", "a:b", "x,y", "100%"] {
        let out = dir.join(name);
        let (output, _) = jload(&["run", plan.to_str().unwrap(), "--out", out.to_str().unwrap()]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
        assert!(stderr.contains("cannot hold") && stderr.contains("--out"), "{stderr}");
        assert!(!out.exists(), "nothing started for {name}");
    }
}

#[test]
fn resume_resolves_paths_like_the_first_run_and_retries_cells_the_environment_failed() {
    let _machine = machine::shared();
    // project/plans/p.toml with workdir = ".." (project/), the jar at project/app/kv.jar, a mix beside the plan.
    let project = tempdir();
    std::fs::create_dir_all(project.join("plans/mixes")).unwrap();
    std::fs::create_dir_all(project.join("app")).unwrap();
    std::fs::write(
        project.join("plans/mixes/get.toml"),
        "[[request]]\nurl = \"http://127.0.0.1:{port}/random_get?keyRange=100\"\n",
    )
    .unwrap();
    let text = kv_plan("paths")
        .command("java {jvm} -jar app/kv.jar")
        .target("workdir = \"..\"\n")
        .body(
            "[[axis]]\nname = \"heap\"\nvalues = [\"-Xmx64m\", \"-Xmx96m\"]\n\
             [[phase]]\nname = \"get\"\nmix = \"mixes/get.toml\"\nconnections = 4\nduration = \"1s\"\n",
        )
        .run("repeats = 2\n")
        .text();
    std::fs::write(project.join("plans/p.toml"), text).unwrap();
    let results_parent = tempdir();
    let out = results_parent.join("results");
    // First run from the plan's folder with a jar that is no jar: every cell fails for a reason of the environment.
    std::fs::write(project.join("app/kv.jar"), "not a jar").unwrap();
    let first = Command::new(env!("CARGO_BIN_EXE_jload"))
        .args(["run", "p.toml", "--repeats", "1", "--out", out.to_str().unwrap()])
        .current_dir(project.join("plans"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&first.stderr);
    assert_eq!(first.status.code(), Some(1), "every cell failed: not exit 0: {stderr}");
    assert!(
        stderr.contains("failed for a reason outside their configuration") && stderr.contains("--resume"),
        "{stderr}"
    );
    let summary = json(&out.join("summary.json"));
    for cell in summary["cells"].as_array().unwrap() {
        assert_eq!(cell["status"], "failed", "{cell}");
        assert_eq!(cell["reps"].as_array().unwrap().len(), 1, "--repeats 1 of the first run");
        let cause = cell["reps"][0]["cause"].as_str().unwrap();
        assert!(cause.contains("exited before it was ready") && cause.contains("app/kv.jar"), "{cause}");
    }
    // The environment is fixed; resume from somewhere else entirely.
    std::fs::copy(kv_jar(), project.join("app/kv.jar")).unwrap();
    let elsewhere = tempdir();
    let (dry, _) = jload(&["run", "--resume", out.to_str().unwrap(), "--dry-run"]);
    let dry = String::from_utf8_lossy(&dry.stdout);
    assert!(dry.contains("about 12s = 2 cell-repeat(s) to run × (1s of load"), "{dry}");
    assert!(dry.contains(&format!("workdir: {}", project.join("plans/..").display())), "{dry}");
    let resumed = Command::new(env!("CARGO_BIN_EXE_jload"))
        .args(["run", "--resume", out.to_str().unwrap()])
        .current_dir(&elsewhere)
        .output()
        .unwrap();
    assert_eq!(resumed.status.code(), Some(0), "{}", String::from_utf8_lossy(&resumed.stderr));
    let summary = json(&out.join("summary.json"));
    for cell in summary["cells"].as_array().unwrap() {
        assert_eq!(cell["status"], "ok", "{cell}");
        assert_eq!(cell["reps"].as_array().unwrap().len(), 1, "resume keeps the first run's repeats");
        assert!(cell["reps"][0]["phases"]["get"]["requests"].as_u64().unwrap() > 10);
    }
    assert!(std::fs::read_dir(&elsewhere).unwrap().next().is_none(), "nothing written where resume ran");
    let (dry, _) = jload(&["run", "--resume", out.to_str().unwrap(), "--dry-run"]);
    assert!(String::from_utf8_lossy(&dry.stdout).contains("about 0s = 0 cell-repeat(s) to run"));
    assert!(jvms_with(&out.display().to_string()).is_empty());
}

#[test]
fn every_plan_the_run_help_names_exists_and_its_example_is_accepted() {
    let (output, _) = jload(&["run", "--help"]);
    let help = String::from_utf8_lossy(&output.stdout);
    let examples: Vec<&str> = help.lines().map(str::trim).filter(|line| line.starts_with("jload run plans/")).collect();
    assert!(examples.len() >= 2, "{help}");
    for example in examples {
        let words = shell_words::split(example).unwrap();
        assert!(repo().join(&words[2]).is_file(), "{example}: {} does not exist", words[2]);
        let path = repo().join(&words[2]);
        let mut args: Vec<&str> = words[1..].iter().map(String::as_str).collect();
        args[1] = path.to_str().unwrap();
        if !args.contains(&"--dry-run") {
            args.push("--dry-run");
        }
        let (output, _) = jload(&args);
        assert_eq!(output.status.code(), Some(0), "{example}: {}", String::from_utf8_lossy(&output.stderr));
    }
}

#[test]
fn a_command_that_cannot_start_fails_every_cell_for_the_environment_and_exits_1() {
    let dir = tempdir();
    let text = "name = \"nostart\"\n[target]\ncommand = \"./no-such-start-script.sh {jvm}\"\n\
        ready = \"http://127.0.0.1:{port}/health\"\n[[axis]]\nname = \"heap\"\nvalues = [\"-Xmx64m\", \"-Xmx96m\"]\n\
        [[phase]]\nname = \"get\"\nurl = \"http://127.0.0.1:{port}/\"\nduration = \"1s\"\n[run]\ncooldown = \"0s\"\n";
    let plan = dir.join("nostart.toml");
    std::fs::write(&plan, text).unwrap();
    let out = dir.join("results");
    let (output, _) = jload(&["run", plan.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("2 cell-repeat(s) failed for a reason outside their configuration"), "{stderr}");
    assert!(stderr.contains("every cell-repeat failed"), "{stderr}");
    let summary = json(&out.join("summary.json"));
    for cell in summary["cells"].as_array().unwrap() {
        assert_eq!(cell["status"], "failed", "{cell}");
        let cause = cell["reps"][0]["cause"].as_str().unwrap();
        assert!(cause.starts_with("cannot start ./no-such-start-script.sh"), "{cause}");
        let meta = json(&out.join("cells").join(folder_of(&out, cell["id"].as_str().unwrap())).join("rep-1/meta.json"));
        assert_eq!(meta["failure"], "environment");
    }
}

#[test]
fn a_sweep_whose_output_is_closed_runs_to_the_end_and_writes_its_reports() {
    let _machine = machine::shared();
    let dir = tempdir();
    let axes = "[[axis]]\nname = \"heap\"\nvalues = [\"-Xmx64m\", \"-Xmx96m\"]\n";
    let plan = plan(&dir, "closed", axes, SHORT_PHASES, "");
    let out = dir.join("results");
    // `jload run … 2>&1 | head -1` once head has gone: both streams lead to a pipe nobody reads.
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    let status = Command::new(env!("CARGO_BIN_EXE_jload"))
        .args(["run", plan.to_str().unwrap(), "--out", out.to_str().unwrap()])
        .stdout(writer.try_clone().unwrap())
        .stderr(writer)
        .status()
        .expect("jload runs");
    assert_eq!(status.code(), Some(0), "the sweep ends normally: {status:?}");
    let summary = json(&out.join("summary.json"));
    let statuses: Vec<&str> =
        summary["cells"].as_array().unwrap().iter().map(|c| c["status"].as_str().unwrap()).collect();
    assert_eq!(statuses, ["ok", "ok"]);
    for report in ["report.md", "report.html", "report.json"] {
        assert!(out.join(report).is_file(), "{report} written");
    }
    assert!(jvms_with(&out.display().to_string()).is_empty(), "no JVM left behind");
}

#[test]
fn the_spring_boot_plan_parses_and_dry_runs_its_four_cells_and_three_connection_counts() {
    let plan = repo().join("plans/spring-boot.toml");
    let (output, _) = jload(&["run", plan.to_str().unwrap(), "--dry-run"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.starts_with("plan 'spring-boot': 4 cell(s) × 1 repeat(s)"), "{stdout}");
    assert!(stdout.contains("build: mvn -B -q -f plans/spring-boot package\n"), "{stdout}");
    for cell in ["heap=128m,gc=Parallel", "heap=128m,gc=G1", "heap=1g,gc=Parallel", "heap=1g,gc=G1"] {
        assert!(stdout.contains(&format!("\n{cell}  [JDK ")), "{cell}: {stdout}");
    }
    // The cell's own port reaches Spring Boot on its command line, and nothing else listens beyond loopback.
    assert!(stdout.contains(
        "-jar plans/spring-boot/target/hello-webflux.jar '--server.port={port}' '--server.address=127.0.0.1'"
    ));
    for (phase, connections) in [("c50", 50), ("c255", 255), ("c1000", 1000)] {
        let line = format!("phase {phase}: http://127.0.0.1:{{port}}/api/hello × {connections} connections, 10s\n");
        assert!(stdout.contains(&line), "{line}: {stdout}");
    }
    assert!(stdout.contains(
        "phase capacity: http://127.0.0.1:{port}/api/hello × 100 connections, capacity search under p99<=10ms"
    ));
}

#[test]
fn closed_phases_at_several_connection_counts_are_compared_side_by_side_in_every_output() {
    let _machine = machine::shared();
    let dir = tempdir();
    let out = dir.join("results");
    let axes = "[[axis]]\nname = \"heap\"\nvalues = [\"-Xmx64m\", \"-Xmx96m\"]\n";
    let get =
        "url = \"http://127.0.0.1:{port}/random_get?keyRange=100\"\nok_status = \"200-299,404\"\nduration = \"1s\"\n";
    // Two counts of one URL, listed out of order, and a phase on another URL that is no part of the comparison.
    let phases = format!(
        "[[phase]]\nname = \"c20\"\nconnections = 20\n{get}[[phase]]\nname = \"c4\"\nconnections = 4\n{get}\
         [[phase]]\nname = \"health\"\nconnections = 4\nurl = \"http://127.0.0.1:{{port}}/health\"\nduration = \"1s\"\n"
    );
    let plan = plan(&dir, "conns", axes, &phases, "");
    let (output, _) = jload(&["run", plan.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let sweeps = &json(&out.join("report.json"))["connection_sweeps"];
    assert_eq!(
        sweeps,
        &serde_json::json!([{ "url": "http://127.0.0.1:{port}/random_get?keyRange=100",
            "phases": [{ "name": "c4", "connections": 4 }, { "name": "c20", "connections": 20 }] }])
    );
    let markdown = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(markdown.contains("## Connections: c4 · c20\n"), "{markdown}");
    let header = "|heap \\\\ figure at connections|req/s at 4|P99 (ms) at 4|errors at 4|req/s at 20|P99 (ms) at 20|errors at 20|";
    assert!(markdown.contains(header), "{markdown}");
    // Each cell's row holds the figures of its own phase records.
    let summary = json(&out.join("summary.json"));
    for cell in summary["cells"].as_array().unwrap() {
        let label = cell["axes"]["heap"].as_str().unwrap();
        let row = markdown.lines().find(|line| line.starts_with(&format!("|{label}|"))).expect("a row per cell");
        let fields: Vec<&str> = row.trim_matches('|').split('|').collect();
        for (at, phase) in [(1, "c4"), (4, "c20")] {
            let record = &cell["reps"][0]["phases"][phase];
            let rps = record["rps"].as_f64().unwrap();
            let shown: f64 = fields[at].parse().unwrap_or_else(|_| panic!("{label} {phase}: {row}"));
            assert!((shown - rps).abs() <= 0.5, "{label} {phase}: {shown} shown, {rps} recorded ({row})");
        }
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("connections: c4 · c20"), "the end-of-run tables too: {stdout}");
    assert!(!markdown.contains("health ·") && !markdown.contains("· health"), "{markdown}");
}
