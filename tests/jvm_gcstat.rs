//! `jload gcstat` and `jload jps` against real JVMs: tests/java/Alloc.java (source launcher) allocates, then idles
//! while jload's output is compared with the real jstat of the same JDK, for five collectors on JDK 17 and 25 (and
//! with `-t`, the uptime column, on Parallel and G1);
//! plus target resolution (pid, port:N, name, containers), the one-line errors, and a JVM exiting mid-sampling.
//!
//! JDK homes: JLOAD_TEST_JDK17 and JLOAD_TEST_JDK25 (defaults: the Debian JDK 17 and Temurin 25 paths).

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use common::jdks::{TestJvm, alloc_source, in_own_namespaces, jdk17, jdk25, jvm_under};
use common::jload;
use common::machine;

const JLOAD: &str = env!("CARGO_BIN_EXE_jload");
const COLLECTORS: [&str; 5] = ["Serial", "Parallel", "G1", "Z", "Shenandoah"];
fn stdout_of(output: &Output) -> String {
    assert!(output.status.success(), "jload failed: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn jstat(java_home: &Path, option: &str, pid: u32) -> String {
    let output = Command::new(java_home.join("bin/jstat")).args([option, &pid.to_string()]).output().unwrap();
    assert!(output.status.success(), "jstat failed: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap()
}

/// Field-by-field differences between two outputs of header + rows, for the failure message.
fn field_differences(expected: &str, actual: &str) -> String {
    let mut report = Vec::new();
    let (e_lines, a_lines): (Vec<&str>, Vec<&str>) = (expected.lines().collect(), actual.lines().collect());
    let header: Vec<&str> = e_lines.first().map(|h| h.split_whitespace().collect()).unwrap_or_default();
    for (n, (e, a)) in e_lines.iter().zip(&a_lines).enumerate() {
        if e != a {
            for (i, (ef, af)) in e.split_whitespace().zip(a.split_whitespace()).enumerate() {
                if ef != af {
                    report.push(format!("line {n} {}: jstat {ef:?} jload {af:?}", header.get(i).unwrap_or(&"?")));
                }
            }
            if e.len() != a.len() {
                report.push(format!("line {n}: jstat {} chars, jload {} chars", e.len(), a.len()));
            }
        }
    }
    if e_lines.len() != a_lines.len() {
        report.push(format!("jstat {} lines, jload {} lines", e_lines.len(), a_lines.len()));
    }
    report.join("; ")
}

/// How many jload–jstat–jload rounds a comparison may take: JDK 17's ZGC keeps running cycles for a while after the
/// allocation burst (seen here: CGC 48 → 51 within one jstat call on a busy machine), so a counter can move on both
/// sides of the slow jstat call. Each round still demands a byte-for-byte match.
const COMPARISON_ROUNDS: usize = 4;

/// Compare until one round matches (see `compare_once`), at most COMPARISON_ROUNDS times, a second apart.
fn compare_with_jstat(java_home: &Path, pid: u32, jload_flags: &[&str], jstat_option: &str) -> Result<(), String> {
    let mut outcome = compare_once(java_home, pid, jload_flags, jstat_option);
    for _ in 1..COMPARISON_ROUNDS {
        if outcome.is_ok() {
            break;
        }
        thread::sleep(Duration::from_secs(1));
        outcome = compare_once(java_home, pid, jload_flags, jstat_option);
    }
    outcome
}

/// jload, then jstat, then jload again on an idle JVM: jstat's output must equal one of the two jload outputs
/// byte for byte (header, widths, decimals, "-"). Two jload samples absorb a counter moving between the calls.
fn compare_once(java_home: &Path, pid: u32, jload_flags: &[&str], jstat_option: &str) -> Result<(), String> {
    let pid_arg = pid.to_string();
    let args: Vec<&str> = ["gcstat", pid_arg.as_str()].into_iter().chain(jload_flags.iter().copied()).collect();
    let before = stdout_of(&jload(&args).0);
    let reference = jstat(java_home, jstat_option, pid);
    let after = stdout_of(&jload(&args).0);
    if reference.lines().count() != 2 {
        return Err(format!("jstat printed {:?}", reference));
    }
    if reference == before || reference == after {
        Ok(())
    } else {
        Err(format!("{jstat_option}: {}\njstat:\n{reference}jload:\n{after}", field_differences(&reference, &after)))
    }
}

/// jstat -t's layout: the header's `Timestamp` left-aligned over 15 characters, each data line's uptime right-aligned
/// in them with one decimal, then one space and the columns without -t. Splits a data line into its uptime and the rest.
fn split_timestamp(line: &str) -> Result<(f64, &str), String> {
    let (stamp, rest) =
        line.split_at_checked(15).ok_or_else(|| format!("line shorter than the timestamp: {line:?}"))?;
    let rest = rest.strip_prefix(' ').ok_or_else(|| format!("no space after the timestamp column: {line:?}"))?;
    let number = stamp.trim_start();
    let one_decimal = number.split_once('.').is_some_and(|(_, decimals)| decimals.len() == 1);
    if !one_decimal || number.len() == stamp.len() {
        return Err(format!("timestamp not right-aligned with one decimal in 15 characters: {stamp:?}"));
    }
    Ok((number.parse().map_err(|_| format!("timestamp not a number: {stamp:?}"))?, rest))
}

/// jload -t, then jstat -t, then jload -t: the header lines equal byte for byte; the timestamp of jstat's line lies
/// between jload's two (all three read the JVM's uptime counter) in the same layout; the rest of jstat's data line
/// equals the rest of one of jload's.
fn compare_with_jstat_t(java_home: &Path, pid: u32, jload_flags: &[&str], jstat_option: &str) -> Result<(), String> {
    let mut outcome = Err(String::new());
    for _ in 0..COMPARISON_ROUNDS {
        outcome = compare_once_t(java_home, pid, jload_flags, jstat_option);
        if outcome.is_ok() {
            break;
        }
        thread::sleep(Duration::from_secs(1));
    }
    outcome
}

fn compare_once_t(java_home: &Path, pid: u32, jload_flags: &[&str], jstat_option: &str) -> Result<(), String> {
    let pid_arg = pid.to_string();
    let args: Vec<&str> = ["gcstat", "-t", pid_arg.as_str()].into_iter().chain(jload_flags.iter().copied()).collect();
    let before = stdout_of(&jload(&args).0);
    let output = Command::new(java_home.join("bin/jstat")).args([jstat_option, "-t", &pid_arg]).output().unwrap();
    assert!(output.status.success(), "jstat failed: {}", String::from_utf8_lossy(&output.stderr));
    let reference = String::from_utf8(output.stdout).unwrap();
    let after = stdout_of(&jload(&args).0);
    let lines = |text: &str| text.lines().map(str::to_owned).collect::<Vec<_>>();
    let (reference_lines, before_lines, after_lines) = (lines(&reference), lines(&before), lines(&after));
    if reference_lines.len() != 2 || before_lines.len() != 2 || after_lines.len() != 2 {
        return Err(format!("{jstat_option} -t: jstat printed {reference:?}, jload {before:?}"));
    }
    if before_lines[0] != reference_lines[0] {
        return Err(format!(
            "{jstat_option} -t header:\njstat: {:?}\njload: {:?}",
            reference_lines[0], before_lines[0]
        ));
    }
    let (jstat_uptime, jstat_rest) = split_timestamp(&reference_lines[1])?;
    let (before_uptime, before_rest) = split_timestamp(&before_lines[1])?;
    let (after_uptime, after_rest) = split_timestamp(&after_lines[1])?;
    if !(before_uptime <= jstat_uptime && jstat_uptime <= after_uptime) {
        return Err(format!("jstat's uptime {jstat_uptime} not between jload's {before_uptime} and {after_uptime}"));
    }
    if jstat_rest == before_rest || jstat_rest == after_rest {
        Ok(())
    } else {
        Err(format!("{jstat_option} -t:\njstat: {jstat_rest}\njload: {after_rest}"))
    }
}

#[test]
fn gcstat_prints_what_jstat_prints_for_five_collectors_on_jdk17_and_jdk25() {
    let _machine = machine::shared();
    let jdks = [("JDK 17", jdk17("jstat")), ("JDK 25", jdk25("jstat"))];
    let combinations: Vec<(String, PathBuf, &str)> = jdks
        .iter()
        .flat_map(|(name, home)| COLLECTORS.iter().map(move |gc| (format!("{name} {gc}GC"), home.clone(), *gc)))
        .collect();
    let handles: Vec<_> = combinations
        .into_iter()
        .map(|(label, home, gc)| {
            thread::spawn(move || {
                let jvm = TestJvm::start(&home, &[&format!("-XX:+Use{gc}GC")], &[]);
                let gcutil = compare_with_jstat(&home, jvm.pid, &[], "-gcutil");
                let gc_kb = compare_with_jstat(&home, jvm.pid, &["--gc"], "-gc");
                // -t on seed 004's collectors: jstat -gcutil -t and jstat -gc -t.
                let timestamped = if ["Parallel", "G1"].contains(&gc) {
                    compare_with_jstat_t(&home, jvm.pid, &[], "-gcutil").and(compare_with_jstat_t(
                        &home,
                        jvm.pid,
                        &["--gc"],
                        "-gc",
                    ))
                } else {
                    Ok(())
                };
                (label, gcutil.and(gc_kb).and(timestamped))
            })
        })
        .collect();
    let failures: Vec<String> = handles
        .into_iter()
        .map(|h| h.join().expect("comparison thread panicked"))
        .filter_map(|(label, result)| result.err().map(|err| format!("{label}: {err}")))
        .collect();
    assert!(failures.is_empty(), "jload gcstat differs from jstat:\n{}", failures.join("\n"));
}

#[test]
fn targets_by_pid_port_and_name_reach_the_same_jvm() {
    let _machine = machine::shared();
    // A uniquely named copy, so the name target matches this JVM only (the source launcher accepts any file name).
    let dir = std::env::temp_dir().join(format!("jload-name-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let unique = format!("GcstatNameTarget{}", std::process::id());
    let source = dir.join(format!("{unique}.java"));
    std::fs::copy(alloc_source(), &source).unwrap();
    let twin17 = thread::spawn(|| TestJvm::start(&jdk17("jstat"), &[], &[]));
    let twin25 = thread::spawn(|| TestJvm::start(&jdk25("jstat"), &[], &[]));
    let named = TestJvm::start_with(Command::new(jdk17("jstat").join("bin/java")), &source, &[], &["--listen"]);
    let twins = [twin17.join().unwrap(), twin25.join().unwrap()];

    let by_pid = stdout_of(&jload(&["gcstat", &named.pid_arg()]).0);
    let by_port = stdout_of(&jload(&["gcstat", &format!("port:{}", named.port)]).0);
    let by_name = stdout_of(&jload(&["gcstat", &unique.to_lowercase()]).0);
    assert_eq!(by_port, by_pid);
    assert_eq!(by_name, by_pid);

    let ambiguous = jload(&["gcstat", "Alloc.java"]).0;
    let message = String::from_utf8_lossy(&ambiguous.stderr);
    assert_eq!(ambiguous.status.code(), Some(2), "{message}");
    assert!(message.contains("give the pid"), "{message}");
    for twin in &twins {
        assert!(message.contains(&twin.pid_arg()), "candidate {} not listed: {message}", twin.pid);
    }
    assert_eq!(message.lines().count(), 1, "one-line error: {message}");

    let jps = stdout_of(&jload(&["jps"]).0);
    let line = jps.lines().find(|l| l.trim_start().starts_with(&format!("{} ", named.pid))).expect("named JVM in jps");
    assert!(line.contains(&format!("{unique}.java")) && line.contains("17.0.") && line.ends_with("--listen"), "{line}");
    let twin25 = jps.lines().find(|l| l.trim_start().starts_with(&format!("{} ", twins[1].pid))).unwrap();
    assert!(twin25.contains("Alloc.java") && twin25.contains(" 25."), "{twin25}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn json_and_proc_columns_agree_with_the_jstat_columns_and_proc() {
    let _machine = machine::shared();
    let jvm = TestJvm::start(&jdk17("jstat"), &["-XX:+UseSerialGC"], &[]);
    let json_out = stdout_of(&jload(&["gcstat", &jvm.pid_arg(), "0", "2", "--json"]).0);
    let samples: Vec<serde_json::Value> = json_out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(samples.len(), 2);
    let row = stdout_of(&jload(&["gcstat", &jvm.pid_arg(), "--proc"]).0);
    let fields: Vec<&str> = row.lines().nth(1).unwrap().split_whitespace().collect();
    assert_eq!(fields.len(), 16, "13 jstat columns + RSS_MB CPU% THR: {row}");
    let sample = &samples[1];
    assert_eq!(sample["ygc"].to_string(), fields[6], "YGC");
    assert_eq!(format!("{:.2}", sample["old"]["used_pct"].as_f64().unwrap()), fields[3], "O");
    assert_eq!(format!("{:.3}", sample["gct_s"].as_f64().unwrap()), fields[12], "GCT");
    assert!(sample["cgc"].is_null() && fields[10] == "-", "Serial has no collector 2");
    let status = std::fs::read_to_string(format!("/proc/{}/status", jvm.pid)).unwrap();
    let status_kb = |key: &str| -> f64 {
        let line = status.lines().find(|l| l.starts_with(key)).unwrap();
        line.split_whitespace().nth(1).unwrap().parse().unwrap()
    };
    let rss_mb = sample["rss_bytes"].as_f64().unwrap() / 1048576.0;
    assert!((rss_mb - status_kb("VmRSS:") / 1024.0).abs() < 8.0, "RSS {rss_mb} MB vs {status}");
    assert!((rss_mb - fields[13].parse::<f64>().unwrap()).abs() < 8.0, "RSS_MB column {}", fields[13]);
    let threads = sample["threads"].as_f64().unwrap();
    assert!((threads - status_kb("Threads:")).abs() <= 3.0, "threads {threads} vs {status}");
    assert!(sample["cpu_pct"].as_f64().unwrap() >= 0.0 && sample["uptime_s"].as_f64().unwrap() > 0.5);
}

#[test]
fn a_jvm_that_exits_during_sampling_ends_the_sampling_cleanly() {
    let _machine = machine::shared();
    let jvm = TestJvm::start(&jdk25("jstat"), &[], &["--exit-after-ms", "1500"]);
    let mut child = Command::new(JLOAD)
        .args(["gcstat", &jvm.pid_arg(), "100"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while child.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "jload gcstat kept sampling a JVM that exited");
        thread::sleep(Duration::from_millis(50));
    }
    let output = child.wait_with_output().unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stdout.lines().count() >= 3, "header and the samples taken before the exit: {stdout}");
    assert_eq!(
        stderr.trim(),
        format!("jload: JVM {} exited; stopped after {} sample(s)", jvm.pid, stdout.lines().count() - 1)
    );
}

fn assert_one_line_bad_input(output: &Output, expected: &[&str]) {
    let message = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{message}");
    assert_eq!(message.lines().count(), 1, "{message}");
    for part in expected {
        assert!(message.contains(part), "{part:?} missing from {message:?}");
    }
}

#[test]
fn processes_that_cannot_be_sampled_give_one_line_errors() {
    let _machine = machine::shared();
    let no_perfdata = thread::spawn(|| TestJvm::start(&jdk17("jstat"), &["-XX:-UsePerfData"], &[]));
    let private = TestJvm::start(&jdk25("jstat"), &["-XX:+PerfDisableSharedMem"], &[]);
    let no_perfdata = no_perfdata.join().unwrap();
    assert_one_line_bad_input(&jload(&["gcstat", &no_perfdata.pid_arg()]).0, &["-XX:-UsePerfData", "cannot sample"]);
    assert_one_line_bad_input(
        &jload(&["gcstat", &private.pid_arg()]).0,
        &["-XX:+PerfDisableSharedMem", "cannot sample"],
    );

    let mut sleeper = Command::new("sleep").arg("30").spawn().unwrap();
    assert_one_line_bad_input(&jload(&["gcstat", &sleeper.id().to_string()]).0, &["(sleep) is not a JVM"]);
    sleeper.kill().unwrap();
    sleeper.wait().unwrap();
    assert_one_line_bad_input(&jload(&["gcstat", &sleeper.id().to_string()]).0, &["no process with pid"]);
    assert_one_line_bad_input(&jload(&["gcstat", "port:1"]).0, &["nothing listens on TCP port 1"]);
    assert_one_line_bad_input(&jload(&["gcstat", "1", "fast"]).0, &["invalid interval"]);
}

fn running_as_root() -> bool {
    Command::new("id").arg("-u").output().is_ok_and(|o| o.stdout.starts_with(b"0\n"))
}

#[test]
fn another_users_jvm_gives_permission_denied() {
    let _machine = machine::shared();
    if !running_as_root() {
        eprintln!("skipped: needs root to run jload as another user (nobody) against this user's JVM");
        return;
    }
    let jvm = TestJvm::start(&jdk17("jstat"), &[], &[]);
    let output = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", JLOAD, "gcstat", &jvm.pid_arg()])
        .output()
        .unwrap();
    assert_one_line_bad_input(&output, &["permission denied", "runs as user root", "run jload as root"]);
}

#[test]
fn a_jvm_in_its_own_mount_and_pid_namespace_is_found_through_proc_root() {
    let _machine = machine::shared();
    if !running_as_root() {
        eprintln!("skipped: needs root for unshare (a container-like JVM with its own /tmp and pid namespace)");
        return;
    }
    let (command, source) =
        in_own_namespaces(&jdk17("jstat").join("bin/java"), &format!("jload-test-{}", std::process::id()));
    let wrapper = TestJvm::start_with(command, &source, &[], &[]);
    let pid = jvm_under(wrapper.pid).to_string();
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    assert!(status.lines().any(|l| l.starts_with("NSpid:") && l.split_whitespace().count() == 3), "{status}");
    assert!(!Path::new("/tmp/hsperfdata_root").join(&pid).exists(), "its PerfData must be in its own /tmp");

    let row = stdout_of(&jload(&["gcstat", &pid]).0);
    assert_eq!(row.lines().count(), 2, "{row}");
    let jps = stdout_of(&jload(&["jps"]).0);
    assert!(jps.lines().any(|l| l.trim_start().starts_with(&format!("{pid} ")) && l.contains("Alloc.java")), "{jps}");
    drop(wrapper);
    let _ = std::fs::remove_dir_all(source.parent().unwrap());
}
