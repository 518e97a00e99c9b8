//! A set of CPUs written like taskset's list (`"0-1,3"`): parsed and checked once, shown back the same way, and
//! applied to a process about to start or to the calling thread (`sched_setaffinity`).

use std::fmt;
use std::io;
use std::os::unix::process::CommandExt;
use std::process::Command;

use serde::{Deserialize, Serialize};

/// CPUs by number, ascending, each once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct CpuSet {
    cpus: Vec<usize>,
}

impl CpuSet {
    /// Parse `"0-1,3"`: numbers and inclusive ranges separated by commas. The error says what is wrong in one line.
    pub fn parse(text: &str) -> Result<CpuSet, String> {
        let mut cpus = Vec::new();
        for part in text.split(',').map(str::trim) {
            let number = |word: &str| {
                word.trim().parse::<usize>().map_err(|_| {
                    format!("CPU list '{text}': '{part}' is not a CPU number or range; write it like \"0-1,3\"")
                })
            };
            match part.split_once('-') {
                Some((from, to)) => {
                    let (from, to) = (number(from)?, number(to)?);
                    if from > to {
                        return Err(format!("CPU list '{text}': range '{part}' runs backwards; write it low-high"));
                    }
                    cpus.extend(from..=to);
                }
                None => cpus.push(number(part)?),
            }
        }
        cpus.sort_unstable();
        cpus.dedup();
        Ok(CpuSet { cpus })
    }

    pub fn cpus(&self) -> &[usize] {
        &self.cpus
    }

    /// Whether the two sets share a CPU.
    pub fn overlaps(&self, other: &CpuSet) -> bool {
        self.cpus.iter().any(|cpu| other.cpus.contains(cpu))
    }

    /// The CPUs this process may run on (`sched_getaffinity` of the calling thread: the machine's CPUs less what a
    /// container, cgroup or `taskset` took away).
    pub fn available() -> io::Result<CpuSet> {
        // SAFETY: cpu_set_t is plain data; sched_getaffinity fills it for the calling thread.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        if unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) } != 0 {
            return Err(io::Error::last_os_error());
        }
        let cpus = (0..libc::CPU_SETSIZE as usize).filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) }).collect();
        Ok(CpuSet { cpus })
    }

    /// Ok when every CPU of the set is one this process may run on; else a one-line error naming the missing CPUs
    /// and the available list.
    pub fn check_available(&self) -> Result<(), String> {
        let available = CpuSet::available().map_err(|err| format!("cannot read the CPUs jload may use: {err}"))?;
        let missing: Vec<usize> = self.cpus.iter().copied().filter(|cpu| !available.cpus.contains(cpu)).collect();
        match missing.as_slice() {
            [] => Ok(()),
            [cpu] => Err(format!("CPU {cpu} is not available here; choose from {available}")),
            _ => Err(format!("CPUs {} are not available here; choose from {available}", CpuSet { cpus: missing })),
        }
    }

    /// Pin the calling thread to the set.
    pub fn pin_current_thread(&self) -> io::Result<()> {
        set_affinity(&self.to_cpu_set()?)
    }

    /// Make the process `command` starts (and so all its children) run on the set only.
    pub fn apply_to(&self, command: &mut Command) -> io::Result<()> {
        let set = self.to_cpu_set()?;
        // SAFETY: sched_setaffinity is a plain system call, async-signal-safe; `set` is copied into the closure, so
        // nothing is allocated between fork and exec.
        unsafe { command.pre_exec(move || set_affinity(&set)) };
        Ok(())
    }

    fn to_cpu_set(&self) -> io::Result<libc::cpu_set_t> {
        // SAFETY: cpu_set_t is plain data; CPU_SET writes inside it for CPUs below CPU_SETSIZE, checked first.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        for &cpu in &self.cpus {
            if cpu >= libc::CPU_SETSIZE as usize {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("CPU {cpu} is beyond what Linux pins"),
                ));
            }
            unsafe { libc::CPU_SET(cpu, &mut set) };
        }
        Ok(set)
    }
}

/// Warning for a run whose target and load generator share CPUs on this machine: they then compete for them, and the
/// figures mix the service's speed with the generator's. `None` when either is unpinned or the sets are apart.
pub fn overlap_warning(target: Option<&CpuSet>, load: Option<&CpuSet>) -> Option<String> {
    let (target, load) = (target?, load?);
    let shared: Vec<usize> = target.cpus.iter().copied().filter(|cpu| load.cpus.contains(cpu)).collect();
    (!shared.is_empty()).then(|| {
        format!(
            "warning: target.cpus ({target}) and load.cpus ({load}) share CPU {}: the JVM and the load generator will \
             compete for it; give them separate CPUs",
            CpuSet { cpus: shared }
        )
    })
}

fn set_affinity(set: &libc::cpu_set_t) -> io::Result<()> {
    // SAFETY: `set` is a valid cpu_set_t of the size passed.
    if unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), set) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

impl fmt::Display for CpuSet {
    /// The shortest list taskset would accept: runs of consecutive CPUs as ranges.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        let mut index = 0;
        while index < self.cpus.len() {
            let start = self.cpus[index];
            let mut end = start;
            while index + 1 < self.cpus.len() && self.cpus[index + 1] == end + 1 {
                index += 1;
                end += 1;
            }
            parts.push(if start == end { start.to_string() } else { format!("{start}-{end}") });
            index += 1;
        }
        f.write_str(&parts.join(","))
    }
}

impl TryFrom<String> for CpuSet {
    type Error = String;
    fn try_from(text: String) -> Result<CpuSet, String> {
        CpuSet::parse(&text)
    }
}

impl From<CpuSet> for String {
    fn from(set: CpuSet) -> String {
        set.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::{CpuSet, overlap_warning};

    /// `Cpus_allowed_list` of a /proc status file (of a process or a thread).
    fn allowed_list(status_path: &str) -> String {
        let status = std::fs::read_to_string(status_path).unwrap();
        let line = status.lines().find(|line| line.starts_with("Cpus_allowed_list:")).unwrap();
        line.split_once(':').unwrap().1.trim().to_string()
    }

    fn last_available_cpu() -> usize {
        *CpuSet::available().unwrap().cpus().last().unwrap()
    }

    #[test]
    fn a_list_of_numbers_and_ranges_is_read_sorted_once_each_and_shown_back_with_ranges() {
        let set = CpuSet::parse("3, 0-1,1").unwrap();
        assert_eq!(set.cpus(), [0, 1, 3]);
        assert_eq!(set.to_string(), "0-1,3");
    }

    #[test]
    fn a_word_or_a_backwards_range_is_refused_with_the_fix() {
        assert_eq!(
            CpuSet::parse("0-x").unwrap_err(),
            "CPU list '0-x': '0-x' is not a CPU number or range; write it like \"0-1,3\""
        );
        assert_eq!(CpuSet::parse("3-1").unwrap_err(), "CPU list '3-1': range '3-1' runs backwards; write it low-high");
    }

    #[test]
    fn the_available_cpus_pass_the_check() {
        let available = CpuSet::available().unwrap();
        assert!(!available.cpus().is_empty());
        assert_eq!(available.check_available(), Ok(()));
    }

    #[test]
    fn cpus_this_process_may_not_use_are_named_with_the_available_list() {
        let available = CpuSet::available().unwrap();
        let beyond = last_available_cpu() + 1;
        let one = CpuSet::parse(&beyond.to_string()).unwrap();
        assert_eq!(
            one.check_available().unwrap_err(),
            format!("CPU {beyond} is not available here; choose from {available}")
        );
        let several = CpuSet::parse(&format!("0,{beyond},{}", beyond + 2)).unwrap();
        assert_eq!(
            several.check_available().unwrap_err(),
            format!("CPUs {beyond},{} are not available here; choose from {available}", beyond + 2)
        );
    }

    #[test]
    fn a_pinned_thread_may_run_on_the_set_only() {
        let cpu = last_available_cpu();
        let allowed = std::thread::spawn(move || {
            CpuSet::parse(&cpu.to_string()).unwrap().pin_current_thread().unwrap();
            allowed_list("/proc/thread-self/status")
        })
        .join()
        .unwrap();
        assert_eq!(allowed, cpu.to_string());
        let unpinned = CpuSet::available().unwrap().to_string();
        assert_eq!(allowed_list("/proc/thread-self/status"), unpinned, "the calling thread keeps its own set");
    }

    #[test]
    fn a_command_started_with_the_set_applied_runs_on_it_only() {
        let cpu = last_available_cpu();
        let mut command = std::process::Command::new("grep");
        command.args(["Cpus_allowed_list", "/proc/self/status"]);
        CpuSet::parse(&cpu.to_string()).unwrap().apply_to(&mut command).unwrap();
        let output = command.output().unwrap();
        assert_eq!(String::from_utf8(output.stdout).unwrap(), format!("Cpus_allowed_list:\t{cpu}\n"));
    }

    #[test]
    fn sets_that_share_cpus_are_warned_about_and_apart_or_unpinned_ones_are_not() {
        let set = |text: &str| CpuSet::parse(text).unwrap();
        assert_eq!(
            overlap_warning(Some(&set("0-2")), Some(&set("2-3"))).unwrap(),
            "warning: target.cpus (0-2) and load.cpus (2-3) share CPU 2: the JVM and the load generator will compete \
             for it; give them separate CPUs"
        );
        assert_eq!(overlap_warning(Some(&set("0-1")), Some(&set("2-3"))), None);
        assert_eq!(overlap_warning(Some(&set("0-1")), None), None);
    }
}
