//! What jload's cgroup boxes left on this machine: a test asserts that none is left behind.

use std::path::{Path, PathBuf};

/// Box folders (`jload/<pid>-<n>`) under this machine's memory and cpu hierarchies whose jload is gone: left behind.
pub fn boxes_left_behind() -> Vec<PathBuf> {
    let mut left = Vec::new();
    for root in ["/sys/fs/cgroup/memory", "/sys/fs/cgroup/cpu", "/sys/fs/cgroup/unified"] {
        let mut stack = vec![PathBuf::from(root)];
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else { continue };
            for entry in entries.flatten().filter(|entry| entry.path().is_dir()) {
                let name = entry.file_name().to_string_lossy().into_owned();
                let owner = name.split_once('-').and_then(|(pid, _)| pid.parse::<u32>().ok());
                let in_jload = dir.file_name().is_some_and(|parent| parent == "jload");
                match owner {
                    Some(pid) if in_jload && !Path::new(&format!("/proc/{pid}")).exists() => left.push(entry.path()),
                    _ => stack.push(entry.path()),
                }
            }
        }
    }
    left
}
