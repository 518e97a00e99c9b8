//! The HPACK decoder of response header blocks (RFC 7541): integers, string literals (Huffman-coded ones through a
//! decoding tree built once from the code table of RFC 7541 Appendix B, as httlib-huffman publishes it), the static
//! table and the dynamic table with its size limit. Hand-written because the response headers are on the hot path:
//! the decoder keeps its buffers — evicted entries' too — so a warmed-up session decodes without allocating (a
//! crate's decoder rebuilt its Huffman table for every string, another allocated for every string).

use std::collections::VecDeque;
use std::fmt;
use std::sync::OnceLock;

use httlib_huffman::encoder::table::ENCODE_TABLE;

/// The static table (RFC 7541 Appendix A), index 1 first.
const STATIC_TABLE: [(&str, &str); 61] = [
    (":authority", ""),
    (":method", "GET"),
    (":method", "POST"),
    (":path", "/"),
    (":path", "/index.html"),
    (":scheme", "http"),
    (":scheme", "https"),
    (":status", "200"),
    (":status", "204"),
    (":status", "206"),
    (":status", "304"),
    (":status", "400"),
    (":status", "404"),
    (":status", "500"),
    ("accept-charset", ""),
    ("accept-encoding", "gzip, deflate"),
    ("accept-language", ""),
    ("accept-ranges", ""),
    ("accept", ""),
    ("access-control-allow-origin", ""),
    ("age", ""),
    ("allow", ""),
    ("authorization", ""),
    ("cache-control", ""),
    ("content-disposition", ""),
    ("content-encoding", ""),
    ("content-language", ""),
    ("content-length", ""),
    ("content-location", ""),
    ("content-range", ""),
    ("content-type", ""),
    ("cookie", ""),
    ("date", ""),
    ("etag", ""),
    ("expect", ""),
    ("expires", ""),
    ("from", ""),
    ("host", ""),
    ("if-match", ""),
    ("if-modified-since", ""),
    ("if-none-match", ""),
    ("if-range", ""),
    ("if-unmodified-since", ""),
    ("last-modified", ""),
    ("link", ""),
    ("location", ""),
    ("max-forwards", ""),
    ("proxy-authenticate", ""),
    ("proxy-authorization", ""),
    ("range", ""),
    ("referer", ""),
    ("refresh", ""),
    ("retry-after", ""),
    ("server", ""),
    ("set-cookie", ""),
    ("strict-transport-security", ""),
    ("transfer-encoding", ""),
    ("user-agent", ""),
    ("vary", ""),
    ("via", ""),
    ("www-authenticate", ""),
];

/// What an entry costs in the dynamic table beyond its bytes (RFC 7541 §4.1).
const ENTRY_OVERHEAD: usize = 32;

/// A header block that cannot be decoded: a COMPRESSION_ERROR of the connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HpackError(pub &'static str);

impl fmt::Display for HpackError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.0)
    }
}

#[derive(Default)]
struct Entry {
    name: Vec<u8>,
    value: Vec<u8>,
}

impl Entry {
    fn size(&self) -> usize {
        self.name.len() + self.value.len() + ENTRY_OVERHEAD
    }
}

pub struct Decoder {
    /// Newest first: index 62 is the front.
    dynamic: VecDeque<Entry>,
    dynamic_size: usize,
    /// The table's current limit, as the encoder last set it.
    max_size: usize,
    /// The most the encoder may set it to (our SETTINGS_HEADER_TABLE_SIZE).
    allowed_size: usize,
    /// Evicted entries, kept for their buffers.
    spare: Vec<Entry>,
    /// The field being decoded.
    name: Vec<u8>,
    value: Vec<u8>,
}

impl Decoder {
    pub fn new(allowed_size: usize) -> Decoder {
        Decoder {
            dynamic: VecDeque::new(),
            dynamic_size: 0,
            max_size: allowed_size,
            allowed_size,
            spare: Vec::new(),
            name: Vec::new(),
            value: Vec::new(),
        }
    }

    /// Decode a whole header block, calling `on_field(name, value)` for each field in order.
    pub fn decode(&mut self, block: &[u8], on_field: &mut impl FnMut(&[u8], &[u8])) -> Result<(), HpackError> {
        let mut rest = block;
        let mut fields_seen = false;
        while let Some(&first) = rest.first() {
            if first & 0x80 != 0 {
                let index = read_integer(&mut rest, 7)?;
                let (name, value) = self.field(index)?;
                on_field(name, value);
            } else if first & 0x40 != 0 {
                let name_index = read_integer(&mut rest, 6)?;
                self.read_literal(name_index, &mut rest)?;
                on_field(&self.name, &self.value);
                self.insert();
            } else if first & 0x20 != 0 {
                if fields_seen {
                    return Err(HpackError("a dynamic table size update after a header field"));
                }
                let size = read_integer(&mut rest, 5)?;
                if size > self.allowed_size {
                    return Err(HpackError("a dynamic table size above the allowed one"));
                }
                self.max_size = size;
                self.evict_until_fits(0);
                continue;
            } else {
                // Without indexing (0000) or never indexed (0001): the same for a client that forwards nothing.
                let name_index = read_integer(&mut rest, 4)?;
                self.read_literal(name_index, &mut rest)?;
                on_field(&self.name, &self.value);
            }
            fields_seen = true;
        }
        Ok(())
    }

    /// The field at `index` of the static then the dynamic table.
    fn field(&self, index: usize) -> Result<(&[u8], &[u8]), HpackError> {
        match index {
            0 => Err(HpackError("index 0")),
            1..=61 => {
                let (name, value) = STATIC_TABLE[index - 1];
                Ok((name.as_bytes(), value.as_bytes()))
            }
            _ => self
                .dynamic
                .get(index - 62)
                .map(|entry| (entry.name.as_slice(), entry.value.as_slice()))
                .ok_or(HpackError("an index beyond the tables")),
        }
    }

    /// A literal field into `name` and `value`: a new name (index 0) or the name of the indexed field, then the value.
    fn read_literal(&mut self, name_index: usize, rest: &mut &[u8]) -> Result<(), HpackError> {
        let mut name = std::mem::take(&mut self.name);
        name.clear();
        let named = if name_index == 0 {
            read_string(rest, &mut name)
        } else {
            self.field(name_index).map(|(indexed, _)| name.extend_from_slice(indexed))
        };
        self.name = name;
        named?;
        self.value.clear();
        read_string(rest, &mut self.value)
    }

    /// Add the field just decoded at the front of the dynamic table, evicting the oldest entries to make room (a
    /// field larger than the table empties it and is not added).
    fn insert(&mut self) {
        let size = self.name.len() + self.value.len() + ENTRY_OVERHEAD;
        self.evict_until_fits(size);
        if size > self.max_size {
            return;
        }
        let mut entry = self.spare.pop().unwrap_or_default();
        entry.name.clear();
        entry.name.extend_from_slice(&self.name);
        entry.value.clear();
        entry.value.extend_from_slice(&self.value);
        self.dynamic_size += size;
        self.dynamic.push_front(entry);
    }

    fn evict_until_fits(&mut self, incoming: usize) {
        while self.dynamic_size + incoming > self.max_size {
            let Some(evicted) = self.dynamic.pop_back() else { break };
            self.dynamic_size -= evicted.size();
            self.spare.push(evicted);
        }
    }
}

/// An integer with an `prefix_bits`-bit prefix (RFC 7541 §5.1), consumed from `rest`.
fn read_integer(rest: &mut &[u8], prefix_bits: u32) -> Result<usize, HpackError> {
    let truncated = HpackError("a truncated integer");
    let (&first, mut tail) = rest.split_first().ok_or(truncated.clone())?;
    let prefix_max = (1usize << prefix_bits) - 1;
    let mut value = usize::from(first) & prefix_max;
    if value == prefix_max {
        let mut shift = 0;
        loop {
            let (&byte, after) = tail.split_first().ok_or(truncated.clone())?;
            tail = after;
            if shift > 28 {
                return Err(HpackError("an integer too large"));
            }
            value += usize::from(byte & 0x7f) << shift;
            shift += 7;
            if byte & 0x80 == 0 {
                break;
            }
        }
    }
    *rest = tail;
    Ok(value)
}

/// A string literal (RFC 7541 §5.2), Huffman-coded or not, appended to `out` and consumed from `rest`.
fn read_string(rest: &mut &[u8], out: &mut Vec<u8>) -> Result<(), HpackError> {
    let huffman = rest.first().is_some_and(|first| first & 0x80 != 0);
    let length = read_integer(rest, 7)?;
    if rest.len() < length {
        return Err(HpackError("a string longer than its block"));
    }
    let (bytes, tail) = rest.split_at(length);
    if huffman {
        huffman_decode(bytes, out)?;
    } else {
        out.extend_from_slice(bytes);
    }
    *rest = tail;
    Ok(())
}

/// A node of the Huffman decoding tree: its two children (by the next bit), each a node index or a symbol.
type Node = [u16; 2];
/// Marks a child that is a symbol (its low bits), not a node.
const SYMBOL: u16 = 0x8000;
/// The end-of-string symbol, never part of a string.
const EOS: u16 = 256;

/// The decoding tree of HPACK's Huffman code, built once: node 0 is the root.
fn huffman_tree() -> &'static [Node] {
    static TREE: OnceLock<Vec<Node>> = OnceLock::new();
    TREE.get_or_init(|| {
        let mut tree: Vec<Node> = vec![[0, 0]];
        for (symbol, &(length, code)) in ENCODE_TABLE.iter().enumerate() {
            let mut node = 0;
            for position in (0..u32::from(length)).rev() {
                let bit = ((code >> position) & 1) as usize;
                if position == 0 {
                    tree[node][bit] = SYMBOL | symbol as u16;
                } else {
                    if tree[node][bit] == 0 {
                        tree.push([0, 0]);
                        tree[node][bit] = (tree.len() - 1) as u16;
                    }
                    node = usize::from(tree[node][bit]);
                }
            }
        }
        tree
    })
}

/// Decode a Huffman-coded string (RFC 7541 §5.2) onto `out`: the padding must be the EOS code's first bits (all
/// ones), shorter than a byte, and EOS itself may not appear.
fn huffman_decode(bytes: &[u8], out: &mut Vec<u8>) -> Result<(), HpackError> {
    let tree = huffman_tree();
    let mut node = 0usize;
    let mut bits_since_symbol = 0;
    let mut only_ones = true;
    for &byte in bytes {
        for position in (0..8).rev() {
            let bit = usize::from((byte >> position) & 1);
            let child = tree[node][bit];
            bits_since_symbol += 1;
            only_ones &= bit == 1;
            if child & SYMBOL == 0 {
                node = usize::from(child);
                continue;
            }
            let symbol = child & !SYMBOL;
            if symbol == EOS {
                return Err(HpackError("EOS inside a Huffman string"));
            }
            out.push(symbol as u8);
            (node, bits_since_symbol, only_ones) = (0, 0, true);
        }
    }
    if bits_since_symbol > 7 || !only_ones {
        return Err(HpackError("bad padding of a Huffman string"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_all(decoder: &mut Decoder, block: &[u8]) -> Vec<(String, String)> {
        let mut fields = Vec::new();
        decoder
            .decode(block, &mut |name, value| {
                fields.push((String::from_utf8_lossy(name).into_owned(), String::from_utf8_lossy(value).into_owned()))
            })
            .unwrap();
        fields
    }

    /// Blocks made by an independent encoder (httlib-hpack) — Huffman-coded, indexed, and referring to earlier
    /// blocks' entries — decode to the fields given.
    #[test]
    fn blocks_of_an_independent_encoder_decode_to_their_fields() {
        use httlib_hpack::Encoder;
        let mut encoder = Encoder::default();
        let mut decoder = Decoder::new(4096);
        let responses: [&[(&str, &str)]; 3] = [
            &[(":status", "200"), ("server", "nginx/1.22.1"), ("date", "Thu, 26 Nov 2026 17:00:00 GMT")],
            &[(":status", "200"), ("server", "nginx/1.22.1"), ("content-length", "5")],
            &[(":status", "404"), ("server", "nginx/1.22.1"), ("x-custom", "a value")],
        ];
        for fields in responses {
            let mut block = Vec::new();
            for (name, value) in fields {
                let flags =
                    Encoder::HUFFMAN_NAME | Encoder::HUFFMAN_VALUE | Encoder::WITH_INDEXING | Encoder::BEST_FORMAT;
                encoder.encode((name.as_bytes().to_vec(), value.as_bytes().to_vec(), flags), &mut block).unwrap();
            }
            let expected: Vec<(String, String)> =
                fields.iter().map(|(name, value)| (name.to_string(), value.to_string())).collect();
            assert_eq!(decode_all(&mut decoder, &block), expected);
        }
    }

    /// RFC 7541 C.4.1: "www.example.com", Huffman-coded.
    #[test]
    fn the_rfc_example_huffman_string_decodes() {
        let coded = [0xf1, 0xe3, 0xc2, 0xe5, 0xf2, 0x3a, 0x6b, 0xa0, 0xab, 0x90, 0xf4, 0xff];
        let mut out = Vec::new();
        huffman_decode(&coded, &mut out).unwrap();
        assert_eq!(out, b"www.example.com");
    }

    #[test]
    fn every_byte_survives_an_independent_huffman_encoder() {
        let all: Vec<u8> = (0..=255).collect();
        let mut coded = Vec::new();
        httlib_huffman::encode(&all, &mut coded).unwrap();
        let mut out = Vec::new();
        huffman_decode(&coded, &mut out).unwrap();
        assert_eq!(out, all);
    }

    #[test]
    fn huffman_padding_of_zeros_or_of_a_whole_byte_is_an_error() {
        // "a" is 00011 (5 bits): padded with 111 it is 0x1f; with 000 it is 0x18; with a further 0xff byte, too long.
        let mut out = Vec::new();
        assert_eq!(huffman_decode(&[0x1f], &mut out), Ok(()));
        assert_eq!(out, b"a");
        assert_eq!(huffman_decode(&[0x18], &mut out), Err(HpackError("bad padding of a Huffman string")));
        assert_eq!(huffman_decode(&[0x1f, 0xff], &mut out), Err(HpackError("bad padding of a Huffman string")));
    }

    #[test]
    fn the_oldest_entries_are_evicted_when_the_table_is_full() {
        let mut decoder = Decoder::new(100);
        // Literal with incremental indexing, new name: 0x40, name "a" , value of 30 bytes: 1 + 30 + 32 = 63 each.
        let field = |value: u8| {
            let mut block = vec![0x40, 1, b'a', 30];
            block.extend(std::iter::repeat_n(value, 30));
            block
        };
        decode_all(&mut decoder, &field(b'x'));
        decode_all(&mut decoder, &field(b'y'));
        assert_eq!(decoder.dynamic.len(), 1, "two entries of 63 do not fit in 100");
        assert_eq!(decode_all(&mut decoder, &[0x80 | 62]), vec![("a".to_string(), "y".repeat(30))]);
        assert!(decoder.spare.is_empty(), "the evicted entry's buffers hold the new one");
    }

    #[test]
    fn a_size_update_above_the_allowed_size_is_an_error() {
        let mut decoder = Decoder::new(4096);
        // 0x3f e2 1f: a size update to 31 + 0x62 + (0x1f << 7) = 4097.
        let result = decoder.decode(&[0x3f, 0xe2, 0x1f], &mut |_, _| {});
        assert_eq!(result, Err(HpackError("a dynamic table size above the allowed one")));
    }

    #[test]
    fn an_index_beyond_the_tables_is_an_error() {
        let result = Decoder::new(4096).decode(&[0x80 | 62], &mut |_, _| {});
        assert_eq!(result, Err(HpackError("an index beyond the tables")));
    }
}
