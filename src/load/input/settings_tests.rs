//! The settings' definitions against what is built from them elsewhere: the names are unique, each error name
//! names its flag, and the docs' tables list each flag and key. (That `jload bench`'s clap flags carry the table's
//! names and help is tested in `bench`, and that the plan schema knows each key in `plan::phase`: `load` imports
//! neither.)

use super::*;

#[test]
fn every_setting_has_one_definition_with_its_own_key_and_flag() {
    for (index, def) in SETTINGS.iter().enumerate() {
        assert!(std::ptr::eq(def.setting.def(), &SETTINGS[index]), "{:?} is defined once", def.setting);
        for other in &SETTINGS[index + 1..] {
            assert_ne!(def.key, other.key);
            assert!(def.long.is_none() || def.long != other.long, "--{:?} twice", def.long);
            assert!(def.short.is_none() || def.short != other.short, "-{:?} twice", def.short);
        }
    }
}

#[test]
fn a_settings_name_in_bench_errors_names_its_flag() {
    for def in SETTINGS.iter().filter(|def| def.long.is_some()) {
        let long = format!("--{}", def.long.unwrap());
        let short = def.short.map(|short| format!("-{short}"));
        let names_it = def.flag_name.split(['/', ' ']).any(|word| word == long || Some(word) == short.as_deref());
        assert!(names_it, "{:?}: '{}' names neither {long} nor {short:?}", def.setting, def.flag_name);
    }
    assert_eq!(Setting::Connections.flag_name(), "-c/--connections");
    assert_eq!(Setting::OkStatus.key(), "ok_status");
}

#[test]
fn the_help_lines_are_in_clap_form_one_line_without_a_final_period() {
    for def in &SETTINGS {
        assert!(!def.help.ends_with('.') && !def.help.contains('\n') && !def.help.contains("  "), "{:?}", def.setting);
    }
}

/// The first cell of each row of docs/bench.md's tables of flags, e.g. "`-c, --connections N`".
fn bench_doc_flag_cells() -> Vec<String> {
    let doc = std::fs::read_to_string("docs/bench.md").unwrap();
    let rows = doc.lines().filter(|line| line.starts_with("| `-"));
    rows.map(|row| row.split('|').nth(1).unwrap().trim().to_string()).collect()
}

#[test]
fn docs_bench_lists_every_flag_with_its_short_name() {
    let cells = bench_doc_flag_cells();
    for def in SETTINGS.iter().filter(|def| def.long.is_some()) {
        let long = format!("--{}", def.long.unwrap());
        let written = match def.short {
            Some(short) => format!("`-{short}, {long}"),
            None => format!("`{long}"),
        };
        let listed = cells.iter().any(|cell| {
            cell.match_indices(&written).any(|(at, _)| {
                let after = cell[at + written.len()..].chars().next();
                after.is_none_or(|next| !(next.is_ascii_alphanumeric() || next == '-'))
            })
        });
        assert!(listed, "docs/bench.md's table of flags has no row for {written}`");
    }
}

#[test]
fn docs_plan_shows_every_key_in_its_commented_plan() {
    let doc = std::fs::read_to_string("docs/plan.md").unwrap();
    let plan = doc.split("## A complete plan, commented").nth(1).unwrap().split("\n## ").next().unwrap();
    for def in &SETTINGS {
        let shown = plan.lines().any(|line| {
            let line = line.trim_start_matches(['#', ' ']);
            line.starts_with(&format!("{} = ", def.key)) || line.contains(&format!(", {} = ", def.key))
        });
        assert!(shown, "docs/plan.md's commented plan does not show `{} = …`", def.key);
    }
}
