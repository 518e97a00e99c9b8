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

    #[test]
    fn a_spinning_thread_uses_about_a_core_and_a_sleeping_one_almost_none() {
        let (cpu, wall) = (thread_cpu_time(), Instant::now());
        while wall.elapsed() < Duration::from_millis(200) {
            std::hint::black_box(0u64.wrapping_add(1));
        }
        let spinning = cpu_pct(thread_cpu_time() - cpu, wall.elapsed());
        // A loaded machine may take the core away for a while; the thread still spends most of the time on it.
        assert!((30.0..=101.0).contains(&spinning), "spinning thread at {spinning} %");
        let (cpu, wall) = (thread_cpu_time(), Instant::now());
        std::thread::sleep(Duration::from_millis(200));
        let sleeping = cpu_pct(thread_cpu_time() - cpu, wall.elapsed());
        assert!(sleeping < 5.0, "sleeping thread at {sleeping} %");
    }
}
