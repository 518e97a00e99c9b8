//! Matrix expansion: the cartesian product of the plan's axes, one cell per combination, each with a stable id
//! (`heap=-Xmx64m,gc=G1`), its labels, the JVM options its axis values add, and its JDK and environment.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::Plan;
use crate::error::bad_input;

/// One JVM configuration to test.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Cell {
    /// `axis=label,axis=label` in axis order; `default` for a plan without axes.
    pub id: String,
    /// Axis name → label.
    pub axes: BTreeMap<String, String>,
    /// Options contributed by the axis values, in axis order.
    pub jvm: Vec<String>,
    /// The JDK an axis value asks for (overrides target.jdk).
    pub jdk: Option<String>,
    pub env: BTreeMap<String, String>,
    /// Folder name under the results directory (the id made safe for a file system).
    pub dir: String,
}

/// Every cell of the plan, in matrix order (the last axis varies fastest).
pub fn cells(plan: &Plan) -> Vec<Cell> {
    let mut cells = vec![Cell {
        id: String::new(),
        axes: BTreeMap::new(),
        jvm: Vec::new(),
        jdk: None,
        env: BTreeMap::new(),
        dir: String::new(),
    }];
    for axis in &plan.axes {
        let mut next = Vec::with_capacity(cells.len() * axis.values.len());
        for cell in &cells {
            for value in &axis.values {
                let mut extended = cell.clone();
                if !extended.id.is_empty() {
                    extended.id.push(',');
                }
                extended.id.push_str(&format!("{}={}", axis.name, value.label));
                extended.axes.insert(axis.name.clone(), value.label.clone());
                extended.jvm.extend(value.jvm.iter().cloned());
                if value.jdk.is_some() {
                    extended.jdk = value.jdk.clone();
                }
                extended.env.extend(value.env.iter().map(|(key, val)| (key.clone(), val.clone())));
                next.push(extended);
            }
        }
        cells = next;
    }
    let mut used = std::collections::HashSet::new();
    for cell in &mut cells {
        if cell.id.is_empty() {
            cell.id = "default".to_string();
        }
        let safe: String =
            cell.id.chars().map(|c| if c.is_ascii_alphanumeric() || "._=,+-:".contains(c) { c } else { '_' }).collect();
        let mut dir = safe.clone();
        let mut suffix = 2;
        while !used.insert(dir.clone()) {
            dir = format!("{safe}~{suffix}");
            suffix += 1;
        }
        cell.dir = dir;
    }
    cells
}

/// Keep the cells matching `--only 'axis=label,axis=label'` (every given axis must match; others are free).
pub fn select(cells: Vec<Cell>, only: &str, plan: &Plan) -> anyhow::Result<Vec<Cell>> {
    let mut wanted = BTreeMap::new();
    for part in only.split(',').filter(|part| !part.trim().is_empty()) {
        let (axis, label) = part
            .split_once('=')
            .ok_or_else(|| bad_input(format!("--only '{only}': write it as axis=label[,axis=label]")))?;
        let axis = axis.trim();
        let known = plan.axes.iter().find(|candidate| candidate.name == axis).ok_or_else(|| {
            let names: Vec<&str> = plan.axes.iter().map(|axis| axis.name.as_str()).collect();
            bad_input(format!("--only: '{axis}' is not an axis of this plan (axes: {})", names.join(", ")))
        })?;
        if !known.values.iter().any(|value| value.label == label) {
            let labels: Vec<&str> = known.values.iter().map(|value| value.label.as_str()).collect();
            return Err(bad_input(format!(
                "--only: axis '{axis}' has no label '{label}' (labels: {})",
                labels.join(", ")
            )));
        }
        wanted.insert(axis.to_string(), label.to_string());
    }
    Ok(cells.into_iter().filter(|cell| wanted.iter().all(|(axis, label)| cell.axes.get(axis) == Some(label))).collect())
}
