//! Reader of HotSpot's PerfData file (`/tmp/hsperfdata_<user>/<pid>`), the shared memory behind jstat and jps.
//!
//! Format (OpenJDK perfMemory.hpp / perfData.hpp, read by jvmstat's `v2_0.PerfDataBuffer`): a 32-byte prologue
//! (magic 0xcafec0c0 always big-endian, byte order, major/minor version, accessible flag, used, overflow,
//! modification time stamp, entry offset, number of entries) followed by entries (entry length, name offset,
//! vector length, data type char, flags, units, variability, data offset), in the byte order the prologue names.
//!
//! The whole file is read with one positioned read per [`PerfData::refresh`] (never mmap'ed: a JVM that exits or a
//! reused pid truncates the file, and an mmap reader would die of SIGBUS). Entry names are indexed once; values are
//! then read by offset. New entries (the JVM adds some after start-up) are indexed when the entry count grows.
//! Parsing never trusts the file: every offset is bounds-checked, so arbitrary bytes give an error, never a panic.

pub mod file;
pub mod gcutil;
pub mod sampler;

use std::collections::HashMap;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

const MAGIC: u32 = 0xcafe_c0c0;
const PROLOGUE_SIZE: usize = 32;
const ENTRY_HEADER_SIZE: usize = 20;
const SUPPORTED_MAJOR_VERSION: u8 = 2;
const BIG_ENDIAN: u8 = 0;
const TYPE_LONG: u8 = b'J';
const TYPE_BYTE: u8 = b'B';
const UNITS_STRING: u8 = 5;
/// How often jvmstat polls the accessible flag while a JVM starts (PerfDataBuffer.synchWithTarget).
const ACCESSIBLE_POLL: Duration = Duration::from_millis(20);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ByteOrder {
    Big,
    Little,
}

/// Where one counter's value lives in the buffer, found once by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counter {
    offset: usize,
    kind: Kind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A scalar `jlong` ('J').
    Long,
    /// A NUL-padded byte vector of units STRING ('B'), `len` bytes long.
    String { len: usize },
}

/// The fixed header of a PerfData buffer.
#[derive(Debug, Clone, Copy)]
struct Prologue {
    order: ByteOrder,
    accessible: bool,
    entry_offset: usize,
    num_entries: usize,
}

impl Prologue {
    fn parse(buf: &[u8]) -> Result<Self> {
        if buf.len() < PROLOGUE_SIZE {
            bail!("PerfData buffer is {} bytes, shorter than its {PROLOGUE_SIZE}-byte prologue", buf.len());
        }
        let magic = u32::from_be_bytes([buf[0], buf[1], buf[2], buf[3]]);
        if magic != MAGIC {
            bail!("not a PerfData file (magic {magic:#010x}, expected {MAGIC:#010x})");
        }
        let order = if buf[4] == BIG_ENDIAN { ByteOrder::Big } else { ByteOrder::Little };
        let (major, minor) = (buf[5], buf[6]);
        if major != SUPPORTED_MAJOR_VERSION {
            bail!("PerfData version {major}.{minor} is not supported (only {SUPPORTED_MAJOR_VERSION}.x)");
        }
        let entry_offset = read_i32(buf, 24, order).unwrap_or(-1);
        let num_entries = read_i32(buf, 28, order).unwrap_or(-1);
        let (Ok(entry_offset), Ok(num_entries)) = (usize::try_from(entry_offset), usize::try_from(num_entries)) else {
            bail!("corrupt PerfData prologue (entry offset {entry_offset}, {num_entries} entries)");
        };
        Ok(Prologue { order, accessible: buf[7] != 0, entry_offset, num_entries })
    }
}

/// The name → counter index of one buffer, grown as the JVM adds entries.
#[derive(Debug)]
struct Index {
    order: ByteOrder,
    counters: HashMap<String, Counter>,
    /// Entries parsed so far (compared with the prologue's count to notice new ones).
    parsed_entries: usize,
    /// Offset of the first entry not parsed yet.
    next_entry: usize,
}

impl Index {
    fn build(buf: &[u8], prologue: &Prologue) -> Self {
        let mut index = Index {
            order: prologue.order,
            counters: HashMap::new(),
            parsed_entries: 0,
            next_entry: prologue.entry_offset,
        };
        index.add_new_entries(buf, prologue.num_entries);
        index
    }

    /// Parses entries from `next_entry` until `num_entries` are known. An entry that is not complete yet (the JVM
    /// counts an entry before it has copied it in) stops the walk; it is read again on the next refresh.
    fn add_new_entries(&mut self, buf: &[u8], num_entries: usize) {
        while self.parsed_entries < num_entries {
            let Some(entry) = parse_entry(buf, self.next_entry, self.order) else {
                break;
            };
            if let Some((name, counter)) = entry.counter {
                self.counters.entry(name).or_insert(counter);
            }
            self.next_entry = entry.next;
            self.parsed_entries += 1;
        }
    }
}

struct ParsedEntry {
    /// The entry's name and value location, or None for a type jload does not read (int, double, …).
    counter: Option<(String, Counter)>,
    next: usize,
}

/// Parses the entry at `start`, or returns None if it is out of bounds, misaligned, zero-length or inconsistent.
fn parse_entry(buf: &[u8], start: usize, order: ByteOrder) -> Option<ParsedEntry> {
    if !start.is_multiple_of(4) {
        return None;
    }
    let header = buf.get(start..start.checked_add(ENTRY_HEADER_SIZE)?)?;
    let entry_length = usize::try_from(read_i32(header, 0, order)?).ok()?;
    let name_offset = usize::try_from(read_i32(header, 4, order)?).ok()?;
    let vector_length = usize::try_from(read_i32(header, 8, order)?).ok()?;
    let (data_type, units) = (header[12], header[14]);
    let data_offset = usize::try_from(read_i32(header, 16, order)?).ok()?;
    if entry_length < ENTRY_HEADER_SIZE || name_offset >= data_offset || data_offset > entry_length {
        return None;
    }
    let entry = buf.get(start..start.checked_add(entry_length)?)?;
    let name_field = &entry[name_offset..data_offset];
    let name_end = name_field.iter().position(|&b| b == 0)?;
    let name = std::str::from_utf8(&name_field[..name_end]).ok()?.to_owned();
    let data_len = entry_length - data_offset;
    let kind = match (data_type, vector_length) {
        (TYPE_LONG, 0) if data_len >= 8 => Some(Kind::Long),
        (TYPE_BYTE, len) if len > 0 && units == UNITS_STRING && len <= data_len => Some(Kind::String { len }),
        _ => None,
    };
    let counter = kind.map(|kind| (name, Counter { offset: start + data_offset, kind }));
    Some(ParsedEntry { counter, next: start + entry_length })
}

fn read_i32(buf: &[u8], at: usize, order: ByteOrder) -> Option<i32> {
    let bytes: [u8; 4] = buf.get(at..at.checked_add(4)?)?.try_into().ok()?;
    Some(match order {
        ByteOrder::Big => i32::from_be_bytes(bytes),
        ByteOrder::Little => i32::from_le_bytes(bytes),
    })
}

fn read_i64(buf: &[u8], at: usize, order: ByteOrder) -> Option<i64> {
    let bytes: [u8; 8] = buf.get(at..at.checked_add(8)?)?.try_into().ok()?;
    Some(match order {
        ByteOrder::Big => i64::from_be_bytes(bytes),
        ByteOrder::Little => i64::from_le_bytes(bytes),
    })
}

/// A parsed copy of a PerfData buffer: counters by name, values read from the copy.
#[derive(Debug)]
pub struct Snapshot {
    buf: Vec<u8>,
    index: Index,
}

impl Snapshot {
    /// Parses a buffer (a whole PerfData file). Fails if it is not PerfData v2 or not accessible yet.
    pub fn parse(buf: Vec<u8>) -> Result<Self> {
        let prologue = Prologue::parse(&buf)?;
        if !prologue.accessible {
            bail!("the JVM has not marked its PerfData accessible yet (still starting)");
        }
        let index = Index::build(&buf, &prologue);
        Ok(Snapshot { buf, index })
    }

    /// The counter called `name`, if the JVM publishes it (as a long or a string).
    pub fn counter(&self, name: &str) -> Option<Counter> {
        self.index.counters.get(name).copied()
    }

    /// How many entries have been indexed (grows when the JVM adds counters).
    pub fn entry_count(&self) -> usize {
        self.index.parsed_entries
    }

    /// The current value of a long counter; None if `counter` is a string.
    pub fn long(&self, counter: Counter) -> Option<i64> {
        match counter.kind {
            Kind::Long => read_i64(&self.buf, counter.offset, self.index.order),
            Kind::String { .. } => None,
        }
    }

    /// The current value of a string counter (up to its first NUL); None if `counter` is a long.
    pub fn string(&self, counter: Counter) -> Option<String> {
        let Kind::String { len } = counter.kind else {
            return None;
        };
        let bytes = self.buf.get(counter.offset..counter.offset.checked_add(len)?)?;
        let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
        Some(String::from_utf8_lossy(&bytes[..end]).into_owned())
    }

    /// Shorthand: the value of the long counter `name`.
    pub fn long_named(&self, name: &str) -> Option<i64> {
        self.long(self.counter(name)?)
    }

    /// Shorthand: the value of the string counter `name`.
    pub fn string_named(&self, name: &str) -> Option<String> {
        self.string(self.counter(name)?)
    }

    /// Re-parses the prologue after the buffer was refilled and indexes entries added since.
    fn reindex_if_grown(&mut self) -> Result<()> {
        let prologue = Prologue::parse(&self.buf)?;
        if prologue.num_entries > self.index.parsed_entries {
            self.index.add_new_entries(&self.buf, prologue.num_entries);
        }
        Ok(())
    }
}

/// An open PerfData file, re-read with one positioned read per refresh.
#[derive(Debug)]
pub struct PerfData {
    file: File,
    snapshot: Snapshot,
}

impl PerfData {
    /// Opens the file and waits (at most `accessible_wait`) for the JVM to mark it accessible, like jvmstat does.
    /// A file still being created by a starting JVM (empty, or zeros before the magic is written) is waited for too.
    pub fn open(path: &Path, accessible_wait: Duration) -> Result<Self> {
        let file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
        let deadline = Instant::now() + accessible_wait;
        loop {
            let len = file.metadata().with_context(|| format!("cannot stat {}", path.display()))?.len();
            let mut buf = vec![0; usize::try_from(len).context("PerfData file too large")?];
            read_fully(&file, &mut buf).with_context(|| format!("cannot read {}", path.display()))?;
            let being_created = buf.len() < PROLOGUE_SIZE || buf[..4] == [0; 4];
            if !being_created {
                let prologue = Prologue::parse(&buf).with_context(|| format!("{} is not usable", path.display()))?;
                if prologue.accessible {
                    let snapshot = Snapshot::parse(buf)?;
                    return Ok(PerfData { file, snapshot });
                }
            }
            if Instant::now() >= deadline {
                bail!(
                    "{}: the JVM did not mark its PerfData accessible within {} ms (still starting?)",
                    path.display(),
                    accessible_wait.as_millis()
                );
            }
            std::thread::sleep(ACCESSIBLE_POLL);
        }
    }

    /// Reads the whole file again (one pread) and indexes any new entries. Fails if the file shrank, which
    /// happens when the JVM exits or its pid is reused.
    pub fn refresh(&mut self) -> Result<&Snapshot> {
        read_fully(&self.file, &mut self.snapshot.buf)?;
        self.snapshot.reindex_if_grown()?;
        Ok(&self.snapshot)
    }

    /// The values read by the last [`open`](Self::open) or [`refresh`](Self::refresh).
    pub fn snapshot(&self) -> &Snapshot {
        &self.snapshot
    }
}

/// Fills `buf` from offset 0 with positioned reads; a short file is an error (the JVM truncated or removed it).
fn read_fully(file: &File, buf: &mut [u8]) -> Result<()> {
    file.read_exact_at(buf, 0).context("the PerfData file is shorter than when it was opened (the JVM exited?)")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const JDK17_G1: &[u8] = include_bytes!("../../../tests/fixtures/hsperfdata/jdk17-g1");
    const JDK25_ZGC: &[u8] = include_bytes!("../../../tests/fixtures/hsperfdata/jdk25-zgc");

    /// Rewrites a little-endian PerfData buffer in big-endian order: the prologue's and every entry's header
    /// integers and every long value are byte-swapped, and the byte-order flag is set to big-endian.
    fn to_big_endian(little: &[u8]) -> Vec<u8> {
        fn swap(buf: &mut [u8], at: usize, len: usize) {
            buf[at..at + len].reverse();
        }
        let mut big = little.to_vec();
        let prologue = Prologue::parse(little).unwrap();
        assert_eq!(prologue.order, ByteOrder::Little);
        big[4] = BIG_ENDIAN;
        for at in [8, 12, 24, 28] {
            swap(&mut big, at, 4);
        }
        swap(&mut big, 16, 8);
        let mut at = prologue.entry_offset;
        for _ in 0..prologue.num_entries {
            let entry = parse_entry(little, at, ByteOrder::Little).unwrap();
            if let Some((_, Counter { offset, kind: Kind::Long })) = entry.counter {
                swap(&mut big, offset, 8);
            }
            for field in [0, 4, 8, 16] {
                swap(&mut big, at + field, 4);
            }
            at = entry.next;
        }
        big
    }

    #[test]
    fn reads_counters_of_a_real_jdk17_file() {
        let snap = Snapshot::parse(JDK17_G1.to_vec()).unwrap();
        assert_eq!(snap.long_named("sun.os.hrt.frequency"), Some(1_000_000_000));
        assert_eq!(snap.string_named("sun.gc.collector.0.name").as_deref(), Some("G1 young collection pauses"));
        assert!(snap.string_named("java.property.java.vm.version").unwrap().starts_with("17."));
        assert!(snap.long_named("sun.gc.collector.0.invocations").unwrap() > 0);
        assert_eq!(snap.long_named("sun.gc.collector.0.name"), None, "a string is not a long");
        let entries = Prologue::parse(JDK17_G1).unwrap().num_entries;
        assert!(entries > 150, "a JVM publishes a couple of hundred counters, not {entries}");
        assert_eq!(snap.index.parsed_entries, entries);
        assert_eq!(snap.names().count(), entries, "every HotSpot counter is a long or a string");
    }

    #[test]
    fn reads_counters_of_a_real_jdk25_file() {
        let snap = Snapshot::parse(JDK25_ZGC.to_vec()).unwrap();
        assert!(snap.string_named("java.property.java.vm.version").unwrap().starts_with("25."));
        assert_eq!(snap.string_named("sun.gc.collector.2.name").as_deref(), Some("ZGC major collection pauses"));
    }

    #[test]
    fn big_endian_buffer_gives_the_same_values() {
        let little = Snapshot::parse(JDK17_G1.to_vec()).unwrap();
        let big = Snapshot::parse(to_big_endian(JDK17_G1)).unwrap();
        assert_eq!(big.index.order, ByteOrder::Big);
        assert_eq!(little.names().count(), big.names().count());
        for name in little.names() {
            let (l, b) = (little.counter(name).unwrap(), big.counter(name).unwrap());
            assert_eq!(little.long(l), big.long(b), "{name}");
            assert_eq!(little.string(l), big.string(b), "{name}");
        }
    }

    #[test]
    fn rejects_wrong_magic_version_and_inaccessible_buffers() {
        let mut bad_magic = JDK17_G1.to_vec();
        bad_magic[0] = 0;
        assert!(Snapshot::parse(bad_magic).unwrap_err().to_string().contains("magic"));
        let mut version_1 = JDK17_G1.to_vec();
        version_1[5] = 1;
        assert!(Snapshot::parse(version_1).unwrap_err().to_string().contains("version 1"));
        let mut starting = JDK17_G1.to_vec();
        starting[7] = 0;
        assert!(Snapshot::parse(starting).unwrap_err().to_string().contains("accessible"));
        assert!(Snapshot::parse(vec![0xca, 0xfe]).is_err());
    }

    #[test]
    fn indexes_entries_added_after_the_first_parse() {
        // Pretend the JVM had published only 10 entries, then "refresh" with the real count.
        let mut snap = Snapshot::parse(JDK17_G1.to_vec()).unwrap();
        let all = snap.names().count();
        let real_count = Prologue::parse(JDK17_G1).unwrap().num_entries;
        let mut early = JDK17_G1.to_vec();
        early[28..32].copy_from_slice(&10i32.to_le_bytes());
        snap = Snapshot::parse(early).unwrap();
        assert!(snap.names().count() <= 10);
        snap.buf[28..32].copy_from_slice(&(real_count as i32).to_le_bytes());
        snap.reindex_if_grown().unwrap();
        assert_eq!(snap.names().count(), all);
    }

    fn temp_file(name: &str, contents: &[u8]) -> std::path::PathBuf {
        let path = std::env::temp_dir().join(format!("jload-perfdata-{}-{name}", std::process::id()));
        std::fs::write(&path, contents).unwrap();
        path
    }

    #[test]
    fn open_waits_for_a_starting_jvm_and_refresh_sees_new_values() {
        let mut starting = JDK17_G1.to_vec();
        starting[..4].fill(0); // created and zero-filled, magic not written yet
        let path = temp_file("starting", &starting);
        let writer = {
            let path = path.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(150));
                std::fs::OpenOptions::new().write(true).open(path).unwrap().write_all_at(&JDK17_G1[..4], 0).unwrap();
            })
        };
        let mut perfdata = PerfData::open(&path, Duration::from_secs(5)).unwrap();
        writer.join().unwrap();
        let counter = perfdata.snapshot().counter("sun.gc.collector.0.invocations").unwrap();
        let before = perfdata.snapshot().long(counter).unwrap();

        let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        file.write_all_at(&(before + 7).to_le_bytes(), counter.offset as u64).unwrap();
        assert_eq!(perfdata.refresh().unwrap().long(counter), Some(before + 7), "one pread per refresh");

        file.set_len(1024).unwrap(); // what a JVM exiting or a reused pid does to the file
        assert!(perfdata.refresh().unwrap_err().to_string().contains("shorter"));
        std::fs::remove_file(path).unwrap();
    }

    #[test]
    fn open_gives_up_on_a_jvm_that_never_becomes_accessible() {
        let mut never = JDK17_G1.to_vec();
        never[7] = 0;
        let path = temp_file("never", &never);
        let started = Instant::now();
        let err = PerfData::open(&path, Duration::from_millis(100)).unwrap_err().to_string();
        assert!(err.contains("did not mark its PerfData accessible within 100 ms"), "{err}");
        assert!(started.elapsed() < Duration::from_secs(2));
        std::fs::remove_file(path).unwrap();
    }

    impl Snapshot {
        fn names(&self) -> impl Iterator<Item = &str> {
            self.index.counters.keys().map(String::as_str)
        }
    }

    /// Parses and reads every counter: what a sampler does with a buffer.
    fn read_everything(buf: Vec<u8>) {
        if let Ok(snap) = Snapshot::parse(buf) {
            let names: Vec<String> = snap.names().map(str::to_owned).collect();
            for name in names {
                let counter = snap.counter(&name).unwrap();
                let _ = (snap.long(counter), snap.string(counter));
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn never_panics_on_mutated_real_files(
            mutations in prop::collection::vec((0usize..16384, any::<u8>()), 1..40),
            keep in 0usize..=32768,
            jdk25 in any::<bool>(),
        ) {
            let original = if jdk25 { JDK25_ZGC } else { JDK17_G1 };
            let mut buf = original.to_vec();
            for (at, byte) in mutations {
                let at = at % buf.len();
                buf[at] = byte;
            }
            buf.truncate(keep);
            read_everything(buf);
        }

        #[test]
        fn never_panics_on_arbitrary_bytes(mut buf in prop::collection::vec(any::<u8>(), 0..2048), little in any::<bool>()) {
            if buf.len() >= 8 {
                buf[..4].copy_from_slice(&MAGIC.to_be_bytes());
                buf[4] = u8::from(little);
                buf[5] = SUPPORTED_MAJOR_VERSION;
                buf[7] = 1;
            }
            read_everything(buf);
        }
    }
}
