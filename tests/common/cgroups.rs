//! Cgroups in tests: what jload's boxes left on this machine (a test asserts that none is left behind), and a test
//! server's cgroup hierarchies.

use std::path::{Path, PathBuf};

use super::sshnet::SshNet;

/// Mount this machine's cgroup hierarchies on the test server `name` as a server has them: `ip netns exec` gives its
/// sshd a fresh /sys without cgroups (the JVM's container support wants cpuacct and cpuset besides memory and cpu).
pub fn mount_cgroups_on(net: &SshNet, name: &str) {
    let mounted = net.ssh(
        name,
        "mount -t tmpfs cgroups /sys/fs/cgroup && for c in memory cpu cpuacct cpuset; do mkdir /sys/fs/cgroup/$c && \
         mount -t cgroup -o $c cgroup /sys/fs/cgroup/$c || exit 1; done",
    );
    assert!(mounted.status.success(), "{}", String::from_utf8_lossy(&mounted.stderr));
}

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
