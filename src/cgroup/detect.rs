//! Which cgroup version this machine has and where jload's boxes go in it: read from `/proc/self/mountinfo` (what
//! is mounted, read-write or not) and `/proc/self/cgroup` (which cgroup jload is in), and the one-line refusal when
//! the controller a limit needs is missing or not writable.
//!
//! v1 (a hierarchy with the memory controller is mounted): boxes go under the cgroup jload itself is in, in each
//! controller's hierarchy — nested there, they stay inside whatever limits and accounting jload runs under. v2 (only
//! a cgroup2 hierarchy): boxes go under the hierarchy's root, the one folder v2 lets hand controllers to children
//! while it holds processes itself.

use std::ffi::CString;
use std::path::{Path, PathBuf};

use super::{CgroupError, Limits, PARENT, v2};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    V1,
    V2,
}

/// Where this machine's cgroups let jload put boxes: per controller, the folder under which `jload/<box>` goes, or
/// why the controller cannot be used.
#[derive(Debug, Clone)]
pub struct Cgroups {
    version: Version,
    /// v2: the folder under which boxes go, with or without the memory and cpu controllers.
    unified: Option<PathBuf>,
    memory: Result<PathBuf, String>,
    cpu: Result<PathBuf, String>,
}

impl Cgroups {
    /// This machine's cgroups, as this process sees them.
    pub fn detect() -> Result<Cgroups, CgroupError> {
        let read = |path: &str| {
            std::fs::read_to_string(path).map_err(|err| CgroupError::Unsupported(format!("cannot read {path}: {err}")))
        };
        Ok(Cgroups::from_proc(&read("/proc/self/mountinfo")?, &read("/proc/self/cgroup")?))
    }

    /// v1 with boxes going under these folders of the memory and cpu hierarchies (`None`: that controller is not
    /// there); each is checked for being writable.
    pub fn v1(memory_base: Option<PathBuf>, cpu_base: Option<PathBuf>) -> Cgroups {
        let place = |base: Option<PathBuf>, name: &str| match base {
            Some(base) => writable(&base).map(|()| base),
            None => Err(format!("no cgroup v1 hierarchy with the {name} controller is mounted")),
        };
        Cgroups {
            version: Version::V1,
            unified: None,
            memory: place(memory_base, "memory"),
            cpu: place(cpu_base, "cpu"),
        }
    }

    /// v2 with boxes going under `base` (a cgroup2 folder: the hierarchy's root, or a test's own mount); the memory
    /// and cpu controllers are usable where `base` lists them in its `cgroup.controllers` and is writable.
    pub fn v2(base: PathBuf) -> Cgroups {
        let offered = v2::controllers(&base).map(|names| names.join(" "));
        let place = |name: &str| match &offered {
            Ok(names) if names.split(' ').any(|offered| offered == name) => writable(&base).map(|()| base.clone()),
            Ok(names) => Err(format!(
                "cgroup v2 at {} does not offer it (cgroup.controllers: '{names}'; a v1 hierarchy may hold it)",
                base.display()
            )),
            Err(err) => Err(err.to_string()),
        };
        let (memory, cpu) = (place("memory"), place("cpu"));
        Cgroups { version: Version::V2, unified: Some(base), memory, cpu }
    }

    /// From the text of `/proc/self/mountinfo` and `/proc/self/cgroup`: v1 when a v1 hierarchy holds the memory
    /// controller (a hybrid machine's cgroup2 mount then has no memory controller), else v2 when a cgroup2
    /// hierarchy is mounted.
    pub fn from_proc(mountinfo: &str, own_cgroups: &str) -> Cgroups {
        let mounts: Vec<Mount> = mountinfo.lines().filter_map(Mount::parse).collect();
        let v1_mount = |controller: &str| {
            mounts.iter().find(|mount| mount.fstype == "cgroup" && mount.controllers().any(|name| name == controller))
        };
        if let Some(memory) = v1_mount("memory") {
            let place = |mount: Option<&Mount>, name: &str| match mount {
                Some(mount) if mount.read_only() => Err(format!("{} is mounted read-only", mount.point.display())),
                Some(mount) => writable(&mount.own_folder(own_cgroup_v1(own_cgroups, name)))
                    .map(|()| mount.own_folder(own_cgroup_v1(own_cgroups, name))),
                None => Err(format!("no cgroup v1 hierarchy with the {name} controller is mounted")),
            };
            return Cgroups {
                version: Version::V1,
                unified: None,
                memory: place(Some(memory), "memory"),
                cpu: place(v1_mount("cpu"), "cpu"),
            };
        }
        let unified = mounts
            .iter()
            .filter(|mount| mount.fstype == "cgroup2")
            .min_by_key(|mount| mount.point != Path::new("/sys/fs/cgroup"));
        match unified {
            Some(mount) if mount.read_only() => {
                let why = format!("{} is mounted read-only", mount.point.display());
                Cgroups { version: Version::V2, unified: None, memory: Err(why.clone()), cpu: Err(why) }
            }
            Some(mount) => Cgroups::v2(mount.point.clone()),
            None => {
                let why = "no cgroup hierarchy is mounted (neither v1 nor v2 in /proc/self/mountinfo)".to_string();
                Cgroups { version: Version::V1, unified: None, memory: Err(why.clone()), cpu: Err(why) }
            }
        }
    }

    pub fn version(&self) -> Version {
        self.version
    }

    /// The folder under which memory boxes go, when the memory controller is usable.
    pub fn memory_base(&self) -> Option<&Path> {
        self.memory.as_deref().ok()
    }

    /// The folder under which cpu boxes go, when the cpu controller is usable.
    pub fn cpu_base(&self) -> Option<&Path> {
        self.cpu.as_deref().ok()
    }

    /// v2: the folder under which boxes go.
    pub fn unified_base(&self) -> Option<&Path> {
        self.unified.as_deref()
    }

    /// Ok when the controllers the limits need are here and writable: the memory controller always (a box is
    /// measured by it), the cpu controller for a quota. Else one line naming what is missing and the fix.
    pub fn require(&self, limits: &Limits) -> Result<(), CgroupError> {
        if let Err(why) = &self.memory {
            return Err(CgroupError::Unsupported(format!(
                "no writable cgroup memory controller: {why}; run as root, or on a host whose cgroups (v1: \
                 /sys/fs/cgroup/memory, v2: memory in cgroup.controllers) this user may write"
            )));
        }
        if let (Some(_), Err(why)) = (limits.cpus_quota, &self.cpu) {
            return Err(CgroupError::Unsupported(format!(
                "no writable cgroup cpu controller for the CPU quota: {why}; run as root, or without a CPU quota"
            )));
        }
        Ok(())
    }

    /// Every `jload` folder boxes go into (v1: one per hierarchy; v2: one), for finding stale boxes.
    pub fn homes(&self) -> Vec<PathBuf> {
        let mut homes: Vec<PathBuf> = [self.memory_base(), self.cpu_base(), self.unified_base()]
            .into_iter()
            .flatten()
            .map(|base| base.join(PARENT))
            .collect();
        homes.sort();
        homes.dedup();
        homes
    }
}

/// One line of /proc/self/mountinfo: `id parent dev root point options [optional…] - fstype source super-options`.
struct Mount {
    root: String,
    point: PathBuf,
    options: String,
    fstype: String,
    super_options: String,
}

impl Mount {
    fn parse(line: &str) -> Option<Mount> {
        let (left, right) = line.split_once(" - ")?;
        let left: Vec<&str> = left.split(' ').collect();
        let right: Vec<&str> = right.split(' ').collect();
        Some(Mount {
            root: unescape(left.get(3)?),
            point: PathBuf::from(unescape(left.get(4)?)),
            options: left.get(5)?.to_string(),
            fstype: right.first()?.to_string(),
            super_options: right.get(2).unwrap_or(&"").to_string(),
        })
    }

    fn controllers(&self) -> impl Iterator<Item = &str> {
        self.super_options.split(',')
    }

    fn read_only(&self) -> bool {
        self.options.split(',').any(|option| option == "ro")
    }

    /// The folder of cgroup `path` (as /proc/self/cgroup names it) in this mount: the mount's own root is cut from
    /// it (a container sees its cgroup as the mount's root); the mount point itself when the folder is not there.
    fn own_folder(&self, path: Option<&str>) -> PathBuf {
        let Some(path) = path else { return self.point.clone() };
        let relative = path.strip_prefix(self.root.as_str()).unwrap_or(path).trim_matches('/');
        let folder = self.point.join(relative);
        if !relative.is_empty() && folder.is_dir() { folder } else { self.point.clone() }
    }
}

/// The v1 cgroup of this process for a controller, from /proc/self/cgroup's `id:controllers:path` lines.
fn own_cgroup_v1<'a>(own_cgroups: &'a str, controller: &str) -> Option<&'a str> {
    own_cgroups.lines().find_map(|line| {
        let mut fields = line.splitn(3, ':');
        let (_, names, path) = (fields.next()?, fields.next()?, fields.next()?);
        names.split(',').any(|name| name == controller).then_some(path)
    })
}

/// mountinfo writes a space, tab, newline and backslash in a path as octal escapes (`\040`).
fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('\\') {
        out.push_str(&rest[..at]);
        let code = rest.get(at + 1..at + 4).and_then(|digits| u8::from_str_radix(digits, 8).ok());
        match code {
            Some(byte) => {
                out.push(byte as char);
                rest = &rest[at + 4..];
            }
            None => {
                out.push('\\');
                rest = &rest[at + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Ok when this process may make folders in `dir`; else why not.
fn writable(dir: &Path) -> Result<(), String> {
    let Ok(path) = CString::new(dir.as_os_str().as_encoded_bytes()) else {
        return Err(format!("{} is not a path jload can use", dir.display()));
    };
    // SAFETY: access(2) with a NUL-terminated path.
    if unsafe { libc::access(path.as_ptr(), libc::W_OK) } == 0 {
        return Ok(());
    }
    let err = std::io::Error::last_os_error();
    // SAFETY: geteuid cannot fail.
    let uid = unsafe { libc::geteuid() };
    match err.raw_os_error() {
        Some(libc::EROFS) => Err(format!("{} is read-only", dir.display())),
        Some(libc::ENOENT) => Err(format!("{} does not exist", dir.display())),
        _ => Err(format!("{} is not writable by this user (uid {uid}): {err}", dir.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::{Cgroups, Version, unescape};
    use crate::cgroup::{CgroupError, Limits};
    use std::path::Path;

    const HYBRID: &str = "\
31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
";

    #[test]
    fn a_v1_memory_hierarchy_makes_it_v1_even_beside_a_cgroup2_mount_and_boxes_go_under_the_own_cgroup() {
        // "/" exists in every hierarchy; a cgroup this machine lacks falls back to the mount point.
        let cgroups = Cgroups::from_proc(HYBRID, "4:memory:/\n1:cpu:/no-such-cgroup-here\n0::/\n");
        assert_eq!(cgroups.version(), Version::V1);
        assert_eq!(cgroups.memory_base().unwrap().as_os_str(), "/sys/fs/cgroup/memory");
        assert_eq!(cgroups.cpu_base(), Some(Path::new("/sys/fs/cgroup/cpu")));
        assert_eq!(cgroups.unified_base(), None);
    }

    #[test]
    fn a_read_only_memory_hierarchy_is_refused_in_one_line_naming_it() {
        let mountinfo = HYBRID.replace("/sys/fs/cgroup/memory rw,relatime", "/sys/fs/cgroup/memory ro,relatime");
        let cgroups = Cgroups::from_proc(&mountinfo, "4:memory:/\n1:cpu:/\n");
        assert_eq!(
            cgroups.require(&Limits::default()),
            Err(CgroupError::Unsupported(
                "no writable cgroup memory controller: /sys/fs/cgroup/memory is mounted read-only; run as root, or \
                 on a host whose cgroups (v1: /sys/fs/cgroup/memory, v2: memory in cgroup.controllers) this user may \
                 write"
                    .into()
            ))
        );
    }

    #[test]
    fn without_a_cpu_hierarchy_a_quota_is_refused_but_a_memory_limit_alone_is_not() {
        let mountinfo: String =
            HYBRID.lines().filter(|line| !line.contains(" rw,cpu")).map(|line| format!("{line}\n")).collect();
        let cgroups = Cgroups::from_proc(&mountinfo, "4:memory:/\n");
        assert_eq!(cgroups.require(&Limits { memory_bytes: Some(1 << 30), cpus_quota: None }), Ok(()));
        assert_eq!(
            cgroups.require(&Limits { memory_bytes: None, cpus_quota: Some(0.5) }),
            Err(CgroupError::Unsupported(
                "no writable cgroup cpu controller for the CPU quota: no cgroup v1 hierarchy with the cpu controller \
                 is mounted; run as root, or without a CPU quota"
                    .into()
            ))
        );
    }

    #[test]
    fn no_cgroup_mount_at_all_is_named_as_such() {
        let cgroups = Cgroups::from_proc("22 1 0:21 / /proc rw - proc proc rw\n", "0::/\n");
        assert_eq!(
            cgroups.require(&Limits::default()).unwrap_err().to_string(),
            "no writable cgroup memory controller: no cgroup hierarchy is mounted (neither v1 nor v2 in \
             /proc/self/mountinfo); run as root, or on a host whose cgroups (v1: /sys/fs/cgroup/memory, v2: memory \
             in cgroup.controllers) this user may write"
        );
    }

    #[test]
    fn a_v2_folder_without_the_memory_controller_says_what_it_offers() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("cgroup.controllers"), "cpu io pids\n").unwrap();
        let cgroups = Cgroups::v2(dir.path().to_path_buf());
        assert_eq!(cgroups.version(), Version::V2);
        assert_eq!(cgroups.cpu_base(), Some(dir.path()));
        assert_eq!(cgroups.memory_base(), None);
        let refusal = cgroups.require(&Limits::default()).unwrap_err().to_string();
        assert!(
            refusal.starts_with(&format!(
                "no writable cgroup memory controller: cgroup v2 at {} does not offer it (cgroup.controllers: 'cpu \
                 io pids'; a v1 hierarchy may hold it); run as root",
                dir.path().display()
            )),
            "{refusal}"
        );
    }

    #[test]
    fn escaped_spaces_in_mount_paths_are_read_back() {
        assert_eq!(unescape("/mnt/my\\040cgroups"), "/mnt/my cgroups");
    }
}
