//! The target JVM sampled through its PerfData over the cell-repeat (docs/results.md, `gcstat.csv`): once it is
//! ready, its JVM is found in the target's tree and sampled every second into `gcstat.csv` where it runs; each
//! phase and each ladder step is a window between two marks (extra samples at its exact edges), summarised into the
//! phase record's `jvm` and `step_jvm`; and the capacity search reads a local JVM's collections and JIT time from a
//! mark (its steadiness rule). Where PerfData puts the JVM's uptime 0 on the wall clock is the clock every other
//! probe and the attribution use.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::{PhaseStarting, Probe, Ready, Sensor, ask, ask_here, stopped_here};
use crate::jvm::clock::{self, ClockInterval, ClockSource};
use crate::jvm::perfdata::sampler::JvmSample;
use crate::jvm::watch::JvmWatch;
use crate::jvm::watch::window::JvmWindow;
use crate::launcher::RunningTarget;
use crate::load::search::ladder::TargetCounters;
use crate::results::{PhaseRecord, RepFiles};
use crate::run::cell::target_process::TargetProcess;

/// Where the JVM runs: its watch and the marks taken on it, by number.
#[derive(Default)]
pub struct JvmSensor {
    watch: Option<JvmWatch>,
    marks: HashMap<u64, Option<JvmSample>>,
}

#[derive(Debug, Serialize, Deserialize)]
pub enum JvmCall {
    /// Find the target's JVM and sample it every second into `csv`.
    Watch { csv: PathBuf },
    /// Sample now and keep the sample as mark `id`; when the JVM cannot be sampled any more, the last periodic
    /// sample after mark `or_last_after`, if given.
    Mark { id: u64, or_last_after: Option<u64> },
    /// The window between two marks.
    Window { start: u64, end: u64 },
    /// The JVM's collections of each kind and its JIT time, sampled now.
    Counters,
}

#[derive(Debug, Serialize, Deserialize)]
pub enum JvmAnswer {
    /// Whether a JVM with PerfData was found and is watched, and its uptime 0 on the wall clock.
    Watching {
        found: bool,
        clock: Option<(ClockSource, ClockInterval)>,
    },
    Marked {
        taken: bool,
    },
    Window {
        window: Option<Box<JvmWindow>>,
    },
    /// The JVM's collections so far by kind (young, full, concurrent; None where its collector has no such kind).
    Counters {
        collections: [Option<u64>; 3],
        jit_compile_s: Option<f64>,
    },
    /// No JVM is watched, or it cannot be sampled.
    Nothing,
}

impl Sensor for JvmSensor {
    const NAME: &'static str = "jvm";
    type Call = JvmCall;
    type Answer = JvmAnswer;

    fn answer(&mut self, target: &mut RunningTarget, call: JvmCall) -> JvmAnswer {
        match call {
            JvmCall::Watch { csv } => {
                let jvm_pid = target.jvm_pid();
                let clock = jvm_pid.and_then(clock::from_perfdata);
                self.watch = jvm_pid.and_then(|pid| {
                    JvmWatch::start(pid, Duration::from_secs(1), Some(csv), Duration::from_secs(5)).ok()
                });
                JvmAnswer::Watching { found: self.watch.is_some(), clock }
            }
            JvmCall::Mark { id, or_last_after } => {
                let Some(watch) = &self.watch else { return JvmAnswer::Nothing };
                let last_after = |start: u64| self.marks.get(&start)?.as_ref().and_then(|s| watch.last_sample_after(s));
                let sample = watch.mark().or_else(|| or_last_after.and_then(last_after));
                let taken = sample.is_some();
                self.marks.insert(id, sample);
                JvmAnswer::Marked { taken }
            }
            JvmCall::Window { start, end } => {
                let window = match (&self.watch, self.marks.get(&start), self.marks.get(&end)) {
                    (Some(watch), Some(Some(start)), Some(Some(end))) => Some(Box::new(watch.window(start, end))),
                    _ => None,
                };
                JvmAnswer::Window { window }
            }
            JvmCall::Counters => match self.watch.as_ref().and_then(JvmWatch::mark) {
                Some(sample) => {
                    let gc = &sample.collections;
                    JvmAnswer::Counters { collections: [gc.ygc, gc.fgc, gc.cgc], jit_compile_s: sample.jit_compile_s }
                }
                None => JvmAnswer::Nothing,
            },
        }
    }

    fn target_stopped(&mut self, _target: &mut RunningTarget) {
        self.watch = None; // stops the sampling thread and flushes gcstat.csv
        self.marks.clear();
    }
}

/// The probe: the watch's state as the cell sees it.
#[derive(Default)]
pub struct JvmSampling {
    sensor: JvmSensor,
    watching: bool,
    next_mark: u64,
    phase_start: Option<u64>,
    step_start: Option<u64>,
    /// Each ladder step's window this phase (None where the JVM could not be sampled).
    step_windows: Vec<Option<JvmWindow>>,
}

impl JvmSampling {
    /// A mark now (see [`JvmCall::Mark`]); None when the JVM is not watched or could not be sampled.
    fn mark(&mut self, target: &Mutex<TargetProcess>, or_last_after: Option<u64>) -> Option<u64> {
        if !self.watching {
            return None;
        }
        let id = self.next_mark;
        self.next_mark += 1;
        match ask(target, &mut self.sensor, JvmCall::Mark { id, or_last_after }) {
            Some(JvmAnswer::Marked { taken: true }) => Some(id),
            _ => None,
        }
    }

    fn window(&mut self, target: &Mutex<TargetProcess>, start: u64, end: u64) -> Option<JvmWindow> {
        match ask(target, &mut self.sensor, JvmCall::Window { start, end }) {
            Some(JvmAnswer::Window { window }) => window.map(|window| *window),
            _ => None,
        }
    }
}

impl Probe for JvmSampling {
    fn ready(&mut self, ready: &mut Ready<'_>) {
        let csv = RepFiles::of(ready.target_dir).gcstat();
        if let Some(JvmAnswer::Watching { found, clock }) = ask(ready.target, &mut self.sensor, JvmCall::Watch { csv })
        {
            self.watching = found;
            ready.clock = clock;
        }
        if !self.watching {
            ready.meta.cause = Some(
                "no JVM with PerfData found in the target's process tree (is the JVM started with {jvm}?); GC \
                 columns are empty"
                    .to_string(),
            );
        }
    }

    fn phase_started(&mut self, target: &Mutex<TargetProcess>, _phase: &PhaseStarting<'_>) {
        self.phase_start = self.mark(target, None);
        self.step_windows.clear();
    }

    fn step_started(&mut self, target: &Mutex<TargetProcess>) {
        self.step_start = self.mark(target, None);
    }

    fn step_finished(&mut self, target: &Mutex<TargetProcess>) {
        let window = match self.step_start.take() {
            Some(start) => self.mark(target, None).and_then(|end| self.window(target, start, end)),
            None => None,
        };
        self.step_windows.push(window);
    }

    fn counters(&mut self, target: &Mutex<TargetProcess>) -> Option<TargetCounters> {
        if !self.watching {
            return None;
        }
        match ask_here(target, &mut self.sensor, JvmCall::Counters)? {
            JvmAnswer::Counters { collections: [young, full, concurrent], jit_compile_s } => {
                let kinds = [("young", young), ("full", full), ("concurrent", concurrent)];
                let collections = kinds.into_iter().filter_map(|(kind, count)| Some((kind, count?))).collect();
                Some(TargetCounters { collections, jit_compile_s })
            }
            _ => None,
        }
    }

    /// The phase's window, its end a mark now — else, for a local JVM that died, its last periodic sample since the
    /// start, so the phase it died in keeps its figures up to then — and its steps' windows.
    fn phase_ended(&mut self, target: &Mutex<TargetProcess>, record: &mut PhaseRecord) {
        record.jvm = match self.phase_start.take() {
            Some(start) => {
                let here = matches!(&*target.lock().expect("target"), TargetProcess::Local(_));
                let end = self.mark(target, here.then_some(start));
                end.and_then(|end| self.window(target, start, end))
            }
            None => None,
        };
        let steps = std::mem::take(&mut self.step_windows);
        record.step_jvm = if steps.iter().any(Option::is_some) { steps } else { Vec::new() };
    }

    /// A local JVM's watch ends with the phases; a remote target's agent ends its own at the stop.
    fn phases_done(&mut self, target: &Mutex<TargetProcess>) {
        stopped_here(target, &mut self.sensor);
        self.watching = false;
    }
}
