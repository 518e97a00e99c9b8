use super::*;
use crate::plan::{Plan, PlanBase, parse_plan};

const MIB: f64 = (1u64 << 20) as f64;

/// A plan with `[box_search]` holding `block`, `extra` before the phase (target keys, axes), and an `[slo]` unless
/// `slo` is empty.
fn parse(block: &str, extra: &str, slo: &str) -> anyhow::Result<Plan> {
    let text = format!(
        "name = \"b\"\n[target]\ncommand = \"java {{jvm}} -jar x.jar\"\nready = \"http://127.0.0.1:{{port}}/\"\n\
         {extra}\n[[phase]]\nname = \"get\"\nurl = \"http://127.0.0.1:{{port}}/\"\nduration = \"1s\"\nrate = 2000\n\
         {slo}\n[box_search]\n{block}\n"
    );
    parse_plan("b.toml", &text, &PlanBase { plan_dir: "/tmp".into(), cwd: "/tmp".into() })
}

const SLO: &str = "[slo]\np99 = \"10ms\"";

fn error(block: &str, extra: &str, slo: &str) -> String {
    parse(block, extra, slo).unwrap_err().to_string()
}

#[test]
fn memory_and_quota_ranges_are_read_on_their_grids_with_a_default_precision() {
    let plan = parse(
        "memory = { from = \"128m\", to = \"1.5g\", precision = \"10%\" }\ncpus_quota = { from = 0.25, to = 2 }",
        "",
        SLO,
    )
    .unwrap();
    let search = plan.box_search.unwrap();
    assert_eq!(
        search.memory,
        Some(SearchRange { dimension: BoxDimension::Memory, from: 128.0 * MIB, to: 1536.0 * MIB, precision: 0.1 })
    );
    assert_eq!(
        search.cpus_quota,
        Some(SearchRange { dimension: BoxDimension::CpusQuota, from: 0.25, to: 2.0, precision: DEFAULT_PRECISION })
    );
    assert_eq!(search.largest_box(Limits::default()), Limits { memory_bytes: Some(1536 << 20), cpus_quota: Some(2.0) });
}

#[test]
fn relative_options_need_a_memory_limit_unless_the_memory_is_searched() {
    let jvm = "jvm = [\"-Xmx{memory*0.75}\"]";
    assert!(parse("memory = { from = \"128m\", to = \"1g\" }", jvm, SLO).is_ok());
    let text = "name = \"r\"\n[target]\ncommand = \"java {jvm} -jar x.jar\"\nready = \"http://127.0.0.1:{port}/\"\n\
                jvm = [\"-Xmx{memory*0.75}\"]\n[[phase]]\nname = \"get\"\nurl = \"http://127.0.0.1:{port}/\"\n\
                duration = \"1s\"\n";
    let base = PlanBase { plan_dir: "/tmp".into(), cwd: "/tmp".into() };
    assert_eq!(
        parse_plan("r.toml", text, &base).unwrap_err().to_string(),
        "r.toml: line 3: '-Xmx{memory*0.75}' is relative to the box, but cell 'default' has no memory limit; set \
         target.memory, a memory axis or [box_search] memory"
    );
    let boxed = text.replace("jvm = [", "memory = \"512m\"\njvm = [");
    assert!(parse_plan("r.toml", &boxed, &base).is_ok());
    let bad = boxed.replace("0.75", "x");
    assert!(parse_plan("r.toml", &bad, &base).unwrap_err().to_string().contains("is not a share of the box"));
}

#[test]
fn bad_input_names_the_file_line_and_key() {
    let memory = |range: &str| format!("memory = {{ {range} }}");
    let cases = [
        (
            memory("from = \"512m\", to = \"256m\""),
            "",
            SLO,
            "line 14: box_search.memory: from = '512m' must be below to = '256m'",
        ),
        (memory("from = \"512m\", to = \"512m\""), "", SLO, "line 14: box_search.memory: from = '512m' must be below"),
        (memory("from = \"lots\", to = \"1g\""), "", SLO, "line 14: box_search.memory: from: 'lots' is not a size"),
        (
            memory("from = \"128m\", to = \"1g\", precision = 0"),
            "",
            SLO,
            "line 14: box_search.memory: precision 0 must be",
        ),
        (memory("from = \"128m\", to = \"1g\", precision = 1.5"), "", SLO, "precision 1.5 must be a share above 0"),
        (
            "cpus_quota = { from = 2, to = 0.5 }".into(),
            "",
            SLO,
            "line 14: box_search.cpus_quota: from = 2 must be below",
        ),
        ("cpus_quota = { from = 0, to = 1 }".into(), "", SLO, "box_search.cpus_quota: from = 0 is below 0.01 CPUs"),
        (memory("from = \"128m\", to = \"1g\""), "", "", "line 12: box_search: a search needs an [slo]"),
        ("".into(), "", SLO, "line 13: box_search: give memory = {"),
        (
            memory("from = \"128m\", to = \"1g\""),
            "[[axis]]\nname = \"box\"\nmemory = [\"256m\", \"512m\"]",
            SLO,
            "box_search: memory is searched, so axis 'box' cannot set it too",
        ),
        (
            memory("from = \"128m\", to = \"1g\""),
            "memory = \"512m\"",
            SLO,
            "box_search: memory is searched, so target.memory cannot fix it too",
        ),
    ];
    for (block, extra, slo, expected) in cases {
        let error = error(&block, extra, slo);
        assert!(error.starts_with("b.toml: ") && error.contains(expected), "expected '{expected}' in {error}");
    }
}

#[test]
fn the_most_trials_count_both_bounds_and_the_bisection() {
    let range =
        |from: f64, to: f64, precision: f64| SearchRange { dimension: BoxDimension::Memory, from, to, precision };
    // 2048/128 = 16 = 1.05^56.8: bisection halves the log ratio 6 times to get within 5 %.
    assert_eq!(BoxSearch::most_trials(&range(128.0, 2048.0, 0.05)), 8);
    assert_eq!(BoxSearch::most_trials(&range(100.0, 104.0, 0.05)), 2);
}

#[test]
fn at_capacity_needs_one_measured_capacity_phase_and_a_share_of_it() {
    let capacity = |share: &str, phase_keys: &str| {
        let text = format!(
            "name = \"c\"\n[target]\ncommand = \"java {{jvm}} -jar x.jar\"\nready = \"http://127.0.0.1:{{port}}/\"\n\
             [[phase]]\nname = \"get\"\nurl = \"http://127.0.0.1:{{port}}/\"\n{phase_keys}\n[slo]\np99 = \"10ms\"\n\
             [box_search]\nmemory = {{ from = \"128m\", to = \"1g\" }}\n{share}\n"
        );
        parse_plan("c.toml", &text, &PlanBase { plan_dir: "/tmp".into(), cwd: "/tmp".into() })
    };
    let search = capacity("at_capacity = 0.8", "capacity = true").unwrap().box_search.unwrap();
    assert_eq!(search.at_capacity, Some(0.8));
    let error = |share: &str, keys: &str| capacity(share, keys).unwrap_err().to_string();
    assert!(
        error("at_capacity = 1.5", "capacity = true").contains("box_search.at_capacity: 1.5 must be a share above 0")
    );
    assert!(error("at_capacity = 0.8", "duration = \"1s\"").contains("found 0"));
    assert!(error("", "capacity = true").contains("phase 'get' is a rate ladder or capacity search"));
    assert!(error("at_capacity = 0.8", "rates = [100, 200]").contains("found 0"));
}
