//! The box a plan puts its target in (docs/containers.md): `[target] memory` and `cpus_quota`, and an axis value's
//! own, which replace them for its cells — checked, each error one line naming the file, line and key.

use std::collections::BTreeMap;
use std::ops::Range;

use toml::Spanned;

use crate::cgroup::Limits;
use crate::tomlfile::Source;
use crate::units::parse_size;

use super::AxisValue;
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

/// `memory = ["384m", "512m"]`: one value per size, labelled as written, boxing its cells' memory.
pub fn memory_axis(
    source: Source<'_>,
    axis_name: &str,
    sizes: &Spanned<Vec<String>>,
) -> anyhow::Result<Vec<AxisValue>> {
    let error = |message: String| source.error_at(sizes.span(), format!("axis '{axis_name}': {message}"));
    let mut values = Vec::new();
    for text in sizes.get_ref() {
        let bytes = parse_size("memory", text).map_err(|err| error(err.to_string()))?;
        let limits = Limits { memory_bytes: Some(bytes), cpus_quota: None };
        limits.check().map_err(|err| error(err.to_string()))?;
        values.push(shorthand_value(text.trim().to_string(), limits));
    }
    Ok(values)
}

/// `cpus_quota = [0.5, 1.5]`: one value per quota, labelled by it, boxing its cells' CPU time.
pub fn quota_axis(source: Source<'_>, axis_name: &str, quotas: &Spanned<Vec<f64>>) -> anyhow::Result<Vec<AxisValue>> {
    let mut values = Vec::new();
    for &cpus in quotas.get_ref() {
        let limits = Limits { memory_bytes: None, cpus_quota: Some(cpus) };
        limits.check().map_err(|err| source.error_at(quotas.span(), format!("axis '{axis_name}': {err}")))?;
        values.push(shorthand_value(format!("{cpus} CPU"), limits));
    }
    Ok(values)
}

fn shorthand_value(label: String, limits: Limits) -> AxisValue {
    AxisValue { label, jvm: Vec::new(), jdk: None, env: BTreeMap::new(), args: Vec::new(), limits }
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

#[cfg(test)]
mod tests {
    use crate::cgroup::Limits;
    use crate::plan::matrix::cells;
    use crate::plan::{PlanBase, parse_plan};

    fn parse(target: &str, axes: &str) -> anyhow::Result<crate::plan::Plan> {
        let text = format!(
            "name = \"b\"\n[target]\ncommand = \"java {{jvm}} -jar x.jar\"\nready = \"http://127.0.0.1:{{port}}/\"\n\
             {target}\n{axes}\n[[phase]]\nname = \"get\"\nurl = \"http://127.0.0.1:{{port}}/\"\nduration = \"1s\"\n"
        );
        parse_plan("b.toml", &text, &PlanBase { plan_dir: "/tmp".into(), cwd: "/tmp".into() })
    }

    #[test]
    fn a_cell_takes_the_targets_box_with_each_axis_value_replacing_what_it_sets() {
        let plan = parse(
            "memory = \"512m\"\ncpus_quota = 1.5",
            "[[axis]]\nname = \"box\"\nvalues = [\"-Da\", { label = \"small\", memory = \"384m\" }, \
             { label = \"half\", cpus_quota = 0.5 }]\n",
        )
        .unwrap();
        let limits: Vec<Limits> = cells(&plan).iter().map(|cell| cell.limits).collect();
        assert_eq!(
            limits,
            [
                Limits { memory_bytes: Some(512 << 20), cpus_quota: Some(1.5) },
                Limits { memory_bytes: Some(384 << 20), cpus_quota: Some(1.5) },
                Limits { memory_bytes: Some(512 << 20), cpus_quota: Some(0.5) },
            ]
        );
        assert_eq!(cells(&parse("", "").unwrap())[0].limits, Limits::default(), "no key, no box");
    }

    #[test]
    fn a_box_axis_in_shorthand_labels_each_value_as_written() {
        let plan = parse(
            "",
            "[[axis]]\nname = \"mem\"\nmemory = [\"384m\", \"1g\"]\n[[axis]]\nname = \"cpu\"\ncpus_quota = [0.5, 2]\n",
        )
        .unwrap();
        let cells = cells(&plan);
        let ids: Vec<&str> = cells.iter().map(|cell| cell.id.as_str()).collect();
        assert_eq!(ids, ["mem=384m,cpu=0.5 CPU", "mem=384m,cpu=2 CPU", "mem=1g,cpu=0.5 CPU", "mem=1g,cpu=2 CPU"]);
        assert_eq!(cells[3].limits, Limits { memory_bytes: Some(1 << 30), cpus_quota: Some(2.0) });
        assert!(cells[0].jvm.is_empty());
    }

    #[test]
    fn bad_box_keys_name_the_file_line_and_key() {
        let error = |target: &str, axes: &str| parse(target, axes).unwrap_err().to_string();
        assert_eq!(
            error("memory = \"1x\"", ""),
            "b.toml: line 5: target.memory: '1x' is not a size; write it like 512m, 2g or 1.5g"
        );
        assert_eq!(
            error("cpus_quota = -1", ""),
            "b.toml: line 5: target.cpus_quota: CPU quota -1: give a positive number of CPUs, e.g. 0.5 or 1.5"
        );
        assert_eq!(
            error("", "[[axis]]\nname = \"m\"\nmemory = [\"512m\", \"big\"]\n"),
            "b.toml: line 8: axis 'm': memory: 'big' is not a size; write it like 512m, 2g or 1.5g"
        );
        assert_eq!(
            error("", "[[axis]]\nname = \"c\"\ncpus_quota = [0]\n"),
            "b.toml: line 8: axis 'c': CPU quota 0: give a positive number of CPUs, e.g. 0.5 or 1.5"
        );
        assert_eq!(
            error("", "[[axis]]\nname = \"m\"\nmemory = [\"512m\", \"512m\"]\n"),
            "b.toml: line 7: axis 'm': duplicate label '512m'"
        );
        assert!(
            error("", "[[axis]]\nname = \"m\"\nvalues = [\"-Da\"]\nmemory = [\"1g\"]\n")
                .ends_with("axis 'm': give one of values, memory = [\"384m\", …] or cpus_quota = [0.5, …]")
        );
    }
}
