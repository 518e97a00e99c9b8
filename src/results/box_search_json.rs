//! `box_search.json`: what a box search tried per cell and what it found — each trial's limit, whether it held the
//! SLO and why not, and the answer with its bounds (docs/results.md), and the answer in one sentence for every output.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::plan::box_search::{BoxDimension, SearchRange};

/// The whole file: one search per cell and searched limit, in the order they ran.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct BoxSearchRecord {
    pub searches: Vec<CellBoxSearch>,
}

/// One limit searched for one cell (a combination of the plan's axes).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CellBoxSearch {
    /// The plan's cell (`gc=G1`; `default` without axes).
    pub cell: String,
    pub axes: BTreeMap<String, String>,
    pub range: SearchRange,
    /// The load each trial ran, in words (`20,000 req/s`).
    pub load: String,
    /// The SLO a trial must meet (`p99<=10ms`).
    pub slo: Vec<String>,
    /// In the order they ran.
    pub trials: Vec<BoxTrial>,
    /// None while the search is under way (or was interrupted), or when it could not run (`not_searched`).
    pub answer: Option<BoxAnswer>,
    /// `at_capacity`: the run in the largest box that found the rate the trials run at.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity: Option<CapacityRun>,
    /// Why no trial ran (`at_capacity` found no capacity in the largest box).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_searched: Option<String>,
}

/// A cell's capacity run in the largest box (`[box_search] at_capacity`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CapacityRun {
    /// Its cell id and folder under `cells/` (`gc=G1,memory=2048m,load=capacity`).
    pub cell: String,
    pub dir: String,
    /// The share of the capacity the trials run at.
    pub share: f64,
    /// The capacity found (req/s); None when none was.
    pub rps: Option<f64>,
    /// The search's own verdict line.
    pub verdict: Option<String>,
}

/// One trial: a fresh cell-repeat in a box with this limit.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct BoxTrial {
    /// Bytes or CPUs.
    pub limit: f64,
    /// The trial's cell id in `summary.json` and its folder under `cells/` (`gc=G1,memory=448m`).
    pub cell: String,
    pub dir: String,
    pub passed: bool,
    /// Why it failed, in one line (`killed by the memory limit (301 MiB): peak 301 MiB`, `phase 'get': p99 14.2 ms,
    /// over p99<=10ms`); None when it passed.
    pub failure: Option<String>,
}

/// What a search found.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum BoxAnswer {
    /// The smallest box lies above `highest_failing` and at most at `lowest_passing`, within the precision.
    Between { highest_failing: f64, lowest_passing: f64 },
    /// Even the lower bound held the SLO.
    AtMostLowerBound { lowest_passing: f64 },
    /// Not even the upper bound held it: no box in range does.
    NoneInRange { highest_failing: f64 },
}

impl CellBoxSearch {
    /// The answer in one sentence: `gc=G1 needs 448–470 MiB at 20,000 req/s within p99<=10ms (fails at 448 MiB:
    /// killed by the memory limit …, holds at 470 MiB)`.
    pub fn sentence(&self) -> String {
        let dimension = self.range.dimension;
        let words = |value: f64| dimension.words(value);
        let within = format!("at {} within {}", self.load, self.slo.join(", "));
        let why = |limit: f64| {
            self.trials
                .iter()
                .find(|trial| trial.limit == limit)
                .and_then(|trial| trial.failure.clone())
                .unwrap_or_default()
        };
        let what = match dimension {
            BoxDimension::Memory => "memory",
            BoxDimension::CpusQuota => "CPU quota",
        };
        match self.answer {
            Some(BoxAnswer::Between { highest_failing, lowest_passing }) => format!(
                "{} needs {}–{} {within} (fails at {}: {}; holds at {})",
                self.cell,
                number(dimension, highest_failing),
                words(lowest_passing),
                words(highest_failing),
                why(highest_failing),
                words(lowest_passing)
            ),
            Some(BoxAnswer::AtMostLowerBound { lowest_passing }) => format!(
                "{} needs at most {} {within}: the search's lower bound holds it",
                self.cell,
                words(lowest_passing)
            ),
            Some(BoxAnswer::NoneInRange { highest_failing }) => format!(
                "{}: no {what} up to {} meets {} at {} (fails at {}: {})",
                self.cell,
                words(highest_failing),
                self.slo.join(", "),
                self.load,
                words(highest_failing),
                why(highest_failing)
            ),
            None => match &self.not_searched {
                Some(why) => format!("{}: the {what} was not searched: {why}", self.cell),
                None => {
                    format!("{}: the {what} search did not finish ({} trial(s) done)", self.cell, self.trials.len())
                }
            },
        }
    }
}

/// A limit as a bare number in the dimension's unit (`448`, `0.5`), for the first of a pair.
fn number(dimension: BoxDimension, value: f64) -> String {
    let words = dimension.words(value);
    words.split(' ').next().unwrap_or(&words).to_string()
}
