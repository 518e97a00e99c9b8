//! Recognises what one log message says about the collector: a pause, a concurrent cycle or phase, a safepoint,
//! an old generation's occupancy, and the few lines that give context (collector name, G1 region size, Shenandoah
//! trigger). Works on the message text alone — tags are not needed, so undecorated logs read the same. Times,
//! causes carried between lines and everything else that needs more than one line belong to the assembler.

use super::message::{Title, parse_figures, split_title};
use super::model::{Generation, Pause, PauseKind, Safepoint};
use super::numbers::{HeapChange, parse_decimal, parse_heap_change, parse_region_change, parse_size_mb};

/// What a message says.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// `Using G1`.
    Collector(String),
    /// G1 `Heap Region Size: 1M`.
    RegionSizeMb(f64),
    /// Shenandoah `Trigger: …`: why the next cycle starts.
    Trigger(String),
    /// A finished pause (`start_s` not yet known).
    Pause(Pause),
    /// A collection cycle begins: G1 `Concurrent Mark Cycle`, ZGC `Major Collection (Warmup)`.
    CycleStart { gc_id: u64, cause: Option<String> },
    /// A collection cycle ends.
    CycleEnd(CycleEnd),
    /// A finished concurrent phase: `Concurrent marking 15.2ms`, `Concurrent cleanup 21M->7M(64M) 0.013ms`.
    ConcurrentPhase { gc_id: u64, duration_ms: f64, heap: Option<HeapChange> },
    /// G1 `Concurrent Mark Abort`.
    MarkAbort { gc_id: u64 },
    /// Old generation occupancy around a collection: Serial `Tenured:`, Parallel `ParOldGen:` (MB).
    OldGeneration { gc_id: u64, change: HeapChange },
    /// G1 `Old regions: 8->23` (regions).
    OldRegions { gc_id: u64, before: f64, after: f64 },
    /// A safepoint (`start_s` not yet known; the older JDK 9–12 line has no operation name).
    Safepoint(Safepoint),
    /// JDK 9–12 `Entering safepoint region: Operation`: names the safepoint whose `Total time …` line follows.
    SafepointOperation(String),
    /// ZGC `Allocation Stall (thread) d ms`.
    AllocationStall { gc_id: Option<u64>, thread: String, duration_ms: f64 },
    /// Shenandoah `Cancelling GC: Allocation Failure…`: allocating threads wait for a degenerated or full pause.
    AllocationFailure { gc_id: Option<u64> },
    /// Shenandoah's exit statistics: `N of M ms (p%): <total>` under `Allocation pacing accrued:`.
    PacingTotal { ms: f64 },
    /// Looks like a GC event but cannot be read.
    Unreadable,
    /// Not about pauses, cycles or safepoints.
    Other,
}

/// The end of a collection cycle as its line tells it.
#[derive(Debug, Clone, PartialEq)]
pub struct CycleEnd {
    pub gc_id: u64,
    pub name: String,
    pub cause: Option<String>,
    pub heap: Option<HeapChange>,
    pub duration_ms: Option<f64>,
    pub aborted: bool,
}

/// G1 prints the kind of young collection as the first parenthesised remark, before the cause.
const G1_YOUNG_TYPES: [&str; 4] = ["Normal", "Concurrent Start", "Prepare Mixed", "Mixed"];

/// Reads one message.
pub fn recognise(message: &str) -> Event {
    if let Some(rest) = message.strip_prefix("GC(") {
        return recognise_collection_line(rest);
    }
    if let Some(rest) = message.strip_prefix("Safepoint \"") {
        return parse_safepoint(rest).map_or(Event::Unreadable, Event::Safepoint);
    }
    if let Some(rest) = message.strip_prefix("Total time for which application threads were stopped: ") {
        return parse_old_safepoint(rest).map_or(Event::Unreadable, Event::Safepoint);
    }
    if let Some(operation) = message.strip_prefix("Entering safepoint region: ") {
        return Event::SafepointOperation(operation.trim().to_string());
    }
    if let Some(stall) = recognise_stall_or_failure(None, message) {
        return stall;
    }
    if let Some(ms) = parse_pacing_total(message) {
        return Event::PacingTotal { ms };
    }
    if let Some(name) = message.strip_prefix("Using ") {
        return Event::Collector(name.trim().to_string());
    }
    if let Some(trigger) = message.strip_prefix("Trigger: ") {
        return Event::Trigger(trigger.trim().to_string());
    }
    let lowercase = message.to_ascii_lowercase();
    if let Some(size) = lowercase.strip_prefix("heap region size: ") {
        return parse_size_mb(&size.trim().to_ascii_uppercase()).map_or(Event::Unreadable, Event::RegionSizeMb);
    }
    Event::Other
}

/// A message after `GC(`: `12) Pause Young (…) 17M->4M(61M) 12.369ms` and the like.
fn recognise_collection_line(text: &str) -> Event {
    let Some((id, rest)) = text.split_once(") ") else {
        return Event::Unreadable;
    };
    let Ok(gc_id) = id.parse::<u64>() else {
        return Event::Unreadable;
    };
    let (generation, body) = split_generation(rest);
    if let Some(pause) = body.strip_prefix("Pause ") {
        return parse_pause(gc_id, generation, pause).unwrap_or(Event::Unreadable);
    }
    if let Some(change) = body.strip_prefix("Tenured: ").or_else(|| body.strip_prefix("ParOldGen: ")) {
        return parse_heap_change(change.trim())
            .map_or(Event::Unreadable, |change| Event::OldGeneration { gc_id, change });
    }
    if let Some(regions) = body.strip_prefix("Old regions: ") {
        return parse_region_change(regions).map_or(Event::Unreadable, |(before, after)| Event::OldRegions {
            gc_id,
            before,
            after,
        });
    }
    if body == "Concurrent Mark Abort" {
        return Event::MarkAbort { gc_id };
    }
    if let Some(stall) = recognise_stall_or_failure(Some(gc_id), body) {
        return stall;
    }
    recognise_cycle_or_phase(gc_id, generation.is_some(), body)
}

/// ZGC generational prefixes: `y: ` (minor collection), `Y: ` (young in a major one), `O: ` (old).
fn split_generation(text: &str) -> (Option<Generation>, &str) {
    for (prefix, generation) in [("y: ", Generation::Young), ("Y: ", Generation::Young), ("O: ", Generation::Old)] {
        if let Some(rest) = text.strip_prefix(prefix) {
            return (Some(generation), rest);
        }
    }
    (None, text)
}

/// `Young (Normal) (G1 Evacuation Pause) 24M->3M(64M) 1.2ms` (the text after `Pause `). A line without a
/// duration is the pause's start line; the finished pause comes on a later line.
fn parse_pause(gc_id: u64, generation: Option<Generation>, text: &str) -> Option<Event> {
    let title = split_title(text)?;
    let (heap, duration_ms) = parse_figures(title.rest)?;
    let Some(duration_ms) = duration_ms else {
        return heap.is_none().then_some(Event::Other);
    };
    let mut groups = title.groups.iter().map(|group| group.to_string()).peekable();
    let g1_type = groups.next_if(|group| G1_YOUNG_TYPES.contains(&group.as_str()));
    // JDK 9–11 G1 names the young collection's type in the words: `Pause Initial Mark (G1 Evacuation Pause)` is
    // a young pause that starts concurrent marking (CMS's `Pause Initial Mark` has no cause and is its own kind).
    let g1_initial_mark = title.words == "Initial Mark" && !title.groups.is_empty();
    let kind = if g1_initial_mark { PauseKind::Young } else { pause_kind(title.words, g1_type.as_deref()) };
    let cause =
        if matches!(kind, PauseKind::Young | PauseKind::Mixed | PauseKind::Full) { groups.next() } else { None };
    let words_as_detail = g1_initial_mark.then(|| title.words.to_string());
    let mut details: Vec<String> = words_as_detail
        .into_iter()
        .chain(g1_type.into_iter().filter(|t| !matches!(t.as_str(), "Normal" | "Mixed")))
        .chain(groups)
        .collect();
    if kind == PauseKind::Other {
        details.insert(0, title.words.to_string());
    }
    Some(Event::Pause(Pause {
        start_s: None,
        duration_ms,
        kind,
        cause,
        before_mb: heap.map(|h| h.before_mb),
        after_mb: heap.map(|h| h.after_mb),
        total_mb: heap.and_then(|h| h.total_mb),
        gc_id: Some(gc_id),
        generation,
        detail: (!details.is_empty()).then(|| details.join(", ")),
        old_before_mb: None,
        old_after_mb: None,
        within_gc_id: None,
    }))
}

fn pause_kind(words: &str, g1_type: Option<&str>) -> PauseKind {
    match words {
        "Young" if g1_type == Some("Mixed") => PauseKind::Mixed,
        "Young" => PauseKind::Young,
        "Mixed" => PauseKind::Mixed,
        "Full" => PauseKind::Full,
        "Remark" => PauseKind::Remark,
        "Cleanup" => PauseKind::Cleanup,
        "Mark Start" => PauseKind::MarkStart,
        "Mark End" => PauseKind::MarkEnd,
        "Relocate Start" => PauseKind::RelocateStart,
        "Init Mark" | "Initial Mark" => PauseKind::InitMark,
        "Final Mark" => PauseKind::FinalMark,
        "Init Update Refs" => PauseKind::InitUpdateRefs,
        "Final Update Refs" => PauseKind::FinalUpdateRefs,
        "Final Roots" => PauseKind::FinalRoots,
        "Degenerated GC" => PauseKind::Degenerated,
        _ => PauseKind::Other,
    }
}

/// Collection cycles (G1 `Concurrent Mark Cycle`, ZGC `Garbage Collection (…)`, `Minor/Major Collection (…)`) and
/// concurrent phases (`Concurrent marking (unload classes) 15.2ms`).
fn recognise_cycle_or_phase(gc_id: u64, has_generation: bool, body: &str) -> Event {
    let Some(title) = split_title(body) else {
        return Event::Other;
    };
    let is_cycle = !has_generation
        && matches!(
            title.words,
            "Concurrent Mark Cycle"
                | "Concurrent Undo Cycle"
                | "Garbage Collection"
                | "Minor Collection"
                | "Major Collection"
        );
    if is_cycle {
        return parse_cycle(gc_id, &title).unwrap_or(Event::Unreadable);
    }
    if title.words.starts_with("Concurrent ")
        && let Some((heap, Some(duration_ms))) = parse_figures(title.rest)
    {
        return Event::ConcurrentPhase { gc_id, duration_ms, heap };
    }
    Event::Other
}

fn parse_cycle(gc_id: u64, title: &Title<'_>) -> Option<Event> {
    let cause = title.groups.first().map(|cause| cause.to_string());
    let (rest, aborted) = match title.rest.strip_suffix("Aborted") {
        Some(rest) => (rest.trim_end(), true),
        None => (title.rest, false),
    };
    let (heap, duration_ms) = parse_figures(rest)?;
    if heap.is_none() && duration_ms.is_none() && !aborted {
        return Some(Event::CycleStart { gc_id, cause });
    }
    Some(Event::CycleEnd(CycleEnd { gc_id, name: title.words.to_string(), cause, heap, duration_ms, aborted }))
}

/// ZGC `Allocation Stall (http-nio-8080-exec-3) 12.345ms` and Shenandoah `Cancelling GC: Allocation Failure`
/// (`… During Evacuation`, JDK 11: `Cancelling concurrent GC: Allocation Failure`). None for anything else.
fn recognise_stall_or_failure(gc_id: Option<u64>, text: &str) -> Option<Event> {
    if text.starts_with("Allocation Stall (") {
        let stall = split_title(text).and_then(|title| {
            let thread = title.groups.first()?.to_string();
            let (None, Some(duration_ms)) = parse_figures(title.rest)? else { return None };
            Some(Event::AllocationStall { gc_id, thread, duration_ms })
        });
        return Some(stall.unwrap_or(Event::Unreadable));
    }
    let reason = text.strip_prefix("Cancelling GC: ").or_else(|| text.strip_prefix("Cancelling concurrent GC: "))?;
    reason.starts_with("Allocation Failure").then_some(Event::AllocationFailure { gc_id })
}

/// `   12 of  1954 ms (  0.6%): <total>`: the pacing delay (ms) of all threads together.
fn parse_pacing_total(message: &str) -> Option<f64> {
    let figures = message.trim().strip_suffix("<total>")?;
    let (delay, _) = figures.split_once(" of ")?;
    parse_decimal(delay.trim())
}

/// JDK 9–12: the text after `Total time for which application threads were stopped: `, i.e. `0.0097481 seconds,
/// Stopping threads took: 0.0000201 seconds`. Whole stop and time to reach the safepoint; no operation name.
fn parse_old_safepoint(text: &str) -> Option<Safepoint> {
    let (total, reaching) = text.split_once(", Stopping threads took: ")?;
    let seconds = |field: &str| parse_decimal(field.trim().strip_suffix("seconds")?.trim());
    let total_ms = seconds(total)? * 1e3;
    let reaching_ms = seconds(reaching)? * 1e3;
    Some(Safepoint {
        start_s: None,
        operation: String::new(),
        total_ms,
        reaching_ms,
        at_safepoint_ms: total_ms - reaching_ms,
        cleanup_ms: None,
        leaving_ms: None,
        since_last_ms: None,
    })
}

/// The text after `Safepoint "`: `G1CollectForAllocation", Time since last: 858817347 ns, Reaching safepoint: 4487
/// ns, Cleanup: 152569 ns, At safepoint: 13217055 ns, Total: 13374111 ns` (JDK 17) or with `Leaving safepoint: …`
/// and `Threads: …` instead of `Cleanup` (JDK 21+).
fn parse_safepoint(text: &str) -> Option<Safepoint> {
    let (operation, fields) = text.split_once("\", ")?;
    let mut safepoint = Safepoint {
        start_s: None,
        operation: operation.to_string(),
        total_ms: f64::NAN,
        reaching_ms: f64::NAN,
        at_safepoint_ms: f64::NAN,
        cleanup_ms: None,
        leaving_ms: None,
        since_last_ms: None,
    };
    for field in fields.split(", ") {
        let Some((name, value)) = field.split_once(": ") else {
            continue;
        };
        let Some(nanos) = value.strip_suffix(" ns") else {
            continue;
        };
        let ms = parse_decimal(nanos)? / 1e6;
        match name {
            "Time since last" => safepoint.since_last_ms = Some(ms),
            "Reaching safepoint" => safepoint.reaching_ms = ms,
            "Cleanup" => safepoint.cleanup_ms = Some(ms),
            "At safepoint" => safepoint.at_safepoint_ms = ms,
            "Leaving safepoint" => safepoint.leaving_ms = Some(ms),
            "Total" => safepoint.total_ms = ms,
            _ => {}
        }
    }
    let complete = [safepoint.total_ms, safepoint.reaching_ms, safepoint.at_safepoint_ms].iter().all(|v| v.is_finite());
    complete.then_some(safepoint)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pause(message: &str) -> Pause {
        match recognise(message) {
            Event::Pause(pause) => pause,
            other => panic!("{message:?} gave {other:?}"),
        }
    }

    #[test]
    fn serial_and_parallel_pauses() {
        let young = pause("GC(3) Pause Young (Allocation Failure) 18M->12M(61M) 9.976ms");
        assert_eq!(
            (young.kind, young.cause.as_deref(), young.gc_id),
            (PauseKind::Young, Some("Allocation Failure"), Some(3))
        );
        assert_eq!(
            (young.before_mb, young.after_mb, young.total_mb, young.duration_ms),
            (Some(18.0), Some(12.0), Some(61.0), 9.976)
        );
        let full = pause("GC(10) Pause Full (System.gc()) 25M->14M(61M) 1.377ms");
        assert_eq!((full.kind, full.cause.as_deref(), full.detail), (PauseKind::Full, Some("System.gc()"), None));
        assert_eq!(pause("GC(8) Pause Full (Ergonomics) 49M->41M(61M) 14,972ms").duration_ms, 14.972);
    }

    #[test]
    fn g1_pauses_keep_type_cause_and_remarks_apart() {
        let mixed = pause("GC(20) Pause Young (Mixed) (G1 Evacuation Pause) 40M->30M(64M) 1.149ms");
        assert_eq!(
            (mixed.kind, mixed.cause.as_deref(), mixed.detail),
            (PauseKind::Mixed, Some("G1 Evacuation Pause"), None)
        );
        let start = pause(
            "GC(5) Pause Young (Concurrent Start) (G1 Humongous Allocation) (Evacuation Failure: Allocation) 42M->28M(64M) 1.029ms",
        );
        assert_eq!(start.kind, PauseKind::Young);
        assert_eq!(start.cause.as_deref(), Some("G1 Humongous Allocation"));
        assert_eq!(start.detail.as_deref(), Some("Concurrent Start, Evacuation Failure: Allocation"));
        assert_eq!(pause("GC(1) Pause Young (Normal) (G1 Evacuation Pause) 28M->1M(64M) 1.143ms").detail, None);
        let remark = pause("GC(6) Pause Remark 29M->29M(64M) 0.657ms");
        assert_eq!((remark.kind, remark.cause, remark.gc_id), (PauseKind::Remark, None, Some(6)));
        assert_eq!(pause("GC(6) Pause Cleanup 41M->41M(64M) 0.102ms").kind, PauseKind::Cleanup);
        assert_eq!(
            pause("GC(9) Pause Full (G1 Compaction Pause) 42M->13M(54M) 3.442ms").cause.as_deref(),
            Some("G1 Compaction Pause")
        );
    }

    #[test]
    fn zgc_pauses_with_and_without_generations() {
        let jdk17 = pause("GC(0) Pause Mark Start 0.008ms");
        assert_eq!((jdk17.kind, jdk17.generation, jdk17.before_mb), (PauseKind::MarkStart, None, None));
        let major = pause("GC(0) Y: Pause Mark Start (Major) 0.018ms");
        assert_eq!(
            (major.kind, major.generation, major.detail.as_deref()),
            (PauseKind::MarkStart, Some(Generation::Young), Some("Major"))
        );
        assert_eq!(pause("GC(3) y: Pause Mark End 0.018ms").generation, Some(Generation::Young));
        let old = pause("GC(0) O: Pause Relocate Start 0.008ms");
        assert_eq!((old.kind, old.generation), (PauseKind::RelocateStart, Some(Generation::Old)));
    }

    #[test]
    fn shenandoah_pauses() {
        let cases = [
            ("GC(0) Pause Init Mark (unload classes) 0.019ms", PauseKind::InitMark, Some("unload classes")),
            ("GC(0) Pause Final Mark (unload classes) 0.059ms", PauseKind::FinalMark, Some("unload classes")),
            ("GC(0) Pause Init Update Refs 0.027ms", PauseKind::InitUpdateRefs, None),
            ("GC(0) Pause Final Update Refs 0.019ms", PauseKind::FinalUpdateRefs, None),
            ("GC(2) Pause Final Roots 0.006ms", PauseKind::FinalRoots, None),
            ("GC(9) Pause Degenerated GC (Mark) 64M->43M(64M) 9.154ms", PauseKind::Degenerated, Some("Mark")),
            ("GC(6) Pause Full 146M->38M(192M) 7.520ms", PauseKind::Full, None),
            ("GC(7) Pause Init Evacuation 0.100ms", PauseKind::Other, Some("Init Evacuation")),
        ];
        for (message, kind, detail) in cases {
            let pause = pause(message);
            assert_eq!((pause.kind, pause.detail.as_deref()), (kind, detail), "{message}");
        }
    }

    #[test]
    fn start_lines_are_not_pauses_and_broken_ones_are_unreadable() {
        assert_eq!(recognise("GC(0) Pause Young (Allocation Failure)"), Event::Other);
        assert_eq!(recognise("GC(0) Pause Remark"), Event::Other);
        for broken in [
            "GC(0) Pause Young (Allocation Failure) 17M->4",
            "GC(0) Pause Young (Allocation Fail",
            "GC(0) Pause Young (Allocation Failure) 17M->4M(61M)",
            "GC(0) Pause Young (Allocation Failure) 17M->4M(61M) 12.3ms extra",
            "GC(x) Pause Young (Allocation Failure) 1.0ms",
            "GC(12 Pause Young",
        ] {
            assert_eq!(recognise(broken), Event::Unreadable, "{broken}");
        }
    }

    #[test]
    fn collection_cycles() {
        assert_eq!(recognise("GC(6) Concurrent Mark Cycle"), Event::CycleStart { gc_id: 6, cause: None });
        let Event::CycleEnd(g1) = recognise("GC(6) Concurrent Mark Cycle 7.088ms") else { panic!() };
        assert_eq!((g1.duration_ms, g1.heap, g1.aborted), (Some(7.088), None, false));
        assert_eq!(
            recognise("GC(0) Garbage Collection (Warmup)"),
            Event::CycleStart { gc_id: 0, cause: Some("Warmup".into()) }
        );
        let Event::CycleEnd(zgc17) = recognise("GC(0) Garbage Collection (Warmup) 8M(12%)->10M(15%)") else { panic!() };
        assert_eq!(
            (zgc17.name.as_str(), zgc17.duration_ms, zgc17.heap.map(|h| h.after_mb)),
            ("Garbage Collection", None, Some(10.0))
        );
        let Event::CycleEnd(major) = recognise("GC(2) Major Collection (Warmup) 20M(31%)->22M(34%) 0.121s") else {
            panic!()
        };
        assert_eq!((major.cause.as_deref(), major.duration_ms), (Some("Warmup"), Some(121.0)));
        let Event::CycleEnd(aborted) = recognise("GC(8) Minor Collection (Allocation Rate) Aborted") else { panic!() };
        assert!(aborted.aborted);
        assert_eq!(recognise("GC(13) Concurrent Mark Abort"), Event::MarkAbort { gc_id: 13 });
        // ZGC's per-generation summary lines are not cycles of their own.
        assert_eq!(recognise("GC(2) Y: Young Generation 20M(31%)->16M(25%) 0.080s"), Event::Other);
    }

    #[test]
    fn concurrent_phases() {
        let Event::ConcurrentPhase { gc_id, duration_ms, heap } =
            recognise("GC(0) Concurrent cleanup 21M->7M(64M) 0.013ms")
        else {
            panic!()
        };
        assert_eq!((gc_id, duration_ms, heap.map(|h| h.after_mb)), (0, 0.013, Some(7.0)));
        assert!(matches!(
            recognise("GC(0) Concurrent marking (unload classes) 15.248ms"),
            Event::ConcurrentPhase { .. }
        ));
        assert_eq!(recognise("GC(0) Concurrent marking (unload classes)"), Event::Other);
    }

    #[test]
    fn generation_figures() {
        let Event::OldGeneration { gc_id, change } = recognise("GC(1) Tenured: 2048K(43712K)->4096K(43712K)") else {
            panic!()
        };
        assert_eq!((gc_id, change.before_mb, change.after_mb), (1, 2.0, 4.0));
        assert!(matches!(recognise("GC(1) ParOldGen: 0K(43520K)->1024K(43520K)"), Event::OldGeneration { .. }));
        assert_eq!(recognise("GC(3) Old regions: 8->23"), Event::OldRegions { gc_id: 3, before: 8.0, after: 23.0 });
        assert_eq!(recognise("Heap Region Size: 1M"), Event::RegionSizeMb(1.0));
        assert_eq!(recognise("GC(1) Tenured: garbage"), Event::Unreadable);
    }

    #[test]
    fn safepoints_of_jdk_17_and_25() {
        let Event::Safepoint(jdk17) = recognise(
            "Safepoint \"GenCollectForAllocation\", Time since last: 858817347 ns, Reaching safepoint: 4487 ns, Cleanup: 152569 ns, At safepoint: 13217055 ns, Total: 13374111 ns",
        ) else {
            panic!()
        };
        assert_eq!(jdk17.operation, "GenCollectForAllocation");
        assert_eq!(
            (jdk17.total_ms, jdk17.reaching_ms, jdk17.cleanup_ms, jdk17.leaving_ms),
            (13.374111, 0.004487, Some(0.152569), None)
        );
        let Event::Safepoint(jdk25) = recognise(
            "Safepoint \"ZMarkEndYoung\", Time since last: 15564839 ns, Reaching safepoint: 84527 ns, At safepoint: 28633 ns, Leaving safepoint: 20551 ns, Total: 133711 ns, Threads: 0 runnable, 12 total",
        ) else {
            panic!()
        };
        assert_eq!(
            (jdk25.at_safepoint_ms, jdk25.leaving_ms, jdk25.total_ms, jdk25.cleanup_ms),
            (0.028633, Some(0.020551), 0.133711, None)
        );
        assert_eq!(recognise("Safepoint \"X\", Total: 5 ns"), Event::Unreadable);
    }

    #[test]
    fn context_lines_and_the_rest() {
        assert_eq!(recognise("Using The Z Garbage Collector"), Event::Collector("The Z Garbage Collector".into()));
        assert_eq!(recognise("Trigger: Handle Allocation Failure"), Event::Trigger("Handle Allocation Failure".into()));
        for other in ["GcChurn done", "", "GC(3) Marking Phase 1.2ms", "Pause Init Mark (G)  =  0.001 s"] {
            assert_eq!(recognise(other), Event::Other, "{other}");
        }
    }
}
