//! JDK Flight Recorder recordings started and written through the attach protocol, as `jcmd <pid> JFR.start` and
//! `JFR.stop … filename=` do (the JDK's `jdk.jfr.internal.dcmd.DCmdStart` and `DCmdStop`), without a JDK tool. The
//! diagnostic command always answers status 0; whether it did what was asked is in its text (`Started recording
//! 3.`, `Stopped recording "jload-get", 373.6 kB written to: …`, else one line saying why not). Each call gives when
//! it began and how long it took, so that the safepoints JFR runs meanwhile are counted as jload's.

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::AttachedJvm;
use crate::jvm::clock::unix_us_now;

/// One command's span on the wall clock where the JVM runs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CommandSpan {
    /// When the command began, µs since the Unix epoch.
    pub unix_us: i64,
    /// How long it took, from connecting to the last byte of the reply.
    pub took_ms: f64,
}

/// What a recording is started with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordingOptions {
    /// The recording's name, unique in the JVM (JFR lets two recordings share one, and `JFR.stop` then stops one of
    /// them).
    pub name: String,
    /// A settings file the JVM knows (`default`, `profile`) or a `.jfc` path on its machine.
    pub settings: String,
    /// The most the recording keeps on disk, in bytes; older chunks are dropped beyond it.
    pub max_size: u64,
}

/// The periodic events jload's recordings leave out of the JDK's settings: a thread dump every 60 s is a safepoint
/// of its own in the middle of a measured phase.
pub const LEFT_OUT: &[&str] = &["jdk.ThreadDump"];

/// The JDK's settings file `base` (`profile`, `default`) of JVM `pid`'s own JDK (`lib/jfr/<base>.jfc` beside its
/// `bin/java`, read through `/proc/<pid>/root`) with each event of `left_out` disabled: the text of a `.jfc`.
pub fn settings_without(pid: u32, base: &str, left_out: &[&str]) -> Result<String, String> {
    let java = std::fs::read_link(format!("/proc/{pid}/exe")).map_err(|err| format!("JVM {pid}'s binary: {err}"))?;
    let home = java.parent().and_then(Path::parent).ok_or_else(|| format!("no JDK around {}", java.display()))?;
    let jfc = PathBuf::from(format!("/proc/{pid}/root{}", home.join("lib/jfr").join(format!("{base}.jfc")).display()));
    let text =
        std::fs::read_to_string(&jfc).map_err(|err| format!("the JDK's {base}.jfc ({}): {err}", jfc.display()))?;
    left_out.iter().try_fold(text, |text, event| disabled(&text, event))
}

/// `jfc` with event `event`'s `enabled` setting false.
fn disabled(jfc: &str, event: &str) -> Result<String, String> {
    let opening = format!("<event name=\"{event}\">");
    let start = jfc.find(&opening).ok_or_else(|| format!("no {event} in the JDK's settings"))?;
    let end = start + jfc[start..].find("</event>").ok_or_else(|| format!("{event} never closes"))?;
    let block = jfc[start..end].replacen(">true</setting>", ">false</setting>", 1);
    Ok(format!("{}{block}{}", &jfc[..start], &jfc[end..]))
}

/// Start a recording to disk: `JFR.start name=… settings=… disk=true maxsize=…`. The error is the JVM's own line.
pub fn start(jvm: &AttachedJvm, options: &RecordingOptions) -> (CommandSpan, Result<(), String>) {
    let command = format!(
        "JFR.start name={} settings={} disk=true maxsize={}",
        quoted(&options.name),
        quoted(&options.settings),
        options.max_size
    );
    run(jvm, &command, "Started recording")
}

/// Write recording `name` to `file` (on the JVM's machine, by the JVM) and stop it: `JFR.stop name=… filename=…`.
pub fn stop_into(jvm: &AttachedJvm, name: &str, file: &Path) -> (CommandSpan, Result<(), String>) {
    let command = format!("JFR.stop name={} filename={}", quoted(name), quoted(&file.display().to_string()));
    run(jvm, &command, "Stopped recording")
}

/// Stop recording `name` and drop what it holds: `JFR.stop name=…`.
pub fn stop(jvm: &AttachedJvm, name: &str) -> (CommandSpan, Result<(), String>) {
    run(jvm, &format!("JFR.stop name={}", quoted(name)), "Stopped recording")
}

fn run(jvm: &AttachedJvm, command: &str, success: &str) -> (CommandSpan, Result<(), String>) {
    let unix_us = unix_us_now();
    let began = Instant::now();
    let reply = jvm.jcmd(command);
    let span = CommandSpan { unix_us, took_ms: began.elapsed().as_secs_f64() * 1e3 };
    let outcome = match reply {
        Ok(text) if text.lines().any(|line| line.starts_with(success)) => Ok(()),
        Ok(text) => Err(first_line(&text)),
        Err(err) => Err(err.to_string()),
    };
    (span, outcome)
}

/// The first line of a reply that says something, for a one-line error.
fn first_line(text: &str) -> String {
    let line = text.lines().map(str::trim).find(|line| !line.is_empty()).unwrap_or("no reply");
    format!("JFR said: {line}")
}

/// A diagnostic-command argument value, quoted when it holds a space (the JDK's `DCmdArgumentParser` splits on
/// spaces outside quotes).
fn quoted(value: &str) -> String {
    if value.contains(' ') { format!("\"{value}\"") } else { value.to_string() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_with_a_space_is_quoted_and_one_without_is_not() {
        assert_eq!(quoted("/tmp/a b/get.jfr"), "\"/tmp/a b/get.jfr\"");
        assert_eq!(quoted("profile"), "profile");
    }

    #[test]
    fn a_left_out_event_is_disabled_and_every_other_line_is_kept() {
        let jfc = "<configuration>\n  <event name=\"jdk.ThreadDump\">\n    <setting name=\"enabled\" control=\"x\">true</setting>\n    \
                   <setting name=\"period\">60 s</setting>\n  </event>\n  <event name=\"jdk.CPULoad\">\n    \
                   <setting name=\"enabled\">true</setting>\n  </event>\n</configuration>\n";
        let expected = jfc.replacen(">true</setting>", ">false</setting>", 1);
        assert_eq!(disabled(jfc, "jdk.ThreadDump").unwrap(), expected);
        assert_eq!(disabled(jfc, "jdk.Nothing").unwrap_err(), "no jdk.Nothing in the JDK's settings");
    }

    #[test]
    fn a_process_without_a_jdk_around_its_binary_has_no_settings() {
        let me = std::process::id();
        assert!(settings_without(me, "profile", LEFT_OUT).unwrap_err().contains("profile.jfc"));
    }

    #[test]
    fn a_refusal_is_the_jvms_first_line() {
        assert_eq!(
            first_line("\nCould not parse settings file 'nosuch'\n"),
            "JFR said: Could not parse settings file 'nosuch'"
        );
        assert_eq!(first_line(""), "JFR said: no reply");
    }
}
