//! A `.jfr` file as a sequence of chunks, read one at a time into one reused buffer, so memory follows the largest
//! chunk (the JDK cuts chunks at about 12 MB), not the file; and the one-line errors for a file that is missing, is
//! no recording, or was cut short.

use std::fs::File;
use std::io::{self, Read as _, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use super::bytes::Malformed;
use super::chunk_header::{ChunkHeader, HEADER_SIZE, MAGIC};
use crate::error::bad_input;

/// The format's major version jload reads (JDK 11 and later write 2.0 or 2.1).
const SUPPORTED_MAJOR: u16 = 2;

/// One chunk: its header and all its bytes, header included (offsets in the format are from the chunk's start).
pub struct Chunk<'a> {
    /// 1 for the file's first chunk.
    pub number: usize,
    pub header: ChunkHeader,
    pub bytes: &'a [u8],
}

/// An open recording, read chunk by chunk.
pub struct JfrFile {
    path: PathBuf,
    file: File,
    length: u64,
    next_offset: u64,
    chunks_read: usize,
    buffer: Vec<u8>,
}

impl JfrFile {
    /// Opens `path` and checks that it starts as a recording.
    pub fn open(path: &Path) -> anyhow::Result<JfrFile> {
        let cannot_read = |err: io::Error| {
            bad_input(format!("cannot read {}: {err}; give the path of a JFR recording (.jfr)", path.display()))
        };
        let file = File::open(path).map_err(cannot_read)?;
        let metadata = file.metadata().map_err(cannot_read)?;
        if metadata.is_dir() {
            return Err(bad_input(format!("{} is a folder; give the path of a JFR recording (.jfr)", path.display())));
        }
        let mut jfr = JfrFile {
            path: path.to_owned(),
            file,
            length: metadata.len(),
            next_offset: 0,
            chunks_read: 0,
            buffer: vec![],
        };
        let mut magic = [0u8; 4];
        let starts_as_recording = jfr.file.read_exact(&mut magic).is_ok() && &magic == MAGIC;
        if !starts_as_recording {
            return Err(bad_input(format!(
                "{} is not a JFR recording (it does not start with the bytes FLR\\0): give a .jfr file written by \
                 -XX:StartFlightRecording or jcmd PID JFR.dump",
                path.display()
            )));
        }
        Ok(jfr)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file's size in bytes.
    pub fn length(&self) -> u64 {
        self.length
    }

    /// The next chunk, or None after the last.
    pub fn next_chunk(&mut self) -> anyhow::Result<Option<Chunk<'_>>> {
        if self.next_offset >= self.length {
            return Ok(None);
        }
        let number = self.chunks_read + 1;
        let start = self.next_offset;
        let left = self.length - start;
        if left < HEADER_SIZE as u64 {
            return Err(self.truncated(number, start, HEADER_SIZE as u64));
        }
        let mut header_bytes = [0u8; HEADER_SIZE];
        self.file.seek(SeekFrom::Start(start))?;
        self.file.read_exact(&mut header_bytes)?;
        if &header_bytes[..4] != MAGIC {
            return Err(bad_input(format!(
                "{}: chunk {number} at byte {start} does not start with FLR\\0: the file is damaged or has other \
                 data appended; give a .jfr file as the JVM wrote it",
                self.path.display()
            )));
        }
        let header = ChunkHeader::parse(&header_bytes).map_err(|err| self.damaged(number, &err))?;
        if header.major != SUPPORTED_MAJOR {
            return Err(bad_input(format!(
                "{}: chunk {number} is JFR format {}.{}; jload reads format {SUPPORTED_MAJOR}.x (JDK 11 and later)",
                self.path.display(),
                header.major,
                header.minor
            )));
        }
        if header.size == 0 || header.metadata_offset == 0 {
            return Err(bad_input(format!(
                "{}: chunk {number} is still being written (its header has no size yet): read a recording the JVM \
                 has finished, e.g. one dumped with jcmd PID JFR.dump",
                self.path.display()
            )));
        }
        if header.size < HEADER_SIZE as u64 {
            return Err(
                self.damaged(number, &Malformed { offset: 8, what: format!("a chunk size of {}", header.size) })
            );
        }
        if header.size > left {
            return Err(self.truncated(number, start, header.size));
        }
        let size = usize::try_from(header.size)?;
        self.buffer.clear();
        self.buffer.resize(size, 0);
        self.buffer[..HEADER_SIZE].copy_from_slice(&header_bytes);
        self.file.read_exact(&mut self.buffer[HEADER_SIZE..])?;
        let in_chunk = |offset: u64| offset >= HEADER_SIZE as u64 && offset < header.size;
        if !in_chunk(header.metadata_offset) || !in_chunk(header.constant_pool_offset) {
            return Err(self.damaged(
                number,
                &Malformed { offset: 16, what: "a metadata or constant pool offset outside the chunk".into() },
            ));
        }
        self.next_offset = start + header.size;
        self.chunks_read = number;
        Ok(Some(Chunk { number, header, bytes: &self.buffer }))
    }

    fn truncated(&self, number: usize, start: u64, needed: u64) -> anyhow::Error {
        bad_input(format!(
            "{} is truncated: chunk {number} at byte {start} needs {needed} bytes but the file ends {} bytes after \
             its start; the recording was cut short: copy or dump it again (jcmd PID JFR.dump)",
            self.path.display(),
            self.length - start
        ))
    }

    fn damaged(&self, number: usize, err: &Malformed) -> anyhow::Error {
        damaged(&self.path, number, err)
    }
}

/// The error for a chunk of `path` whose content breaks the format.
pub fn damaged(path: &Path, number: usize, err: &Malformed) -> anyhow::Error {
    bad_input(format!("{}: chunk {number} is damaged: {err}; give a .jfr file as the JVM wrote it", path.display()))
}
