//! `jload run` on a plan with `[tune]` (docs/tune.md), with real JVMs: a Java server whose service time is a known
//! function of `-Dx` and `-Dy` (tests/java/Bowl.java: 2 + 400 × ((x − 0.3)² + (y − 0.7)²) ms) is tuned for p99 at a
//! fixed low rate and the search finds the minimum within a stated tolerance in 12 trials with a fixed seed, across
//! a Ctrl-C and `--resume` that keeps the trials already done, and learns a region where the server crashes; a capacity tune takes its figures from the capacity
//! phase; a collector the JVM refuses is refused by the preflight — infeasible with the JVM's message, never loaded;
//! a time budget starts no trial once spent; the search's finalists are measured again and the answer is their best
//! median; a plan with axes tunes each cell on its own; a memory tune at a rate records each trial's memory and
//! capacity, and the frontier of the two (Bowl with a pool of workers that each hold memory); a dry run shows the
//! tune; bad input exits 2 with one line and starts nothing.

use crate::common;

use std::path::{Path, PathBuf};

use common::jdks::compiled;
use common::machine;
use common::{interrupt_run_after, jload, json, tempdir};
use jload::load::format::format_ms;

/// A plan running Bowl with `jvm` in `[target]`, a short warm-up and a measured 0.5 s at 32 req/s
/// (16 requests, each answered after its service time by a timer, so as many wait at once as the rate brings), and
/// `tail`.
fn plan(dir: &Path, classes: &Path, jvm: &str, tail: &str) -> PathBuf {
    let text = format!(
        "name = \"bowl\"\n[target]\ncommand = \"java {{jvm}} -cp {classes} Bowl {{port}}\"\n\
         ready = \"http://127.0.0.1:{{port}}/\"\njdk = \"17\"\nstartup_timeout = \"30s\"\nstop_timeout = \"5s\"\n\
         jvm = [{jvm}]\n\
         [[phase]]\nname = \"warm\"\nmeasure = false\nurl = \"http://127.0.0.1:{{port}}/\"\nconnections = 16\n\
         rate = 20\nduration = \"300ms\"\n\
         [[phase]]\nname = \"get\"\nurl = \"http://127.0.0.1:{{port}}/\"\nconnections = 16\nrate = 32\nduration = \"500ms\"\n\
         [run]\ncooldown = \"0s\"\n{tail}\n",
        classes = classes.display()
    );
    let path = dir.join("bowl.toml");
    std::fs::write(&path, text).unwrap();
    path
}

const FAST_JVM: &str = "\"-XX:+UseSerialGC\", \"-XX:TieredStopAtLevel=1\"";
const BOWL: &str = "[tune]\nobjective = \"p99\"\nbudget = { trials = 12 }\nseed = 1\nconfirm = 2\n[tune.space]\n\
                    \"-Dx\" = { from = 0.0, to = 1.0 }\n\"-Dy\" = { from = 0.0, to = 1.0 }\n";

fn number(value: &serde_json::Value) -> f64 {
    value.as_str().unwrap().parse().unwrap()
}

/// The suite's longest test, started first by tests/tests.rs (`a_started_first::run_tune::`), so that the others run
/// beside it; it shares the machine: the bowl's 2–400 ms of service time stand far above what a second JVM adds (5 of
/// 5 runs, 2 beside a busy loop).
pub(crate) fn a_bowl_search_finds_the_minimum_within_a_tenth_in_twelve_trials_across_an_interrupt() {
    let _machine = machine::shared();
    let dir = tempdir();
    let classes = compiled(&dir, "Bowl.java");
    // x above 0.9 crashes the server before it listens: a region the search must learn to avoid.
    let plan = plan(&dir, &classes, &format!("{FAST_JVM}, \"-Dcrash.above=0.9\""), BOWL);
    let out = dir.join("results");

    let fourth = out.join("cells/trial=t04/rep-1/meta.json");
    assert_eq!(interrupt_run_after(&plan, &out, &fourth, "the fourth trial"), Some(130));
    let before = json(&out.join("tune.json"))["cells"][0]["trials"].as_array().unwrap().clone();
    assert!(before.len() >= 3, "{before:?}");
    let (output, _) = jload(&["run", "--resume", out.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stderr}");

    let record = json(&out.join("tune.json"));
    assert_eq!(record["objective"], "p99");
    let trials = record["cells"][0]["trials"].as_array().unwrap();
    assert_eq!(trials.len(), 12, "{record}");
    // The trials done before the interrupt are kept as they were, and the search went on from them.
    for (kept, earlier) in trials.iter().zip(&before) {
        assert_eq!(kept, earlier, "trial {} changed on resume", earlier["number"]);
        assert!(stderr.contains(&format!("{} already ran", earlier["cell"].as_str().unwrap())), "{stderr}");
    }
    assert_eq!(trials[0]["source"], "defaults");
    assert_eq!(trials[0]["options"], serde_json::json!([]));
    let sources: Vec<&str> = trials.iter().map(|trial| trial["source"].as_str().unwrap()).collect();
    assert_eq!(sources[1..5], ["design"; 4], "x, y: a start of 4");
    assert!(sources[5..].iter().all(|source| *source == "model"), "{sources:?}");
    // Each trial is its own fresh JVM with its options after the plan's.
    let meta = json(&out.join("cells/trial=t05/rep-1/meta.json"));
    let command: Vec<&str> = meta["command"].as_array().unwrap().iter().map(|word| word.as_str().unwrap()).collect();
    let options: Vec<&str> = trials[4]["options"].as_array().unwrap().iter().map(|o| o.as_str().unwrap()).collect();
    let at = command.iter().position(|word| *word == "-Dcrash.above=0.9").unwrap();
    assert_eq!(command[at + 1..at + 3], options[..], "{command:?}");

    // The best trial is within 0.1 of the minimum in x and y: its service time within 2 + 400 × 0.02 = 10 ms.
    let best = trials
        .iter()
        .filter(|trial| trial["figure"].is_number())
        .min_by(|a, b| a["figure"].as_f64().unwrap().total_cmp(&b["figure"].as_f64().unwrap()))
        .unwrap();
    let (x, y) = (number(&best["config"]["-Dx"]), number(&best["config"]["-Dy"]));
    assert!((x - 0.3).abs() <= 0.1 && (y - 0.7).abs() <= 0.1, "best at x={x} y={y}: {record}");
    assert!(stderr.contains("jload: trial 12/12 (model): "), "{stderr}");
    // Every trial in the crashing region is infeasible with the crash as its reason, and the model, once it has seen
    // one there, proposes at most one more.
    let crashed: Vec<&serde_json::Value> =
        trials[1..].iter().filter(|trial| number(&trial["config"]["-Dx"]) > 0.9).collect();
    assert!(!crashed.is_empty(), "the start tries the region: {record}");
    for trial in &crashed {
        let why = trial["infeasible"].as_str().unwrap_or_else(|| panic!("{trial}"));
        assert!(why.contains("(exit code 3): Java OOM: Java heap space"), "{why}");
    }
    let model_crashed = crashed.iter().filter(|trial| trial["source"] == "model").count();
    assert!(model_crashed <= 1, "{model_crashed} model trials crashed: {record}");

    // Then the finalists — the search's best, the runner-up, any trial within 10 % of the best, the defaults — were
    // each measured once more, in their trial's folder; the answer is the best median of those feasible in both.
    let confirmation = &record["cells"][0]["confirmation"];
    assert_eq!(confirmation["repeats"], 2, "{record}");
    let finalists = confirmation["finalists"].as_array().unwrap();
    let numbers: Vec<u64> = finalists.iter().map(|finalist| finalist["trial"].as_u64().unwrap()).collect();
    assert!(numbers.contains(&best["number"].as_u64().unwrap()) && numbers.contains(&1), "{numbers:?}");
    assert!((2..=4).contains(&numbers.len()), "{numbers:?}");
    let medians: Vec<f64> = finalists.iter().filter_map(|finalist| finalist["median"].as_f64()).collect();
    assert!(medians.windows(2).all(|pair| pair[0] <= pair[1]), "best (lowest p99) first: {medians:?}");
    for finalist in finalists {
        let trial = &trials[finalist["trial"].as_u64().unwrap() as usize - 1];
        assert_eq!(finalist["figures"][0], trial["figure"], "repeat 1 is the trial");
        assert_eq!(finalist["figures"].as_array().unwrap().len(), 2);
        let folder = out.join("cells").join(trial["dir"].as_str().unwrap());
        assert!(folder.join("rep-2/get.json").exists(), "measured again in its own folder: {folder:?}");
        assert!(stderr.contains(&format!("jload: confirming trial {}", finalist["trial"])), "{stderr}");
    }
    let confirmed = &trials[numbers[0] as usize - 1];
    let confirmed_name = match confirmed["source"].as_str().unwrap() {
        "defaults" => "defaults",
        _ => confirmed["described"].as_str().unwrap(),
    };
    let answer = format!("best: {confirmed_name} — p99 {} ms (", format_ms(medians[0]));
    let runs = format!("; 12 trial(s) + {} confirming run(s), ", numbers.len());
    assert!(stdout.contains(&format!("tune:\n  {answer}")) && stdout.contains(&runs), "{answer} {runs}: {stdout}");
    assert!(stdout.contains("\n    over 2 repeats each: "), "the verdict under the answer: {stdout}");
    assert!(stderr.contains("jload: confirmed over 2 repeats each: "), "{stderr}");

    let markdown = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(markdown.contains(&format!("## Tune: p99\n\n- {answer}")), "{markdown}");
    assert!(markdown.contains("\n- Confirmed over 2 repeats each: "), "{markdown}");
    let head = "| trial | configuration | options | figure | 95 % interval | repeats | vs the defaults |";
    assert!(markdown.contains(head), "{markdown}");
    assert!(markdown.contains(&format!("| {} | {confirmed_name} | ", numbers[0])), "{markdown}");
    assert!(markdown.contains("| 1 | defaults | defaults |  | "), "{markdown}");
    assert!(markdown.contains("Share of the figure's variation each parameter explains"), "{markdown}");
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("<h2 id=\"tune-0\">Tune: p99</h2>") && html.contains(&answer), "the section in report.html");
    let report = json(&out.join("report.json"));
    assert_eq!(report["tune"]["cells"][0]["trials"].as_array().unwrap().len(), 12);
    assert_eq!(report["tune"]["cells"][0]["best"][0]["number"].as_u64(), Some(numbers[0]), "the confirmed best first");
    let summary = json(&out.join("summary.json"));
    assert_eq!(summary["axes"], serde_json::json!(["trial"]));
    let cells = summary["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 12);
    for (cell, trial) in cells.iter().zip(trials) {
        let repeats = if numbers.contains(&trial["number"].as_u64().unwrap()) { 2 } else { 1 };
        assert_eq!(cell["reps"].as_array().unwrap().len(), repeats, "{}", cell["id"]);
    }
}

#[test]
fn a_collector_the_jvm_refuses_is_infeasible_by_the_preflight_and_never_loaded() {
    let _machine = machine::shared();
    let dir = tempdir();
    let classes = compiled(&dir, "Bowl.java");
    let tune = "[tune]\nobjective = \"p99\"\nbudget = { trials = 3 }\nseed = 1\nconfirm = 1\n[tune.space]\n\
                gc = [\"Serial\", \"-XX:+UseNoSuchGC\"]\n";
    let plan = plan(&dir, &classes, "\"-XX:TieredStopAtLevel=1\"", tune);
    let out = dir.join("results");
    let (output, _) = jload(&["run", plan.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");

    let record = json(&out.join("tune.json"));
    let trials = record["cells"][0]["trials"].as_array().unwrap();
    let refused = trials.iter().find(|trial| trial["config"]["gc"] == "-XX:+UseNoSuchGC").expect("tried");
    let why = refused["infeasible"].as_str().unwrap();
    assert!(why.starts_with("preflight: ") && why.contains("Unrecognized VM option 'UseNoSuchGC'"), "{why}");
    assert_eq!(refused["figure"], serde_json::Value::Null);
    let folder = out.join("cells").join(refused["dir"].as_str().unwrap()).join("rep-1");
    assert_eq!(json(&folder.join("meta.json"))["failure"], "rejected");
    assert!(!folder.join("warm.json").exists() && !folder.join("get.json").exists(), "never loaded");
    let serial = trials.iter().find(|trial| trial["config"]["gc"] == "Serial").expect("tried");
    assert!(serial["figure"].as_f64().unwrap() > 0.0, "{record}");
    assert!(
        json(&out.join("cells").join(serial["dir"].as_str().unwrap()).join("rep-1/get.json"))["requests"]
            .as_u64()
            .is_some_and(|requests| requests > 0)
    );
    assert!(stderr.contains(&format!("(design): gc=-XX:+UseNoSuchGC → infeasible: {why}")), "{stderr}");
}

#[test]
fn a_capacity_tune_takes_each_trials_figure_from_its_capacity_phase() {
    let _machine = machine::shared();
    let dir = tempdir();
    let classes = compiled(&dir, "Bowl.java");
    // y at its best: the defaults (x = 0.5) serve in 18 ms, x near 0.3 in 2 ms; both hold p99 <= 100 ms at 20 and 40
    // req/s, the search's two steps, so both have a capacity of 40 and the defaults, first, stay the best. (A step's
    // p99 is its slowest of 20–40 requests: a fresh JVM's first requests through the JDK's HTTP server, on a loaded
    // 2-core machine, took up to 50 ms and more besides the 18 ms.)
    let tune = "[slo]\np99 = \"100ms\"\n[tune]\nobjective = \"capacity\"\nbudget = { trials = 2 }\nconfirm = 1\n[tune.space]\n\
                \"-Dx\" = { from = 0.29, to = 0.31 }\n";
    let plan = plan(&dir, &classes, &format!("{FAST_JVM}, \"-Dy=0.7\""), tune);
    let text = std::fs::read_to_string(&plan).unwrap().replace(
        "rate = 32\nduration = \"500ms\"\n",
        "capacity = { start_rate = 20, max_rate = 40 }\nstep = \"1s\"\nstep_warmup = \"0s\"\nsteady_max = \"0s\"\n\
         min_requests = 10\n",
    );
    std::fs::write(&plan, text).unwrap();
    let out = dir.join("results");
    let (output, _) = jload(&["run", plan.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");

    let record = json(&out.join("tune.json"));
    assert_eq!(record["objective"], "capacity");
    let trials = record["cells"][0]["trials"].as_array().unwrap();
    let figures: Vec<Option<f64>> = trials.iter().map(|trial| trial["figure"].as_f64()).collect();
    assert_eq!(figures, [Some(40.0), Some(40.0)], "{record}");
    for trial in trials {
        let get = json(&out.join("cells").join(trial["dir"].as_str().unwrap()).join("rep-1/get.json"));
        assert_eq!(get["capacity"]["rps"].as_f64(), Some(40.0), "{get}");
    }
    assert!(stderr.contains("trial 2/2 (design): -Dx=0.") && stderr.contains(" → capacity 40 req/s (best 40 req/s)"));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let answer =
        "best: defaults — capacity 40 req/s, the defaults (the JVM's ergonomics): no trial beat them; 2 trial(s)";
    assert!(stdout.contains(answer), "'{answer}' not in {stdout}");
}

#[test]
fn a_plan_with_axes_tunes_each_of_its_cells_on_its_own() {
    let _machine = machine::shared();
    let dir = tempdir();
    let classes = compiled(&dir, "Bowl.java");
    // y is an axis: near the bowl's minimum (0.7, service ~2 ms) and far from it (0.2, ~102 ms); x is tuned in each.
    let tail = "[[axis]]\nname = \"y\"\nvalues = [ { label = \"near\", jvm = [\"-Dy=0.7\"] }, \
                { label = \"far\", jvm = [\"-Dy=0.2\"] } ]\n\
                [tune]\nobjective = \"p99\"\nbudget = { trials = 2 }\nconfirm = 1\n[tune.space]\n\
                \"-Dx\" = { from = 0.29, to = 0.31 }\n";
    let plan = plan(&dir, &classes, FAST_JVM, tail);
    let out = dir.join("results");
    let (output, _) = jload(&["run", plan.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");

    let record = json(&out.join("tune.json"));
    let cells = record["cells"].as_array().unwrap();
    let names: Vec<&str> = cells.iter().map(|cell| cell["cell"].as_str().unwrap()).collect();
    assert_eq!(names, ["y=near", "y=far"]);
    for cell in cells {
        let label = cell["axes"]["y"].as_str().unwrap();
        let dirs: Vec<&str> = cell["trials"].as_array().unwrap().iter().map(|t| t["dir"].as_str().unwrap()).collect();
        assert_eq!(dirs, [format!("y={label}__trial=t01"), format!("y={label}__trial=t02")], "a search per cell");
        let meta = json(&out.join("cells").join(dirs[1]).join("rep-1/meta.json"));
        let command: Vec<&str> = meta["command"].as_array().unwrap().iter().map(|w| w.as_str().unwrap()).collect();
        let y = if label == "near" { "-Dy=0.7" } else { "-Dy=0.2" };
        let at = command.iter().position(|word| *word == y).expect("the axis' option");
        assert!(command[at + 1].starts_with("-Dx=0.3") || command[at + 1].starts_with("-Dx=0.29"), "{command:?}");
    }
    let p99 = |cell: &serde_json::Value| cell["trials"][1]["figure"].as_f64().unwrap();
    assert!(p99(&cells[1]) > p99(&cells[0]) + 50.0, "far {} against near {}", p99(&cells[1]), p99(&cells[0]));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("tune:\n  y=near: best: ") && stdout.contains("\n  y=far: best: "), "{stdout}");
    assert!(stderr.contains("jload: y=far: trial 2/2 (design): -Dx=0."), "{stderr}");
    let summary = json(&out.join("summary.json"));
    assert_eq!(summary["axes"], serde_json::json!(["y", "trial"]));
    assert_eq!(summary["cells"].as_array().unwrap().len(), 4);
    let markdown = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(markdown.contains("## Tune: p99, y=near\n") && markdown.contains("## Tune: p99, y=far\n"), "{markdown}");
}

/// One of the longest tests, started first by tests/tests.rs (`a_started_first::run_tune::`).
pub(crate) fn a_memory_tune_at_a_rate_records_each_trials_memory_and_capacity_and_their_frontier() {
    let _machine = machine::shared();
    let started = std::time::Instant::now();
    let dir = tempdir();
    let classes = compiled(&dir, "Bowl.java");
    // Service 15 ms on a pool of N workers holding 24 MiB each: capacity N × 67 req/s. The search starts at 80 req/s,
    // doubles to at most 160 or halves, and stops at the first change (precision 100 %): each step it passes runs at
    // about 60 % of the capacity and each it fails at 120 %, which it cannot sustain (the loose p99 leaves a loaded
    // machine's hiccups room). So 1 worker holds 40 req/s, 2 hold 80, 4 and the defaults (8) hold 160; at_rate 60
    // leaves 1 worker below it, and the least memory at 60 req/s is 2 workers.
    let tune = "[slo]\np99 = \"1s\"\n[tune]\nobjective = \"memory\"\nat_rate = 60\nmethod = \"random\"\n\
                budget = { trials = 4 }\nconfirm = 1\n[tune.space]\n\"-Dworkers\" = { values = [1, 2, 4] }\n";
    let jvm = format!("{FAST_JVM}, \"-Dx=0.48\", \"-Dy=0.7\", \"-Dworker.mb=24\"");
    let plan = plan(&dir, &classes, &jvm, tune);
    let text = std::fs::read_to_string(&plan).unwrap().replace(
        "rate = 32\nduration = \"500ms\"\n",
        "capacity = { start_rate = 80, max_rate = 160, precision = \"100%\" }\nstep = \"1.5s\"\nstep_warmup = \"0s\"\n\
         steady_max = \"0s\"\nmin_requests = 10\n",
    );
    std::fs::write(&plan, text).unwrap();
    let out = dir.join("results");
    let (output, _) = jload(&["run", plan.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stderr}");

    let record = json(&out.join("tune.json"));
    assert_eq!((record["objective"].as_str(), record["at_rate"].as_f64()), (Some("memory"), Some(60.0)));
    let trials = record["cells"][0]["trials"].as_array().unwrap();
    assert_eq!(trials.len(), 4, "{record}");
    let by_workers = |workers: &str| {
        let found = trials.iter().find(|trial| trial["config"]["-Dworkers"] == workers);
        found.unwrap_or_else(|| panic!("no trial of {workers} worker(s): {record}"))
    };
    let (one, two, four, defaults) = (by_workers("1"), by_workers("2"), by_workers("4"), &trials[0]);
    assert_eq!(defaults["source"], "defaults");
    let capacity = |trial: &serde_json::Value| trial["capacity"].as_f64();
    let memory = |trial: &serde_json::Value| trial["memory"].as_f64().unwrap_or_else(|| panic!("{trial}"));
    let capacities = [one, two, four, defaults].map(capacity);
    assert_eq!(capacities, [Some(40.0), Some(80.0), Some(160.0), Some(160.0)], "{record}");
    // Each worker holds 24 MiB more; the defaults' eight more than four.
    assert!(memory(one) < memory(two) && memory(two) < memory(four) && memory(four) < memory(defaults), "{record}");
    assert_eq!(one["infeasible"], "capacity 40 req/s is below at_rate 60 req/s");
    assert_eq!(one["figure"], serde_json::Value::Null);
    for feasible in [two, four, defaults] {
        assert_eq!(feasible["figure"].as_f64(), Some(memory(feasible)), "{feasible}");
    }
    assert!(stderr.contains("-Dworkers=1 → infeasible: capacity 40 req/s is below at_rate 60 req/s"), "{stderr}");

    // The frontier: 1, 2 and 4 workers; the defaults hold what 4 workers hold, with more memory.
    let on: Vec<&serde_json::Value> = trials.iter().filter(|trial| trial["on_frontier"] == true).collect();
    let numbers = |list: &[&serde_json::Value]| {
        let mut numbers: Vec<u64> = list.iter().map(|trial| trial["number"].as_u64().unwrap()).collect();
        numbers.sort();
        numbers
    };
    assert_eq!(numbers(&on), numbers(&[one, two, four]), "{record}");
    for point in &on {
        let beaten = trials.iter().any(|other| {
            memory(other) <= memory(point)
                && capacity(other) >= capacity(point)
                && (memory(other) < memory(point) || capacity(other) > capacity(point))
        });
        assert!(!beaten, "{point} is dominated: {record}");
    }
    assert_eq!(defaults["on_frontier"], serde_json::Value::Null, "the defaults are off it");

    let mib = |trial: &serde_json::Value| (memory(trial) / (1u64 << 20) as f64).round();
    let progress = format!("-Dworkers=2 → memory {} MiB, capacity 80 req/s (best ", mib(two));
    assert!(stderr.contains(&progress), "'{progress}' not in {stderr}");
    let answer = format!("best: -Dworkers=2 — memory {} MiB, ", mib(two));
    assert!(stdout.contains(&format!("tune:\n  {answer}")), "{stdout}");
    let frontier = format!(
        "    frontier (memory → capacity): {} MiB → 40 req/s (t{:02}), {} MiB → 80 req/s (t{:02}), {} MiB → 160 req/s \
         (t{:02})\n",
        mib(one),
        one["number"].as_u64().unwrap(),
        mib(two),
        two["number"].as_u64().unwrap(),
        mib(four),
        four["number"].as_u64().unwrap()
    );
    assert!(stdout.contains(&frontier), "'{frontier}' not in {stdout}");
    let markdown = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(markdown.contains("| memory | capacity | trial | configuration | at_rate 60 req/s |"), "{markdown}");
    let row = format!("| {} MiB | 40 req/s | {} | -Dworkers=1 | below |", mib(one), one["number"]);
    assert!(markdown.contains(&row), "'{row}' not in {markdown}");
    let row = format!("| {} MiB | 80 req/s | {} | -Dworkers=2 | holds |", mib(two), two["number"]);
    assert!(markdown.contains(&row), "'{row}' not in {markdown}");
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("data-chart=\"frontier\"") && html.contains("Memory → capacity"), "the frontier in HTML");
    let report = json(&out.join("report.json"));
    let points = report["tune"]["cells"][0]["capacities"].as_array().unwrap();
    assert_eq!(points.len(), 4, "every trial has both figures: {report}");
    eprintln!("memory tune: {:.1} s", started.elapsed().as_secs_f64());
}

#[test]
fn a_time_budget_starts_no_trial_once_it_is_spent() {
    let _machine = machine::shared();
    let dir = tempdir();
    let classes = compiled(&dir, "Bowl.java");
    // A trial lasts more than a second (a JVM start and 1.5 s of load): after the defaults, the second is spent.
    let tune = BOWL.replace("trials = 12", "trials = 5, time = \"1s\"").replace("confirm = 2", "confirm = 1");
    let plan = plan(&dir, &classes, FAST_JVM, &tune);
    let out = dir.join("results");
    let (output, _) = jload(&["run", plan.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let record = json(&out.join("tune.json"));
    assert_eq!(record["budget_seconds"].as_f64(), Some(1.0));
    let trials = record["cells"][0]["trials"].as_array().unwrap();
    assert_eq!(trials.len(), 1, "{record}");
    assert!(trials[0]["seconds"].as_f64().unwrap() >= 1.5, "{record}");
    assert!(
        stderr.contains("jload: trial 1/5 (defaults): defaults → p99 ") && stderr.contains("; 0 s left)"),
        "{stderr}"
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("best: defaults — p99 ") && stdout.contains("no trial beat them; 1 trial(s), "),
        "{stdout}"
    );
}

#[test]
fn a_dry_run_shows_the_tune_and_bad_input_exits_2_with_one_line_and_starts_nothing() {
    let dir = tempdir();
    let classes = dir.join("classes");
    let plan_path = plan(&dir, &classes, FAST_JVM, &BOWL.replace("trials = 12", "trials = 12, time = \"5m\""));
    let (output, _) = jload(&["run", plan_path.to_str().unwrap(), "--dry-run"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let defaults = "bin/java -XX:+UseSerialGC '-XX:TieredStopAtLevel=1' -XX:+UsePerfData ";
    assert!(stdout.contains(defaults), "the defaults' command, with no tuned option: {stdout}");
    assert!(stdout.contains("folders: <results>/cells/trial=tNN/rep-1, one per trial"), "{stdout}");
    assert!(stdout.contains("\ntune: p99 (the lowest p99 of the last measured phase, within the SLO), per cell"));
    assert!(stdout.contains("then 4 space-filling trial(s), then the model's; seed 1\n"), "{stdout}");
    assert!(stdout.contains("  then the finalists (the best, the runner-up, trials within 10 % of the best — 3 at most — and the defaults) measured to 2 repeats each"), "{stdout}");
    assert!(stdout.contains("  budget per cell: 12 trial(s), 5 min (no trial starts after it) × 1 cell(s)\n"));
    assert!(stdout.contains("  -Dx: 0–1\n  -Dy: 0–1\n"), "{stdout}");

    // A memory tune at a rate without a capacity phase: every measured phase runs at it, the warm-up as written.
    let memory = BOWL.replace("\"p99\"", "\"memory\"\nat_rate = 20000");
    let plan_path = plan(&dir, &classes, FAST_JVM, &format!("[slo]\np99 = \"50ms\"\n{memory}"));
    let (output, _) = jload(&["run", plan_path.to_str().unwrap(), "--dry-run"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.contains("phase warm (not measured): http://127.0.0.1:{port}/ × 16 connections, 300ms at 20 req/s"));
    assert!(stdout.contains("phase get: http://127.0.0.1:{port}/ × 16 connections, 500ms at 20000 req/s"), "{stdout}");
    assert!(stdout.contains(
        "\n  at 20,000 req/s: every measured phase of every trial runs at that fixed rate; a trial is feasible when it \
         holds the SLO\n"
    ));

    let space = |lines: &str| format!("[tune]\nobjective = \"p99\"\nbudget = {{ trials = 5 }}\n[tune.space]\n{lines}");
    let heap = "heap = { from = \"64m\", to = \"1g\" }\n";
    let cases = [
        ("", space("heap = { from = \"1g\", to = \"64m\" }\n"), "parameter 'heap': `from` is above `to`; swap them"),
        ("", space("\"-Dx\" = { from = 0.5, to = 0.5 }\n"), "parameter '-Dx': the range is empty"),
        (
            "",
            space("\"-Dx\" = { from = 0.1, to = 0.5, when = { gc = [\"G1\"] } }\n"),
            "its condition names 'gc', which is no parameter of the space",
        ),
        ("", space(heap).replace("trials = 5", "trials = 0"), "tune.budget: trials must be at least 1"),
        ("", space(heap).replace("\"p99\"", "\"memory\""), "objective \"memory\" needs an [slo]"),
        ("", space(heap).replace("\"p99\"", "\"capacity\""), "objective \"capacity\" needs a phase with `capacity"),
        ("", space(heap).replace("\"p99\"", "\"fast\""), "tune.objective 'fast' is none of"),
        (
            "",
            space(heap).replace("budget", "at_rate = 100\nbudget"),
            "tune.at_rate goes with objective \"memory\" only (the least memory that holds the SLO at that rate)",
        ),
        (
            "",
            format!("[slo]\np99 = \"1s\"\n[box_search]\nmemory = {{ from = \"64m\", to = \"1g\" }}\n{}", space(heap)),
            "tune: a plan searches the smallest box ([box_search]) or tunes ([tune]), not both",
        ),
        ("\"-Xmx512m\"", space(heap), "tune.space.heap: target.jvm fixes it too ('-Xmx512m'); tune it or fix it"),
        (
            "\"-XX:+UseSerialGC\"",
            space("gc = [\"G1\", \"Parallel\"]\n"),
            "tune.space.gc: target.jvm fixes it too ('-XX:+UseSerialGC')",
        ),
    ];
    for (jvm, tail, expected) in cases {
        let plan = plan(&dir, &classes, jvm, &tail);
        let out = dir.join("results");
        let (output, _) = jload(&["run", plan.to_str().unwrap(), "--out", out.to_str().unwrap()]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{expected}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains(expected), "expected '{expected}' in {stderr}");
        assert!(!out.exists(), "nothing is started or written");
    }
    let plan = plan(&dir, &classes, "", &space(heap));
    std::fs::write(&plan, std::fs::read_to_string(&plan).unwrap().replace("java {jvm} -cp", "java -cp")).unwrap();
    let (output, _) = jload(&["run", plan.to_str().unwrap(), "--dry-run"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("tune: the tuned options reach the target only through {jvm}"), "{stderr}");
}
