//! The parser on GC logs written by other people (tests/fixtures/gclog/third-party, sources in its README) and on
//! the stall fixtures captured here (zgc-jdk17-stalls.log, zgc-jdk25-stalls.log).
//!
//! Expected figures were counted with grep and awk, not with this parser:
//!   pauses:      grep -E 'GC\([0-9]+\) Pause .*ms$' FILE | sed -E 's/.*GC\(([0-9]+)\) Pause ([A-Za-z ]+)( \(.*)? .* ([0-9.]+)ms$/\1 \2 \4/'
//!                (a `Pause Full` line directly before a `Pause Young` line of a lower GC id is the nested one)
//!   old safepoints: grep -c 'Total time for which' FILE; total: grep -o 'stopped: [0-9.]* seconds' | awk '{t+=$2}'
//!   stalls:      grep -o 'Allocation Stall (.*) [0-9.]*ms$' FILE | sed 's/.* \([0-9.]*\)ms$/\1/' | awk '{t+=$1; if($1>m)m=$1}'

use std::path::{Path, PathBuf};

use super::model::{PauseKind, StallKind};
use super::{GcLog, parse_file, parse_str};

fn path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/gclog").join(name)
}

fn third_party(name: &str) -> GcLog {
    parse_file(&path(&format!("third-party/{name}")), false).unwrap()
}

fn text(name: &str) -> String {
    std::fs::read_to_string(path(name)).unwrap()
}

fn assert_close(actual: f64, expected: f64, what: &str) {
    assert!((actual - expected).abs() < 1e-9, "{what}: {actual} != {expected}");
}

#[test]
fn a_young_pause_that_escalated_to_full_is_counted_once() {
    // GCViewer's Serial log (JDK 9–11 format): GC(3) Pause Full 6.987 ms is logged inside GC(2) Pause Young 7.118 ms.
    let serial = third_party("gcviewer-serial-jdk9-11-escalation.log");
    let summary = serial.summary(None);
    assert_eq!((summary.pauses.count, summary.nested_pauses), (3, 1));
    assert_close(summary.pauses.total_ms, 9.814 + 10.926 + 7.118, "serial total");
    let full = serial.pauses.iter().find(|pause| pause.kind == PauseKind::Full).unwrap();
    assert_eq!((full.gc_id, full.within_gc_id), (Some(3), Some(2)));
    // The cross-check: the safepoint lines (4 stops, 28.3535 ms) say how long the JVM really stood still. Counted
    // twice, the pauses would make 34.845 ms, more than that.
    assert_eq!(summary.safepoints.stops.count, 4);
    assert_close(summary.safepoints.stops.total_ms, 28.3535, "serial safepoints");
    assert!(summary.pauses.total_ms <= summary.safepoints.stops.total_ms);

    // GCViewer's CMS log: two escalations (GC(5) in GC(4), GC(10) in GC(9)).
    let cms = third_party("gcviewer-cms-jdk9-11-escalation.log").summary(None);
    assert_eq!((cms.pauses.count, cms.nested_pauses), (10, 2));
    let expected = 9.618 + 5.628 + 10.578 + 0.165 + 0.908 + 9.590 + 2.050 + 8.529 + 0.150 + 15.238;
    assert_close(cms.pauses.total_ms, (expected * 1e6_f64).round() / 1e6, "cms total");
    assert_close(cms.safepoints.stops.total_ms, 64.0161, "cms safepoints");
    assert!(cms.pauses.total_ms <= cms.safepoints.stops.total_ms);
    assert!(cms.by_kind.iter().all(|kind| kind.kind != PauseKind::Full));
}

#[test]
fn a_cms_scavenge_inside_its_remark_is_counted_once() {
    // JDK 9–13 CMS with -XX:+CMSScavengeBeforeRemark runs a young collection at the start of the remark pause and
    // logs it first (no JDK with CMS is installed here; the lines follow that JDK's format).
    let text = "[0.020s][info][gc] Using Concurrent Mark Sweep\n\
                [4.100s][info][gc] GC(1) Pause Young (Allocation Failure) 41M->38M(150M) 8.822ms\n\
                [5.000s][info][gc] GC(2) Pause Initial Mark 61M->61M(150M) 0.136ms\n\
                [5.130s][info][gc] GC(3) Pause Young (CMS Final Remark) 120M->30M(150M) 6.100ms\n\
                [5.140s][info][gc] GC(2) Pause Remark 30M->30M(150M) 17.000ms\n\
                [5.141s][info][gc] GC(4) Pause Young (Allocation Failure) 90M->31M(150M) 0.400ms\n";
    let log = parse_str(text);
    let scavenge = log.pauses.iter().find(|pause| pause.gc_id == Some(3)).unwrap();
    assert_eq!(scavenge.within_gc_id, Some(2));
    let summary = log.summary(None);
    assert_eq!((summary.pauses.count, summary.nested_pauses), (4, 1));
    assert_close(summary.pauses.total_ms, 8.822 + 0.136 + 17.0 + 0.4, "the remark holds the scavenge's time");
}

#[test]
fn a_short_pause_logged_in_the_same_millisecond_as_another_is_not_nested() {
    // G1 (a real JDK 25 log): GC(15) Pause Young 0.674 ms and GC(10) Pause Cleanup 0.013 ms are both logged at
    // 200 ms; at the log's resolution the young pause seems to lie inside the cleanup, but G1 never nests pauses.
    let log = parse_file(&path("g1-jdk25-uptimemillis.log"), false).unwrap();
    assert!(log.pauses.iter().all(|pause| pause.within_gc_id.is_none()));
}

#[test]
fn jdk17_young_then_full_in_one_safepoint_stays_two_pauses() {
    // On JDK 17 the young pause is logged first and the full one follows it: no nesting (16 young + 5 full).
    let summary = parse_file(&path("serial-jdk17.log"), false).unwrap().summary(None);
    assert_eq!((summary.pauses.count, summary.nested_pauses), (21, 0));
}

#[test]
fn jdk10_g1_initial_mark_and_mixed_kinds() {
    let log = third_party("gcviewer-g1-jdk10-initial-mark-mixed.log");
    let kinds: Vec<(PauseKind, Option<&str>, Option<&str>)> =
        log.pauses.iter().map(|pause| (pause.kind, pause.cause.as_deref(), pause.detail.as_deref())).collect();
    assert_eq!(kinds[1], (PauseKind::Young, Some("G1 Evacuation Pause"), Some("Initial Mark")));
    assert_eq!(kinds[9], (PauseKind::Mixed, Some("G1 Evacuation Pause"), None));
    assert!(log.pauses.iter().all(|pause| pause.kind != PauseKind::Other));
    // CMS's own initial mark has no cause and is the init_mark kind.
    let cms = third_party("gcviewer-cms-jdk9-11-escalation.log");
    assert_eq!(cms.pauses.iter().filter(|pause| pause.kind == PauseKind::InitMark).count(), 2);
}

#[test]
fn jdk9_to_12_safepoint_lines_are_read() {
    let log = third_party("gcviewer-cms-jdk9-11-escalation.log");
    assert_eq!(log.safepoints.len(), 11);
    let first = &log.safepoints[0];
    assert_close(first.total_ms, 0.0572, "total");
    assert_close(first.reaching_ms, 0.0151, "reaching");
    // Shenandoah on JDK 11 names the operation on an `Entering safepoint region:` line before.
    let shenandoah = third_party("gcviewer-shenandoah-jdk11-degenerated.log");
    assert_eq!(shenandoah.safepoints.len(), 1);
    assert_eq!(shenandoah.safepoints[0].operation, "ShenandoahDegeneratedGC");
}

#[test]
fn zgc_allocation_stalls_are_counted_apart_from_pauses() {
    for (name, count, total_ms, max_ms) in [
        ("zgc-jdk17-stalls.log", 10, 32.566, 9.117),
        ("zgc-jdk25-stalls.log", 10, 13.667, 4.013),
        ("third-party/gcviewer-zgc-allocation-stalls.log", 7, 85.245, 29.092),
    ] {
        let log = parse_file(&path(name), false).unwrap();
        let stalls = log.summary(None).stalls;
        assert_eq!(stalls.stalls.count, count, "{name}");
        assert_close(stalls.stalls.total_ms, total_ms, name);
        assert_eq!(stalls.stalls.max_ms, Some(max_ms), "{name}");
        assert_eq!(stalls.by_kind.len(), 1);
        assert_eq!(stalls.by_kind[0].kind, StallKind::AllocationStall);
        assert!(log.stalls.iter().all(|stall| stall.thread.is_some() && stall.start_s.is_some()));
    }
    let named = third_party("gcviewer-zgc-allocation-stalls.log");
    assert_eq!(named.stalls[1].thread.as_deref(), Some("Group1.Backend.CompositeBackend{Tier1}.10"));
}

#[test]
fn stalls_in_a_window() {
    // zgc-jdk17-stalls.log: stalls whose start (line uptime − duration) lies in 0.2..=0.3 s, counted with
    // grep 'Allocation Stall' | awk on the uptime and duration fields.
    let log = parse_file(&path("zgc-jdk17-stalls.log"), false).unwrap();
    let expected: Vec<f64> = text("zgc-jdk17-stalls.log")
        .lines()
        .filter(|line| line.contains("Allocation Stall ("))
        .filter_map(|line| {
            let uptime: f64 = line.split("][").nth(1)?.trim_end_matches('s').parse().ok()?;
            let ms: f64 = line.rsplit(' ').next()?.trim_end_matches("ms").parse().ok()?;
            let start = uptime - ms / 1e3;
            (0.2..=0.3).contains(&start).then_some(ms)
        })
        .collect();
    let window = log.summary(Some((0.2, 0.3))).stalls.stalls;
    assert_eq!(window.count, expected.len());
    assert!(window.count > 0 && window.count < 10);
}

#[test]
fn shenandoah_allocation_failure_and_pacing() {
    // `Cancelling GC: Allocation Failure` at 8.784 s; the degenerated pause (11.373 ms) ends at 8.804 s.
    let log = third_party("gcviewer-shenandoah-jdk11-degenerated.log");
    assert_eq!(log.stalls.len(), 1);
    let stall = &log.stalls[0];
    assert_eq!((stall.kind, stall.start_s), (StallKind::AllocationFailure, Some(8.784)));
    assert_close(stall.duration_ms, ((8.804 - 0.011373 - 8.784) * 1e3 * 1e6_f64).round() / 1e6, "wait");
    let summary = log.summary(None);
    assert_eq!(summary.pauses.count, 1);
    // Pacing from the exit statistics: `0 of  1954 ms (  0.0%): <total>`.
    let pacing = third_party("gcviewer-shenandoah-jdk17-pacing.log");
    assert_eq!(pacing.pacing_total_ms, Some(0.0));
    assert_eq!(pacing.summary(None).stalls.pacing_total_ms, Some(0.0));
    assert_eq!(pacing.summary(Some((0.0, 10.0))).stalls.pacing_total_ms, None);
}

#[test]
fn decorations_that_end_like_time_units_keep_their_lines() {
    // The real serial log with a host name `build-farms` after the uptime of every line: the same 21 pauses.
    let with_host = text("serial-jdk17.log").replace("s][info]", "s][build-farms][info]");
    let log = parse_str(&with_host);
    assert_eq!((log.pauses.len(), log.unparsed_lines), (21, 0));
    let tagged = parse_str("[0.120s][info][exceptions] Exception <a 'java/lang/Error'> thrown\n");
    assert_eq!(tagged.unparsed_lines, 0);
}

#[test]
fn two_runs_in_one_file_are_split() {
    let both = text("g1-jdk17.log") + &text("serial-jdk17.log");
    let g1_lines = text("g1-jdk17.log").lines().count() as u64;
    let last = parse_str(&both);
    assert_eq!(last.runs.len(), 2);
    assert_eq!((last.run, last.runs[1].line), (2, g1_lines + 1));
    assert_eq!(last.pauses.len(), 21, "the serial run's pauses alone");
    assert_eq!(last.collector.as_deref(), Some("Serial"));
    let mut first = super::assemble::Assembler::for_run(Some(1));
    first.add_text(None, &both);
    let first = first.finish();
    assert_eq!((first.run, first.pauses.len(), first.collector.as_deref()), (1, 26, Some("G1")));
}

#[test]
fn a_log_without_pauses_totals_zero_not_minus_zero() {
    let empty = parse_str("[0.005s][info][gc] Using G1\n[0.100s][info][gc] nothing\n").summary(None);
    assert!(empty.pauses.total_ms.is_sign_positive());
    assert_eq!(serde_json::to_string(&empty.pauses.total_ms).unwrap(), "0.0");
    assert_eq!(serde_json::to_string(&empty.stalls.stalls.total_ms).unwrap(), "0.0");
}

#[test]
fn a_utf8_byte_order_mark_does_not_hide_the_first_line() {
    let with_bom = format!("\u{feff}{}", text("serial-jdk17.log"));
    let log = parse_str(&with_bom);
    assert_eq!((log.collector.as_deref(), log.unparsed_lines), (Some("Serial"), 0));
}

#[test]
fn a_fragment_that_starts_inside_a_pause_has_no_negative_throughput() {
    // The first line ends an 800 ms pause that started at 4.2 s: the covered time starts there, so GC throughput
    // is 100 × (1 − 0.81 s / 0.9 s) = 10 %, not negative.
    let fragment = "[5.000s][info][gc] GC(7) Pause Full (Allocation Failure) 60M->20M(64M) 800.000ms\n\
                    [5.100s][info][gc] GC(8) Pause Young (Allocation Failure) 30M->25M(64M) 10.000ms\n";
    let summary = parse_str(fragment).summary(None);
    assert_eq!(summary.wall_s, Some(0.9));
    assert_close(summary.gc_throughput_pct.unwrap(), 10.0, "throughput");
}

#[test]
fn unrounded_sums_are_tidied() {
    // 0.1 + 0.2 is 0.30000000000000004 in binary floating point.
    let log = parse_str(
        "[1.000s][info][gc] GC(0) Pause Young (Allocation Failure) 3M->1M(8M) 0.100ms\n\
         [2.000s][info][gc] GC(1) Pause Young (Allocation Failure) 3M->1M(8M) 0.200ms\n",
    );
    assert_eq!(serde_json::to_string(&log.summary(None).pauses.total_ms).unwrap(), "0.3");
}
