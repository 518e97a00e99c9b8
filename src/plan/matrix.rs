//! Matrix expansion: the cartesian product of the plan's axes, one cell per combination, each with a stable id
//! (`heap=-Xmx64m,gc=G1`), its labels, the JVM options and program arguments its axis values add, and its JDK and
//! environment.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{Plan, box_limits, folder};
use crate::cgroup::Limits;
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
    /// Program arguments contributed by the axis values, in axis order: placed by [`crate::plan::args::place_args`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// The box the cell's target runs in: `[target]`'s limits, each replaced by an axis value's that sets it.
    #[serde(default, skip_serializing_if = "box_limits::unlimited")]
    pub limits: Limits,
    /// Folder name under the results directory: the id made safe for file systems, JVM options and shells
    /// (see `plan::folder`); recorded in the results directory's `run.json`.
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
        args: Vec::new(),
        limits: plan.target.limits,
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
                extended.args.extend(value.args.iter().cloned());
                extended.limits = box_limits::merged(&extended.limits, &value.limits);
                next.push(extended);
            }
        }
        cells = next;
    }
    let folders: Vec<String> = cells
        .iter()
        .map(|cell| {
            let pairs: Vec<(&str, &str)> = plan
                .axes
                .iter()
                .filter_map(|axis| Some((axis.name.as_str(), cell.axes.get(&axis.name)?.as_str())))
                .collect();
            folder::cell_folder(&pairs)
        })
        .collect();
    for (cell, dir) in cells.iter_mut().zip(folder::unique_folders(folders)) {
        if cell.id.is_empty() {
            cell.id = "default".to_string();
        }
        cell.dir = dir;
    }
    cells
}

/// Keep the cells matching `--only 'axis=label,axis=label'` (every given axis must match; others are free). Labels
/// may contain `,` and `=` themselves: the text is read as the plan's own `axis=label` pairs joined by `,`.
pub fn select(cells: Vec<Cell>, only: &str, plan: &Plan) -> anyhow::Result<Vec<Cell>> {
    let wanted = match_pairs(only, plan).ok_or_else(|| explain_only(only, plan))?;
    Ok(cells.into_iter().filter(|cell| wanted.iter().all(|(axis, label)| cell.axes.get(axis) == Some(label))).collect())
}

/// `text` as `axis=label` pairs of the plan joined by `,` (each axis once); None when it cannot be read so.
fn match_pairs(text: &str, plan: &Plan) -> Option<BTreeMap<String, String>> {
    let text = text.trim_start();
    if text.is_empty() {
        return Some(BTreeMap::new());
    }
    for axis in &plan.axes {
        let Some(rest) = text.strip_prefix(axis.name.as_str()).and_then(|rest| rest.trim_start().strip_prefix('='))
        else {
            continue;
        };
        for value in &axis.values {
            let Some(after) = rest.strip_prefix(value.label.as_str()) else { continue };
            let tail = match after.trim_start().strip_prefix(',') {
                Some(tail) => tail,
                None if after.trim().is_empty() => "",
                None => continue,
            };
            if let Some(mut pairs) = match_pairs(tail, plan)
                && !pairs.contains_key(&axis.name)
            {
                pairs.insert(axis.name.clone(), value.label.clone());
                return Some(pairs);
            }
        }
    }
    None
}

/// Why `--only` text is not a list of the plan's pairs, in one line: the unknown axis or label, or the form to use.
fn explain_only(only: &str, plan: &Plan) -> anyhow::Error {
    for part in only.split(',').filter(|part| !part.trim().is_empty()) {
        let Some((axis, label)) = part.split_once('=') else { break };
        let axis = axis.trim();
        let Some(known) = plan.axes.iter().find(|candidate| candidate.name == axis) else {
            let names: Vec<&str> = plan.axes.iter().map(|axis| axis.name.as_str()).collect();
            return bad_input(format!("--only: '{axis}' is not an axis of this plan (axes: {})", names.join(", ")));
        };
        if !known.values.iter().any(|value| value.label.starts_with(label)) {
            let labels: Vec<&str> = known.values.iter().map(|value| value.label.as_str()).collect();
            return bad_input(format!("--only: axis '{axis}' has no label '{label}' (labels: {})", labels.join(" | ")));
        }
    }
    bad_input(format!("--only '{only}': write it as axis=label[,axis=label] with the plan's labels, each axis once"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{PlanBase, parse_plan};

    /// A plan with these `[[axis]]` tables.
    fn plan(axes: &str) -> Plan {
        let text = format!(
            "name = \"m\"\n[target]\ncommand = \"java {{jvm}} -jar x.jar\"\nready = \"http://127.0.0.1:{{port}}/\"\n\
             {axes}\n[[phase]]\nname = \"get\"\nurl = \"http://127.0.0.1:{{port}}/\"\nduration = \"1s\"\n"
        );
        parse_plan("m.toml", &text, &PlanBase { plan_dir: "/tmp".into(), cwd: "/tmp".into() }).unwrap()
    }

    const ANY_VALUE: &str = "[[axis]]\nname = \"gc\"\nvalues = [\"-XX:+UseSerialGC\", \"-XX:+UseParallelGC\"]\n\
        [[axis]]\nname = \"opt\"\nvalues = [{ label = \"a, b = c/d \\\"q\\\" é\", jvm = [\"-Da=1\"] }, \
        { label = \"a_b\", jvm = [\"-Da=2\"] }]\n";

    #[test]
    fn ids_keep_the_labels_and_folders_are_safe_and_unique() {
        let cells = cells(&plan(ANY_VALUE));
        let ids: Vec<&str> = cells.iter().map(|cell| cell.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "gc=-XX:+UseSerialGC,opt=a, b = c/d \"q\" é",
                "gc=-XX:+UseSerialGC,opt=a_b",
                "gc=-XX:+UseParallelGC,opt=a, b = c/d \"q\" é",
                "gc=-XX:+UseParallelGC,opt=a_b",
            ]
        );
        let dirs: Vec<&str> = cells.iter().map(|cell| cell.dir.as_str()).collect();
        assert_eq!(
            dirs,
            [
                "gc=-XX_+UseSerialGC__opt=a_b_=_c_d_q_",
                "gc=-XX_+UseSerialGC__opt=a_b",
                "gc=-XX_+UseParallelGC__opt=a_b_=_c_d_q_",
                "gc=-XX_+UseParallelGC__opt=a_b",
            ]
        );
        assert_eq!(cells[0].jvm, ["-XX:+UseSerialGC", "-Da=1"]);
    }

    #[test]
    fn program_arguments_are_concatenated_in_axis_order() {
        let cells = cells(&plan(
            "[[axis]]\nname = \"journal\"\nvalues = [{ label = \"on\" }, \
             { label = \"off\", args = [\"--no-request-journal\"] }]\n\
             [[axis]]\nname = \"threads\"\nvalues = [{ label = \"10\", args = [\"--container-threads\", \"10\"] }]\n",
        ));
        let args: Vec<(&str, Vec<&str>)> =
            cells.iter().map(|cell| (cell.id.as_str(), cell.args.iter().map(String::as_str).collect())).collect();
        assert_eq!(
            args,
            [
                ("journal=on,threads=10", vec!["--container-threads", "10"]),
                ("journal=off,threads=10", vec!["--no-request-journal", "--container-threads", "10"]),
            ]
        );
        assert!(cells.iter().all(|cell| cell.jvm.is_empty()), "args are no JVM options");
    }

    #[test]
    fn labels_that_differ_only_in_unsafe_characters_get_distinct_folders() {
        let cells = cells(&plan("[[axis]]\nname = \"x\"\nvalues = [\"a:b\", \"a,b\", \"a b\"]\n"));
        let dirs: Vec<&str> = cells.iter().map(|cell| cell.dir.as_str()).collect();
        assert_eq!(dirs, ["x=a_b", "x=a_b_2", "x=a_b_3"]);
    }

    #[test]
    fn only_reads_labels_that_contain_commas_and_equals_signs() {
        let plan = plan(ANY_VALUE);
        let chosen = select(cells(&plan), "opt=a, b = c/d \"q\" é,gc=-XX:+UseParallelGC", &plan).unwrap();
        let ids: Vec<&str> = chosen.iter().map(|cell| cell.id.as_str()).collect();
        assert_eq!(ids, ["gc=-XX:+UseParallelGC,opt=a, b = c/d \"q\" é"]);
        assert_eq!(select(cells(&plan), "opt=a_b", &plan).unwrap().len(), 2);
        assert_eq!(select(cells(&plan), "gc=-XX:+UseSerialGC , opt=a_b ", &plan).unwrap().len(), 1);
        assert_eq!(select(cells(&plan), "", &plan).unwrap().len(), 4, "nothing asked, nothing left out");
    }

    #[test]
    fn only_names_an_unknown_axis_or_label() {
        let plan = plan(ANY_VALUE);
        let error = |only: &str| select(cells(&plan), only, &plan).unwrap_err().to_string();
        assert_eq!(error("heap=1"), "--only: 'heap' is not an axis of this plan (axes: gc, opt)");
        assert_eq!(
            error("gc=G1"),
            "--only: axis 'gc' has no label 'G1' (labels: -XX:+UseSerialGC | -XX:+UseParallelGC)"
        );
        assert!(error("gc").starts_with("--only 'gc': write it as axis=label"), "{}", error("gc"));
    }
}
