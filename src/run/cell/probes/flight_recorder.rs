//! A JDK Flight Recorder recording of each measured phase (docs/profiling.md), where the plan records them
//! ([`crate::plan::Target::records_flight`]). Started through jload's attach client ([`flight_recording`], no JDK
//! tool; where the target runs, by the probe's [`JfrSensor`]) as the phase starts and written by the JVM into
//! `<phase>.jfr` in the cell-repeat's folder as it ends — a target on its own server writes it there, and the file
//! comes home with the others. Unmeasured phases (the fill, a warm-up) are never recorded; a capacity search or a
//! ladder is recorded whole, its steps' warm-ups included, and what is read from the file is cut to the window a
//! figure describes. Once the target is ready, before its first phase, a recording is started and dropped, so that
//! JFR's own start-up (loading and compiling its classes, instrumenting the event classes: seconds of CPU) falls
//! outside every measured phase. Every command's span is jload's: a safepoint JFR runs inside one is counted as
//! jload's, never the service's ([`JvmStops::with_jload_reads`]).

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::{PhaseStarting, Probe, Ready, Sensor, ask};
use crate::attribution::gather::JvmStops;
use crate::jvm::attach::AttachOnce;
use crate::jvm::attach::flight_recording::{self, CommandSpan, RecordingOptions};
use crate::jvm::jfr::profile;
use crate::jvm::procfs::rss_bytes;
use crate::launcher::RunningTarget;
use crate::plan::box_limits::mebibytes;
use crate::results::{PhaseRecord, PhaseRecording, RepFiles};
use crate::run::cell::target_process::TargetProcess;

/// The settings every recording is made with: the JDK's own `profile` (execution samples every 10 ms in Java code
/// and 20 ms in native, allocation samples, monitor enters and thread parks of 10 ms or more, socket and file I/O of
/// 10 ms or more, the GC's phases, VM operations, compilations) without its periodic thread dump
/// ([`flight_recording::LEFT_OUT`]), written as `jfr-settings.jfc` into the cell-repeat's folder where the target
/// runs, from the target's own JDK.
pub const SETTINGS: &str = "profile";
const SETTINGS_FILE: &str = "jfr-settings.jfc";
/// The most one recording keeps on disk: a phase of kv-service at its capacity writes about 1 MB a second.
pub const MAX_SIZE: u64 = 512 * 1024 * 1024;
/// How long the attach may wait for the JVM's listener, and each command (a recording written at the end of a long
/// phase takes seconds).
const ATTACH_TIMEOUT: Duration = Duration::from_secs(20);
/// The recording started and dropped once the target is ready.
const WARM_UP: &str = "jload-warm-up";
/// The room a box must have beyond its anonymous memory for the first recording: JFR's classes, code and buffers
/// grew a JVM's resident set by 33–38 MiB when it started (JDK 17, `profile`, a small server: docs/profiling.md).
pub const FIRST_RECORDING_ROOM: u64 = 64 << 20;

/// Where the JVM runs: its attach, made once, on the first call.
#[derive(Default)]
pub struct JfrSensor {
    attach: Option<AttachOnce>,
}

#[derive(Debug, Serialize, Deserialize)]
pub enum JfrCall {
    /// Write jload's settings into `settings_file` (`options.settings` names the JDK's file they are made from) and
    /// start the recording with them; with `room`, only where the target's box (if it has a memory limit) has that
    /// many bytes beyond its anonymous memory.
    Start { options: RecordingOptions, settings_file: PathBuf, room: Option<u64> },
    /// Write the recording into `file` (on the target's machine) and stop it.
    StopInto { name: String, file: PathBuf },
    /// Stop the recording and drop it.
    Stop { name: String },
}

#[derive(Debug, Serialize, Deserialize)]
pub struct JfrAnswer {
    /// The command's span; None when it was not sent (no JVM to attach to, no settings).
    pub span: Option<CommandSpan>,
    /// Why the command did not do what it was asked, in one line.
    pub error: Option<String>,
    /// The JVM's resident set before the command and after it.
    pub rss: Option<(u64, u64)>,
}

impl JfrAnswer {
    fn failed(error: String) -> JfrAnswer {
        JfrAnswer { span: None, error: Some(error), rss: None }
    }
}

/// Why the box of `target` lacks `room` bytes beyond its anonymous memory; None where it has them or no limit.
fn short_of_room(target: &RunningTarget, room: u64) -> Option<String> {
    let memory = target.box_sample()?.memory?;
    let free = memory.limit?.saturating_sub(memory.anon);
    (free < room).then(|| {
        format!(
            "not recorded: the box has {} beyond its anonymous memory, less than the {} a first recording takes",
            mebibytes(free),
            mebibytes(room)
        )
    })
}

impl Sensor for JfrSensor {
    const NAME: &'static str = "jfr";
    type Call = JfrCall;
    type Answer = JfrAnswer;

    fn answer(&mut self, target: &mut RunningTarget, call: JfrCall) -> JfrAnswer {
        if self.attach.is_none() {
            self.attach = target.jvm_pid().map(|pid| AttachOnce::new(pid, ATTACH_TIMEOUT));
        }
        let Some(jvm) = self.attach.as_mut().and_then(AttachOnce::jvm) else {
            return JfrAnswer::failed(
                "no JVM to record: none found in the target's tree, or it refused the attach".into(),
            );
        };
        let pid = jvm.pid();
        let before = rss_bytes(pid);
        let (span, outcome) = match call {
            JfrCall::Start { options, settings_file, room } => {
                if let Some(short) = room.and_then(|room| short_of_room(target, room)) {
                    return JfrAnswer::failed(short);
                }
                let text = flight_recording::settings_without(jvm.pid(), &options.settings, flight_recording::LEFT_OUT);
                let written = text.and_then(|text| {
                    std::fs::write(&settings_file, text).map_err(|err| format!("{}: {err}", settings_file.display()))
                });
                if let Err(error) = written {
                    return JfrAnswer::failed(error);
                }
                let settings = settings_file.display().to_string();
                flight_recording::start(jvm, &RecordingOptions { settings, ..options })
            }
            JfrCall::StopInto { name, file } => flight_recording::stop_into(jvm, &name, &file),
            JfrCall::Stop { name } => flight_recording::stop(jvm, &name),
        };
        let rss = before.zip(rss_bytes(pid));
        JfrAnswer { span: Some(span), error: outcome.err(), rss }
    }
}

/// The recording of the phase under way.
struct Recording {
    name: String,
    phase: String,
    /// Its start command's span.
    started: Option<CommandSpan>,
    error: Option<String>,
}

/// The probe of a cell whose plan records its measured phases.
#[derive(Default)]
pub struct FlightRecorder {
    sensor: JfrSensor,
    /// The cell-repeat's folder where the target runs.
    target_dir: PathBuf,
    recording: Option<Recording>,
    recorded: usize,
    /// Every command's span, for the attribution.
    spans: Vec<CommandSpan>,
    /// Every recording's span (wall-clock µs where the target runs), from its start command to its stop's end.
    recordings: Vec<(i64, i64)>,
    /// Why no recording can be made in this JVM (the warm-up's start failed).
    unavailable: Option<String>,
    /// The JVM's resident set before and after the last command.
    last_rss: Option<(u64, u64)>,
    /// What the JVM's resident set grew by over the first recording (JFR's classes, code and buffers).
    recorder_rss: Option<u64>,
}

impl FlightRecorder {
    /// Send `call`; its span is kept, and returned with the error.
    fn command(&mut self, target: &Mutex<TargetProcess>, call: JfrCall) -> (Option<CommandSpan>, Option<String>) {
        match ask(target, &mut self.sensor, call) {
            Some(answer) => {
                self.spans.extend(answer.span);
                self.last_rss = answer.rss;
                (answer.span, answer.error)
            }
            None => (None, Some("the target's server did not answer".to_string())),
        }
    }

    fn start(
        &mut self,
        target: &Mutex<TargetProcess>,
        name: &str,
        room: Option<u64>,
    ) -> (Option<CommandSpan>, Option<String>) {
        let options = RecordingOptions { name: name.to_string(), settings: SETTINGS.to_string(), max_size: MAX_SIZE };
        let settings_file = self.target_dir.join(SETTINGS_FILE);
        self.command(target, JfrCall::Start { options, settings_file, room })
    }

    /// Stop recording `name` that `started`, into `file` (else dropping it); the recording's span is kept.
    fn stop(
        &mut self,
        target: &Mutex<TargetProcess>,
        name: String,
        started: Option<CommandSpan>,
        file: Option<PathBuf>,
    ) -> (Option<CommandSpan>, Option<String>) {
        let call = match file {
            Some(file) => JfrCall::StopInto { name, file },
            None => JfrCall::Stop { name },
        };
        let (stopped, error) = self.command(target, call);
        if let (Some(started), Some(stopped)) = (started, stopped) {
            self.recordings.push((started.unix_us, stopped.unix_us + (stopped.took_ms * 1000.0).ceil() as i64));
        }
        (stopped, error)
    }
}

impl Probe for FlightRecorder {
    fn dry_run_line(&self) -> Option<String> {
        Some(format!(
            "jfr: a flight recording of each measured phase (settings={SETTINGS}, at most {} MiB each) into <phase>.jfr",
            MAX_SIZE >> 20
        ))
    }

    fn ready(&mut self, ready: &mut Ready<'_>) {
        self.target_dir = ready.target_dir.to_path_buf();
        let (started, error) = self.start(ready.target, WARM_UP, Some(FIRST_RECORDING_ROOM));
        let before = self.last_rss.map(|(before, _)| before);
        self.unavailable = error;
        if self.unavailable.is_none() {
            self.stop(ready.target, WARM_UP.to_string(), started, None);
            let after = self.last_rss.map(|(_, after)| after);
            self.recorder_rss = before.zip(after).map(|(before, after)| after.saturating_sub(before));
        }
    }

    fn phase_started(&mut self, target: &Mutex<TargetProcess>, phase: &PhaseStarting<'_>) {
        if !phase.measured {
            return;
        }
        self.recorded += 1;
        let name = format!("jload-phase-{}", self.recorded);
        let (started, error) = match &self.unavailable {
            Some(why) => (None, Some(why.clone())),
            None => self.start(target, &name, None),
        };
        self.recording = Some(Recording { name, phase: phase.name.to_string(), started, error });
    }

    fn phase_ended(&mut self, target: &Mutex<TargetProcess>, record: &mut PhaseRecord) {
        let Some(recording) = self.recording.take() else { return };
        let file = RepFiles::of(&self.target_dir).phase_recording(&recording.phase);
        let (stopped, error) = match recording.error {
            Some(error) => (None, Some(error)),
            None => self.stop(target, recording.name, recording.started, Some(file.clone())),
        };
        let took = |span: Option<CommandSpan>| span.map(|span| span.took_ms);
        record.flight_recording = Some(PhaseRecording {
            file: error.is_none().then(|| file_name(&file)),
            start_ms: took(recording.started),
            write_ms: took(stopped),
            recorder_rss_bytes: self.recorder_rss,
            profile: None,
            error,
        });
    }

    /// The phase's profile, read from its recording over the load's window (a ladder's: its headline step's).
    fn complete(&self, dir: &Path, record: &mut PhaseRecord) {
        let Some(start_us) = record.bench.start_unix_us else { return };
        let end_us = start_us + (record.bench.duration_s * 1e6) as i64;
        let Some(recording) = record.flight_recording.as_mut() else { return };
        let Some(file) = recording.file.as_deref() else { return };
        match profile::profile(&dir.join(file), start_us * 1000, end_us * 1000) {
            Ok(profile) => recording.profile = Some(profile),
            Err(err) => recording.error = Some(format!("{file} could not be read: {err:#}")),
        }
    }

    /// jload's commands and recordings: the attribution counts their safepoints apart.
    fn stops(&self, stops: JvmStops, _dir: &Path) -> JvmStops {
        let spans = self.spans.iter().map(|span| ((span.unix_us / 1000) as u64, span.took_ms)).collect();
        stops.with_jload_reads(spans).with_recordings(self.recordings.clone())
    }
}

fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(|| path.display().to_string(), |name| name.to_string_lossy().into_owned())
}
