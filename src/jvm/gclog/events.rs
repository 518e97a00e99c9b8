//! Recognises what one log message says about the collector: a pause, a concurrent cycle or phase, a safepoint,
//! an old generation's occupancy, and the few lines that give context (collector name, G1 region size, Shenandoah
//! trigger). Works on the message text alone — tags are not needed, so undecorated logs read the same. Times,
//! causes carried between lines and everything else that needs more than one line belong to the assembler.

use super::model::{Generation, Pause, PauseKind, Safepoint};
use super::numbers::{HeapChange, parse_decimal, parse_duration_ms, parse_heap_change, parse_size_mb};

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
    /// A safepoint (`start_s` not yet known).
    Safepoint(Safepoint),
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
        return parse_heap_change(change.trim()).map_or(Event::Unreadable, |change| Event::OldGeneration { gc_id, change });
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
    let kind = pause_kind(title.words, g1_type.as_deref());
    let cause = if matches!(kind, PauseKind::Young | PauseKind::Mixed | PauseKind::Full) { groups.next() } else { None };
    let mut details: Vec<String> = g1_type.into_iter().filter(|t| t != "Mixed").chain(groups).collect();
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
    }))
}

fn pause_kind(words: &str, g1_type: Option<&str>) -> PauseKind {
    match words {
        "Young" if g1_type == Some("Mixed") => PauseKind::Mixed,
        "Young" => PauseKind::Young,
        "Full" => PauseKind::Full,
        "Remark" => PauseKind::Remark,
        "Cleanup" => PauseKind::Cleanup,
        "Mark Start" => PauseKind::MarkStart,
        "Mark End" => PauseKind::MarkEnd,
        "Relocate Start" => PauseKind::RelocateStart,
        "Init Mark" => PauseKind::InitMark,
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
            "Concurrent Mark Cycle" | "Concurrent Undo Cycle" | "Garbage Collection" | "Minor Collection" | "Major Collection"
        );
    if is_cycle {
        return parse_cycle(gc_id, &title).unwrap_or(Event::Unreadable);
    }
    if title.words.starts_with("Concurrent ") {
        if let Some((heap, Some(duration_ms))) = parse_figures(title.rest) {
            return Event::ConcurrentPhase { gc_id, duration_ms, heap };
        }
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

/// A message cut into its leading words, its parenthesised remarks and what follows them.
struct Title<'a> {
    words: &'a str,
    groups: Vec<&'a str>,
    rest: &'a str,
}

/// `Young (Normal) (G1 Evacuation Pause) 24M->3M(64M) 1.2ms` → `Young`, [`Normal`, `G1 Evacuation Pause`],
/// `24M->3M(64M) 1.2ms`. Parentheses may nest (`System.gc()`). None when a parenthesis is not closed.
fn split_title(text: &str) -> Option<Title<'_>> {
    let words_end = text
        .char_indices()
        .find(|&(i, c)| c == '(' || (c.is_ascii_digit() && text[..i].ends_with(' ')))
        .map_or(text.len(), |(i, _)| i);
    let words = text[..words_end].trim_end();
    let mut rest = text[words_end..].trim_start();
    let mut groups = Vec::new();
    while rest.starts_with('(') {
        let close = matching_parenthesis(rest)?;
        groups.push(&rest[1..close]);
        rest = rest[close + 1..].trim_start();
    }
    Some(Title { words, groups, rest: rest.trim_end() })
}

/// Index of the `)` that closes the `(` at index 0.
fn matching_parenthesis(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// The figures at the end of an event line: nothing, a duration, a heap change, or a heap change and a duration.
/// None when there is anything else.
fn parse_figures(text: &str) -> Option<(Option<HeapChange>, Option<f64>)> {
    let tokens: Vec<&str> = text.split_whitespace().collect();
    match tokens.as_slice() {
        [] => Some((None, None)),
        [one] => match parse_duration_ms(one) {
            Some(duration) => Some((None, Some(duration))),
            None => parse_heap_change(one).map(|heap| (Some(heap), None)),
        },
        [heap, duration] => Some((Some(parse_heap_change(heap)?), Some(parse_duration_ms(duration)?))),
        _ => None,
    }
}

/// `8->23` (G1 region counts).
fn parse_region_change(text: &str) -> Option<(f64, f64)> {
    let (before, after) = text.trim().split_once("->")?;
    Some((parse_decimal(before)?, parse_decimal(after)?))
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
        let Some((name, value)) = field.split_once(": ") else { continue };
        let Some(nanos) = value.strip_suffix(" ns") else { continue };
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
