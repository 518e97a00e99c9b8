//! Unit tests of `cell`: how a cell's JVM options, program arguments and command line are assembled and quoted, that
//! the JVM accepts them, and the progress line of a ladder step.

use std::path::Path;

use super::step_line;
use crate::load::record::outcomes::{Limit, Side, Step};
use crate::load::record::summary::{ErrorSummary, LatencySummary};
use crate::plan::Plan;
use crate::plan::jdks::Jdk;
use crate::plan::matrix::cells;
use crate::plan::preflight::{Preflight, check};
use crate::plan::{PlanBase, jdks, parse_plan};
use crate::run::cell::command::{Placement, command_line, join_options, jvm_options};

fn kv_plan(command: &str, exit_on_oom: bool) -> Plan {
    let text = format!(
        "name = \"c\"\n[target]\ncommand = \"{command}\"\nready = \"http://127.0.0.1:{{port}}/\"\n\
         jvm = [\"-Dport={{port}}\", \"-Ddata={{dir}}/data\"]\nexit_on_oom = {exit_on_oom}\n\
         [[axis]]\nname = \"gc\"\nvalues = [\"-XX:+UseSerialGC\"]\n\
         [[phase]]\nname = \"get\"\nurl = \"http://127.0.0.1:{{port}}/\"\nduration = \"1s\"\n"
    );
    parse_plan("c.toml", &text, &PlanBase { plan_dir: "/tmp".into(), cwd: "/tmp".into() }).unwrap()
}

fn jdk17() -> Jdk {
    jdks::choose(Some("17"), &jdks::discover()).unwrap()
}

#[test]
fn options_are_plan_then_axis_then_telemetry_with_placeholders_filled() {
    let plan = kv_plan("java {jvm} -jar x.jar", true);
    let cell = &cells(&plan)[0];
    let dir = Path::new("/r/cells").join(&cell.dir).join("rep-1");
    let options = jvm_options(&plan, cell, &jdk17(), at("8080", &dir));
    assert_eq!(
        options,
        [
            "-Dport=8080".to_string(),
            "-Ddata=/r/cells/gc=-XX_+UseSerialGC/rep-1/data".to_string(),
            "-XX:+UseSerialGC".to_string(),
            "-XX:+UsePerfData".to_string(),
            "-Xlog:gc*,safepoint:file=/r/cells/gc=-XX_+UseSerialGC/rep-1/gc.log:time,uptime,uptimenanos,level,tags"
                .to_string(),
            "-XX:ErrorFile=/r/cells/gc=-XX_+UseSerialGC/rep-1/hs_err_pid%p.log".to_string(),
            "-XX:+ExitOnOutOfMemoryError".to_string(),
        ]
    );
    let without_exit = jvm_options(&kv_plan("java {jvm} -jar x.jar", false), cell, &jdk17(), at("1", &dir));
    assert!(!without_exit.iter().any(|option| option.contains("ExitOnOutOfMemory")));
}

#[test]
fn command_line_expands_jvm_as_words_or_inside_a_word_and_replaces_a_leading_java() {
    let jdk = jdk17();
    let plan = kv_plan("java {jvm} -jar x.jar --port={port}", true);
    let cell = &cells(&plan)[0];
    let words = command_line(&plan, cell, &jdk, at("9", Path::new("/d")));
    assert_eq!(words[0], jdk.java().display().to_string());
    assert_eq!(words[1..8], jvm_options(&plan, cell, &jdk, at("9", Path::new("/d")))[..]);
    assert_eq!(words[8..], ["-jar", "x.jar", "--port=9"]);
    let inside = kv_plan("sh -c 'exec java {jvm} Main'", true);
    let words = command_line(&inside, &cells(&inside)[0], &jdk, at("9", Path::new("/d")));
    assert_eq!(words.len(), 3);
    assert!(words[2].starts_with("exec java -Dport=9 ") && words[2].ends_with(" Main"), "{}", words[2]);
}

/// A plan running `command` with a journal axis and a threads axis that give program arguments.
fn args_plan(command: &str) -> Plan {
    let text = format!(
        "name = \"a\"\n[target]\ncommand = \"{command}\"\nready = \"http://127.0.0.1:{{port}}/\"\n\
         [[axis]]\nname = \"journal\"\nvalues = [{{ label = \"off\", args = [\"--no-request-journal\"], \
         jvm = [\"-Dj=off\"] }}]\n\
         [[axis]]\nname = \"threads\"\nvalues = [{{ label = \"8\", args = [\"--container-threads\", \"8\", \
         \"--root-dir={{dir}}\"] }}]\n\
         [[phase]]\nname = \"get\"\nurl = \"http://127.0.0.1:{{port}}/\"\nduration = \"1s\"\n"
    );
    parse_plan("a.toml", &text, &PlanBase { plan_dir: "/tmp".into(), cwd: "/tmp".into() }).unwrap()
}

#[test]
fn program_arguments_go_where_args_stands_or_after_the_last_word_with_placeholders_filled() {
    let jdk = jdk17();
    let placed = args_plan("java {jvm} -jar w.jar {args} --port {port}");
    let cell = &cells(&placed)[0];
    let words = command_line(&placed, cell, &jdk, at("9", Path::new("/d")));
    let options = jvm_options(&placed, cell, &jdk, at("9", Path::new("/d")));
    assert_eq!(words[1..=options.len()], options[..], "the JVM options stay where {{jvm}} is");
    assert_eq!(options[0], "-Dj=off");
    let tail = &words[options.len() + 1..];
    assert_eq!(
        tail,
        ["-jar", "w.jar", "--no-request-journal", "--container-threads", "8", "--root-dir=/d", "--port", "9"]
    );
    let appended = args_plan("java {jvm} -jar w.jar --port {port}");
    let words = command_line(&appended, &cells(&appended)[0], &jdk, at("9", Path::new("/d")));
    let tail = &words[words.len() - 6..];
    assert_eq!(tail, ["--port", "9", "--no-request-journal", "--container-threads", "8", "--root-dir=/d"]);
}

#[test]
fn the_complete_option_set_of_a_cell_passes_the_jvm_and_a_folder_with_a_colon_does_not() {
    let plan = kv_plan("java {jvm} -jar x.jar", true);
    let cell = &cells(&plan)[0];
    let root = tempfile::tempdir().unwrap();
    for name in [cell.dir.as_str(), "gc=-XX:+UseSerialGC"] {
        std::fs::create_dir_all(root.path().join(name)).unwrap();
    }
    let safe = jvm_options(&plan, cell, &jdk17(), at("1", &root.path().join(&cell.dir)));
    assert!(matches!(check(&jdk17().java(), &safe), Preflight::Valid(_)));
    let colon = jvm_options(&plan, cell, &jdk17(), at("1", &root.path().join("gc=-XX:+UseSerialGC")));
    let Preflight::Invalid(message) = check(&jdk17().java(), &colon) else { panic!("a ':' in -Xlog's file") };
    assert!(message.contains("Invalid -Xlog option"), "the JVM's own message: {message}");
}

/// A local start on `port` with folder `dir`.
fn at<'a>(port: &'a str, dir: &'a Path) -> Placement<'a> {
    Placement { host: "127.0.0.1", port, dir }
}

#[test]
fn a_ladder_step_is_one_progress_line_with_its_verdict_and_limit() {
    let mut step = Step {
        requested_rps: 4000.0,
        achieved_rps: 3998.4,
        duration_s: 5.0,
        requests: 19992,
        latency_ms: LatencySummary { p99: 4.126, ..LatencySummary::default() },
        errors: ErrorSummary::default(),
        error_pct: Some(0.0),
        never_sent: 0,
        unfinished: 0,
        limited_by: None,
        meets_slo: Some(true),
        windows: 1,
        rare: None,
    };
    assert_eq!(step_line(&step), "4000 req/s: 3998 achieved, p99 4.13 ms, SLO met");
    step.meets_slo = None;
    step.limited_by = Some(Limit { side: Side::Target, reason: "3100 req/s achieved of 4000 requested".into() });
    assert_eq!(
        step_line(&step),
        "4000 req/s: 3998 achieved, p99 4.13 ms; limited by the target: 3100 req/s achieved of 4000 requested"
    );
}

#[test]
fn options_are_quoted_only_where_a_shell_or_hotspot_would_split_them() {
    let options: Vec<String> = [
        "-Xmx64m",
        "-Xlog:gc*,safepoint:file=/r/cells/gc=G1/rep-1/gc.log:time,uptime,level,tags",
        "-Dgreeting=hello world",
        "-Dq=it's",
    ]
    .map(String::from)
    .to_vec();
    assert_eq!(
        join_options(&options),
        "-Xmx64m -Xlog:gc*,safepoint:file=/r/cells/gc=G1/rep-1/gc.log:time,uptime,level,tags \
         '-Dgreeting=hello world' '-Dq=it'\\''s'"
    );
    assert_eq!(shell_words::split(&join_options(&options)).unwrap(), options, "a shell's eval gets them back");
}
