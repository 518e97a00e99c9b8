//! Reading the primitive encodings of a JFR chunk out of its bytes: fixed big-endian integers, the LEB128-style
//! compressed integers a chunk uses when its header's `compressedIntegers` flag is set, floats, and strings in every
//! encoding the format has (null, empty, a constant-pool reference, UTF-8, char array, Latin-1).

use std::fmt;

/// Where a chunk's bytes ran out or held something the format does not allow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Malformed {
    /// Offset in the chunk where reading failed.
    pub offset: usize,
    pub what: String,
}

impl fmt::Display for Malformed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {} of the chunk", self.what, self.offset)
    }
}

pub type Read<T> = Result<T, Malformed>;

/// How a chunk writes short, char, int and long values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntEncoding {
    /// Big-endian, 2, 4 or 8 bytes.
    Fixed,
    /// 7 bits a byte, lowest first, the high bit set while more follow; the ninth byte of a long holds 8 bits.
    Compressed,
}

/// A string as the format writes it; a pool reference is resolved by the reader that has the pools.
#[derive(Debug, Clone, PartialEq)]
pub enum RawString {
    Null,
    Text(String),
    /// A key into the chunk's `java.lang.String` constant pool.
    PoolRef(u64),
}

/// The string encodings' tag bytes.
mod string_tag {
    pub const NULL: u8 = 0;
    pub const EMPTY: u8 = 1;
    pub const CONSTANT_POOL: u8 = 2;
    pub const UTF8: u8 = 3;
    pub const CHAR_ARRAY: u8 = 4;
    pub const LATIN1: u8 = 5;
}

/// A read position in one chunk's bytes.
#[derive(Clone)]
pub struct Cursor<'a> {
    bytes: &'a [u8],
    pub position: usize,
    encoding: IntEncoding,
}

impl<'a> Cursor<'a> {
    pub fn new(bytes: &'a [u8], position: usize, encoding: IntEncoding) -> Cursor<'a> {
        Cursor { bytes, position, encoding }
    }

    pub fn malformed(&self, what: impl Into<String>) -> Malformed {
        Malformed { offset: self.position, what: what.into() }
    }

    fn take(&mut self, count: usize) -> Read<&'a [u8]> {
        let end = self.position.checked_add(count).filter(|&end| end <= self.bytes.len());
        match end {
            Some(end) => {
                let taken = &self.bytes[self.position..end];
                self.position = end;
                Ok(taken)
            }
            None => Err(self.malformed(format!("{count} bytes wanted past the end of the chunk"))),
        }
    }

    pub fn skip(&mut self, count: usize) -> Read<()> {
        self.take(count).map(|_| ())
    }

    pub fn u8(&mut self) -> Read<u8> {
        let byte = *self.bytes.get(self.position).ok_or_else(|| self.malformed("a byte wanted past the end"))?;
        self.position += 1;
        Ok(byte)
    }

    pub fn bool(&mut self) -> Read<bool> {
        Ok(self.u8()? != 0)
    }

    fn fixed<const N: usize>(&mut self) -> Read<[u8; N]> {
        Ok(self.take(N)?.try_into().expect("take returns N bytes"))
    }

    /// A big-endian 8-byte value, whatever the chunk's integer encoding (the chunk header and floats).
    pub fn fixed_u64(&mut self) -> Read<u64> {
        Ok(u64::from_be_bytes(self.fixed()?))
    }

    pub fn fixed_u32(&mut self) -> Read<u32> {
        Ok(u32::from_be_bytes(self.fixed()?))
    }

    /// A compressed integer: up to 9 bytes, 7 bits each, the ninth with 8.
    pub fn varint(&mut self) -> Read<u64> {
        let mut value = 0u64;
        for index in 0..8 {
            let byte = self.u8()?;
            value |= u64::from(byte & 0x7f) << (7 * index);
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Ok(value | u64::from(self.u8()?) << 56)
    }

    /// A long (also the width keys and ids are read at).
    pub fn long(&mut self) -> Read<u64> {
        match self.encoding {
            IntEncoding::Compressed => self.varint(),
            IntEncoding::Fixed => self.fixed_u64(),
        }
    }

    pub fn int(&mut self) -> Read<i32> {
        match self.encoding {
            IntEncoding::Compressed => Ok(self.varint()? as i32),
            IntEncoding::Fixed => Ok(self.fixed_u32()? as i32),
        }
    }

    pub fn short(&mut self) -> Read<i16> {
        match self.encoding {
            IntEncoding::Compressed => Ok(self.varint()? as i16),
            IntEncoding::Fixed => Ok(i16::from_be_bytes(self.fixed()?)),
        }
    }

    pub fn char(&mut self) -> Read<u16> {
        Ok(self.short()? as u16)
    }

    pub fn float(&mut self) -> Read<f32> {
        Ok(f32::from_bits(self.fixed_u32()?))
    }

    pub fn double(&mut self) -> Read<f64> {
        Ok(f64::from_bits(self.fixed_u64()?))
    }

    /// A count of elements or bytes that follow, checked to be no more than the bytes left (each element takes one
    /// byte at least), so a corrupt count cannot ask for a huge allocation.
    pub fn length(&mut self) -> Read<usize> {
        let at = self.position;
        let length = self.int()?;
        let left = self.bytes.len() - self.position;
        usize::try_from(length).ok().filter(|&length| length <= left).ok_or_else(|| Malformed {
            offset: at,
            what: format!("a length of {length} with {left} bytes left in the chunk"),
        })
    }

    pub fn string(&mut self) -> Read<RawString> {
        let at = self.position;
        match self.u8()? {
            string_tag::NULL => Ok(RawString::Null),
            string_tag::EMPTY => Ok(RawString::Text(String::new())),
            string_tag::CONSTANT_POOL => Ok(RawString::PoolRef(self.long()?)),
            string_tag::UTF8 => {
                let length = self.length()?;
                Ok(RawString::Text(String::from_utf8_lossy(self.take(length)?).into_owned()))
            }
            string_tag::CHAR_ARRAY => {
                let length = self.length()?;
                let mut units = Vec::with_capacity(length);
                for _ in 0..length {
                    units.push(self.char()?);
                }
                Ok(RawString::Text(String::from_utf16_lossy(&units)))
            }
            string_tag::LATIN1 => {
                let length = self.length()?;
                let bytes = self.take(length)?;
                Ok(RawString::Text(match std::str::from_utf8(bytes) {
                    // ASCII, the usual case, is the same in UTF-8.
                    Ok(ascii) if bytes.is_ascii() => ascii.to_owned(),
                    _ => bytes.iter().map(|&byte| char::from(byte)).collect(),
                }))
            }
            tag => Err(Malformed { offset: at, what: format!("unknown string encoding {tag}") }),
        }
    }

    /// Steps over a string without building it.
    pub fn skip_string(&mut self) -> Read<()> {
        let at = self.position;
        match self.u8()? {
            string_tag::NULL | string_tag::EMPTY => Ok(()),
            string_tag::CONSTANT_POOL => self.long().map(|_| ()),
            string_tag::UTF8 | string_tag::LATIN1 => {
                let length = self.length()?;
                self.skip(length)
            }
            string_tag::CHAR_ARRAY => {
                for _ in 0..self.length()? {
                    self.char()?;
                }
                Ok(())
            }
            tag => Err(Malformed { offset: at, what: format!("unknown string encoding {tag}") }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compressed(bytes: &[u8]) -> Cursor<'_> {
        Cursor::new(bytes, 0, IntEncoding::Compressed)
    }

    #[test]
    fn compressed_integers_take_seven_bits_a_byte_and_eight_in_the_ninth() {
        assert_eq!(compressed(&[0x05]).long().unwrap(), 5);
        assert_eq!(compressed(&[0xac, 0x02]).long().unwrap(), 300);
        let all_ones = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff];
        assert_eq!(compressed(&all_ones).long().unwrap(), u64::MAX);
        // A negative int is written as its 32 bits, unsigned.
        assert_eq!(compressed(&[0xff, 0xff, 0xff, 0xff, 0x0f]).int().unwrap(), -1);
    }

    #[test]
    fn fixed_integers_are_big_endian() {
        let bytes = [0, 0, 1, 2, 0, 0, 0, 0, 0, 0, 0, 7];
        let mut cursor = Cursor::new(&bytes, 0, IntEncoding::Fixed);
        assert_eq!(cursor.int().unwrap(), 258);
        assert_eq!(cursor.long().unwrap(), 7);
    }

    #[test]
    fn strings_in_each_encoding() {
        let bytes = [
            0, // null
            1, // empty
            2, 42, // pool key 42
            3, 2, b'h', b'i', // UTF-8
            4, 2, 0xe9, 0x01, b'x', // chars: U+00E9, 'x'
            5, 2, 0xe9, b'y', // Latin-1
        ];
        let mut cursor = compressed(&bytes);
        let text = |s: &str| RawString::Text(s.to_owned());
        assert_eq!(cursor.string().unwrap(), RawString::Null);
        assert_eq!(cursor.string().unwrap(), text(""));
        assert_eq!(cursor.string().unwrap(), RawString::PoolRef(42));
        assert_eq!(cursor.string().unwrap(), text("hi"));
        assert_eq!(cursor.string().unwrap(), text("\u{e9}x"));
        assert_eq!(cursor.string().unwrap(), text("\u{e9}y"));
        let mut skipping = compressed(&bytes);
        for _ in 0..6 {
            skipping.skip_string().unwrap();
        }
        assert_eq!(skipping.position, bytes.len());
    }

    #[test]
    fn running_out_and_impossible_lengths_are_malformed_not_panics() {
        assert!(compressed(&[0x80]).long().is_err());
        assert!(compressed(&[3, 100, b'a']).string().unwrap_err().what.contains("a length of 100"));
        assert!(compressed(&[9]).string().unwrap_err().what.contains("unknown string encoding 9"));
    }
}
