//! `jload gclog` as a user runs it: on the committed real GC logs, on the log of a JVM started here (by file and
//! by `--pid`), and with bad input.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use crate::common::jdks::{java17, java25};
use crate::common::machine;
use crate::common::{jload, repo};
use serde_json::Value;

fn fixture(name: &str) -> String {
    repo().join("tests/fixtures/gclog").join(name).display().to_string()
}

fn json_of(args: &[&str]) -> Value {
    let output = jload(args).0;
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).expect("stdout is JSON")
}

fn stdout_of(args: &[&str]) -> String {
    let output = jload(args).0;
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn json_has_the_documented_schema() {
    let report = json_of(&["gclog", &fixture("g1-jdk17.log"), "--json"]);
    let pauses = report["pauses"].as_array().unwrap();
    assert_eq!(pauses.len(), 26);
    for pause in pauses {
        for key in ["start_s", "duration_ms", "kind", "cause", "before_mb", "after_mb", "total_mb"] {
            assert!(pause.get(key).is_some(), "pause without {key}: {pause}");
        }
        assert!(pause["duration_ms"].is_f64() && pause["kind"].is_string());
    }
    assert_eq!(pauses[0]["kind"], "young");
    assert_eq!(pauses[0]["cause"], "G1 Evacuation Pause");
    for key in ["start_s", "duration_ms", "name", "cause", "before_mb", "after_mb", "aborted"] {
        assert!(report["concurrent"][0].get(key).is_some(), "concurrent cycle without {key}");
    }
    for key in ["start_s", "operation", "total_ms", "reaching_ms", "at_safepoint_ms"] {
        assert!(report["safepoints"][0].get(key).is_some(), "safepoint without {key}");
    }
    let summary = &report["summary"];
    for key in [
        "count",
        "total_ms",
        "max_ms",
        "p50_ms",
        "p90_ms",
        "p99_ms",
        "gc_throughput_pct",
        "alloc_rate_mb_s",
        "promotion_rate_mb_s",
        "peak_heap_after_mb",
        "unparsed_lines",
        "by_kind",
        "safepoints",
        "concurrent",
        "nested_pauses",
        "stalls",
    ] {
        assert!(summary.get(key).is_some(), "summary without {key}");
    }
    for key in ["count", "total_ms", "max_ms", "p99_ms", "by_kind", "stalled_pct", "pacing_total_ms"] {
        assert!(summary["stalls"].get(key).is_some(), "stalls without {key}");
    }
    assert_eq!(summary["count"], 26);
    assert_eq!(summary["unparsed_lines"], 0);
    assert_eq!(summary["safepoints"]["count"], 26);
    assert_eq!((summary["nested_pauses"].as_u64(), summary["stalls"]["count"].as_u64()), (Some(0), Some(0)));
    assert_eq!(report["collector"], "G1");
    assert_eq!((report["run"].as_u64(), report["runs"].as_array().map(Vec::len)), (Some(1), Some(1)));
    assert_eq!(report["stalls"].as_array().map(Vec::len), Some(0));
}

#[test]
fn human_output_tables_kinds_percentiles_and_rates() {
    let text = stdout_of(&["gclog", &fixture("serial-jdk17.log")]);
    assert!(text.contains("(Serial): "), "{text}");
    let young = text.lines().find(|line| line.trim_start().starts_with("young")).unwrap();
    assert_eq!(young.split_whitespace().nth(1), Some("16"), "{young}");
    let all = text.lines().find(|line| line.trim_start().starts_with("all ")).unwrap();
    assert_eq!(all.split_whitespace().take(3).collect::<Vec<_>>(), ["all", "21", "36.933"]);
    assert!(text.contains("p50 0.989 ms, p90 6.056 ms, p99 6.870 ms, max 6.870 ms"), "{text}");
    assert!(text.contains("Safepoints (the whole stop the application felt): 17 stops"), "{text}");
    assert!(text.contains("GC throughput        79.71 % of 0.182 s"), "{text}");
    assert!(text.contains("Promotion rate       233.8 MB/s"), "{text}");
}

#[test]
fn pauses_flag_lists_every_pause_in_the_window() {
    let text = stdout_of(&["gclog", &fixture("serial-jdk17.log"), "--pauses"]);
    let listed = |text: &str| {
        text.lines().filter(|line| line.contains("Allocation Failure") || line.contains("System.gc()")).count()
    };
    assert_eq!(listed(&text), 21);
    let window = json_of(&["gclog", &fixture("serial-jdk17.log"), "--json", "--from", "0.1", "--to", "0.15"]);
    let starts: Vec<f64> =
        window["pauses"].as_array().unwrap().iter().map(|p| p["start_s"].as_f64().unwrap()).collect();
    assert!(!starts.is_empty() && starts.iter().all(|s| (0.1..=0.15).contains(s)), "{starts:?}");
    assert_eq!(window["summary"]["count"].as_u64().unwrap() as usize, starts.len());
    assert_eq!(window["summary"]["window"]["from_s"], 0.1);
}

#[test]
fn rotated_siblings_are_read_unless_asked_not_to() {
    let all = json_of(&["gclog", &fixture("rotated/gc.log"), "--json"]);
    assert_eq!(all["summary"]["count"], 17);
    assert_eq!(all["files"].as_array().unwrap().len(), 2);
    assert_eq!(all["ignored_files"].as_array().unwrap().len(), 2);
    let alone = json_of(&["gclog", &fixture("rotated/gc.log"), "--json", "--no-rotated"]);
    assert_eq!(alone["summary"]["count"], 4);
    let text = stdout_of(&["gclog", &fixture("rotated/gc.log")]);
    assert!(text.contains("ignored (an earlier JVM run):"), "{text}");
}

#[test]
fn unparsed_lines_are_reported_not_fatal() {
    let text = stdout_of(&["gclog", &fixture("edge-garbage-truncated.log")]);
    assert!(text.contains("5 unparsed lines, first at line 3:"), "{text}");
}

fn assert_one_line_error(output: &Output, needle: &str) {
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains(needle), "{stderr}");
    assert!(output.stdout.is_empty());
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    assert_one_line_error(&jload(&["gclog", "/nonexistent/gc.log"]).0, "cannot read GC log /nonexistent/gc.log");
    assert_one_line_error(&jload(&["gclog", repo().to_str().unwrap()]).0, "it is a directory");
    assert_one_line_error(
        &jload(&["gclog", &fixture("g1-jdk17.log"), "--from", "5", "--to", "1"]).0,
        "--from 5 is after --to 1",
    );
    assert_one_line_error(
        &jload(&["gclog", "--pid", "4000000000"]).0,
        "cannot read the command line of pid 4000000000",
    );
    let own_pid = std::process::id().to_string();
    assert_one_line_error(&jload(&["gclog", "--pid", &own_pid]).0, "writes no GC log file");
}

/// A JVM running tests/java/GcChurn.java with the source launcher in `directory`, logging to `log` (relative to
/// it), idle for `idle_ms` at the end; returned once it has printed `GcChurn done` (its allocation is over).
fn start_churn(java: &Path, collector: &str, directory: &Path, log: &str, idle_ms: u32) -> Child {
    let source = repo().join("tests/java/GcChurn.java");
    let mut child = Command::new(java)
        .current_dir(directory)
        .args(["-Xmx64m", collector, &format!("-Xlog:gc*,safepoint:file={log}:time,uptime,level,tags")])
        .arg(source)
        .args(["1", &idle_ms.to_string()])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|err| panic!("cannot start {}: {err}", java.display()));
    let mut first_line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut first_line).unwrap();
    assert_eq!(first_line.trim(), "GcChurn done");
    child
}

/// Pause lines counted the simple way: the lines that say `Pause` and end with a duration, except the pause's start
/// line (`[gc,start]`) and the statistics table ZGC prints at exit (`[gc,stats] … Young Pause: Pause Mark End … ms`).
fn count_pause_lines(log: &Path) -> usize {
    std::fs::read_to_string(log)
        .unwrap()
        .lines()
        .filter(|line| line.contains(" Pause ") && line.ends_with("ms"))
        .filter(|line| !line.contains("[gc,start") && !line.contains("[gc,stats"))
        .count()
}

fn temp_dir(name: &str) -> PathBuf {
    let directory = std::env::temp_dir().join(format!("jload-gclog-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&directory).unwrap();
    directory
}

#[test]
fn live_jvm_found_by_pid_on_jdk17() {
    let _machine = machine::shared();
    let directory = temp_dir("pid");
    // A relative name with the pid in it: found through /proc/<pid>/cwd and %p.
    let mut jvm = start_churn(&java17(), "-XX:+UseSerialGC", &directory, "gc-%p.log", 5_000);
    let pid = jvm.id();
    let report = json_of(&["gclog", "--pid", &pid.to_string(), "--json"]);
    jvm.kill().unwrap();
    jvm.wait().unwrap();
    let log = directory.join(format!("gc-{pid}.log"));
    assert_eq!(report["files"][0], log.display().to_string());
    let expected = count_pause_lines(&log);
    assert!(expected >= 5, "GcChurn makes collections: {expected}");
    assert_eq!(report["summary"]["count"].as_u64().unwrap() as usize, expected);
    assert_eq!(report["summary"]["unparsed_lines"], 0);
    assert_eq!(report["collector"], "Serial");
    std::fs::remove_dir_all(&directory).unwrap();
}

#[test]
fn live_generational_zgc_log_on_jdk25() {
    let _machine = machine::shared();
    let directory = temp_dir("zgc");
    let log = directory.join("gc.log");
    let mut jvm = start_churn(&java25(), "-XX:+UseZGC", &directory, "gc.log", 0);
    assert!(jvm.wait().unwrap().success());
    let report = json_of(&["gclog", &log.display().to_string(), "--json"]);
    let expected = count_pause_lines(&log);
    assert!(expected >= 3, "at least one ZGC cycle: {expected}");
    let pauses = report["pauses"].as_array().unwrap();
    assert_eq!(pauses.len(), expected);
    let kinds = ["mark_start", "mark_end", "relocate_start"];
    assert!(pauses.iter().all(|pause| kinds.contains(&pause["kind"].as_str().unwrap())));
    assert!(pauses.iter().all(|pause| pause["generation"].is_string()), "generational on JDK 25");
    assert!(report["summary"]["safepoints"]["count"].as_u64().unwrap() as usize >= expected);
    std::fs::remove_dir_all(&directory).unwrap();
}

#[test]
fn a_log_with_a_latin_1_line_or_a_tail_of_nuls_is_read_with_that_line_unparsed() {
    // Another project's log (GCViewer's test data), damaged as hosts damage logs: a Latin-1 line written by a
    // non-UTF-8 locale, and 4 KiB of NULs after the last line (a host crash while the file was being written).
    let original = fixture("third-party/gcviewer-cms-jdk9-11-escalation.log");
    let text = std::fs::read(&original).unwrap();
    let first_line_end = text.iter().position(|&byte| byte == b'\n').unwrap() + 1;
    let directory = temp_dir("damaged");
    let latin_1 = directory.join("latin-1.log");
    std::fs::write(&latin_1, [&text[..first_line_end], b"# host: m\xe9tro\n", &text[first_line_end..]].concat())
        .unwrap();
    let nuls = directory.join("nuls.log");
    std::fs::write(&nuls, [&text[..], &[0u8; 4096][..]].concat()).unwrap();
    let clean = json_of(&["gclog", &original, "--json"]);
    for (damaged, line, shown) in [(&latin_1, 2, "# host: m\\xe9tro"), (&nuls, 126, "\\x00\\x00\\x00\\x00")] {
        let report = json_of(&["gclog", &damaged.display().to_string(), "--json"]);
        assert_eq!(report["pauses"], clean["pauses"], "{}", damaged.display());
        let mut summary = report["summary"].clone();
        summary["unparsed_lines"] = clean["summary"]["unparsed_lines"].clone();
        assert_eq!(summary, clean["summary"], "{}: the same figures, one unparsed line more", damaged.display());
        assert_eq!(report["summary"]["unparsed_lines"], clean["summary"]["unparsed_lines"].as_u64().unwrap() + 1);
        assert_eq!(report["lines"], clean["lines"].as_u64().unwrap() + 1);
        assert_eq!(report["unparsed_lines"], clean["unparsed_lines"].as_u64().unwrap() + 1);
        let sample = report["unparsed_samples"].as_array().unwrap().iter().find(|sample| sample["line"] == line);
        let sample = sample.unwrap_or_else(|| panic!("no sample of line {line}: {report}"));
        assert!(sample["text"].as_str().unwrap().starts_with(shown), "{sample}");
    }
    std::fs::remove_dir_all(&directory).unwrap();
}

#[test]
fn input_that_is_not_a_unified_log_is_refused_saying_what_it_is() {
    let jdk8 = fixture("third-party/gcviewer-parallel-jdk8-printgcdetails.log");
    assert_one_line_error(&jload(&["gclog", &jdk8]).0, "is a JDK 8 GC log (-XX:+PrintGCDetails format)");
    let directory = temp_dir("formats");
    // UTF-16, as a Windows redirect writes it: made from a real log with iconv.
    let utf16 = directory.join("gc-utf16.log");
    let converted = Command::new("iconv")
        .args(["-f", "UTF-8", "-t", "UTF-16", &fixture("serial-jdk17.log"), "-o", &utf16.display().to_string()])
        .status()
        .unwrap();
    assert!(converted.success());
    assert_one_line_error(&jload(&["gclog", &utf16.display().to_string()]).0, "is UTF-16 text");
    // A binary: jload itself.
    assert_one_line_error(&jload(&["gclog", env!("CARGO_BIN_EXE_jload")]).0, "is binary data");
    // Text without a single GC-log line.
    let readme = repo().join("Cargo.toml").display().to_string();
    assert_one_line_error(&jload(&["gclog", &readme]).0, "has no line of a JDK 9+ unified GC log");
    std::fs::remove_dir_all(&directory).unwrap();
}

#[test]
fn a_gzip_log_reads_like_the_plain_one() {
    let directory = temp_dir("gzip");
    let gz = directory.join("gc.log.gz");
    let compressed = Command::new("gzip").args(["-c", &fixture("serial-jdk17.log")]).output().unwrap();
    std::fs::write(&gz, compressed.stdout).unwrap();
    let plain = json_of(&["gclog", &fixture("serial-jdk17.log"), "--json"]);
    let unzipped = json_of(&["gclog", &gz.display().to_string(), "--json"]);
    assert_eq!(unzipped["summary"], plain["summary"]);
    assert_eq!(unzipped["pauses"], plain["pauses"]);
    assert_eq!(unzipped["lines"], 194);
    std::fs::remove_dir_all(&directory).unwrap();
}

#[test]
fn two_jvm_runs_in_one_file_are_split_and_named() {
    let directory = temp_dir("runs");
    let both = directory.join("gc.log");
    let text = std::fs::read_to_string(fixture("g1-jdk17.log")).unwrap()
        + &std::fs::read_to_string(fixture("serial-jdk17.log")).unwrap();
    std::fs::write(&both, text).unwrap();
    let path = both.display().to_string();
    let human = stdout_of(&["gclog", &path]);
    assert!(human.contains("2 JVM runs in this log (the uptime goes back: runs start at line 1, line 424); run 2"));
    // g1-jdk17.log has 26 pauses, serial-jdk17.log 21 (grep counts in src/jvm/gclog/fixture_tests.rs).
    assert_eq!(json_of(&["gclog", &path, "--json"])["summary"]["count"], 21);
    let first = json_of(&["gclog", &path, "--json", "--run", "1"]);
    assert_eq!((first["summary"]["count"].as_u64(), first["collector"].as_str()), (Some(26), Some("G1")));
    assert_one_line_error(&jload(&["gclog", &path, "--run", "3"]).0, "holds 2 JVM run(s); give 1 to 2");
    std::fs::remove_dir_all(&directory).unwrap();
}

#[test]
fn zgc_allocation_stalls_in_json_text_and_window() {
    // zgc-jdk17-stalls.log: 10 `Allocation Stall` lines, 32.566 ms in all, longest 9.117 ms (grep + awk, see
    // src/jvm/gclog/third_party_tests.rs).
    let report = json_of(&["gclog", &fixture("zgc-jdk17-stalls.log"), "--json"]);
    let stalls = &report["summary"]["stalls"];
    assert_eq!((stalls["count"].as_u64(), stalls["total_ms"].as_f64()), (Some(10), Some(32.566)));
    assert_eq!(stalls["max_ms"].as_f64(), Some(9.117));
    assert_eq!(stalls["by_kind"][0]["kind"], "allocation_stall");
    assert_eq!(report["stalls"].as_array().unwrap().len(), 10);
    assert_eq!(report["stalls"][0]["thread"], "main");
    let text = stdout_of(&["gclog", &fixture("zgc-jdk17-stalls.log")]);
    let stalls = text.split("\nStalls (threads waiting for the collector outside pauses").nth(1).expect(&text);
    assert!(stalls.contains("\n  allocation_stall       10      32.566      3.257      9.117\n"), "{text}");
    assert!(stalls.contains("\n  all                    10      32.566      3.257      9.117\n"), "{text}");
    let window = json_of(&["gclog", &fixture("zgc-jdk17-stalls.log"), "--json", "--from", "0", "--to", "0.01"]);
    assert_eq!(window["summary"]["stalls"]["count"], 0);
    assert_eq!(window["stalls"].as_array().unwrap().len(), 0);
}

#[test]
fn live_zgc_allocation_stalls_on_jdk17() {
    let _machine = machine::shared();
    // A 32 MB heap cannot keep up with GcChurn's allocation: its thread stalls. Compared with a grep of the log.
    let directory = temp_dir("stalls");
    let source = repo().join("tests/java/GcChurn.java");
    let status = Command::new(java17())
        .current_dir(&directory)
        .args(["-Xmx32m", "-XX:+UseZGC", "-Xlog:gc,gc+phases,safepoint:file=gc.log:time,uptime,level,tags"])
        .arg(source)
        .arg("1")
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let log = directory.join("gc.log");
    let expected = std::fs::read_to_string(&log).unwrap().lines().filter(|l| l.contains("Allocation Stall (")).count();
    assert!(expected > 0, "GcChurn stalls in 32 MB");
    let report = json_of(&["gclog", &log.display().to_string(), "--json"]);
    assert_eq!(report["summary"]["stalls"]["count"].as_u64().unwrap() as usize, expected);
    std::fs::remove_dir_all(&directory).unwrap();
}

#[test]
fn stalls_flag_lists_every_stall_with_its_thread() {
    // gcviewer-zgc-allocation-stalls.log has 7 `Allocation Stall (thread) d ms` lines (grep -c); the second is
    // `[201.511s] … Allocation Stall (Group1.Backend.CompositeBackend{Tier1}.10) 29.092ms`: start 201.482 s.
    let text = stdout_of(&["gclog", &fixture("third-party/gcviewer-zgc-allocation-stalls.log"), "--stalls"]);
    let listed: Vec<&str> = text.lines().filter(|line| line.trim_start().starts_with("201.")).collect();
    assert_eq!(listed.len(), 7, "{text}");
    assert_eq!(listed[1], "   201.482      29.092  allocation_stall   Group1.Backend.CompositeBackend{Tier1}.10 -");
}
