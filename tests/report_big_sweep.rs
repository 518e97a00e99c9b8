//! Reports of a big sweep: the real 25-cell run in tests/fixtures/results/sweep25 (5 heaps × 5 collectors against
//! kv-service, one repeat, see capture.sh). report.md's grids of the headline figures (exact positions, cross-checked
//! against the per-cell phase JSONs), one grid per value of a third axis, tables with cells as rows, the phase URL
//! with `{port}`, the terminal tables at the end of `jload run` within 120 columns with CGC, and jstat's GC time beside
//! the GC share only where Shenandoah's counts its concurrent cycles.

use crate::common;
use crate::common::results_fixtures;

use common::jload;
use results_fixtures::{copy_of, edit_summary, fixture, ms, read_json, report};
use serde_json::Value;

const HEAPS: [&str; 5] = ["32m", "64m", "128m", "256m", "512m"];
const COLLECTORS: [&str; 5] = ["Serial", "Parallel", "G1", "ZGC", "Shenandoah"];

/// A phase record of the fixture, read independently of jload.
fn phase_json(heap: &str, gc: &str, phase: &str) -> Value {
    read_json(&fixture("sweep25").join(format!("cells/heap={heap},gc={gc}/rep-1/{phase}.json")))
}

/// The markdown table that follows the line `**{title}**` after the heading `heading`.
fn grid_after<'a>(markdown: &'a str, heading: &str, title: &str) -> Vec<&'a str> {
    let section = &markdown[markdown.find(heading).unwrap_or_else(|| panic!("no {heading}"))..];
    let start = section.find(&format!("**{title}**\n\n")).unwrap_or_else(|| panic!("no grid {title}"));
    section[start..].lines().skip(2).take_while(|line| line.starts_with('|')).collect()
}

#[test]
fn two_axes_give_a_grid_per_headline_figure_with_exact_positions() {
    let markdown = report(&copy_of("sweep25"));
    assert!(markdown.contains("\n## Grids: heap × gc\n\nRows: heap; columns: gc. Each figure is the median"));
    // Per measured phase: req/s, P99 and the GC share.
    assert_eq!(markdown.matches("\n**req/s**\n").count(), 2);
    assert_eq!(markdown.matches("\n**P99 (ms)**\n").count(), 2);
    assert_eq!(markdown.matches("\n**GC share %**\n").count(), 2);
    for phase in ["set", "get"] {
        let heading = format!("### Phase {phase}\n");
        for (title, show) in [
            (
                "req/s",
                &(|record: &Value| format!("{:.0}", record["rps"].as_f64().unwrap())) as &dyn Fn(&Value) -> String,
            ),
            ("P99 (ms)", &|record: &Value| ms(record["latency_ms"]["p99"].as_f64().unwrap())),
        ] {
            let grid = grid_after(&markdown, &heading, title);
            assert_eq!(grid.len(), 2 + HEAPS.len(), "{grid:?}");
            assert_eq!(grid[0], "|heap \\\\ gc|Serial|Parallel|G1|ZGC|Shenandoah|");
            for (row, heap) in HEAPS.iter().enumerate() {
                let figures: Vec<String> = COLLECTORS.iter().map(|gc| show(&phase_json(heap, gc, phase))).collect();
                assert_eq!(grid[2 + row], format!("|{heap}|{}|", figures.join("|")), "{phase} {title}");
            }
        }
    }
    // Two values read off the fixture by hand: set req/s at 512m Parallel, get P99 at 32m ZGC.
    assert_eq!(grid_after(&markdown, "### Phase set\n", "req/s")[6], "|512m|3256|8681|3800|2800|4329|");
    assert!(grid_after(&markdown, "### Phase get\n", "P99 (ms)")[2].starts_with("|32m|6.283|6.527|5.011|4.267|"));
    // Never "-0.00": ZGC's empty pause sums are 0.
    assert!(!markdown.contains("-0.00"), "{markdown}");
}

#[test]
fn a_third_axis_splits_the_grids_one_per_value() {
    let dir = copy_of("sweep25");
    // As if the plan had a third axis, jdk, with the heaps up to 128m on 17 and the larger ones on 25.
    edit_summary(&dir, |summary| {
        summary["axes"].as_array_mut().unwrap().push(Value::from("jdk"));
        for cell in summary["cells"].as_array_mut().unwrap() {
            let large = ["256m", "512m"].contains(&cell["axes"]["heap"].as_str().unwrap());
            cell["axes"]["jdk"] = Value::from(if large { "25" } else { "17" });
        }
    });
    let markdown = report(&dir);
    assert!(markdown.contains("Rows: heap; columns: gc; one grid per value of jdk."), "{markdown}");
    assert_eq!(markdown.matches("\n**req/s, jdk = 17**\n").count(), 2);
    assert_eq!(markdown.matches("\n**req/s, jdk = 25**\n").count(), 2);
    // jdk 25 holds only 256m and 512m: the other heaps are combinations with no cell.
    let grid = grid_after(&markdown, "### Phase set\n", "req/s, jdk = 25");
    assert_eq!(grid[2], "|32m|-|-|-|-|-|");
    assert_eq!(grid[6], "|512m|3256|8681|3800|2800|4329|");
    let grid = grid_after(&markdown, "### Phase set\n", "req/s, jdk = 17");
    assert_eq!(grid[5], "|256m|-|-|-|-|-|");
}

#[test]
fn many_cells_make_tables_with_cells_as_rows_and_the_url_shows_the_port_placeholder() {
    let dir = copy_of("sweep25");
    let markdown = report(&dir);
    // 25 cells do not fit as columns: the seeds' table transposed, one row per cell in cell order.
    let header = "|heap gc \\\\ metrics|req/s|P99 (ms)|RT (min/P90/P95/P99/P99.9/max) (ms)|";
    assert_eq!(markdown.matches(header).count(), 2, "both measured phases");
    let set = &markdown[markdown.find("## Phase set").unwrap()..];
    let rows: Vec<&str> = set.lines().skip_while(|line| !line.starts_with(header)).skip(2).take(25).collect();
    for (index, row) in rows.iter().enumerate() {
        let (heap, gc) = (HEAPS[index / 5], COLLECTORS[index % 5]);
        let rps = format!("{:.0}", phase_json(heap, gc, "set")["rps"].as_f64().unwrap());
        assert!(row.starts_with(&format!("|{heap} {gc}|{rps}|")), "row {index}: {row}");
    }
    // The header's URL is the plan's, not one cell's port.
    let ports: Vec<u64> = HEAPS
        .iter()
        .flat_map(|heap| COLLECTORS.map(|gc| (heap, gc)))
        .map(|(heap, gc)| {
            read_json(&dir.join(format!("cells/heap={heap},gc={gc}/rep-1/meta.json")))["port"].as_u64().unwrap()
        })
        .collect();
    assert!(markdown.contains("http://127.0.0.1:{port}/random\\_set?keyRange=20000&valueSize=1000"), "{markdown}");
    for port in ports {
        assert!(!markdown.contains(&format!(":{port}/")), "port {port} of one cell shown");
    }
    let json = read_json(&dir.join("report.json"));
    assert_eq!(json["phases"][1]["load"]["url"], "http://127.0.0.1:{port}/random_get?keyRange=20000");
}

#[test]
fn jstats_gc_time_is_shown_beside_the_gc_share_where_shenandoah_counts_its_concurrent_cycles() {
    let markdown = report(&copy_of("sweep25"));
    let set = &markdown[markdown.find("\n## Phase set\n").unwrap()..markdown.find("\n## Phase get\n").unwrap()];
    let header = set.lines().find(|line| line.starts_with("|heap gc \\\\ metrics|")).unwrap();
    let columns: Vec<&str> = header.split('|').collect();
    let at = |label: &str| columns.iter().position(|column| *column == label).unwrap_or_else(|| panic!("{header}"));
    let (share, jstat) = (at("GC share %"), at("jstat GC time %"));
    assert_eq!(jstat, share + 1, "beside the GC share: {header}");
    let row = |cell: &str| set.lines().find(|line| line.starts_with(&format!("|{cell}|"))).unwrap().split('|');
    let figures = |cell: &str| {
        let row: Vec<&str> = row(cell).collect();
        (row[share].to_string(), row[jstat].to_string())
    };
    let jstat_of =
        |heap: &str, gc: &str| format!("{:.2}", phase_json(heap, gc, "set")["jvm"]["gc_time_pct"].as_f64().unwrap());
    // Shenandoah's GCT counts its concurrent cycles: 18.59 % against pauses of 0.02 % of the phase.
    assert_eq!(figures("64m Shenandoah"), ("0.02".to_string(), jstat_of("64m", "Shenandoah")));
    assert_eq!(jstat_of("64m", "Shenandoah"), "18.59");
    // The column is the phase's: every cell has its figure in it, Serial's too.
    assert_eq!(figures("32m Serial").1, jstat_of("32m", "Serial"));
    assert!(
        set.contains(
            "\njstat GC time %: the collector's own time counter (jstat's GCT) as a share of the phase. Shown because \
             it is more than 1 percentage point and 1.5× above the GC pause share in 64m Shenandoah and 1 other cell \
             (18.59 % against 0.02 %): it counts collector work the application did not wait for (concurrent \
             cycles); a collector that stops the world for all its work keeps it below the pause share, since it \
             leaves out the time to reach a safepoint.\n"
        ),
        "{set}"
    );
}

#[test]
fn jstats_gc_time_is_not_shown_for_collectors_that_stop_the_world_for_their_work() {
    // The same sweep without its concurrent collectors: Serial's, Parallel's and G1's GCT is within a point of their
    // pause shares (0.57 points apart at most, 256m G1 in get), so the GC share stands alone.
    let dir = copy_of("sweep25");
    edit_summary(&dir, |summary| {
        let cells = summary["cells"].as_array_mut().unwrap();
        cells.retain(|cell| !["ZGC", "Shenandoah"].contains(&cell["axes"]["gc"].as_str().unwrap()));
        assert_eq!(cells.len(), 15);
    });
    let markdown = report(&dir);
    for phase in ["set", "get"] {
        let from = markdown.find(&format!("\n## Phase {phase}\n")).unwrap();
        let section = markdown[from + 1..].split("\n## ").next().unwrap();
        let header = section.lines().find(|line| line.starts_with("|heap gc \\\\ metrics|")).unwrap();
        assert!(header.contains("|GC share %|"), "{header}");
        assert!(!header.contains("jstat GC time"), "{phase}: {header}");
        assert!(!section.contains("\njstat GC time %:"), "{section}");
    }
}

#[test]
fn the_end_of_run_tables_fit_120_columns_with_cells_as_rows_and_cgc() {
    // Resuming a finished run runs nothing and prints the end-of-run tables again.
    let dir = copy_of("sweep25");
    let (output, _) = jload(&["run", "--resume", dir.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let stdout = String::from_utf8(output.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().filter(|line| !line.is_empty()).collect();
    assert_eq!(
        lines.len(),
        2 * (26 + 26),
        "per measured phase a header and 25 cell rows, then \"is it the GC?\" and a line per cell:\n{stdout}"
    );
    for line in &lines {
        assert!(line.chars().count() <= 120, "{} columns: {line}", line.chars().count());
    }
    let words = |line: &str| line.split_whitespace().map(str::to_string).collect::<Vec<_>>();
    assert_eq!(
        words(lines[0]),
        [
            "set", "status", "req/s", "p50", "ms", "p99", "ms", "max", "ms", "errors", "YGC/YGCT", "s", "FGC/FGCT",
            "s", "CGC/CGCT", "s"
        ]
        .iter()
        .chain(&["GC", "share", "%"])
        .map(|word| word.to_string())
        .collect::<Vec<_>>()
    );
    // Concurrent cycles as PerfData counted them: G1 and ZGC count them, Serial and Parallel have none.
    let row = |label: &str| words(lines[1..26].iter().find(|line| line.trim_start().starts_with(label)).unwrap());
    let cgc = |heap: &str, gc: &str| {
        let jvm = &phase_json(heap, gc, "set")["jvm"];
        format!("{}/{:.3}", jvm["cgc"].as_u64().unwrap(), jvm["cgct_s"].as_f64().unwrap())
    };
    assert_eq!(row("32m ZGC")[10], cgc("32m", "ZGC"));
    assert_eq!(row("32m G1")[10], cgc("32m", "G1"));
    assert_eq!(row("32m Serial")[10], "-");
    assert_eq!(row("32m Parallel")[10], "-");
    assert_eq!(row("512m Parallel")[2], "ok");
    assert_eq!(row("512m Parallel")[3], "8681");
}

#[test]
fn the_end_of_run_table_of_a_small_run_keeps_cells_as_columns() {
    let dir = copy_of("compare-base");
    let (output, _) = jload(&["run", "--resume", dir.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let stdout = String::from_utf8(output.stdout).unwrap();
    let (table, gc) = stdout.split_once("  is it the GC?\n").unwrap();
    assert_eq!(gc.trim_end(), "    -Xmx128m: no slow requests recorded (results of an older jload)");
    let rows: Vec<Vec<&str>> = table
        .lines()
        .filter(|line| !line.is_empty())
        .map(|l| l.split("  ").filter(|w| !w.is_empty()).map(str::trim).collect())
        .collect();
    assert_eq!(rows[0], ["get", "-Xmx128m"]);
    let labels: Vec<&str> = rows[1..].iter().map(|row| row[0]).collect();
    assert_eq!(
        labels,
        [
            "status",
            "req/s",
            "p50 ms",
            "p99 ms",
            "max ms",
            "errors",
            "YGC/YGCT s",
            "FGC/FGCT s",
            "CGC/CGCT s",
            "GC share %"
        ]
    );
    assert_eq!(rows[1], ["status", "ok"]);
    // G1 counts concurrent cycles: the CGC row is there (none ran during this phase).
    assert_eq!(rows[9], ["CGC/CGCT s", "0/0.000"]);
}
