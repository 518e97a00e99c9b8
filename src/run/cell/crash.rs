//! Whether a target crashed, decided only from what the JVM really did: how the process ended (an exit it was not
//! asked for), a fatal-error file (hs_err), the JVM's own `Terminating due to java.lang.OutOfMemoryError` line, or
//! an `OutOfMemoryError` exception stack. A line that merely mentions the word (Tomcat logs every JVM argument,
//! `-XX:+ExitOnOutOfMemoryError` included) is no evidence. The one rule every status shown comes from, and the one
//! place Java's own `OutOfMemoryError`s are told apart by kind ([`JavaOom`]: heap space, Metaspace, direct buffer
//! memory, native threads …), in JDK 17's and 25's wordings — distinct from a kill by a box's memory limit
//! (`run/cell/probes/target_box.rs`), which leaves no such line.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use crate::results::ExitInfo;
use crate::results::layout::ERROR_FILE_PREFIX;

const OOM: &str = "java.lang.OutOfMemoryError";

/// The kind of a Java `OutOfMemoryError`, from its message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JavaOom {
    /// `Java heap space`.
    HeapSpace,
    /// `GC overhead limit exceeded` (Parallel, with -XX:+UseGCOverheadLimit).
    GcOverhead,
    /// `Metaspace`: class metadata past -XX:MaxMetaspaceSize.
    Metaspace,
    /// `Compressed class space`: past -XX:CompressedClassSpaceSize.
    CompressedClassSpace,
    /// Direct buffers past -XX:MaxDirectMemorySize: `Direct buffer memory` (older JDKs), `Cannot reserve N bytes of
    /// direct buffer memory (allocated: …, limit: …)` (JDK 17 updates and 25).
    DirectBufferMemory,
    /// `unable to create native thread: possibly out of memory or process/resource limits reached` (JDK 11 on),
    /// `unable to create new native thread` (JDK 8).
    NativeThread,
    /// `Requested array size exceeds VM limit`.
    ArraySize,
    /// Any other message, or none.
    Other,
}

impl JavaOom {
    /// The kind of the `OutOfMemoryError` whose message (after `java.lang.OutOfMemoryError: `) is `message`.
    pub fn of_message(message: &str) -> JavaOom {
        let message = message.trim();
        let lower = message.to_ascii_lowercase();
        if message.starts_with("Java heap space") {
            JavaOom::HeapSpace
        } else if message.starts_with("GC overhead limit exceeded") {
            JavaOom::GcOverhead
        } else if message.starts_with("Metaspace") {
            JavaOom::Metaspace
        } else if message.starts_with("Compressed class space") {
            JavaOom::CompressedClassSpace
        } else if lower.contains("direct buffer memory") {
            JavaOom::DirectBufferMemory
        } else if lower.starts_with("unable to create") && lower.contains("native thread") {
            JavaOom::NativeThread
        } else if message.starts_with("Requested array size exceeds VM limit") {
            JavaOom::ArraySize
        } else {
            JavaOom::Other
        }
    }

    /// The kind of the `OutOfMemoryError` a line reports (see [`reports_out_of_memory`]).
    pub fn of_line(line: &str) -> JavaOom {
        let message = line.split_once(OOM).map_or("", |(_, rest)| rest.strip_prefix(':').unwrap_or(rest));
        JavaOom::of_message(message)
    }

    /// How every output names it: `Java heap space`, `Direct buffer memory` …, in JDK 17's words.
    pub fn name(self) -> &'static str {
        match self {
            JavaOom::HeapSpace => "Java heap space",
            JavaOom::GcOverhead => "GC overhead limit exceeded",
            JavaOom::Metaspace => "Metaspace",
            JavaOom::CompressedClassSpace => "Compressed class space",
            JavaOom::DirectBufferMemory => "Direct buffer memory",
            JavaOom::NativeThread => "unable to create native thread",
            JavaOom::ArraySize => "Requested array size exceeds VM limit",
            JavaOom::Other => "OutOfMemoryError",
        }
    }

    /// The cause recorded for a crash by it: `Java OOM: Direct buffer memory — <the JVM's line>`.
    pub fn cause(line: &str) -> String {
        format!("Java OOM: {} — {line}", JavaOom::of_line(line).name())
    }
}

/// How a cell-repeat that became ready ended, as far as crashing goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ending {
    /// jload stopped it and nothing says it failed.
    Clean,
    /// It died by itself, or left evidence that it failed; the one-line cause.
    Crashed(String),
}

/// Where the evidence of one cell-repeat lies.
pub struct Evidence<'a> {
    pub stdout: &'a Path,
    pub stderr: &'a Path,
    /// The folder the JVM writes its hs_err file into (`-XX:ErrorFile`).
    pub error_dir: &'a Path,
}

impl Evidence<'_> {
    /// The JVM's own account of a failure: an OutOfMemoryError it reported, else its fatal-error file.
    pub fn cause(&self) -> Option<String> {
        [self.stderr, self.stdout]
            .into_iter()
            .find_map(out_of_memory_report)
            .map(|line| JavaOom::cause(&line))
            .or_else(|| hs_err_file(self.error_dir).map(|path| fatal_error_cause(&path)))
    }

    /// The ending of a target that became ready: crashed when it exited without being asked to, or when the JVM
    /// reported an OutOfMemoryError or a fatal error even though it kept running.
    pub fn judge(&self, exit: &ExitInfo) -> Ending {
        match (self.cause(), exit.stopped_by_jload) {
            (Some(cause), _) => Ending::Crashed(cause),
            (None, false) => Ending::Crashed(format!("the target died ({})", exit.describe())),
            (None, true) => Ending::Clean,
        }
    }
}

/// The first line in which the JVM reports an OutOfMemoryError (see [`reports_out_of_memory`]), trimmed.
fn out_of_memory_report(path: &Path) -> Option<String> {
    let file = File::open(path).ok()?;
    // Bytes, not UTF-8 lines: one line in another encoding must not hide the rest of the log.
    let mut lines = BufReader::new(file)
        .split(b'\n')
        .map_while(Result::ok)
        .map(|bytes| String::from_utf8_lossy(&bytes).trim_end_matches('\r').to_string());
    let mut previous = lines.next()?;
    for line in lines {
        if reports_out_of_memory(&previous, Some(&line)) {
            return Some(previous.trim().to_string());
        }
        previous = line;
    }
    reports_out_of_memory(&previous, None).then(|| previous.trim().to_string())
}

/// Whether `line` (followed by `next`) is the JVM reporting an OutOfMemoryError:
/// - `Terminating due to java.lang.OutOfMemoryError: …` (-XX:+ExitOnOutOfMemoryError) or `Aborting due to …`
///   (-XX:+CrashOnOutOfMemoryError);
/// - `Exception in thread "…" java.lang.OutOfMemoryError…` (an uncaught one, printed by the JVM);
/// - `java.lang.OutOfMemoryError…` or `Caused by: java.lang.OutOfMemoryError…` at the start of a line and followed
///   by a stack frame (`\tat …`): a logged exception stack.
pub fn reports_out_of_memory(line: &str, next: Option<&str>) -> bool {
    if line.starts_with(&format!("Terminating due to {OOM}")) || line.starts_with(&format!("Aborting due to {OOM}")) {
        return true;
    }
    if let Some(rest) = line.strip_prefix("Exception in thread \"")
        && let Some((_, exception)) = rest.split_once("\" ")
    {
        return names_out_of_memory(exception);
    }
    let exception = line.strip_prefix("Caused by: ").unwrap_or(line);
    names_out_of_memory(exception) && next.is_some_and(is_stack_frame)
}

/// `\tat com.example.Foo.bar(Foo.java:12)`: an indented `at`.
fn is_stack_frame(line: &str) -> bool {
    line.starts_with(char::is_whitespace) && line.trim_start().starts_with("at ")
}

/// `java.lang.OutOfMemoryError` alone or followed by its message (`: Java heap space`).
fn names_out_of_memory(text: &str) -> bool {
    text.strip_prefix(OOM).is_some_and(|rest| rest.is_empty() || rest.starts_with(':'))
}

/// The cause a fatal-error file gives: a Java OOM by its kind (`-XX:+CrashOnOutOfMemoryError`: `fatal error:
/// OutOfMemory encountered: Java heap space`), the JVM out of native memory (`There is insufficient memory for the
/// Java Runtime Environment to continue.` and the failed allocation), else a fatal error; each names the file.
fn fatal_error_cause(path: &Path) -> String {
    let text = std::fs::read(path).map(|bytes| String::from_utf8_lossy(&bytes).into_owned()).unwrap_or_default();
    // The header: `#`-lines before the summary.
    let header: Vec<&str> = text.lines().take(40).map(|line| line.trim_start_matches('#').trim()).collect();
    let see = path.display();
    if let Some(message) = header.iter().find_map(|line| line.strip_prefix("fatal error: OutOfMemory encountered:")) {
        return format!("Java OOM: {} — JVM fatal error, see {see}", JavaOom::of_message(message).name());
    }
    if header.iter().any(|line| line.starts_with("There is insufficient memory for the Java Runtime Environment")) {
        let allocation = header.iter().find(|line| line.starts_with("Native memory allocation"));
        let detail = allocation.map(|line| format!(": {line}")).unwrap_or_default();
        return format!("JVM out of native memory{detail} — JVM fatal error, see {see}");
    }
    format!("JVM fatal error, see {see}")
}

/// The JVM's fatal-error file in `dir` (`hs_err_pid<N>.log`), if it wrote one.
pub fn hs_err_file(dir: &Path) -> Option<PathBuf> {
    std::fs::read_dir(dir)
        .ok()?
        .filter_map(Result::ok)
        .find(|entry| entry.file_name().to_string_lossy().starts_with(ERROR_FILE_PREFIX))
        .map(|entry| entry.path())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_jvms_own_reports_count() {
        for line in [
            "Terminating due to java.lang.OutOfMemoryError: Java heap space",
            "Aborting due to java.lang.OutOfMemoryError: Java heap space",
            "Exception in thread \"main\" java.lang.OutOfMemoryError: Java heap space",
            "Exception in thread \"http-nio-8080-exec-1\" java.lang.OutOfMemoryError",
        ] {
            assert!(reports_out_of_memory(line, None), "{line}");
        }
        assert!(reports_out_of_memory("java.lang.OutOfMemoryError: Java heap space", Some("\tat Foo.bar(Foo.java:1)")));
        assert!(reports_out_of_memory("Caused by: java.lang.OutOfMemoryError: Metaspace", Some("    at A.b(A.java)")));
    }

    #[test]
    fn each_kind_of_java_oom_is_named_in_jdk_17s_and_25s_words() {
        for (line, kind) in [
            ("Exception in thread \"main\" java.lang.OutOfMemoryError: Java heap space", JavaOom::HeapSpace),
            ("Terminating due to java.lang.OutOfMemoryError: Java heap space", JavaOom::HeapSpace),
            ("java.lang.OutOfMemoryError: GC overhead limit exceeded", JavaOom::GcOverhead),
            ("Caused by: java.lang.OutOfMemoryError: Metaspace", JavaOom::Metaspace),
            ("java.lang.OutOfMemoryError: Compressed class space", JavaOom::CompressedClassSpace),
            (
                "Exception in thread \"pool-1\" java.lang.OutOfMemoryError: Direct buffer memory",
                JavaOom::DirectBufferMemory,
            ),
            (
                "Exception in thread \"main\" java.lang.OutOfMemoryError: Cannot reserve 1048576 bytes of direct buffer \
                 memory (allocated: 8388608, limit: 8388608)",
                JavaOom::DirectBufferMemory,
            ),
            (
                "java.lang.OutOfMemoryError: unable to create native thread: possibly out of memory or process/resource \
                 limits reached",
                JavaOom::NativeThread,
            ),
            ("java.lang.OutOfMemoryError: unable to create new native thread", JavaOom::NativeThread),
            ("java.lang.OutOfMemoryError: Requested array size exceeds VM limit", JavaOom::ArraySize),
            ("Exception in thread \"main\" java.lang.OutOfMemoryError", JavaOom::Other),
            ("java.lang.OutOfMemoryError: something new", JavaOom::Other),
        ] {
            assert_eq!(JavaOom::of_line(line), kind, "{line}");
        }
        assert_eq!(
            JavaOom::cause("Caused by: java.lang.OutOfMemoryError: Metaspace"),
            "Java OOM: Metaspace — Caused by: java.lang.OutOfMemoryError: Metaspace"
        );
    }

    #[test]
    fn evidence_is_found_past_lines_in_other_encodings_and_in_hs_err_files() {
        let dir = std::env::temp_dir().join(format!("jload-crash-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let files = crate::results::RepFiles::of(&dir);
        let (stdout, stderr) = (files.stdout_log(), files.stderr_log());
        std::fs::write(
            &stdout,
            b"caf\xe9 au lait\r\nTerminating due to java.lang.OutOfMemoryError: Java heap space\r\n",
        )
        .unwrap();
        std::fs::write(&stderr, "Command line argument: -XX:+ExitOnOutOfMemoryError\n").unwrap();
        let evidence = Evidence { stdout: &stdout, stderr: &stderr, error_dir: &dir };
        let stopped = ExitInfo { code: Some(143), signal: None, stopped_by_jload: true };
        let expected = "Java OOM: Java heap space — Terminating due to java.lang.OutOfMemoryError: Java heap space";
        assert_eq!(evidence.judge(&stopped), Ending::Crashed(expected.to_string()));
        std::fs::write(&stdout, "all fine\n").unwrap();
        assert_eq!(evidence.judge(&stopped), Ending::Clean);
        let died = ExitInfo { code: Some(1), signal: None, stopped_by_jload: false };
        assert_eq!(evidence.judge(&died), Ending::Crashed("the target died (exit code 1)".to_string()));
        std::fs::write(dir.join("hs_err_pid42.log"), "# A fatal error has been detected").unwrap();
        let hs_err = format!("JVM fatal error, see {}", dir.join("hs_err_pid42.log").display());
        assert_eq!(evidence.judge(&stopped), Ending::Crashed(hs_err));
        // -XX:+CrashOnOutOfMemoryError's file (JDK 17 and 25 alike), and a JVM out of native memory.
        let crash_on_oom = "#\n# A fatal error has been detected by the Java Runtime Environment:\n#\n#  Internal Error \
                            (debug.cpp:362), pid=8722, tid=8723\n#  fatal error: OutOfMemory encountered: Java heap space\n";
        std::fs::write(dir.join("hs_err_pid42.log"), crash_on_oom).unwrap();
        let see = dir.join("hs_err_pid42.log").display().to_string();
        let expected = format!("Java OOM: Java heap space — JVM fatal error, see {see}");
        assert_eq!(evidence.judge(&stopped), Ending::Crashed(expected));
        let native = "#\n# There is insufficient memory for the Java Runtime Environment to continue.\n# Native memory \
                      allocation (mmap) failed to map 65536 bytes for committing reserved memory.\n";
        std::fs::write(dir.join("hs_err_pid42.log"), native).unwrap();
        let expected = format!(
            "JVM out of native memory: Native memory allocation (mmap) failed to map 65536 bytes for committing \
             reserved memory. — JVM fatal error, see {see}"
        );
        assert_eq!(evidence.judge(&stopped), Ending::Crashed(expected));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn lines_that_only_mention_it_do_not() {
        for (line, next) in [
            (
                "23-Nov-2026 13:50:00.123 INFO [main] org.apache.catalina.startup.VersionLoggerListener.log \
                 Command line argument: -XX:+ExitOnOutOfMemoryError",
                None,
            ),
            ("handled java.lang.OutOfMemoryError: Java heap space", Some("\tat Foo.bar(Foo.java:1)")),
            ("java.lang.OutOfMemoryError: Java heap space", Some("next message")),
            ("java.lang.OutOfMemoryError: Java heap space", None),
            ("java.lang.OutOfMemoryErrorHandler installed", Some("\tat x")),
            ("Exception in thread \"main\" java.lang.IllegalStateException: no OutOfMemoryError", None),
            ("-XX:+HeapDumpOnOutOfMemoryError", None),
        ] {
            assert!(!reports_out_of_memory(line, next), "{line}");
        }
    }
}
