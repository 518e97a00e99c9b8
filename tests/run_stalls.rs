//! `jload run` on a collector whose latency is in stalls, not pauses: kv-service on ZGC in a 40 MB heap under a
//! write load. The phase's JVM record carries the allocation stalls inside its window (counted here from gc.log, not
//! with jload's parser), and the report shows them beside the pauses and counts them as GC in "is it the GC?".

use crate::common;

use std::path::Path;

use common::kv_plan::kv_plan;
use common::machine;
use common::{jload, tempdir};

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap_or_else(|err| panic!("{}: {err}", path.display())))
        .unwrap()
}

/// `(start, ms)` of every `Allocation Stall (thread) d ms` line: start = the line's uptime − d.
fn stalls_in(gc_log: &Path) -> Vec<(f64, f64)> {
    std::fs::read_to_string(gc_log)
        .unwrap()
        .lines()
        .filter(|line| line.contains("] Allocation Stall ("))
        .map(|line| {
            // [2026-…+0000][1.234s][info][gc] Allocation Stall (thread) 5.280ms
            let uptime: f64 = line.split("][").nth(1).unwrap().trim_end_matches('s').parse().unwrap();
            let ms: f64 = line.rsplit(' ').next().unwrap().trim_end_matches("ms").parse().unwrap();
            (uptime - ms / 1000.0, ms)
        })
        .collect()
}

#[test]
fn zgc_allocation_stalls_reach_the_phase_record_and_the_report() {
    // ZGC stalls only while the writes come fast enough: with a second load beside it, they may not come at all.
    let _machine = machine::alone();
    let dir = tempdir();
    let plan = kv_plan("stalls")
        .jvm(&["-XX:+UseZGC", "-Xmx40m", "-Dkv.maxMemory=10m"])
        .body(
            "[[phase]]\nname = \"set\"\nurl = \"http://127.0.0.1:{port}/random_set?keyRange=20000&valueSize=4000\"\n\
             connections = 16\nduration = \"3s\"\n",
        )
        .run("repeats = 1\n")
        .write(&dir);
    let out = dir.join("results");
    let (output, _) = jload(&["run", plan.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let rep = out.join("cells/default/rep-1");
    // The store keeps 10 MB (a quarter of the heap): ZGC stalls under the write rate without running out of heap.
    assert_eq!(json(&rep.join("meta.json"))["status"], "ok", "the JVM must survive the phase");
    let jvm = &json(&rep.join("set.json"))["jvm"];
    let (from, to) = (jvm["uptime_start_s"].as_f64().unwrap(), jvm["uptime_end_s"].as_f64().unwrap());
    // A stall belongs to the phase when it overlaps the phase's window; its time counts only inside the window. The
    // log's uptimes have a millisecond's resolution (jload reads each stall's start more precisely), so a stall within
    // a millisecond of an edge may fall either way: the count is bounded by the window narrowed and widened by 1 ms.
    let all = stalls_in(&rep.join("gc.log"));
    let overlapping = |from: f64, to: f64| -> Vec<(f64, f64)> {
        all.iter().copied().filter(|(start, ms)| *start < to && start + ms / 1000.0 > from).collect()
    };
    let inside = overlapping(from, to);
    let (surely, at_most) = (overlapping(from + 0.001, to - 0.001).len(), overlapping(from - 0.001, to + 0.001).len());
    assert!(!inside.is_empty(), "ZGC stalls in 40 MB under this load");
    let pauses = &jvm["pauses"];
    let count = pauses["stall_count"].as_u64().unwrap() as usize;
    assert!((surely..=at_most).contains(&count), "{count} stalls, {surely}..={at_most} in the log: {inside:?}");
    assert_eq!(pauses["stalls"].as_array().unwrap().len(), count);
    let clipped_ms = |(start, ms): &(f64, f64)| ((start + ms / 1000.0).min(to) - start.max(from)).max(0.0) * 1000.0;
    let total_ms: f64 = inside.iter().map(clipped_ms).sum();
    let shown_total_ms = pauses["stall_total_ms"].as_f64().unwrap();
    let edge_ms = 2.0 * (at_most - surely + 2) as f64;
    assert!((shown_total_ms - total_ms).abs() <= edge_ms, "{shown_total_ms} vs {total_ms}: {inside:?}");
    let max_ms = inside.iter().map(|(_, ms)| *ms).fold(0.0, f64::max);
    if count == inside.len() {
        assert_eq!(pauses["stall_max_ms"].as_f64().unwrap(), max_ms);
    }

    let markdown = std::fs::read_to_string(out.join("report.md")).unwrap();
    // Threads stall in parallel: the share of the phase some thread was stalled counts each moment once (the
    // stalls' union, clipped to the phase), and how many were stalled is thread-seconds per second.
    // The log's uptimes have a millisecond's resolution (jload reads each stall's start more precisely), so each
    // stall's place here may be off by a millisecond: the union by as many.
    let stall_pct = union_s(&inside, from, to) / (to - from) * 100.0;
    let resolution_pct = inside.len() as f64 * 0.001 / (to - from) * 100.0;
    let shown = row_value(&markdown, "GC stall %");
    assert!((shown - stall_pct).abs() <= resolution_pct + 0.005, "{shown} vs {stall_pct}: {inside:?} {jvm}");
    assert!(shown <= 100.0, "a share of the phase: {shown}");
    let threads = shown_total_ms / 1000.0 / (to - from);
    assert!(markdown.contains(&format!("\n|GC-stalled threads (mean)|{threads:.2}|\n")), "{markdown}");
    // The GC share counts the stalls with the pauses, as "is it the GC?" does, and its parts are shown beside it,
    // saying why.
    let share = row_value(&markdown, "GC share %");
    assert!(share >= shown && share <= 100.0, "GC share {share}, stalls {shown}");
    assert!(markdown.contains("threads stalled in "), "{markdown}");
    let gc_share = &json(&out.join("report.json"))["phases"][0]["gc_share"];
    assert_eq!(gc_share["figure"], "gc_wait_pct");
    assert_eq!(gc_share["beside"][0]["figures"][1], "stall_pct", "{gc_share}");
    // "Is it the GC?" lays the tail over the stalls, counted as GC.
    assert!(markdown.contains("\n## Is it the GC?\n"), "{markdown}");
    let attribution = &json(&out.join("report.json"))["phases"][0]["cells"][0]["gc_attribution"];
    assert_eq!(attribution["status"], "found", "{attribution}");
    assert!(attribution["stops"]["gc_stalls"].as_u64().unwrap() > 0, "{attribution}");
    assert!(markdown.contains("ZGC (generational)") || markdown.contains("ZGC: jstat's CGC/CGCT count"));
}

/// Seconds of `from..to` covered by at least one of `stalls` (`(start s, ms)`), computed here from the log's lines.
fn union_s(stalls: &[(f64, f64)], from: f64, to: f64) -> f64 {
    let mut spans: Vec<(f64, f64)> =
        stalls.iter().map(|(start, ms)| (start.max(from), (start + ms / 1000.0).min(to))).collect();
    spans.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (mut covered, mut reach) = (0.0, from);
    for (start, end) in spans {
        if end > reach {
            covered += end - start.max(reach);
            reach = end;
        }
    }
    covered
}

/// The number in report.md's row `label` (one cell).
fn row_value(markdown: &str, label: &str) -> f64 {
    let start = markdown.find(&format!("\n|{label}|")).unwrap_or_else(|| panic!("no row {label}: {markdown}"));
    let cell = markdown[start + label.len() + 3..].split('|').next().unwrap();
    cell.parse().unwrap_or_else(|_| panic!("row {label}: {cell}"))
}
