//! For the report's unit tests: a results fixture's top-level files (figures from summary.json alone) in a temporary
//! folder, its summary edited first.

use std::path::Path;

use serde_json::Value;

/// A copy of `tests/fixtures/results/<name>`'s env.json, plan.toml and summary.json, with `edit` applied to the summary.
pub fn fixture_with(name: &str, edit: impl FnOnce(&mut Value)) -> tempfile::TempDir {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/results").join(name);
    let dir = tempfile::tempdir().unwrap();
    for file in ["env.json", "plan.toml"] {
        std::fs::copy(fixture.join(file), dir.path().join(file)).unwrap();
    }
    let mut summary: Value =
        serde_json::from_str(&std::fs::read_to_string(fixture.join("summary.json")).unwrap()).unwrap();
    edit(&mut summary);
    std::fs::write(dir.path().join("summary.json"), summary.to_string()).unwrap();
    dir
}
