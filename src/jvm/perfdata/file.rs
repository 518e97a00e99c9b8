//! Where a JVM keeps its PerfData file (`/tmp/hsperfdata_<user>/<pid>`, also inside a container), and opening it
//! with the one-line diagnosis of why a process cannot be sampled (not running, not a JVM, -XX:-UsePerfData, another
//! user's JVM, a file left by an earlier JVM).

use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::time::{Duration, UNIX_EPOCH};

use anyhow::Result;

use super::PerfData;
use crate::error::bad_input;
use crate::jvm::procfs;

/// How long to wait for a starting JVM to mark its PerfData accessible (jvmstat waits 5 s too).
pub const ACCESSIBLE_WAIT: Duration = Duration::from_secs(5);

/// HotSpot writes PerfData under the system temporary directory, whatever java.io.tmpdir says.
pub const TMP: &str = "/tmp";
const DIR_PREFIX: &str = "hsperfdata_";

/// Opens the PerfData of JVM `pid`, or explains in one line why it cannot be sampled.
pub fn open_perfdata(pid: u32) -> Result<PerfData> {
    let path = perfdata_path(pid)?;
    let perfdata = PerfData::open(&path, ACCESSIBLE_WAIT).map_err(|err| {
        match err.root_cause().downcast_ref::<std::io::Error>().map(std::io::Error::kind) {
            Some(ErrorKind::PermissionDenied) => permission_denied(pid, &path),
            _ => err,
        }
    })?;
    reject_leftover_file(pid, &path, &perfdata)?;
    Ok(perfdata)
}

/// Where JVM `pid` keeps its PerfData (see [`find_perfdata`]), or a one-line reason why it has none.
pub fn perfdata_path(pid: u32) -> Result<PathBuf> {
    if !procfs::is_running(pid) {
        return Err(bad_input(format!("no process with pid {pid} is running")));
    }
    if let Some(path) = find_perfdata(pid) {
        return Ok(path);
    }
    let container_tmp = container_tmp(pid);
    if fs::read_dir(&container_tmp).is_err_and(|err| err.kind() == ErrorKind::PermissionDenied) {
        return Err(bad_input(format!(
            "permission denied reading {}: process {pid} belongs to another user; run jload as that user or as root",
            container_tmp.display()
        )));
    }
    Err(explain_missing_perfdata(pid))
}

/// /tmp/hsperfdata_<user>/<pid>, or for a JVM in another mount namespace (a container)
/// /proc/<pid>/root/tmp/hsperfdata_<user>/<pid in its own pid namespace>.
pub fn find_perfdata(pid: u32) -> Option<PathBuf> {
    find_in_tmp(Path::new(TMP), pid).or_else(|| {
        let namespace_pid = procfs::namespace_pid(pid).unwrap_or(pid);
        find_in_tmp(&container_tmp(pid), namespace_pid)
    })
}

/// The target's own /tmp, seen through its root directory.
fn container_tmp(pid: u32) -> PathBuf {
    PathBuf::from(format!("/proc/{pid}/root{TMP}"))
}

/// `<tmp>/hsperfdata_*/<pid>`, if such a file exists.
fn find_in_tmp(tmp: &Path, pid: u32) -> Option<PathBuf> {
    perfdata_dirs(tmp).into_iter().map(|dir| dir.join(pid.to_string())).find(|path| path.is_file())
}

/// The `hsperfdata_<user>` directories under `tmp`.
pub fn perfdata_dirs(tmp: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(tmp) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(DIR_PREFIX))
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect()
}

/// Why a running process has no PerfData file: PerfData switched off, not a JVM, or a JVM whose file is missing.
fn explain_missing_perfdata(pid: u32) -> anyhow::Error {
    let mut options = procfs::cmdline(pid).unwrap_or_default();
    options.extend(procfs::environment_jvm_options(pid));
    if let Some(flag) = perfdata_disabling_flag(&options) {
        return bad_input(format!(
            "JVM {pid} runs with {flag}: it publishes no PerfData file, so jload cannot sample it \
             (restart it without {flag})"
        ));
    }
    if procfs::has_libjvm(pid) {
        return bad_input(format!(
            "process {pid} is a JVM but has no PerfData file in {TMP}/{DIR_PREFIX}*/ (still starting, or was {TMP} cleaned?)"
        ));
    }
    bad_input(format!("process {pid} ({}) is not a JVM", procfs::command_name(pid)))
}

/// `-XX:-UsePerfData` or `-XX:+PerfDisableSharedMem`, if the last word on either flag switches the file off.
fn perfdata_disabling_flag(options: &[String]) -> Option<&'static str> {
    let last = |on: &str, off: &str| options.iter().rev().find(|o| *o == on || *o == off).map(String::as_str);
    if last("-XX:+UsePerfData", "-XX:-UsePerfData") == Some("-XX:-UsePerfData") {
        return Some("-XX:-UsePerfData");
    }
    if last("-XX:+PerfDisableSharedMem", "-XX:-PerfDisableSharedMem") == Some("-XX:+PerfDisableSharedMem") {
        return Some("-XX:+PerfDisableSharedMem");
    }
    None
}

fn permission_denied(pid: u32, path: &Path) -> anyhow::Error {
    let user = path
        .parent()
        .and_then(Path::file_name)
        .and_then(|dir| dir.to_string_lossy().strip_prefix(DIR_PREFIX).map(str::to_owned))
        .unwrap_or_else(|| "another user".to_owned());
    bad_input(format!(
        "permission denied reading {}: JVM {pid} runs as user {user}; run jload as {user} or as root",
        path.display()
    ))
}

/// A JVM killed with -9 leaves its file behind; if its pid is later reused by another JVM in a container, or the
/// file is found by pid only, the file may describe a JVM that started before the process did.
fn reject_leftover_file(pid: u32, path: &Path, perfdata: &PerfData) -> Result<()> {
    const TOLERANCE_MS: i64 = 2_000;
    let vm_start_ms = perfdata.snapshot().long_named("sun.rt.createVmBeginTime");
    let process_start_ms = procfs::start_time(pid)
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .and_then(|d| i64::try_from(d.as_millis()).ok());
    if let (Some(vm), Some(process)) = (vm_start_ms, process_start_ms)
        && vm + TOLERANCE_MS < process
    {
        return Err(bad_input(format!(
            "{} was left by an earlier JVM (started {} s before process {pid}): process {pid} is not that JVM",
            path.display(),
            (process - vm) / 1000
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| (*w).to_owned()).collect()
    }

    #[test]
    fn the_last_perfdata_flag_wins() {
        assert_eq!(perfdata_disabling_flag(&strings(&["java", "-XX:-UsePerfData", "Main"])), Some("-XX:-UsePerfData"));
        assert_eq!(perfdata_disabling_flag(&strings(&["-XX:-UsePerfData", "-XX:+UsePerfData"])), None);
        assert_eq!(
            perfdata_disabling_flag(&strings(&["-XX:+PerfDisableSharedMem"])),
            Some("-XX:+PerfDisableSharedMem")
        );
        assert_eq!(perfdata_disabling_flag(&strings(&["java", "-Xmx1g", "Main"])), None);
    }

    #[test]
    fn this_test_binary_is_not_a_jvm() {
        let err = perfdata_path(std::process::id()).unwrap_err().to_string();
        assert!(err.contains("is not a JVM"), "{err}");
    }
}
