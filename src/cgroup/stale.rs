//! Boxes a jload left behind when it was killed (SIGKILL leaves no chance to remove them): at the next start, every
//! `jload/<pid>-<n>` folder whose jload is no longer alive is emptied and removed. A folder whose pid is alive is
//! left alone: it belongs to a jload running now (or, after pid reuse, waits for the next start).

use std::io;
use std::path::Path;
use std::time::Instant;

use super::cell_box::REMOVE_TIMEOUT;
use super::files::{empty_and_remove, io_error};
use super::{BoxName, CgroupError, Cgroups};

/// Remove the boxes of jloads that are gone, in every hierarchy; their names, each once, sorted.
pub fn remove_stale(cgroups: &Cgroups) -> Result<Vec<String>, CgroupError> {
    let mut removed = Vec::new();
    for home in cgroups.homes() {
        let entries = match std::fs::read_dir(&home) {
            Ok(entries) => entries,
            Err(err) if err.kind() == io::ErrorKind::NotFound => continue,
            Err(err) => return Err(io_error("list", &home, err)),
        };
        for entry in entries {
            let entry = entry.map_err(|err| io_error("list", &home, err))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let Some(owner) = BoxName::owner_of(&name) else { continue };
            if !entry.path().is_dir() || alive(owner) {
                continue;
            }
            empty_and_remove(&[&entry.path()], Instant::now() + REMOVE_TIMEOUT)?;
            removed.push(name);
        }
        // Fails while a live jload's box is in it.
        let _ = std::fs::remove_dir(&home);
    }
    removed.sort();
    removed.dedup();
    Ok(removed)
}

fn alive(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}
