//! The memory section, report.json's `memory`, the recommendation's "needs ≥ N MB", the memory-limit kill in every
//! output, and compare of boxed cells — on the sweep fixture given box and NMT figures by hand
//! (`results_fixtures::boxed`). Every figure asserted is computed here from what the test wrote or the fixture holds.

use crate::common;
use crate::common::results_fixtures;

use common::jload;
use results_fixtures::boxed::{CATEGORIES, KILL_CAUSE, KILLED, MIB, SMALL, boxed_sweep, rss_life_peak_mb};
use results_fixtures::{line_starting, read_json, report};
use serde_json::json;

#[test]
fn the_memory_section_shows_a_boxed_cells_native_memory_against_its_limit_and_the_kill() {
    let dir = boxed_sweep();
    let markdown = report(&dir);
    let rss = rss_life_peak_mb(&dir, SMALL, 1);
    let section = markdown.split("## Memory\n").nth(1).unwrap().split("## Is it the GC?").next().unwrap();
    let expected_small = format!(
        "### -Xmx64m in 256m / 1.5 CPU (repeat 1 of 3)\n\n\
         |memory|MB|of the limit|\n|:---|:---:|:---:|\n\
         |NMT Other|80.0|31.2 %|\n|NMT Java Heap|64.0|25.0 %|\n|NMT Class|12.0|4.7 %|\n|NMT GC|10.0|3.9 %|\n\
         |NMT Code|8.0|3.1 %|\n|NMT smaller ones|3.5|1.4 %|\n|NMT committed in all|177.5|69.3 %|\n\
         |RSS peak (whole life)|{rss:.1}|{:.1} %|\n|box peak|200.0|78.1 %|\n|memory limit|256.0|100.0 %|\n\
         |headroom|56.0|21.9 %|\n|CPU quota, throttled|1.5 CPU|12.30 % of periods|\n",
        100.0 * rss / 256.0
    );
    assert!(section.contains(&expected_small), "{section}");
    // The killed cell: its repeat that peaked at the limit, named as killed with the recorded cause.
    let killed_rss = rss_life_peak_mb(&dir, KILLED, 2);
    let expected_killed = format!(
        "### -Xmx256m in 384m (repeat 2 of 3)\n\n**In repeat 2: {KILL_CAUSE}**\n\n\
         |memory|MB|of the limit|\n|:---|:---:|:---:|\n\
         |RSS peak (whole life)|{killed_rss:.1}|{:.1} %|\n|box peak|384.0|100.0 %|\n|memory limit|384.0|100.0 %|\n\
         |headroom|0.0|0.0 %|\n",
        100.0 * killed_rss / 384.0
    );
    assert!(section.contains(&expected_killed), "{section}");
    assert!(!section.contains("tiny"), "a cell without a box or NMT has no memory section: {section}");

    // The recommendation: the memory each boxed cell needs (its anonymous memory: the box's page cache is
    // reclaimable), and the kill with its box and cause — never "crashed".
    let needs = line_starting(&markdown, "- Memory: -Xmx64m");
    assert_eq!(
        needs,
        format!(
            "- Memory: -Xmx64m in 256m / 1.5 CPU needs ≥ 195 MB: RSS peak {} MB over the JVM's whole life, box peak \
             200 MB of 256 MB (headroom 56 MB, 21.9 %), 195 MB of it anonymous, the rest page cache the kernel \
             reclaims; native memory committed: Other 80, Java Heap 64, Class 12, GC 10, Code 8, smaller ones 4 MB",
            rss.ceil()
        )
    );
    assert_eq!(
        line_starting(&markdown, "- -Xmx256m in 384m"),
        format!("- -Xmx256m in 384m: {KILL_CAUSE} (during get, in repeat 2)")
    );
    // Nowhere a bare "crashed" for it: the list of troubled cells names the kill too.
    assert_eq!(line_starting(&markdown, "- -Xmx256m: "), format!("- -Xmx256m: during get in repeat 2: {KILL_CAUSE}"));
    assert!(!markdown.contains("-Xmx256m: crashed"), "{markdown}");
}

#[test]
fn report_json_carries_memory_per_cell_and_per_phase_in_bytes() {
    let dir = boxed_sweep();
    report(&dir);
    let json = read_json(&dir.join("report.json"));
    let cells = json["cells"].as_array().unwrap();
    let cell = |id: &str| cells.iter().find(|cell| cell["id"] == id).unwrap();
    let memory = &cell(SMALL)["memory"];
    let rss = rss_life_peak_mb(&dir, SMALL, 1);
    assert_eq!(memory["limit"], 256 * MIB);
    assert_eq!(memory["peak"], 200 * MIB);
    assert_eq!(memory["rss_peak"], (rss * MIB as f64).round() as u64);
    assert_eq!(memory["throttled_pct"], 12.3);
    // Needs: the box's anonymous peak (195 MiB in box.csv), not its usage with page cache (200 MiB).
    assert_eq!(memory["needs"], 195 * MIB);
    assert_eq!(memory["anon_peak"], 195 * MIB);
    assert_eq!(memory["headroom"], 56 * MIB);
    assert_eq!(memory["rep"], 1);
    assert_eq!(memory["box_label"], "256m / 1.5 CPU");
    assert_eq!(memory["nmt"].as_object().unwrap().len(), CATEGORIES.len());
    assert_eq!(memory["nmt"]["Other"], json!({"reserved": 2 * 80 * MIB, "committed": 80 * MIB}));
    assert_eq!(cell(KILLED)["memory"]["killed"], KILL_CAUSE);
    assert_eq!(cell(KILLED)["memory"]["killed_reps"], json!([2]));
    assert!(cell("heap=tiny,gc=G1").get("memory").is_none(), "no box, no NMT: no memory");
    // Per phase: the measured repeat whose box peaked highest, its figures at the phase's end.
    let get = json["phases"].as_array().unwrap().iter().find(|phase| phase["name"] == "get").unwrap();
    let get_small = get["cells"].as_array().unwrap().iter().find(|c| c["cell"] == SMALL).unwrap();
    assert_eq!(get_small["memory"]["peak"], 200 * MIB);
    assert_eq!(get_small["memory"]["throttled_pct"], 12.5);
    assert_eq!(get_small["memory"]["nmt"]["Java Heap"]["committed"], 64 * MIB);
    let set = json["phases"].as_array().unwrap().iter().find(|phase| phase["name"] == "set").unwrap();
    let set_small = set["cells"].as_array().unwrap().iter().find(|c| c["cell"] == SMALL).unwrap();
    assert_eq!(set_small["memory"]["peak"], 150 * MIB);
    assert_eq!(set_small["memory"]["nmt"], json!({}));
    // The RSS peak figure is the whole life's too, in every phase.
    assert_eq!(set_small["figures"]["rss_peak_mb"]["values"][0], rss);
}

#[test]
fn the_html_draws_the_memory_of_each_boxed_cell() {
    let dir = boxed_sweep();
    report(&dir);
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(html.contains("<a href=\"#memory\">Memory</a>"));
    assert_eq!(html.matches("data-chart=\"memory\"").count(), 1, "one cell has NMT figures");
    // Both boxed cells have an RSS line (gcstat.csv); the small one also its box usage (box.csv).
    assert_eq!(html.matches("data-chart=\"memory-over-time\"").count(), 2);
    assert_eq!(html.matches("class=\"series usage\"").count(), 1);
    for category in ["Other: 80.0 MB committed", "Java Heap: 64.0 MB committed", "smaller ones: 3.5 MB committed"] {
        assert!(html.contains(category), "{category}");
    }
}

#[test]
fn compare_of_two_boxed_cells_shows_their_boxes_and_memory_peaks() {
    let dir = boxed_sweep();
    let a = format!("{}:{SMALL}", dir.display());
    let b = format!("{}:{KILLED}", dir.display());
    let (output, _) = jload(&["compare", &a, &b]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.contains("box: A 256m / 1.5 CPU, B 384m; B killed by the memory limit in repeat 2"), "{stdout}");
    // The box's peak is shown for context, not judged (no verdict): medians 145 and 310 MiB in set (B's killed repeat
    // finished set), 195 and 305 in get (its killed repeat's get does not count).
    let judged = stdout.lines().nth(2).unwrap();
    assert!(judged.starts_with("threshold") && !judged.contains("memory"), "{judged}");
    let peaks: Vec<Vec<&str>> = stdout
        .lines()
        .filter(|line| line.trim_start().starts_with("memory peak"))
        .map(|line| line.split_whitespace().collect())
        .collect();
    assert_eq!(peaks.len(), 2, "{stdout}");
    assert_eq!(peaks[0][3..7], ["145", "(n=3)", "310", "(n=3)"]);
    assert_eq!(peaks[1][3..7], ["195", "(n=3)", "305", "(n=2)"]);
    assert_eq!(peaks[0].len(), 9, "a ratio and a p, no verdict: {:?}", peaks[0]);
}

#[test]
fn the_end_of_run_table_shows_each_cells_box_and_names_the_kill() {
    let dir = boxed_sweep();
    let tables = jload::report::Report::open(&dir).unwrap().terminal_tables();
    let row = |start: &str| -> Vec<String> {
        let line =
            tables.lines().find(|line| line.trim_start().starts_with(start)).unwrap_or_else(|| panic!("{tables}"));
        line.split("  ").map(str::trim).filter(|part| !part.is_empty()).map(String::from).collect()
    };
    assert_eq!(row("status"), ["status", "crashed", "ok", "killed by the memory limit"]);
    assert_eq!(row("box"), ["box", "-", "256m / 1.5 CPU", "384m"]);
}

#[test]
fn a_cell_killed_before_it_was_ready_is_named_with_the_box_it_asked_for() {
    // The boxed sweep's tiny cell as if every repeat had been killed by a 32 MiB box while starting: no phase, no
    // box figures, only meta.json's box and failure.
    let dir = boxed_sweep();
    let cause = "before it was ready: killed by the memory limit (32 MiB): peak 32 MiB";
    results_fixtures::edit_summary(&dir, |summary| {
        let tiny = &mut summary["cells"][0];
        assert_eq!(tiny["id"], "heap=tiny,gc=G1");
        tiny["status"] = json!("failed");
        for rep in tiny["reps"].as_array_mut().unwrap() {
            (rep["status"], rep["cause"], rep["phases"]) = (json!("failed"), json!(cause), json!({}));
        }
    });
    for rep in 1..=3 {
        let path = results_fixtures::boxed::rep_dir(&dir, "heap=tiny,gc=G1", rep).join("meta.json");
        let mut meta = read_json(&path);
        (meta["status"], meta["cause"], meta["failure"]) = (json!("failed"), json!(cause), json!("memory_limit"));
        meta["box"] = json!({"memory_bytes": 32 * MIB, "cpus_quota": null});
        std::fs::write(&path, serde_json::to_vec_pretty(&meta).unwrap()).unwrap();
    }
    let markdown = report(&dir);
    assert_eq!(line_starting(&markdown, "- tiny in 32m: "), format!("- tiny in 32m: {cause} (in repeats 1, 2, 3)"));
    assert_eq!(line_starting(&markdown, "- tiny: "), format!("- tiny: in every repeat: {cause}"));
    // The phase tables give the cause where the figures would be, and "is it the GC?" says why there is no answer.
    assert!(line_starting(&markdown, "|req/s|").starts_with(&format!("|req/s|{cause}|")), "{markdown}");
    assert_eq!(line_starting(&markdown, "|tiny|"), "|tiny|killed by the memory limit|-|-|-|-|-|-|-|");
    // compare: B lost every phase to the limit, and says so.
    let (a_side, b_side) = (format!("{}:{SMALL}", dir.display()), format!("{}:heap=tiny,gc=G1", dir.display()));
    let (output, _) = jload(&["compare", &a_side, &b_side]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let boxes = "  box: A 256m / 1.5 CPU, B 32m; B killed by the memory limit in repeats 1, 2, 3";
    assert!(stdout.contains(boxes), "{stdout}");
    let rps = stdout.lines().find(|line| line.trim_start().starts_with("req/s")).unwrap();
    assert!(rps.ends_with("MISSING in B (killed by the memory limit)"), "{stdout}");
    let tables = jload::report::Report::open(&dir).unwrap().terminal_tables();
    let status =
        tables.lines().find(|line| line.trim_start().starts_with("status")).unwrap_or_else(|| panic!("{tables}"));
    assert!(status.contains("killed by the memory limit"), "{tables}");
    assert!(tables.lines().any(|line| line.trim_start().starts_with("box") && line.contains("32m")), "{tables}");
}
