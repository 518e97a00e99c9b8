//! `jfr summary`'s figures and layout: the version of the first chunk, the number of chunks, the first chunk's start,
//! the chunks' durations added up, and per event type (metadata and checkpoints included) the number of events and
//! their bytes, most events first, ties by name, in the layout of JDK 25's `jfr summary`.

use std::collections::HashMap;
use std::fmt::Write as _;

use super::chunk_reader::{METADATA_TYPE_ID, ReadableChunk};
use super::constant_pool::CHECKPOINT_TYPE_ID;
use super::file::{JfrFile, damaged};

/// One row of the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventTypeTotal {
    pub name: String,
    pub count: u64,
    pub bytes: u64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    pub major: u16,
    pub minor: u16,
    pub chunks: usize,
    /// The first chunk's start, nanoseconds since the Unix epoch.
    pub start_nanos: i64,
    /// The chunks' durations added up.
    pub duration_nanos: i64,
    /// Every event type the chunks declare or hold, in the table's order.
    pub event_types: Vec<EventTypeTotal>,
    /// The longest declared event type's name (the table's first column is as wide).
    pub name_width: usize,
}

/// Reads every chunk's metadata and event headers (no event's values).
pub fn summarize(file: &mut JfrFile) -> anyhow::Result<Summary> {
    // By type id, the name of the first chunk that declares it, as the JDK keeps it.
    let mut totals: HashMap<u64, EventTypeTotal> = HashMap::new();
    let total = |name: &str| EventTypeTotal { name: name.to_owned(), count: 0, bytes: 0 };
    totals.insert(METADATA_TYPE_ID, total("jdk.Metadata"));
    totals.insert(CHECKPOINT_TYPE_ID, total("jdk.Checkpoint"));
    let (mut first, mut chunks, mut duration_nanos, mut name_width) = (None, 0, 0i64, 0);
    let path = file.path().to_owned();
    while let Some(chunk) = file.next_chunk()? {
        let number = chunk.number;
        first.get_or_insert((chunk.header.major, chunk.header.minor, chunk.header.start_nanos));
        chunks += 1;
        duration_nanos += chunk.header.duration_nanos;
        let readable = ReadableChunk::new(&chunk, false).map_err(|err| damaged(&path, number, &err))?;
        for class in readable.metadata.event_classes() {
            totals.entry(class.id).or_insert_with(|| total(&class.name));
            name_width = name_width.max(class.name.len());
        }
        for frame in readable.frames() {
            let frame = frame.map_err(|err| damaged(&path, number, &err))?;
            let row = totals
                .entry(frame.type_id)
                .or_insert_with(|| total(&format!("{} (missing event metadata)", frame.type_id)));
            row.count += 1;
            row.bytes += frame.size as u64;
        }
    }
    let (major, minor, start_nanos) = first.expect("an opened file has a first chunk");
    let mut event_types: Vec<EventTypeTotal> = totals.into_values().collect();
    event_types.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.name.cmp(&b.name)));
    Ok(Summary { major, minor, chunks, start_nanos, duration_nanos, event_types, name_width })
}

/// The summary as `jfr summary` prints it.
pub fn render(summary: &Summary) -> String {
    let mut text = String::new();
    let seconds = summary.start_nanos.div_euclid(1_000_000_000);
    let start = chrono::DateTime::from_timestamp(seconds, 0)
        .map_or_else(|| seconds.to_string(), |time| time.format("%Y-%m-%d %H:%M:%S").to_string());
    let _ = writeln!(text);
    let _ = writeln!(text, " Version: {}.{}", summary.major, summary.minor);
    let _ = writeln!(text, " Chunks: {}", summary.chunks);
    let _ = writeln!(text, " Start: {start} (UTC)");
    let _ = writeln!(text, " Duration: {} s", (summary.duration_nanos + 500_000_000) / 1_000_000_000);
    let _ = writeln!(text);
    const TYPE_HEADER: &str = " Event Type";
    const FIGURES_HEADER: &str = "      Count  Size (bytes) ";
    let width = summary.name_width.max(TYPE_HEADER.len());
    let _ = writeln!(text, "{TYPE_HEADER:<width$}{FIGURES_HEADER}");
    let _ = writeln!(text, "{}", "=".repeat(width + FIGURES_HEADER.len()));
    for row in &summary.event_types {
        let _ = writeln!(text, " {:<width$}{:>10}  {:>12}", row.name, row.count, row.bytes);
    }
    text
}
