//! The probe seam: whatever watches a cell's target over its life is a [`Probe`], and the cell drives every probe
//! the same way, through [`Probes`], without naming one. A probe says which JVM options it needs
//! ([`jvm_options`]), and what it does right after the target started, once it is ready, at each phase's start and
//! end (what it adds to the phase record), at each ladder step, after the last phase, around the stop, and at the
//! end (what it adds to the attribution's stops, and which files it wrote in the repeat's folder). Whatever it does
//! periodically runs on a thread of its own.
//!
//! The part of a probe that must run where the target runs (reading PerfData, /proc, the cgroup, attaching) is its
//! [`Sensor`]: typed calls and answers, answered here for a local target and by `jload agent target` on a target's
//! own server, where the calls and answers cross the link as serde values in one generic message
//! (`Request::Probe` / `Event::Probed`, [`crate::remote::messages`]); [`far_probe`] names every sensor the agent
//! may be asked for. The probes: [`jvm_sampling`] (PerfData into `gcstat.csv` and each phase's and step's
//! `JvmWindow`), [`target_box`] (the cgroup box: `box.csv`, its figures per phase, the throttled stretches, the
//! memory kill), [`native_memory`] (NMT into `nmt.csv` and each phase's read), [`thread_cpu`] (the JVM's CPU by
//! thread group over each phase) and [`flight_recorder`] (a JFR recording of each measured phase into
//! `<phase>.jfr`).

pub mod flight_recorder;
pub mod jvm_sampling;
pub mod native_memory;
pub mod target_box;
pub mod thread_cpu;

use std::path::Path;
use std::sync::{Arc, Mutex};

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::target_process::TargetProcess;
use crate::attribution::gather::JvmStops;
use crate::jvm::clock::{ClockInterval, ClockSource};
use crate::launcher::RunningTarget;
use crate::load::search::ladder::TargetCounters;
use crate::plan::matrix::Cell;
use crate::plan::{Plan, box_limits::unlimited};
use crate::remote::agent::FarProbe;
use crate::results::{ExitInfo, PhaseRecord, RepMeta};

/// The probes of one cell-repeat of `plan` whose JVM options are `options` (all of them, jload's included), in the
/// order they are driven: the JVM's sampling first (it finds the JVM's clock the others use), its threads' CPU, then
/// the box where the cell has one, native memory where the JVM tracks it, and the flight recorder where the plan
/// records.
pub fn for_cell(plan: &Plan, cell: &Cell, options: &[String]) -> Probes {
    let mut probes: Vec<Box<dyn Probe>> =
        vec![Box::new(jvm_sampling::JvmSampling::default()), Box::new(thread_cpu::ThreadCpu::default())];
    if !unlimited(&cell.limits) {
        probes.push(Box::new(target_box::TargetBox::default()));
    }
    if native_memory::tracked(options) {
        probes.push(Box::new(native_memory::NativeMemory::default()));
    }
    if plan.target.records_flight() {
        probes.push(Box::new(flight_recorder::FlightRecorder::default()));
    }
    Probes(probes)
}

/// The JVM options the probes need, after the plan's, the cell's and jload's own (`options`).
pub fn jvm_options(plan: &Plan, cell: &Cell, options: &[String]) -> Vec<String> {
    native_memory::jvm_options(plan, cell, options)
}

/// The far side of the probe named `name`, for `jload agent target` (None: no such probe).
pub fn far_probe(name: &str) -> Option<Box<dyn FarProbe>> {
    match name {
        jvm_sampling::JvmSensor::NAME => Some(Box::new(jvm_sampling::JvmSensor::default())),
        target_box::BoxSensor::NAME => Some(Box::new(target_box::BoxSensor::default())),
        native_memory::NmtSensor::NAME => Some(Box::new(native_memory::NmtSensor::default())),
        flight_recorder::JfrSensor::NAME => Some(Box::new(flight_recorder::JfrSensor::default())),
        thread_cpu::ThreadSensor::NAME => Some(Box::new(thread_cpu::ThreadSensor)),
        _ => None,
    }
}

/// The part of a probe that runs where the target runs: it answers typed calls, here directly and on a target's
/// server through the agent (the call and the answer as serde values).
pub trait Sensor: Default + Send + 'static {
    /// The probe's name on the link.
    const NAME: &'static str;
    type Call: Serialize + DeserializeOwned;
    type Answer: Serialize + DeserializeOwned;

    fn answer(&mut self, target: &mut RunningTarget, call: Self::Call) -> Self::Answer;

    /// The target's tree has been stopped: end what runs in the background (a last row, files flushed).
    fn target_stopped(&mut self, _target: &mut RunningTarget) {}
}

impl<S: Sensor> FarProbe for S {
    fn answer_value(&mut self, target: &mut RunningTarget, call: serde_json::Value) -> Option<serde_json::Value> {
        let call = serde_json::from_value(call).ok()?;
        serde_json::to_value(self.answer(target, call)).ok()
    }

    fn stopped(&mut self, target: &mut RunningTarget) {
        self.target_stopped(target);
    }
}

/// A call to a probe's sensor: answered here for a local target (`here` is the probe's own sensor), by the agent
/// for a remote one. None when a remote target's agent did not answer.
pub fn ask<S: Sensor>(target: &Mutex<TargetProcess>, here: &mut S, call: S::Call) -> Option<S::Answer> {
    match &mut *target.lock().expect("target") {
        TargetProcess::Local(local) => Some(here.answer(local, call)),
        TargetProcess::Remote(remote) => remote.probe(S::NAME, &call),
    }
}

/// A call made only for a local target (what a remote target's agent keeps to itself); None for a remote one.
pub fn ask_here<S: Sensor>(target: &Mutex<TargetProcess>, here: &mut S, call: S::Call) -> Option<S::Answer> {
    match &mut *target.lock().expect("target") {
        TargetProcess::Local(local) => Some(here.answer(local, call)),
        TargetProcess::Remote(_) => None,
    }
}

/// Tell a local target's sensor that the target has stopped (a remote target's agent tells its own).
pub fn stopped_here<S: Sensor>(target: &Mutex<TargetProcess>, here: &mut S) {
    if let TargetProcess::Local(local) = &mut *target.lock().expect("target") {
        here.target_stopped(local);
    }
}

/// A phase as it starts, as the probes see it.
pub struct PhaseStarting<'a> {
    pub name: &'a str,
    /// Whether its figures are the cell's (the fill and warm-ups are not).
    pub measured: bool,
}

/// What a probe learns, and may change, once the target is ready.
pub struct Ready<'a> {
    pub target: &'a Arc<Mutex<TargetProcess>>,
    /// The cell-repeat's folder where the target runs (on its server for a remote target).
    pub target_dir: &'a Path,
    /// The cell-repeat's folder here.
    pub dir: &'a Path,
    /// The JVM's uptime 0 on the wall clock of its machine, as PerfData gives it: found by the JVM's sampling,
    /// read by the probes after it.
    pub clock: Option<(ClockSource, ClockInterval)>,
    pub meta: &'a mut RepMeta,
}

impl Ready<'_> {
    /// The JVM's uptime 0 (µs since the epoch, on its machine's clock), where PerfData gave it.
    pub fn uptime_zero_unix_us(&self) -> Option<i64> {
        self.clock.map(|(_, interval)| interval.middle_us())
    }
}

/// Whatever watches a target over its life. Every step has a default that does nothing.
pub trait Probe: Send {
    /// What `--dry-run` says of the probe, if anything.
    fn dry_run_line(&self) -> Option<String> {
        None
    }

    /// Right after the target started, before it is ready; `target_dir` is its folder where it runs.
    fn started(&mut self, _target: &Mutex<TargetProcess>, _target_dir: &Path) {}

    /// Once the target is ready, before its first phase.
    fn ready(&mut self, _ready: &mut Ready<'_>) {}

    /// A phase starts.
    fn phase_started(&mut self, _target: &Mutex<TargetProcess>, _phase: &PhaseStarting<'_>) {}

    /// A ladder step starts.
    fn step_started(&mut self, _target: &Mutex<TargetProcess>) {}

    /// A ladder step has ended.
    fn step_finished(&mut self, _target: &Mutex<TargetProcess>) {}

    /// The target's counters for the capacity search's steadiness rule (the first probe that has them gives them).
    fn counters(&mut self, _target: &Mutex<TargetProcess>) -> Option<TargetCounters> {
        None
    }

    /// A phase has ended: what the probe adds to its record.
    fn phase_ended(&mut self, _target: &Mutex<TargetProcess>, _record: &mut PhaseRecord) {}

    /// The last phase has ended (or the phases were cut short), before the target is stopped.
    fn phases_done(&mut self, _target: &Mutex<TargetProcess>) {}

    /// The target is about to be stopped (a remote target's agent still answers).
    fn before_stop(&mut self, _target: &Mutex<TargetProcess>) {}

    /// The target's tree has been stopped.
    fn after_stop(&mut self, _target: &Mutex<TargetProcess>) {}

    /// The cause when what this probe watches killed the target (a SIGKILL by the box's memory limit).
    fn killed_by(&mut self, _target: &Mutex<TargetProcess>, _exit: &ExitInfo) -> Option<String> {
        None
    }

    /// What the probe saw last, appended to a kill's cause.
    fn left_by_a_kill(&self) -> Option<String> {
        None
    }

    /// The attribution's stops with what this probe adds (`dir`: the cell-repeat's folder here).
    fn stops(&self, stops: JvmStops, _dir: &Path) -> JvmStops {
        stops
    }

    /// The cell-repeat's files are home (`dir`: its folder here): what the probe adds to a phase's stored record
    /// from them.
    fn complete(&self, _dir: &Path, _record: &mut PhaseRecord) {}
}

/// Every probe of a cell-repeat, each step driven in their order.
pub struct Probes(Vec<Box<dyn Probe>>);

impl Probes {
    pub fn dry_run_lines(&self) -> Vec<String> {
        self.0.iter().filter_map(|probe| probe.dry_run_line()).collect()
    }

    pub fn started(&mut self, target: &Mutex<TargetProcess>, target_dir: &Path) {
        self.0.iter_mut().for_each(|probe| probe.started(target, target_dir));
    }

    pub fn ready(&mut self, ready: &mut Ready<'_>) {
        self.0.iter_mut().for_each(|probe| probe.ready(ready));
    }

    pub fn phase_started(&mut self, target: &Mutex<TargetProcess>, phase: &PhaseStarting<'_>) {
        self.0.iter_mut().for_each(|probe| probe.phase_started(target, phase));
    }

    pub fn step_started(&mut self, target: &Mutex<TargetProcess>) {
        self.0.iter_mut().for_each(|probe| probe.step_started(target));
    }

    pub fn step_finished(&mut self, target: &Mutex<TargetProcess>) {
        self.0.iter_mut().for_each(|probe| probe.step_finished(target));
    }

    pub fn counters(&mut self, target: &Mutex<TargetProcess>) -> Option<TargetCounters> {
        self.0.iter_mut().find_map(|probe| probe.counters(target))
    }

    pub fn phase_ended(&mut self, target: &Mutex<TargetProcess>, record: &mut PhaseRecord) {
        self.0.iter_mut().for_each(|probe| probe.phase_ended(target, record));
    }

    pub fn phases_done(&mut self, target: &Mutex<TargetProcess>) {
        self.0.iter_mut().for_each(|probe| probe.phases_done(target));
    }

    pub fn before_stop(&mut self, target: &Mutex<TargetProcess>) {
        self.0.iter_mut().for_each(|probe| probe.before_stop(target));
    }

    pub fn after_stop(&mut self, target: &Mutex<TargetProcess>) {
        self.0.iter_mut().for_each(|probe| probe.after_stop(target));
    }

    /// The cause when a probe's watched resource killed the target, with what every probe saw last.
    pub fn kill_cause(&mut self, target: &Mutex<TargetProcess>, exit: &ExitInfo) -> Option<String> {
        let cause = self.0.iter_mut().find_map(|probe| probe.killed_by(target, exit))?;
        Some(self.0.iter().filter_map(|probe| probe.left_by_a_kill()).fold(cause, |cause, left| cause + &left))
    }

    pub fn stops(&self, stops: JvmStops, dir: &Path) -> JvmStops {
        self.0.iter().fold(stops, |stops, probe| probe.stops(stops, dir))
    }

    pub fn complete(&self, dir: &Path, record: &mut PhaseRecord) {
        self.0.iter().for_each(|probe| probe.complete(dir, record));
    }
}

#[cfg(test)]
mod tests {
    use super::flight_recorder::JfrSensor;
    use super::thread_cpu::ThreadSensor;
    use super::{Sensor, far_probe, jvm_sampling::JvmSensor, native_memory::NmtSensor, target_box::BoxSensor};

    #[test]
    fn the_agent_finds_every_probe_s_far_side_by_its_name_and_no_other() {
        let names = [JvmSensor::NAME, BoxSensor::NAME, NmtSensor::NAME, JfrSensor::NAME, ThreadSensor::NAME];
        assert!(names.iter().all(|name| far_probe(name).is_some()), "{names:?}");
        let mut unique = names.to_vec();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), names.len(), "one name each: {names:?}");
        assert!(far_probe("flight-recorder").is_none());
        assert!(far_probe("no-such-probe").is_none());
    }

    #[test]
    fn a_call_crosses_the_link_as_a_serde_value_and_back() {
        let call = super::jvm_sampling::JvmCall::Mark { id: 7, or_last_after: Some(3) };
        let value = serde_json::to_value(&call).unwrap();
        assert_eq!(value, serde_json::json!({"Mark": {"id": 7, "or_last_after": 3}}));
        let back: super::jvm_sampling::JvmCall = serde_json::from_value(value).unwrap();
        assert!(matches!(back, super::jvm_sampling::JvmCall::Mark { id: 7, or_last_after: Some(3) }));
    }
}
