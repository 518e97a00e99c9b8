//! One box: made under `jload/<pid>-<n>` in each usable controller (v1: the memory and the cpu hierarchy; v2: one
//! folder), its limits written, a process put into it before exec or by pid, its figures read, and — at the end or
//! on drop — whatever is left in it killed and its folders removed.

use std::ffi::CString;
use std::io;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use super::files::{empty_and_remove, enter_calling_process, io_error, make_dir, pids_in_subtree, write_value};
use super::{BoxSample, CgroupError, Cgroups, CpuFigures, Limits, MemoryFigures, PARENT, Version, v1, v2};

/// How long removing a box may wait for its processes to die and its folders to be let go.
pub const REMOVE_TIMEOUT: Duration = Duration::from_secs(10);

/// A box's name: the pid of the jload that made it and a count within that jload (`4242-3`), so that a later jload
/// can tell a box whose owner is gone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoxName(String);

impl BoxName {
    /// The next name of this process.
    pub fn fresh() -> BoxName {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        BoxName::owned_by(std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed))
    }

    /// The name of box `count` of the jload with pid `owner`.
    pub fn owned_by(owner: u32, count: u64) -> BoxName {
        BoxName(format!("{owner}-{count}"))
    }

    /// The pid of the jload a box folder's name says made it; `None` for a folder jload did not name.
    pub fn owner_of(folder_name: &str) -> Option<u32> {
        let (pid, count) = folder_name.split_once('-')?;
        count.parse::<u64>().ok()?;
        pid.parse().ok()
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A cgroup box for one target process tree. Dropping it removes it (killing what is left in it).
#[derive(Debug)]
pub struct CellBox {
    name: BoxName,
    version: Version,
    memory_dir: Option<PathBuf>,
    cpu_dir: Option<PathBuf>,
    /// Every folder of the box, each once (v2: the one folder).
    dirs: Vec<PathBuf>,
    /// `cgroup.procs` of each folder, ready for [`CellBox::enter_before_exec`].
    procs: Vec<CString>,
    removed: bool,
}

impl CellBox {
    /// Make a box with a fresh name and these limits.
    pub fn create(cgroups: &Cgroups, limits: &Limits) -> Result<CellBox, CgroupError> {
        CellBox::create_named(cgroups, BoxName::fresh(), limits)
    }

    /// Make the box `name` (refused when it exists) in every usable controller among memory and cpu, and write its
    /// limits; a limit whose controller is not usable is refused as [`Cgroups::require`] words it.
    pub fn create_named(cgroups: &Cgroups, name: BoxName, limits: &Limits) -> Result<CellBox, CgroupError> {
        limits.check()?;
        if limits.memory_bytes.is_some() || limits.cpus_quota.is_some() {
            cgroups.require(limits)?;
        }
        let mut made = CellBox {
            name,
            version: cgroups.version(),
            memory_dir: None,
            cpu_dir: None,
            dirs: Vec::new(),
            procs: Vec::new(),
            removed: false,
        };
        match cgroups.version() {
            Version::V1 => {
                if let Some(base) = cgroups.memory_base() {
                    made.memory_dir = Some(made.make_folder(base, &[])?);
                }
                if let Some(base) = cgroups.cpu_base() {
                    made.cpu_dir = Some(made.make_folder(base, &[])?);
                }
                if made.dirs.is_empty() {
                    // Neither controller is usable: a box would hold nothing.
                    cgroups.require(&Limits::default())?;
                }
            }
            Version::V2 => {
                let base = cgroups.unified_base().expect("v2 cgroups have a unified folder");
                let controllers: Vec<&str> = [("memory", cgroups.memory_base()), ("cpu", cgroups.cpu_base())]
                    .into_iter()
                    .filter_map(|(name, base)| base.map(|_| name))
                    .collect();
                let dir = made.make_folder(base, &controllers)?;
                made.memory_dir = cgroups.memory_base().map(|_| dir.clone());
                made.cpu_dir = cgroups.cpu_base().map(|_| dir);
            }
        }
        // On an error from here, dropping `made` removes what was made.
        made.write_limits(limits)?;
        Ok(made)
    }

    /// Make `<base>/jload/<name>`, first handing `controllers` down to it (v2); again when another box's removal
    /// took the `jload` folder away in between.
    fn make_folder(&mut self, base: &Path, controllers: &[&str]) -> Result<PathBuf, CgroupError> {
        let parent = base.join(PARENT);
        let dir = parent.join(self.name.as_str());
        for _ in 0..20 {
            if !controllers.is_empty() {
                v2::enable_for_children(base, controllers)?;
            }
            match make_dir(&parent) {
                Ok(()) => {}
                Err(err) if err.kind() == io::ErrorKind::NotFound && base.is_dir() => continue,
                Err(err) => return Err(io_error("make", &parent, err)),
            }
            if !controllers.is_empty() {
                match v2::enable_for_children(&parent, controllers) {
                    Err(_) if !parent.exists() => continue,
                    other => other?,
                }
            }
            match std::fs::create_dir(&dir) {
                Ok(()) => {
                    let procs = CString::new(dir.join("cgroup.procs").as_os_str().as_encoded_bytes())
                        .map_err(|_| CgroupError::Io(format!("{} holds a NUL byte", dir.display())))?;
                    self.dirs.push(dir.clone());
                    self.procs.push(procs);
                    return Ok(dir);
                }
                Err(err) if err.kind() == io::ErrorKind::NotFound => continue,
                Err(err) => return Err(io_error("make", &dir, err)),
            }
        }
        Err(CgroupError::Io(format!("cannot make {}: its parent kept disappearing", dir.display())))
    }

    fn write_limits(&self, limits: &Limits) -> Result<(), CgroupError> {
        if let (Some(bytes), Some(dir)) = (limits.memory_bytes, &self.memory_dir) {
            match self.version {
                Version::V1 => v1::set_memory_limit(dir, bytes)?,
                Version::V2 => v2::set_memory_limit(dir, bytes)?,
            }
        }
        if let (Some(cpus), Some(dir)) = (limits.cpus_quota, &self.cpu_dir) {
            match self.version {
                Version::V1 => v1::set_cpu_quota(dir, cpus)?,
                Version::V2 => v2::set_cpu_quota(dir, cpus)?,
            }
        }
        Ok(())
    }

    pub fn name(&self) -> &BoxName {
        &self.name
    }

    /// Every folder of the box (v1: memory, then cpu; v2: one).
    pub fn dirs(&self) -> &[PathBuf] {
        &self.dirs
    }

    /// The folder holding the memory controller's files, when the box has one.
    pub fn memory_dir(&self) -> Option<&Path> {
        self.memory_dir.as_deref()
    }

    /// The folder holding the cpu controller's files, when the box has one.
    pub fn cpu_dir(&self) -> Option<&Path> {
        self.cpu_dir.as_deref()
    }

    /// Make the process `command` starts enter the box between fork and exec, so the program and every process it
    /// starts run inside it from their first instruction. The child writes "0" (itself) to each folder's
    /// `cgroup.procs`; a failure fails the spawn with that error.
    pub fn enter_before_exec(&self, command: &mut Command) {
        let procs = self.procs.clone();
        // SAFETY: the closure only opens, writes and closes files whose paths were made before the fork; it
        // allocates nothing.
        unsafe {
            command.pre_exec(move || {
                for path in &procs {
                    enter_calling_process(path)?;
                }
                Ok(())
            })
        };
    }

    /// Move a running process (not its existing children: each is moved on its own) into the box.
    pub fn enter(&self, pid: u32) -> Result<(), CgroupError> {
        for dir in &self.dirs {
            write_value(&dir.join("cgroup.procs"), &pid.to_string())?;
        }
        Ok(())
    }

    /// The processes in the box (and in any cgroup its processes made below it), each once.
    pub fn pids(&self) -> Result<Vec<u32>, CgroupError> {
        let mut pids = Vec::new();
        for dir in &self.dirs {
            pids.extend(pids_in_subtree(dir)?.into_iter().filter_map(|pid| u32::try_from(pid).ok()));
        }
        pids.sort_unstable();
        pids.dedup();
        Ok(pids)
    }

    /// The box's figures now.
    pub fn sample(&self) -> Result<BoxSample, CgroupError> {
        self.reader().sample()
    }

    /// A reader of the box's figure files that can go to another thread (the box itself stays where it is removed).
    pub fn reader(&self) -> BoxReader {
        BoxReader {
            version: self.version,
            memory_dir: self.memory_dir.clone(),
            cpu_dir: self.cpu_dir.clone(),
            first_dir: self.dirs.first().cloned(),
        }
    }

    /// Kill whatever is left in the box (SIGKILL; v2 also `cgroup.kill`), wait until it is empty and remove its
    /// folders (and any cgroup its processes made below them), within [`REMOVE_TIMEOUT`]; then the `jload` folder too when no other box is in it.
    pub fn remove(mut self) -> Result<(), CgroupError> {
        self.remove_now()
    }

    fn remove_now(&mut self) -> Result<(), CgroupError> {
        self.removed = true;
        if self.version == Version::V2 {
            for dir in &self.dirs {
                let kill = dir.join("cgroup.kill");
                if kill.exists() {
                    // Best effort: empty_and_remove kills by pid all the same.
                    let _ = write_value(&kill, "1");
                }
            }
        }
        let dirs: Vec<&Path> = self.dirs.iter().map(PathBuf::as_path).collect();
        empty_and_remove(&dirs, Instant::now() + REMOVE_TIMEOUT)?;
        for dir in &self.dirs {
            if let Some(parent) = dir.parent() {
                // Fails while another box is in it (or it is gone): that box's removal takes it.
                let _ = std::fs::remove_dir(parent);
            }
        }
        Ok(())
    }
}

/// The figure files of one box: what [`CellBox::sample`] reads, without the box's ownership (its reads fail once the
/// box is removed).
#[derive(Debug, Clone)]
pub struct BoxReader {
    version: Version,
    memory_dir: Option<PathBuf>,
    cpu_dir: Option<PathBuf>,
    first_dir: Option<PathBuf>,
}

impl BoxReader {
    /// The box's figures now.
    pub fn sample(&self) -> Result<BoxSample, CgroupError> {
        Ok(BoxSample { memory: self.memory()?, cpu: self.cpu()? })
    }

    /// The memory controller's figures now; None without one.
    pub fn memory(&self) -> Result<Option<MemoryFigures>, CgroupError> {
        Ok(match self.version {
            Version::V1 => self.memory_dir.as_deref().map(v1::read_memory).transpose()?,
            Version::V2 => self.memory_dir.as_deref().map(v2::read_memory).transpose()?.flatten(),
        })
    }

    /// The CPU controller's figures now (quota and `cpu.stat`); None without one.
    pub fn cpu(&self) -> Result<Option<CpuFigures>, CgroupError> {
        Ok(match self.version {
            Version::V1 => self.cpu_dir.as_deref().map(v1::read_cpu).transpose()?,
            Version::V2 => self.first_dir.as_deref().map(v2::read_cpu).transpose()?.flatten(),
        })
    }
}

impl Drop for CellBox {
    fn drop(&mut self) {
        if !self.removed
            && let Err(err) = self.remove_now()
        {
            eprintln!("warning: cgroup box {} left behind: {err}", self.name.as_str());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::BoxName;

    #[test]
    fn a_box_name_carries_its_owner_pid_and_other_folders_have_none() {
        let name = BoxName::owned_by(4242, 3);
        assert_eq!(name.as_str(), "4242-3");
        assert_eq!(BoxName::owner_of(name.as_str()), Some(4242));
        assert_eq!(BoxName::owner_of("system.slice"), None);
        assert_eq!(BoxName::owner_of("12-x"), None);
        assert!(BoxName::owner_of(BoxName::fresh().as_str()) == Some(std::process::id()));
    }
}
