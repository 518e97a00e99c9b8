//! No test writes into the working tree. Cargo runs the integration suites one after another in the order of their
//! names, so this one, named to sort last, looks at the tree after all the others: any file git does not track
//! (ignored or not) that was written after the test binaries were built, outside the build folders, is a test's
//! scratch file left where it must not be (tests write under their own temporary folders: `common::tempdir`).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

/// Folders where the build writes while the tests run: cargo's and Maven's (the tests build kv-service's jar).
const BUILD_FOLDERS: &[&str] = &["target/", "samples/kv-service/target/"];

#[test]
fn no_test_left_a_file_in_the_working_tree() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let built = std::fs::metadata(std::env::current_exe().unwrap()).unwrap().modified().unwrap();
    let output = Command::new("git")
        .args(["status", "--porcelain", "--untracked-files=all", "--ignored", "-z"])
        .current_dir(repo)
        .output()
        .ok()
        .filter(|output| output.status.success());
    let Some(output) = output else {
        eprintln!("not a git checkout: nothing to compare against");
        return;
    };
    let written: Vec<PathBuf> = String::from_utf8_lossy(&output.stdout)
        .split('\0')
        .filter_map(|entry| entry.strip_prefix("?? ").or_else(|| entry.strip_prefix("!! ")))
        .filter(|path| !BUILD_FOLDERS.iter().any(|folder| path.starts_with(folder)))
        .map(|path| repo.join(path))
        .filter(|path| written_since(path, built))
        .collect();
    assert!(
        written.is_empty(),
        "tests wrote into the working tree (write under common::tempdir() instead): {written:?}"
    );
}

#[test]
fn no_jvm_leftover_is_tracked() {
    // A JVM leaves `.attach_pid<pid>` where an attach client asked it to listen, `hs_err_pid<pid>.log` and core files
    // where it crashed: a run's leftovers, never the project's.
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let Ok(output) = Command::new("git").args(["ls-files", "-z"]).current_dir(repo).output() else { return };
    let numbered = |name: &str, prefix: &str, suffix: &str| {
        name.strip_prefix(prefix)
            .and_then(|rest| rest.strip_suffix(suffix))
            .is_some_and(|digits| !digits.is_empty() && digits.bytes().all(|byte| byte.is_ascii_digit()))
    };
    let leftovers: Vec<String> = String::from_utf8_lossy(&output.stdout)
        .split('\0')
        .filter(|path| {
            let name = path.rsplit('/').next().unwrap_or(path);
            numbered(name, ".attach_pid", "") || numbered(name, "hs_err_pid", ".log") || numbered(name, "core.", "")
        })
        .map(str::to_string)
        .collect();
    assert!(leftovers.is_empty(), "a JVM's leftovers are tracked (git rm them): {leftovers:?}");
}

/// Whether the file `path` (or any file under the folder `path`) was modified after `since`.
fn written_since(path: &Path, since: SystemTime) -> bool {
    let Ok(metadata) = std::fs::symlink_metadata(path) else { return false };
    if metadata.is_dir() {
        let Ok(entries) = std::fs::read_dir(path) else { return false };
        return entries.flatten().any(|entry| written_since(&entry.path(), since));
    }
    metadata.modified().map(|modified| modified > since).unwrap_or(false)
}
