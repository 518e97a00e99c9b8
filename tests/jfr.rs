//! `jload jfr` and the JFR reader against real recordings: tests/java/JfrWorkload.java (a contended monitor, parks,
//! allocation, computation, socket and file I/O) recorded once per JDK with the profile settings and the custom
//! settings below, then held to the JDK's own `jfr` tool — `jfr summary` line for line, and every typed event field
//! by field against `jfr print --json` — plus the one-line errors for bad input.
//!
//! What cannot match: JDK 17's `jfr summary` spells the checkpoint row `jdk.CheckPoint`, pads its table to a fixed
//! width and orders rows of equal count by its hash map's order, where JDK 25's spells `jdk.Checkpoint`, pads to the
//! longest event name and orders ties by name. `jload jfr summary` prints JDK 25's layout, so it is compared exactly
//! with JDK 25's `jfr` on both JDKs' recordings, and with JDK 17's `jfr` up to those three things.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use jload::jvm::jfr::events::{EventContext, JavaMethod, JavaThread, JfrEvent, StackTrace};
use jload::jvm::jfr::{TYPED_EVENTS, read_events};
use serde_json::{Value, json};

use crate::common::jdks::{compiled, jdk17, jdk25};
use crate::common::{jload, machine, tempdir};

/// How long the workload runs.
const WORKLOAD_SECONDS: &str = "1";

/// On top of the profile settings: every socket and file operation, class load and compilation, whatever it took,
/// so each typed event type has events.
const EVERY_OPERATION_JFC: &str = include_str!("java/every-operation.jfc");

#[derive(Clone, Copy, Debug)]
enum Jdk {
    Jdk17,
    Jdk25,
}

impl Jdk {
    fn home(self, tool: &str) -> PathBuf {
        match self {
            Jdk::Jdk17 => jdk17(tool),
            Jdk::Jdk25 => jdk25(tool),
        }
    }

    fn jfr(self) -> PathBuf {
        self.home("jfr").join("bin/jfr")
    }
}

/// A recording and what the JDK's `jfr` says of it, kept in memory; each test writes the file into its own folder.
struct Recorded {
    bytes: Vec<u8>,
    /// `jfr summary` of JDK 25's `jfr`.
    summary_by_jdk25: String,
    /// `jfr summary` of the recording JDK's own `jfr`.
    summary_by_own_jdk: String,
    /// `jfr print --json --events <every typed type>`: the events' `values` by type.
    printed: BTreeMap<String, Vec<Value>>,
}

impl Recorded {
    /// The recording written to `dir/recording.jfr`.
    fn file_in(&self, dir: &Path) -> PathBuf {
        let path = dir.join("recording.jfr");
        std::fs::write(&path, &self.bytes).unwrap();
        path
    }
}

/// The workload recorded on `jdk`, once per test run.
fn recorded(jdk: Jdk) -> &'static Recorded {
    static JDK17: OnceLock<Recorded> = OnceLock::new();
    static JDK25: OnceLock<Recorded> = OnceLock::new();
    let cell = match jdk {
        Jdk::Jdk17 => &JDK17,
        Jdk::Jdk25 => &JDK25,
    };
    cell.get_or_init(|| record(jdk))
}

fn record(jdk: Jdk) -> Recorded {
    let dir = tempdir();
    let classes = compiled(&dir, "JfrWorkload.java");
    let settings = dir.join("every-operation.jfc");
    std::fs::write(&settings, EVERY_OPERATION_JFC).unwrap();
    let recording = dir.join("recording.jfr");
    let java = Command::new(jdk.home("java").join("bin/java"))
        .arg(format!(
            "-XX:StartFlightRecording:settings=profile,settings={},filename={}",
            settings.display(),
            recording.display()
        ))
        .args(["-Xmx64m", "-Xlog:jfr*=warning", "-cp", classes.to_str().unwrap(), "JfrWorkload", WORKLOAD_SECONDS])
        .arg(dir.to_str().unwrap())
        .output()
        .unwrap();
    assert!(java.status.success(), "{jdk:?}: {}", String::from_utf8_lossy(&java.stderr));
    let summary_by = |jfr: PathBuf| stdout_of(Command::new(jfr).arg("summary").arg(&recording));
    let mut printed: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    let json = stdout_of(
        Command::new(jdk.jfr())
            .args(["print", "--json", "--stack-depth", "64", "--events", &TYPED_EVENTS.join(",")])
            .arg(&recording),
    );
    let json: Value = serde_json::from_str(&json).expect("jfr print --json prints JSON");
    for event in json["recording"]["events"].as_array().unwrap() {
        printed.entry(event["type"].as_str().unwrap().to_owned()).or_default().push(event["values"].clone());
    }
    Recorded {
        bytes: std::fs::read(&recording).unwrap(),
        summary_by_jdk25: summary_by(Jdk::Jdk25.jfr()),
        summary_by_own_jdk: summary_by(jdk.jfr()),
        printed,
    }
}

fn stdout_of(command: &mut Command) -> String {
    let output = command.output().unwrap();
    assert!(output.status.success(), "{command:?}: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap()
}

fn jload_summary(path: &Path) -> String {
    let output = jload(&["jfr", "summary", path.to_str().unwrap()]).0;
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap()
}

fn assert_summary_equals_jdk25s(jdk: Jdk) {
    let _machine = machine::shared();
    let recorded = recorded(jdk);
    let dir = tempdir();
    assert_eq!(jload_summary(&recorded.file_in(&dir)), recorded.summary_by_jdk25);
}

#[test]
fn summary_of_a_jdk_17_recording_equals_jdk_25s_jfr_summary() {
    assert_summary_equals_jdk25s(Jdk::Jdk17);
}

#[test]
fn summary_of_a_jdk_25_recording_equals_jdk_25s_jfr_summary() {
    assert_summary_equals_jdk25s(Jdk::Jdk25);
}

/// A summary's lines as JDK 17's `jfr summary` has them: the header lines, and the table's rows as a sorted list of
/// (name, count, size) with the checkpoint row spelled `jdk.Checkpoint`.
fn header_and_rows(summary: &str) -> (Vec<String>, Vec<(String, u64, u64)>) {
    let lines: Vec<&str> = summary.lines().collect();
    let header = lines[..5].iter().map(|line| line.to_string()).collect();
    let mut rows: Vec<(String, u64, u64)> = lines[8..]
        .iter()
        .map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            let name = if words[0] == "jdk.CheckPoint" { "jdk.Checkpoint" } else { words[0] };
            (name.to_owned(), words[1].parse().unwrap(), words[2].parse().unwrap())
        })
        .collect();
    rows.sort();
    (header, rows)
}

#[test]
fn summary_of_a_jdk_17_recording_equals_jdk_17s_jfr_summary_but_for_spelling_width_and_order_of_ties() {
    let _machine = machine::shared();
    let recorded = recorded(Jdk::Jdk17);
    let dir = tempdir();
    assert_eq!(header_and_rows(&jload_summary(&recorded.file_in(&dir))), header_and_rows(&recorded.summary_by_own_jdk));
}

/// The count of each event type in a summary's table.
fn summary_counts(summary: &str) -> BTreeMap<String, usize> {
    summary
        .lines()
        .skip(8)
        .map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            (words[0].to_owned(), words[1].parse().unwrap())
        })
        .collect()
}

/// An ISO-8601 instant of `jfr print` as nanoseconds since the Unix epoch.
fn epoch_nanos(text: &Value) -> Value {
    let time = chrono::DateTime::parse_from_rfc3339(text.as_str().unwrap()).unwrap();
    json!(time.timestamp_nanos_opt().unwrap())
}

/// An ISO-8601 duration of `jfr print` (`PT0.0456S`, `PT1M2.5S`, `PT0S`) as nanoseconds.
fn duration_nanos(text: &Value) -> Value {
    let Some(text) = text.as_str().and_then(|text| text.strip_prefix("PT")) else { return Value::Null };
    let (mut nanos, mut number) = (0i64, String::new());
    for symbol in text.chars() {
        let unit_nanos: i64 = match symbol {
            'H' => 3_600_000_000_000,
            'M' => 60_000_000_000,
            'S' => 1_000_000_000,
            _ => {
                number.push(symbol);
                continue;
            }
        };
        let (whole, fraction) = number.split_once('.').unwrap_or((&number, ""));
        let negative = whole.starts_with('-');
        let whole: i64 = whole.parse().unwrap();
        let fraction: i64 = if fraction.is_empty() { 0 } else { format!("{fraction:0<9}")[..9].parse().unwrap() };
        nanos += whole * unit_nanos + if negative { -fraction } else { fraction } * (unit_nanos / 1_000_000_000);
        number.clear();
    }
    json!(nanos)
}

fn printed_thread(thread: &Value) -> Value {
    if thread.is_null() {
        return Value::Null;
    }
    json!({"os_name": thread["osName"], "java_name": thread["javaName"], "os_thread_id": thread["osThreadId"],
           "java_thread_id": thread["javaThreadId"]})
}

fn printed_method(method: &Value) -> Value {
    if method.is_null() {
        return Value::Null;
    }
    json!({"class": method["type"]["name"], "name": method["name"], "descriptor": method["descriptor"]})
}

fn printed_stack(stack: &Value) -> Value {
    if stack.is_null() {
        return Value::Null;
    }
    let frames: Vec<Value> = stack["frames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|frame| {
            json!({"method": printed_method(&frame["method"]), "line": frame["lineNumber"],
                   "bci": frame["bytecodeIndex"], "type": frame["type"]})
        })
        .collect();
    json!({"truncated": stack["truncated"], "frames": frames})
}

fn printed_context(values: &Value) -> Value {
    json!({"start": epoch_nanos(&values["startTime"]),
           "duration": if values.get("duration").is_some() { duration_nanos(&values["duration"]) } else { json!(0) },
           "thread": printed_thread(&values["eventThread"]),
           "stack": printed_stack(&values["stackTrace"])})
}

/// The fields jload's typed layer reads of one event `jfr print --json` printed, in the shape of [`typed`].
fn printed(kind: &str, v: &Value) -> Value {
    let name_of = |value: &Value| value.get("name").cloned().unwrap_or(Value::Null);
    let fields = match kind {
        "jdk.ExecutionSample" => json!({"sampled": printed_thread(&v["sampledThread"]), "state": v["state"]}),
        "jdk.ObjectAllocationSample" => json!({"class": name_of(&v["objectClass"]), "weight": v["weight"]}),
        "jdk.JavaMonitorEnter" => {
            json!({"class": name_of(&v["monitorClass"]), "previous_owner": printed_thread(&v["previousOwner"])})
        }
        "jdk.ThreadPark" => json!({"class": name_of(&v["parkedClass"]), "timeout": duration_nanos(&v["timeout"])}),
        "jdk.SocketRead" | "jdk.SocketWrite" => json!({"host": v["host"], "address": v["address"], "port": v["port"],
            "bytes": if kind == "jdk.SocketRead" { &v["bytesRead"] } else { &v["bytesWritten"] }}),
        "jdk.FileRead" | "jdk.FileWrite" => json!({"path": v["path"],
            "bytes": if kind == "jdk.FileRead" { &v["bytesRead"] } else { &v["bytesWritten"] }}),
        "jdk.ExecuteVMOperation" => {
            json!({"operation": v["operation"], "safepoint": v["safepoint"], "safepoint_id": v["safepointId"]})
        }
        "jdk.SafepointBegin" => json!({"safepoint_id": v["safepointId"], "threads": v["totalThreadCount"],
            "jni_critical": v["jniCriticalThreadCount"]}),
        "jdk.GarbageCollection" => json!({"gc_id": v["gcId"], "name": v["name"], "cause": v["cause"],
            "sum_of_pauses": duration_nanos(&v["sumOfPauses"]), "longest_pause": duration_nanos(&v["longestPause"])}),
        "jdk.GCPhasePause" | "jdk.GCPhasePauseLevel1" => json!({"gc_id": v["gcId"], "name": v["name"]}),
        "jdk.Compilation" => json!({"compile_id": v["compileId"], "compiler": v["compiler"],
            "method": printed_method(&v["method"]), "level": v["compileLevel"], "succeeded": v["succeded"],
            "osr": v["isOsr"], "code_size": v["codeSize"], "inlined_bytes": v["inlinedBytes"]}),
        "jdk.Deoptimization" => json!({"compile_id": v["compileId"], "compiler": v["compiler"],
            "method": printed_method(&v["method"]), "line": v["lineNumber"], "bci": v["bci"],
            "instruction": v["instruction"], "reason": v["reason"], "action": v["action"]}),
        "jdk.ClassLoad" => json!({"class": name_of(&v["loadedClass"]),
            "defining_loader": name_of(&v["definingClassLoader"]),
            "initiating_loader": name_of(&v["initiatingClassLoader"])}),
        other => panic!("no comparison for {other}"),
    };
    json!({"type": kind, "context": printed_context(v), "fields": fields})
}

fn typed_thread(thread: &Option<std::sync::Arc<JavaThread>>) -> Value {
    match thread {
        None => Value::Null,
        Some(thread) => json!({"os_name": thread.os_name, "java_name": thread.java_name,
            "os_thread_id": thread.os_thread_id, "java_thread_id": thread.java_thread_id}),
    }
}

fn typed_method(method: &Option<JavaMethod>) -> Value {
    match method {
        None => Value::Null,
        Some(method) => json!({"class": method.class_name, "name": method.name, "descriptor": method.descriptor}),
    }
}

fn typed_stack(stack: &Option<std::sync::Arc<StackTrace>>) -> Value {
    let Some(stack) = stack else { return Value::Null };
    let frames: Vec<Value> = stack
        .frames
        .iter()
        .map(|frame| {
            json!({"method": {"class": frame.class_name, "name": frame.method_name, "descriptor": frame.descriptor},
                   "line": frame.line, "bci": frame.bytecode_index, "type": frame.frame_type})
        })
        .collect();
    json!({"truncated": stack.truncated, "frames": frames})
}

fn typed_context(context: &EventContext) -> Value {
    json!({"start": context.start_ns, "duration": context.duration_ns, "thread": typed_thread(&context.thread),
           "stack": typed_stack(&context.stack_trace)})
}

/// A typed event as its JFR type name and the fields compared.
fn typed(event: &JfrEvent) -> Value {
    use jload::jvm::jfr::events::IoDirection::{Read, Write};
    let (kind, fields) = match event {
        JfrEvent::ExecutionSample(e) => {
            ("jdk.ExecutionSample", json!({"sampled": typed_thread(&e.sampled_thread), "state": e.state}))
        }
        JfrEvent::ObjectAllocationSample(e) => {
            ("jdk.ObjectAllocationSample", json!({"class": e.object_class, "weight": e.weight}))
        }
        JfrEvent::MonitorEnter(e) => (
            "jdk.JavaMonitorEnter",
            json!({"class": e.monitor_class, "previous_owner": typed_thread(&e.previous_owner)}),
        ),
        JfrEvent::ThreadPark(e) => ("jdk.ThreadPark", json!({"class": e.parked_class, "timeout": e.timeout_ns})),
        JfrEvent::SocketIo(e) => (
            if e.direction == Read { "jdk.SocketRead" } else { "jdk.SocketWrite" },
            json!({"host": e.host, "address": e.address, "port": e.port, "bytes": e.bytes}),
        ),
        JfrEvent::FileIo(e) => (
            if e.direction == Write { "jdk.FileWrite" } else { "jdk.FileRead" },
            json!({"path": e.path, "bytes": e.bytes}),
        ),
        JfrEvent::VmOperation(e) => (
            "jdk.ExecuteVMOperation",
            json!({"operation": e.operation, "safepoint": e.safepoint, "safepoint_id": e.safepoint_id}),
        ),
        JfrEvent::SafepointBegin(e) => (
            "jdk.SafepointBegin",
            json!({"safepoint_id": e.safepoint_id, "threads": e.total_thread_count,
                   "jni_critical": e.jni_critical_thread_count}),
        ),
        JfrEvent::GarbageCollection(e) => (
            "jdk.GarbageCollection",
            json!({"gc_id": e.gc_id, "name": e.name, "cause": e.cause, "sum_of_pauses": e.sum_of_pauses_ns,
                   "longest_pause": e.longest_pause_ns}),
        ),
        JfrEvent::GcPhasePause(e) => (
            if e.level == 0 { "jdk.GCPhasePause" } else { "jdk.GCPhasePauseLevel1" },
            json!({"gc_id": e.gc_id, "name": e.name}),
        ),
        JfrEvent::Compilation(e) => (
            "jdk.Compilation",
            json!({"compile_id": e.compile_id, "compiler": e.compiler, "method": typed_method(&e.method),
                   "level": e.compile_level, "succeeded": e.succeeded, "osr": e.is_osr, "code_size": e.code_size,
                   "inlined_bytes": e.inlined_bytes}),
        ),
        JfrEvent::Deoptimization(e) => (
            "jdk.Deoptimization",
            json!({"compile_id": e.compile_id, "compiler": e.compiler, "method": typed_method(&e.method),
                   "line": e.line, "bci": e.bci, "instruction": e.instruction, "reason": e.reason,
                   "action": e.action}),
        ),
        JfrEvent::ClassLoad(e) => (
            "jdk.ClassLoad",
            json!({"class": e.loaded_class, "defining_loader": e.defining_class_loader,
                   "initiating_loader": e.initiating_class_loader}),
        ),
    };
    json!({"type": kind, "context": typed_context(event.context()), "fields": fields})
}

/// Events as sorted JSON texts: `jfr print` orders a chunk's events by time, the file by thread buffer.
fn sorted(events: impl Iterator<Item = Value>) -> Vec<String> {
    let mut texts: Vec<String> = events.map(|event| event.to_string()).collect();
    texts.sort();
    texts
}

fn assert_typed_events_equal_jfr_print(jdk: Jdk) {
    let _machine = machine::shared();
    let recorded = recorded(jdk);
    let dir = tempdir();
    let mut by_type: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    read_events(&recorded.file_in(&dir), |event| {
        let event = typed(&event);
        by_type.entry(event["type"].as_str().unwrap().to_owned()).or_default().push(event);
    })
    .unwrap();
    let counts = summary_counts(&recorded.summary_by_jdk25);
    for kind in TYPED_EVENTS {
        let read = by_type.remove(*kind).unwrap_or_default();
        assert_eq!(read.len(), counts.get(*kind).copied().unwrap_or(0), "{jdk:?}: how many {kind} events");
        let printed_events = recorded.printed.get(*kind).map_or(&[][..], Vec::as_slice);
        let expected = sorted(printed_events.iter().map(|values| printed(kind, values)));
        let actual = sorted(read.into_iter());
        assert_eq!(actual.len(), expected.len(), "{jdk:?}: {kind} events read and printed");
        for (index, (actual, expected)) in actual.iter().zip(&expected).enumerate() {
            assert_eq!(actual, expected, "{jdk:?}: {kind} event {index} of {} (sorted)", expected.len());
        }
    }
}

#[test]
fn typed_events_of_a_jdk_17_recording_equal_jfr_print_json_field_by_field() {
    assert_typed_events_equal_jfr_print(Jdk::Jdk17);
}

#[test]
fn typed_events_of_a_jdk_25_recording_equal_jfr_print_json_field_by_field() {
    assert_typed_events_equal_jfr_print(Jdk::Jdk25);
}

#[test]
fn the_workload_recording_has_events_of_every_kind_the_tests_compare() {
    let _machine = machine::shared();
    for jdk in [Jdk::Jdk17, Jdk::Jdk25] {
        let printed = &recorded(jdk).printed;
        for kind in ["jdk.ExecutionSample", "jdk.ObjectAllocationSample", "jdk.JavaMonitorEnter", "jdk.ThreadPark"]
            .iter()
            .chain(&["jdk.SocketRead", "jdk.SocketWrite", "jdk.FileRead", "jdk.FileWrite", "jdk.ClassLoad"])
            .chain(&["jdk.GarbageCollection", "jdk.GCPhasePause", "jdk.Compilation"])
        {
            assert!(printed.get(*kind).is_some_and(|events| !events.is_empty()), "{jdk:?}: no {kind} event");
        }
        let monitor_enters = &printed["jdk.JavaMonitorEnter"];
        assert!(
            monitor_enters.iter().any(|event| event["monitorClass"]["name"] == "JfrWorkload$ContendedLock"),
            "{jdk:?}: no wait for the contended lock"
        );
    }
}

/// Runs `jload jfr summary PATH` and returns its exit code and stderr.
fn summary_error(path: &Path) -> (Option<i32>, String) {
    let output = jload(&["jfr", "summary", path.to_str().unwrap()]).0;
    assert!(output.stdout.is_empty(), "{}", String::from_utf8_lossy(&output.stdout));
    (output.status.code(), String::from_utf8(output.stderr).unwrap())
}

fn assert_one_line(stderr: &str, names: &[&str]) {
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    for name in names {
        assert!(stderr.contains(name), "{stderr:?} does not say {name:?}");
    }
}

#[test]
fn a_missing_file_is_one_line_naming_it_and_exit_2() {
    let dir = tempdir();
    let missing = dir.join("missing.jfr");
    let (code, stderr) = summary_error(&missing);
    assert_eq!(code, Some(2));
    assert_one_line(&stderr, &["cannot read", &missing.display().to_string(), "No such file", "JFR recording"]);
}

#[test]
fn a_file_that_is_no_recording_is_one_line_saying_so_and_exit_2() {
    let dir = tempdir();
    let text = dir.join("gc.log");
    std::fs::write(&text, "[0.010s][info][gc] Using G1\n").unwrap();
    let (code, stderr) = summary_error(&text);
    assert_eq!(code, Some(2));
    assert_one_line(&stderr, &[&text.display().to_string(), "is not a JFR recording", "-XX:StartFlightRecording"]);
}

#[test]
fn a_truncated_recording_is_one_line_saying_where_it_was_cut_and_exit_2() {
    let _machine = machine::shared();
    let recorded = recorded(Jdk::Jdk25);
    let dir = tempdir();
    let cut = dir.join("cut.jfr");
    std::fs::write(&cut, &recorded.bytes[..recorded.bytes.len() / 2]).unwrap();
    let (code, stderr) = summary_error(&cut);
    assert_eq!(code, Some(2));
    assert_one_line(&stderr, &[&cut.display().to_string(), "is truncated", "chunk 1", "dump it again"]);
}
