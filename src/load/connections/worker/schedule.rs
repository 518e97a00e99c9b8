//! The open model's schedule in the worker: each lane's requests fall due at the run's even schedule
//! (`(first lane + index) + slot × all lanes`, shifted by the schedule's phase, over the rate), requests go out when
//! due on a free lane, and the generator's own lateness is told apart from the target's.

use std::cmp::Reverse;
use std::time::{Duration, Instant};

use super::{Wire, Worker, micros};
use crate::load::connections::conn::State;

impl<P: Wire> Worker<'_, P> {
    /// Open model: send every scheduled request whose time has come on its idle connection, measuring how late the
    /// generator itself is (its slip: the connection was free, so any delay is this loop's).
    pub(super) fn send_what_is_due(&mut self) {
        while let Some(&Reverse((at, index))) = self.schedule.peek() {
            let now = Instant::now();
            if at > now || !self.before_end(at) {
                break;
            }
            self.schedule.pop();
            if self.conns[index].state == State::Idle {
                let slip = now.saturating_duration_since(at);
                self.recorder.slip(micros(slip));
                // The connection was free when the request fell due: the whole delay is the generator's, none of it
                // the target's, so its latency counts from now, and the connection is behind by the generator's fault.
                self.conns[index].behind_by_generator = slip;
                self.send(index, at + slip, now);
            }
        }
    }

    /// True when a request intended at `at` falls due within the run (before its deadline, if it has one).
    pub(super) fn before_end(&self, at: Instant) -> bool {
        self.deadline.is_none_or(|deadline| at < deadline)
    }

    /// The intended time of this connection's next scheduled request (open model), if it has one.
    pub(super) fn next_send_time(&self, index: usize) -> Option<Instant> {
        self.slot_time(index, self.conns[index].next_slot)
    }

    /// Open model: the intended time of this connection's `slot`-th request — the run's request number
    /// `first + slot·C` of an even schedule at the rate, shifted by its phase — or None when -n ends the schedule before it.
    pub(super) fn slot_time(&self, index: usize, slot: u64) -> Option<Instant> {
        let number = (self.assignment.first_lane + index) as u64 + slot * self.shared.total_lanes as u64;
        if self.shared.max_requests.is_some_and(|max| number >= max) {
            return None;
        }
        let at = (number as f64 + self.shared.schedule_phase) / self.shared.rate.expect("open model");
        Some(self.start + Duration::from_secs_f64(at))
    }

    /// Open model: how many of this connection's scheduled requests fell due before `end` (slots 0, 1, … whose
    /// intended time is earlier): estimated arithmetically, then settled on the exact times `slot_time` gives.
    pub(super) fn slots_due_before(&self, index: usize, end: Instant) -> u64 {
        let first = (self.assignment.first_lane + index) as f64;
        let connections = self.shared.total_lanes as f64;
        let requests_by_end =
            end.saturating_duration_since(self.start).as_secs_f64() * self.shared.rate.expect("open model");
        let mut due = ((requests_by_end - first) / connections).ceil().max(0.0) as u64;
        if let Some(max) = self.shared.max_requests {
            due = due.min((max as f64 - first).max(0.0).div_euclid(connections) as u64 + 1);
        }
        while due > 0 && self.slot_time(index, due - 1).is_none_or(|at| at >= end) {
            due -= 1;
        }
        while self.slot_time(index, due).is_some_and(|at| at < end) {
            due += 1;
        }
        due
    }

    /// Open model: a request due at `at` goes out at `now` on connection `index`, which has just become free (an
    /// answer, a reconnect). If it fell due before the generator's current batch of events arrived (`events_at`), the
    /// connection was still busy then; of that wait, as much as the connection was already behind by the generator's
    /// own delays is the generator's (it sent the earlier requests late), the rest the target's: only that counts as
    /// a late send. Whatever the generator took after it knew the connection was free — after that batch arrived, or
    /// after the due time if later — is its own too. That inherited part plus this one is the send's slip (recorded);
    /// the request's latency leaves it out (it counts from the due time plus the slip), and the connection is now
    /// behind by it.
    pub(super) fn count_lateness(&mut self, index: usize, at: Instant, now: Instant) -> Duration {
        let busy_wait = self.events_at.saturating_duration_since(at);
        let inherited = busy_wait.min(self.conns[index].behind_by_generator);
        if busy_wait > inherited {
            self.recorder.late += 1;
        }
        let slip = now.saturating_duration_since(at.max(self.events_at));
        let generators_part = inherited + slip;
        self.recorder.slip(micros(generators_part));
        self.conns[index].behind_by_generator = generators_part;
        generators_part
    }
}
