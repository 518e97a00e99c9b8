//! "Is it the host?" on a real sweep whose repeats are recorded on three servers (tests/fixtures/results/hosts, see
//! capture_hosts.sh: one repeat of each cell re-run beside a CPU hog, recorded on s2). The report must name exactly the
//! servers and cells the rule predicts from the fixture's own figures; the prediction is computed here, independently
//! of jload's general least-squares fit, by the closed form of a balanced design (every cell once on every server).

use crate::common::results_fixtures;

use std::collections::BTreeMap;

use results_fixtures::{copy_of, fixture, read_json, report};
use serde_json::Value;
use statrs::distribution::{ContinuousCDF, StudentsT};

const MIN_HOST_EFFECT: f64 = 0.03;
const ALPHA: f64 = 0.05;
const MIN_SPREAD_CUT: f64 = 0.5;

/// What the rule predicts for one figure of one phase.
#[derive(Debug)]
struct Prediction {
    /// Blamed servers with their factor against the servers they were compared with.
    blamed: Vec<(String, f64, Vec<String>)>,
    variance_explained: f64,
    /// Cells whose spread follows their server.
    explained: Vec<String>,
}

/// (cell id, repeat) → server, from each repeat's meta.json.
fn hosts(dir: &std::path::Path) -> BTreeMap<(String, u64), String> {
    let mut hosts = BTreeMap::new();
    for cell in std::fs::read_dir(dir.join("cells")).unwrap() {
        for rep in std::fs::read_dir(cell.unwrap().path()).unwrap() {
            let meta = read_json(&rep.unwrap().path().join("meta.json"));
            let key = (meta["cell"].as_str().unwrap().to_string(), meta["rep"].as_u64().unwrap());
            hosts.insert(key, meta["host"].as_str().unwrap().to_string());
        }
    }
    hosts
}

/// The rule of docs/report.md ("Several servers: is it the host?") in the closed form of a balanced design.
fn predict(
    summary: &Value,
    hosts: &BTreeMap<(String, u64), String>,
    phase: &str,
    (read, higher_is_better): (fn(&Value) -> f64, bool),
) -> Prediction {
    let servers: Vec<String> = {
        let mut all: Vec<String> = hosts.values().cloned().collect();
        all.sort();
        all.dedup();
        all
    };
    // log figure per cell and server
    let mut logs: Vec<(String, Vec<f64>)> = Vec::new();
    for cell in summary["cells"].as_array().unwrap() {
        let id = cell["id"].as_str().unwrap().to_string();
        let mut row = vec![f64::NAN; servers.len()];
        for rep in cell["reps"].as_array().unwrap() {
            assert_eq!(rep["status"], "ok", "the fixture's repeats all ran");
            let server = &hosts[&(id.clone(), rep["rep"].as_u64().unwrap())];
            let index = servers.iter().position(|s| s == server).unwrap();
            assert!(row[index].is_nan(), "{id}: one repeat per server (a balanced design)");
            row[index] = read(&rep["phases"][phase]).ln();
        }
        assert!(row.iter().all(|log| log.is_finite()), "{id} ran on every server");
        logs.push((id, row));
    }
    let (cells, h) = (logs.len() as f64, servers.len());
    let centred: Vec<Vec<f64>> = logs
        .iter()
        .map(|(_, row)| {
            let mean = row.iter().sum::<f64>() / h as f64;
            row.iter().map(|log| log - mean).collect()
        })
        .collect();
    // Balanced: a server's effect is the mean of its centred figures; residuals are what it leaves.
    let effect: Vec<f64> = (0..h).map(|s| centred.iter().map(|row| row[s]).sum::<f64>() / cells).collect();
    let ss_within: f64 = centred.iter().flatten().map(|r| r * r).sum();
    let ss_residual: f64 = centred.iter().map(|row| (0..h).map(|s| (row[s] - effect[s]).powi(2)).sum::<f64>()).sum();
    let df = (cells - 1.0) * (h as f64 - 1.0);
    let sigma2 = ss_residual / df;
    let t = StudentsT::new(0.0, 1.0, df).unwrap();
    let mut blamed: Vec<(String, f64, Vec<String>)> = Vec::new();
    loop {
        let unblamed: Vec<usize> = (0..h).filter(|s| blamed.iter().all(|(b, _, _)| *b != servers[*s])).collect();
        if unblamed.len() < 2 {
            break;
        }
        let contrast = |s: usize| {
            let others: Vec<usize> = unblamed.iter().copied().filter(|o| *o != s).collect();
            let value = effect[s] - others.iter().map(|o| effect[*o]).sum::<f64>() / others.len() as f64;
            (s, value, others)
        };
        let (s, value, others) = unblamed
            .iter()
            .map(|s| contrast(*s))
            .reduce(|best, next| {
                let tie = (next.1.abs() - best.1.abs()).abs() <= 1e-12;
                let worse = if higher_is_better { next.1 < best.1 } else { next.1 > best.1 };
                if next.1.abs() > best.1.abs() + 1e-12 || (tie && worse) { next } else { best }
            })
            .unwrap();
        let se = (sigma2 / cells * (1.0 + 1.0 / others.len() as f64)).sqrt();
        let p = 2.0 * t.sf((value / se).abs());
        if !((value.exp() - 1.0).abs() >= MIN_HOST_EFFECT && p < ALPHA / (h as f64 - 1.0)) {
            break;
        }
        blamed.push((servers[s].clone(), value.exp(), others.iter().map(|o| servers[*o].clone()).collect()));
    }
    let span = |values: Vec<f64>| {
        let high = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let low = values.iter().copied().fold(f64::INFINITY, f64::min);
        (high - low).exp() - 1.0
    };
    let explained = logs
        .iter()
        .filter(|(_, row)| {
            let before = span(row.clone());
            let after = span((0..h).map(|s| row[s] - effect[s]).collect());
            !blamed.is_empty() && before >= MIN_HOST_EFFECT && after <= before * (1.0 - MIN_SPREAD_CUT)
        })
        .map(|(id, _)| id.clone())
        .collect();
    Prediction { blamed, variance_explained: 1.0 - ss_residual / ss_within, explained }
}

/// A figure's key, its label in sentences, how to read it from a phase record, and whether higher is better.
type FigureRead = (&'static str, &'static str, fn(&Value) -> f64, bool);

fn rps(record: &Value) -> f64 {
    record["rps"].as_f64().unwrap()
}

fn p99(record: &Value) -> f64 {
    record["latency_ms"]["p99"].as_f64().unwrap()
}

/// The report's `percent`: one decimal under 10 %.
fn percent(share: f64) -> String {
    let pct = share * 100.0;
    if pct >= 10.0 { format!("{pct:.0}") } else { format!("{pct:.1}") }
}

#[test]
fn the_report_names_the_hosts_and_cells_the_rule_predicts_from_the_fixtures_figures() {
    let dir = copy_of("hosts");
    let markdown = report(&dir);
    let analysis = read_json(&dir.join("report.json"));
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    let summary = read_json(&fixture("hosts").join("summary.json"));
    let hosts = hosts(&fixture("hosts"));
    let labels: BTreeMap<String, String> = analysis["cells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|cell| (cell["id"].as_str().unwrap().to_string(), cell["label"].as_str().unwrap().to_string()))
        .collect();
    let mut blamed_anywhere = 0;
    for phase in analysis["phases"].as_array().unwrap().iter().filter(|phase| phase["measured"] == true) {
        let name = phase["name"].as_str().unwrap();
        let effect = &phase["hosts"];
        assert_eq!(effect["hosts"], serde_json::json!(["s1", "s2", "s3"]), "{name}");
        let figures = effect["figures"].as_array().unwrap();
        assert_eq!(figures.len(), 2, "{name}: req/s and P99, the figures a closed-model phase ranks");
        let mut clauses = Vec::new();
        let figure_reads: [FigureRead; 2] = [("rps", "req/s", rps, true), ("p99_ms", "P99", p99, false)];
        for (figure, (key, label, read, higher_is_better)) in figures.iter().zip(figure_reads) {
            assert_eq!(figure["figure"], key);
            let predicted = predict(&summary, &hosts, name, (read, higher_is_better));
            let reported: Vec<&Value> =
                figure["hosts"].as_array().unwrap().iter().filter(|host| host["explains"] == true).collect();
            let names: Vec<&str> = reported.iter().map(|host| host["host"].as_str().unwrap()).collect();
            let expected: Vec<&str> = predicted.blamed.iter().map(|(host, _, _)| host.as_str()).collect();
            assert_eq!(names, expected, "{name} {key}: blamed hosts");
            for ((host, factor, against), shown) in predicted.blamed.iter().zip(&reported) {
                let shown_factor = shown["factor"].as_f64().unwrap();
                assert!((shown_factor - factor).abs() < 1e-9, "{name} {key} {host}: {shown_factor} against {factor}");
                assert_eq!(shown["against"], serde_json::json!(against));
            }
            let variance = figure["variance_explained"].as_f64().unwrap();
            assert!((variance - predicted.variance_explained).abs() < 1e-9, "{name} {key}: {variance}");
            let explained: Vec<&str> = figure["cell_spreads"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|cell| cell["explained"] == true)
                .map(|cell| cell["cell"].as_str().unwrap())
                .collect();
            assert_eq!(explained, predicted.explained, "{name} {key}: cells whose spread follows their host");
            if let Some((host, factor, against)) = predicted.blamed.first() {
                blamed_anywhere += 1;
                let cells: Vec<&str> = predicted.explained.iter().map(|id| labels[id].as_str()).collect();
                let direction = if *factor < 1.0 { "lower" } else { "higher" };
                let whose = match cells.as_slice() {
                    [] => format!("The repeats' {label}"),
                    [one] => format!("The spread of cell {one}"),
                    many => format!("The spread of cells {}", many.join(", ")),
                };
                let start = format!(
                    "{whose} follows {}: {host} measured {} % {direction} {label} than {}",
                    if cells.len() > 1 { "their host" } else { "the host" },
                    percent((factor - 1.0).abs()),
                    against.join(" and ")
                );
                clauses.push((start, percent(predicted.variance_explained)));
            }
        }
        let sentence = effect["sentence"].as_str().unwrap();
        for (start, share) in &clauses {
            assert!(sentence.contains(start.as_str()), "{name}: {sentence}\nlacks: {start}");
            assert!(sentence.contains(&format!("the hosts explain {share} % of")), "{name}: {sentence}");
        }
        if clauses.is_empty() {
            assert!(sentence.starts_with("Repeats ran on s1, s2 and s3: no host measured differently"), "{sentence}");
        }
        // The same sentence above the phase's table in report.md and report.html.
        let escaped = sentence.replace('_', "\\_").replace('*', "\\*");
        let section = &markdown[markdown.find(&format!("\n## Phase {name}\n")).unwrap()..];
        let table = section.find("\n|").unwrap();
        assert!(section[..table].contains(&escaped), "{name}: the sentence is above the table");
        let html_sentence = sentence.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;");
        let warn = if clauses.is_empty() { "" } else { " warn" };
        let callout = format!("<p class=\"callout hosts{warn}\">{html_sentence}</p>");
        let heading = html.find(&format!(">Phase {name}</h2>")).unwrap();
        let table = heading + html[heading..].find("<table").unwrap();
        assert!(html[heading..table].contains(&callout), "{name}: {callout} between the heading and the table");
    }
    assert!(blamed_anywhere > 0, "the fixture's slowed repeats on s2 are found on some figure");
}

#[test]
fn a_sweep_on_one_machine_says_nothing_about_hosts() {
    let dir = copy_of("sweep");
    let markdown = report(&dir);
    let analysis = read_json(&dir.join("report.json"));
    for phase in analysis["phases"].as_array().unwrap() {
        assert_eq!(phase["hosts"], Value::Null, "{}", phase["name"]);
    }
    assert!(!markdown.contains("follows"));
    assert!(!markdown.contains("Repeats ran on"));
}
