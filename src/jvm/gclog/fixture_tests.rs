//! The parser on the real GC logs in tests/fixtures/gclog (written by tests/fixtures/gclog/capture.sh with every
//! collector on JDK 17 and Temurin 25), and on the hand-made edge cases beside them.
//!
//! The expected figures were counted from the files with grep, sed and awk, not with this parser:
//!   pauses per kind:  grep -E 'GC\([0-9]+\) ([yYO]: )?Pause .*[0-9]ms$' FILE | sed … | awk '{count[kind]++}'
//!   pause total/max:  the same lines, last field without `ms` (`tr , .` for decimal commas) summed / maxed in awk
//!   mixed:            grep -cE 'Pause Young \(Mixed\).*ms$' FILE
//!   safepoints:       grep -c 'Safepoint "' FILE; total: sed 's/.*Total: \([0-9]*\) ns.*/\1/' | awk '{t+=$1}'
//! After re-running capture.sh these numbers must be counted again.

use std::path::{Path, PathBuf};

use super::model::{Generation, PauseKind};
use super::{GcLog, TimeBase, parse_file, parse_path};

fn fixture_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/gclog").join(name)
}

/// One file, without rotated siblings.
fn fixture(name: &str) -> GcLog {
    parse_file(&fixture_path(name), false).unwrap()
}

fn count(log: &GcLog, kind: PauseKind) -> usize {
    log.pauses.iter().filter(|pause| pause.kind == kind).count()
}

fn assert_close(actual: f64, expected: f64, what: &str) {
    assert!((actual - expected).abs() < 1e-6, "{what}: {actual} != {expected}");
}

/// What grep and awk found in one fixture.
struct Expected {
    file: &'static str,
    kinds: &'static [(PauseKind, usize)],
    total_ms: f64,
    max_ms: f64,
    safepoints: usize,
    safepoint_total_ms: f64,
}

const EXPECTED: &[Expected] = &[
    Expected {
        file: "serial-jdk17.log",
        kinds: &[(PauseKind::Young, 16), (PauseKind::Full, 5)],
        total_ms: 36.933,
        max_ms: 6.870,
        safepoints: 17,
        safepoint_total_ms: 37.641962,
    },
    Expected {
        file: "serial-jdk25.log",
        kinds: &[(PauseKind::Young, 12), (PauseKind::Full, 5)],
        total_ms: 51.174,
        max_ms: 8.242,
        safepoints: 17,
        safepoint_total_ms: 51.944722,
    },
    Expected {
        file: "parallel-jdk17.log",
        kinds: &[(PauseKind::Young, 29), (PauseKind::Full, 2)],
        total_ms: 55.582,
        max_ms: 7.875,
        safepoints: 30,
        safepoint_total_ms: 58.733747,
    },
    Expected {
        file: "parallel-jdk25.log",
        kinds: &[(PauseKind::Young, 17), (PauseKind::Full, 6)],
        total_ms: 55.109,
        max_ms: 5.237,
        safepoints: 23,
        safepoint_total_ms: 57.050349,
    },
    Expected {
        file: "g1-jdk17.log",
        kinds: &[
            (PauseKind::Young, 16),
            (PauseKind::Mixed, 3),
            (PauseKind::Remark, 3),
            (PauseKind::Cleanup, 3),
            (PauseKind::Full, 1),
        ],
        total_ms: 31.267,
        max_ms: 5.535,
        safepoints: 26,
        safepoint_total_ms: 32.845456,
    },
    Expected {
        file: "g1-jdk25.log",
        kinds: &[
            (PauseKind::Young, 16),
            (PauseKind::Mixed, 1),
            (PauseKind::Remark, 1),
            (PauseKind::Cleanup, 1),
            (PauseKind::Full, 1),
        ],
        total_ms: 35.299,
        max_ms: 7.701,
        safepoints: 20,
        safepoint_total_ms: 37.546459,
    },
    Expected {
        file: "zgc-jdk17.log",
        kinds: &[(PauseKind::MarkStart, 3), (PauseKind::MarkEnd, 3), (PauseKind::RelocateStart, 3)],
        total_ms: 0.106,
        max_ms: 0.020,
        safepoints: 9,
        safepoint_total_ms: 1.067571,
    },
    Expected {
        file: "zgc-jdk25.log",
        kinds: &[(PauseKind::MarkStart, 8), (PauseKind::MarkEnd, 12), (PauseKind::RelocateStart, 12)],
        total_ms: 0.421,
        max_ms: 0.026,
        safepoints: 33,
        safepoint_total_ms: 3.610833,
    },
    Expected {
        file: "shenandoah-jdk17.log",
        kinds: &[
            (PauseKind::InitMark, 6),
            (PauseKind::FinalMark, 6),
            (PauseKind::InitUpdateRefs, 4),
            (PauseKind::FinalUpdateRefs, 4),
            (PauseKind::FinalRoots, 1),
            (PauseKind::Degenerated, 3),
            (PauseKind::Full, 1),
        ],
        total_ms: 21.224,
        max_ms: 9.154,
        safepoints: 25,
        safepoint_total_ms: 21.806666,
    },
    Expected {
        file: "shenandoah-jdk25.log",
        kinds: &[
            (PauseKind::InitMark, 9),
            (PauseKind::FinalMark, 8),
            (PauseKind::InitUpdateRefs, 7),
            (PauseKind::FinalUpdateRefs, 6),
            (PauseKind::Degenerated, 1),
            (PauseKind::Full, 1),
        ],
        total_ms: 29.175,
        max_ms: 16.323,
        safepoints: 33,
        safepoint_total_ms: 32.143857,
    },
    Expected {
        file: "g1-jdk17-plain-stdout.log",
        kinds: &[
            (PauseKind::Young, 16),
            (PauseKind::Mixed, 3),
            (PauseKind::Remark, 4),
            (PauseKind::Cleanup, 4),
            (PauseKind::Full, 1),
        ],
        total_ms: 36.759,
        max_ms: 8.052,
        safepoints: 0,
        safepoint_total_ms: 0.0,
    },
    Expected {
        file: "serial-jdk25-undecorated.log",
        kinds: &[(PauseKind::Young, 12), (PauseKind::Full, 5)],
        total_ms: 48.321,
        max_ms: 8.211,
        safepoints: 17,
        safepoint_total_ms: 49.033077,
    },
    Expected {
        file: "parallel-jdk17-all-decorators.log",
        kinds: &[(PauseKind::Young, 31), (PauseKind::Full, 2)],
        total_ms: 47.239,
        max_ms: 6.005,
        safepoints: 0,
        safepoint_total_ms: 0.0,
    },
    Expected {
        file: "g1-jdk25-uptimemillis.log",
        kinds: &[(PauseKind::Young, 15), (PauseKind::Remark, 1), (PauseKind::Cleanup, 1), (PauseKind::Full, 1)],
        total_ms: 41.050,
        max_ms: 10.867,
        safepoints: 18,
        safepoint_total_ms: 42.871010,
    },
    Expected {
        file: "serial-jdk17-decimal-comma.log",
        kinds: &[(PauseKind::Young, 16), (PauseKind::Full, 5)],
        total_ms: 33.582,
        max_ms: 7.406,
        safepoints: 17,
        safepoint_total_ms: 34.254554,
    },
];

#[test]
fn every_real_log_gives_the_counted_pauses_and_safepoints() {
    for expected in EXPECTED {
        let log = fixture(expected.file);
        let file = expected.file;
        assert_eq!(log.unparsed_lines, 0, "{file}: {:?}", log.unparsed_samples);
        for &(kind, n) in expected.kinds {
            assert_eq!(count(&log, kind), n, "{file}: {}", kind.as_str());
        }
        let counted: usize = expected.kinds.iter().map(|(_, n)| n).sum();
        assert_eq!(log.pauses.len(), counted, "{file}: pauses of kinds not expected");
        let summary = log.summary(None);
        assert_eq!(summary.pauses.count, counted, "{file}");
        assert_close(summary.pauses.total_ms, expected.total_ms, &format!("{file}: pause total"));
        assert_close(summary.pauses.max_ms.unwrap(), expected.max_ms, &format!("{file}: longest pause"));
        assert_eq!(log.safepoints.len(), expected.safepoints, "{file}: safepoints");
        assert_close(
            summary.safepoints.stops.total_ms,
            expected.safepoint_total_ms,
            &format!("{file}: safepoint total"),
        );
    }
}

#[test]
fn collectors_are_named() {
    let cases = [
        ("serial-jdk17.log", "Serial"),
        ("parallel-jdk25.log", "Parallel"),
        ("g1-jdk25.log", "G1"),
        ("zgc-jdk17.log", "The Z Garbage Collector"),
        ("shenandoah-jdk25.log", "Shenandoah"),
    ];
    for (file, collector) in cases {
        assert_eq!(fixture(file).collector.as_deref(), Some(collector), "{file}");
    }
}

/// G1's Pause Remark and Pause Cleanup carry the GC id of their concurrent cycle, not one of their own: they are
/// two more pauses, not duplicates of the cycle.
#[test]
fn g1_remark_and_cleanup_share_their_cycle_id_and_all_count() {
    let log = fixture("g1-jdk17.log");
    let cycles: Vec<_> = log.concurrent.iter().filter(|cycle| cycle.name == "Concurrent Mark Cycle").collect();
    assert_eq!(cycles.len(), 3, "grep -c 'Concurrent Mark Cycle [0-9.]*ms$'");
    for cycle in cycles {
        let kinds: Vec<PauseKind> =
            log.pauses.iter().filter(|pause| pause.gc_id == cycle.gc_id).map(|pause| pause.kind).collect();
        assert_eq!(kinds, [PauseKind::Remark, PauseKind::Cleanup], "cycle {:?}", cycle.gc_id);
        assert!(cycle.duration_ms.unwrap() > 0.0);
    }
    // GC(6) Concurrent Mark Cycle 4.115ms in the log.
    assert_eq!(log.concurrent.iter().find(|cycle| cycle.gc_id == Some(6)).unwrap().duration_ms, Some(4.115));
}

/// Generational ZGC's System.gc() major collection GC(3) runs the young pauses twice (Promote All, then Collect
/// Roots) and the old ones once, all under GC(3): `grep 'GC(3) .*Pause' zgc-jdk25.log` shows 8 lines.
#[test]
fn zgc_major_collection_keeps_every_pause_of_one_gc_id() {
    let log = fixture("zgc-jdk25.log");
    let gc3: Vec<_> = log.pauses.iter().filter(|pause| pause.gc_id == Some(3)).collect();
    let kinds: Vec<(PauseKind, Option<Generation>)> = gc3.iter().map(|pause| (pause.kind, pause.generation)).collect();
    let young = Some(Generation::Young);
    let old = Some(Generation::Old);
    assert_eq!(
        kinds,
        [
            (PauseKind::MarkStart, young),
            (PauseKind::MarkEnd, young),
            (PauseKind::RelocateStart, young),
            (PauseKind::MarkStart, young),
            (PauseKind::MarkEnd, young),
            (PauseKind::RelocateStart, young),
            (PauseKind::MarkEnd, old),
            (PauseKind::RelocateStart, old),
        ]
    );
    assert!(gc3.iter().all(|pause| pause.cause.as_deref() == Some("System.gc()")));
    assert_eq!(gc3[3].detail.as_deref(), Some("Major"));
    assert_close(gc3.iter().map(|pause| pause.duration_ms).sum(), 0.106, "GC(3) pause total");
    // 7 Minor/Major Collection end lines, the last one `Aborted` at exit.
    assert_eq!(log.concurrent.len(), 7);
    let aborted: Vec<_> = log.concurrent.iter().filter(|cycle| cycle.aborted).collect();
    assert_eq!(aborted.len(), 1);
    assert_eq!(aborted[0].gc_id, Some(6));
    let gc3_cycle = log.concurrent.iter().find(|cycle| cycle.gc_id == Some(3)).unwrap();
    assert_eq!(
        (gc3_cycle.duration_ms, gc3_cycle.before_mb, gc3_cycle.after_mb),
        (Some(56.0), Some(662.0), Some(236.0))
    );
}

/// ZGC on JDK 17 prints no duration on its collection line: it comes from the `[gc,start]` line's time.
#[test]
fn zgc_jdk17_cycles_are_timed_from_their_start_line() {
    let log = fixture("zgc-jdk17.log");
    assert_eq!(log.concurrent.len(), 3);
    for cycle in &log.concurrent {
        assert_eq!(cycle.name, "Garbage Collection");
        assert!(cycle.duration_ms.unwrap() > 0.0 && cycle.start_s.is_some(), "{cycle:?}");
        assert!(cycle.before_mb.is_some() && cycle.after_mb.is_some());
    }
}

/// A young collection that cannot promote: a very short Pause Young that frees nothing, then a Pause Full with the
/// next GC id, both inside one safepoint. Both are pauses. serial-jdk17.log lines:
///   GC(13) Pause Young (Allocation Failure) 53M->53M(61M) 0.046ms
///   GC(14) Pause Full (Allocation Failure) 53M->31M(61M) 3.683ms
#[test]
fn a_young_collection_that_cannot_promote_is_followed_by_a_full_one() {
    let log = fixture("serial-jdk17.log");
    let at = log.pauses.iter().position(|pause| pause.gc_id == Some(13)).unwrap();
    let (young, full) = (&log.pauses[at], &log.pauses[at + 1]);
    assert_eq!(
        (young.kind, young.duration_ms, young.before_mb, young.after_mb),
        (PauseKind::Young, 0.046, Some(53.0), Some(53.0))
    );
    assert_eq!(
        (full.kind, full.gc_id, full.duration_ms, full.after_mb),
        (PauseKind::Full, Some(14), 3.683, Some(31.0))
    );
    // Four such pairs (GC 13/14, 15/16, 17/18, 19/20): 21 pauses in 17 safepoints.
    assert_eq!((log.pauses.len(), log.safepoints.len()), (21, 17));
    let parallel = fixture("parallel-jdk25.log");
    let at = parallel.pauses.iter().position(|pause| pause.gc_id == Some(14)).unwrap();
    assert_eq!((parallel.pauses[at].kind, parallel.pauses[at + 1].kind), (PauseKind::Young, PauseKind::Full));
    assert_eq!(parallel.pauses[at + 1].gc_id, Some(15));
}

/// Shenandoah's pauses are its [gc] lines; their cause is the heuristics' trigger logged before the cycle.
#[test]
fn shenandoah_pauses_take_the_trigger_as_cause() {
    let log = fixture("shenandoah-jdk17.log");
    let full = log.pauses.iter().find(|pause| pause.kind == PauseKind::Full).unwrap();
    assert_eq!(full.cause.as_deref(), Some("Explicit GC request (System.gc())"));
    assert_eq!((full.gc_id, full.duration_ms, full.before_mb, full.after_mb), (Some(3), 3.543, Some(45.0), Some(14.0)));
    let degenerated: Vec<_> = log.pauses.iter().filter(|pause| pause.kind == PauseKind::Degenerated).collect();
    assert!(degenerated.iter().all(|pause| pause.cause.as_deref() == Some("Handle Allocation Failure")));
    assert_eq!(degenerated[0].detail.as_deref(), Some("Outside of Cycle"));
    // One concurrent cycle per Pause Init Mark (6), made of the GC id's concurrent phases.
    assert_eq!(log.concurrent.len(), 6);
    assert!(log.concurrent.iter().all(|cycle| cycle.duration_ms.unwrap() > 0.0));
}

#[test]
fn pauses_and_safepoints_start_before_their_line() {
    let log = fixture("serial-jdk17.log");
    // [0.050s] GC(0) Pause Young (Allocation Failure) 17M->0M(61M) 0.954ms
    assert_close(log.pauses[0].start_s.unwrap(), 0.050 - 0.000954, "first pause");
    // [0.050s] Safepoint "GenCollectForAllocation", …, Total: 1020461 ns (two lines below, the first safepoint)
    assert_eq!(log.safepoints[0].operation, "GenCollectForAllocation");
    assert_close(log.safepoints[0].start_s.unwrap(), 0.050 - 0.001020461, "its safepoint");
    assert_eq!(log.time_base, TimeBase::Uptime);
}

/// Numbers written with decimal commas by a JVM running in a German locale (LC_ALL=de_DE.UTF-8) — the first lines,
/// written before the launcher set the locale, still have dots.
#[test]
fn decimal_commas() {
    let log = fixture("serial-jdk17-decimal-comma.log");
    // [0,045s] GC(0) Pause Young (Allocation Failure) 17M->0M(61M) 1,115ms
    assert_eq!(log.pauses[0].duration_ms, 1.115);
    assert_close(log.pauses[0].start_s.unwrap(), 0.045 - 0.001115, "start of the first pause");
    assert!(log.last_uptime_s.unwrap() > 0.1);
    assert!(log.jvm_start.is_some());
}

/// No decorations at all: every pause is read, but nothing has a time.
#[test]
fn undecorated_log() {
    let log = fixture("serial-jdk25-undecorated.log");
    assert_eq!(log.time_base, TimeBase::None);
    assert!(log.pauses.iter().all(|pause| pause.start_s.is_none()));
    let summary = log.summary(None);
    assert_eq!((summary.wall_s, summary.gc_throughput_pct, summary.alloc_rate_mb_s), (None, None, None));
    let largest_after = "grep -E 'Pause.*ms$' | sed -E 's/.*->([0-9]+)M.*/\\1/' | sort -n | tail -1";
    assert_eq!(summary.peak_heap_after_mb, Some(37.0), "{largest_after}");
    // A window needs times: nothing without one falls into it.
    assert_eq!(log.summary(Some((0.0, 1e9))).pauses.count, 0);
}

/// Every decorator the JVM has: the uptime and the wall clock are both found, and give the JVM's start; of the
/// uptimes, the finest (uptimenanos) is the one used.
#[test]
fn all_decorators() {
    let log = fixture("parallel-jdk17-all-decorators.log");
    // First line: [2026-11-22T02:04:12.130+0000]…[0.004s]…[3978591ns]… Using Parallel
    assert_eq!(log.jvm_start.unwrap().to_rfc3339(), "2026-11-22T02:04:12.126021+00:00");
    assert_eq!(log.first_uptime_s, Some(0.003978591));
    // [0.060s]…[60128218ns] GC(0) Pause Young (Allocation Failure) 15M->0M(61M) 1.275ms
    assert_close(log.pauses[0].start_s.unwrap(), 0.060128218 - 0.001275, "first pause");
}

#[test]
fn uptime_in_milliseconds_only() {
    let log = fixture("g1-jdk25-uptimemillis.log");
    assert_eq!((log.time_base, log.jvm_start), (TimeBase::Uptime, None));
    // [42ms] GC(0) Pause Young (Normal) (G1 Evacuation Pause) 15M->1M(64M) 1.808ms
    assert_close(log.pauses[0].start_s.unwrap(), 0.042 - 0.001808, "first pause");
}

/// Plain -Xlog:gc on stdout, with the program's own output line in between: not a GC line, not unparsed.
#[test]
fn plain_stdout_log_with_program_output() {
    let text = std::fs::read_to_string(fixture_path("g1-jdk17-plain-stdout.log")).unwrap();
    assert!(text.lines().any(|line| line == "GcChurn done"));
    let log = fixture("g1-jdk17-plain-stdout.log");
    assert_eq!(log.unparsed_lines, 0);
    assert_eq!(log.lines as usize, text.lines().count());
}

/// rotated/ holds two runs written with filecount=3: gc.log.0 and gc.log.1 are the first run (its gc.log was
/// archived as gc.log.1 when the second started), gc.log.2 and gc.log the second.
#[test]
fn rotated_set_of_the_last_run_in_order() {
    let log = parse_path(&fixture_path("rotated/gc.log")).unwrap();
    let names = |paths: &[PathBuf]| -> Vec<String> {
        paths.iter().map(|path| path.file_name().unwrap().to_string_lossy().into_owned()).collect()
    };
    assert_eq!(names(&log.files), ["gc.log.2", "gc.log"]);
    assert_eq!(names(&log.ignored_files), ["gc.log.0", "gc.log.1"]);
    // gc.log.2: 12 young + 1 full, 33.425 ms; gc.log: 4 full, 15.575 ms.
    assert_eq!((count(&log, PauseKind::Young), count(&log, PauseKind::Full)), (12, 5));
    assert_close(log.summary(None).pauses.total_ms, 49.0, "pause total");
    assert_eq!(log.safepoints.len(), 17);
    let starts: Vec<f64> = log.pauses.iter().map(|pause| pause.start_s.unwrap()).collect();
    assert!(starts.windows(2).all(|pair| pair[1] >= pair[0] - 0.002), "in time order: {starts:?}");
    assert_eq!(log.collector.as_deref(), Some("Serial"), "from gc.log.2, the run's first file");

    let current_only = parse_file(&fixture_path("rotated/gc.log"), false).unwrap();
    assert_eq!(current_only.pauses.len(), 4);
    let archived = parse_path(&fixture_path("rotated/gc.log.0")).unwrap();
    assert_eq!((archived.files.len(), archived.pauses.len()), (1, 13), "an archived file is read alone");
}

/// Percentiles: the 21 durations sorted with `sort -g`, nearest rank 11, 19 and 21.
/// Summary figures recomputed from serial-jdk17.log by a separate script (python, regexes on the raw lines):
/// wall 0.182 s (last uptime 0.187 − first 0.005), promotion = Tenured growth in young pauses 42.54296875 MB,
/// allocation = Σ max(0, before(n) − after(n−1)) / Σ gaps = 243 MB / 0.101028 s.
#[test]
fn summary_figures_of_a_serial_log() {
    let summary = fixture("serial-jdk17.log").summary(None);
    assert_close(summary.wall_s.unwrap(), 0.182, "wall");
    assert_close(summary.gc_throughput_pct.unwrap(), 100.0 * (1.0 - 0.036933 / 0.182), "throughput");
    assert_close(summary.promotion_rate_mb_s.unwrap(), 42.54296875 / 0.182, "promotion rate");
    assert_close(summary.alloc_rate_mb_s.unwrap(), 243.0 / 0.101028, "allocation rate");
    assert_eq!(summary.peak_heap_after_mb, Some(53.0));
    assert_eq!(
        (summary.pauses.p50_ms, summary.pauses.p90_ms, summary.pauses.p99_ms),
        (Some(0.989), Some(6.056), Some(6.87))
    );
}

/// A window keeps the pauses that start inside it, and the wall time shrinks to it.
#[test]
fn summary_of_a_window() {
    let log = fixture("g1-jdk17.log");
    let all = log.summary(None);
    let (from, to) = (0.1, 0.15);
    let windowed = log.summary(Some((from, to)));
    let inside = log.pauses.iter().filter(|pause| (from..=to).contains(&pause.start_s.unwrap())).count();
    assert!(inside > 0 && inside < all.pauses.count);
    assert_eq!(windowed.pauses.count, inside);
    assert_close(windowed.wall_s.unwrap(), to - from, "window wall time");
    assert!(windowed.safepoints.stops.count < all.safepoints.stops.count);
}

/// Hand-made from serial-jdk17.log's first lines, with five broken lines put in (see the file): an unclosed
/// decoration, a bracket that is no decoration, a GC line with a broken id, a pause line cut after its heap
/// figures, and a last line cut in the middle without a newline. One line of plain text is not unparsed.
#[test]
fn garbage_and_a_truncated_last_line_are_counted_not_fatal() {
    let log = fixture("edge-garbage-truncated.log");
    assert_eq!(log.unparsed_lines, 5, "{:?}", log.unparsed_samples);
    // The real pause lines among them: grep -cE 'GC\([0-9]+\) Pause .*ms$' gives 3.
    assert_eq!(log.pauses.len(), 3);
    let lines: Vec<u64> = log.unparsed_samples.iter().map(|sample| sample.line).collect();
    assert_eq!(lines, [3, 9, 14, 25, 39]);
}
