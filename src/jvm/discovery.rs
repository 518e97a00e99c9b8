//! Local JVM discovery for `jload jps` and name targets: every running process with a readable PerfData file,
//! described like jps does (main class or jar, arguments, JVM version), from its PerfData strings; and the JVM of a
//! started process tree (a wrapper script, `catalina.sh run`, a launcher), for `jload run`.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use super::perfdata::file as perfdata_file;
use super::perfdata::{PerfData, Snapshot};
use super::procfs;

/// What `jload jps` shows about one JVM.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct JvmInfo {
    pub pid: u32,
    /// Main class without package, jar file name, or for the source launcher (`java Foo.java`) the source file.
    pub main: String,
    /// Arguments to the main class.
    pub args: String,
    /// JVM options (java.rt.vmArgs).
    pub jvm_args: String,
    /// java.vm.version, e.g. 17.0.15+6-Debian-1deb12u1.
    pub version: String,
    pub perfdata: PathBuf,
}

/// The main classes of the JDK's source-file launcher (JDK 11-21, JDK 22+).
const SOURCE_LAUNCHERS: [&str; 2] =
    ["jdk.compiler/com.sun.tools.javac.launcher.Main", "jdk.compiler/com.sun.tools.javac.launcher.SourceLauncher"];

/// Every running JVM whose PerfData file this user may read, by pid. JVMs in other mount namespaces (containers)
/// are found through /proc/<pid>/root/tmp.
pub fn list_jvms() -> Vec<JvmInfo> {
    let mut jvms: Vec<JvmInfo> = host_perfdata_files()
        .into_iter()
        .filter(|(pid, _)| procfs::is_running(*pid))
        .filter_map(|(pid, path)| describe(pid, &path))
        .collect();
    for pid in other_mount_namespace_pids() {
        if jvms.iter().any(|jvm| jvm.pid == pid) {
            continue;
        }
        if let Some(jvm) = perfdata_file::find_perfdata(pid).and_then(|path| describe(pid, &path)) {
            jvms.push(jvm);
        }
    }
    jvms.sort_by_key(|jvm| jvm.pid);
    jvms
}

/// The service's JVM among the processes of a started tree (`candidates`): the one listening on `port` that
/// publishes PerfData, else the newest one that publishes PerfData; None when no candidate is a sampleable JVM.
pub fn service_jvm(candidates: &[u32], port: u16) -> Option<u32> {
    let with_perfdata: Vec<u32> =
        candidates.iter().copied().filter(|&pid| perfdata_file::find_perfdata(pid).is_some()).collect();
    let listening = procfs::listeners(port);
    if let Some(&pid) = with_perfdata.iter().find(|pid| listening.contains(pid)) {
        return Some(pid);
    }
    with_perfdata.into_iter().max_by_key(|&pid| procfs::start_time(pid).ok())
}

/// (pid, path) of every numeric file in /tmp/hsperfdata_*/.
fn host_perfdata_files() -> Vec<(u32, PathBuf)> {
    let mut files = Vec::new();
    for dir in perfdata_file::perfdata_dirs(Path::new(perfdata_file::TMP)) {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            if let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() {
                files.push((pid, entry.path()));
            }
        }
    }
    files
}

/// Pids of processes whose mount namespace differs from jload's (their /tmp is not ours).
fn other_mount_namespace_pids() -> Vec<u32> {
    let Ok(own) = fs::read_link("/proc/self/ns/mnt") else {
        return Vec::new();
    };
    let Ok(entries) = fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_string_lossy().parse::<u32>().ok())
        .filter(|pid| fs::read_link(format!("/proc/{pid}/ns/mnt")).is_ok_and(|ns| ns != own))
        .collect()
}

/// Reads the jps strings of one JVM; None if its file cannot be read or is not PerfData.
fn describe(pid: u32, path: &Path) -> Option<JvmInfo> {
    let perfdata = PerfData::open(path, Duration::ZERO).ok()?;
    Some(describe_snapshot(pid, path, perfdata.snapshot()))
}

fn describe_snapshot(pid: u32, path: &Path, snapshot: &Snapshot) -> JvmInfo {
    let string = |name: &str| snapshot.string_named(name).unwrap_or_default();
    let command = string("sun.rt.javaCommand");
    let (main, args) = split_java_command(&command);
    let version = snapshot
        .string_named("java.property.java.vm.version")
        .or_else(|| snapshot.string_named("java.vm.version"))
        .unwrap_or_else(|| "Unknown".to_owned());
    JvmInfo { pid, main, args, jvm_args: string("java.rt.vmArgs"), version, perfdata: path.to_owned() }
}

/// Splits sun.rt.javaCommand into jps' main class name (jps' MonitoredVmUtil.mainClass) and the arguments.
/// For the source launcher the "main" is the source file (Alloc.java) and the arguments are the ones after it.
fn split_java_command(command: &str) -> (String, String) {
    let (first, rest) = command.split_once(' ').unwrap_or((command, ""));
    if SOURCE_LAUNCHERS.contains(&first) {
        let (source, args) = rest.split_once(' ').unwrap_or((rest, ""));
        return (last_path_component(source).to_owned(), args.to_owned());
    }
    if first.is_empty() {
        return ("Unknown".to_owned(), String::new());
    }
    (main_class_name(first).to_owned(), rest.to_owned())
}

fn last_path_component(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// jps: strip directories and the module (`module/Main`), keep `x.jar`, else strip the package.
fn main_class_name(first: &str) -> &str {
    let name = last_path_component(first);
    match name.rsplit_once('.') {
        Some((_, "jar")) => name,
        Some((package, class)) if !package.is_empty() => class,
        _ => name,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn main_class_like_jps() {
        let split = |c: &str| split_java_command(c);
        assert_eq!(split("com.example.KvService --port 8088"), ("KvService".into(), "--port 8088".into()));
        assert_eq!(split("/opt/app/kv-service.jar -Dx"), ("kv-service.jar".into(), "-Dx".into()));
        assert_eq!(split("my.module/com.example.Main"), ("Main".into(), String::new()));
        assert_eq!(split("Main"), ("Main".into(), String::new()));
        assert_eq!(split(""), ("Unknown".into(), String::new()));
        assert_eq!(
            split("jdk.compiler/com.sun.tools.javac.launcher.SourceLauncher /w/tests/java/Alloc.java --listen"),
            ("Alloc.java".into(), "--listen".into())
        );
        assert_eq!(
            split("jdk.compiler/com.sun.tools.javac.launcher.Main Alloc.java"),
            ("Alloc.java".into(), String::new())
        );
    }

    #[test]
    fn describes_a_real_perfdata_file() {
        let snapshot = Snapshot::parse(include_bytes!("../../tests/fixtures/hsperfdata/jdk25-zgc").to_vec()).unwrap();
        let jvm = describe_snapshot(42, Path::new("x"), &snapshot);
        assert_eq!(jvm.main, "Alloc.java");
        assert!(jvm.version.starts_with("25."), "{jvm:?}");
        assert!(jvm.jvm_args.contains("-XX:+UseZGC"), "{jvm:?}");
    }
}
