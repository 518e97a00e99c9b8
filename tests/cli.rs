//! The command line's behaviour common to every subcommand, through the real binary: a closed stdout
//! (`jload … | head -1`) ends jload quietly, a negative number for any numeric flag gets jload's one-line message,
//! and every other command-line mistake one line too (clap's suggestion on it), exit 2.

use crate::common;

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::jdks::{TestJvm, jdk17};
use common::{jload, ok, repo, serve, tempdir};

/// Run jload with a stdout whose reader is already gone, as `jload … | head -1` leaves it once head has exited.
fn jload_into_closed_pipe(args: &[&str]) -> Output {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    Command::new(env!("CARGO_BIN_EXE_jload"))
        .args(args)
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .expect("jload runs")
}

fn assert_ends_quietly(args: &[&str]) {
    let output = jload_into_closed_pipe(args);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), None, "{args:?}: no exit code (never 101): {:?} {stderr}", output.status);
    assert_eq!(output.status.signal(), Some(libc::SIGPIPE), "{args:?}: ended by SIGPIPE, as a Unix filter: {stderr}");
    assert!(!stderr.contains("panicked"), "{args:?}: no panic: {stderr}");
}

fn copy_dir(from: &Path, to: &Path) {
    let status = Command::new("cp").arg("-r").arg(from).arg(to).status().expect("cp runs");
    assert!(status.success());
}

#[test]
fn a_closed_stdout_ends_every_command_quietly() {
    let server = serve(|_| ok("x"));
    let url = server.url("/");
    let dir = tempdir();
    let json = dir.join("bench.json");
    let fixtures = repo().join("tests/fixtures/results");
    let report_dir = dir.join("sweep");
    copy_dir(&fixtures.join("sweep"), &report_dir);
    let jvm = TestJvm::start(&jdk17("java"), &["-Xmx32m"], &[]);
    let pid = jvm.pid_arg();
    let path = |path: &PathBuf| path.to_str().unwrap().to_string();
    let commands: Vec<Vec<String>> = vec![
        vec!["bench".into(), "-q".into(), "-n".into(), "20".into(), "--json".into(), path(&json), url.clone()],
        vec!["gcstat".into(), pid.clone(), "10".into(), "1000".into()],
        vec!["gclog".into(), path(&repo().join("tests/fixtures/gclog/g1-jdk17.log")), "--pauses".into()],
        vec!["jps".into()],
        vec!["jdks".into()],
        vec!["run".into(), "--dry-run".into(), path(&repo().join("plans/quickstart.toml"))],
        vec!["report".into(), path(&report_dir)],
        vec!["compare".into(), path(&fixtures.join("compare-base")), path(&fixtures.join("compare-rerun"))],
    ];
    for command in &commands {
        let args: Vec<&str> = command.iter().map(String::as_str).collect();
        assert_ends_quietly(&args);
    }
    assert!(json.exists(), "bench wrote its --json file before printing");
    assert!(report_dir.join("report.html").exists(), "report wrote its files before printing their paths");
}

#[test]
fn negative_numbers_get_one_line_naming_the_flag_for_every_numeric_flag() {
    // (arguments, the flag the message must name)
    let cases: &[(&[&str], &str)] = &[
        (&["bench", "-R", "-5", "http://127.0.0.1:1/"], "-R"),
        (&["bench", "-c", "-1", "http://127.0.0.1:1/"], "-c"),
        (&["bench", "-n", "-3", "http://127.0.0.1:1/"], "-n"),
        (&["bench", "-t", "-2", "http://127.0.0.1:1/"], "-t"),
        (&["bench", "--timeout", "-1s", "http://127.0.0.1:1/"], "--timeout"),
        (&["bench", "-d", "-2s", "http://127.0.0.1:1/"], "-d"),
        (&["bench", "--jvm-interval", "-1s", "http://127.0.0.1:1/"], "--jvm-interval"),
        (&["bench", "-R", "-0.5", "http://127.0.0.1:1/"], "-R"),
        (&["bench", "--connections=-1", "http://127.0.0.1:1/"], "--connections"),
        (&["bench", "-n=-3", "http://127.0.0.1:1/"], "--requests"),
        (&["bench", "--timeout=-1s", "http://127.0.0.1:1/"], "--timeout"),
        (&["gcstat", "1", "1000", "-h", "-5"], "-h"),
        (&["gclog", "--pid", "-3"], "--pid"),
        (&["gclog", "x.log", "--from", "-5"], "--from"),
        (&["run", "--repeats", "-1", "plan.toml"], "--repeats"),
        (&["run", "--seed", "-7", "plan.toml"], "--seed"),
        (&["compare", "a", "b", "--threshold", "-5%"], "--threshold"),
    ];
    for (args, flag) in cases {
        let (output, _) = jload(args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: one line: {stderr}");
        assert!(stderr.starts_with(&format!("jload: {flag} ")), "{args:?}: jload's message naming {flag}: {stderr}");
        assert!(stderr.contains("negative"), "{args:?}: says what is wrong: {stderr}");
    }
}

#[test]
fn a_negative_positional_number_gets_one_line() {
    let (output, _) = jload(&["gcstat", "1", "-1000"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(stderr.trim_end(), "jload: -1000: negative values are not accepted; give a positive value");
}

#[test]
fn a_value_of_the_wrong_type_gets_one_line() {
    let (output, _) = jload(&["bench", "-c", "many", "http://127.0.0.1:1/"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(stderr.trim_end(), "jload: invalid value 'many' for --connections: invalid digit found in string");
}

#[test]
fn command_line_mistakes_get_one_line_with_the_suggestion_and_the_help_to_read() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["bench", "--rat", "5", "http://127.0.0.1:1/"],
            "jload: unexpected argument '--rat'; did you mean '--rate'? (jload bench --help)",
        ),
        (
            &["bench", "-c"],
            "jload: a value is required for '--connections <CONNECTIONS>' but none was supplied (jload bench --help)",
        ),
        (
            &["bench", "--body", "a", "--mix", "m.toml"],
            "jload: the argument '--body <BODY>' cannot be used with '--mix <MIX>' (jload bench --help)",
        ),
        (&["jps", "-t"], "jload: unexpected argument '-t' (jload jps --help)"),
        (
            &["gcstat", "-x", "1"],
            "jload: unexpected argument '-x'; to pass '-x' as a value, use '-- -x' (jload gcstat --help)",
        ),
        (
            &["gclog", "x.log", "--pause"],
            "jload: unexpected argument '--pause'; did you mean '--pauses'? (jload gclog --help)",
        ),
        (&["run"], "jload: the following required arguments were not provided: <PLAN> (jload run --help)"),
        (&["compare", "a"], "jload: the following required arguments were not provided: <B> (jload compare --help)"),
        (&["report"], "jload: the following required arguments were not provided: <DIR> (jload report --help)"),
        (&["benh"], "jload: unrecognized subcommand 'benh'; did you mean 'bench'? (jload --help)"),
    ];
    for (args, expected) in cases {
        let (output, _) = jload(args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr, format!("{expected}\n"), "{args:?}");
    }
}

#[test]
fn help_is_no_mistake_and_keeps_its_lines_and_exit_0() {
    let (output, _) = jload(&["bench", "--help"]);
    assert_eq!(output.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&output.stdout).lines().count() > 20);
}

#[test]
fn wrks_latency_flag_is_accepted_and_the_percentiles_are_printed_as_always() {
    let server = serve(|_| ok("x"));
    let (output, _) = jload(&["bench", "--latency", "-q", "-n", "20", "-c", "2", &server.url("/")]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.contains("p99.9"), "the percentiles: {stdout}");
    assert!(stdout.contains("Requests      20 in"), "{stdout}");
}
