//! Writing files atomically (a temporary file, fsync, rename), so a reader or a crash never leaves half a file.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;

pub fn write_atomically(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(".tmp");
    let temporary = PathBuf::from(temporary);
    let write = || -> std::io::Result<()> {
        let mut file = std::fs::File::create(&temporary)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&temporary, path)
    };
    write().map_err(|err| anyhow::anyhow!("cannot write {}: {err}", path.display()))
}

/// Pretty JSON with a final newline, written atomically.
pub fn write_json<T: Serialize>(path: &Path, value: &T) -> anyhow::Result<()> {
    let mut bytes = serde_json::to_vec_pretty(value)?;
    bytes.push(b'\n');
    write_atomically(path, &bytes)
}
