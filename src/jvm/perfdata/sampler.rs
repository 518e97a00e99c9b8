//! The JVM sampler: open a JVM once, then take cheap samples (one pread of its PerfData file, one read of
//! /proc/<pid>/stat) as often as wanted. Used by `jload gcstat` and by `jload bench --jvm`.
//!
//! ```ignore
//! let mut sampler = JvmSampler::open(jvm::resolve::resolve("port:8088")?)?;
//! while let Some(sample) = sampler.sample()? {   // None: the JVM has exited
//!     println!("{} young GCs, old gen {:?} % used", sample.collections.ygc.unwrap_or(0), sample.old.used_pct);
//! }
//! ```

use std::time::{Instant, SystemTime, UNIX_EPOCH};

use anyhow::Result;
use serde::{Deserialize, Serialize};

use super::gcutil::{GcCounterHandles, GcCounters, Space};
use super::{Counter, PerfData, Snapshot, file};
use crate::jvm::procfs::{self, WatchedProcess};

/// Capacity and usage of one memory space, in bytes (None where the collector has no such space).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SpaceSample {
    pub capacity_bytes: Option<u64>,
    pub used_bytes: Option<u64>,
    /// jstat -gcutil's percentage; None where jstat prints "-".
    pub used_pct: Option<f64>,
}

/// GC counts and total times as jstat shows them: young (collector 0), full (collector 1), concurrent-cycle pauses
/// (collector 2: G1 remark/cleanup, ZGC, …); None where jstat prints "-". Used for one sample and for the difference
/// between two samples.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct GcTotals {
    pub ygc: Option<u64>,
    pub ygct_s: Option<f64>,
    pub fgc: Option<u64>,
    pub fgct_s: Option<f64>,
    pub cgc: Option<u64>,
    pub cgct_s: Option<f64>,
    /// Total GC time (missing collectors count as 0, like jstat's GCT).
    pub gct_s: Option<f64>,
}

/// What jstat's GC columns count for a collector (as preflight names it) where they do not mean what their names
/// say; None where they do (Serial, Parallel, G1). Read from the JVMs' PerfData collector names
/// (`sun.gc.collector.N.name`) on JDK 17 and 25.
pub fn jstat_columns_note(collector: &str) -> Option<&'static str> {
    match collector {
        "Shenandoah" => Some(
            "Shenandoah: jstat's FGC/FGCT count every pause and every concurrent cycle (Shenandoah reports them all as \
             its one \"full\" collector), not full collections, and a cycle's time includes its pauses, so jstat GC \
             time % can pass 100 %; the GC share (GC log) is what the application waited.",
        ),
        "ZGC" => Some(
            "ZGC: jstat's CGC/CGCT count ZGC's pauses (about three a cycle), not its concurrent cycles, and jstat's \
             GC time is pause time; threads held up by allocation stalls count in the GC share (GC log).",
        ),
        "ZGC (generational)" => Some(
            "ZGC (generational): jstat's YGC/YGCT count the pauses of minor collections and CGC/CGCT those of major \
             collections, not collections, and jstat's GC time is pause time; allocation stalls count in the GC share \
             (GC log).",
        ),
        _ => None,
    }
}

impl GcTotals {
    /// What happened between `earlier` and `self`.
    pub fn since(&self, earlier: &GcTotals) -> GcTotals {
        let count = |now: Option<u64>, then: Option<u64>| Some(now?.saturating_sub(then?));
        let time = |now: Option<f64>, then: Option<f64>| Some((now? - then?).max(0.0));
        GcTotals {
            ygc: count(self.ygc, earlier.ygc),
            ygct_s: time(self.ygct_s, earlier.ygct_s),
            fgc: count(self.fgc, earlier.fgc),
            fgct_s: time(self.fgct_s, earlier.fgct_s),
            cgc: count(self.cgc, earlier.cgc),
            cgct_s: time(self.cgct_s, earlier.cgct_s),
            gct_s: time(self.gct_s, earlier.gct_s),
        }
    }
}

/// One sample of a JVM: GC counters and memory as jstat -gcutil / -gc compute them, plus /proc figures.
#[derive(Debug, Clone, Serialize)]
pub struct JvmSample {
    /// When the sample was taken (monotonic clock).
    #[serde(skip)]
    #[allow(dead_code, reason = "API for jload bench --jvm")]
    pub timestamp: Instant,
    /// When the sample was taken (wall clock, milliseconds since the Unix epoch).
    pub unix_ms: u64,
    pub pid: u32,
    /// JVM uptime: sun.os.hrt.ticks / sun.os.hrt.frequency (JDK 17: refreshed every 50 ms by HotSpot's sampler);
    /// on JDKs without that counter (JDK 25), wall clock minus sun.rt.createVmBeginTime, like JDK 25's jstat.
    pub uptime_s: f64,
    /// sun.rt.createVmBeginTime: when HotSpot started (ms since the Unix epoch), the origin of GC-log uptimes.
    pub vm_start_unix_ms: Option<i64>,
    /// GC counts and times (jstat's YGC … GCT).
    #[serde(flatten)]
    pub collections: GcTotals,
    pub survivor0: SpaceSample,
    pub survivor1: SpaceSample,
    pub eden: SpaceSample,
    pub old: SpaceSample,
    pub metaspace: SpaceSample,
    pub ccs: SpaceSample,
    pub rss_bytes: u64,
    /// User + system CPU time of the JVM process, in clock ticks (`jvm::procfs::ticks_per_second()` per second).
    pub cpu_ticks: u64,
    /// CPU use of the JVM since the previous sample of this sampler (the first: since the process started),
    /// in % of one core.
    pub cpu_pct: Option<f64>,
    pub threads: u64,
    /// Seconds the JIT compilers have spent compiling since the JVM started (java.ci.totalTime): a JVM whose figure
    /// still grows is still compiling its hot code.
    #[serde(skip)]
    pub jit_compile_s: Option<f64>,
    /// The raw counters behind the figures above, for printing exactly like jstat.
    #[serde(skip)]
    pub gc: GcCounters,
}

impl JvmSample {
    /// The monotonic instant at which the JVM's uptime was `uptime_s` (e.g. a GC-log `[12.345s]` decoration),
    /// using this sample's uptime as the anchor. Precision: that of [`JvmSample::uptime_s`].
    #[allow(dead_code, reason = "API for jload bench --jvm (GC-log pauses on the run's time axis)")]
    pub fn instant_at_uptime(&self, uptime_s: f64) -> Option<Instant> {
        let back = self.uptime_s - uptime_s;
        if back >= 0.0 {
            self.timestamp.checked_sub(std::time::Duration::from_secs_f64(back))
        } else {
            self.timestamp.checked_add(std::time::Duration::from_secs_f64(-back))
        }
    }
}

/// The uptime counters, located once.
#[derive(Debug, Clone, Copy)]
struct UptimeCounters {
    ticks: Option<Counter>,
    frequency: Option<Counter>,
    vm_start_ms: Option<Counter>,
    /// java.ci.totalTime, in ticks of `frequency`.
    jit_ticks: Option<Counter>,
}

/// Samples one JVM. Open once with [`JvmSampler::open`], then call [`JvmSampler::sample`] as often as needed.
#[derive(Debug)]
pub struct JvmSampler {
    pid: u32,
    perfdata: PerfData,
    process: WatchedProcess,
    gc_counters: GcCounterHandles,
    uptime_counters: UptimeCounters,
    /// How many counters the snapshot had when the handles were located (re-located when it grows).
    located_with: usize,
    process_start_unix_ms: Option<u64>,
    previous: Option<(Instant, u64)>,
}

impl JvmSampler {
    /// Opens JVM `pid`. Errors are one line: no such process, not a JVM, PerfData disabled, permission denied.
    pub fn open(pid: u32) -> Result<Self> {
        let process = WatchedProcess::open(pid)?;
        let perfdata = file::open_perfdata(pid)?;
        let snapshot = perfdata.snapshot();
        let process_start_unix_ms = procfs::start_time(pid).ok().map(unix_ms);
        Ok(JvmSampler {
            pid,
            gc_counters: GcCounterHandles::locate(snapshot),
            uptime_counters: locate_uptime_counters(snapshot),
            located_with: snapshot.entry_count(),
            perfdata,
            process,
            process_start_unix_ms,
            previous: None,
        })
    }

    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// The PerfData values of the last sample, for counters beyond [`JvmSample`] (`long_named`, `string_named`).
    #[allow(dead_code, reason = "API for jload bench --jvm")]
    pub fn snapshot(&self) -> &Snapshot {
        self.perfdata.snapshot()
    }

    /// Takes one sample: Ok(None) once the JVM has exited (or its pid was reused).
    pub fn sample(&mut self) -> Result<Option<JvmSample>> {
        let Some(figures) = self.process.figures() else {
            return Ok(None);
        };
        let timestamp = Instant::now();
        let now_ms = unix_ms(SystemTime::now());
        if let Err(err) = self.perfdata.refresh() {
            return if self.process.figures().is_none() { Ok(None) } else { Err(err) };
        }
        let snapshot = self.perfdata.snapshot();
        if snapshot.entry_count() != self.located_with {
            self.gc_counters = GcCounterHandles::locate(snapshot);
            self.uptime_counters = locate_uptime_counters(snapshot);
            self.located_with = snapshot.entry_count();
        }
        let gc = self.gc_counters.read(snapshot);
        let (uptime_s, vm_start_unix_ms) = uptime(snapshot, &self.uptime_counters, now_ms);
        let cpu_pct = self.cpu_percent(timestamp, now_ms, figures.cpu_ticks);
        self.previous = Some((timestamp, figures.cpu_ticks));
        let count = |ordinal: usize| gc.invocations(ordinal).and_then(|n| u64::try_from(n).ok());
        Ok(Some(JvmSample {
            timestamp,
            unix_ms: now_ms,
            pid: self.pid,
            uptime_s,
            vm_start_unix_ms,
            collections: GcTotals {
                ygc: count(0),
                ygct_s: non_nan(gc.seconds(0)),
                fgc: count(1),
                fgct_s: non_nan(gc.seconds(1)),
                cgc: count(2),
                cgct_s: non_nan(gc.seconds(2)),
                gct_s: non_nan(gc.total_seconds()),
            },
            survivor0: space_sample(&gc, Space::Survivor0),
            survivor1: space_sample(&gc, Space::Survivor1),
            eden: space_sample(&gc, Space::Eden),
            old: space_sample(&gc, Space::Old),
            metaspace: space_sample(&gc, Space::Metaspace),
            ccs: space_sample(&gc, Space::CompressedClass),
            rss_bytes: figures.rss_bytes,
            cpu_ticks: figures.cpu_ticks,
            cpu_pct,
            threads: figures.threads,
            jit_compile_s: jit_compile_s(snapshot, &self.uptime_counters),
            gc,
        }))
    }

    /// CPU % of one core since the previous sample, or since the process started for the first sample.
    fn cpu_percent(&self, now: Instant, now_ms: u64, cpu_ticks: u64) -> Option<f64> {
        let (busy_ticks, wall_s) = match self.previous {
            Some((then, ticks)) => (cpu_ticks.saturating_sub(ticks), now.duration_since(then).as_secs_f64()),
            None => (cpu_ticks, now_ms.checked_sub(self.process_start_unix_ms?)? as f64 / 1000.0),
        };
        (wall_s > 0.0).then(|| busy_ticks as f64 / procfs::ticks_per_second() as f64 / wall_s * 100.0)
    }
}

fn locate_uptime_counters(snapshot: &Snapshot) -> UptimeCounters {
    UptimeCounters {
        ticks: snapshot.counter("sun.os.hrt.ticks"),
        frequency: snapshot.counter("sun.os.hrt.frequency"),
        vm_start_ms: snapshot.counter("sun.rt.createVmBeginTime"),
        jit_ticks: snapshot.counter("java.ci.totalTime"),
    }
}

/// Seconds the JIT has compiled since the JVM started, from java.ci.totalTime in sun.os.hrt ticks.
fn jit_compile_s(snapshot: &Snapshot, counters: &UptimeCounters) -> Option<f64> {
    let ticks = snapshot.long(counters.jit_ticks?)?;
    let frequency = snapshot.long(counters.frequency?)?;
    (frequency > 0).then(|| ticks as f64 / frequency as f64)
}

/// (uptime in seconds, VM start in ms since the epoch).
fn uptime(snapshot: &Snapshot, counters: &UptimeCounters, now_ms: u64) -> (f64, Option<i64>) {
    let value = |c: Option<Counter>| c.and_then(|c| snapshot.long(c));
    let vm_start_ms = value(counters.vm_start_ms);
    let from_ticks = match (value(counters.ticks), value(counters.frequency)) {
        (Some(ticks), Some(frequency)) if frequency > 0 => Some(ticks as f64 / frequency as f64),
        _ => None,
    };
    let from_wall_clock = || vm_start_ms.map_or(0.0, |start| (now_ms as f64 - start as f64) / 1000.0);
    (from_ticks.unwrap_or_else(from_wall_clock), vm_start_ms)
}

fn unix_ms(time: SystemTime) -> u64 {
    time.duration_since(UNIX_EPOCH).map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

fn non_nan(value: f64) -> Option<f64> {
    (!value.is_nan()).then_some(value)
}

fn space_sample(gc: &GcCounters, space: Space) -> SpaceSample {
    let bytes = |v: Option<i64>| v.and_then(|v| u64::try_from(v).ok());
    SpaceSample {
        capacity_bytes: bytes(gc.capacity(space)),
        used_bytes: bytes(gc.used(space)),
        used_pct: non_nan(gc.percent_used(space)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jvm::test_jvm;
    use crate::jvm::watch::gcstat_csv;

    /// Starts tests/java/Alloc.java on JDK 17 (exiting by itself after `lifetime_ms` once idle) and waits for idle.
    fn start_alloc(lifetime_ms: u64) -> std::process::Child {
        test_jvm::start_alloc(&test_jvm::jdk17(), &["-Xmx64m", "-XX:+UseParallelGC"], lifetime_ms)
    }

    #[test]
    fn samples_a_real_jvm_until_it_exits() {
        let mut jvm = start_alloc(2_000);
        let mut sampler = JvmSampler::open(jvm.id()).unwrap();
        let first = sampler.sample().unwrap().expect("the JVM is running");
        std::thread::sleep(std::time::Duration::from_millis(100));
        let second = sampler.sample().unwrap().expect("the JVM is running");

        let gc = &second.collections;
        assert!(gc.ygc.unwrap() > 0 && gc.fgc.unwrap() >= 1, "Alloc allocates 128 MB then calls System.gc()");
        let gct = gc.ygct_s.unwrap() + gc.fgct_s.unwrap();
        assert!((gc.gct_s.unwrap() - gct).abs() < 1e-9, "Parallel has no collector 2: GCT = YGCT + FGCT");
        assert_eq!(gc.cgc, None);
        let old = second.old;
        let expected_pct = old.used_bytes.unwrap() as f64 / old.capacity_bytes.unwrap() as f64 * 100.0;
        assert!((old.used_pct.unwrap() - expected_pct).abs() < 1e-9);
        assert!(second.survivor0.capacity_bytes.unwrap() > 0 && second.eden.capacity_bytes.unwrap() > 0);
        assert!(second.metaspace.used_bytes.unwrap() > 1_000_000 && second.ccs.used_pct.is_some());
        assert!(second.rss_bytes > 20 << 20 && second.threads > 5 && second.cpu_ticks > 0);
        assert!(first.cpu_pct.unwrap() > 0.0, "the first sample averages since start: javac and allocation used CPU");
        assert!(second.cpu_pct.unwrap() < 100.0, "idle between the two samples");

        let start = second.vm_start_unix_ms.unwrap() as f64;
        let wall_uptime = (second.unix_ms as f64 - start) / 1000.0;
        assert!((second.uptime_s - wall_uptime).abs() < 0.2, "{} vs {wall_uptime}", second.uptime_s);
        assert_eq!(second.instant_at_uptime(second.uptime_s), Some(second.timestamp));
        let earlier = second.instant_at_uptime(second.uptime_s - 0.05).unwrap();
        assert_eq!(second.timestamp.duration_since(earlier).as_millis(), 50);
        assert!(sampler.snapshot().string_named("sun.rt.javaCommand").unwrap().contains("Alloc.java"));

        let json = serde_json::to_value(&second).unwrap();
        assert_eq!(json["old"]["capacity_bytes"], old.capacity_bytes.unwrap());
        assert!(json.get("timestamp").is_none() && json.get("gc").is_none());

        // gcstat.csv's row of a real sample reads back through the same schema.
        let csv = format!("{}\n{}\n", gcstat_csv::header(), gcstat_csv::row(&second));
        let heap = gcstat_csv::read_heap_samples(&csv).unwrap();
        let mib = |bytes: Option<u64>| Some((bytes.unwrap() as f64 / 1048576.0 * 10.0).round() / 10.0);
        assert_eq!(heap.len(), 1);
        assert_eq!(heap[0].uptime_s, (second.uptime_s * 1000.0).round() / 1000.0);
        assert_eq!((heap[0].old_mb, heap[0].old_capacity_mb), (mib(old.used_bytes), mib(old.capacity_bytes)));
        assert_eq!(heap[0].eden_mb, mib(second.eden.used_bytes));

        jvm.wait().unwrap();
        assert!(sampler.sample().unwrap().is_none(), "an exited JVM gives None");
    }
}
