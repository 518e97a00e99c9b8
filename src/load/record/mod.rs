//! What a run recorded and the result it becomes: per-thread histograms and series (`recorder.rs`), the closed model's
//! correction (`pause_correction.rs`), the slow requests one by one (`slow.rs`), each thread's CPU (`thread_cpu.rs`),
//! the result as a plain serde value (`result.rs`, with its summaries in `summary.rs` and what the run or a search
//! concluded in `outcomes.rs`), who limited an open-model rate (`whose_limit.rs`) and the histogram encodings
//! (`histogram_codec.rs`, `hlog.rs`).

pub mod histogram_codec;
pub mod hlog;
pub mod named_figures;
pub mod outcomes;
pub mod pause_correction;
pub mod recorder;
pub mod result;
pub mod slow;
pub mod summary;
pub mod thread_cpu;
pub mod whose_limit;
