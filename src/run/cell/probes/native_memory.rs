//! The target JVM's native memory during a cell-repeat (docs/containers.md, "Native memory during a run"): the JVM
//! option that turns tracking on where the plan tracks the cell's native memory ([`jvm_options`]), and its NMT summary
//! read through the attach protocol ([`crate::jvm::attach::nmt_reader`], no JDK tool; where the target runs, by the
//! probe's [`NmtSensor`]) every [`READ_INTERVAL`] from the time it is ready and at each phase's end, every read
//! appended to the cell-repeat's `nmt.csv` here; beside each read the box's usage and the JVM's RSS, taken at once, so
//! the last read before a memory kill says where the memory went and how much of the box's usage NMT accounts for. A
//! read that fails (the JVM gone, NMT off) is no error of the cell: it is left out.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::{Probe, Ready, Sensor, ask};
use crate::attribution::gather::JvmStops;
use crate::jvm::attach::nmt::{self, NmtSummary};
use crate::jvm::attach::nmt_csv::{self, NmtRead};
use crate::jvm::attach::nmt_reader::{NmtReader, NmtTaken};
use crate::launcher::RunningTarget;
use crate::plan::Plan;
use crate::plan::box_limits::mebibytes;
use crate::plan::matrix::Cell;
use crate::results::{PhaseRecord, RepFiles};
use crate::run::cell::target_process::TargetProcess;

/// How often the summary is read while the JVM runs (besides each phase's end): a read costs kv-service's JVM no
/// safepoint and 0.3–1 ms of one thread (docs/benchmarks.md), so every 5 s is far below any effect on the load,
/// and still several reads in a phase of seconds.
pub const READ_INTERVAL: Duration = Duration::from_secs(5);

/// The option that turns tracking on, where the plan tracks the cell's native memory
/// ([`crate::plan::Target::tracks_native_memory`]) and the options before it (`options`) leave it unset.
pub fn jvm_options(plan: &Plan, cell: &Cell, options: &[String]) -> Vec<String> {
    let wanted = plan.target.tracks_native_memory(&cell.limits) && !nmt::tracking_set(options);
    if wanted { vec![nmt::TRACKING_OPTION.to_string()] } else { Vec::new() }
}

/// Whether a JVM with these options (all of them) tracks its native memory, so that jload reads it: the last
/// `-XX:NativeMemoryTracking=` among them.
pub fn tracked(options: &[String]) -> bool {
    nmt::tracking_on(options)
}

/// Where the JVM runs: its reader, attached once, on the first call.
#[derive(Default)]
pub struct NmtSensor {
    reader: Option<NmtReader>,
}

#[derive(Debug, Serialize, Deserialize)]
pub enum NmtCall {
    /// Find the JVM to read.
    Find,
    /// Read the JVM's native memory now (attached on the first read), with the box's usage right after.
    Read,
}

#[derive(Debug, Serialize, Deserialize)]
pub enum NmtAnswer {
    Found {
        found: bool,
    },
    /// None: the JVM could not be read (no JVM found, gone, NMT off, attach refused); `box_usage`: None without a
    /// box.
    Read {
        taken: Option<NmtTaken>,
        box_usage: Option<u64>,
    },
}

impl Sensor for NmtSensor {
    const NAME: &'static str = "nmt";
    type Call = NmtCall;
    type Answer = NmtAnswer;

    fn answer(&mut self, target: &mut RunningTarget, call: NmtCall) -> NmtAnswer {
        if self.reader.is_none() {
            self.reader = target.jvm_pid().map(NmtReader::new);
        }
        match call {
            NmtCall::Find => NmtAnswer::Found { found: self.reader.is_some() },
            NmtCall::Read => {
                let taken = self.reader.as_mut().and_then(NmtReader::read);
                let box_usage = taken.as_ref().and_then(|_| Some(target.box_sample()?.memory?.usage));
                NmtAnswer::Read { taken, box_usage }
            }
        }
    }
}

/// The probe of a cell whose JVM tracks its native memory.
#[derive(Default)]
pub struct NativeMemory {
    reads: Option<NmtReads>,
    /// The last read that succeeded, once the phases are done.
    last: Option<ReadInBox>,
}

impl Probe for NativeMemory {
    fn dry_run_line(&self) -> Option<String> {
        Some(format!(
            "nmt: read through the attach protocol every {} s and at each phase's end (nmt.csv)",
            READ_INTERVAL.as_secs()
        ))
    }

    fn ready(&mut self, ready: &mut Ready<'_>) {
        self.reads = NmtReads::start(ready.target, &RepFiles::of(ready.dir).nmt_csv(), ready.uptime_zero_unix_us());
    }

    fn phase_ended(&mut self, _target: &Mutex<TargetProcess>, record: &mut PhaseRecord) {
        record.nmt = self.reads.as_ref().and_then(NmtReads::at_phase_end);
    }

    fn phases_done(&mut self, _target: &Mutex<TargetProcess>) {
        self.last = self.reads.take().and_then(NmtReads::finish);
    }

    fn left_by_a_kill(&self) -> Option<String> {
        self.last.as_ref().map(ReadInBox::left_by_a_kill)
    }

    /// jload's own reads, from `nmt.csv`: the attribution counts them apart.
    fn stops(&self, stops: JvmStops, dir: &Path) -> JvmStops {
        let nmt = std::fs::read_to_string(RepFiles::of(dir).nmt_csv()).ok().and_then(|text| nmt_csv::read(&text).ok());
        stops.with_jload_reads(nmt.unwrap_or_default().iter().map(|read| (read.unix_ms, read.read_ms)).collect())
    }
}

/// One read with what surrounded it: the box's memory usage and the JVM's RSS, taken right after the read.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadInBox {
    pub read: NmtRead,
    /// The box's usage (page cache included; None without a box).
    pub box_usage: Option<u64>,
    /// The JVM process' resident set.
    pub rss: Option<u64>,
}

impl ReadInBox {
    /// What a memory kill left behind, appended to its cause: ` — heap 64 committed, direct/other 258, … (NMT's
    /// last read, at uptime 12.3 s: 351 MiB committed; the box used 356 MiB, the JVM's RSS 349 MiB)`.
    pub fn left_by_a_kill(&self) -> String {
        format!(" — {} ({})", self.read.summary.breakdown(), self.reconciliation())
    }

    /// What the read accounts for, in one clause: `NMT's last read, at uptime 12.3 s: 351 MiB committed; the box
    /// used 356 MiB, the JVM's RSS 349 MiB`.
    pub fn reconciliation(&self) -> String {
        let when = self.read.uptime_s.map_or(String::new(), |uptime| format!(", at uptime {uptime:.1} s"));
        let beside: Vec<String> = [
            self.box_usage.map(|usage| format!("the box used {}", mebibytes(usage))),
            self.rss.map(|rss| format!("the JVM's RSS {}", mebibytes(rss))),
        ]
        .into_iter()
        .flatten()
        .collect();
        let committed = mebibytes(self.read.summary.total.committed);
        let beside = if beside.is_empty() { String::new() } else { format!("; {}", beside.join(", ")) };
        format!("NMT's last read{when}: {committed} committed{beside}")
    }
}

struct Shared {
    /// Uptime 0 on the wall clock where the JVM runs (µs since the epoch), where PerfData gave it.
    uptime_zero_unix_us: Option<i64>,
    target: Arc<Mutex<TargetProcess>>,
    /// The lock also keeps reads one at a time.
    sensor: Mutex<NmtSensor>,
    csv: Mutex<BufWriter<File>>,
    last: Mutex<Option<ReadInBox>>,
    stop: AtomicBool,
}

/// The reads of one cell-repeat's JVM: a thread reading every [`READ_INTERVAL`] until [`NmtReads::finish`].
pub struct NmtReads {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl NmtReads {
    /// Start reading the target's JVM into `csv` (created with its header; here, also for a target on its own
    /// server); `uptime_zero_unix_us` on the clock of the JVM's machine. None for a local target without a JVM
    /// found, or a file that cannot be made.
    pub fn start(target: &Arc<Mutex<TargetProcess>>, csv: &Path, uptime_zero_unix_us: Option<i64>) -> Option<NmtReads> {
        let mut sensor = NmtSensor::default();
        let found = ask(target, &mut sensor, NmtCall::Find);
        let local = matches!(&*target.lock().expect("target"), TargetProcess::Local(_));
        if local && !matches!(found, Some(NmtAnswer::Found { found: true })) {
            return None;
        }
        let mut file = BufWriter::new(File::create(csv).ok()?);
        writeln!(file, "{}", nmt_csv::header()).ok()?;
        let shared = Arc::new(Shared {
            uptime_zero_unix_us,
            target: target.clone(),
            sensor: Mutex::new(sensor),
            csv: Mutex::new(file),
            last: Mutex::new(None),
            stop: AtomicBool::new(false),
        });
        let background = shared.clone();
        let thread = std::thread::Builder::new()
            .name("jload-nmt-reads".into())
            .spawn(move || {
                let mut next = Instant::now();
                while !background.stop.load(Ordering::Relaxed) {
                    read_once(&background);
                    next += READ_INTERVAL;
                    while Instant::now() < next && !background.stop.load(Ordering::Relaxed) {
                        std::thread::sleep((next - Instant::now()).min(Duration::from_millis(50)));
                    }
                }
            })
            .ok()?;
        Some(NmtReads { shared, thread: Some(thread) })
    }

    /// A read at a phase's end, for its record: this read, else (the JVM gone) the last one before.
    pub fn at_phase_end(&self) -> Option<NmtSummary> {
        read_once(&self.shared).or_else(|| self.last()).map(|read| read.read.summary)
    }

    /// The last read that succeeded.
    pub fn last(&self) -> Option<ReadInBox> {
        self.shared.last.lock().expect("last read").clone()
    }

    /// Stop reading; the last read that succeeded.
    pub fn finish(mut self) -> Option<ReadInBox> {
        self.stop_thread();
        self.last()
    }

    fn stop_thread(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
        let _ = self.shared.csv.lock().expect("nmt.csv").flush();
    }
}

impl Drop for NmtReads {
    fn drop(&mut self) {
        self.stop_thread();
    }
}

/// One read, appended to the file and kept as the last; None when the JVM could not be read.
fn read_once(shared: &Shared) -> Option<ReadInBox> {
    let mut sensor = shared.sensor.lock().expect("nmt sensor");
    let Some(NmtAnswer::Read { taken: Some(taken), box_usage }) = ask(&shared.target, &mut *sensor, NmtCall::Read)
    else {
        return None;
    };
    let uptime_s = shared.uptime_zero_unix_us.map(|zero| (taken.unix_us - zero) as f64 / 1e6);
    let unix_ms = u64::try_from(taken.unix_us / 1000).unwrap_or(0);
    let read = NmtRead { unix_ms, uptime_s, read_ms: taken.read_ms, summary: taken.summary };
    let mut csv = shared.csv.lock().expect("nmt.csv");
    for line in nmt_csv::rows(&read) {
        let _ = writeln!(csv, "{line}");
    }
    let _ = csv.flush();
    let in_box = ReadInBox { read, box_usage, rss: taken.rss };
    *shared.last.lock().expect("last read") = Some(in_box.clone());
    Some(in_box)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jvm::attach::nmt::{Amount, NmtCategory};

    fn read_in_box(box_usage: Option<u64>, rss: Option<u64>) -> ReadInBox {
        let mib = |n: u64| n << 20;
        let category = |name: &str, committed: u64| NmtCategory { name: name.into(), reserved: committed, committed };
        let summary = NmtSummary {
            total: Amount { reserved: mib(2000), committed: mib(300) },
            malloc: None,
            mmap: None,
            categories: vec![category("Java Heap", mib(20)), category("Other", mib(260)), category("GC", mib(20))],
        };
        let read = NmtRead { unix_ms: 1, uptime_s: Some(12.34), read_ms: 0.5, summary };
        ReadInBox { read, box_usage, rss }
    }

    #[test]
    fn a_kill_leaves_the_breakdown_and_what_the_read_accounts_for() {
        assert_eq!(
            read_in_box(Some(310 << 20), Some(305 << 20)).left_by_a_kill(),
            " — direct/other 260 committed, heap 20, GC 20 (NMT's last read, at uptime 12.3 s: 300 MiB committed; \
             the box used 310 MiB, the JVM's RSS 305 MiB)"
        );
        assert_eq!(read_in_box(None, None).reconciliation(), "NMT's last read, at uptime 12.3 s: 300 MiB committed");
        assert_eq!(
            read_in_box(None, Some(305 << 20)).reconciliation(),
            "NMT's last read, at uptime 12.3 s: 300 MiB committed; the JVM's RSS 305 MiB"
        );
    }
}
