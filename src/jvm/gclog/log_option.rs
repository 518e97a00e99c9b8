//! Finds the GC log file a JVM writes, from its command-line arguments: `-Xlog:gc*:file=gc.log:…`,
//! `-Xlog:gc:gc.log` (a bare file name), `-Xlog:gc:file="/path with spaces/gc.log"`, and the older
//! `-Xloggc:gc.log`. `%p` in the name is the JVM's pid; `%t` its start time (`YYYY-MM-DD_HH-MM-SS`), matched
//! against the files that exist (the newest wins). A relative name is taken from the JVM's working directory
//! (`/proc/<pid>/cwd`). Options from `JAVA_TOOL_OPTIONS`, `JDK_JAVA_OPTIONS` or `@argfiles` are not seen.

use std::fs;
use std::path::{Path, PathBuf};

/// The file that the first `-Xlog` option selecting `gc` messages writes to (or `-Xloggc:`), if any.
pub fn log_file_from_args(args: &[String], pid: u32) -> Option<PathBuf> {
    let name = args.iter().find_map(|arg| {
        if let Some(path) = arg.strip_prefix("-Xloggc:") {
            return Some(path.to_string());
        }
        gc_log_file_of_xlog(arg.strip_prefix("-Xlog:")?)
    })?;
    let name = name.replace("%p", &pid.to_string());
    let path = absolute(PathBuf::from(name), pid);
    if path.to_string_lossy().contains("%t") { newest_match_for_start_time(&path) } else { Some(path) }
}

/// `what:output:decorators:options` → the output file when `what` selects gc messages.
fn gc_log_file_of_xlog(spec: &str) -> Option<String> {
    let fields = split_outside_quotes(spec, ':');
    let what = fields.first().map(String::as_str).unwrap_or("");
    let output = fields.get(1)?.as_str();
    if !selects_gc(what) {
        return None;
    }
    let file = output.strip_prefix("file=").unwrap_or(output);
    let file = file.trim_matches('"');
    let is_console = matches!(file, "" | "stdout" | "stderr" | "#0" | "#1");
    (!is_console).then(|| file.to_string())
}

/// Whether a selection such as `gc*,safepoint`, `gc+heap=debug` or `all` logs some `gc` tag set.
fn selects_gc(what: &str) -> bool {
    if what.is_empty() {
        return true;
    }
    what.split(',').any(|selector| {
        let (tags, level) = selector.split_once('=').unwrap_or((selector, "info"));
        let tags = tags.trim_end_matches('*');
        let logs_something = !matches!(level, "off");
        logs_something && (tags == "all" || tags.split('+').any(|tag| tag == "gc"))
    })
}

/// Splits at `separator` except inside double quotes (quotes kept).
fn split_outside_quotes(text: &str, separator: char) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut quoted = false;
    for c in text.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                fields.last_mut().expect("never empty").push(c);
            }
            c if c == separator && !quoted => fields.push(String::new()),
            c => fields.last_mut().expect("never empty").push(c),
        }
    }
    fields
}

/// A relative path is relative to the JVM's working directory.
fn absolute(path: PathBuf, pid: u32) -> PathBuf {
    if path.is_absolute() {
        return path;
    }
    match fs::read_link(format!("/proc/{pid}/cwd")) {
        Ok(cwd) => cwd.join(path),
        Err(_) => path,
    }
}

/// `%t` stands for `YYYY-MM-DD_HH-MM-SS`: of the files whose names fit, the newest (names sort by time).
fn newest_match_for_start_time(pattern: &Path) -> Option<PathBuf> {
    let directory = pattern.parent()?;
    let name_pattern = pattern.file_name()?.to_str()?;
    let mut matches: Vec<String> = fs::read_dir(directory)
        .ok()?
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter(|name| fits_time_pattern(name_pattern, name))
        .collect();
    matches.sort();
    matches.pop().map(|name| directory.join(name))
}

/// Whether `name` is `pattern` with each `%t` replaced by a `YYYY-MM-DD_HH-MM-SS` time.
fn fits_time_pattern(pattern: &str, name: &str) -> bool {
    let Some((head, tail)) = pattern.split_once("%t") else {
        return pattern == name;
    };
    let Some(rest) = name.strip_prefix(head) else {
        return false;
    };
    let time_shape = "dddd-dd-dd_dd-dd-dd";
    if rest.len() < time_shape.len() || !rest.is_char_boundary(time_shape.len()) {
        return false;
    }
    let (time, after) = rest.split_at(time_shape.len());
    let time_fits = time.bytes().zip(time_shape.bytes()).all(|(b, shape)| match shape {
        b'd' => b.is_ascii_digit(),
        other => b == other,
    });
    time_fits && fits_time_pattern(tail, after)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|arg| arg.to_string()).collect()
    }

    #[test]
    fn the_forms_of_the_file_option() {
        let pid = u32::MAX; // no such process: relative paths stay relative
        let found = |list: &[&str]| log_file_from_args(&args(list), pid);
        assert_eq!(found(&["-Xlog:gc*,safepoint:file=/tmp/gc.log:time,uptime,level,tags"]), Some("/tmp/gc.log".into()));
        assert_eq!(found(&["-Xlog:gc:/var/log/gc.log"]), Some("/var/log/gc.log".into()));
        assert_eq!(
            found(&["-Xlog:gc:file=\"/tmp/with space:colon.log\":uptime"]),
            Some("/tmp/with space:colon.log".into())
        );
        assert_eq!(
            found(&["-Xlog:gc+heap=debug:file=/tmp/h.log::filecount=5,filesize=10M"]),
            Some("/tmp/h.log".into())
        );
        assert_eq!(found(&["-Xloggc:old.log"]), Some("old.log".into()));
        assert_eq!(found(&["-Xlog:gc:file=/tmp/gc-%p.log"]), Some(format!("/tmp/gc-{pid}.log").into()));
    }

    #[test]
    fn options_that_write_no_gc_file() {
        let found = |list: &[&str]| log_file_from_args(&args(list), 1);
        assert_eq!(found(&["-Xlog:gc"]), None);
        assert_eq!(found(&["-Xlog:gc:stdout"]), None);
        assert_eq!(found(&["-Xlog:gc*:stderr:uptime"]), None);
        assert_eq!(found(&["-Xlog:safepoint:file=/tmp/sp.log"]), None);
        assert_eq!(found(&["-Xlog:gc=off:file=/tmp/off.log"]), None);
        assert_eq!(found(&["-Xmx1g", "-jar", "app.jar"]), None);
        // The first option that writes gc messages to a file wins.
        assert_eq!(
            found(&["-Xlog:gc", "-Xlog:safepoint:file=/tmp/a.log", "-Xlog:all=warning:file=/tmp/b.log"]),
            Some("/tmp/b.log".into())
        );
    }

    #[test]
    fn start_time_placeholder() {
        assert!(fits_time_pattern("gc-%t.log", "gc-2026-11-22_02-01-51.log"));
        assert!(!fits_time_pattern("gc-%t.log", "gc-2026-11-22_02-01-51.log.0"));
        assert!(!fits_time_pattern("gc-%t.log", "gc-2026-11-22.log"));
        assert!(fits_time_pattern("gc-%t-%t", "gc-2026-11-22_02-01-51-2026-11-22_02-01-52"));
        let directory = std::env::temp_dir().join(format!("jload-gclog-args-{}", std::process::id()));
        fs::create_dir_all(&directory).unwrap();
        for name in ["gc-2026-11-22_02-01-51.log", "gc-2026-11-23_00-00-00.log", "other.log"] {
            fs::write(directory.join(name), "").unwrap();
        }
        let pattern = format!("-Xlog:gc:file={}/gc-%t.log", directory.display());
        let found = log_file_from_args(&args(&[&pattern]), 1);
        fs::remove_dir_all(&directory).unwrap();
        assert_eq!(found, Some(directory.join("gc-2026-11-23_00-00-00.log")));
    }
}
