//! Options relative to the cell's box (docs/containers.md): `{memory}` and `{memory*0.75}` in a JVM option, the
//! command, a program argument or an env value stand for the cell's memory limit (or that share of it) in whole MiB, `-Xmx{memory*0.75}`
//! → `-Xmx384m` in a 512 MiB box. Checked when the plan is read; filled in where the other placeholders are.

use super::Plan;
use super::matrix::cells;

const OPEN: &str = "{memory";

/// Check every `{memory…}` of the plan's options, command, program arguments and env: each reads, and each cell that uses one has a
/// memory limit (its own, or the one a box search gives each trial).
pub(super) fn check_plan(plan: &Plan) -> Result<(), String> {
    let target = &plan.target;
    let texts = target.jvm.iter().chain(&target.command).chain(target.env.values());
    let axis_texts = plan
        .axes
        .iter()
        .flat_map(|axis| axis.values.iter())
        .flat_map(|value| value.jvm.iter().chain(value.env.values()).chain(&value.args));
    for text in texts.clone().chain(axis_texts) {
        check(text)?;
    }
    let searched = plan.box_search.as_ref().is_some_and(|search| search.memory.is_some());
    if searched {
        return Ok(());
    }
    let target_uses = texts.clone().find(|text| mentions_memory(text));
    for cell in cells(plan) {
        let cell_uses = cell.jvm.iter().chain(cell.env.values()).chain(&cell.args).find(|text| mentions_memory(text));
        if let Some(text) = target_uses.or(cell_uses)
            && cell.limits.memory_bytes.is_none()
        {
            return Err(format!(
                "'{text}' is relative to the box, but cell '{}' has no memory limit; set target.memory, a memory \
                 axis or [box_search] memory",
                cell.id
            ));
        }
    }
    Ok(())
}

/// `text` with every `{memory}` / `{memory*F}` filled in from `memory_bytes`, rounded down to whole MiB (`384m`).
/// Without a limit, or where a placeholder does not read (the plan's check refused both), the text is left as is.
pub fn fill(text: &str, memory_bytes: Option<u64>) -> String {
    let Some(bytes) = memory_bytes else { return text.to_string() };
    let mut filled = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find(OPEN) {
        filled.push_str(&rest[..start]);
        let after = &rest[start..];
        match placeholder(after) {
            Some((Ok(share), length)) => {
                let mib = (bytes as f64 * share / f64::from(1 << 20)).floor() as u64;
                filled.push_str(&format!("{mib}m"));
                rest = &after[length..];
            }
            _ => {
                filled.push_str(OPEN);
                rest = &after[OPEN.len()..];
            }
        }
    }
    filled.push_str(rest);
    filled
}

/// Whether `text` holds a `{memory…}` placeholder.
pub fn mentions_memory(text: &str) -> bool {
    text.contains(OPEN)
}

/// Check every placeholder of `text`: `Err` with the one-line fix for one that does not read.
pub fn check(text: &str) -> Result<(), String> {
    let mut rest = text;
    while let Some(start) = rest.find(OPEN) {
        let after = &rest[start..];
        match placeholder(after) {
            Some((Ok(_), length)) => rest = &after[length..],
            Some((Err(()), length)) => {
                return Err(format!(
                    "'{}' in '{text}' is not a share of the box; write it like {{memory*0.75}} (a number above 0) or \
                     {{memory}}",
                    &after[..length]
                ));
            }
            None => rest = &after[OPEN.len()..],
        }
    }
    Ok(())
}

/// The placeholder at the start of `text` (which starts with `{memory`): its share of the box, or `Err` when its
/// factor does not read (`{memory/2}`), and its length. None without a closing brace.
fn placeholder(text: &str) -> Option<(Result<f64, ()>, usize)> {
    let close = text.find('}')?;
    let inside = &text[OPEN.len()..close];
    let share = if inside.is_empty() {
        Ok(1.0)
    } else {
        let Some(factor) = inside.trim_start().strip_prefix('*') else { return Some((Err(()), close + 1)) };
        factor.trim().parse::<f64>().ok().filter(|share| share.is_finite() && *share > 0.0).ok_or(())
    };
    Some((share, close + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1 << 20;

    #[test]
    fn a_share_of_the_box_is_whole_mebibytes_rounded_down() {
        assert_eq!(fill("-Xmx{memory*0.75}", Some(512 * MIB)), "-Xmx384m");
        assert_eq!(fill("-Xmx{memory*0.75}", Some(301 * MIB)), "-Xmx225m", "225.75 MiB rounds down");
        assert_eq!(fill("-XX:MaxDirectMemorySize={memory}", Some(64 * MIB)), "-XX:MaxDirectMemorySize=64m");
        assert_eq!(fill("-Xms{memory * 0.5} -Xmx{memory*0.5}", Some(1024 * MIB)), "-Xms512m -Xmx512m");
    }

    #[test]
    fn text_without_a_placeholder_or_a_limit_stays_as_it_is() {
        assert_eq!(fill("-Xmx64m {port} {memoryX", Some(512 * MIB)), "-Xmx64m {port} {memoryX");
        assert_eq!(fill("-Xmx{memory*0.75}", None), "-Xmx{memory*0.75}");
        assert!(mentions_memory("-Xmx{memory*0.75}") && !mentions_memory("-Xmx64m"));
    }

    #[test]
    fn a_factor_that_does_not_read_is_refused_with_the_form_to_use() {
        assert_eq!(check("-Xmx{memory*0.75}"), Ok(()));
        assert_eq!(check("{memory}"), Ok(()));
        for bad in ["-Xmx{memory/2}", "-Xmx{memory*}", "-Xmx{memory*-1}", "-Xmx{memory*x}", "-Xmx{memory*0}"] {
            let error = check(bad).unwrap_err();
            assert!(error.contains("is not a share of the box; write it like {memory*0.75}"), "{error}");
        }
        assert!(check("-Xmx{memory*x}").unwrap_err().starts_with("'{memory*x}' in '-Xmx{memory*x}'"));
    }
}
