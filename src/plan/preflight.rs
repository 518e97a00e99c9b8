//! Preflight: before any load, `<java> <options> -XX:+PrintFlagsFinal -version` for every distinct option set, so a
//! bad flag (seed 000's `-Xms=25g`, an unknown `-XX`, two collectors) is caught up front with the JVM's own message;
//! and the effective flags (heap sizes, collector, GC threads, direct memory) and JDK version of each cell; and the
//! command's `-jar` file, which must exist before any cell starts.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde::{Deserialize, Serialize};

use crate::cgroup::{CellBox, Cgroups, Limits};
use crate::cpuset::CpuSet;
use crate::plan::box_limits::mebibytes;

/// The `-jar` file of the target's command (`command` words as written, before `{…}` are filled in) where it will
/// run: resolved against `workdir`. None when the command has no `-jar`, or its file is named through a placeholder.
pub fn jar_file(command: &[String], workdir: &Path) -> Option<PathBuf> {
    let position = command.iter().position(|word| word == "-jar")?;
    let jar = command.get(position + 1).filter(|word| !word.contains('{'))?;
    Some(workdir.join(jar))
}

/// The one-line error for a `-jar` file that does not exist (`place`: `here`, or `on user@server`).
pub fn missing_jar_error(jar: &Path, place: &str) -> String {
    format!(
        "target.command: the -jar file {} does not exist {place}; build it first (a [target] build step such as \
         `mvn -q package -DskipTests`) or fix the path (relative paths are from the target's workdir)",
        jar.display()
    )
}

/// What the JVM reports it will really use for a cell.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct EffectiveFlags {
    /// First line of `java -version`, e.g. `openjdk version "17.0.15" 2025-04-15`.
    pub java_version: String,
    pub max_heap_bytes: u64,
    pub initial_heap_bytes: u64,
    /// Serial, Parallel, G1, ZGC, ZGC (generational), Shenandoah or Epsilon.
    pub collector: String,
    pub parallel_gc_threads: u64,
    /// 0 means "the JVM's default" (about -Xmx).
    pub max_direct_memory_bytes: u64,
}

/// The outcome of one preflight.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub enum Preflight {
    Valid(EffectiveFlags),
    /// The JVM refused the options; its own message.
    Invalid(String),
}

/// Run `java options -XX:+PrintFlagsFinal -version` and read the result.
#[cfg(test)]
pub fn check(java: &Path, options: &[String]) -> Preflight {
    check_pinned(java, options, None)
}

/// As [`check`], the JVM started on `cpus` as the cell's target will be (`[target] cpus`): the JVM sizes its GC and
/// compiler threads by the CPUs it may use, so the effective flags must come from a JVM pinned alike.
pub fn check_pinned(java: &Path, options: &[String], cpus: Option<&CpuSet>) -> Preflight {
    check_boxed(java, options, cpus, &Limits::default())
}

/// As [`check_pinned`], the JVM started in a cgroup box of its own with the cell's `limits` (docs/containers.md), as
/// its target will be: the JVM's container support sizes its heap, collector and threads by the box, so the flags
/// reported are those of the box. The box is removed when the JVM has ended.
pub fn check_boxed(java: &Path, options: &[String], cpus: Option<&CpuSet>, limits: &Limits) -> Preflight {
    let mut command = Command::new(java);
    command.args(options).arg("-XX:+PrintFlagsFinal").arg("-version");
    if let Some(cpus) = cpus
        && let Err(err) = cpus.apply_to(&mut command)
    {
        return Preflight::Invalid(format!("cannot pin {} to CPUs {cpus}: {err}", java.display()));
    }
    let cell_box = if *limits == Limits::default() {
        None
    } else {
        match Cgroups::detect().and_then(|cgroups| CellBox::create(&cgroups, limits)) {
            Ok(cell_box) => {
                cell_box.enter_before_exec(&mut command);
                Some(cell_box)
            }
            Err(err) => return Preflight::Invalid(format!("cannot make a cgroup box for the preflight: {err}")),
        }
    };
    let output = match command.output() {
        Ok(output) => output,
        Err(err) => return Preflight::Invalid(format!("cannot run {}: {err}", java.display())),
    };
    let killed = cell_box
        .as_ref()
        .and_then(|cell_box| cell_box.sample().ok()?.memory)
        .filter(|memory| !output.status.success() && memory.oom_kills.is_some_and(|kills| kills > 0));
    match killed {
        Some(memory) => Preflight::Invalid(format!(
            "the JVM was killed by the memory limit ({}) while starting; give the box more memory",
            memory.limit.map_or("?".to_string(), mebibytes)
        )),
        None => judge(&output),
    }
}

/// Read what `java options -XX:+PrintFlagsFinal -version` printed, here or on a target's server.
pub fn judge(output: &std::process::Output) -> Preflight {
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        let message: Vec<&str> = stderr
            .lines()
            .chain(stdout.lines())
            .map(str::trim)
            .filter(|line| !line.is_empty() && !line.starts_with("Error: Could not create the Java Virtual Machine"))
            .filter(|line| !line.starts_with("Error: A fatal exception has occurred"))
            .take(3)
            .collect();
        let message =
            if message.is_empty() { format!("the JVM exited with {}", output.status) } else { message.join("; ") };
        return Preflight::Invalid(message);
    }
    let flags = parse_flags(&stdout);
    let number = |name: &str| flags.get(name).and_then(|value| value.parse::<u64>().ok()).unwrap_or(0);
    let enabled = |name: &str| flags.get(name).is_some_and(|value| value == "true");
    let collector = if enabled("UseSerialGC") {
        "Serial"
    } else if enabled("UseParallelGC") {
        "Parallel"
    } else if enabled("UseG1GC") {
        "G1"
    } else if enabled("UseZGC")
        && (enabled("ZGenerational") || !flags.contains_key("ZGenerational") && java_major(&stderr) >= 23)
    {
        "ZGC (generational)"
    } else if enabled("UseZGC") {
        "ZGC"
    } else if enabled("UseShenandoahGC") {
        "Shenandoah"
    } else if enabled("UseEpsilonGC") {
        "Epsilon"
    } else {
        "unknown"
    };
    Preflight::Valid(EffectiveFlags {
        java_version: stderr.lines().next().unwrap_or("").trim().to_string(),
        max_heap_bytes: number("MaxHeapSize"),
        initial_heap_bytes: number("InitialHeapSize"),
        collector: collector.to_string(),
        parallel_gc_threads: number("ParallelGCThreads"),
        max_direct_memory_bytes: number("MaxDirectMemorySize"),
    })
}

/// The major version in `openjdk version "25.0.3" …`.
fn java_major(version_output: &str) -> u32 {
    version_output
        .split('"')
        .nth(1)
        .and_then(|version| version.split('.').next())
        .and_then(|major| major.parse().ok())
        .unwrap_or(0)
}

/// `-XX:+PrintFlagsFinal` lines look like `   size_t MaxHeapSize   = 4181721088   {product} {ergonomic}`.
fn parse_flags(text: &str) -> BTreeMap<String, String> {
    text.lines()
        .filter_map(|line| {
            let (left, right) = line.split_once(" = ").or_else(|| line.split_once(":= "))?;
            let name = left.split_whitespace().last()?;
            let value = right.split_whitespace().next().unwrap_or("");
            Some((name.trim_end_matches(':').to_string(), value.to_string()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::jdks;

    #[test]
    fn the_jar_file_is_the_word_after_jar_from_the_workdir_unless_a_placeholder_names_it() {
        let words = |text: &str| shell_words::split(text).unwrap();
        let workdir = Path::new("/w");
        assert_eq!(jar_file(&words("java {jvm} -jar app/kv.jar --x"), workdir), Some("/w/app/kv.jar".into()));
        assert_eq!(jar_file(&words("java -jar /opt/kv.jar"), workdir), Some("/opt/kv.jar".into()));
        assert_eq!(jar_file(&words("java {jvm} -jar {dir}/kv.jar"), workdir), None);
        assert_eq!(jar_file(&words("catalina.sh run"), workdir), None);
        assert_eq!(jar_file(&words("java -jar"), workdir), None);
    }

    fn java17() -> std::path::PathBuf {
        jdks::choose(Some("17"), &jdks::discover()).unwrap().java()
    }

    #[test]
    fn valid_options_give_effective_flags() {
        let options = vec!["-Xmx64m".to_string(), "-Xms32m".to_string(), "-XX:+UseParallelGC".to_string()];
        let Preflight::Valid(flags) = check(&java17(), &options) else { panic!("valid options") };
        assert_eq!(flags.max_heap_bytes, 64 * 1024 * 1024);
        assert_eq!(flags.initial_heap_bytes, 32 * 1024 * 1024);
        assert_eq!(flags.collector, "Parallel");
        assert!(flags.java_version.contains("17."), "{}", flags.java_version);
        assert!(flags.parallel_gc_threads >= 1);
    }

    #[test]
    fn seed_000s_invalid_flag_is_refused_with_the_jvm_message() {
        let Preflight::Invalid(message) = check(&java17(), &["-Xms=25g".to_string()]) else { panic!("invalid") };
        assert!(message.contains("-Xms=25g") || message.contains("Invalid initial heap size"), "{message}");
        let two = vec!["-XX:+UseG1GC".to_string(), "-XX:+UseParallelGC".to_string()];
        let Preflight::Invalid(message) = check(&java17(), &two) else { panic!("two collectors") };
        assert!(message.contains("garbage collector"), "{message}");
    }

    #[test]
    fn a_jvm_pinned_to_one_cpu_reports_the_gc_threads_it_will_really_use() {
        let cpu = CpuSet::available().unwrap().cpus()[0];
        let one = CpuSet::parse(&cpu.to_string()).unwrap();
        let options = vec!["-XX:+UseParallelGC".to_string()];
        let Preflight::Valid(flags) = check_pinned(&java17(), &options, Some(&one)) else { panic!("valid options") };
        assert_eq!(flags.parallel_gc_threads, 1);
    }
}
