//! A JVM's CPU by thread group, from `/proc/<pid>/task` (what seed 000's authors watched with `top -H`), without JFR
//! or any JDK tool: each thread's CPU time (`utime + stime`) under its name (`comm`, the first 15 bytes of the Java
//! thread's name, which HotSpot sets for its own threads and for every Java thread), put in one group by
//! [`group_of`]: the garbage collector's threads, the JIT compilers, the VM's own threads, and the application's
//! (every other one). Two snapshots make the groups' CPU over a window ([`ThreadSnapshot::cpu_since`]); a thread
//! that ended between them took its CPU with it from `/proc/<pid>/task`, so what the process's own total counts
//! beyond the threads alive at the end is given apart (`ended`).

use std::collections::HashMap;

use ::procfs::process::Process;
use serde::{Deserialize, Serialize};

use super::procfs::ticks_per_second;
use crate::jvm::clock::unix_us_now;

/// The groups a JVM's threads are counted in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ThreadGroup {
    /// The collector's workers, its concurrent and refinement threads (`GC Thread#0`, `G1 Conc#0`, `G1 Refine#0`,
    /// `ZWorker#0`, `Shenandoah GC T` …). Serial's and Parallel's pauses run in part on the `VM Thread`, which is
    /// [`ThreadGroup::Vm`]'s.
    Gc,
    /// The JIT compilers (`C1 CompilerThre`, `C2 CompilerThre`, `JVMCI`…).
    Jit,
    /// The VM's own threads: the VM thread (safepoint operations), periodic tasks, the service, signal, reference,
    /// finalizer, cleaner and attach threads, JFR's.
    Vm,
    /// Every other thread: the application's pools and its main thread.
    Application,
}

/// The group of a thread named `name` (its `comm`).
pub fn group_of(name: &str) -> ThreadGroup {
    const GC: &[&str] = &[
        "GC Thread",
        "G1 ",
        "ParGC",
        "Conc GC",
        "ZWorker",
        "ZDirector",
        "ZDriver",
        "ZStat",
        "ZUncommitter",
        "ZUnmapper",
        "ZRelocation",
        "XWorker",
        "Shenandoah",
        "ShenWorker",
        "CMS",
    ];
    const JIT: &[&str] = &["C1 CompilerThre", "C2 CompilerThre", "JVMCI", "Sweeper thread"];
    const VM: &[&str] = &[
        "VM Thread",
        "VM Periodic Tas",
        "Service Thread",
        "Monitor Deflati",
        "Signal Dispatch",
        "Reference Handl",
        "Finalizer",
        "Common-Cleaner",
        "Notification Th",
        "Attach Listener",
        "JFR ",
        "Surrogate Locke",
    ];
    let starts = |prefixes: &[&str]| prefixes.iter().any(|prefix| name.starts_with(prefix));
    if starts(GC) {
        ThreadGroup::Gc
    } else if starts(JIT) {
        ThreadGroup::Jit
    } else if starts(VM) {
        ThreadGroup::Vm
    } else {
        ThreadGroup::Application
    }
}

/// One read of a JVM's threads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThreadSnapshot {
    /// When it was read, wall clock where the JVM runs, µs since the Unix epoch.
    pub unix_us: i64,
    /// The process's CPU time in clock ticks, every thread it ever had included.
    pub process_ticks: u64,
    /// Each live thread: its id, group and CPU time in clock ticks.
    pub threads: Vec<(u32, ThreadGroup, u64)>,
    pub ticks_per_second: u64,
}

impl ThreadSnapshot {
    /// Read JVM `pid`'s threads now; None when the process cannot be read.
    pub fn read(pid: u32) -> Option<ThreadSnapshot> {
        let process = Process::new(pid as i32).ok()?;
        let stat = process.stat().ok()?;
        let threads = process
            .tasks()
            .ok()?
            .flatten()
            .filter_map(|task| {
                let stat = task.stat().ok()?;
                Some((task.tid as u32, group_of(&stat.comm), stat.utime + stat.stime))
            })
            .collect();
        Some(ThreadSnapshot {
            unix_us: unix_us_now(),
            process_ticks: stat.utime + stat.stime,
            threads,
            ticks_per_second: ticks_per_second(),
        })
    }

    /// The CPU each group used between `earlier` and this snapshot, as a share of one core (`cores`: CPU seconds
    /// over the wall time between the two): a thread born meanwhile counts from 0; what threads that ended meanwhile
    /// used is `ended`.
    pub fn cpu_since(&self, earlier: &ThreadSnapshot) -> GroupCores {
        let seconds = (self.unix_us - earlier.unix_us) as f64 / 1e6;
        let before: HashMap<u32, u64> = earlier.threads.iter().map(|&(tid, _, ticks)| (tid, ticks)).collect();
        let mut ticks: HashMap<ThreadGroup, u64> = HashMap::new();
        for &(tid, group, now) in &self.threads {
            *ticks.entry(group).or_default() += now.saturating_sub(before.get(&tid).copied().unwrap_or(0));
        }
        let alive: u64 = ticks.values().sum();
        let process = self.process_ticks.saturating_sub(earlier.process_ticks);
        let cores = |ticks: u64| {
            if seconds > 0.0 { ticks as f64 / self.ticks_per_second as f64 / seconds } else { 0.0 }
        };
        let of = |group| cores(ticks.get(&group).copied().unwrap_or(0));
        GroupCores {
            seconds,
            gc: of(ThreadGroup::Gc),
            jit: of(ThreadGroup::Jit),
            vm: of(ThreadGroup::Vm),
            application: of(ThreadGroup::Application),
            ended: cores(process.saturating_sub(alive)),
        }
    }
}

/// What each group of a JVM's threads used over a window, in cores (1.0: one core busy all the window).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct GroupCores {
    /// The window's wall time.
    pub seconds: f64,
    pub gc: f64,
    pub jit: f64,
    pub vm: f64,
    pub application: f64,
    /// Threads that ended within the window (their group unknown).
    pub ended: f64,
}

impl GroupCores {
    /// The whole process.
    pub fn total(&self) -> f64 {
        self.gc + self.jit + self.vm + self.application + self.ended
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hotspots_own_threads_are_put_in_their_groups_and_the_rest_is_the_applications() {
        let groups: Vec<ThreadGroup> = [
            "GC Thread#3",
            "G1 Conc#0",
            "G1 Refine#0",
            "G1 Main Marker",
            "G1 Service",
            "ZWorker#1",
            "C2 CompilerThre",
            "C1 CompilerThre",
            "VM Thread",
            "VM Periodic Tas",
            "Reference Handl",
            "JFR Periodic Ta",
            "qtp1651-23",
            "http-nio-8080-e",
            "java",
            "kv-worker-0",
        ]
        .iter()
        .map(|name| group_of(name))
        .collect();
        use ThreadGroup::*;
        assert_eq!(
            groups,
            [Gc, Gc, Gc, Gc, Gc, Gc, Jit, Jit, Vm, Vm, Vm, Vm, Application, Application, Application, Application]
        );
    }

    #[test]
    fn a_window_counts_each_threads_ticks_since_the_first_read_and_an_ended_threads_apart() {
        let earlier = ThreadSnapshot {
            unix_us: 0,
            process_ticks: 1_000,
            threads: vec![(1, ThreadGroup::Gc, 100), (2, ThreadGroup::Jit, 300), (3, ThreadGroup::Application, 500)],
            ticks_per_second: 100,
        };
        // 2 s later: the GC thread used 50 ticks, the compiler thread ended (having used 40 more), the application
        // thread 200, and a new application thread 10.
        let later = ThreadSnapshot {
            unix_us: 2_000_000,
            process_ticks: 1_300,
            threads: vec![
                (1, ThreadGroup::Gc, 150),
                (3, ThreadGroup::Application, 700),
                (4, ThreadGroup::Application, 10),
            ],
            ticks_per_second: 100,
        };
        let cores = later.cpu_since(&earlier);
        assert_eq!(cores, GroupCores { seconds: 2.0, gc: 0.25, jit: 0.0, vm: 0.0, application: 1.05, ended: 0.2 });
        assert!((cores.total() - 1.5).abs() < 1e-12, "the process's 300 ticks over 2 s");
    }

    #[test]
    fn this_process_reads_its_own_threads() {
        let snapshot = ThreadSnapshot::read(std::process::id()).unwrap();
        assert!(!snapshot.threads.is_empty() && snapshot.ticks_per_second > 0);
        assert!(snapshot.threads.iter().any(|&(tid, _, _)| tid == std::process::id()), "the main thread is a task");
    }
}
