//! Tests of the stops read from GC logs: the pairing rule on hand-made lines, real logs of every kind of stop
//! (tests/fixtures/gclog, captured by its capture.sh), and a non-GC safepoint forced in a real JVM.

use std::path::Path;

use super::*;
use crate::jvm::gclog::{self, GcLog};
use crate::jvm::test_jvm;

fn fixture(name: &str) -> GcLog {
    gclog::parse_file(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/gclog").join(name), false).unwrap()
}

fn of_kind(stops: &[Stop], kind: StopKind) -> Vec<&Stop> {
    stops.iter().filter(|stop| stop.kind == kind).collect()
}

fn assert_close(actual: f64, expected: f64) {
    assert!((actual - expected).abs() < 1e-9, "{actual} != {expected}");
}

#[test]
fn a_pause_takes_the_time_of_the_gc_safepoint_that_holds_it() {
    let log = gclog::parse_str(
        "[1.000000000s][info][gc] GC(0) Pause Young (Normal) (G1 Evacuation Pause) 24M->3M(64M) 4.000ms\n\
         [1.000200000s][info][safepoint] Safepoint \"G1CollectForAllocation\", Time since last: 1 ns, Reaching safepoint: 700000 ns, At safepoint: 4300000 ns, Total: 5000000 ns\n\
         [2.000000000s][info][safepoint] Safepoint \"ICBufferFull\", Time since last: 1 ns, Reaching safepoint: 100000 ns, At safepoint: 200000 ns, Total: 300000 ns\n\
         [3.000000000s][info][safepoint] Safepoint \"G1PauseRemark\", Time since last: 1 ns, Reaching safepoint: 100000 ns, At safepoint: 1900000 ns, Total: 2000000 ns\n",
    );
    let stops = stops(&log);
    assert_eq!(stops.len(), 3);
    // The safepoint: from 1.0002 − 0.005 s for 5 ms, holding the pause (0.996–1.000 s).
    assert_close(stops[0].start_s, 0.9952);
    assert_close(stops[0].duration_ms, 5.0);
    assert_eq!(stops[0].kind, StopKind::GcPause);
    assert_eq!(stops[0].what, "Pause Young (G1 Evacuation Pause)");
    assert_eq!((stops[1].kind, stops[1].what.as_str()), (StopKind::Safepoint, "ICBufferFull"));
    assert_close(stops[1].start_s, 1.9997);
    // A GC safepoint without a pause line is a GC pause all the same, named after its operation.
    assert_eq!((stops[2].kind, stops[2].what.as_str()), (StopKind::GcPause, "G1PauseRemark"));
    assert_close(stops[2].duration_ms, 2.0);
}

#[test]
fn without_safepoint_lines_the_pauses_are_the_stops() {
    let log = fixture("g1-jdk17-plain-stdout.log");
    let stops = stops(&log);
    assert!(log.safepoints.is_empty() && !log.pauses.is_empty());
    assert_eq!(stops.len(), log.pauses.iter().filter(|pause| pause.start_s.is_some()).count());
    for (stop, pause) in stops.iter().zip(&log.pauses) {
        assert_eq!(
            (stop.start_s, stop.duration_ms, stop.kind),
            (pause.start_s.unwrap(), pause.duration_ms, StopKind::GcPause)
        );
    }
}

/// Real G1 logs with `-Xlog:gc*,safepoint`: one stop per pause, each its safepoint, at least as long as the pause.
#[test]
fn g1_pauses_pair_with_their_safepoints_on_jdk17_and_jdk25() {
    for (name, pauses) in [("g1-jdk17.log", 26), ("g1-jdk25.log", 20)] {
        let log = fixture(name);
        let stops = stops(&log);
        assert_eq!(log.pauses.len(), pauses, "{name}");
        let gc = of_kind(&stops, StopKind::GcPause);
        assert_eq!(gc.len(), pauses, "{name}: one stop per pause");
        assert_eq!(of_kind(&stops, StopKind::Safepoint).len(), 0, "{name}: every safepoint is a GC's");
        // G1's pauses never overlap: the n-th stop holds the n-th pause (to the log's ms), and is no shorter.
        for (stop, pause) in gc.iter().zip(&log.pauses) {
            let (start, end) = (pause.start_s.unwrap(), pause.start_s.unwrap() + pause.duration_ms / 1e3);
            assert!(
                stop.start_s <= start + 0.001 && end <= stop.start_s + stop.duration_ms / 1e3 + 0.001,
                "{name}: {stop:?} {pause:?}"
            );
            assert!(stop.duration_ms >= pause.duration_ms, "{name}: {stop:?} shorter than {pause:?}");
        }
        assert!(stops.windows(2).all(|pair| pair[0].start_s <= pair[1].start_s), "{name}: in order of start");
    }
}

/// Serial (JDK 17): a young collection that escalates to a full one logs two pauses in one safepoint.
#[test]
fn serial_pauses_in_one_safepoint_make_one_stop() {
    let log = fixture("serial-jdk17.log");
    let stops = stops(&log);
    assert_eq!(log.safepoints.len(), 17);
    assert_eq!(of_kind(&stops, StopKind::GcPause).len(), 17);
    assert!(log.pauses.len() > 17, "{} pauses", log.pauses.len());
}

/// ZGC with a heap too small: its allocation stalls are GC stalls, its pauses GC pauses, and the one safepoint that
/// is no collection (JDK 25 `CleanClassLoaderDataMetaspaces`) a safepoint.
#[test]
fn zgc_stalls_and_pauses_on_jdk17_and_jdk25() {
    for (name, pauses, stalls, safepoints) in [("zgc-jdk17-stalls.log", 24, 10, 0), ("zgc-jdk25-stalls.log", 72, 10, 1)]
    {
        let log = fixture(name);
        let stops = stops(&log);
        assert_eq!(of_kind(&stops, StopKind::GcPause).len(), pauses, "{name}");
        let stall_stops = of_kind(&stops, StopKind::GcStall);
        assert_eq!(stall_stops.len(), stalls, "{name}");
        assert_eq!(of_kind(&stops, StopKind::Safepoint).len(), safepoints, "{name}");
        for (stop, stall) in stall_stops.iter().zip(&log.stalls) {
            assert_eq!((stop.start_s, stop.duration_ms), (stall.start_s.unwrap(), stall.duration_ms));
            assert_eq!(stop.what, format!("Allocation Stall ({})", stall.thread.as_deref().unwrap()));
        }
    }
}

#[test]
fn shenandoah_operations_are_the_gcs() {
    let log = fixture("shenandoah-jdk25.log");
    let stops = stops(&log);
    assert_eq!(of_kind(&stops, StopKind::GcPause).len(), 32);
    assert_eq!(
        of_kind(&stops, StopKind::Safepoint).iter().map(|stop| stop.what.as_str()).collect::<Vec<_>>(),
        ["CleanClassLoaderDataMetaspaces"]
    );
}

#[test]
fn gc_operations_of_jdk17_and_jdk25() {
    let gc = [
        "G1CollectForAllocation",
        "G1TryInitiateConcMark",
        "ParallelGCFailedAllocation",
        "ParallelCollectForAllocation",
        "SerialCollectForAllocation",
        "SerialGCCollect",
        "GenCollectFull",
        "ZMarkStart",
        "ZMarkStartYoungAndOld",
        "ZRelocateStartOld",
        "XMarkEnd",
        "ShenandoahDegeneratedGC",
        "CollectForMetadataAllocation",
        "GC_HeapInspection",
        "HeapDumper",
    ];
    let other = [
        "ZombieAll",
        "Cleanup",
        "ICBufferFull",
        "ThreadDump",
        "PrintThreads",
        "FindDeadlocks",
        "CleanClassLoaderDataMetaspaces",
        "HandshakeAllThreads",
        "",
    ];
    assert!(gc.iter().all(|operation| is_gc_operation(operation)));
    assert!(other.iter().all(|operation| !is_gc_operation(operation)));
}

/// A real JVM whose threads `jcmd Thread.print` dumps: the dump's safepoints (`PrintThreads`, and `FindDeadlocks`
/// for the deadlock check that follows it) are stops that are no GC, on JDK 17 and JDK 25.
#[test]
fn a_thread_dump_is_a_safepoint_that_is_no_gc() {
    for java_home in [test_jvm::jdk17(), test_jvm::jdk25()] {
        let log = log_of_a_thread_dump(&java_home);
        let stops = stops(&log);
        let named =
            |what: &str| stops.iter().filter(|stop| stop.what == what && stop.kind == StopKind::Safepoint).count();
        assert_eq!((named("PrintThreads"), named("FindDeadlocks")), (1, 1), "{java_home}: {stops:?}");
        let gc_safepoints = log.safepoints.iter().filter(|safepoint| is_gc_operation(&safepoint.operation)).count();
        assert!(gc_safepoints > 0, "{java_home}: Alloc's 128 MB in a 64 MB heap need collections");
        assert_eq!(of_kind(&stops, StopKind::GcPause).len(), gc_safepoints, "{java_home}");
        assert_eq!(log.pauses.len(), gc_safepoints, "{java_home}: G1, one pause per safepoint");
    }
}

fn log_of_a_thread_dump(java_home: &str) -> GcLog {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("gc.log");
    let logging = format!("-Xlog:gc*,safepoint:file={}:time,uptimenanos,level,tags", log.display());
    let mut child = test_jvm::start_alloc(java_home, &["-Xmx64m", "-XX:+UseG1GC", &logging], 1500);
    let jcmd = std::process::Command::new(format!("{java_home}/bin/jcmd"))
        .args([&child.id().to_string(), "Thread.print"])
        .output()
        .unwrap();
    assert!(jcmd.status.success(), "{}", String::from_utf8_lossy(&jcmd.stderr));
    assert!(child.wait().unwrap().success());
    gclog::parse_path(&log).unwrap()
}
