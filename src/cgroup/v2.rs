//! cgroup v2's files: one unified hierarchy, so a box is one folder holding every controller's files, and a
//! controller reaches a folder only when each parent lists it in `cgroup.subtree_control`. The limit without swap
//! (`memory.max`, `memory.swap.max` = 0), the quota (`cpu.max` "quota period"), and the figures read back
//! (`memory.current`, `memory.peak`, `memory.events`, `memory.stat`, `cpu.stat`).

use std::path::Path;

use super::files::{read_table, read_text, read_u64, write_value};
use super::{CPU_PERIOD_US, CgroupError, CpuFigures, MemoryFigures, quota_us};

/// The controllers a folder may hand to its children (its `cgroup.controllers`).
pub fn controllers(dir: &Path) -> Result<Vec<String>, CgroupError> {
    Ok(read_text(&dir.join("cgroup.controllers"))?.split_whitespace().map(str::to_string).collect())
}

/// Hand the controllers to the children of `dir`, those not handed yet (writing `cgroup.subtree_control`).
pub fn enable_for_children(dir: &Path, wanted: &[&str]) -> Result<(), CgroupError> {
    let path = dir.join("cgroup.subtree_control");
    let enabled = read_text(&path)?;
    let missing: Vec<String> = wanted
        .iter()
        .filter(|name| !enabled.split_whitespace().any(|on| on == **name))
        .map(|name| format!("+{name}"))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    write_value(&path, &missing.join(" "))
}

/// Limit a box's memory, without swap where swap is accounted (`memory.swap.max`).
pub fn set_memory_limit(dir: &Path, bytes: u64) -> Result<(), CgroupError> {
    write_value(&dir.join("memory.max"), &bytes.to_string())?;
    let swap = dir.join("memory.swap.max");
    if swap.exists() {
        write_value(&swap, "0")?;
    }
    Ok(())
}

/// Give a box a quota of `cpus` CPUs per [`CPU_PERIOD_US`].
pub fn set_cpu_quota(dir: &Path, cpus: f64) -> Result<(), CgroupError> {
    write_value(&dir.join("cpu.max"), &format!("{} {CPU_PERIOD_US}", quota_us(cpus)))
}

/// The memory figures of a box; `None` when its folder has no memory controller.
pub fn read_memory(dir: &Path) -> Result<Option<MemoryFigures>, CgroupError> {
    if !dir.join("memory.current").exists() {
        return Ok(None);
    }
    let limit = read_text(&dir.join("memory.max"))?;
    let stat = read_table(&dir.join("memory.stat"))?;
    let peak = dir.join("memory.peak");
    Ok(Some(MemoryFigures {
        limit: limit.trim().parse().ok(),
        usage: read_u64(&dir.join("memory.current"))?,
        peak: if peak.exists() { Some(read_u64(&peak)?) } else { None },
        oom_kills: read_table(&dir.join("memory.events"))?.get("oom_kill").copied(),
        anon: stat.get("anon").copied().unwrap_or(0),
        file: stat.get("file").copied().unwrap_or(0),
    }))
}

/// The quota and throttling of a box; `None` when its folder has no cpu controller (its `cpu.stat` then holds only
/// the usage lines).
pub fn read_cpu(dir: &Path) -> Result<Option<CpuFigures>, CgroupError> {
    let max = dir.join("cpu.max");
    if !max.exists() {
        return Ok(None);
    }
    let max = read_text(&max)?;
    let mut words = max.split_whitespace();
    let quota = words.next().and_then(|word| word.parse::<u64>().ok());
    let period = words.next().and_then(|word| word.parse::<u64>().ok()).unwrap_or(CPU_PERIOD_US);
    let stat = read_table(&dir.join("cpu.stat"))?;
    let figure = |name: &str| stat.get(name).copied().unwrap_or(0);
    Ok(Some(CpuFigures {
        quota_cpus: quota.filter(|_| period > 0).map(|quota| quota as f64 / period as f64),
        periods: figure("nr_periods"),
        throttled_periods: figure("nr_throttled"),
        throttled_ns: figure("throttled_usec") * 1000,
    }))
}

#[cfg(test)]
mod tests {
    use super::{enable_for_children, read_cpu, read_memory, set_cpu_quota, set_memory_limit};
    use crate::cgroup::{CpuFigures, MemoryFigures};
    use std::fs;

    /// A folder with the files of a v2 cgroup as the kernel words them. This machine's kernel binds the memory and
    /// cpu controllers to v1, so no real v2 folder has these files here: this is the parsing and writing only; the
    /// v2 box itself (made, entered, killed, removed) runs on the real cgroup2 hierarchy in tests/cgroup_box.rs.
    fn v2_folder() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let files = [
            ("cgroup.subtree_control", "memory\n"),
            ("memory.max", "max\n"),
            ("memory.swap.max", "max\n"),
            ("memory.current", "52428800\n"),
            ("memory.peak", "104857600\n"),
            ("memory.events", "low 0\nhigh 0\nmax 31\noom 1\noom_kill 1\noom_group_kill 0\n"),
            ("memory.stat", "anon 50331648\nfile 2097152\nkernel 1048576\nfile_mapped 0\n"),
            ("cpu.max", "max 100000\n"),
            (
                "cpu.stat",
                "usage_usec 2000000\nuser_usec 1900000\nsystem_usec 100000\nnr_periods 20\nnr_throttled 16\n\
                 throttled_usec 1600000\nnr_bursts 0\nburst_usec 0\n",
            ),
        ];
        for (name, text) in files {
            fs::write(dir.path().join(name), text).unwrap();
        }
        dir
    }

    #[test]
    fn the_limits_go_to_memory_max_swap_max_and_cpu_max() {
        let dir = v2_folder();
        set_memory_limit(dir.path(), 400 << 20).unwrap();
        set_cpu_quota(dir.path(), 0.5).unwrap();
        let read = |name: &str| fs::read_to_string(dir.path().join(name)).unwrap();
        assert_eq!(read("memory.max"), "419430400");
        assert_eq!(read("memory.swap.max"), "0");
        assert_eq!(read("cpu.max"), "50000 100000");
    }

    #[test]
    fn only_the_controllers_not_yet_handed_down_are_written_to_subtree_control() {
        let dir = v2_folder();
        enable_for_children(dir.path(), &["memory", "cpu"]).unwrap();
        assert_eq!(fs::read_to_string(dir.path().join("cgroup.subtree_control")).unwrap(), "+cpu");
    }

    #[test]
    fn the_figures_come_from_current_peak_events_stat_and_cpu_stat_with_max_as_no_limit() {
        let dir = v2_folder();
        assert_eq!(
            read_memory(dir.path()).unwrap(),
            Some(MemoryFigures {
                limit: None,
                usage: 52428800,
                peak: Some(104857600),
                oom_kills: Some(1),
                anon: 50331648,
                file: 2097152,
            })
        );
        assert_eq!(
            read_cpu(dir.path()).unwrap(),
            Some(CpuFigures { quota_cpus: None, periods: 20, throttled_periods: 16, throttled_ns: 1_600_000_000 })
        );
        fs::write(dir.path().join("memory.max"), "104857600\n").unwrap();
        fs::write(dir.path().join("cpu.max"), "20000 100000\n").unwrap();
        fs::remove_file(dir.path().join("memory.peak")).unwrap();
        let memory = read_memory(dir.path()).unwrap().unwrap();
        assert_eq!((memory.limit, memory.peak), (Some(104857600), None));
        assert_eq!(read_cpu(dir.path()).unwrap().unwrap().quota_cpus, Some(0.2));
    }

    #[test]
    fn a_folder_without_the_memory_or_cpu_controller_has_no_such_figures() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("cpu.stat"), "usage_usec 10\nuser_usec 5\nsystem_usec 5\n").unwrap();
        assert_eq!(read_memory(dir.path()).unwrap(), None);
        assert_eq!(read_cpu(dir.path()).unwrap(), None);
    }
}
