//! The typed layer's reading: a recording's events of the types in [`TYPED_EVENTS`] turned into [`JfrEvent`]s, one
//! chunk at a time. Fields are found by name in the chunk's metadata; threads, stack traces, methods and classes are
//! resolved from the chunk's constant pools when an event refers to them, and kept for the chunk's other events
//! (and dropped with the chunk, so memory follows one chunk).

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use super::bytes::Read;
use super::chunk_reader::ReadableChunk;
use super::constant_pool::PoolResolver;
use super::events::*;
use super::file::{Chunk, JfrFile, damaged};
use super::metadata::Metadata;
use super::value::Value;

/// The event types the typed layer reads, by their JFR names.
pub const TYPED_EVENTS: &[&str] = &[
    "jdk.ExecutionSample",
    "jdk.ObjectAllocationSample",
    "jdk.JavaMonitorEnter",
    "jdk.ThreadPark",
    "jdk.SocketRead",
    "jdk.SocketWrite",
    "jdk.FileRead",
    "jdk.FileWrite",
    "jdk.ExecuteVMOperation",
    "jdk.SafepointBegin",
    "jdk.GarbageCollection",
    "jdk.GCPhasePause",
    "jdk.GCPhasePauseLevel1",
    "jdk.Compilation",
    "jdk.Deoptimization",
    "jdk.ClassLoad",
];

/// Calls `on_event` with every typed event of the recording at `path`, in file order.
pub fn read_events(path: &Path, mut on_event: impl FnMut(JfrEvent)) -> anyhow::Result<()> {
    let mut file = JfrFile::open(path)?;
    let path = file.path().to_owned();
    while let Some(chunk) = file.next_chunk()? {
        let number = chunk.number;
        read_chunk_events(&chunk, &mut on_event).map_err(|err| damaged(&path, number, &err))?;
    }
    Ok(())
}

/// The typed events of one chunk.
pub fn read_chunk_events(chunk: &Chunk<'_>, on_event: &mut impl FnMut(JfrEvent)) -> Read<()> {
    let readable = ReadableChunk::new(chunk, true)?;
    let values = readable.values();
    let kinds: HashMap<u64, &str> = readable
        .metadata
        .event_classes()
        .filter_map(|class| TYPED_EVENTS.iter().find(|name| **name == class.name).map(|name| (class.id, *name)))
        .collect();
    let mut decoder = Decoder::new(&readable, readable.resolver(&values));
    for frame in readable.frames() {
        let frame = frame?;
        let Some(kind) = kinds.get(&frame.type_id) else { continue };
        let value = values.read(&mut readable.cursor_at(frame.values_offset), frame.type_id)?;
        let event = Fields::of(&readable.metadata, &value);
        on_event(decoder.typed(kind, &event)?);
    }
    Ok(())
}

/// A struct's fields by name.
struct Fields<'v> {
    metadata: &'v Metadata,
    type_id: u64,
    values: &'v [Value],
}

impl<'v> Fields<'v> {
    fn of(metadata: &'v Metadata, value: &'v Value) -> Fields<'v> {
        match value {
            Value::Struct { type_id, fields } => Fields { metadata, type_id: *type_id, values: fields },
            _ => Fields { metadata, type_id: u64::MAX, values: &[] },
        }
    }

    fn get(&self, name: &str) -> &'v Value {
        self.metadata
            .class(self.type_id)
            .and_then(|class| class.field_index(name))
            .and_then(|index| self.values.get(index))
            .unwrap_or(&Value::Null)
    }

    fn int(&self, name: &str) -> i64 {
        self.get(name).as_int().unwrap_or(0)
    }

    fn bool(&self, name: &str) -> bool {
        self.get(name).as_bool().unwrap_or(false)
    }
}

/// Resolves one chunk's references into typed values, keeping each pooled thread, stack trace, method and class
/// for the chunk's later events.
struct Decoder<'c> {
    chunk: &'c ReadableChunk<'c>,
    resolver: PoolResolver<'c>,
    threads: HashMap<(u64, u64), Option<Arc<JavaThread>>>,
    stack_traces: HashMap<(u64, u64), Option<Arc<StackTrace>>>,
    methods: HashMap<(u64, u64), Option<Arc<JavaMethod>>>,
    texts: HashMap<(u64, u64), Option<String>>,
}

impl<'c> Decoder<'c> {
    fn new(chunk: &'c ReadableChunk<'c>, resolver: PoolResolver<'c>) -> Decoder<'c> {
        Decoder {
            chunk,
            resolver,
            threads: HashMap::new(),
            stack_traces: HashMap::new(),
            methods: HashMap::new(),
            texts: HashMap::new(),
        }
    }

    fn typed(&mut self, kind: &str, event: &Fields<'_>) -> Read<JfrEvent> {
        let context = self.context(event)?;
        Ok(match kind {
            "jdk.ExecutionSample" => JfrEvent::ExecutionSample(ExecutionSample {
                sampled_thread: self.thread(event.get("sampledThread"))?,
                state: self.text(event.get("state"))?,
                context,
            }),
            "jdk.ObjectAllocationSample" => JfrEvent::ObjectAllocationSample(ObjectAllocationSample {
                object_class: self.class_name(event.get("objectClass"))?,
                weight: event.int("weight"),
                context,
            }),
            "jdk.JavaMonitorEnter" => JfrEvent::MonitorEnter(MonitorEnter {
                monitor_class: self.class_name(event.get("monitorClass"))?,
                previous_owner: self.thread(event.get("previousOwner"))?,
                context,
            }),
            "jdk.ThreadPark" => JfrEvent::ThreadPark(ThreadPark {
                parked_class: self.class_name(event.get("parkedClass"))?,
                timeout_ns: event.int("timeout"),
                context,
            }),
            "jdk.SocketRead" | "jdk.SocketWrite" => {
                let (direction, bytes) = match kind {
                    "jdk.SocketRead" => (IoDirection::Read, "bytesRead"),
                    _ => (IoDirection::Write, "bytesWritten"),
                };
                JfrEvent::SocketIo(SocketIo {
                    direction,
                    host: self.text(event.get("host"))?,
                    address: self.text(event.get("address"))?,
                    port: event.int("port"),
                    bytes: event.int(bytes),
                    context,
                })
            }
            "jdk.FileRead" | "jdk.FileWrite" => {
                let (direction, bytes) = match kind {
                    "jdk.FileRead" => (IoDirection::Read, "bytesRead"),
                    _ => (IoDirection::Write, "bytesWritten"),
                };
                JfrEvent::FileIo(FileIo {
                    direction,
                    path: self.text(event.get("path"))?,
                    bytes: event.int(bytes),
                    context,
                })
            }
            "jdk.ExecuteVMOperation" => JfrEvent::VmOperation(VmOperation {
                operation: self.text(event.get("operation"))?,
                safepoint: event.bool("safepoint"),
                safepoint_id: event.int("safepointId"),
                context,
            }),
            "jdk.SafepointBegin" => JfrEvent::SafepointBegin(SafepointBegin {
                safepoint_id: event.int("safepointId"),
                total_thread_count: event.int("totalThreadCount"),
                jni_critical_thread_count: event.int("jniCriticalThreadCount"),
                context,
            }),
            "jdk.GarbageCollection" => JfrEvent::GarbageCollection(GarbageCollection {
                gc_id: event.int("gcId"),
                name: self.text(event.get("name"))?,
                cause: self.text(event.get("cause"))?,
                sum_of_pauses_ns: self.chunk.clock.nanos(event.int("sumOfPauses")),
                longest_pause_ns: self.chunk.clock.nanos(event.int("longestPause")),
                context,
            }),
            "jdk.GCPhasePause" | "jdk.GCPhasePauseLevel1" => JfrEvent::GcPhasePause(GcPhasePause {
                level: u8::from(kind == "jdk.GCPhasePauseLevel1"),
                gc_id: event.int("gcId"),
                name: self.text(event.get("name"))?,
                context,
            }),
            "jdk.Compilation" => JfrEvent::Compilation(Compilation {
                compile_id: event.int("compileId"),
                compiler: self.text(event.get("compiler"))?,
                method: self.method(event.get("method"))?.map(|method| (*method).clone()),
                compile_level: event.int("compileLevel"),
                // The JDK's field name has this spelling.
                succeeded: event.bool("succeded"),
                is_osr: event.bool("isOsr"),
                code_size: event.int("codeSize"),
                inlined_bytes: event.int("inlinedBytes"),
                context,
            }),
            "jdk.Deoptimization" => JfrEvent::Deoptimization(Deoptimization {
                compile_id: event.int("compileId"),
                compiler: self.text(event.get("compiler"))?,
                method: self.method(event.get("method"))?.map(|method| (*method).clone()),
                line: event.int("lineNumber"),
                bci: event.int("bci"),
                instruction: self.text(event.get("instruction"))?,
                reason: self.text(event.get("reason"))?,
                action: self.text(event.get("action"))?,
                context,
            }),
            "jdk.ClassLoad" => JfrEvent::ClassLoad(ClassLoad {
                loaded_class: self.class_name(event.get("loadedClass"))?,
                defining_class_loader: self.class_loader_name(event.get("definingClassLoader"))?,
                initiating_class_loader: self.class_loader_name(event.get("initiatingClassLoader"))?,
                context,
            }),
            other => unreachable!("{other} is in TYPED_EVENTS without a decoding"),
        })
    }

    fn context(&mut self, event: &Fields<'_>) -> Read<EventContext> {
        let clock = self.chunk.clock;
        Ok(EventContext {
            start_ns: clock.epoch_nanos(event.int("startTime")),
            duration_ns: clock.nanos(event.int("duration")),
            thread: self.thread(event.get("eventThread"))?,
            stack_trace: self.stack_trace(event.get("stackTrace"))?,
        })
    }

    /// The fields of a struct value, resolved if it is a reference.
    fn resolved(&self, value: &Value) -> Read<Value> {
        self.resolver.resolve(value.clone())
    }

    /// A string: inline, pooled, or a simple type (a struct of one field, like `jdk.types.Symbol` or
    /// `jdk.types.ThreadState`) around one.
    fn text(&mut self, value: &Value) -> Read<Option<String>> {
        let key = match value {
            Value::PoolRef { type_id, key } => Some((*type_id, *key)),
            _ => None,
        };
        if let Some(cached) = key.and_then(|key| self.texts.get(&key)) {
            return Ok(cached.clone());
        }
        let text = match self.resolved(value)? {
            Value::String(text) => Some(text),
            Value::Struct { fields, .. } if fields.len() == 1 => self.text(&fields[0])?,
            _ => None,
        };
        if let Some(key) = key {
            self.texts.insert(key, text.clone());
        }
        Ok(text)
    }

    fn thread(&mut self, value: &Value) -> Read<Option<Arc<JavaThread>>> {
        let key = pool_key(value);
        if let Some(cached) = key.and_then(|key| self.threads.get(&key)) {
            return Ok(cached.clone());
        }
        let resolved = self.resolved(value)?;
        let thread = match Fields::of(&self.chunk.metadata, &resolved) {
            fields if fields.values.is_empty() => None,
            fields => Some(Arc::new(JavaThread {
                os_name: self.text(fields.get("osName"))?,
                os_thread_id: fields.int("osThreadId"),
                java_name: self.text(fields.get("javaName"))?,
                java_thread_id: fields.int("javaThreadId"),
            })),
        };
        if let Some(key) = key {
            self.threads.insert(key, thread.clone());
        }
        Ok(thread)
    }

    fn stack_trace(&mut self, value: &Value) -> Read<Option<Arc<StackTrace>>> {
        let key = pool_key(value);
        if let Some(cached) = key.and_then(|key| self.stack_traces.get(&key)) {
            return Ok(cached.clone());
        }
        let resolved = self.resolved(value)?;
        let trace = Fields::of(&self.chunk.metadata, &resolved);
        let stack_trace = if trace.values.is_empty() {
            None
        } else {
            let mut frames = vec![];
            if let Value::Array(elements) = trace.get("frames") {
                for element in elements {
                    let resolved_frame = self.resolved(element)?;
                    let frame = Fields::of(&self.chunk.metadata, &resolved_frame);
                    let method = self.method(frame.get("method"))?;
                    frames.push(StackFrame {
                        class_name: method.as_ref().and_then(|method| method.class_name.clone()),
                        method_name: method.as_ref().and_then(|method| method.name.clone()),
                        descriptor: method.as_ref().and_then(|method| method.descriptor.clone()),
                        line: frame.int("lineNumber") as i32,
                        bytecode_index: frame.int("bytecodeIndex") as i32,
                        frame_type: self.text(frame.get("type"))?,
                    });
                }
            }
            Some(Arc::new(StackTrace { truncated: trace.bool("truncated"), frames }))
        };
        if let Some(key) = key {
            self.stack_traces.insert(key, stack_trace.clone());
        }
        Ok(stack_trace)
    }

    fn method(&mut self, value: &Value) -> Read<Option<Arc<JavaMethod>>> {
        let key = pool_key(value);
        if let Some(cached) = key.and_then(|key| self.methods.get(&key)) {
            return Ok(cached.clone());
        }
        let resolved = self.resolved(value)?;
        let method = match Fields::of(&self.chunk.metadata, &resolved) {
            fields if fields.values.is_empty() => None,
            fields => Some(Arc::new(JavaMethod {
                class_name: self.class_name(fields.get("type"))?,
                name: self.text(fields.get("name"))?,
                descriptor: self.text(fields.get("descriptor"))?,
            })),
        };
        if let Some(key) = key {
            self.methods.insert(key, method.clone());
        }
        Ok(method)
    }

    /// A `java.lang.Class` value's name (its `name` symbol).
    fn class_name(&mut self, value: &Value) -> Read<Option<String>> {
        self.named(value)
    }

    /// A class loader's name (`app`, `bootstrap`, or the name it was given).
    fn class_loader_name(&mut self, value: &Value) -> Read<Option<String>> {
        self.named(value)
    }

    /// The `name` field of a pooled struct, kept by the struct's key.
    fn named(&mut self, value: &Value) -> Read<Option<String>> {
        let key = pool_key(value).map(|(type_id, key)| (type_id | NAME_OF, key));
        if let Some(cached) = key.and_then(|key| self.texts.get(&key)) {
            return Ok(cached.clone());
        }
        let resolved = self.resolved(value)?;
        let name = match Fields::of(&self.chunk.metadata, &resolved) {
            fields if fields.values.is_empty() => None,
            fields => self.text(fields.get("name"))?,
        };
        if let Some(key) = key {
            self.texts.insert(key, name.clone());
        }
        Ok(name)
    }
}

/// Marks a `texts` key as "the name of the struct with this key" rather than "the text with this key" (type ids are
/// small numbers, so the top bit is free).
const NAME_OF: u64 = 1 << 63;

fn pool_key(value: &Value) -> Option<(u64, u64)> {
    match value {
        Value::PoolRef { type_id, key } => Some((*type_id, *key)),
        _ => None,
    }
}
