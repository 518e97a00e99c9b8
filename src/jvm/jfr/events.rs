//! The typed events jload uses, as plain values: times in nanoseconds since the Unix epoch, durations in nanoseconds,
//! threads, classes and stack traces resolved from the chunk's constant pools (shared between the events of a chunk
//! that refer to the same one). Class names are as the JVM records them (`java/lang/String`, `[B`); a field an event
//! lacks in a JDK's metadata is `None`, 0 or empty.

use std::sync::Arc;

/// A Java (or JVM-internal) thread.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JavaThread {
    pub os_name: Option<String>,
    pub os_thread_id: i64,
    pub java_name: Option<String>,
    pub java_thread_id: i64,
}

/// One frame of a stack trace, the top frame first in [`StackTrace::frames`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StackFrame {
    /// The method's class, as recorded (`java/util/HashMap`).
    pub class_name: Option<String>,
    pub method_name: Option<String>,
    /// The method's descriptor (`(Ljava/lang/Object;)I`).
    pub descriptor: Option<String>,
    pub line: i32,
    pub bytecode_index: i32,
    /// `Interpreted`, `JIT compiled`, `Inlined`, `Native`, as the JVM names it.
    pub frame_type: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StackTrace {
    /// The JVM stopped at the stack depth (`stackdepth`, 64 by default) and left the bottom frames out.
    pub truncated: bool,
    pub frames: Vec<StackFrame>,
}

/// When an event started and what it happened on; shared by every typed event.
#[derive(Debug, Clone, PartialEq)]
pub struct EventContext {
    pub start_ns: i64,
    /// 0 for an instant event.
    pub duration_ns: i64,
    pub thread: Option<Arc<JavaThread>>,
    pub stack_trace: Option<Arc<StackTrace>>,
}

/// `jdk.ExecutionSample`: a Java thread caught running Java code.
#[derive(Debug, Clone, PartialEq)]
pub struct ExecutionSample {
    pub context: EventContext,
    pub sampled_thread: Option<Arc<JavaThread>>,
    /// `STATE_RUNNABLE`, …
    pub state: Option<String>,
}

/// `jdk.ObjectAllocationSample`: an allocation, weighted by the bytes allocated since the thread's last sample.
#[derive(Debug, Clone, PartialEq)]
pub struct ObjectAllocationSample {
    pub context: EventContext,
    pub object_class: Option<String>,
    pub weight: i64,
}

/// `jdk.JavaMonitorEnter`: a thread waited for a contended monitor.
#[derive(Debug, Clone, PartialEq)]
pub struct MonitorEnter {
    pub context: EventContext,
    pub monitor_class: Option<String>,
    pub previous_owner: Option<Arc<JavaThread>>,
}

/// `jdk.ThreadPark`: a thread parked (`LockSupport.park…`).
#[derive(Debug, Clone, PartialEq)]
pub struct ThreadPark {
    pub context: EventContext,
    /// The class of the blocker object it parked on.
    pub parked_class: Option<String>,
    /// The park's timeout in nanoseconds; the JVM writes `Long.MIN_VALUE` for none.
    pub timeout_ns: i64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IoDirection {
    Read,
    Write,
}

/// `jdk.SocketRead` / `jdk.SocketWrite`.
#[derive(Debug, Clone, PartialEq)]
pub struct SocketIo {
    pub context: EventContext,
    pub direction: IoDirection,
    pub host: Option<String>,
    pub address: Option<String>,
    pub port: i64,
    /// Bytes read or written.
    pub bytes: i64,
}

/// `jdk.FileRead` / `jdk.FileWrite`.
#[derive(Debug, Clone, PartialEq)]
pub struct FileIo {
    pub context: EventContext,
    pub direction: IoDirection,
    pub path: Option<String>,
    pub bytes: i64,
}

/// `jdk.ExecuteVMOperation`: the VM thread ran an operation, at a safepoint or not.
#[derive(Debug, Clone, PartialEq)]
pub struct VmOperation {
    pub context: EventContext,
    pub operation: Option<String>,
    pub safepoint: bool,
    pub safepoint_id: i64,
}

/// `jdk.SafepointBegin`: bringing the Java threads to a safepoint.
#[derive(Debug, Clone, PartialEq)]
pub struct SafepointBegin {
    pub context: EventContext,
    pub safepoint_id: i64,
    pub total_thread_count: i64,
    pub jni_critical_thread_count: i64,
}

/// `jdk.GarbageCollection`: one collection, start to end.
#[derive(Debug, Clone, PartialEq)]
pub struct GarbageCollection {
    pub context: EventContext,
    pub gc_id: i64,
    /// The collector (`G1New`, `ZGC Minor`, …).
    pub name: Option<String>,
    pub cause: Option<String>,
    pub sum_of_pauses_ns: i64,
    pub longest_pause_ns: i64,
}

/// `jdk.GCPhasePause` (level 0, a whole pause) and `jdk.GCPhasePauseLevel1` (a phase of one).
#[derive(Debug, Clone, PartialEq)]
pub struct GcPhasePause {
    pub context: EventContext,
    pub level: u8,
    pub gc_id: i64,
    pub name: Option<String>,
}

/// A method as JFR pools it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JavaMethod {
    pub class_name: Option<String>,
    pub name: Option<String>,
    pub descriptor: Option<String>,
}

/// `jdk.Compilation`: the JIT compiled a method.
#[derive(Debug, Clone, PartialEq)]
pub struct Compilation {
    pub context: EventContext,
    pub compile_id: i64,
    pub compiler: Option<String>,
    pub method: Option<JavaMethod>,
    pub compile_level: i64,
    pub succeeded: bool,
    pub is_osr: bool,
    pub code_size: i64,
    pub inlined_bytes: i64,
}

/// `jdk.Deoptimization`: compiled code fell back to the interpreter.
#[derive(Debug, Clone, PartialEq)]
pub struct Deoptimization {
    pub context: EventContext,
    pub compile_id: i64,
    pub compiler: Option<String>,
    pub method: Option<JavaMethod>,
    pub line: i64,
    pub bci: i64,
    pub instruction: Option<String>,
    pub reason: Option<String>,
    pub action: Option<String>,
}

/// `jdk.ClassLoad`: a class was loaded.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassLoad {
    pub context: EventContext,
    pub loaded_class: Option<String>,
    /// The defining class loader's name (`app`, `bootstrap`, …).
    pub defining_class_loader: Option<String>,
    pub initiating_class_loader: Option<String>,
}

/// One typed event.
#[derive(Debug, Clone, PartialEq)]
pub enum JfrEvent {
    ExecutionSample(ExecutionSample),
    ObjectAllocationSample(ObjectAllocationSample),
    MonitorEnter(MonitorEnter),
    ThreadPark(ThreadPark),
    SocketIo(SocketIo),
    FileIo(FileIo),
    VmOperation(VmOperation),
    SafepointBegin(SafepointBegin),
    GarbageCollection(GarbageCollection),
    GcPhasePause(GcPhasePause),
    Compilation(Compilation),
    Deoptimization(Deoptimization),
    ClassLoad(ClassLoad),
}

impl JfrEvent {
    pub fn context(&self) -> &EventContext {
        match self {
            JfrEvent::ExecutionSample(event) => &event.context,
            JfrEvent::ObjectAllocationSample(event) => &event.context,
            JfrEvent::MonitorEnter(event) => &event.context,
            JfrEvent::ThreadPark(event) => &event.context,
            JfrEvent::SocketIo(event) => &event.context,
            JfrEvent::FileIo(event) => &event.context,
            JfrEvent::VmOperation(event) => &event.context,
            JfrEvent::SafepointBegin(event) => &event.context,
            JfrEvent::GarbageCollection(event) => &event.context,
            JfrEvent::GcPhasePause(event) => &event.context,
            JfrEvent::Compilation(event) => &event.context,
            JfrEvent::Deoptimization(event) => &event.context,
            JfrEvent::ClassLoad(event) => &event.context,
        }
    }
}
