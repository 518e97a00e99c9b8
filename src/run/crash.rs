//! Whether a target crashed, decided only from what the JVM really did: how the process ended (an exit it was not
//! asked for), a fatal-error file (hs_err), the JVM's own `Terminating due to java.lang.OutOfMemoryError` line, or
//! an `OutOfMemoryError` exception stack. A line that merely mentions the word (Tomcat logs every JVM argument,
//! `-XX:+ExitOnOutOfMemoryError` included) is no evidence. The one rule every status shown comes from.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use crate::results::ExitInfo;
use crate::results::layout::ERROR_FILE_PREFIX;

const OOM: &str = "java.lang.OutOfMemoryError";

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
            .map(|line| format!("OutOfMemoryError: {line}"))
            .or_else(|| hs_err_file(self.error_dir).map(|path| format!("JVM fatal error, see {}", path.display())))
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
        let expected = "OutOfMemoryError: Terminating due to java.lang.OutOfMemoryError: Java heap space";
        assert_eq!(evidence.judge(&stopped), Ending::Crashed(expected.to_string()));
        std::fs::write(&stdout, "all fine\n").unwrap();
        assert_eq!(evidence.judge(&stopped), Ending::Clean);
        let died = ExitInfo { code: Some(1), signal: None, stopped_by_jload: false };
        assert_eq!(evidence.judge(&died), Ending::Crashed("the target died (exit code 1)".to_string()));
        std::fs::write(dir.join("hs_err_pid42.log"), "# A fatal error has been detected").unwrap();
        let hs_err = format!("JVM fatal error, see {}", dir.join("hs_err_pid42.log").display());
        assert_eq!(evidence.judge(&stopped), Ending::Crashed(hs_err));
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
