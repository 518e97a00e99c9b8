//! A chunk's constant pools: the checkpoint events, walked as a chain from the header's last checkpoint back through
//! each one's delta to the one before, indexed as (class, key) → where the value starts in the chunk. Values are
//! decoded only when a reader asks for them, so the index, a few words an entry, is all a chunk's pools cost.

use std::collections::HashMap;

use super::bytes::{Cursor, IntEncoding, Malformed, Read};
use super::value::{Value, ValueReader};

/// The type id of checkpoint events.
pub const CHECKPOINT_TYPE_ID: u64 = 1;

/// Where each pooled value of one chunk starts.
#[derive(Default)]
pub struct ConstantPools {
    offsets: HashMap<u64, HashMap<u64, usize>>,
}

impl ConstantPools {
    /// Indexes the pools of the chunk `bytes`, whose last checkpoint is at `last_checkpoint`.
    pub fn index(
        bytes: &[u8],
        encoding: IntEncoding,
        last_checkpoint: usize,
        values: &ValueReader<'_>,
    ) -> Read<ConstantPools> {
        let mut pools = ConstantPools::default();
        let mut position = last_checkpoint;
        // Each checkpoint takes bytes of its own, so a chain longer than the chunk's bytes loops.
        for _ in 0..bytes.len() {
            let mut cursor = Cursor::new(bytes, position, encoding);
            cursor.int()?; // the event's size
            let type_id = cursor.long()?;
            if type_id != CHECKPOINT_TYPE_ID {
                return Err(Malformed {
                    offset: position,
                    what: format!("a checkpoint chain that leads to an event of type {type_id}"),
                });
            }
            cursor.long()?; // start time
            cursor.long()?; // duration
            let delta = cursor.long()? as i64;
            cursor.u8()?; // the checkpoint's kind (flush, chunk header, statics, thread)
            let pool_count = cursor.length()?;
            for _ in 0..pool_count {
                let pool_type = cursor.long()?;
                let entries = cursor.length()?;
                for _ in 0..entries {
                    let key = cursor.long()?;
                    // Walking backwards, the earliest checkpoint's value of a key is the one kept, as in the JDK.
                    pools.offsets.entry(pool_type).or_default().insert(key, cursor.position);
                    values.skip(&mut cursor, pool_type)?;
                }
            }
            if delta == 0 {
                return Ok(pools);
            }
            position = position
                .checked_add_signed(delta as isize)
                .filter(|&previous| previous < bytes.len())
                .ok_or_else(|| Malformed { offset: position, what: format!("a checkpoint delta of {delta}") })?;
        }
        Err(Malformed { offset: last_checkpoint, what: "a checkpoint chain that loops".into() })
    }

    /// Where the value of `key` in the pool of `type_id` starts.
    pub fn offset(&self, type_id: u64, key: u64) -> Option<usize> {
        self.offsets.get(&type_id)?.get(&key).copied()
    }
}

/// A chunk's bytes, its pools and its classes: resolves references to the values they stand for.
pub struct PoolResolver<'c> {
    pub bytes: &'c [u8],
    pub encoding: IntEncoding,
    pub pools: &'c ConstantPools,
    pub values: &'c ValueReader<'c>,
}

impl PoolResolver<'_> {
    /// The value a reference stands for (a value that is no reference, as it is); `Null` for a key the pools do not
    /// hold (key 0 is how the JVM writes "none").
    pub fn resolve(&self, value: Value) -> Read<Value> {
        match value {
            Value::PoolRef { type_id, key } => match self.pools.offset(type_id, key) {
                Some(offset) => self.values.read(&mut Cursor::new(self.bytes, offset, self.encoding), type_id),
                None => Ok(Value::Null),
            },
            other => Ok(other),
        }
    }
}
