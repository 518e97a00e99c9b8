//! The box a plan puts its target in (docs/containers.md): `[target] memory` and `cpus_quota`, and an axis value's
//! own, which replace them for its cells — checked, each error one line naming the file, line and key.

use std::ops::Range;

use crate::cgroup::Limits;
use crate::tomlfile::Source;
use crate::units::parse_size;

use super::Plan;
use super::schema::{AxisValueTable, TargetFile};

/// `[target]`'s box.
pub fn target_limits(source: Source<'_>, target: &TargetFile) -> anyhow::Result<Limits> {
    let mut limits = Limits::default();
    if let Some(text) = &target.memory {
        let error = |message: String| source.error_at(text.span(), format!("target.memory: {message}"));
        let bytes = parse_size("target.memory", text.get_ref()).map_err(|err| source.error_at(text.span(), err))?;
        let alone = Limits { memory_bytes: Some(bytes), cpus_quota: None };
        alone.check().map_err(|err| error(err.to_string()))?;
        limits.memory_bytes = Some(bytes);
    }
    if let Some(quota) = &target.cpus_quota {
        let alone = Limits { memory_bytes: None, cpus_quota: Some(*quota.get_ref()) };
        alone.check().map_err(|err| source.error_at(quota.span(), format!("target.cpus_quota: {err}")))?;
        limits.cpus_quota = Some(*quota.get_ref());
    }
    Ok(limits)
}

/// A box is made on this machine only: a plan whose target runs on another server (`target.host`) and sets one is
/// refused (the agent does not report the box's figures back yet).
pub fn refuse_remote_box(plan: &Plan) -> Result<(), String> {
    let boxed = !unlimited(&plan.target.limits)
        || plan.axes.iter().flat_map(|axis| &axis.values).any(|value| !unlimited(&value.limits));
    if boxed && !plan.target.hosts.is_empty() {
        return Err("memory and cpus_quota box a target on this machine only; not yet with target.host or \
                    target.hosts"
            .to_string());
    }
    Ok(())
}

/// An axis value's box (its line is `span`).
pub fn axis_value_limits(
    source: Source<'_>,
    span: Range<usize>,
    axis_name: &str,
    table: &AxisValueTable,
) -> anyhow::Result<Limits> {
    let error = |message: String| source.error_at(span.clone(), format!("axis '{axis_name}': {message}"));
    let memory = match &table.memory {
        Some(text) => Some(parse_size("memory", text).map_err(|err| error(err.to_string()))?),
        None => None,
    };
    let limits = Limits { memory_bytes: memory, cpus_quota: table.cpus_quota };
    limits.check().map_err(|err| error(err.to_string()))?;
    Ok(limits)
}

/// `over`'s limits where it sets them, else `base`'s.
pub fn merged(base: &Limits, over: &Limits) -> Limits {
    Limits { memory_bytes: over.memory_bytes.or(base.memory_bytes), cpus_quota: over.cpus_quota.or(base.cpus_quota) }
}

/// Whether no limit is set (no box).
pub fn unlimited(limits: &Limits) -> bool {
    *limits == Limits::default()
}

/// The box in words: `memory 512 MiB, CPU quota 1.5`; `None` without one.
pub fn describe(limits: &Limits) -> Option<String> {
    let mut parts = Vec::new();
    if let Some(bytes) = limits.memory_bytes {
        parts.push(format!("memory {}", mebibytes(bytes)));
    }
    if let Some(cpus) = limits.cpus_quota {
        parts.push(format!("CPU quota {cpus}"));
    }
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// `512 MiB`, or `1.5 MiB` where not whole.
pub fn mebibytes(bytes: u64) -> String {
    let mib = bytes as f64 / f64::from(1 << 20);
    if mib.fract() == 0.0 { format!("{mib:.0} MiB") } else { format!("{mib:.1} MiB") }
}
