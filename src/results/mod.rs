//! The results directory: its layout (every file name, [`layout`]), the records in it ([`records`]) and reading it
//! back ([`reading`]). `run` writes a results directory through this module and `report` reads it through this
//! module; neither knows the other (the printer only consumes what the runner recorded).
//!
//! Depends on `plan`, `load` and `jvm` for the types the records hold; never on `run` or `report`.

pub mod box_search_json;
pub mod layout;
pub mod reading;
pub mod records;
pub mod slow_csv;
pub mod tune_json;

pub use crate::jvm::watch::gcstat_csv::HeapSample;
pub use layout::{RepFiles, ResultsDir, read_json};
pub use reading::Results;
pub use records::{
    BoxFigures, CellSummary, Env, ExitInfo, FailureKind, PhaseRecord, PhaseRecording, RepMeta, RepSummary, RunRecord,
    SUMMARY_VERSION, Status, Summary,
};
