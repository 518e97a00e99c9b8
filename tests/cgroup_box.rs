//! Boxes on this machine's real cgroups, with real processes: a shell started in a box is in it and its limit reads
//! back; a real JVM (JDK 17 and Temurin 25) in a 400 MiB / 0.5-CPU box sees the limit and one processor; a process
//! allocating past its limit (python3, and a JVM's direct buffers) is killed by the kernel and the box counts it;
//! spinning processes under a 0.2 quota are throttled, and a box watched over time writes `box.csv` a row a second
//! and places a stretch for each throttled period; a running process is entered by pid; a box removed with its
//! processes still running kills them and leaves no folder; stale boxes of a dead jload are removed and live ones
//! kept; and the v2 box on the real cgroup2 hierarchy (whose memory and cpu controllers this kernel binds to v1 — see
//! docs/containers.md).
//!
//! Every box is a `CellBox`, whose drop removes it, so a failing assertion leaves no cgroup behind.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use std::os::unix::process::ExitStatusExt;

use crate::common::jdks::{java17, jdk17, jdk25};
use crate::common::machine;
use jload::cgroup::box_csv;
use jload::cgroup::box_watch::BoxWatch;
use jload::cgroup::{BoxName, CellBox, CgroupError, Cgroups, Limits, Version, remove_stale};

const MIB: u64 = 1 << 20;

fn cgroups() -> Cgroups {
    let cgroups = Cgroups::detect().expect("/proc/self/mountinfo and /proc/self/cgroup are readable");
    assert_eq!(cgroups.version(), Version::V1, "this machine (and CI) mount cgroup v1 controllers");
    cgroups.require(&Limits { memory_bytes: Some(MIB), cpus_quota: Some(1.0) }).expect("writable memory and cpu");
    cgroups
}

/// Wait for a child at most `limit`; it is killed when it takes longer, and the test fails.
fn wait_within(child: &mut Child, limit: Duration) -> ExitStatus {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("process {} ran longer than {limit:?}", child.id());
        }
        thread::sleep(Duration::from_millis(20));
    }
}

fn output_within(mut command: Command, limit: Duration) -> (ExitStatus, String) {
    let mut child = command.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let (mut out, mut err) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let reader = thread::spawn(move || {
        let mut text = String::new();
        err.read_to_string(&mut text).unwrap();
        text
    });
    let mut text = String::new();
    out.read_to_string(&mut text).unwrap();
    let status = wait_within(&mut child, limit);
    (status, text + &reader.join().unwrap())
}

fn assert_gone(dirs: &[PathBuf]) {
    for dir in dirs {
        assert!(!dir.exists(), "{} is left behind", dir.display());
    }
}

fn alive(pid: u32) -> bool {
    // A zombie is dead for this purpose: it is waiting only for its parent to read its status.
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|stat| !stat.rsplit_once(") ").is_some_and(|(_, rest)| rest.starts_with('Z')))
        .unwrap_or(false)
}

#[test]
fn a_shell_started_in_a_box_is_in_it_with_its_children_and_the_limits_read_back() {
    let _machine = machine::shared();
    let cgroups = cgroups();
    let cell_box = CellBox::create(&cgroups, &Limits { memory_bytes: Some(256 * MIB), cpus_quota: Some(1.5) }).unwrap();
    let mut command = Command::new("sh");
    // `cat` is a child of the shell: it reads its own /proc/self/cgroup.
    command.args(["-c", "cat /proc/self/cgroup"]);
    cell_box.enter_before_exec(&mut command);
    let (status, output) = output_within(command, Duration::from_secs(10));
    assert!(status.success(), "{output}");
    let suffix = format!("/jload/{}", cell_box.name().as_str());
    for controller in ["memory", "cpu"] {
        let line = output
            .lines()
            .find(|line| line.split(':').nth(1).is_some_and(|names| names.split(',').any(|name| name == controller)))
            .unwrap_or_else(|| panic!("no {controller} line in {output}"));
        assert!(line.ends_with(&suffix), "{line} is not in the box {suffix}");
    }
    let memory_dir = cell_box.memory_dir().unwrap();
    assert_eq!(std::fs::read_to_string(memory_dir.join("memory.limit_in_bytes")).unwrap().trim(), "268435456");
    assert_eq!(std::fs::read_to_string(memory_dir.join("memory.memsw.limit_in_bytes")).unwrap().trim(), "268435456");
    let cpu_dir = cell_box.cpu_dir().unwrap();
    assert_eq!(std::fs::read_to_string(cpu_dir.join("cpu.cfs_quota_us")).unwrap().trim(), "150000");
    assert_eq!(std::fs::read_to_string(cpu_dir.join("cpu.cfs_period_us")).unwrap().trim(), "100000");
    let sample = cell_box.sample().unwrap();
    assert_eq!(sample.memory.as_ref().unwrap().limit, Some(256 * MIB));
    assert_eq!(sample.memory.as_ref().unwrap().oom_kills, Some(0));
    assert_eq!(sample.cpu.as_ref().unwrap().quota_cpus, Some(1.5));
    assert_eq!(cell_box.pids().unwrap(), Vec::<u32>::new(), "the shell and cat have exited");
    let dirs = cell_box.dirs().to_vec();
    assert_eq!(dirs.len(), 2);
    cell_box.remove().unwrap();
    assert_gone(&dirs);
}

/// The value of a flag in `-XX:+PrintFlagsFinal`'s table (`bool UseSerialGC = true {product} {ergonomic}`).
fn flag<'a>(output: &'a str, name: &str) -> &'a str {
    output
        .lines()
        .find_map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            (words.get(1) == Some(&name) && words.get(2) == Some(&"=")).then(|| words[3])
        })
        .unwrap_or_else(|| panic!("no flag {name} in the JVM's output"))
}

#[test]
fn a_jvm_in_a_400_mib_half_cpu_box_sees_the_limit_and_one_processor_and_picks_serial_on_both_jdks() {
    let _machine = machine::shared();
    let cgroups = cgroups();
    for home in [jdk17("java"), jdk25("java")] {
        let jdk = home.display();
        let cell_box =
            CellBox::create(&cgroups, &Limits { memory_bytes: Some(400 * MIB), cpus_quota: Some(0.5) }).unwrap();
        let mut command = Command::new(home.join("bin/java"));
        command.args(["-Xlog:os+container=trace:stdout", "-Xlog:gc+init:stdout", "-XX:+PrintFlagsFinal", "-version"]);
        cell_box.enter_before_exec(&mut command);
        let (status, output) = output_within(command, Duration::from_secs(60));
        assert!(status.success(), "{jdk}: {output}");
        assert!(output.contains("Memory Limit is: 419430400"), "{jdk} did not see the limit: {output}");
        assert!(output.contains("OSContainer::active_processor_count: 1"), "{jdk} did not see one CPU: {output}");
        assert!(output.contains("CPUs: 2 total, 1 available") || output.contains("CPUs: 1 total, 1 available"));
        assert_eq!(flag(&output, "UseSerialGC"), "true", "{jdk} with one CPU picks Serial");
        // Sized from the box, not from the host's memory (24 GiB here: a quarter would be 6 GiB).
        let max_heap: u64 = flag(&output, "MaxHeapSize").parse().unwrap();
        assert!(max_heap <= 200 * MIB, "{jdk}: MaxHeapSize {max_heap} is not sized from the 400 MiB box");
        let dirs = cell_box.dirs().to_vec();
        cell_box.remove().unwrap();
        assert_gone(&dirs);
    }
}

#[test]
fn a_process_allocating_past_its_limit_is_killed_by_the_kernel_and_the_box_counts_the_kill_at_its_peak() {
    let _machine = machine::shared();
    let cgroups = cgroups();
    let limit = 100 * MIB;
    let cell_box = CellBox::create(&cgroups, &Limits { memory_bytes: Some(limit), cpus_quota: None }).unwrap();
    let mut command = Command::new("python3");
    // Bytes written, not only reserved: every page is touched.
    command.args(["-c", "data = b'x' * (300 << 20); print(len(data))"]);
    cell_box.enter_before_exec(&mut command);
    let (status, output) = output_within(command, Duration::from_secs(60));
    assert_eq!(status.signal(), Some(libc::SIGKILL), "python3 was not killed: {status:?} {output}");
    let memory = cell_box.sample().unwrap().memory.unwrap();
    assert_eq!(memory.oom_kills, Some(1));
    assert_eq!(memory.limit, Some(limit));
    let peak = memory.peak.unwrap();
    assert_at_the_limit(peak, limit);
    assert!(memory.usage < limit / 2, "the killed process's memory was freed: usage {}", memory.usage);
    let dirs = cell_box.dirs().to_vec();
    cell_box.remove().unwrap();
    assert_gone(&dirs);
}

/// A Java program that writes 300 MiB of direct buffers, 1 MiB at a time, with a heap that never fills.
const DIRECT_FILL: &str = r#"
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

public class DirectFill {
    public static void main(String[] args) {
        List<ByteBuffer> kept = new ArrayList<>();
        for (int mib = 0; mib < 300; mib++) {
            ByteBuffer buffer = ByteBuffer.allocateDirect(1 << 20);
            for (int at = 0; at < buffer.capacity(); at += 4096) {
                buffer.put(at, (byte) 1);
            }
            kept.add(buffer);
        }
        System.out.println("survived " + kept.size() + " MiB");
    }
}
"#;

#[test]
fn a_jvm_whose_direct_buffers_pass_its_box_is_killed_by_the_kernel_not_by_an_out_of_memory_error() {
    let _machine = machine::shared();
    let cgroups = cgroups();
    let source_dir = tempfile::Builder::new().prefix("jload-test-").tempdir().unwrap();
    let source = source_dir.path().join("DirectFill.java");
    std::fs::write(&source, DIRECT_FILL).unwrap();
    let limit = 200 * MIB;
    let cell_box = CellBox::create(&cgroups, &Limits { memory_bytes: Some(limit), cpus_quota: None }).unwrap();
    let mut command = Command::new(java17());
    command.args(["-Xmx64m", "-XX:MaxDirectMemorySize=1g", "-XX:+UseSerialGC"]).arg(&source);
    cell_box.enter_before_exec(&mut command);
    let (status, output) = output_within(command, Duration::from_secs(120));
    assert_eq!(status.signal(), Some(libc::SIGKILL), "the JVM was not killed: {status:?} {output}");
    assert!(!output.contains("survived") && !output.contains("OutOfMemoryError"), "{output}");
    let memory = cell_box.sample().unwrap().memory.unwrap();
    assert_eq!(memory.oom_kills, Some(1));
    let peak = memory.peak.unwrap();
    assert_at_the_limit(peak, limit);
    let dirs = cell_box.dirs().to_vec();
    cell_box.remove().unwrap();
    assert_gone(&dirs);
}

#[test]
fn a_spinning_process_under_a_fifth_of_a_cpu_is_throttled() {
    let _machine = machine::shared();
    let cgroups = cgroups();
    let cell_box = CellBox::create(&cgroups, &Limits { memory_bytes: None, cpus_quota: Some(0.2) }).unwrap();
    let mut command = Command::new("sh");
    // Two spinning shells want two CPUs' time: each 100 ms period they use up the 20 ms the box has and wait out
    // the rest, even when the machine is busy with other work.
    command.args(["-c", "while :; do :; done & while :; do :; done"]);
    cell_box.enter_before_exec(&mut command);
    let mut child = command.spawn().unwrap();
    let started = Instant::now();
    let cpu = loop {
        thread::sleep(Duration::from_millis(500));
        let cpu = cell_box.sample().unwrap().cpu.unwrap();
        if (cpu.throttled_periods >= 5 && cpu.throttled_ns > 0) || started.elapsed() > Duration::from_secs(15) {
            break cpu;
        }
    };
    let dirs = cell_box.dirs().to_vec();
    cell_box.remove().unwrap();
    assert_eq!(wait_within(&mut child, Duration::from_secs(5)).signal(), Some(libc::SIGKILL));
    assert_gone(&dirs);
    assert_eq!(cpu.quota_cpus, Some(0.2));
    assert!(cpu.throttled_periods >= 5 && cpu.throttled_periods <= cpu.periods, "{cpu:?}");
    assert!(cpu.throttled_ns > 0, "{cpu:?}");
}

#[test]
fn a_watched_box_writes_a_row_a_second_and_places_a_stretch_for_each_throttled_period() {
    let _machine = machine::shared();
    let cgroups = cgroups();
    let folder = tempfile::tempdir().unwrap();
    let csv = folder.path().join("box.csv");
    let cell_box = CellBox::create(&cgroups, &Limits { memory_bytes: Some(64 * MIB), cpus_quota: Some(0.2) }).unwrap();
    let mut command = Command::new("sh");
    command.args(["-c", "while :; do :; done & while :; do :; done"]);
    cell_box.enter_before_exec(&mut command);
    let mut child = command.spawn().unwrap();
    let before = cell_box.sample().unwrap().cpu.unwrap();
    let mut watch = BoxWatch::start(cell_box.reader(), Some(csv.clone()), 2.0).unwrap();
    watch.set_uptime_zero(0);
    thread::sleep(Duration::from_millis(3_300));
    watch.finish();
    let after = cell_box.sample().unwrap().cpu.unwrap();
    let stretches = watch.throttled();
    cell_box.remove().unwrap();
    assert_eq!(wait_within(&mut child, Duration::from_secs(5)).signal(), Some(libc::SIGKILL));

    // Rows at 0, 1, 2 and 3 s, and one at the finish (the one at 3 s is it when the thread was held up past the
    // finish); each with the uptime it was given (wall clock since 1970).
    let rows = box_csv::read(&std::fs::read_to_string(&csv).unwrap()).unwrap();
    assert!((4..=5).contains(&rows.len()), "{rows:?}");
    assert!(rows.iter().all(|row| row.uptime_s.unwrap() > 1.7e9 && row.sample.memory.is_some()), "{rows:?}");
    let cpu: Vec<_> = rows.iter().map(|row| row.sample.cpu.clone().unwrap()).collect();
    assert!(cpu.windows(2).all(|pair| pair[1].throttled_periods >= pair[0].throttled_periods), "{cpu:?}");
    // A stretch for each period throttled while it watched (the counters between its first read and its last,
    // which lie between the two samples taken around it; the last period may still wait for its time), in order,
    // none longer than a period.
    let counted = (cpu.last().unwrap().throttled_periods - cpu[0].throttled_periods) as usize;
    assert!(counted >= 20, "{cpu:?}");
    assert!((counted - 1..=counted).contains(&stretches.len()), "{counted} periods, {} stretches", stretches.len());
    assert!(after.throttled_periods - before.throttled_periods >= counted as u64);
    assert!(stretches.windows(2).all(|pair| pair[1].end_unix_us > pair[0].end_unix_us), "{stretches:?}");
    for stretch in &stretches {
        let length = stretch.end_unix_us - stretch.start_unix_us;
        assert!(length > 0 && length <= 100_000, "{stretch:?}");
    }
    // Their wall time: the throttled time over the 2 CPUs (to the microsecond per stretch, but for time a read
    // brought without a period: the part of a period's time a CPU added after the read that counted the period).
    let placed_us: i64 = stretches.iter().map(|stretch| stretch.end_unix_us - stretch.start_unix_us).sum();
    let counted_us = (cpu.last().unwrap().throttled_ns - cpu[0].throttled_ns) as f64 / 1000.0 / 2.0;
    let placed = placed_us as f64;
    assert!(placed <= counted_us + stretches.len() as f64 && placed >= 0.9 * counted_us, "{placed} vs {counted_us} µs");
}

#[test]
fn removing_a_box_kills_the_whole_tree_still_running_in_it_and_removes_every_folder() {
    let _machine = machine::shared();
    let cgroups = cgroups();
    let cell_box = CellBox::create(&cgroups, &Limits { memory_bytes: Some(64 * MIB), cpus_quota: None }).unwrap();
    let mut command = Command::new("sh");
    // A grandchild in the background, out of the shell's process group: only the box still holds it.
    command.args(["-c", "setsid sleep 300 & sleep 300"]);
    cell_box.enter_before_exec(&mut command);
    let mut child = command.spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    let pids = loop {
        let pids = cell_box.pids().unwrap();
        if pids.len() >= 3 || Instant::now() >= deadline {
            break pids;
        }
        thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(pids.len(), 3, "the shell, its sleep and the setsid sleep: {pids:?}");
    assert!(pids.contains(&child.id()));
    let dirs = cell_box.dirs().to_vec();
    cell_box.remove().unwrap();
    assert_eq!(wait_within(&mut child, Duration::from_secs(5)).signal(), Some(libc::SIGKILL));
    assert_gone(&dirs);
    for pid in pids {
        assert!(!alive(pid), "process {pid} of the box survived its removal");
    }
}

#[test]
fn a_cgroup_a_process_of_the_box_made_below_it_is_emptied_and_removed_with_the_box() {
    let _machine = machine::shared();
    let cgroups = cgroups();
    let cell_box = CellBox::create(&cgroups, &Limits { memory_bytes: Some(64 * MIB), cpus_quota: None }).unwrap();
    let mut command = Command::new("sh");
    command
        .args(["-c", "mkdir \"$BOX/inner\" && echo $$ > \"$BOX/inner/cgroup.procs\" && echo moved && exec sleep 300"])
        .env("BOX", cell_box.memory_dir().unwrap());
    cell_box.enter_before_exec(&mut command);
    let mut child = command.stdout(Stdio::piped()).spawn().unwrap();
    let mut moved = [0u8; 6];
    child.stdout.take().unwrap().read_exact(&mut moved).unwrap();
    assert_eq!(&moved, b"moved\n");
    let inner = cell_box.memory_dir().unwrap().join("inner");
    assert_eq!(std::fs::read_to_string(inner.join("cgroup.procs")).unwrap().trim(), child.id().to_string());
    assert_eq!(cell_box.pids().unwrap(), vec![child.id()], "the box counts the process below it");
    let dirs = cell_box.dirs().to_vec();
    cell_box.remove().unwrap();
    assert_eq!(wait_within(&mut child, Duration::from_secs(5)).signal(), Some(libc::SIGKILL));
    assert!(!inner.exists());
    assert_gone(&dirs);
}

#[test]
fn a_running_process_entered_by_pid_is_in_the_box_nested_under_the_cgroup_this_test_runs_in() {
    let _machine = machine::shared();
    let cgroups = cgroups();
    let own = std::fs::read_to_string("/proc/self/cgroup").unwrap();
    let own_memory = own.lines().find_map(|line| line.strip_prefix(&format!("{}:memory:", line.split(':').next()?)));
    let own_memory = own_memory.expect("a v1 memory line").trim_start_matches('/');
    assert_eq!(cgroups.memory_base().unwrap(), Path::new("/sys/fs/cgroup/memory").join(own_memory));
    let cell_box = CellBox::create(&cgroups, &Limits { memory_bytes: Some(64 * MIB), cpus_quota: None }).unwrap();
    let mut child = Command::new("sleep").arg("300").spawn().unwrap();
    cell_box.enter(child.id()).unwrap();
    let cgroup = std::fs::read_to_string(format!("/proc/{}/cgroup", child.id())).unwrap();
    let memory_line = cgroup.lines().find(|line| line.contains(":memory:")).unwrap();
    let expected = if own_memory.is_empty() { String::new() } else { format!("/{own_memory}") };
    assert_eq!(memory_line.split(':').nth(2).unwrap(), format!("{expected}/jload/{}", cell_box.name().as_str()));
    assert_eq!(cell_box.pids().unwrap(), vec![child.id()]);
    let dirs = cell_box.dirs().to_vec();
    cell_box.remove().unwrap();
    assert_eq!(wait_within(&mut child, Duration::from_secs(5)).signal(), Some(libc::SIGKILL));
    assert_gone(&dirs);
}

#[test]
fn dropping_a_box_removes_it_too() {
    let _machine = machine::shared();
    let cgroups = cgroups();
    let cell_box = CellBox::create(&cgroups, &Limits { memory_bytes: Some(64 * MIB), cpus_quota: None }).unwrap();
    let mut command = Command::new("sleep");
    command.arg("300");
    cell_box.enter_before_exec(&mut command);
    let mut child = command.spawn().unwrap();
    let dirs = cell_box.dirs().to_vec();
    drop(cell_box);
    assert_eq!(wait_within(&mut child, Duration::from_secs(5)).signal(), Some(libc::SIGKILL));
    assert_gone(&dirs);
}

/// Removes, when the test ends however it ends, the boxes of dead owners it made on purpose.
struct StaleSweep<'a>(&'a Cgroups);

impl Drop for StaleSweep<'_> {
    fn drop(&mut self) {
        let _ = remove_stale(self.0);
    }
}

#[test]
fn stale_boxes_of_a_dead_jload_are_removed_with_their_processes_and_live_ones_are_kept() {
    let _machine = machine::alone();
    let cgroups = cgroups();
    let _sweep = StaleSweep(&cgroups);
    let mut exited = Command::new("true").spawn().unwrap();
    wait_within(&mut exited, Duration::from_secs(5));
    let dead_owner = exited.id();
    let stale = CellBox::create_named(&cgroups, BoxName::owned_by(dead_owner, 1), &Limits::default()).unwrap();
    let mut command = Command::new("sleep");
    command.arg("300");
    stale.enter_before_exec(&mut command);
    let mut left_running = command.spawn().unwrap();
    let stale_dirs = stale.dirs().to_vec();
    // As a SIGKILLed jload leaves it: never removed.
    std::mem::forget(stale);
    let live = CellBox::create(&cgroups, &Limits::default()).unwrap();

    let removed = remove_stale(&cgroups).unwrap();

    assert!(removed.contains(&format!("{dead_owner}-1")), "{removed:?}");
    assert!(!removed.contains(&live.name().as_str().to_string()), "{removed:?}");
    assert_eq!(wait_within(&mut left_running, Duration::from_secs(5)).signal(), Some(libc::SIGKILL));
    assert_gone(&stale_dirs);
    for dir in live.dirs() {
        assert!(dir.is_dir(), "the live box {} was removed", dir.display());
    }
    let live_dirs = live.dirs().to_vec();
    live.remove().unwrap();
    assert_gone(&live_dirs);
}

/// The real cgroup2 hierarchy of this machine (mounted at /sys/fs/cgroup/unified, or any cgroup2 mount): its
/// memory and cpu controllers are bound to v1 here, so `cgroup.controllers` lists neither; mounting another
/// cgroup2 (`mount -t cgroup2 none DIR`) works but shows the same single hierarchy with the same controllers.
fn cgroup2_mount() -> PathBuf {
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").unwrap();
    let point = mountinfo
        .lines()
        .find_map(|line| {
            let (left, right) = line.split_once(" - ")?;
            right.starts_with("cgroup2 ").then(|| left.split(' ').nth(4).unwrap().to_string())
        })
        .expect("a cgroup2 hierarchy is mounted (hybrid: /sys/fs/cgroup/unified)");
    PathBuf::from(point)
}

#[test]
fn on_the_real_cgroup2_hierarchy_a_box_is_entered_before_exec_killed_and_removed_and_a_limit_without_the_controller_is_refused()
 {
    let cgroups = Cgroups::v2(cgroup2_mount());
    assert_eq!(cgroups.version(), Version::V2);
    let refused = CellBox::create(&cgroups, &Limits { memory_bytes: Some(64 * MIB), cpus_quota: None }).unwrap_err();
    assert!(
        matches!(&refused, CgroupError::Unsupported(text) if text.starts_with("no writable cgroup memory controller: cgroup v2 at ")),
        "{refused}"
    );
    let cell_box = CellBox::create(&cgroups, &Limits::default()).unwrap();
    assert_eq!(cell_box.dirs().len(), 1);
    let mut command = Command::new("sh");
    command.args(["-c", "grep '^0::' /proc/self/cgroup; exec sleep 300"]);
    cell_box.enter_before_exec(&mut command);
    let mut child = command.stdout(Stdio::piped()).spawn().unwrap();
    let mut line = String::new();
    let mut stdout = child.stdout.take().unwrap();
    let mut byte = [0u8; 1];
    while stdout.read(&mut byte).unwrap() == 1 && byte[0] != b'\n' {
        line.push(byte[0] as char);
    }
    assert_eq!(line, format!("0::/jload/{}", cell_box.name().as_str()));
    // `grep` may still be exiting; then only the shell, now `sleep`, is left.
    let deadline = Instant::now() + Duration::from_secs(5);
    while cell_box.pids().unwrap() != [child.id()] && Instant::now() < deadline {
        thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(cell_box.pids().unwrap(), vec![child.id()]);
    assert_eq!(cell_box.sample().unwrap().memory, None, "no memory controller in this hierarchy");
    let dirs = cell_box.dirs().to_vec();
    cell_box.remove().unwrap();
    assert_eq!(wait_within(&mut child, Duration::from_secs(5)).signal(), Some(libc::SIGKILL));
    assert_gone(&dirs);
}

/// A box's peak is at its memory limit: it reaches 95 % of it, and passes it by no more than the kernel charges a
/// process it is already killing (such a charge is forced past the limit, one huge page at most), as
/// `memory.max_usage_in_bytes` then shows.
fn assert_at_the_limit(peak: u64, limit: u64) {
    const FORCED_CHARGE: u64 = 2 * MIB;
    assert!(peak <= limit + FORCED_CHARGE && peak >= limit * 95 / 100, "peak {peak} is not at the limit {limit}");
}
