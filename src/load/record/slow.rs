//! The slow requests of a run, one by one, in bounded memory: every request slower than a threshold that rises as the
//! store fills. Each keeps when it ended and how long it took (on the run's clock, microseconds from the engine's
//! start instant), so that the requests of the tail can be laid over the JVM's pauses, stalls and safepoints on the
//! same clock (`crate::attribution`). Everything else stays in the histograms.
//!
//! The rule: the store keeps *every* request whose latency is above `threshold_us`. It starts at 0 (every request is
//! kept); when the store is full, the faster half is dropped and the threshold becomes the latency that split them.
//! So at any time the store holds exactly the requests slower than its threshold — an exact tail, never a sample —
//! and its memory is fixed by its capacity, however long the run.

use std::time::Instant;

use serde::{Deserialize, Serialize};

/// Requests each worker thread keeps at most: 128 Ki × 24 bytes = 3 MiB per thread. After a halving it holds half,
/// so the exact tail it keeps is at least 64 Ki requests per thread: every request above p99 of a run of 6.5 million
/// requests per thread, every one above p99.9 of 65 million.
pub const CAPACITY_PER_THREAD: usize = 128 * 1024;

/// One slow request. `done_us - latency_us` is when its latency began (its intended send time in the open model, as
/// the latency counts it: the generator's own slip left out), `done_us - service_us` when it was actually sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlowRequest {
    /// When the response (or the timeout) came, in microseconds since the run's start instant.
    pub done_us: u64,
    /// The latency recorded for it (microseconds).
    pub latency_us: u32,
    /// From the actual send to `done_us` (microseconds).
    pub service_us: u32,
    /// Index of its request in the run's request set (0 for a single URL).
    pub request: u16,
    /// It failed: a timeout (its latency is the wait until the timeout expired) or an error status.
    pub failed: bool,
}

impl SlowRequest {
    /// A request of index `request` in the run's set that finished at `done` (the run started at `start`), with its
    /// latencies in µs (clamped to what the fields hold).
    pub fn finished(
        request: usize,
        start: Instant,
        done: Instant,
        latency_us: u64,
        service_us: u64,
        failed: bool,
    ) -> Self {
        let since_start = done.saturating_duration_since(start).as_micros();
        SlowRequest::at(request, u64::try_from(since_start).unwrap_or(u64::MAX), latency_us, service_us, failed)
    }

    /// A request whose end is `done_us` after the run's start instant (times beyond the fields' range are clamped).
    pub fn at(request: usize, done_us: u64, latency_us: u64, service_us: u64, failed: bool) -> Self {
        let clamp = |us: u64| u32::try_from(us).unwrap_or(u32::MAX);
        SlowRequest {
            done_us,
            latency_us: clamp(latency_us),
            service_us: clamp(service_us),
            request: u16::try_from(request).unwrap_or(u16::MAX),
            failed,
        }
    }

    /// When its latency began, in microseconds since the run's start (may be negative by rounding: clamped at 0).
    pub fn began_us(&self) -> u64 {
        self.done_us.saturating_sub(u64::from(self.latency_us))
    }
}

/// What a result's JSON says of its slow requests (the requests themselves go to their own file): every request above
/// `threshold_us` was kept, `kept` of them, out of `offered`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlowTailInfo {
    pub threshold_us: u64,
    pub kept: u64,
    pub offered: u64,
}

/// The exact tail of a run's latencies: every request slower than `threshold_us`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SlowRequests {
    /// Every request with a latency above this was kept (0: every request was).
    pub threshold_us: u64,
    /// The kept requests, in no particular order.
    pub kept: Vec<SlowRequest>,
    /// Every request offered, kept or not: the count the tail's ranks are taken from.
    pub offered: u64,
    capacity: usize,
}

impl SlowRequests {
    pub fn with_capacity(capacity: usize) -> SlowRequests {
        assert!(capacity >= 2, "a store of slow requests holds at least two");
        SlowRequests { threshold_us: 0, kept: Vec::with_capacity(capacity), offered: 0, capacity }
    }

    /// Keep the request if it is slower than the threshold; when the store is full, drop its faster half first.
    #[inline]
    pub fn offer(&mut self, request: SlowRequest) {
        self.offered += 1;
        if u64::from(request.latency_us) <= self.threshold_us {
            return;
        }
        if self.kept.len() == self.capacity {
            self.drop_faster_half();
            if u64::from(request.latency_us) <= self.threshold_us {
                return;
            }
        }
        self.kept.push(request);
    }

    /// Raise the threshold to the lower median latency and keep only the requests above it. When more than half share the
    /// median latency the threshold still rises to it, dropping more than half.
    fn drop_faster_half(&mut self) {
        let middle = (self.kept.len() - 1) / 2;
        let (_, median, _) = self.kept.select_nth_unstable_by_key(middle, |r| r.latency_us);
        self.threshold_us = u64::from(median.latency_us);
        let threshold = self.threshold_us;
        self.kept.retain(|r| u64::from(r.latency_us) > threshold);
    }

    pub fn info(&self) -> SlowTailInfo {
        SlowTailInfo { threshold_us: self.threshold_us, kept: self.kept.len() as u64, offered: self.offered }
    }

    /// The store a result's JSON describes, with its requests read back from their file.
    pub fn from_parts(info: SlowTailInfo, kept: Vec<SlowRequest>) -> SlowRequests {
        let capacity = kept.len().max(2);
        SlowRequests { threshold_us: info.threshold_us, kept, offered: info.offered, capacity }
    }

    /// Keep at most `count` requests, the slowest: the threshold rises to the latency of the fastest one dropped (ties
    /// with it are dropped too, so that the store still holds exactly the requests above its threshold).
    pub fn keep_slowest(&mut self, count: usize) {
        if self.kept.len() <= count {
            return;
        }
        let (_, first_dropped, _) = self.kept.select_nth_unstable_by_key(count, |r| std::cmp::Reverse(r.latency_us));
        self.threshold_us = self.threshold_us.max(u64::from(first_dropped.latency_us));
        let threshold = self.threshold_us;
        self.kept.retain(|r| u64::from(r.latency_us) > threshold);
        self.kept.shrink_to_fit();
    }

    /// Merge another thread's store: the result keeps exactly the requests above the higher of the two thresholds
    /// (below it, one of the two may have dropped some). The capacity grows to hold both.
    pub fn merge(&mut self, other: &SlowRequests) {
        self.threshold_us = self.threshold_us.max(other.threshold_us);
        self.capacity += other.capacity;
        self.offered += other.offered;
        self.kept.extend_from_slice(&other.kept);
        let threshold = self.threshold_us;
        self.kept.retain(|r| u64::from(r.latency_us) > threshold);
    }

    /// The kept requests, slowest first (ties: the earlier first).
    pub fn slowest_first(&self) -> Vec<SlowRequest> {
        let mut sorted = self.kept.clone();
        sorted.sort_by(|a, b| b.latency_us.cmp(&a.latency_us).then(a.done_us.cmp(&b.done_us)));
        sorted
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(done_us: u64, latency_us: u32) -> SlowRequest {
        SlowRequest { done_us, latency_us, service_us: latency_us, request: 0, failed: false }
    }

    #[test]
    fn below_capacity_every_request_is_kept() {
        let mut store = SlowRequests::with_capacity(4);
        for latency in [5, 1, 3] {
            store.offer(request(10, latency));
        }
        assert_eq!((store.threshold_us, store.kept.len(), store.offered), (0, 3, 3));
    }

    #[test]
    fn a_full_store_drops_its_faster_half_and_keeps_exactly_the_requests_above_the_new_threshold() {
        let mut store = SlowRequests::with_capacity(4);
        for (i, latency) in [40, 10, 30, 20, 25].into_iter().enumerate() {
            store.offer(request(i as u64, latency));
        }
        // Full at 40, 10, 30, 20: the lower median of 10, 20, 30, 40 is 20; 40 and 30 stay, then 25 is above 20.
        assert_eq!(store.threshold_us, 20);
        assert_eq!(store.slowest_first(), vec![request(0, 40), request(2, 30), request(4, 25)]);
    }

    #[test]
    fn the_kept_requests_are_the_exact_tail_of_a_long_run() {
        let mut store = SlowRequests::with_capacity(64);
        // 10,000 requests with latencies 1..=10,000 in a scrambled order.
        let latencies: Vec<u32> = (0..10_000u32).map(|i| (i * 7_919) % 10_000 + 1).collect();
        for (i, &latency) in latencies.iter().enumerate() {
            store.offer(request(i as u64, latency));
        }
        let above = latencies.iter().filter(|&&l| u64::from(l) > store.threshold_us).count();
        assert_eq!(store.kept.len(), above, "every request above the threshold, and only those");
        assert!(store.kept.len() >= 32 && store.kept.len() <= 64, "{}", store.kept.len());
        assert_eq!(store.slowest_first()[0].latency_us, 10_000);
    }

    #[test]
    fn keeping_the_slowest_drops_the_rest_and_their_ties() {
        let mut store = SlowRequests::with_capacity(8);
        for (i, latency) in [7, 3, 9, 5, 5, 1].into_iter().enumerate() {
            store.offer(request(i as u64, latency));
        }
        store.keep_slowest(3);
        // The three slowest are 9, 7 and a 5; the other 5 ties with it, so both go and the threshold is 5.
        assert_eq!(store.threshold_us, 5);
        assert_eq!(store.slowest_first(), vec![request(2, 9), request(0, 7)]);
    }

    #[test]
    fn merging_keeps_the_requests_above_the_higher_threshold() {
        let mut first = SlowRequests::with_capacity(4);
        first.threshold_us = 20;
        first.kept = vec![request(1, 25), request(2, 50)];
        let mut second = SlowRequests::with_capacity(4);
        second.threshold_us = 30;
        second.kept = vec![request(3, 35)];
        first.merge(&second);
        assert_eq!(first.threshold_us, 30);
        assert_eq!(first.slowest_first(), vec![request(2, 50), request(3, 35)]);
    }
}
