//! The report's analysis: decides, once, what a results directory says, into the model (`model.rs`, report.json)
//! that every renderer reads. `analyse` puts it together from: `metrics` (the report's figure registry: each figure's
//! reader, format and which way is better), `stats` (medians, intervals, Welch's test, ranking), `spectrum` (the
//! latency percentile spectrum), `cell_attribution` ("is it the GC?" over a cell's repeats), `tail_points` (the slow
//! requests and stops its chart draws), `timelines` (each cell's typical repeat over time), `curves` (latency against
//! throughput over ladder and search steps, ranked per step), `capacity` (a cell's capacity over its repeats),
//! `equal_load` (which latencies are comparable), `gc_share` (which figure is a phase's GC share and which GC-time
//! figures are shown beside it), `connection_sweep` (the connection counts a plan swept), `steadiness`
//! (findings on a target that changed), `memory` (the whole-life RSS peak and each cell's memory section),
//! `recommend` (the recommendation), `tune` (a tune's trials, best configurations and what mattered), `host_effect` with `host_fit` (whether a
//! repeat's server explains a cell's spread). `compare` is the analysis of two runs side by side, with its text.
//!
//! The boundary, enforced by the compiler: every module here is private; this file re-exports the model — its types,
//! and the registry's `metric`, `Metric`, `Format`, `CAPACITY`, `HEADLINE`, `shown_in` and `ranked_headlines` that say
//! how a figure is labelled and formatted, which outputs show it and which headlines a phase ranks on — to the rest
//! of `report`, and nothing else. A renderer that reaches for an analysis helper does not compile; what it needs is
//! computed into the model, or is a pure formatter (`report::words`, or the renderer's own).

mod analyse;
mod capacity;
mod cell_attribution;
mod compare;
mod connection_sweep;
mod curves;
mod equal_load;
mod gc_share;
mod host_effect;
mod host_fit;
mod memory;
mod metrics;
mod model;
mod recommend;
mod spectrum;
use crate::stats;
mod steadiness;
mod tail_points;
mod timelines;
mod tune;

pub(in crate::report) use analyse::analyse;
pub(in crate::report) use cell_attribution::{CellAttribution, Combined};
pub(in crate::report) use compare::{compare, parse_threshold, render as render_comparison};
pub(in crate::report) use curves::CurvePoint;
pub(in crate::report) use equal_load::PhaseKind;
pub(in crate::report) use gc_share::GC_SHARE;
pub(in crate::report) use memory::{CellMemory, OTHER_SHARE};
pub(in crate::report) use metrics::{CAPACITY, Format, HEADLINE, Metric, metric, ranked_headlines, shown_in};
pub(in crate::report) use model::{
    Analysis, AxisInfo, CellInfo, CellPhase, ConnectionSweep, Kind, PhaseAnalysis, PhaseSpan, StepSpan,
};
pub(in crate::report) use recommend::{CONTENDERS_MOST, contenders};
pub(in crate::report) use spectrum::Source;
pub(in crate::report) use stats::{Better, Standing};
pub(in crate::report) use tail_points::{TailChart, TailPoint, TailWindow};
pub(in crate::report) use tune::{CapacityPoint, CellTuneSection};
