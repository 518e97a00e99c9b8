//! The target's cgroup box as the cell watches it (docs/containers.md): from the start, `box.csv` a row a second and
//! the stretches its CPU quota held the target back (a [`BoxWatch`] where the target runs); its figures at each
//! phase's end for the phase record; the throttled stretches for the attribution; and whether the kernel killed the
//! target for the box's memory limit — a SIGKILL while the box's OOM-kill count rose; a SIGKILL without one is no
//! memory kill. Before the sweep, every box of the plan is checked ([`check_boxes`]).

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::{PhaseStarting, Probe, Ready, Sensor, ask, stopped_here};
use crate::attribution::gather::JvmStops;
use crate::cgroup::box_watch::{self, BoxWatch};
use crate::cgroup::{BoxSample, CpuFigures};
use crate::error::bad_input;
use crate::launcher::{RunningTarget, check_box, remove_stale_boxes};
use crate::plan::box_limits::{mebibytes, unlimited};
use crate::plan::matrix::Cell;
use crate::remote::server::RemoteServer;
use crate::results::{BoxFigures, ExitInfo, PhaseRecord, RepFiles};
use crate::run::cell::target_process::TargetProcess;

/// Where the box is: its watch over the target's life.
#[derive(Default)]
pub struct BoxSensor {
    watch: Option<BoxWatch>,
}

#[derive(Debug, Serialize, Deserialize)]
pub enum BoxCall {
    /// Watch the box from now on, `box.csv` into `csv`.
    Watch { csv: PathBuf },
    /// From now on, `box.csv`'s rows carry the JVM's uptime (wall-clock µs at its uptime 0).
    UptimeZero { unix_us: i64 },
    /// The box's figures now.
    Sample,
    /// The stretches the quota held the box back so far (µs since the epoch, start and end).
    Throttled,
}

#[derive(Debug, Serialize, Deserialize)]
pub enum BoxAnswer {
    Done,
    /// None: no box, or it cannot be read.
    Sample {
        sample: Option<BoxSample>,
    },
    Throttled {
        spans: Vec<(i64, i64)>,
    },
}

impl Sensor for BoxSensor {
    const NAME: &'static str = "box";
    type Call = BoxCall;
    type Answer = BoxAnswer;

    fn answer(&mut self, target: &mut RunningTarget, call: BoxCall) -> BoxAnswer {
        match call {
            BoxCall::Watch { csv } => {
                let cpus = box_watch::allowed_cpus(target.pid);
                self.watch = target.box_reader().and_then(|reader| BoxWatch::start(reader, Some(csv), cpus).ok());
                BoxAnswer::Done
            }
            BoxCall::UptimeZero { unix_us } => {
                if let Some(watch) = &self.watch {
                    watch.set_uptime_zero(unix_us);
                }
                BoxAnswer::Done
            }
            BoxCall::Sample => BoxAnswer::Sample { sample: target.box_sample() },
            BoxCall::Throttled => {
                let spans = self.watch.as_ref().map(BoxWatch::throttled).unwrap_or_default();
                BoxAnswer::Throttled {
                    spans: spans.iter().map(|span| (span.start_unix_us, span.end_unix_us)).collect(),
                }
            }
        }
    }

    /// The box's last row, once the tree is stopped (its throttled stretches stay readable).
    fn target_stopped(&mut self, _target: &mut RunningTarget) {
        if let Some(watch) = self.watch.as_mut() {
            watch.finish();
        }
    }
}

/// The probe of a cell with a box.
#[derive(Default)]
pub struct TargetBox {
    sensor: BoxSensor,
    /// The box as the phase began.
    at_phase_start: Option<BoxSample>,
    /// The box right before the stop (a remote target's box goes with its agent); None until then.
    at_end: Option<Option<BoxSample>>,
    /// The stretches the quota held the target back (a local target's; a remote agent keeps its own).
    throttled: Vec<(i64, i64)>,
}

impl TargetBox {
    fn sample(&mut self, target: &Mutex<TargetProcess>) -> Option<BoxSample> {
        match ask(target, &mut self.sensor, BoxCall::Sample)? {
            BoxAnswer::Sample { sample } => sample,
            _ => None,
        }
    }
}

impl Probe for TargetBox {
    fn started(&mut self, target: &Mutex<TargetProcess>, target_dir: &Path) {
        ask(target, &mut self.sensor, BoxCall::Watch { csv: RepFiles::of(target_dir).box_csv() });
    }

    fn ready(&mut self, ready: &mut Ready<'_>) {
        if let Some(unix_us) = ready.uptime_zero_unix_us() {
            ask(ready.target, &mut self.sensor, BoxCall::UptimeZero { unix_us });
        }
    }

    fn phase_started(&mut self, target: &Mutex<TargetProcess>, _phase: &PhaseStarting<'_>) {
        self.at_phase_start = self.sample(target);
    }

    /// The box's figures now, with what the phase saw of its CPU quota since its start.
    fn phase_ended(&mut self, target: &Mutex<TargetProcess>, record: &mut PhaseRecord) {
        let at_start = self.at_phase_start.take();
        record.cell_box = self.sample(target).map(|now| {
            with_phase_throttling(
                figures(&now),
                at_start.as_ref().and_then(|start| start.cpu.as_ref()),
                now.cpu.as_ref(),
            )
        });
    }

    fn before_stop(&mut self, target: &Mutex<TargetProcess>) {
        self.at_end = Some(self.sample(target));
    }

    fn after_stop(&mut self, target: &Mutex<TargetProcess>) {
        stopped_here(target, &mut self.sensor);
        if let Some(BoxAnswer::Throttled { spans }) = ask(target, &mut self.sensor, BoxCall::Throttled) {
            self.throttled = spans;
        }
    }

    /// See [`memory_kill_cause`]: judged on the box right before the stop, else (the target ended before it was
    /// ready) on the box now.
    fn killed_by(&mut self, target: &Mutex<TargetProcess>, exit: &ExitInfo) -> Option<String> {
        let sample = match &self.at_end {
            Some(at_end) => at_end.clone(),
            None => self.sample(target),
        };
        memory_kill_cause(sample.as_ref(), exit)
    }

    fn stops(&self, stops: JvmStops, _dir: &Path) -> JvmStops {
        stops.with_throttled(self.throttled.clone())
    }
}

/// Before anything starts, at every `jload run`: the boxes a killed jload left behind are removed (here, and on the
/// target's servers), and where a cell has a box, its machine must be able to make it — else one line naming what is
/// missing (bad input, exit 2).
pub fn check_boxes(cells: &[Cell], servers: &[RemoteServer]) -> anyhow::Result<()> {
    let removed = remove_stale_boxes();
    if !removed.is_empty() {
        say!("jload: removed cgroup box(es) left by a jload that was killed: {}", removed.join(", "));
    }
    let boxed: Vec<&Cell> = cells.iter().filter(|cell| !unlimited(&cell.limits)).collect();
    if servers.is_empty() {
        for cell in &boxed {
            check_box(&cell.limits).map_err(|err| bad_input(format!("cell '{}': {err}", cell.id)))?;
        }
    } else if !boxed.is_empty() {
        let quota = boxed.iter().any(|cell| cell.limits.cpus_quota.is_some());
        for server in servers {
            server.check_boxes(quota).map_err(|err| bad_input(format!("target host {err:#}")))?;
        }
    }
    Ok(())
}

/// `figures` with the CPU counters' growth between the phase's start and its end: the periods, throttled periods
/// and throttled time of the phase itself (the box's own counters run since it was made).
pub fn with_phase_throttling(figures: BoxFigures, start: Option<&CpuFigures>, end: Option<&CpuFigures>) -> BoxFigures {
    let (Some(start), Some(end)) = (start, end) else { return figures };
    BoxFigures {
        phase_periods: Some(end.periods.saturating_sub(start.periods)),
        phase_throttled_periods: Some(end.throttled_periods.saturating_sub(start.throttled_periods)),
        phase_throttled_ms: Some(end.throttled_ns.saturating_sub(start.throttled_ns) as f64 / 1e6),
        ..figures
    }
}

/// A box sample as the phase record keeps it.
pub fn figures(sample: &BoxSample) -> BoxFigures {
    let memory = sample.memory.as_ref();
    let cpu = sample.cpu.as_ref();
    BoxFigures {
        memory_limit: memory.and_then(|memory| memory.limit),
        memory_usage: memory.map(|memory| memory.usage),
        memory_peak: memory.and_then(|memory| memory.peak),
        oom_kills: memory.and_then(|memory| memory.oom_kills),
        anon: memory.map(|memory| memory.anon),
        file: memory.map(|memory| memory.file),
        cpus_quota: cpu.and_then(|cpu| cpu.quota_cpus),
        periods: cpu.map(|cpu| cpu.periods),
        throttled_periods: cpu.map(|cpu| cpu.throttled_periods),
        throttled_ms: cpu.map(|cpu| cpu.throttled_ns as f64 / 1e6),
        ..BoxFigures::default()
    }
}

/// The cause when the target was killed by its box's memory limit: it died by SIGKILL (or, behind a shell, exited
/// with 137 = 128 + 9) without jload asking, and the box's OOM-kill count is above zero. `killed by the memory limit
/// (512 MiB): peak 511 MiB`.
pub fn memory_kill_cause(sample: Option<&BoxSample>, exit: &ExitInfo) -> Option<String> {
    let by_sigkill = exit.signal == Some(libc::SIGKILL) || exit.code == Some(128 + libc::SIGKILL);
    if exit.stopped_by_jload || !by_sigkill {
        return None;
    }
    let memory = sample?.memory.as_ref()?;
    if memory.oom_kills? == 0 {
        return None;
    }
    let limit = memory.limit.map_or("no limit".to_string(), mebibytes);
    let peak = memory.peak.map_or(String::new(), |peak| format!(": peak {}", mebibytes(peak)));
    Some(format!("killed by the memory limit ({limit}){peak}"))
}

#[cfg(test)]
mod tests {
    use super::{figures, memory_kill_cause, with_phase_throttling};
    use crate::cgroup::{BoxSample, CpuFigures, MemoryFigures};
    use crate::results::ExitInfo;

    #[test]
    fn a_phase_sees_the_growth_of_the_cpu_counters_over_its_own_window() {
        let cpu = |periods, throttled_periods, throttled_ns| CpuFigures {
            quota_cpus: Some(0.5),
            periods,
            throttled_periods,
            throttled_ns,
        };
        let (start, end) = (cpu(100, 20, 1_000_000_000), cpu(377, 185, 18_700_000_000));
        let sample = BoxSample { memory: None, cpu: Some(end.clone()) };
        let phase = with_phase_throttling(figures(&sample), Some(&start), Some(&end));
        assert_eq!((phase.periods, phase.throttled_periods), (Some(377), Some(185)), "the box's own, since made");
        assert_eq!((phase.phase_periods, phase.phase_throttled_periods), (Some(277), Some(165)));
        assert_eq!(phase.phase_throttled_ms, Some(17_700.0));
        assert_eq!(phase.phase_throttled_pct(), Some(100.0 * 165.0 / 277.0));
        let no_start = with_phase_throttling(figures(&sample), None, Some(&end));
        assert_eq!((no_start.phase_periods, no_start.phase_throttled_pct()), (None, None));
    }

    fn box_with(oom_kills: Option<u64>) -> BoxSample {
        let memory =
            MemoryFigures { limit: Some(512 << 20), usage: 0, peak: Some(511 << 20), oom_kills, anon: 0, file: 0 };
        BoxSample { memory: Some(memory), cpu: None }
    }

    #[test]
    fn a_sigkill_is_a_memory_kill_only_when_the_box_counted_an_oom_kill() {
        let killed = ExitInfo { code: None, signal: Some(9), stopped_by_jload: false };
        let cause = memory_kill_cause(Some(&box_with(Some(1))), &killed);
        assert_eq!(cause.as_deref(), Some("killed by the memory limit (512 MiB): peak 511 MiB"));
        let behind_a_shell = ExitInfo { code: Some(137), signal: None, stopped_by_jload: false };
        assert!(memory_kill_cause(Some(&box_with(Some(1))), &behind_a_shell).is_some());
        assert_eq!(memory_kill_cause(Some(&box_with(Some(0))), &killed), None, "a stray kill -9");
        assert_eq!(memory_kill_cause(Some(&box_with(None)), &killed), None, "no count kept");
        assert_eq!(memory_kill_cause(None, &killed), None, "no box");
        let stopped = ExitInfo { stopped_by_jload: true, ..killed.clone() };
        assert_eq!(memory_kill_cause(Some(&box_with(Some(1))), &stopped), None);
        let exited = ExitInfo { code: Some(3), signal: None, stopped_by_jload: false };
        assert_eq!(memory_kill_cause(Some(&box_with(Some(1))), &exited), None);
    }
}
