//! The CPU time of the calling thread (`CLOCK_THREAD_CPUTIME_ID`), to tell how busy a load worker thread was: a thread
//! near a whole core cannot keep any faster schedule, so the generator, not the target, set the pace.

use std::time::Duration;

/// CPU time the calling thread has used since it started.
pub fn thread_cpu_time() -> Duration {
    let mut now = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: a valid clock id and a valid timespec to write into.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
    if rc != 0 {
        return Duration::ZERO;
    }
    Duration::new(now.tv_sec as u64, now.tv_nsec as u32)
}

/// CPU time as a percentage of wall time (100: one whole core); 0 for no wall time.
pub fn cpu_pct(cpu: Duration, wall: Duration) -> f64 {
    if wall.is_zero() { 0.0 } else { cpu.as_secs_f64() * 100.0 / wall.as_secs_f64() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    /// The clock counts the thread's own CPU time: a spinning thread accumulates it (50 ms of it within a
    /// generous wall-clock bound, however loaded the machine) and never more than the wall time that passed.
    #[test]
    fn a_spinning_thread_accumulates_cpu_time_no_faster_than_the_wall_clock() {
        let (cpu, wall) = (thread_cpu_time(), Instant::now());
        while thread_cpu_time() - cpu < Duration::from_millis(50) {
            assert!(wall.elapsed() < Duration::from_secs(30), "50 ms of CPU not reached in 30 s of spinning");
            std::hint::black_box(0u64.wrapping_add(1));
        }
        let (used, elapsed) = (thread_cpu_time() - cpu, wall.elapsed());
        assert!(used >= Duration::from_millis(50));
        assert!(cpu_pct(used, elapsed) <= 101.0, "{used:?} of CPU in {elapsed:?}");
    }

    /// A sleeping thread uses (almost) no CPU time, whatever else the machine runs.
    #[test]
    fn a_sleeping_thread_accumulates_almost_no_cpu_time() {
        let cpu = thread_cpu_time();
        std::thread::sleep(Duration::from_millis(200));
        let used = thread_cpu_time() - cpu;
        assert!(used < Duration::from_millis(10), "a sleeping thread used {used:?}");
    }
}
