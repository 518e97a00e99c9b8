//! The target JVM's native memory during a cell-repeat (docs/containers.md, "Native memory during a run"): its NMT
//! summary read through the attach protocol ([`crate::jvm::attach::nmt_reader`], no JDK tool; on a target's server by its
//! agent) every [`READ_INTERVAL`] from the time it is ready and at each phase's end, every read appended to the
//! cell-repeat's `nmt.csv`; beside each read the box's usage and the JVM's RSS, taken at once, so the last read
//! before a memory kill says where the memory went and how much of the box's usage NMT accounts for. A read that
//! fails (the JVM gone, NMT off) is no error of the cell: it is left out.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::target_process::TargetProcess;
use crate::jvm::attach::nmt::NmtSummary;
use crate::jvm::attach::nmt_csv::{self, NmtRead};
use crate::jvm::attach::nmt_reader::NmtReader;
use crate::plan::limits::mebibytes;

/// How often the summary is read while the JVM runs (besides each phase's end): a read costs kv-service's JVM no
/// safepoint and 0.3–1 ms of one thread (docs/benchmarks.md), so every 5 s is far below any effect on the load,
/// and still several reads in a phase of seconds.
pub const READ_INTERVAL: Duration = Duration::from_secs(5);

/// What `--dry-run` says of a cell whose JVM tracks its native memory.
pub fn dry_run_line() -> String {
    format!(
        "nmt: read through the attach protocol every {} s and at each phase's end (nmt.csv)",
        READ_INTERVAL.as_secs()
    )
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

/// Where the reads are made: here, or by the agent on the target's server.
enum Source {
    Local(NmtReader),
    Remote,
}

struct Shared {
    /// Uptime 0 on the wall clock where the JVM runs (µs since the epoch), where PerfData gave it.
    uptime_zero_unix_us: Option<i64>,
    target: Arc<Mutex<TargetProcess>>,
    /// The lock also keeps reads one at a time.
    source: Mutex<Source>,
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
        let source = match &mut *target.lock().expect("target") {
            TargetProcess::Local(local) => Source::Local(NmtReader::new(local.jvm_pid()?)),
            TargetProcess::Remote(_) => Source::Remote,
        };
        let mut file = BufWriter::new(File::create(csv).ok()?);
        writeln!(file, "{}", nmt_csv::header()).ok()?;
        let shared = Arc::new(Shared {
            uptime_zero_unix_us,
            target: target.clone(),
            source: Mutex::new(source),
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
    let mut source = shared.source.lock().expect("nmt source");
    let (taken, box_usage) = match &mut *source {
        Source::Local(reader) => {
            let taken = reader.read()?;
            let target = shared.target.lock().expect("target");
            (taken, target.box_sample().and_then(|sample| Some(sample.memory?.usage)))
        }
        Source::Remote => match &*shared.target.lock().expect("target") {
            TargetProcess::Remote(remote) => remote.nmt_read()?,
            TargetProcess::Local(_) => return None,
        },
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
