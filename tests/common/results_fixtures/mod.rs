//! Test helpers for the results-directory fixtures (tests/fixtures/results): writable copies, summary edits, and
//! running `jload report` on them.

pub mod boxed;

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{TestDir, jload, tempdir};

pub fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/results").join(name)
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// A writable copy of a fixture (reports are written into the directory).
pub fn copy_of(name: &str) -> FixtureCopy {
    let scratch = tempdir();
    let path = scratch.join(name);
    copy_dir(&fixture(name), &path);
    FixtureCopy { _scratch: scratch, path }
}

/// A fixture's copy, removed when it goes out of scope; it reads as its `Path`.
pub struct FixtureCopy {
    _scratch: TestDir,
    path: PathBuf,
}

impl std::ops::Deref for FixtureCopy {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.path
    }
}

pub fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap_or_else(|err| panic!("{}: {err}", path.display())))
        .unwrap()
}

/// Change a copy's summary.json (as if the run had recorded something else).
pub fn edit_summary(dir: &Path, edit: impl FnOnce(&mut Value)) {
    let path = dir.join("summary.json");
    let mut summary = read_json(&path);
    edit(&mut summary);
    std::fs::write(&path, serde_json::to_vec_pretty(&summary).unwrap()).unwrap();
}

/// Run `jload report DIR` and expect success within seconds.
pub fn write_report(dir: &Path) {
    let (output, elapsed) = jload(&["report", dir.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(elapsed.as_secs() < 10, "a report takes seconds, took {elapsed:?}");
}

/// Run `jload report DIR`, expect success, return report.md.
pub fn report(dir: &Path) -> String {
    write_report(dir);
    std::fs::read_to_string(dir.join("report.md")).unwrap()
}

/// The first line of `markdown` that starts with `start`.
pub fn line_starting<'a>(markdown: &'a str, start: &str) -> &'a str {
    markdown
        .lines()
        .find(|line| line.starts_with(start))
        .unwrap_or_else(|| panic!("no line starting with {start:?} in\n{markdown}"))
}

/// Milliseconds as the report prints them (three significant decimals at most), written independently of jload here.
pub fn ms(value: f64) -> String {
    let decimals = if value >= 1000.0 {
        0
    } else if value >= 100.0 {
        1
    } else if value >= 10.0 {
        2
    } else {
        3
    };
    format!("{value:.decimals$}")
}

/// The median as the report takes it (the mean of the two middle values of an even count).
pub fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    let middle = values.len() / 2;
    if values.len() % 2 == 1 { values[middle] } else { (values[middle - 1] + values[middle]) / 2.0 }
}
