//! The plan's axes: each checked (a unique name, at least one value, unique labels) into its values — written out
//! (`values = [...]`: options, JDK, env, program arguments, box), or a box axis in shorthand (`memory = ["384m",
//! "512m"]`, `cpus_quota = [0.5, 1]`).

use std::collections::{BTreeMap, HashSet};

use toml::Spanned;

use super::schema::{AxisFile, AxisValueFile};
use super::{Axis, AxisValue, PlanBase, args, box_limits, resolve_jdk};
use crate::cgroup::Limits;
use crate::tomlfile::Source;

/// Check every axis: unique non-empty names, at least one value, unique labels.
pub(super) fn parse_axes(source: Source<'_>, base: &PlanBase, axes: &[AxisFile]) -> anyhow::Result<Vec<Axis>> {
    let mut parsed = Vec::new();
    let mut names = HashSet::new();
    for axis in axes {
        let name = axis.name.get_ref().trim().to_string();
        if name.is_empty() || name.contains([',', '=']) {
            return Err(
                source.error_at(axis.name.span(), format!("axis name '{name}' must be non-empty without ',' or '='"))
            );
        }
        if !names.insert(name.clone()) {
            return Err(source.error_at(axis.name.span(), format!("duplicate axis name '{name}'")));
        }
        let values = match (&axis.values, &axis.memory, &axis.cpus_quota) {
            (Some(values), None, None) => {
                if values.get_ref().is_empty() {
                    let message = format!("axis '{name}' has no values; give at least one");
                    return Err(source.error_at(values.span(), message));
                }
                axis_values(source, base, &name, values.get_ref())?
            }
            (None, Some(sizes), None) => box_limits::memory_axis(source, &name, sizes)?,
            (None, None, Some(quotas)) => box_limits::quota_axis(source, &name, quotas)?,
            _ => {
                let message =
                    format!("axis '{name}': give one of values, memory = [\"384m\", …] or cpus_quota = [0.5, …]");
                return Err(source.error_at(axis.name.span(), message));
            }
        };
        let mut labels = HashSet::new();
        if let Some(twice) = values.iter().find(|value| !labels.insert(value.label.as_str())) {
            let message = format!("axis '{name}': duplicate label '{}'", twice.label);
            return Err(source.error_at(axis.name.span(), message));
        }
        parsed.push(Axis { name, values });
    }
    Ok(parsed)
}

fn axis_values(
    source: Source<'_>,
    base: &PlanBase,
    axis_name: &str,
    values: &[Spanned<AxisValueFile>],
) -> anyhow::Result<Vec<AxisValue>> {
    let mut labels = HashSet::new();
    let mut parsed = Vec::new();
    for value in values {
        let checked = match value.get_ref() {
            AxisValueFile::Option(option) => {
                let (jvm, env, limits) = (vec![option.clone()], BTreeMap::new(), Limits::default());
                AxisValue { label: option.clone(), jvm, jdk: None, env, args: Vec::new(), limits }
            }
            AxisValueFile::Table(table) => AxisValue {
                label: table.label.clone(),
                jvm: table.jvm.clone(),
                jdk: resolve_jdk(&table.jdk, base),
                env: table.env.clone(),
                args: args::parse_args(table.args.as_ref()).map_err(|message| {
                    source.error_at(value.span(), format!("axis '{axis_name}' value '{}': {message}", table.label))
                })?,
                limits: box_limits::axis_value_limits(source, value.span(), axis_name, table)?,
            },
        };
        if checked.label.trim().is_empty() {
            return Err(source.error_at(value.span(), format!("axis '{axis_name}': a label must not be empty")));
        }
        if !labels.insert(checked.label.clone()) {
            return Err(
                source.error_at(value.span(), format!("axis '{axis_name}': duplicate label '{}'", checked.label))
            );
        }
        parsed.push(checked);
    }
    Ok(parsed)
}
