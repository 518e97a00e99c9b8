//! One chunk made readable: its metadata, its clock, and its events one by one (each event's size, class and where
//! its values start), with the constant pools indexed only when a reader wants values resolved.

use super::bytes::{Cursor, IntEncoding, Malformed, Read};
use super::chunk_header::{ChunkClock, HEADER_SIZE};
use super::constant_pool::{ConstantPools, PoolResolver};
use super::file::Chunk;
use super::metadata::Metadata;
use super::value::ValueReader;

/// The type id of the metadata event.
pub const METADATA_TYPE_ID: u64 = 0;

/// An event's frame in the chunk.
#[derive(Debug, Clone, Copy)]
pub struct EventFrame {
    /// Its size in bytes, as its header says.
    pub size: usize,
    pub type_id: u64,
    /// Where its values start.
    pub values_offset: usize,
}

/// Walks the events of a chunk's bytes from the header to the chunk's end, metadata and checkpoints included.
pub struct EventFrames<'c> {
    bytes: &'c [u8],
    encoding: IntEncoding,
    position: usize,
}

impl<'c> EventFrames<'c> {
    pub fn new(bytes: &'c [u8], encoding: IntEncoding) -> EventFrames<'c> {
        EventFrames { bytes, encoding, position: HEADER_SIZE }
    }
}

impl Iterator for EventFrames<'_> {
    type Item = Read<EventFrame>;

    fn next(&mut self) -> Option<Read<EventFrame>> {
        if self.position >= self.bytes.len() {
            return None;
        }
        let offset = self.position;
        let mut cursor = Cursor::new(self.bytes, offset, self.encoding);
        let frame = (|| {
            let size = cursor.int()?;
            let type_id = cursor.long()?;
            let size = usize::try_from(size)
                .ok()
                .filter(|&size| size > 0 && offset + size <= self.bytes.len() && offset + size >= cursor.position)
                .ok_or_else(|| Malformed { offset, what: format!("an event of size {size}") })?;
            Ok(EventFrame { size, type_id, values_offset: cursor.position })
        })();
        match frame {
            Ok(frame) => {
                self.position = offset + frame.size;
                Some(Ok(frame))
            }
            Err(err) => {
                self.position = self.bytes.len();
                Some(Err(err))
            }
        }
    }
}

/// A chunk with its metadata read and its pools indexed.
pub struct ReadableChunk<'c> {
    pub bytes: &'c [u8],
    pub encoding: IntEncoding,
    pub clock: ChunkClock,
    pub metadata: Metadata,
    pools: ConstantPools,
}

impl<'c> ReadableChunk<'c> {
    /// Reads the chunk's metadata; indexes its pools when `with_pools`.
    pub fn new(chunk: &Chunk<'c>, with_pools: bool) -> Read<ReadableChunk<'c>> {
        let encoding = chunk.header.int_encoding();
        let metadata = Metadata::read(Cursor::new(chunk.bytes, chunk.header.metadata_offset as usize, encoding))?;
        let pools = if with_pools {
            let values = ValueReader::new(&metadata);
            ConstantPools::index(chunk.bytes, encoding, chunk.header.constant_pool_offset as usize, &values)?
        } else {
            ConstantPools::default()
        };
        Ok(ReadableChunk { bytes: chunk.bytes, encoding, clock: chunk.header.clock(), metadata, pools })
    }

    pub fn frames(&self) -> EventFrames<'c> {
        EventFrames::new(self.bytes, self.encoding)
    }

    pub fn values(&self) -> ValueReader<'_> {
        ValueReader::new(&self.metadata)
    }

    pub fn cursor_at(&self, offset: usize) -> Cursor<'c> {
        Cursor::new(self.bytes, offset, self.encoding)
    }

    pub fn resolver<'r>(&'r self, values: &'r ValueReader<'r>) -> PoolResolver<'r> {
        PoolResolver { bytes: self.bytes, encoding: self.encoding, pools: &self.pools, values }
    }
}
