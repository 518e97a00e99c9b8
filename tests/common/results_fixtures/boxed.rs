//! A copy of the sweep fixture (tests/fixtures/results/sweep) whose cells are given, by hand, what a boxed run with
//! native memory tracking records: box figures in the phase records, `box.csv`, `nmt.csv`, and for one repeat a kill
//! by the memory limit in meta.json — for the memory section's suites (report_memory.rs, report_html.rs).

use std::path::Path;

use serde_json::{Value, json};

use super::{FixtureCopy, copy_of, edit_summary, read_json};

pub const MIB: u64 = 1 << 20;
pub const SMALL: &str = "heap=-Xmx64m,gc=G1";
pub const KILLED: &str = "heap=-Xmx256m,gc=G1";
pub const KILL_CAUSE: &str = "killed by the memory limit (384 MiB): peak 384 MiB";

/// NMT categories of the small cell's first repeat, committed MiB (reserved twice that): 177.5 MiB in all.
pub const CATEGORIES: [(&str, f64); 8] = [
    ("Java Heap", 64.0),
    ("Class", 12.0),
    ("Thread", 2.0),
    ("Code", 8.0),
    ("GC", 10.0),
    ("Symbol", 1.0),
    ("Internal", 0.5),
    ("Other", 80.0),
];

pub fn bytes(mb: f64) -> u64 {
    (mb * MIB as f64) as u64
}

pub fn rep_dir(dir: &Path, cell: &str, rep: u32) -> std::path::PathBuf {
    dir.join("cells").join(cell).join(format!("rep-{rep}"))
}

/// The box at a phase's end: limit, peak (MiB), throttled periods out of 800.
fn box_figures(limit_mb: u64, peak_mb: u64, quota: Option<f64>, oom_kills: u64) -> Value {
    let mut figures = json!({
        "memory_limit": limit_mb * MIB, "memory_usage": peak_mb * MIB - MIB, "memory_peak": peak_mb * MIB,
        "oom_kills": oom_kills, "anon": peak_mb * MIB - 2 * MIB, "file": MIB,
    });
    if let Some(quota) = quota {
        figures["cpus_quota"] = json!(quota);
        figures["periods"] = json!(800);
        figures["throttled_periods"] = json!(100);
        figures["throttled_ms"] = json!(2500.0);
    }
    figures
}

fn nmt_summary() -> Value {
    let total: u64 = CATEGORIES.iter().map(|(_, mb)| bytes(*mb)).sum();
    let categories: Vec<Value> = CATEGORIES
        .iter()
        .map(|(name, mb)| json!({"name": name, "reserved": 2 * bytes(*mb), "committed": bytes(*mb)}))
        .collect();
    json!({"total": {"reserved": 2 * total, "committed": total}, "malloc": null, "mmap": null, "categories": categories})
}

/// The sweep fixture with the small cell in a 256 MiB / 1.5-CPU box (peaks 200, 190, 195 MiB; NMT in repeat 1) and the
/// -Xmx256m cell in a 384 MiB box that killed its repeat 2 during `get`.
pub fn boxed_sweep() -> FixtureCopy {
    let dir = copy_of("sweep");
    edit_summary(&dir, |summary| {
        for cell in summary["cells"].as_array_mut().unwrap() {
            let id = cell["id"].as_str().unwrap().to_string();
            for rep in cell["reps"].as_array_mut().unwrap() {
                let number = rep["rep"].as_u64().unwrap();
                let phases = rep["phases"].as_object_mut().unwrap();
                for (name, record) in phases.iter_mut() {
                    let end_of_life = name == "get";
                    if id == SMALL {
                        let peak = [200, 190, 195][number as usize - 1] - if end_of_life { 0 } else { 50 };
                        record["box"] = box_figures(256, peak, Some(1.5), 0);
                        if number == 1 && end_of_life {
                            record["nmt"] = nmt_summary();
                        }
                    } else if id == KILLED {
                        let killed = number == 2;
                        let peak = if killed { 384 } else { [300, 0, 310][number as usize - 1] };
                        record["box"] = box_figures(384, peak, None, u64::from(killed && end_of_life));
                        if killed && end_of_life {
                            record["interrupted"] = json!(true);
                        }
                    }
                }
                if id == KILLED && number == 2 {
                    rep["status"] = json!("crashed");
                    rep["cause"] = json!(KILL_CAUSE);
                }
            }
            if id == KILLED {
                cell["status"] = json!("crashed");
            }
        }
    });
    let meta_path = rep_dir(&dir, KILLED, 2).join("meta.json");
    let mut meta = read_json(&meta_path);
    (meta["status"], meta["cause"], meta["failure"]) = (json!("crashed"), json!(KILL_CAUSE), json!("memory_limit"));
    std::fs::write(&meta_path, serde_json::to_vec_pretty(&meta).unwrap()).unwrap();
    // box.csv of the small cell's repeat 1: usage rising to 196 MiB, peak 196.5 MiB, 123 of 1000 periods throttled.
    let mut box_csv = String::from(
        "unix_ms,uptime_s,limit_mb,usage_mb,peak_mb,anon_mb,file_mb,oom_kills,quota_cpus,periods,throttled_periods,\
         throttled_ms\n",
    );
    for second in 1..=4u64 {
        let usage = 100 + 24 * second;
        box_csv += &format!(
            "{},{second}.000,256.000,{usage}.000,{}.500,{}.000,1.000,0,1.5,{},{},{}.000\n",
            1_700_000_000_000 + 1000 * second,
            usage,
            usage - 1,
            250 * second,
            if second == 4 { 123 } else { 30 * second },
            100 * second
        );
    }
    std::fs::write(rep_dir(&dir, SMALL, 1).join("box.csv"), box_csv).unwrap();
    let mut nmt_csv = String::from("unix_ms,uptime_s,read_ms,category,reserved_bytes,committed_bytes\n");
    let total: u64 = CATEGORIES.iter().map(|(_, mb)| bytes(*mb)).sum();
    nmt_csv += &format!("1700000004000,4.000,0.400,Total,{},{total}\n", 2 * total);
    for (name, mb) in CATEGORIES {
        nmt_csv += &format!("1700000004000,4.000,0.400,{name},{},{}\n", 2 * bytes(mb), bytes(mb));
    }
    std::fs::write(rep_dir(&dir, SMALL, 1).join("nmt.csv"), nmt_csv).unwrap();
    dir
}

/// The highest RSS of a repeat over its whole life: its gcstat.csv rows and its phases' JVM windows, MiB.
pub fn rss_life_peak_mb(dir: &Path, cell: &str, rep: u32) -> f64 {
    let rep_dir = rep_dir(dir, cell, rep);
    let text = std::fs::read_to_string(rep_dir.join("gcstat.csv")).unwrap();
    let mut lines = text.lines();
    let column = lines.next().unwrap().split(',').position(|name| name == "rss_mb").unwrap();
    let rows = lines.filter_map(|line| line.split(',').nth(column)?.parse::<f64>().ok());
    let summary = read_json(&dir.join("summary.json"));
    let cells = summary["cells"].as_array().unwrap();
    let reps = cells.iter().find(|c| c["id"] == cell).unwrap()["reps"].as_array().unwrap();
    let phases = reps.iter().find(|r| r["rep"] == rep).unwrap()["phases"].as_object().unwrap();
    let windows = phases.values().filter_map(|record| record["jvm"]["rss_mb"]["max"].as_f64());
    rows.chain(windows).fold(0.0, f64::max)
}
