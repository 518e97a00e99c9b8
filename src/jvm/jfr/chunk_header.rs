//! A chunk's 68-byte header: magic, version, size, where its last checkpoint and its metadata are, its start on the
//! wall clock and the tick counter, the tick rate, and its flags; and turning the chunk's ticks into nanoseconds
//! since the Unix epoch as the JDK's consumer does.

use super::bytes::{Cursor, IntEncoding, Read};

pub const MAGIC: &[u8; 4] = b"FLR\0";
pub const HEADER_SIZE: usize = 68;
/// Byte 67: bit 0 `compressedIntegers`, bit 1 the recording's last chunk.
const FLAGS_OFFSET: usize = 67;
const FLAG_COMPRESSED_INTEGERS: u8 = 1;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkHeader {
    pub major: u16,
    pub minor: u16,
    /// The chunk's size in bytes, header included.
    pub size: u64,
    /// Offset in the chunk of its last checkpoint event (the head of the checkpoint chain).
    pub constant_pool_offset: u64,
    /// Offset in the chunk of its metadata event.
    pub metadata_offset: u64,
    pub start_nanos: i64,
    pub duration_nanos: i64,
    pub start_ticks: i64,
    pub ticks_per_second: i64,
    pub compressed_integers: bool,
}

impl ChunkHeader {
    /// Reads the header from the chunk's first `HEADER_SIZE` bytes; the caller has checked the magic.
    pub fn parse(bytes: &[u8; HEADER_SIZE]) -> Read<ChunkHeader> {
        let mut cursor = Cursor::new(bytes, MAGIC.len(), IntEncoding::Fixed);
        let version = cursor.fixed_u32()?;
        let mut next = || cursor.fixed_u64();
        let (size, constant_pool_offset, metadata_offset) = (next()?, next()?, next()?);
        let (start_nanos, duration_nanos, start_ticks, ticks_per_second) = (next()?, next()?, next()?, next()?);
        Ok(ChunkHeader {
            major: (version >> 16) as u16,
            minor: version as u16,
            size,
            constant_pool_offset,
            metadata_offset,
            start_nanos: start_nanos as i64,
            duration_nanos: duration_nanos as i64,
            start_ticks: start_ticks as i64,
            ticks_per_second: ticks_per_second as i64,
            compressed_integers: bytes[FLAGS_OFFSET] & FLAG_COMPRESSED_INTEGERS != 0,
        })
    }

    pub fn int_encoding(&self) -> IntEncoding {
        if self.compressed_integers { IntEncoding::Compressed } else { IntEncoding::Fixed }
    }

    pub fn clock(&self) -> ChunkClock {
        ChunkClock {
            start_ticks: self.start_ticks,
            start_nanos: self.start_nanos,
            // Whole ticks per nanosecond, as the JDK divides (a long division); a clock slower than 1 GHz, which
            // the JDK would divide by zero, keeps its fraction.
            ticks_per_nanosecond: match self.ticks_per_second / 1_000_000_000 {
                0 => self.ticks_per_second as f64 / 1e9,
                whole => whole as f64,
            },
        }
    }
}

/// A chunk's ticks on the wall clock: `start_nanos + (ticks - start_ticks) / (ticks per ns)`, truncated, the same
/// arithmetic as the JDK's `TimeConverter` (whole ticks per nanosecond), so times equal what `jfr print` shows to the
/// nanosecond.
#[derive(Debug, Clone, Copy)]
pub struct ChunkClock {
    start_ticks: i64,
    start_nanos: i64,
    ticks_per_nanosecond: f64,
}

impl ChunkClock {
    /// A timestamp in ticks as nanoseconds since the Unix epoch.
    pub fn epoch_nanos(&self, ticks: i64) -> i64 {
        self.start_nanos + ((ticks - self.start_ticks) as f64 / self.ticks_per_nanosecond) as i64
    }

    /// A span in ticks as nanoseconds.
    pub fn nanos(&self, ticks: i64) -> i64 {
        (ticks as f64 / self.ticks_per_nanosecond) as i64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_become_epoch_nanoseconds_truncated() {
        let clock = ChunkClock { start_ticks: 1000, start_nanos: 5_000_000_000, ticks_per_nanosecond: 3.0 };
        assert_eq!(clock.epoch_nanos(1000), 5_000_000_000);
        assert_eq!(clock.epoch_nanos(1032), 5_000_000_010);
        assert_eq!(clock.nanos(32), 10);
    }
}
