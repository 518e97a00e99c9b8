//! `[box_search]` (docs/containers.md, "The smallest box that holds the SLO"): which box limits a plan searches —
//! the memory limit and/or the CPU quota, each between its bounds to a precision — checked into a [`BoxSearch`],
//! every error one line naming the file, line and key.

use std::ops::Range;

use serde::{Deserialize, Serialize};
use toml::Spanned;

use super::phase_ladder::PhaseLadder;
use super::schema::{BoxSearchFile, SearchRangeFile};
use super::{Axis, Phase, Target};
use crate::cgroup::Limits;
use crate::load::search::ladder::LadderPlan;
use crate::tomlfile::Source;
use crate::units::parse_size;

/// The precision of a searched limit when the plan gives none: stop when the bounds are within 5 % of each other.
pub const DEFAULT_PRECISION: f64 = 0.05;

/// A box limit a search varies.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum BoxDimension {
    /// The memory limit, in bytes; every limit tried is whole MiB.
    Memory,
    /// The CPU quota, in CPUs; every quota tried is whole hundredths.
    CpusQuota,
}

impl BoxDimension {
    /// The plan key, which also names the trial cells' axis (`memory=448m`).
    pub fn key(self) -> &'static str {
        match self {
            BoxDimension::Memory => "memory",
            BoxDimension::CpusQuota => "cpus_quota",
        }
    }

    /// `value` on the grid of limits this dimension tries: whole MiB, or hundredths of a CPU (rounded down).
    pub fn on_grid(self, value: f64) -> f64 {
        match self {
            BoxDimension::Memory => (value / MIB).floor() * MIB,
            BoxDimension::CpusQuota => (value * 100.0 + 1e-9).floor() / 100.0,
        }
    }

    /// The least difference between two limits tried: 1 MiB, or 0.01 CPUs.
    pub fn grid_step(self) -> f64 {
        match self {
            BoxDimension::Memory => MIB,
            BoxDimension::CpusQuota => 0.01,
        }
    }

    /// A limit as a trial's label: `448m`, `0.75 CPU`.
    pub fn label(self, value: f64) -> String {
        match self {
            BoxDimension::Memory => format!("{}m", (value / MIB).round() as u64),
            BoxDimension::CpusQuota => format!("{} CPU", (value * 100.0).round() / 100.0),
        }
    }

    /// A limit in words: `448 MiB`, `0.75 CPU`.
    pub fn words(self, value: f64) -> String {
        match self {
            BoxDimension::Memory => format!("{} MiB", (value / MIB).round() as u64),
            BoxDimension::CpusQuota => self.label(value),
        }
    }

    /// `limits` with this dimension set to `value`.
    pub fn set(self, limits: Limits, value: f64) -> Limits {
        match self {
            BoxDimension::Memory => Limits { memory_bytes: Some(value.round() as u64), ..limits },
            BoxDimension::CpusQuota => Limits { cpus_quota: Some(value), ..limits },
        }
    }
}

const MIB: f64 = (1u64 << 20) as f64;

/// One searched limit: from its lower to its upper bound (bytes or CPUs, on the dimension's grid), until the highest
/// failing and the lowest passing limit are within `precision` (a share) of each other.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
pub struct SearchRange {
    pub dimension: BoxDimension,
    pub from: f64,
    pub to: f64,
    pub precision: f64,
}

/// A checked `[box_search]`: memory is searched first (at the CPU quota's upper bound, when that is searched too),
/// then the CPU quota in the smallest memory found.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct BoxSearch {
    pub memory: Option<SearchRange>,
    pub cpus_quota: Option<SearchRange>,
    /// Each cell first runs the plan as written in the largest box; its measured capacity search's result times
    /// this share is then the fixed rate of that phase in every trial. None: the phases' own rates.
    pub at_capacity: Option<f64>,
}

impl BoxSearch {
    /// The searched ranges in the order they are searched.
    pub fn ranges(&self) -> Vec<SearchRange> {
        self.memory.iter().chain(self.cpus_quota.iter()).copied().collect()
    }

    /// `limits` with every searched limit at its upper bound: the largest box, in which the preflight and a dry run
    /// show each cell.
    pub fn largest_box(&self, limits: Limits) -> Limits {
        self.ranges().iter().fold(limits, |limits, range| range.dimension.set(limits, range.to))
    }

    /// How many trials a search of `range` takes at most: both bounds, then bisection on a log scale.
    pub fn most_trials(range: &SearchRange) -> u32 {
        let ratio = (range.to / range.from).ln();
        let wanted = (1.0 + range.precision).ln();
        2 + (ratio / wanted).log2().ceil().max(0.0) as u32
    }
}

/// What the checks of `[box_search]` need from the rest of the plan.
pub(super) struct PlanParts<'a> {
    pub target: &'a Target,
    pub axes: &'a [Axis],
    pub phases: &'a [Phase],
    pub slo: &'a [String],
}

/// Check `[box_search]` against the rest of the plan.
pub(super) fn parse_box_search(
    source: Source<'_>,
    file: &Spanned<BoxSearchFile>,
    plan: PlanParts<'_>,
) -> anyhow::Result<BoxSearch> {
    let at = |span: Range<usize>, message: String| source.error_at(span, format!("box_search: {message}"));
    let block = file.get_ref();
    if block.memory.is_none() && block.cpus_quota.is_none() {
        let message = "give memory = { from = \"128m\", to = \"2g\" } and/or cpus_quota = { from = 0.25, to = 2 }";
        return Err(at(file.span(), message.to_string()));
    }
    if plan.slo.is_empty() {
        let message = "a search needs an [slo] (a trial passes when the measured phases meet it); add e.g. [slo] \
                       p99 = \"10ms\"";
        return Err(at(file.span(), message.to_string()));
    }
    let at_capacity = match &block.at_capacity {
        Some(share) => Some(capacity_share(source, share, plan.phases)?),
        None => None,
    };
    let ladder_allowed = |phase: &&Phase| {
        at_capacity.is_some()
            && phase.measure
            && matches!(phase.ladder, Some(PhaseLadder { plan: LadderPlan::Capacity(_), .. }))
    };
    if let Some(phase) = plan.phases.iter().filter(|phase| phase.ladder.is_some()).find(|phase| !ladder_allowed(phase))
    {
        let message = format!(
            "phase '{}' is a rate ladder or capacity search; a box search runs each trial at a fixed load: give its \
             measured phases a rate, or search at_capacity with one measured capacity phase",
            phase.name
        );
        return Err(at(file.span(), message));
    }
    if !plan.phases.iter().any(|phase| phase.measure) {
        return Err(at(file.span(), "no phase is measured; the SLO is judged on the measured phases".to_string()));
    }
    let memory = match &block.memory {
        Some(range) => Some(memory_range(source, range)?),
        None => None,
    };
    let cpus_quota = match &block.cpus_quota {
        Some(range) => Some(quota_range(source, range)?),
        None => None,
    };
    let search = BoxSearch { memory, cpus_quota, at_capacity };
    for range in search.ranges() {
        let key = range.dimension.key();
        let span = match range.dimension {
            BoxDimension::Memory => block.memory.as_ref().map(Spanned::span),
            BoxDimension::CpusQuota => block.cpus_quota.as_ref().map(Spanned::span),
        }
        .unwrap_or(file.span());
        let in_target = match range.dimension {
            BoxDimension::Memory => plan.target.limits.memory_bytes.is_some(),
            BoxDimension::CpusQuota => plan.target.limits.cpus_quota.is_some(),
        };
        if in_target {
            let message = format!("{key} is searched, so target.{key} cannot fix it too; remove one");
            return Err(at(span, message));
        }
        let sets = |limits: &Limits| match range.dimension {
            BoxDimension::Memory => limits.memory_bytes.is_some(),
            BoxDimension::CpusQuota => limits.cpus_quota.is_some(),
        };
        let axis =
            plan.axes.iter().find(|axis| axis.name == key || axis.values.iter().any(|value| sets(&value.limits)));
        if let Some(axis) = axis {
            let message =
                format!("{key} is searched, so axis '{}' cannot set it too; remove the axis or the search", axis.name);
            return Err(at(span, message));
        }
    }
    Ok(search)
}

/// `at_capacity = 0.8`: a share above 0 and at most 1, in a plan with exactly one measured capacity phase.
fn capacity_share(source: Source<'_>, share: &Spanned<f64>, phases: &[Phase]) -> anyhow::Result<f64> {
    let at = |message: String| source.error_at(share.span(), format!("box_search.at_capacity: {message}"));
    let value = *share.get_ref();
    if !(value > 0.0 && value <= 1.0) {
        return Err(at(format!("{value} must be a share above 0 and at most 1, like 0.8")));
    }
    let searches = phases
        .iter()
        .filter(|phase| {
            phase.measure && matches!(phase.ladder, Some(PhaseLadder { plan: LadderPlan::Capacity(_), .. }))
        })
        .count();
    if searches != 1 {
        return Err(at(format!(
            "needs exactly one measured phase with capacity = …, found {searches}; it finds the rate in the largest box"
        )));
    }
    Ok(value)
}

fn memory_range(source: Source<'_>, file: &Spanned<SearchRangeFile<String>>) -> anyhow::Result<SearchRange> {
    let at = |message: String| source.error_at(file.span(), format!("box_search.memory: {message}"));
    let range = file.get_ref();
    let size = |key: &str, text: &str| -> anyhow::Result<f64> {
        let bytes = parse_size(key, text).map_err(|err| at(err.to_string()))?;
        Ok(BoxDimension::Memory.on_grid(bytes as f64))
    };
    let (from, to) = (size("from", &range.from)?, size("to", &range.to)?);
    if from < MIB {
        return Err(at(format!("from = '{}' is below 1 MiB; give a limit like \"128m\"", range.from)));
    }
    if from >= to {
        let message = format!(
            "from = '{}' must be below to = '{}' (in whole MiB); give from < to, e.g. from = \"128m\", to = \"2g\"",
            range.from, range.to
        );
        return Err(at(message));
    }
    Ok(SearchRange { dimension: BoxDimension::Memory, from, to, precision: precision(&range.precision).map_err(at)? })
}

fn quota_range(source: Source<'_>, file: &Spanned<SearchRangeFile<f64>>) -> anyhow::Result<SearchRange> {
    let at = |message: String| source.error_at(file.span(), format!("box_search.cpus_quota: {message}"));
    let range = file.get_ref();
    let (from, to) = (BoxDimension::CpusQuota.on_grid(range.from), BoxDimension::CpusQuota.on_grid(range.to));
    if from < 0.01 {
        return Err(at(format!("from = {} is below 0.01 CPUs (the kernel's least quota); give e.g. 0.25", range.from)));
    }
    if from >= to {
        let message = format!(
            "from = {} must be below to = {} (in hundredths of a CPU); give from < to, e.g. from = 0.25, to = 2",
            range.from, range.to
        );
        return Err(at(message));
    }
    let precision = precision(&range.precision).map_err(at)?;
    Ok(SearchRange { dimension: BoxDimension::CpusQuota, from, to, precision })
}

/// A precision written as a share (`0.05`) or a percentage (`"5%"`), above 0 and below 1.
fn precision(value: &Option<toml::Value>) -> Result<f64, String> {
    let share = match value {
        None => return Ok(DEFAULT_PRECISION),
        Some(toml::Value::Float(share)) => Some(*share),
        Some(toml::Value::Integer(share)) => Some(*share as f64),
        Some(toml::Value::String(text)) => {
            text.trim().strip_suffix('%').and_then(|number| number.trim().parse::<f64>().ok()).map(|pct| pct / 100.0)
        }
        Some(_) => None,
    };
    match share {
        Some(share) if share > 0.0 && share < 1.0 => Ok(share),
        _ => Err(format!(
            "precision {} must be a share above 0 and below 1, like 0.05 or \"5%\"",
            value.as_ref().map_or(String::new(), ToString::to_string)
        )),
    }
}

#[cfg(test)]
#[path = "box_search_tests.rs"]
mod tests;
