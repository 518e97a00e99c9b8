//! The box watched over its target's whole life (docs/containers.md, "The box over time"): a thread reads the box's
//! CPU figures every quarter of a CFS period and keeps in memory the stretches in which the CPU quota held the box
//! back, placed on the wall clock by [`place_throttled`]; once a second it reads the whole box into a row of
//! `box.csv` ([`super::box_csv`]), with the JVM's uptime once the caller has said where uptime 0 lies.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use super::box_csv::{self, BoxRow};
use super::cell_box::BoxReader;
use super::{CPU_PERIOD_US, CpuFigures};

/// How often `cpu.stat` is read: a quarter of the CFS period, so a throttled stretch is placed within 25 ms of
/// where it ended (the kernel's counters move only when a throttled period ends).
pub const FINE_INTERVAL: Duration = Duration::from_millis(25);

/// How often a row of `box.csv` is written.
pub const ROW_INTERVAL: Duration = Duration::from_secs(1);

/// A stretch of wall-clock time in which the CPU quota held the box's threads back (µs since the Unix epoch).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThrottledSpan {
    pub start_unix_us: i64,
    pub end_unix_us: i64,
}

/// The throttling counters of `cpu.stat` at one instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CpuTick {
    pub unix_us: i64,
    pub throttled_periods: u64,
    /// Throttled time, summed over the CPUs whose run queues were held back (ns).
    pub throttled_ns: u64,
}

impl CpuTick {
    fn of(cpu: &CpuFigures, unix_us: i64) -> CpuTick {
        CpuTick { unix_us, throttled_periods: cpu.throttled_periods, throttled_ns: cpu.throttled_ns }
    }
}

/// The throttled stretches between two reads of `cpu.stat`. The kernel counts throttled periods and their summed
/// throttled time, not when they were, and it adds to both when a throttled period ends: the box's threads run again
/// at the period's boundary. So each of the `n` periods counted between the reads ends at a boundary inside the
/// interval: the last at the second read, the ones before it a CFS period apart (closer when the interval is shorter
/// than `n` periods). Each lasts the throttled time over `n` in wall time — the kernel sums the time over each CPU's
/// run queue, so it is divided by the CPUs the box can run on (`cpus`) — and at most one period; it may begin
/// before the first read.
pub fn place_throttled(before: CpuTick, after: CpuTick, cpus: f64) -> Vec<ThrottledSpan> {
    let periods = after.throttled_periods.saturating_sub(before.throttled_periods);
    let interval_us = after.unix_us - before.unix_us;
    if periods == 0 || interval_us <= 0 {
        return Vec::new();
    }
    let period_us = CPU_PERIOD_US as f64;
    let wall_us = after.throttled_ns.saturating_sub(before.throttled_ns) as f64 / 1000.0 / cpus.max(1.0);
    let each_us = (wall_us / periods as f64).min(period_us).round() as i64;
    let apart_us = period_us.min(interval_us as f64 / periods as f64);
    (0..periods)
        .rev()
        .map(|before_last| {
            let end_unix_us = after.unix_us - (apart_us * before_last as f64).round() as i64;
            ThrottledSpan { start_unix_us: end_unix_us - each_us, end_unix_us }
        })
        .filter(|span| span.end_unix_us > span.start_unix_us)
        .collect()
}

/// The reads of `cpu.stat` one after another, each turned into the stretches since the one before
/// ([`place_throttled`]). A read that counted new throttled periods but no new throttled time is passed over: the
/// kernel counts a period when it ends and adds a run queue's time when it lets that queue go, on another CPU a
/// moment later; the period is placed at the next read, with its time.
#[derive(Debug, Default)]
pub struct Placer {
    previous: Option<CpuTick>,
}

impl Placer {
    /// The stretches that ended between the last read taken and `tick`.
    pub fn next(&mut self, tick: CpuTick, cpus: f64) -> Vec<ThrottledSpan> {
        let Some(before) = self.previous else {
            self.previous = Some(tick);
            return Vec::new();
        };
        if tick.throttled_periods > before.throttled_periods && tick.throttled_ns == before.throttled_ns {
            return Vec::new();
        }
        self.previous = Some(tick);
        place_throttled(before, tick, cpus)
    }
}

struct Shared {
    reader: BoxReader,
    csv: Mutex<Option<BufWriter<File>>>,
    throttled: Mutex<Vec<ThrottledSpan>>,
    /// Wall-clock µs at the JVM's uptime 0; `i64::MIN` while unknown.
    uptime_zero_unix_us: AtomicI64,
    /// The CPUs the box's threads may run on.
    cpus: f64,
    stop: AtomicBool,
}

/// A box being watched; [`BoxWatch::finish`] (or dropping it) writes a last row and stops the thread.
pub struct BoxWatch {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl BoxWatch {
    /// Watch the box `reader` reads, whose processes may run on `cpus` CPUs, writing `box.csv` to `csv` (none: only
    /// the throttled stretches are kept).
    pub fn start(reader: BoxReader, csv: Option<PathBuf>, cpus: f64) -> std::io::Result<BoxWatch> {
        let csv = match csv {
            Some(path) => {
                let mut file = BufWriter::new(File::create(path)?);
                writeln!(file, "{}", box_csv::header())?;
                Some(file)
            }
            None => None,
        };
        let shared = Arc::new(Shared {
            reader,
            csv: Mutex::new(csv),
            throttled: Mutex::new(Vec::new()),
            uptime_zero_unix_us: AtomicI64::new(i64::MIN),
            cpus,
            stop: AtomicBool::new(false),
        });
        let background = shared.clone();
        let thread = std::thread::Builder::new().name("jload-box-watch".into()).spawn(move || watch(&background))?;
        Ok(BoxWatch { shared, thread: Some(thread) })
    }

    /// From now on, rows carry the JVM's uptime: wall-clock µs at its uptime 0.
    pub fn set_uptime_zero(&self, unix_us: i64) {
        self.shared.uptime_zero_unix_us.store(unix_us, Ordering::Relaxed);
    }

    /// The stretches in which the quota held the box back, so far, in order.
    pub fn throttled(&self) -> Vec<ThrottledSpan> {
        self.shared.throttled.lock().expect("throttled lock").clone()
    }

    /// Stop the thread (it reads the box once more, a last row).
    pub fn finish(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for BoxWatch {
    fn drop(&mut self) {
        self.finish();
    }
}

fn unix_us_now() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |elapsed| elapsed.as_micros() as i64)
}

/// The thread: a row now and every [`ROW_INTERVAL`], `cpu.stat` every [`FINE_INTERVAL`] in between while the box
/// has a quota, a last row when told to stop.
fn watch(shared: &Shared) {
    let mut placer = Placer::default();
    let mut next_row = Instant::now();
    let mut quota = true;
    loop {
        let stopping = shared.stop.load(Ordering::Relaxed);
        let now = Instant::now();
        let unix_us = unix_us_now();
        let cpu = if now >= next_row || stopping {
            // A second on from the last row's due time; from now when the thread was held up longer than that.
            next_row = (next_row + ROW_INTERVAL).max(now + ROW_INTERVAL / 2);
            let Ok(sample) = shared.reader.sample() else { break };
            let uptime_zero = shared.uptime_zero_unix_us.load(Ordering::Relaxed);
            let uptime_s = (uptime_zero != i64::MIN).then(|| (unix_us - uptime_zero) as f64 / 1e6);
            let row = BoxRow { unix_ms: (unix_us / 1000) as u64, uptime_s, sample };
            if let Some(csv) = shared.csv.lock().expect("csv lock").as_mut() {
                // Out at once: the file holds the box up to its last second whatever becomes of jload.
                let _ = writeln!(csv, "{}", box_csv::row(&row)).and_then(|()| csv.flush());
            }
            quota = row.sample.cpu.as_ref().is_some_and(|cpu| cpu.quota_cpus.is_some());
            row.sample.cpu
        } else {
            shared.reader.cpu().ok().flatten()
        };
        if let Some(tick) = cpu.map(|cpu| CpuTick::of(&cpu, unix_us)) {
            let placed = placer.next(tick, shared.cpus);
            shared.throttled.lock().expect("throttled lock").extend(placed);
        }
        if stopping {
            break;
        }
        let until = if quota { (now + FINE_INTERVAL).min(next_row) } else { next_row };
        while Instant::now() < until && !shared.stop.load(Ordering::Relaxed) {
            std::thread::sleep((until - Instant::now()).min(FINE_INTERVAL));
        }
    }
}

/// The CPUs process `pid` may run on (its affinity); 1 when it cannot be read.
pub fn allowed_cpus(pid: u32) -> f64 {
    // SAFETY: a zeroed cpu_set_t is a valid empty set; sched_getaffinity writes at most its size.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(pid as libc::pid_t, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return 1.0;
        }
        f64::from(libc::CPU_COUNT(&set).max(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tick(unix_us: i64, throttled_periods: u64, throttled_ms: u64) -> CpuTick {
        CpuTick { unix_us, throttled_periods, throttled_ns: throttled_ms * 1_000_000 }
    }

    #[test]
    fn one_throttled_period_ends_at_the_second_read_and_lasts_its_time_over_the_cpus() {
        // 25 ms between the reads, one period throttled, 150 ms of throttled time summed over 2 CPUs: 75 ms of wall
        // time, ending at the second read (begun before the first).
        let spans = place_throttled(tick(1_000_000, 7, 300), tick(1_025_000, 8, 450), 2.0);
        assert_eq!(spans, vec![ThrottledSpan { start_unix_us: 950_000, end_unix_us: 1_025_000 }]);
    }

    #[test]
    fn several_periods_end_a_period_apart_the_last_at_the_second_read() {
        // A read every second (no fine reads): 4 periods, 200 ms of throttled time on one CPU → 50 ms each, ending
        // 100 ms apart up to the read.
        let spans = place_throttled(tick(0, 0, 0), tick(1_000_000, 4, 200), 1.0);
        let stretches: Vec<(i64, i64)> = spans.iter().map(|span| (span.start_unix_us, span.end_unix_us)).collect();
        assert_eq!(stretches, vec![(650_000, 700_000), (750_000, 800_000), (850_000, 900_000), (950_000, 1_000_000)]);
        // Two periods counted within 50 ms (a late timer): 25 ms apart, the interval shared.
        let close = place_throttled(tick(0, 0, 0), tick(50_000, 2, 20), 1.0);
        let ends: Vec<i64> = close.iter().map(|span| span.end_unix_us).collect();
        assert_eq!(ends, vec![25_000, 50_000]);
    }

    #[test]
    fn a_period_counted_before_its_time_is_placed_at_the_read_that_brings_the_time() {
        let mut placer = Placer::default();
        assert_eq!(placer.next(tick(0, 5, 100), 2.0), Vec::new(), "the first read places nothing");
        assert_eq!(placer.next(tick(25_000, 6, 100), 2.0), Vec::new(), "a period without its time yet");
        assert_eq!(
            placer.next(tick(50_000, 6, 180), 2.0),
            vec![ThrottledSpan { start_unix_us: 10_000, end_unix_us: 50_000 }]
        );
        assert_eq!(placer.next(tick(75_000, 6, 180), 2.0), Vec::new());
    }

    #[test]
    fn a_stretch_is_never_longer_than_a_period_and_no_new_period_places_nothing() {
        // 1 s between reads, one period with 400 ms on one CPU: at most one period (100 ms).
        assert_eq!(
            place_throttled(tick(0, 1, 0), tick(1_000_000, 2, 400), 1.0),
            vec![ThrottledSpan { start_unix_us: 900_000, end_unix_us: 1_000_000 }]
        );
        assert_eq!(place_throttled(tick(0, 3, 10), tick(25_000, 3, 10), 2.0), Vec::new());
        assert_eq!(place_throttled(tick(25_000, 3, 10), tick(25_000, 4, 20), 2.0), Vec::new(), "no time between");
        assert_eq!(place_throttled(tick(0, 3, 10), tick(25_000, 4, 10), 2.0), Vec::new(), "no time counted");
    }
}
