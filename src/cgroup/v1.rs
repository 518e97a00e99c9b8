//! cgroup v1's files: one hierarchy per controller, so a box is a folder in the memory hierarchy and one in the cpu
//! hierarchy. The limit without swap (`memory.limit_in_bytes`, and `memory.memsw.limit_in_bytes` to the same value
//! where swap is accounted), the quota (`cpu.cfs_period_us`, `cpu.cfs_quota_us`), and the figures read back
//! (`memory.usage_in_bytes`, `memory.max_usage_in_bytes`, `memory.oom_control`, `memory.stat`, `cpu.stat`).

use std::path::Path;

use super::files::{read_table, read_text, read_u64, write_value};
use super::{CPU_PERIOD_US, CgroupError, CpuFigures, MemoryFigures, quota_us};

/// v1 writes "unlimited" as the largest page-aligned number (9223372036854771712 on 4 KiB pages); anything this
/// large is no limit.
const UNLIMITED_FROM: u64 = 1 << 62;

/// Limit the memory of a box's memory folder, swap included: the memory limit first, as the kernel refuses a
/// memory+swap limit below the memory limit.
pub fn set_memory_limit(dir: &Path, bytes: u64) -> Result<(), CgroupError> {
    write_value(&dir.join("memory.limit_in_bytes"), &bytes.to_string())?;
    let memsw = dir.join("memory.memsw.limit_in_bytes");
    if memsw.exists() {
        write_value(&memsw, &bytes.to_string())?;
    }
    Ok(())
}

/// Give a box's cpu folder a quota of `cpus` CPUs per [`CPU_PERIOD_US`].
pub fn set_cpu_quota(dir: &Path, cpus: f64) -> Result<(), CgroupError> {
    write_value(&dir.join("cpu.cfs_period_us"), &CPU_PERIOD_US.to_string())?;
    write_value(&dir.join("cpu.cfs_quota_us"), &quota_us(cpus).to_string())
}

/// The memory figures of a box's memory folder.
pub fn read_memory(dir: &Path) -> Result<MemoryFigures, CgroupError> {
    let limit = read_u64(&dir.join("memory.limit_in_bytes"))?;
    let stat = read_table(&dir.join("memory.stat"))?;
    // `total_*` count the box's sub-cgroups too; a box has none, but a process of it may make some.
    let figure = |name: &str| stat.get(&format!("total_{name}")).or(stat.get(name)).copied().unwrap_or(0);
    Ok(MemoryFigures {
        limit: (limit < UNLIMITED_FROM).then_some(limit),
        usage: read_u64(&dir.join("memory.usage_in_bytes"))?,
        peak: Some(read_u64(&dir.join("memory.max_usage_in_bytes"))?),
        oom_kills: read_table(&dir.join("memory.oom_control"))?.get("oom_kill").copied(),
        anon: figure("rss"),
        file: figure("cache"),
    })
}

/// The quota and throttling of a box's cpu folder.
pub fn read_cpu(dir: &Path) -> Result<CpuFigures, CgroupError> {
    let quota: i64 = parse_signed(&dir.join("cpu.cfs_quota_us"))?;
    let period = read_u64(&dir.join("cpu.cfs_period_us"))?;
    let stat = read_table(&dir.join("cpu.stat"))?;
    let figure = |name: &str| stat.get(name).copied().unwrap_or(0);
    Ok(CpuFigures {
        quota_cpus: (quota > 0 && period > 0).then(|| quota as f64 / period as f64),
        periods: figure("nr_periods"),
        throttled_periods: figure("nr_throttled"),
        throttled_ns: figure("throttled_time"),
    })
}

/// `cpu.cfs_quota_us` holds -1 for no quota.
fn parse_signed(path: &Path) -> Result<i64, CgroupError> {
    let text = read_text(path)?;
    text.trim()
        .parse()
        .map_err(|_| CgroupError::Io(format!("{} holds '{}', not a number", path.display(), text.trim())))
}

#[cfg(test)]
mod tests {
    use super::{read_cpu, read_memory, set_cpu_quota, set_memory_limit};
    use crate::cgroup::{CpuFigures, MemoryFigures};
    use std::fs;

    /// A folder with the files of a v1 memory and cpu cgroup as the kernel words them (copied from Linux 6.18); the
    /// real kernel's side is in tests/cgroup_box.rs.
    fn v1_folder() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let files = [
            ("memory.limit_in_bytes", "9223372036854771712\n"),
            ("memory.memsw.limit_in_bytes", "9223372036854771712\n"),
            ("memory.usage_in_bytes", "104857600\n"),
            ("memory.max_usage_in_bytes", "104861696\n"),
            ("memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 1\n"),
            ("memory.stat", "cache 4096\nrss 8192\ntotal_cache 1048576\ntotal_rss 103809024\ntotal_rss_huge 0\n"),
            ("cpu.cfs_period_us", "100000\n"),
            ("cpu.cfs_quota_us", "-1\n"),
            ("cpu.stat", "nr_periods 20\nnr_throttled 15\nthrottled_time 1600000000\nnr_bursts 0\nburst_time 0\n"),
        ];
        for (name, text) in files {
            fs::write(dir.path().join(name), text).unwrap();
        }
        dir
    }

    #[test]
    fn the_limits_go_to_memory_memsw_and_the_cfs_files() {
        let dir = v1_folder();
        set_memory_limit(dir.path(), 100 << 20).unwrap();
        set_cpu_quota(dir.path(), 0.5).unwrap();
        let read = |name: &str| fs::read_to_string(dir.path().join(name)).unwrap();
        assert_eq!(read("memory.limit_in_bytes"), "104857600");
        assert_eq!(read("memory.memsw.limit_in_bytes"), "104857600");
        assert_eq!(read("cpu.cfs_period_us"), "100000");
        assert_eq!(read("cpu.cfs_quota_us"), "50000");
    }

    #[test]
    fn the_figures_come_from_usage_max_usage_oom_control_and_the_total_lines_of_memory_stat() {
        let dir = v1_folder();
        assert_eq!(
            read_memory(dir.path()).unwrap(),
            MemoryFigures {
                limit: None,
                usage: 104857600,
                peak: Some(104861696),
                oom_kills: Some(1),
                anon: 103809024,
                file: 1048576,
            }
        );
        assert_eq!(
            read_cpu(dir.path()).unwrap(),
            CpuFigures { quota_cpus: None, periods: 20, throttled_periods: 15, throttled_ns: 1_600_000_000 }
        );
    }
}
