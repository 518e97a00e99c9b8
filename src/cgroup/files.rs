//! The file operations both cgroup versions share: a number or a `key value` table read from a cgroup file, a value
//! written to one, the processes of a cgroup (and of the cgroups below it) listed, killed and waited for, and its
//! folders removed — each error naming the file.

use std::collections::HashMap;
use std::ffi::CStr;
use std::io;
use std::path::{Path, PathBuf};
use std::thread;
use std::time::{Duration, Instant};

use super::CgroupError;

/// The error for a cgroup file that could not be used.
pub fn io_error(what: &str, path: &Path, err: impl std::fmt::Display) -> CgroupError {
    CgroupError::Io(format!("cannot {what} {}: {err}", path.display()))
}

pub fn read_text(path: &Path) -> Result<String, CgroupError> {
    std::fs::read_to_string(path).map_err(|err| io_error("read", path, err))
}

/// A file holding one number (`memory.usage_in_bytes`, `memory.current` …).
pub fn read_u64(path: &Path) -> Result<u64, CgroupError> {
    let text = read_text(path)?;
    text.trim().parse().map_err(|_| io_error("read a number from", path, format!("it holds '{}'", text.trim())))
}

/// A file of `key value` lines (`memory.stat`, `cpu.stat`, `memory.events`, `memory.oom_control`).
pub fn read_table(path: &Path) -> Result<HashMap<String, u64>, CgroupError> {
    Ok(parse_table(&read_text(path)?))
}

pub fn parse_table(text: &str) -> HashMap<String, u64> {
    text.lines()
        .filter_map(|line| {
            let (key, value) = line.split_once(' ')?;
            Some((key.to_string(), value.trim().parse().ok()?))
        })
        .collect()
}

/// Write a value to a cgroup file as one `write` (the kernel reads a cgroup file's value from a single write).
pub fn write_value(path: &Path, value: &str) -> Result<(), CgroupError> {
    std::fs::write(path, value).map_err(|err| io_error(&format!("write '{value}' to"), path, err))
}

/// The processes in a cgroup (its `cgroup.procs`); none when the folder is gone.
pub fn pids_in(dir: &Path) -> Result<Vec<i32>, CgroupError> {
    let path = dir.join("cgroup.procs");
    match std::fs::read_to_string(&path) {
        Ok(text) => Ok(text.lines().filter_map(|line| line.trim().parse().ok()).collect()),
        Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(err) => Err(io_error("read", &path, err)),
    }
}

/// A cgroup folder and every cgroup below it (a process of a box may make its own), the deepest first.
pub fn subtree_deepest_first(dir: &Path) -> Vec<PathBuf> {
    let mut folders = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
                folders.extend(subtree_deepest_first(&entry.path()));
            }
        }
    }
    folders.push(dir.to_path_buf());
    folders
}

/// The processes in a cgroup and every cgroup below it.
pub fn pids_in_subtree(dir: &Path) -> Result<Vec<i32>, CgroupError> {
    let mut pids = Vec::new();
    for folder in subtree_deepest_first(dir) {
        pids.extend(pids_in(&folder)?);
    }
    Ok(pids)
}

/// SIGKILL every process in the cgroups and below them until none is left (a process forking while it is killed
/// leaves a child that the next round finds), then remove their folders, the deepest first; both bounded by
/// `deadline`. Folders already gone are fine.
pub fn empty_and_remove(dirs: &[&Path], deadline: Instant) -> Result<(), CgroupError> {
    loop {
        let mut left = 0;
        for dir in dirs {
            for pid in pids_in_subtree(dir)? {
                left += 1;
                // SAFETY: kill(2) with a pid read from the cgroup; a pid that has exited meanwhile is ESRCH.
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
        }
        if left == 0 {
            break;
        }
        if Instant::now() >= deadline {
            return Err(CgroupError::Io(format!(
                "{left} processes still in {} after SIGKILL",
                dirs.iter().map(|dir| dir.display().to_string()).collect::<Vec<_>>().join(" and ")
            )));
        }
        thread::sleep(Duration::from_millis(10));
    }
    for dir in dirs {
        for folder in subtree_deepest_first(dir) {
            remove_dir(&folder, deadline)?;
        }
    }
    Ok(())
}

/// rmdir a cgroup folder, again while the kernel still calls it busy (its last processes are still exiting).
pub fn remove_dir(dir: &Path, deadline: Instant) -> Result<(), CgroupError> {
    loop {
        match std::fs::remove_dir(dir) {
            Ok(()) => return Ok(()),
            Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(err) if Instant::now() >= deadline => return Err(io_error("remove", dir, err)),
            Err(_) => thread::sleep(Duration::from_millis(10)),
        }
    }
}

/// Make a folder that may exist already.
pub fn make_dir(dir: &Path) -> io::Result<()> {
    match std::fs::create_dir(dir) {
        Err(err) if err.kind() == io::ErrorKind::AlreadyExists => Ok(()),
        other => other,
    }
}

/// Write `"0"` (the calling process) to a `cgroup.procs` file: open, write, close, nothing allocated — safe between
/// fork and exec.
pub fn enter_calling_process(procs: &CStr) -> io::Result<()> {
    // SAFETY: open/write/close with a NUL-terminated path and a static buffer; all three are async-signal-safe.
    unsafe {
        let fd = libc::open(procs.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        let written = libc::write(fd, b"0".as_ptr().cast(), 1);
        let result = if written == 1 { Ok(()) } else { Err(io::Error::last_os_error()) };
        libc::close(fd);
        result
    }
}

#[cfg(test)]
mod tests {
    use super::parse_table;

    #[test]
    fn a_key_value_table_keeps_numbers_and_skips_other_lines() {
        let table = parse_table("nr_periods 12\nnr_throttled 3\nsome text here\nthrottled_time 4500\n");
        assert_eq!(table.len(), 3);
        assert_eq!(table["nr_periods"], 12);
        assert_eq!(table["nr_throttled"], 3);
        assert_eq!(table["throttled_time"], 4500);
    }
}
