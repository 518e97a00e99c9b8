//! What a phase's flight recording says (docs/profiling.md), over a window of it: the hottest methods (execution
//! samples: the share of samples with the method on top — self — and anywhere in the stack — total), allocation by
//! class and by site (allocation samples' weights), contention on monitors and parking by the class waited on, with
//! the longest wait, the frame that waited most and the thread that last held the monitor, socket and file I/O by
//! peer or file, VM operations, the phases of the longest GC pauses, and how many compilations, deoptimizations and
//! class loads the window held. Each list is ranked and cut to [`TOP`].

use std::collections::HashMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::events::{IoDirection, JfrEvent, StackFrame, StackTrace};
use super::read_events;

/// How many entries each ranked list keeps.
pub const TOP: usize = 10;
/// How many of the longest GC pauses are broken into their phases.
const LONGEST_PAUSES: usize = 3;

/// A window's profile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PhaseProfile {
    /// The window, ns since the Unix epoch on the JVM's clock.
    pub start_ns: i64,
    pub end_ns: i64,
    pub execution_samples: u64,
    pub hot_methods: Vec<HotMethod>,
    /// The allocation samples' weights summed: the bytes the window allocated, as JFR estimates them.
    pub allocated_bytes: u64,
    pub allocation_by_class: Vec<Share>,
    pub allocation_by_site: Vec<Share>,
    pub monitors: Vec<Contention>,
    /// Parks of a pool's worker waiting for its next task ([`waits_for_work`]): idle, not contended, so left out of
    /// `parks` and counted here.
    pub idle_parks: u64,
    pub parks: Vec<Contention>,
    pub io: Vec<Contention>,
    pub vm_operations: Vec<Contention>,
    pub longest_pauses: Vec<PausePhases>,
    pub compilations: u64,
    pub deoptimizations: u64,
    pub class_loads: u64,
}

/// A method (`java.util.HashMap.get`) and the share of the window's execution samples it was on top of the stack in
/// (`self_share`) and anywhere in it (`total_share`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HotMethod {
    pub method: String,
    pub self_share: f64,
    pub total_share: f64,
}

/// A name with the bytes allocated under it and their share of the window's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Share {
    pub name: String,
    pub bytes: u64,
    pub share: f64,
}

/// Waits of one kind on one thing (a monitor's class, a blocker's class, a socket's peer, a file, a VM operation).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Contention {
    pub on: String,
    pub count: u64,
    pub total_ms: f64,
    pub longest_ms: f64,
    /// The frame that waited longest in all (`Class.method:line`): the first below the waiting machinery
    /// (`Unsafe.park`, `java.util.concurrent`'s locks and queues).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waiting_frame: Option<String>,
    /// A monitor's: the thread that held it before the longest wait.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_owner: Option<String>,
    /// I/O's: the bytes read or written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
}

/// One of the window's longest GC pauses and the phases it spent its time in, longest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PausePhases {
    pub gc_id: i64,
    pub name: String,
    pub pause_ms: f64,
    pub phases: Vec<(String, f64)>,
}

/// The profile of the recording at `path` over `[start_ns, end_ns)` (an event counts when it starts inside).
pub fn profile(path: &Path, start_ns: i64, end_ns: i64) -> anyhow::Result<PhaseProfile> {
    let mut tally = Tally::default();
    read_events(path, |event| {
        let start = event.context().start_ns;
        if (start_ns..end_ns).contains(&start) {
            tally.add(event);
        }
    })?;
    Ok(tally.into_profile(start_ns, end_ns))
}

#[derive(Default)]
struct Waits {
    count: u64,
    total_ns: i64,
    longest_ns: i64,
    by_frame: HashMap<String, i64>,
    previous_owner: Option<String>,
    bytes: Option<u64>,
}

impl Waits {
    fn add(&mut self, duration_ns: i64, stack: Option<&StackTrace>) {
        self.count += 1;
        self.total_ns += duration_ns;
        self.longest_ns = self.longest_ns.max(duration_ns);
        if let Some(frame) = stack.and_then(waiting_frame) {
            *self.by_frame.entry(frame_name(frame, true)).or_default() += duration_ns;
        }
    }
}

#[derive(Default)]
struct Tally {
    samples: u64,
    self_samples: HashMap<String, u64>,
    total_samples: HashMap<String, u64>,
    allocated: u64,
    by_class: HashMap<String, u64>,
    by_site: HashMap<String, u64>,
    monitors: HashMap<String, Waits>,
    parks: HashMap<String, Waits>,
    io: HashMap<String, Waits>,
    vm_operations: HashMap<String, Waits>,
    pauses: HashMap<i64, (String, i64)>,
    pause_phases: HashMap<i64, Vec<(String, i64)>>,
    compilations: u64,
    deoptimizations: u64,
    class_loads: u64,
    idle_parks: u64,
}

const UNKNOWN: &str = "(unknown)";

impl Tally {
    fn add(&mut self, event: JfrEvent) {
        let duration = event.context().duration_ns;
        let stack = event.context().stack_trace.clone();
        match event {
            JfrEvent::ExecutionSample(_) => {
                self.samples += 1;
                let Some(stack) = stack else { return };
                if let Some(top) = stack.frames.first() {
                    *self.self_samples.entry(frame_name(top, false)).or_default() += 1;
                }
                let mut seen: Vec<String> = stack.frames.iter().map(|frame| frame_name(frame, false)).collect();
                seen.sort_unstable();
                seen.dedup();
                for method in seen {
                    *self.total_samples.entry(method).or_default() += 1;
                }
            }
            JfrEvent::ObjectAllocationSample(sample) => {
                let weight = sample.weight.max(0) as u64;
                self.allocated += weight;
                *self.by_class.entry(class_name(sample.object_class.as_deref())).or_default() += weight;
                let site = stack.as_deref().and_then(|stack| stack.frames.first()).map(|frame| frame_name(frame, true));
                *self.by_site.entry(site.unwrap_or_else(|| UNKNOWN.to_string())).or_default() += weight;
            }
            JfrEvent::MonitorEnter(enter) => {
                let waits = self.monitors.entry(class_name(enter.monitor_class.as_deref())).or_default();
                if duration >= waits.longest_ns {
                    waits.previous_owner = enter.previous_owner.as_deref().map(thread_name);
                }
                waits.add(duration, stack.as_deref());
            }
            JfrEvent::ThreadPark(_) if stack.as_deref().is_some_and(waits_for_work) => self.idle_parks += 1,
            JfrEvent::ThreadPark(park) => {
                let on =
                    park.parked_class.as_deref().map_or_else(|| "(no blocker)".to_string(), |c| class_name(Some(c)));
                self.parks.entry(on).or_default().add(duration, stack.as_deref());
            }
            JfrEvent::SocketIo(io) => {
                let peer = io.host.filter(|host| !host.is_empty()).or(io.address).unwrap_or_else(|| UNKNOWN.into());
                let on = format!("socket {} {peer}:{}", direction(io.direction), io.port);
                let waits = self.io.entry(on).or_default();
                waits.add(duration, stack.as_deref());
                *waits.bytes.get_or_insert(0) += io.bytes.max(0) as u64;
            }
            JfrEvent::FileIo(io) => {
                let on = format!("file {} {}", direction(io.direction), io.path.unwrap_or_else(|| UNKNOWN.into()));
                let waits = self.io.entry(on).or_default();
                waits.add(duration, stack.as_deref());
                *waits.bytes.get_or_insert(0) += io.bytes.max(0) as u64;
            }
            JfrEvent::VmOperation(operation) => {
                let name = operation.operation.unwrap_or_else(|| UNKNOWN.into());
                let on = if operation.safepoint { format!("{name} (at a safepoint)") } else { name };
                self.vm_operations.entry(on).or_default().add(duration, None);
            }
            JfrEvent::GcPhasePause(pause) if pause.level == 0 => {
                self.pauses.insert(pause.gc_id, (pause.name.unwrap_or_else(|| UNKNOWN.into()), duration));
            }
            JfrEvent::GcPhasePause(pause) => {
                let name = pause.name.unwrap_or_else(|| UNKNOWN.into());
                self.pause_phases.entry(pause.gc_id).or_default().push((name, duration));
            }
            JfrEvent::Compilation(_) => self.compilations += 1,
            JfrEvent::Deoptimization(_) => self.deoptimizations += 1,
            JfrEvent::ClassLoad(_) => self.class_loads += 1,
            JfrEvent::SafepointBegin(_) | JfrEvent::GarbageCollection(_) => {}
        }
    }

    fn into_profile(mut self, start_ns: i64, end_ns: i64) -> PhaseProfile {
        let samples = self.samples.max(1) as f64;
        let mut hot: Vec<HotMethod> = self
            .self_samples
            .iter()
            .map(|(method, &count)| HotMethod {
                method: method.clone(),
                self_share: count as f64 / samples,
                total_share: self.total_samples.get(method).copied().unwrap_or(count) as f64 / samples,
            })
            .collect();
        hot.sort_by(|a, b| b.self_share.total_cmp(&a.self_share).then_with(|| a.method.cmp(&b.method)));
        hot.truncate(TOP);
        let allocated = self.allocated;
        let mut pauses: Vec<(i64, String, i64)> =
            self.pauses.into_iter().map(|(gc_id, (name, ns))| (gc_id, name, ns)).collect();
        pauses.sort_by(|a, b| b.2.cmp(&a.2).then(a.0.cmp(&b.0)));
        let longest_pauses = pauses
            .into_iter()
            .take(LONGEST_PAUSES)
            .map(|(gc_id, name, ns)| {
                let mut phases: Vec<(String, f64)> = self
                    .pause_phases
                    .remove(&gc_id)
                    .unwrap_or_default()
                    .into_iter()
                    .map(|(phase, ns)| (phase, ms(ns)))
                    .collect();
                phases.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
                phases.truncate(TOP);
                PausePhases { gc_id, name, pause_ms: ms(ns), phases }
            })
            .collect();
        PhaseProfile {
            start_ns,
            end_ns,
            execution_samples: self.samples,
            hot_methods: hot,
            allocated_bytes: allocated,
            allocation_by_class: shares(self.by_class, allocated),
            allocation_by_site: shares(self.by_site, allocated),
            monitors: contentions(self.monitors),
            parks: contentions(self.parks),
            io: contentions(self.io),
            vm_operations: contentions(self.vm_operations),
            longest_pauses,
            compilations: self.compilations,
            deoptimizations: self.deoptimizations,
            class_loads: self.class_loads,
            idle_parks: self.idle_parks,
        }
    }
}

fn ms(ns: i64) -> f64 {
    ns as f64 / 1e6
}

fn shares(bytes: HashMap<String, u64>, total: u64) -> Vec<Share> {
    let mut shares: Vec<Share> = bytes
        .into_iter()
        .map(|(name, bytes)| Share { name, bytes, share: bytes as f64 / total.max(1) as f64 })
        .collect();
    shares.sort_by(|a, b| b.bytes.cmp(&a.bytes).then_with(|| a.name.cmp(&b.name)));
    shares.truncate(TOP);
    shares
}

fn contentions(waits: HashMap<String, Waits>) -> Vec<Contention> {
    let mut list: Vec<Contention> = waits
        .into_iter()
        .map(|(on, waits)| Contention {
            on,
            count: waits.count,
            total_ms: ms(waits.total_ns),
            longest_ms: ms(waits.longest_ns),
            waiting_frame: waits
                .by_frame
                .into_iter()
                .max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.cmp(&a.0)))
                .map(|(frame, _)| frame),
            previous_owner: waits.previous_owner,
            bytes: waits.bytes,
        })
        .collect();
    list.sort_by(|a, b| b.total_ms.total_cmp(&a.total_ms).then_with(|| a.on.cmp(&b.on)));
    list.truncate(TOP);
    list
}

/// Whether a park's stack is a pool's worker waiting for its next task: a frame of the pool's own wait for work,
/// whatever its class (`getTask` of the JDK's and Tomcat's `ThreadPoolExecutor`, `ForkJoinPool.awaitWork`, Jetty's
/// `QueuedThreadPool$Runner.idleJobPoll`), or a scheduled pool's queue. An idle thread waits as long as there is no
/// work.
fn waits_for_work(stack: &StackTrace) -> bool {
    const IDLE_METHODS: &[&str] = &["getTask", "awaitWork", "idleJobPoll"];
    const IDLE_QUEUE: (&str, &str) = ("java/util/concurrent/ScheduledThreadPoolExecutor$DelayedWorkQueue", "take");
    stack.frames.iter().any(|frame| {
        let method = frame.method_name.as_deref().unwrap_or_default();
        IDLE_METHODS.contains(&method) || (frame.class_name.as_deref(), method) == (Some(IDLE_QUEUE.0), IDLE_QUEUE.1)
    })
}

/// The frame that waited: the first below the waiting machinery (`Unsafe.park`, `LockSupport`, the locks and
/// queues of `java.util.concurrent` that park for their caller), else the top one.
fn waiting_frame(stack: &StackTrace) -> Option<&StackFrame> {
    const MACHINERY: &[&str] = &["jdk/internal/misc/", "sun/misc/Unsafe", "java/util/concurrent/"];
    let is_machinery = |frame: &&StackFrame| {
        frame.class_name.as_deref().is_some_and(|class| MACHINERY.iter().any(|m| class.starts_with(m)))
    };
    stack.frames.iter().find(|frame| !is_machinery(frame)).or(stack.frames.first())
}

/// `java.util.HashMap.get`, with `:line` where asked and known.
fn frame_name(frame: &StackFrame, with_line: bool) -> String {
    let class = class_name(frame.class_name.as_deref());
    let method = frame.method_name.as_deref().unwrap_or(UNKNOWN);
    if with_line && frame.line > 0 { format!("{class}.{method}:{}", frame.line) } else { format!("{class}.{method}") }
}

/// A class as Java writes it (`java.util.HashMap`, `byte[]`) from the JVM's (`java/util/HashMap`, `[B`).
fn class_name(recorded: Option<&str>) -> String {
    let Some(name) = recorded else { return UNKNOWN.to_string() };
    let dims = name.chars().take_while(|&c| c == '[').count();
    if dims == 0 {
        return name.replace('/', ".");
    }
    let element = &name[dims..];
    let base = match element {
        "B" => "byte".to_string(),
        "C" => "char".to_string(),
        "I" => "int".to_string(),
        "J" => "long".to_string(),
        "S" => "short".to_string(),
        "Z" => "boolean".to_string(),
        "F" => "float".to_string(),
        "D" => "double".to_string(),
        other => other.trim_start_matches('L').trim_end_matches(';').replace('/', "."),
    };
    format!("{base}{}", "[]".repeat(dims))
}

fn thread_name(thread: &super::events::JavaThread) -> String {
    thread.java_name.clone().or_else(|| thread.os_name.clone()).unwrap_or_else(|| UNKNOWN.to_string())
}

fn direction(direction: IoDirection) -> &'static str {
    match direction {
        IoDirection::Read => "read",
        IoDirection::Write => "write",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stack(frames: &[(&str, &str)]) -> StackTrace {
        let frame = |(class, method): &(&str, &str)| StackFrame {
            class_name: Some(class.to_string()),
            method_name: Some(method.to_string()),
            descriptor: None,
            line: 0,
            bytecode_index: 0,
            frame_type: None,
        };
        StackTrace { truncated: false, frames: frames.iter().map(frame).collect() }
    }

    #[test]
    fn a_pools_worker_waiting_for_work_is_idle_whatever_its_pool_and_a_lock_waiter_is_not() {
        let parked = ("jdk/internal/misc/Unsafe", "park");
        let tomcat = stack(&[
            parked,
            ("org/apache/tomcat/util/threads/TaskQueue", "poll"),
            ("org/apache/tomcat/util/threads/ThreadPoolExecutor", "getTask"),
        ]);
        let jdk = stack(&[
            parked,
            ("java/util/concurrent/LinkedBlockingQueue", "take"),
            ("java/util/concurrent/ThreadPoolExecutor", "getTask"),
        ]);
        let fork_join = stack(&[parked, ("java/util/concurrent/ForkJoinPool", "awaitWork")]);
        let jetty = stack(&[parked, ("org/eclipse/jetty/util/thread/QueuedThreadPool$Runner", "idleJobPoll")]);
        let scheduled = stack(&[parked, ("java/util/concurrent/ScheduledThreadPoolExecutor$DelayedWorkQueue", "take")]);
        let lock = stack(&[parked, ("java/util/concurrent/locks/ReentrantLock", "lock"), ("StallTarget", "serve")]);
        let idle: Vec<bool> =
            [&tomcat, &jdk, &fork_join, &jetty, &scheduled, &lock].iter().map(|s| waits_for_work(s)).collect();
        assert_eq!(idle, [true, true, true, true, true, false]);
        assert_eq!(waiting_frame(&lock).and_then(|frame| frame.class_name.as_deref()), Some("StallTarget"));
    }

    #[test]
    fn class_names_read_as_java_writes_them() {
        assert_eq!(class_name(Some("java/util/HashMap")), "java.util.HashMap");
        assert_eq!(class_name(Some("[B")), "byte[]");
        assert_eq!(class_name(Some("[[Ljava/lang/String;")), "java.lang.String[][]");
        assert_eq!(class_name(None), "(unknown)");
    }
}
