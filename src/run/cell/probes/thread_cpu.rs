//! The JVM's CPU by thread group over each phase, in every cell (docs/results.md, `thread_cpu`): its threads read from
//! `/proc/<pid>/task` as the phase starts and as it ends ([`ThreadSnapshot`], where the target runs, by the probe's
//! [`ThreadSensor`]), and the difference in cores for the collector's threads, the JIT compilers, the VM's own
//! threads and the application's — a collector that eats the cores, or a C2 compiler still busy in a measured
//! phase, shows here without JFR. Two reads of a few dozen small files per phase: nothing the load would see.

use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::{PhaseStarting, Probe, Sensor, ask};
use crate::jvm::thread_groups::ThreadSnapshot;
use crate::launcher::RunningTarget;
use crate::results::PhaseRecord;
use crate::run::cell::target_process::TargetProcess;

/// Where the JVM runs: reads its threads.
#[derive(Default)]
pub struct ThreadSensor;

#[derive(Debug, Serialize, Deserialize)]
pub enum ThreadCall {
    Read,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct ThreadAnswer {
    /// None: no JVM found, or it could not be read.
    pub snapshot: Option<ThreadSnapshot>,
}

impl Sensor for ThreadSensor {
    const NAME: &'static str = "threads";
    type Call = ThreadCall;
    type Answer = ThreadAnswer;

    fn answer(&mut self, target: &mut RunningTarget, _call: ThreadCall) -> ThreadAnswer {
        ThreadAnswer { snapshot: target.jvm_pid().and_then(ThreadSnapshot::read) }
    }
}

/// The probe every cell has.
#[derive(Default)]
pub struct ThreadCpu {
    sensor: ThreadSensor,
    phase_start: Option<ThreadSnapshot>,
}

impl ThreadCpu {
    fn read(&mut self, target: &Mutex<TargetProcess>) -> Option<ThreadSnapshot> {
        ask(target, &mut self.sensor, ThreadCall::Read)?.snapshot
    }
}

impl Probe for ThreadCpu {
    fn phase_started(&mut self, target: &Mutex<TargetProcess>, _phase: &PhaseStarting<'_>) {
        self.phase_start = self.read(target);
    }

    fn phase_ended(&mut self, target: &Mutex<TargetProcess>, record: &mut PhaseRecord) {
        let Some(start) = self.phase_start.take() else { return };
        record.thread_cpu = self.read(target).map(|end| end.cpu_since(&start));
    }
}
