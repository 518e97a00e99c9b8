//! Reports and `compare` on rate ladders and capacity searches (tests/fixtures/results/ladder, made from the sweep
//! fixture by make_ladder.py there: its steps are synthetic until a real ladder run replaces them), and the
//! equal-load rules on real closed-model and rate phases: the capacity per cell with its interval and bounds, the
//! curves ranked per step, a generator-limited cell that claims no capacity, a rate phase that does not rank cells
//! short of the rate, closed-model cells at different throughputs flagged, capacity in the grids, compare.
//! Every expected figure is computed here from the fixture's own records.

use crate::common;
use crate::common::results_fixtures;

use std::path::Path;

use common::jload;
use results_fixtures::{copy_of, edit_summary, line_starting, median, ms, read_json, report, write_report};
use serde_json::{Value, json};

/// t(0.975, 2): the 95 % two-sided Student's t quantile for three repeats.
const T_3_REPEATS: f64 = 4.302652729911275;

/// `low–high` of the 95 % t interval of three values, clipped at 0, as whole numbers.
fn interval_of_three(values: &[f64]) -> String {
    let mean = values.iter().sum::<f64>() / 3.0;
    let sd = (values.iter().map(|value| (value - mean).powi(2)).sum::<f64>() / 2.0).sqrt();
    let half = T_3_REPEATS * sd / 3f64.sqrt();
    format!("{:.0}–{:.0}", (mean - half).max(0.0), mean + half)
}

/// Every repeat's record of `phase` in cell `cell` of a summary.
fn records<'a>(summary: &'a Value, cell: usize, phase: &str) -> Vec<&'a Value> {
    summary["cells"][cell]["reps"].as_array().unwrap().iter().map(|rep| &rep["phases"][phase]).collect()
}

fn capacities(summary: &Value, cell: usize) -> Vec<f64> {
    records(summary, cell, "set").iter().map(|record| record["capacity"]["rps"].as_f64().unwrap()).collect()
}

/// A cell's step at `rate` in every repeat.
fn steps_at<'a>(summary: &'a Value, cell: usize, phase: &str, rate: f64) -> Vec<&'a Value> {
    records(summary, cell, phase)
        .into_iter()
        .filter_map(|record| {
            record["steps"].as_array().unwrap().iter().find(|step| step["requested_rps"].as_f64() == Some(rate))
        })
        .collect()
}

const OOM: &str =
    "crashed during fill: OutOfMemoryError: Terminating due to java.lang.OutOfMemoryError: Java heap space";

#[test]
fn a_capacity_phase_leads_with_each_cells_capacity_its_interval_and_bounds() {
    let dir = copy_of("ladder");
    let summary = read_json(&dir.join("summary.json"));
    let markdown = report(&dir);
    let (small, large) = (capacities(&summary, 1), capacities(&summary, 2));
    assert!(median(large.clone()) > median(small.clone()), "the fixture's larger heap has the higher capacity");
    assert_eq!(
        line_starting(&markdown, "|capacity (req/s) at p99<=10ms|"),
        format!(
            "|capacity (req/s) at p99<=10ms|{OOM}|{:.0} ≈ ({})|{:.0} ★ ({})|",
            median(small.clone()),
            interval_of_three(&small),
            median(large.clone()),
            interval_of_three(&large)
        )
    );
    // Every repeat met the SLO at the lowest of their passing bounds; some repeat failed at the highest failing one.
    let bound = |cell: usize, index: usize| {
        let bounds =
            records(&summary, cell, "set").into_iter().map(|r| r["capacity"]["bounds"][index].as_f64().unwrap());
        if index == 0 { bounds.reduce(f64::min) } else { bounds.reduce(f64::max) }.unwrap()
    };
    assert_eq!(
        line_starting(&markdown, "|capacity bounds: met–failed (req/s)|"),
        format!(
            "|capacity bounds: met–failed (req/s)|/|{:.0}–{:.0}|{:.0}–{:.0}|",
            bound(1, 0),
            bound(1, 1),
            bound(2, 0),
            bound(2, 1)
        )
    );
    // The req/s and P99 of the capacity steps are at a different rate per cell: shown, not ranked, and said so.
    let p99 = line_starting(&markdown, "|P99 (ms)|");
    assert!(!p99.contains('★') && !p99.contains('≈'), "{p99}");
    assert!(markdown.contains("**Cells are ranked by capacity."), "{markdown}");
    // The recommendation: the highest capacity against the cheapest heap's, with the ratio of the medians.
    let ratio = median(large.clone()) / median(small.clone());
    assert_eq!(
        line_starting(&markdown, "- Highest capacity:"),
        format!(
            "- Highest capacity: -Xmx256m sustains {:.0} req/s (95 % CI {}) at p99<=10ms, {ratio:.1}× -Xmx64m ({:.0} \
             req/s); not distinguishable from it: -Xmx64m ({:.0} req/s (95 % CI {}), p = {:.2})",
            median(large.clone()),
            interval_of_three(&large),
            median(small.clone()),
            median(small.clone()),
            interval_of_three(&small),
            welch_p(&small, &large)
        )
    );
}

/// Two-sided p of Welch's t-test, written out here from the textbook formulas.
fn welch_p(a: &[f64], b: &[f64]) -> f64 {
    use statrs::distribution::{ContinuousCDF, StudentsT};
    let moments = |values: &[f64]| {
        let n = values.len() as f64;
        let mean = values.iter().sum::<f64>() / n;
        (n, mean, values.iter().map(|value| (value - mean).powi(2)).sum::<f64>() / (n - 1.0))
    };
    let ((na, ma, va), (nb, mb, vb)) = (moments(a), moments(b));
    let (sa, sb) = (va / na, vb / nb);
    let t = (mb - ma) / (sa + sb).sqrt();
    let df = (sa + sb).powi(2) / (sa.powi(2) / (na - 1.0) + sb.powi(2) / (nb - 1.0));
    2.0 * StudentsT::new(0.0, 1.0, df).unwrap().sf(t.abs())
}

#[test]
fn the_ladder_compares_latency_per_step_only_between_cells_that_sustained_the_rate() {
    let dir = copy_of("ladder");
    let summary = read_json(&dir.join("summary.json"));
    let markdown = report(&dir);
    let table = markdown.split("### Latency against throughput: get").nth(1).unwrap();
    let entry = |cell: usize, rate: f64| {
        let steps = steps_at(&summary, cell, "get", rate);
        let p99 = median(steps.iter().map(|step| step["latency_ms"]["p99"].as_f64().unwrap()).collect());
        let achieved = median(steps.iter().map(|step| step["achieved_rps"].as_f64().unwrap()).collect());
        format!("{} / {achieved:.0}", ms(p99))
    };
    // At 16000 req/s both cells sustained the rate in every repeat: ranked (★ and ≈, Welch p ≥ 0.05).
    assert_eq!(line_starting(table, "|16000|"), format!("|16000|-|{} ≈|{} ★|", entry(1, 16000.0), entry(2, 16000.0)));
    // At 32000 -Xmx64m fell short in a repeat (target) and -Xmx256m's generator ran out in repeat 3: both shown,
    // neither ranked, however low -Xmx256m's P99.
    assert_eq!(
        line_starting(table, "|32000|"),
        format!("|32000|-|{} short: target|{} short: generator|", entry(1, 32000.0), entry(2, 32000.0))
    );
    // The headline (last) step: every cell short of 64000 req/s, so no P99 is ranked and the table says why.
    let p99 = line_starting(&markdown[markdown.find("## Phase get").unwrap()..], "|P99 (ms)|");
    assert!(!p99.contains('★') && !p99.contains('≈'), "{p99}");
    assert!(markdown.contains(
        "**Latency is compared only between cells at the requested rate: -Xmx64m, -Xmx256m fell short of it"
    ));
    // The recommendation compares them at the highest rate both sustained.
    let finding = line_starting(&markdown, "- Best P99 at equal load, 16000 req/s");
    assert!(
        finding.contains(&format!(
            "-Xmx256m, {} ms",
            ms(median(
                steps_at(&summary, 2, "get", 16000.0)
                    .iter()
                    .map(|s| s["latency_ms"]["p99"].as_f64().unwrap())
                    .collect()
            ))
        )),
        "{finding}"
    );
}

#[test]
fn a_searchs_step_table_keeps_the_rates_every_repeat_ran() {
    let dir = copy_of("ladder");
    let summary = read_json(&dir.join("summary.json"));
    let markdown = report(&dir);
    let rates_of = |cell: usize| -> Vec<Vec<f64>> {
        records(&summary, cell, "set")
            .iter()
            .map(|record| {
                record["steps"].as_array().unwrap().iter().map(|s| s["requested_rps"].as_f64().unwrap()).collect()
            })
            .collect()
    };
    let (mut common, mut all): (Vec<f64>, Vec<f64>) = (Vec::new(), Vec::new());
    for cell in [1, 2] {
        let reps = rates_of(cell);
        all.extend(reps.iter().flatten());
        common.extend(reps[0].iter().filter(|rate| reps.iter().all(|rates| rates.contains(rate))));
    }
    for rates in [&mut common, &mut all] {
        rates.sort_by(f64::total_cmp);
        rates.dedup();
    }
    let table = &markdown
        [markdown.find("### Latency against throughput: set").unwrap()..markdown.find("## Phase get").unwrap()];
    let rows: Vec<f64> = table
        .lines()
        .filter(|line| line.starts_with('|') && !line.starts_with("|requested") && !line.starts_with("|:"))
        .map(|line| line.trim_matches('|').split('|').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(rows, common);
    assert!(common.len() < all.len(), "the fixture's searches bisect differently in each repeat");
    assert!(table.contains(&format!("{} rates that only some repeats ran", all.len() - common.len())), "{table}");
}

#[test]
fn report_json_has_each_cells_capacity_and_curve() {
    let dir = copy_of("ladder");
    let summary = read_json(&dir.join("summary.json"));
    write_report(&dir);
    let json = read_json(&dir.join("report.json"));
    let set = json["phases"].as_array().unwrap().iter().find(|phase| phase["name"] == "set").unwrap();
    assert_eq!(set["kind"], "capacity");
    let cell = &set["cells"][2];
    let large = capacities(&summary, 2);
    assert_eq!(cell["capacity"]["rps"], json!(median(large.clone())));
    assert_eq!(cell["capacity"]["limited_by"], "target");
    assert_eq!(cell["capacity"]["slo"], "p99<=10ms");
    assert_eq!(cell["figures"]["capacity_rps"]["values"], json!(large));
    assert_eq!(cell["standing"]["capacity_rps"]["standing"], "best");
    assert_eq!(set["cells"][0]["capacity"], Value::Null, "the crashed cell searched nothing");
    let get = json["phases"].as_array().unwrap().iter().find(|phase| phase["name"] == "get").unwrap();
    assert_eq!(get["kind"], "ladder");
    let curve = get["cells"][2]["curve"].as_array().unwrap();
    let rates: Vec<f64> = curve.iter().map(|point| point["requested_rps"].as_f64().unwrap()).collect();
    assert_eq!(rates, [4000.0, 8000.0, 16000.0, 32000.0, 64000.0]);
    assert_eq!(
        curve[3]["limits"],
        json!([{"rep": 3, "side": "generator",
        "reason": "the busiest generator thread used 99 % of a core"}])
    );
    assert_eq!(curve[3]["standing"], Value::Null);
    let p99s: Vec<f64> =
        steps_at(&summary, 2, "get", 4000.0).iter().map(|step| step["latency_ms"]["p99"].as_f64().unwrap()).collect();
    assert_eq!(curve[0]["p99_ms"]["values"], json!(p99s));
}

#[test]
fn a_generator_limited_cell_claims_no_capacity_and_says_so() {
    let dir = copy_of("ladder");
    edit_summary(&dir, |summary| {
        let capacity = &mut summary["cells"][2]["reps"][1]["phases"]["set"]["capacity"];
        capacity["rps"] = Value::Null;
        capacity["limited_by"] = json!("generator");
        capacity["verdict"] = json!("the generator ran out at 40000 req/s: no capacity claimed for the target");
    });
    let markdown = report(&dir);
    let summary = read_json(&dir.join("summary.json"));
    let small = capacities(&summary, 1);
    assert_eq!(
        line_starting(&markdown, "|capacity (req/s) at p99<=10ms|"),
        format!(
            "|capacity (req/s) at p99<=10ms|{OOM}|{:.0} ★ ({})|generator-limited: no capacity claimed|",
            median(small.clone()),
            interval_of_three(&small)
        )
    );
    assert!(line_starting(&markdown, "- Highest capacity: -Xmx64m sustains").ends_with("; the only cell measured"));
    assert!(
        line_starting(&markdown, "- -Xmx256m: generator-limited in repeat(s) 2 ")
            .contains("repeat 2: the generator ran out at 40000 req/s: no capacity claimed for the target")
    );
    let json = read_json(&dir.join("report.json"));
    let cell = &json["phases"][1]["cells"][2];
    assert_eq!((&cell["capacity"]["rps"], &cell["capacity"]["limited_by"]), (&Value::Null, &json!("generator")));
    assert_eq!(cell["figures"]["capacity_rps"], Value::Null, "no number, not even from the other repeats");
}

#[test]
fn a_rate_phase_does_not_rank_the_latency_of_cells_short_of_the_rate() {
    // The sweep's get phase as if it had asked for 39000 req/s: -Xmx64m fell short of 95 % of it (37050) in
    // repeats 2 and 3, -Xmx256m sustained it in all three.
    let dir = copy_of("sweep");
    edit_summary(&dir, |summary| {
        for cell in summary["cells"].as_array_mut().unwrap() {
            for rep in cell["reps"].as_array_mut().unwrap() {
                if rep["phases"]["get"].is_object() {
                    rep["phases"]["get"]["rate"] = json!(39000.0);
                    rep["phases"]["get"]["model"] = json!("open");
                }
            }
        }
    });
    let summary = read_json(&dir.join("summary.json"));
    let markdown = report(&dir);
    let get = &markdown[markdown.find("## Phase get").unwrap()..];
    let rps: Vec<f64> = records(&summary, 1, "get").iter().map(|record| record["rps"].as_f64().unwrap()).collect();
    assert!(rps[0] >= 37050.0 && rps[1] < 37050.0 && rps[2] < 37050.0, "{rps:?}");
    let p99 = line_starting(get, "|P99 (ms)|");
    let entries: Vec<&str> = p99.trim_matches('|').split('|').collect();
    let p99_of = |cell: usize| {
        ms(median(records(&summary, cell, "get").iter().map(|r| r["latency_ms"]["p99"].as_f64().unwrap()).collect()))
    };
    assert!(entries[2].starts_with(&format!("{} short of rate (", p99_of(1))), "marked, not ranked: {p99}");
    assert!(entries[3].starts_with(&format!("{} ★ (", p99_of(2))), "the only cell at the rate: {p99}");
    assert!(!p99.contains('≈'), "{p99}");
    assert_eq!(
        line_starting(get, "-Xmx64m: not at the requested rate"),
        format!(
            "-Xmx64m: not at the requested rate, latency not ranked: {:.0} req/s achieved of 39000 requested (target, \
             repeat 2); {:.0} req/s achieved of 39000 requested (target, repeat 3)",
            rps[1], rps[2]
        )
    );
    assert!(get.contains("**Latency is compared only between cells at the requested rate: -Xmx64m fell short of it"));
}

#[test]
fn closed_model_cells_at_different_throughputs_are_called_not_comparable_next_to_the_table() {
    let dir = copy_of("sweep");
    let summary = read_json(&dir.join("summary.json"));
    let markdown = report(&dir);
    let medians: Vec<f64> = [1, 2]
        .iter()
        .map(|cell| median(records(&summary, *cell, "set").iter().map(|r| r["rps"].as_f64().unwrap()).collect()))
        .collect();
    let note = format!(
        "**P99 measured at {:.1}k–{:.1}k req/s: not comparable; measure at equal load with `rate`/`rates` or by \
         `capacity`**",
        medians[0] / 1000.0,
        medians[1] / 1000.0
    );
    let set = &markdown[markdown.find("## Phase set").unwrap()..markdown.find("## Phase get").unwrap()];
    assert!(set.contains(&note), "{note}\n{set}");
    assert!(set.find(&note).unwrap() < set.find("|metrics").unwrap(), "the note comes before the table");
}

#[test]
fn report_md_writes_an_slo_as_written_and_jloads_code_spans_as_code() {
    // ladder-real's SLO is `p99<=20ms, errors<=0.1%`: no tag, no entity, so nothing to escape; its URL's `&` neither.
    let dir = copy_of("ladder-real");
    let markdown = report(&dir);
    let slo = read_json(&dir.join("summary.json"))["cells"][0]["reps"][0]["phases"]["set"]["capacity"]["slo"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(slo.contains('<'), "{slo}");
    assert!(markdown.contains(&format!("capacity search under {slo}")), "{markdown}");
    assert!(markdown.contains("keyRange=20000&valueSize=100"), "{markdown}");
    assert!(!markdown.contains("&lt;") && !markdown.contains("&amp;") && !markdown.contains("\\`"), "{markdown}");
    assert!(markdown.contains("regenerate with `jload report DIR`"));
}

#[test]
fn capacity_is_the_grid_figure_when_two_axes_vary() {
    // The 25-cell sweep's set phase as if each repeat had searched its capacity (its req/s rounded down to 100),
    // and 512m Serial's generator ran out.
    let dir = copy_of("sweep25");
    edit_summary(&dir, |summary| {
        for cell in summary["cells"].as_array_mut().unwrap() {
            let generator = cell["id"] == "heap=512m,gc=Serial";
            for rep in cell["reps"].as_array_mut().unwrap() {
                let set = &mut rep["phases"]["set"];
                if set.is_object() {
                    let rps = (set["rps"].as_f64().unwrap() / 100.0).floor() * 100.0;
                    set["capacity"] = json!({
                        "rps": if generator { Value::Null } else { json!(rps) },
                        "slo": "p99<=10ms",
                        "limited_by": if generator { "generator" } else { "target" },
                        "bounds": [rps, rps + 100.0],
                        "verdict": "synthetic",
                    });
                }
            }
        }
    });
    let summary = read_json(&dir.join("summary.json"));
    let markdown = report(&dir);
    let grids = &markdown[markdown.find("### Phase set").unwrap()..markdown.find("### Phase get").unwrap()];
    let grid = &grids[grids.find("**capacity (req/s)**").expect("a capacity grid")..];
    assert!(!grids.contains("**req/s**") && !grids.contains("**P99 (ms)**"), "capacity replaces them: {grids}");
    let capacity = |id: &str| {
        let cell = summary["cells"].as_array().unwrap().iter().find(|cell| cell["id"] == id).unwrap();
        format!("{:.0}", cell["reps"][0]["phases"]["set"]["capacity"]["rps"].as_f64().unwrap())
    };
    let row = line_starting(grid, "|512m|");
    let expected: Vec<String> =
        ["Parallel", "G1", "ZGC", "Shenandoah"].iter().map(|gc| capacity(&format!("heap=512m,gc={gc}"))).collect();
    let cells: Vec<&str> = row.trim_matches('|').split('|').skip(1).collect();
    assert_eq!(cells[0], "generator-limited: no capacity claimed");
    let numbers: Vec<String> = cells[1..].iter().map(|cell| cell.trim_end_matches(" ★").to_string()).collect();
    assert_eq!(numbers, expected);
}

fn compare(args: &[&str]) -> (i32, String) {
    let (output, _) = jload(&[&["compare"], args].concat());
    (output.status.code().unwrap(), String::from_utf8_lossy(&output.stdout).to_string())
}

fn verdict_of<'a>(stdout: &'a str, figure: &str) -> &'a str {
    stdout.lines().find(|line| line.trim_start().starts_with(figure)).unwrap_or_else(|| panic!("{figure}: {stdout}"))
}

#[test]
fn compare_judges_capacity_and_the_latency_at_each_common_step() {
    // A: the ladder fixture with steady capacities and P99 at 16000 req/s; B: 20 % less capacity, P99 doubled there.
    let set_figures = |summary: &mut Value, capacities: [f64; 3], p99s: [f64; 3]| {
        for ((rep, capacity), p99) in
            summary["cells"][2]["reps"].as_array_mut().unwrap().iter_mut().zip(capacities).zip(p99s)
        {
            rep["phases"]["set"]["capacity"]["rps"] = json!(capacity);
            for step in rep["phases"]["get"]["steps"].as_array_mut().unwrap() {
                if step["requested_rps"] == 16000.0 {
                    step["latency_ms"]["p99"] = json!(p99);
                }
            }
        }
    };
    let a = copy_of("ladder");
    edit_summary(&a, |summary| set_figures(summary, [40000.0, 40500.0, 39500.0], [1.0, 1.1, 0.9]));
    let b = copy_of("ladder");
    edit_summary(&b, |summary| set_figures(summary, [32000.0, 32400.0, 31600.0], [2.0, 2.2, 1.8]));
    let side = |dir: &Path| format!("{}:heap=-Xmx256m,gc=G1", dir.display());
    let (code, stdout) = compare(&[&side(&a), &side(&b), "--fail-on-regression"]);
    assert_eq!(code, 99, "{stdout}");
    let capacity = verdict_of(&stdout, "capacity (req/s)");
    assert!(capacity.contains("40000 (n=3)") && capacity.contains("32000 (n=3)"), "{capacity}");
    assert!(capacity.contains("0.800") && capacity.ends_with("REGRESSION"), "{capacity}");
    let get = &stdout[stdout.find("phase get").unwrap()..];
    assert!(verdict_of(get, "at 16000 req/s: P99 (ms)").ends_with("REGRESSION"), "{stdout}");
    assert!(verdict_of(get, "at 8000 req/s: P99 (ms)").ends_with("not significant"), "{stdout}");
    assert!(verdict_of(get, "at 16000 req/s: achieved req/s").ends_with("not significant"), "{stdout}");
    assert_eq!(get.lines().filter(|line| line.contains("req/s: P99 (ms)")).count(), 5, "the 5 rates of the ladder");
    // A search's steps are compared at the rates every repeat ran (the ramp), not at each repeat's own bisection.
    let set = &stdout[stdout.find("phase set").unwrap()..stdout.find("phase get").unwrap()];
    let rates: Vec<&str> = set
        .lines()
        .filter(|line| line.contains(" req/s: P99"))
        .filter_map(|line| line.trim().strip_prefix("at ")?.split(" req/s").next())
        .collect();
    assert_eq!(rates, ["2000", "4000", "8000", "16000", "32000"]);
    assert!(stdout.trim_end().ends_with("2 significant regression(s) beyond the threshold"), "{stdout}");
    // B's generator ran out in a repeat: B has no capacity to compare, which is neither a regression nor a pass.
    edit_summary(&b, |summary| {
        summary["cells"][2]["reps"][0]["phases"]["set"]["capacity"]["limited_by"] = json!("generator");
        summary["cells"][2]["reps"][0]["phases"]["set"]["capacity"]["rps"] = Value::Null;
    });
    let (code, stdout) = compare(&[&side(&a), &side(&b), "--fail-on-regression"]);
    assert_eq!(code, 99, "the P99 at 16000 req/s still regressed: {stdout}");
    let capacity = verdict_of(&stdout, "capacity (req/s)");
    assert!(capacity.contains("40000 (n=3)") && capacity.ends_with("not compared: generator-limited"), "{capacity}");
    assert!(
        stdout.trim_end().ends_with(
            "1 significant regression(s) beyond the threshold; 1 capacity figure(s) not compared: the generator ran out"
        ),
        "{stdout}"
    );
    // A plain closed-model comparison has no capacity line.
    let (_, closed) = compare(&[
        results_fixtures::fixture("compare-base").to_str().unwrap(),
        results_fixtures::fixture("compare-rerun").to_str().unwrap(),
    ]);
    assert!(!closed.contains("capacity"), "{closed}");
}

#[test]
fn a_real_ladder_run_reports_each_cells_capacity_from_its_searches_and_a_curve_point_per_rate() {
    // tests/fixtures/results/ladder-real: a real run, kv-service with the JIT (cell 0) against -Xint (cell 1).
    let dir = copy_of("ladder-real");
    let markdown = report(&dir);
    let summary = read_json(&dir.join("summary.json"));
    let report = read_json(&dir.join("report.json"));
    let (jit, interpreted) = (capacities(&summary, 0), capacities(&summary, 1));
    // The interpreter's capacity is below the JIT's in every repeat.
    for (fast, slow) in jit.iter().zip(&interpreted) {
        assert!(slow < fast, "interpreted {slow} req/s against jit {fast} req/s");
    }
    let set = report["phases"].as_array().unwrap().iter().find(|phase| phase["name"] == "set").unwrap();
    for (cell, searched) in [(0, &jit), (1, &interpreted)] {
        let capacity = &set["cells"][cell]["capacity"];
        assert_eq!(capacity["rps"].as_f64().unwrap(), median(searched.clone()), "cell {cell}");
        assert_eq!(capacity["limited_by"], "target");
        let lows = records(&summary, cell, "set").into_iter().map(|r| r["capacity"]["bounds"][0].as_f64().unwrap());
        assert_eq!(capacity["bounds"][0].as_f64(), lows.reduce(f64::min), "cell {cell}: every repeat met it there");
    }
    assert!(
        line_starting(&markdown, "- Highest capacity: jit sustains ").contains(&format!("{:.0} req/s", median(jit))),
        "{markdown}"
    );
    // The ladder: one curve point per requested rate, its achieved rate the median over both repeats' steps, and a
    // JVM window per step in each record.
    let get = report["phases"].as_array().unwrap().iter().find(|phase| phase["name"] == "get").unwrap();
    for cell in 0..2 {
        let curve = get["cells"][cell]["curve"].as_array().unwrap();
        let rates: Vec<f64> = curve.iter().map(|point| point["requested_rps"].as_f64().unwrap()).collect();
        assert_eq!(rates, [500.0, 1000.0, 2000.0, 4000.0], "cell {cell}");
        for point in curve {
            let rate = point["requested_rps"].as_f64().unwrap();
            let achieved = steps_at(&summary, cell, "get", rate)
                .iter()
                .map(|step| step["achieved_rps"].as_f64().unwrap())
                .collect();
            assert_eq!(point["achieved_rps"]["median"].as_f64().unwrap(), median(achieved), "cell {cell} at {rate}");
        }
        for record in records(&summary, cell, "get") {
            assert_eq!(record["step_jvm"].as_array().map(Vec::len), Some(4), "cell {cell}");
        }
    }
}

/// The step whose figures a ladder record's top level holds: the search's capacity step (its highest passing step
/// when it claims none), else the last.
fn headline_step(record: &Value) -> &Value {
    let steps = record["steps"].as_array().unwrap();
    let capacity = &record["capacity"];
    let rate = capacity["rps"].as_f64().or_else(|| capacity["bounds"][0].as_f64());
    let index = rate.and_then(|rate| steps.iter().rposition(|step| step["requested_rps"].as_f64() == Some(rate)));
    let index = index.unwrap_or(steps.len() - 1);
    &record["step_jvm"][index]
}

#[test]
fn a_capacity_phases_jvm_figures_are_its_capacity_steps_not_the_whole_searchs() {
    // ladder-real's "set" is a real capacity search per repeat, with a JVM window per step.
    let dir = copy_of("ladder-real");
    report(&dir);
    let summary = read_json(&dir.join("summary.json"));
    let report = read_json(&dir.join("report.json"));
    let set = report["phases"].as_array().unwrap().iter().find(|phase| phase["name"] == "set").unwrap();
    let mut differs_from_the_phase = false;
    for cell in 0..2 {
        let figures = &set["cells"][cell]["figures"];
        let values = |key: &str| -> Vec<f64> {
            figures[key]["values"].as_array().unwrap().iter().map(|value| value.as_f64().unwrap()).collect()
        };
        let records = records(&summary, cell, "set");
        let steps: Vec<&Value> = records.iter().map(|record| headline_step(record)).collect();
        let of_steps = |read: &dyn Fn(&Value) -> f64| steps.iter().map(|jvm| read(jvm)).collect::<Vec<f64>>();
        assert_eq!(values("ygc"), of_steps(&|jvm| jvm["ygc"].as_f64().unwrap()), "cell {cell}");
        assert_eq!(
            values("longest_pause_ms"),
            of_steps(&|jvm| jvm["pauses"]["max_ms"].as_f64().unwrap()),
            "cell {cell}"
        );
        let phase_longest: Vec<f64> =
            records.iter().map(|record| record["jvm"]["pauses"]["max_ms"].as_f64().unwrap()).collect();
        differs_from_the_phase |= values("longest_pause_ms") != phase_longest;
    }
    assert!(differs_from_the_phase, "the fixture's searches paused longer outside their capacity steps");
}

#[test]
fn a_capacity_phases_cheapest_cell_is_the_cheapest_whose_capacity_matches_the_highest() {
    // The fixture: -Xmx64m (cheaper on the heap axis) has a capacity not distinguishable from -Xmx256m's.
    let dir = copy_of("ladder");
    let markdown = report(&dir);
    let summary = read_json(&dir.join("summary.json"));
    let (small, large) = (capacities(&summary, 1), capacities(&summary, 2));
    assert_eq!(
        line_starting(&markdown, "- Cheapest heap with a capacity not distinguishable from the highest"),
        format!(
            "- Cheapest heap with a capacity not distinguishable from the highest at p99<=10ms: -Xmx64m: capacity {:.0} \
             req/s (95 % CI {}) against -Xmx256m's {:.0} req/s (p = {:.2}). It needs ≥ 168 MB of memory (its \
             whole-life RSS peak), not only its heap.",
            median(small.clone()),
            interval_of_three(&small),
            median(large.clone()),
            welch_p(&small, &large)
        )
    );
    // Make -Xmx64m's searches find a fraction of that: it still ran every repeat, but its capacity is lower with
    // significance, so the cheapest heap that matches the highest is -Xmx256m itself.
    edit_summary(&dir, |summary| {
        for (rep, rps) in [500.0, 510.0, 520.0].into_iter().enumerate() {
            summary["cells"][1]["reps"][rep]["phases"]["set"]["capacity"]["rps"] = json!(rps);
        }
    });
    let markdown = report(&dir);
    assert_eq!(
        line_starting(&markdown, "- Cheapest heap with a capacity not distinguishable from the highest"),
        format!(
            "- Cheapest heap with a capacity not distinguishable from the highest at p99<=10ms: -Xmx256m: capacity \
             {:.0} req/s (95 % CI {}); every cheaper cell's capacity is lower with significance. It needs ≥ 344 MB of \
             memory (its whole-life RSS peak), not only its heap.",
            median(large.clone()),
            interval_of_three(&large)
        )
    );
}

#[test]
fn a_ladder_whose_cells_all_held_the_top_rate_names_no_best_throughput() {
    // ladder-real's "get": both cells held every rate up to 4000 req/s.
    let dir = copy_of("ladder-real");
    let markdown = report(&dir);
    let get = &markdown[markdown.find("### get").unwrap()..markdown.find("### set").unwrap()];
    assert!(
        get.contains(
            "- Throughput: both cells held the top rate, 4000 req/s (throughput does not tell them apart here; their \
             latency does)\n"
        ),
        "{get}"
    );
    assert!(!get.contains("Best throughput"), "{get}");
    // The synthetic ladder's cells fell short of its top rate: there throughput does tell them apart.
    let markdown = report(&copy_of("ladder"));
    let get = &markdown[markdown.find("### get").unwrap()..];
    assert!(line_starting(get, "- Best throughput: -Xmx256m,").contains("not distinguishable from it: -Xmx64m"));
}

#[test]
fn a_phase_outside_the_capacity_search_says_only_the_search_is_judged_when_the_plan_has_no_slo() {
    // ladder-real has no [slo]; its capacity search on sets has its own (p99<=20ms), its rate ladder on gets none.
    let dir = copy_of("ladder-real");
    let markdown = report(&dir);
    let cheapest = line_starting(&markdown, "- Cheapest mode that ran without crashing");
    assert!(
        cheapest.ends_with(
            "Only the capacity search is judged (by its own SLO, p99<=20ms, errors<=0.1%); add `[slo]` to the plan to \
             have this phase's cells judged too. It needs ≥ 157 MB of memory (its whole-life RSS peak), not only its \
             heap."
        ),
        "{cheapest}"
    );
}

#[test]
fn a_search_phases_header_states_the_whole_phase_and_whose_figures_its_table_shows() {
    let dir = copy_of("ladder");
    let summary = read_json(&dir.join("summary.json"));
    let markdown = report(&dir);
    // The crashed cell has no such phase; the others' repeats all ran it.
    let set: Vec<&Value> =
        (0..3).flat_map(|cell| records(&summary, cell, "set")).filter(|record| record.is_object()).collect();
    let of = |read: &dyn Fn(&Value) -> f64| median(set.iter().map(|record| read(record)).collect());
    let steps = |record: &Value| record["steps"].as_array().unwrap().clone();
    // The whole phase: its JVM window (warm-ups and checks included), its steps and their requests. (The fixture's
    // steps are synthetic, laid on a closed-model phase's 3 s window: only the rule is checked here, not real times.)
    let whole_s = of(&|record| {
        let jvm = &record["jvm"];
        jvm["uptime_end_s"].as_f64().unwrap() - jvm["uptime_start_s"].as_f64().unwrap()
    });
    let count = of(&|record| steps(record).len() as f64) as usize;
    let requests = of(&|record| steps(record).iter().map(|step| step["requests"].as_f64().unwrap()).sum()) as u64;
    // The table's figures: the capacity step's.
    let headline_s = of(&|record| record["duration_s"].as_f64().unwrap());
    let headline_requests = of(&|record| record["requests"].as_f64().unwrap()) as u64;
    let expected = format!(
        "the whole phase {whole_s:.1} s: {count} steps, {requests} requests measured in all (medians); the figures \
         below are the capacity step's ({headline_s:.1} s, {headline_requests} requests)"
    );
    let header = line_starting(&markdown, "set: ");
    assert!(header.contains(&expected), "{header}\nexpected: {expected}");
}
