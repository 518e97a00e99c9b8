//! The fields our HPACK encoder added to the server's dynamic table, so that a field sent again costs one index byte
//! (the server decodes less, as with h2load's requests). A field is added only while it fits without evicting
//! another, so an index once given never changes; nothing is added before the server's SETTINGS said how large its
//! table may be, and a smaller size announced later empties the table (with the size update it requires).

/// What an entry costs in the table beyond its bytes (RFC 7541 §4.1).
const ENTRY_OVERHEAD: usize = 32;
/// The most of the server's table we use (its SETTINGS_HEADER_TABLE_SIZE may allow more).
const MOST_USED: usize = 4096;

#[derive(Default)]
pub struct EncoderTable {
    /// Oldest first; the newest is index 62.
    entries: Vec<(Vec<u8>, Vec<u8>)>,
    size: usize,
    /// 0 until the server's SETTINGS arrive.
    capacity: usize,
    /// A size update owed at the start of the next header block (RFC 7541 §4.2).
    pending_size_update: Option<usize>,
}

/// How a field is to be written.
pub enum Field {
    /// Already in the table, at this index.
    Indexed(usize),
    /// Not there: written as a literal with incremental indexing, now in the table.
    Added,
    /// Not there and no room: written as a literal without indexing.
    Literal,
}

impl EncoderTable {
    /// The server's SETTINGS_HEADER_TABLE_SIZE (4,096 when its SETTINGS leave it out).
    pub fn set_server_size(&mut self, size: usize) {
        let capacity = size.min(MOST_USED);
        if capacity < self.size {
            self.entries.clear();
            self.size = 0;
            self.pending_size_update = Some(capacity);
        }
        self.capacity = capacity;
    }

    /// The size update owed, once.
    pub fn take_size_update(&mut self) -> Option<usize> {
        self.pending_size_update.take()
    }

    /// Where `name: value` stands (the name's case ignored: the table keeps it lower-case), adding it when it fits.
    pub fn field(&mut self, name: &[u8], value: &[u8]) -> Field {
        let same = |(known, known_value): &(Vec<u8>, Vec<u8>)| known.eq_ignore_ascii_case(name) && known_value == value;
        if let Some(position) = self.entries.iter().position(same) {
            return Field::Indexed(62 + self.entries.len() - 1 - position);
        }
        let size = name.len() + value.len() + ENTRY_OVERHEAD;
        if self.size + size > self.capacity {
            return Field::Literal;
        }
        self.entries.push((name.to_ascii_lowercase(), value.to_vec()));
        self.size += size;
        Field::Added
    }
}

#[cfg(test)]
mod tests {
    use super::super::header_block::encode_request;
    use super::*;

    const REQUEST: &[u8] = b"GET / HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nAccept: */*\r\n\r\n";

    fn encoded(table: &mut EncoderTable) -> Vec<u8> {
        let mut block = Vec::new();
        encode_request(REQUEST, "http", table, &mut block).unwrap();
        block
    }

    #[test]
    fn a_field_sent_again_is_one_index_byte_and_decodes_the_same() {
        let mut table = EncoderTable::default();
        table.set_server_size(4096);
        let mut decoder = loona_hpack::Decoder::new();
        let (first, second) = (encoded(&mut table), encoded(&mut table));
        assert_eq!(second.len(), 5, ":method, :scheme, :path static, :authority and accept dynamic: a byte each");
        assert_eq!(decoder.decode(&first).unwrap(), decoder.decode(&second).unwrap());
    }

    #[test]
    fn nothing_is_added_before_the_servers_settings() {
        let mut table = EncoderTable::default();
        assert_eq!(encoded(&mut table), encoded(&mut table));
    }

    #[test]
    fn a_smaller_table_announced_later_empties_ours_with_a_size_update() {
        let mut table = EncoderTable::default();
        table.set_server_size(4096);
        encoded(&mut table);
        table.set_server_size(0);
        let block = encoded(&mut table);
        assert_eq!(block[0], 0x20, "a size update to 0 first");
        let mut decoder = loona_hpack::Decoder::new();
        let fields = decoder.decode(&block).unwrap();
        assert_eq!(fields[2], (b":authority".to_vec(), b"127.0.0.1:8080".to_vec()), "sent as a literal again");
    }
}
