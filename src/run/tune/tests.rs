use super::*;
use crate::load::record::outcomes::{Capacity, Side};
use crate::load::record::recorder::Recorder;
use crate::load::record::result::tests::result_of;
use crate::plan::Plan;
use crate::plan::jdks::Jdk;
use crate::plan::matrix::cells;
use crate::plan::{PlanBase, parse_plan};
use crate::results::{BoxFigures, PhaseRecord};
use crate::results::{RepFiles, RepMeta, Status};
use crate::tune::search::Outcome;

const MIB: u64 = 1 << 20;

fn plan_with(phase: &str, tail: &str) -> Plan {
    let text = format!(
        "name = \"t\"\n[target]\ncommand = \"java {{jvm}} -jar x.jar\"\nready = \"http://127.0.0.1:{{port}}/\"\n\
         [[axis]]\nname = \"gc\"\nvalues = [\"-XX:+UseSerialGC\"]\n\
         [[phase]]\nname = \"get\"\nurl = \"http://127.0.0.1:{{port}}/\"\n{phase}\n{tail}\n"
    );
    parse_plan("t.toml", &text, &PlanBase { plan_dir: "/tmp".into(), cwd: "/tmp".into() }).unwrap()
}

const SPACE: &str = "[tune.space]\nheap = { from = \"64m\", to = \"1g\" }\n\"-Dx\" = { from = 0.0, to = 1.0 }\n";

/// A trial's folder holding an ended run (`status`) whose phase 'get' recorded `record`, and `gcstat` if given.
fn ended(
    results: &ResultsDir,
    cell: &Cell,
    status: Status,
    record: Option<PhaseRecord>,
    gcstat: Option<&str>,
) -> RepMeta {
    let dir = results.rep_dir(&cell.dir, 1);
    std::fs::create_dir_all(&dir).unwrap();
    let jdk = Jdk { home: "/jdk".into(), version: "17".into(), implementor: String::new(), found_in: String::new() };
    let mut meta = RepMeta::begun(cell.id.clone(), cell.axes.clone(), 1, jdk, 100);
    meta.status = status;
    meta.cause = (status != Status::Ok).then(|| "killed by the memory limit (64 MiB)".to_string());
    meta.finished_unix_s = Some(104);
    if let Some(record) = record {
        write_json(&RepFiles::of(&dir).phase_record("get"), &record).unwrap();
    }
    if let Some(text) = gcstat {
        std::fs::write(RepFiles::of(&dir).gcstat(), text).unwrap();
    }
    meta
}

fn record(bench: crate::load::record::result::BenchResult, memory_peak: Option<u64>) -> PhaseRecord {
    let cell_box = memory_peak.map(|peak| BoxFigures { memory_peak: Some(peak), ..BoxFigures::default() });
    PhaseRecord { cell_box, ..PhaseRecord::of_bench("get", bench) }
}

#[test]
fn a_trials_cell_is_the_plans_cell_with_its_options_and_args_after_the_cells_and_a_folder_of_its_own() {
    let plan = plan_with(
        "duration = \"1s\"\nrate = 10",
        &format!("[tune]\nobjective = \"p99\"\nbudget = {{ trials = 3 }}\n{SPACE}"),
    );
    let cell = &cells(&plan)[0];
    let options = ["-Xmx384m".to_string(), "-Dx=0.3".to_string()];
    let trial = tune_cell(cell, 3, &options, &["--threads".to_string(), "50".to_string()]);
    assert_eq!(trial.id, "gc=-XX:+UseSerialGC,trial=t03");
    assert_eq!(trial.dir, "gc=-XX_+UseSerialGC__trial=t03");
    assert_eq!(trial.jvm, ["-XX:+UseSerialGC", "-Xmx384m", "-Dx=0.3"]);
    assert_eq!(trial.args, ["--threads", "50"]);
    assert_eq!(trial.axes["trial"], "t03");
}

/// A capacity search's outcome under p99 <= 10 ms: `rps` found, or none held.
fn capacity_within_10ms(rps: Option<f64>) -> Capacity {
    Capacity { rps, slo: "p99<=10ms".into(), limited_by: Side::Target, bounds: [None, None], verdict: String::new() }
}

#[test]
fn each_objective_reads_its_figure_or_says_why_the_trial_is_infeasible() {
    let dir = tempfile::tempdir().unwrap();
    let results = ResultsDir::new(dir.path().to_path_buf());
    let bench = || result_of(&Recorder::new(1, false));

    // Memory: the box's peak, else the RSS peak of gcstat.csv (MiB).
    let memory = plan_with(
        "duration = \"1s\"\nrate = 10",
        &format!("[slo]\np99 = \"10s\"\n[tune]\nobjective = \"memory\"\nbudget = {{ trials = 3 }}\n{SPACE}"),
    );
    let cell = tune_cell(&cells(&memory)[0], 2, &[], &[]);
    let meta = ended(&results, &cell, Status::Ok, Some(record(bench(), Some(300 * MIB))), None);
    assert_eq!(figure_of(Objective::Memory, &memory, &results, &cell, &meta), Ok((300 * MIB) as f64));
    let cell = tune_cell(&cells(&memory)[0], 3, &[], &[]);
    let gcstat = "unix_ms,uptime_s,S0,E,O,eden_used_mb,old_used_mb,old_capacity_mb,rss_mb\n\
                  1000,1.0,0,10,20,1,2,8,120.5\n2000,2.0,0,10,20,1,2,8,180.25\n";
    let meta = ended(&results, &cell, Status::Ok, Some(record(bench(), None)), Some(gcstat));
    assert_eq!(figure_of(Objective::Memory, &memory, &results, &cell, &meta), Ok(180.25 * MIB as f64));
    let cell = tune_cell(&cells(&memory)[0], 4, &[], &[]);
    let meta = ended(&results, &cell, Status::Crashed, None, None);
    assert_eq!(
        figure_of(Objective::Memory, &memory, &results, &cell, &meta),
        Err("killed by the memory limit (64 MiB)".to_string())
    );

    // p99: the last measured phase's, unless it missed the SLO.
    let p99 = plan_with(
        "duration = \"1s\"\nrate = 10",
        &format!("[slo]\nerrors = \"0\"\n[tune]\nobjective = \"p99\"\nbudget = {{ trials = 3 }}\n{SPACE}"),
    );
    let cell = tune_cell(&cells(&p99)[0], 5, &[], &[]);
    let mut failing = bench();
    failing.errors.total = 3;
    let meta = ended(&results, &cell, Status::Ok, Some(record(failing, None)), None);
    let why = figure_of(Objective::P99, &p99, &results, &cell, &meta).unwrap_err();
    assert!(why.starts_with("phase 'get': errors<=0 missed"), "{why}");
    let cell = tune_cell(&cells(&p99)[0], 6, &[], &[]);
    let passing = bench();
    let meta = ended(&results, &cell, Status::Ok, Some(record(passing.clone(), None)), None);
    assert_eq!(figure_of(Objective::P99, &p99, &results, &cell, &meta), Ok(passing.latency_ms.p99));

    // Capacity: the capacity phase's rate, or no rate met the SLO.
    let capacity = plan_with(
        "capacity = { start_rate = 20, max_rate = 40 }\nstep = \"1s\"",
        &format!("[slo]\np99 = \"10ms\"\n[tune]\nobjective = \"capacity\"\nbudget = {{ trials = 3 }}\n{SPACE}"),
    );
    for (number, rps, expected) in
        [(7, Some(1200.0), Ok(1200.0)), (8, None, Err("phase 'get': no rate met p99<=10ms".to_string()))]
    {
        let cell = tune_cell(&cells(&capacity)[0], number, &[], &[]);
        let mut searched = bench();
        searched.capacity = Some(capacity_within_10ms(rps));
        let meta = ended(&results, &cell, Status::Ok, Some(record(searched, None)), None);
        assert_eq!(figure_of(Objective::Capacity, &capacity, &results, &cell, &meta), expected);
    }
}

#[test]
fn a_trial_that_missed_the_slo_teaches_the_search_its_measured_figure_and_one_that_crashed_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let results = ResultsDir::new(dir.path().to_path_buf());
    let memory = plan_with(
        "duration = \"1s\"\nrate = 10",
        &format!("[slo]\np99 = \"10ms\"\n[tune]\nobjective = \"memory\"\nbudget = {{ trials = 3 }}\n{SPACE}"),
    );
    let outcome = |number: u32, status: Status, p99: f64, peak: Option<u64>| {
        let cell = tune_cell(&cells(&memory)[0], number, &[], &[]);
        let mut bench = result_of(&Recorder::new(1, false));
        bench.latency_ms.p99 = p99;
        let meta = ended(&results, &cell, status, Some(record(bench, peak)), None);
        let figure = figure_of(Objective::Memory, &memory, &results, &cell, &meta);
        (figure.clone(), search_outcome(Objective::Memory, &memory, &results, &cell, &meta, &figure))
    };
    // Held the SLO: feasible, its memory negated (less is better).
    assert_eq!(
        outcome(2, Status::Ok, 4.0, Some(200 * MIB)),
        (Ok((200 * MIB) as f64), Outcome::Figure(-((200 * MIB) as f64)))
    );
    // Missed it at the fixed rate: infeasible, yet the memory it used was measured and the model learns it.
    let (figure, missed) = outcome(3, Status::Ok, 20.5, Some(150 * MIB));
    assert_eq!(figure, Err("phase 'get': p99<=10ms missed (20.5 ms)".to_string()));
    assert_eq!(missed, Outcome::Missed(-((150 * MIB) as f64)));
    assert!(!missed.is_feasible());
    // Crashed: nothing measured to learn from.
    assert_eq!(outcome(4, Status::Crashed, 4.0, Some(150 * MIB)).1, Outcome::Infeasible);

    // p99: a miss teaches its p99; a capacity tune's search that held no rate has no figure at all.
    let p99 = plan_with(
        "duration = \"1s\"\nrate = 10",
        &format!("[slo]\np99 = \"10ms\"\n[tune]\nobjective = \"p99\"\nbudget = {{ trials = 3 }}\n{SPACE}"),
    );
    let cell = tune_cell(&cells(&p99)[0], 5, &[], &[]);
    let mut slow = result_of(&Recorder::new(1, false));
    slow.latency_ms.p99 = 30.0;
    let meta = ended(&results, &cell, Status::Ok, Some(record(slow, None)), None);
    let figure = figure_of(Objective::P99, &p99, &results, &cell, &meta);
    assert_eq!(search_outcome(Objective::P99, &p99, &results, &cell, &meta, &figure), Outcome::Missed(-30.0));
    let capacity = plan_with(
        "capacity = { start_rate = 20, max_rate = 40 }\nstep = \"1s\"",
        &format!("[slo]\np99 = \"10ms\"\n[tune]\nobjective = \"capacity\"\nbudget = {{ trials = 3 }}\n{SPACE}"),
    );
    let cell = tune_cell(&cells(&capacity)[0], 6, &[], &[]);
    let mut none_held = result_of(&Recorder::new(1, false));
    none_held.capacity = Some(capacity_within_10ms(None));
    let meta = ended(&results, &cell, Status::Ok, Some(record(none_held, None)), None);
    let figure = figure_of(Objective::Capacity, &capacity, &results, &cell, &meta);
    assert_eq!(search_outcome(Objective::Capacity, &capacity, &results, &cell, &meta, &figure), Outcome::Infeasible);
}

#[test]
fn a_memory_trial_with_a_capacity_phase_is_judged_by_its_capacity_against_at_rate() {
    let dir = tempfile::tempdir().unwrap();
    let results = ResultsDir::new(dir.path().to_path_buf());
    let plan = plan_with(
        "capacity = { start_rate = 250, max_rate = 2000 }\nstep = \"1s\"",
        &format!(
            "[slo]\np99 = \"10ms\"\n[tune]\nobjective = \"memory\"\nat_rate = 1000\nbudget = {{ trials = 3 }}\n{SPACE}"
        ),
    );
    assert_eq!(plan.phases[0].load.rate, Some(250.0), "the capacity phase runs as written");
    let searched = |rps: Option<f64>| {
        let mut bench = result_of(&Recorder::new(1, false));
        // The whole phase's p99 includes the steps above the capacity: it misses the SLO, and must not count.
        bench.latency_ms.p99 = 900.0;
        bench.capacity = Some(capacity_within_10ms(rps));
        record(bench, Some(200 * MIB))
    };
    let cell = tune_cell(&cells(&plan)[0], 2, &[], &[]);
    let meta = ended(&results, &cell, Status::Ok, Some(searched(Some(1200.0))), None);
    assert_eq!(figure_of(Objective::Memory, &plan, &results, &cell, &meta), Ok((200 * MIB) as f64));
    assert_eq!(capacity_and_memory(&plan, &results, &cell, &meta), (Some(1200.0), Some((200 * MIB) as f64)));

    let cell = tune_cell(&cells(&plan)[0], 3, &[], &[]);
    let meta = ended(&results, &cell, Status::Ok, Some(searched(Some(800.0))), None);
    assert_eq!(
        figure_of(Objective::Memory, &plan, &results, &cell, &meta),
        Err("capacity 800 req/s is below at_rate 1,000 req/s".to_string())
    );
    assert_eq!(capacity_and_memory(&plan, &results, &cell, &meta), (Some(800.0), Some((200 * MIB) as f64)));

    let cell = tune_cell(&cells(&plan)[0], 4, &[], &[]);
    let meta = ended(&results, &cell, Status::Ok, Some(searched(None)), None);
    assert_eq!(
        figure_of(Objective::Memory, &plan, &results, &cell, &meta),
        Err("phase 'get': no rate met p99<=10ms".to_string())
    );
    assert_eq!(capacity_and_memory(&plan, &results, &cell, &meta), (None, Some((200 * MIB) as f64)));

    // Without at_rate, any capacity found is feasible.
    let plain = plan_with(
        "capacity = { start_rate = 250, max_rate = 2000 }\nstep = \"1s\"",
        &format!("[slo]\np99 = \"10ms\"\n[tune]\nobjective = \"memory\"\nbudget = {{ trials = 3 }}\n{SPACE}"),
    );
    let cell = tune_cell(&cells(&plain)[0], 5, &[], &[]);
    let meta = ended(&results, &cell, Status::Ok, Some(searched(Some(300.0))), None);
    assert_eq!(figure_of(Objective::Memory, &plain, &results, &cell, &meta), Ok((200 * MIB) as f64));
}

#[test]
fn at_rate_without_a_capacity_phase_is_every_measured_phases_fixed_rate_and_the_dry_run_says_so() {
    let tail = format!(
        "[slo]\np99 = \"10ms\"\n[tune]\nobjective = \"memory\"\nat_rate = 20000\nbudget = {{ trials = 3 }}\n{SPACE}"
    );
    let plan = plan_with(
        "duration = \"1s\"\nconnections = 8\n[[phase]]\nname = \"warm\"\nmeasure = false\n\
         url = \"http://127.0.0.1:{port}/\"\nduration = \"1s\"\nrate = 5",
        &tail,
    );
    let rates: Vec<(bool, Option<f64>)> = plan.phases.iter().map(|phase| (phase.measure, phase.load.rate)).collect();
    assert_eq!(rates, [(true, Some(20000.0)), (false, Some(5.0))], "the closed-model 'get' runs at at_rate");
    let text = dry_run_text(plan.tune.as_ref().unwrap(), 1);
    assert!(
        text.contains(
            "\n  at 20,000 req/s: every measured phase of every trial runs at that fixed rate; a trial is feasible \
             when it holds the SLO\n"
        ),
        "{text}"
    );
    let searched = plan_with("capacity = { start_rate = 250, max_rate = 2000 }\nstep = \"1s\"", &tail);
    let text = dry_run_text(searched.tune.as_ref().unwrap(), 1);
    assert!(
        text.contains("\n  at 20,000 req/s: every trial runs the capacity phase as written and is feasible"),
        "{text}"
    );
}

#[test]
fn the_dry_run_names_the_program_arguments_a_parameter_sets() {
    let space = "[tune.space]\nthreads = { values = [10, 50], args = [\"--container-threads\", \"{}\"] }\n\
                 journal = { values = [true, false], args = [\"--no-request-journal\"] }\n\
                 heap = { from = \"64m\", to = \"1g\" }\n";
    let plan = plan_with(
        "duration = \"1s\"\nrate = 10",
        &format!("[tune]\nobjective = \"p99\"\nbudget = {{ trials = 3 }}\n{space}"),
    );
    let text = dry_run_text(plan.tune.as_ref().unwrap(), 1);
    assert!(text.contains("\n  heap: 64m–1024m\n"), "{text}");
    assert!(text.contains("\n  journal: true | false, program arguments --no-request-journal when true\n"), "{text}");
    assert!(text.contains("\n  threads: 10 < 50, program arguments --container-threads {}\n"), "{text}");
}
