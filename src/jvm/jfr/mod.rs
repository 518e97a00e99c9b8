//! JDK Flight Recorder files: a streaming reader of `.jfr` recordings as JDK 17 and JDK 25 write them (format 2.x),
//! a typed layer of the events jload lays over slow requests, and `jload jfr summary`.
//!
//! For other modules:
//! - [`read_events`] calls back with every [`JfrEvent`] of the types in [`TYPED_EVENTS`] (execution and allocation
//!   samples, monitor enters, parks, socket and file I/O, VM operations, safepoints, collections and their pauses,
//!   compilations, deoptimizations, class loads), times as nanoseconds since the Unix epoch;
//! - [`JfrFile`] and [`summarize`] give the file's chunks and its `jfr summary` figures.
//!
//! The parser is jload's own. The crate `jfrs` 0.2.5 was measured first: it counted every event type of both JDKs'
//! recordings as `jfr summary` does, but it reads at 15 MB/s (a 99.7 MB file of 340 chunks in 6.7 s on this 2-core
//! machine, against the 100 MB/s asked), because it decodes every event and every constant into a tree to iterate
//! at all, and it gives no event's size, which `jfr summary` prints. This reader walks events by their size field and
//! decodes only what is asked for; the figures are in docs/benchmarks.md ("jfr").
//!
//! Memory follows one chunk: a chunk is read whole into one reused buffer (the JDK cuts chunks at about 12 MB), its
//! constant pools are indexed as (class, key) → offset and decoded only when an event refers to them, and whatever
//! the typed layer resolved is dropped with the chunk.
//!
//! Module jobs: `bytes` the primitive encodings (fixed and compressed integers, strings); `chunk_header` the header
//! and the chunk's clock; `file` a file as chunks and its errors; `metadata` the classes of a chunk; `value` reading
//! and skipping values by those classes; `constant_pool` the checkpoint chain and resolving references;
//! `chunk_reader` a chunk's events one by one; `summary` the `jfr summary` figures and layout; `events` the typed
//! events; `decode` values into typed events; `cli` the `jload jfr` subcommand. The user documentation is
//! docs/jfr.md.

mod bytes;
mod chunk_header;
mod chunk_reader;
pub mod cli;
mod constant_pool;
mod decode;
pub mod events;
mod file;
mod metadata;
pub mod profile;
mod summary;
mod value;

pub use decode::{TYPED_EVENTS, read_events};
pub use events::JfrEvent;
pub use file::JfrFile;
pub use summary::{EventTypeTotal, Summary, render, summarize};
