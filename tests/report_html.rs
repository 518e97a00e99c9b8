//! report.html in a real browser: headless Chromium (Debian's `chromium` package) renders the reports of the
//! fixtures. The test fails on any console message (a script error), on a chart without drawn data, on anything the
//! page would load from elsewhere, and when no screenshot comes out. A control page with a script error shows that
//! the console check does catch one. Screenshots are kept in the target directory for a person to look at.

use crate::common;
use crate::common::results_fixtures;

use std::fs::File;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use common::{machine, tempdir};
use results_fixtures::{FixtureCopy, copy_of, edit_summary, read_json, write_report};
use scraper::{ElementRef, Html, Selector};

/// One browser at a time; a browser shares the machine (common::machine) with one other load at most.
static BROWSER: Mutex<()> = Mutex::new(());

fn chromium() -> PathBuf {
    if let Some(path) = std::env::var_os("CHROMIUM") {
        return PathBuf::from(path);
    }
    std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|dir| dir.join("chromium"))
        .find(|candidate| candidate.is_file())
        .expect(
            "headless Chromium is needed for this test: apt-get install chromium (or set CHROMIUM=/path/to/chromium)",
        )
}

/// Run Chromium headless on `page` with `extra` flags; returns (stdout, stderr). Killed (its process group) after
/// 60 s.
fn run_chromium(page: &Path, extra: &[String]) -> (String, String) {
    let _one = BROWSER.lock().unwrap_or_else(|poison| poison.into_inner());
    let _machine = machine::shared();
    let scratch = tempdir();
    let (stdout_path, stderr_path) = (scratch.join("stdout"), scratch.join("stderr"));
    let mut child = Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!("--user-data-dir={}", scratch.join("profile").display()))
        .args(extra)
        .arg(format!("file://{}", page.canonicalize().unwrap().display()))
        .stdin(Stdio::null())
        .stdout(File::create(&stdout_path).unwrap())
        .stderr(File::create(&stderr_path).unwrap())
        .process_group(0)
        .spawn()
        .expect("chromium starts");
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if Instant::now() > deadline {
            unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
            let _ = child.wait();
            panic!("chromium did not finish within 60 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    (std::fs::read_to_string(stdout_path).unwrap(), std::fs::read_to_string(stderr_path).unwrap())
}

/// Console output the page caused (Chromium logs it as `INFO:CONSOLE…` with --enable-logging).
fn console_messages(stderr: &str) -> Vec<String> {
    stderr.lines().filter(|line| line.contains(":CONSOLE") || line.contains("Uncaught")).map(str::to_string).collect()
}

/// Screenshot the page (1200 × 3000) with console logging; panics on console messages; returns the PNG's path.
fn screenshot(page: &Path, name: &str) -> PathBuf {
    let shot = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("report-{name}.png"));
    let _ = std::fs::remove_file(&shot);
    let (_, stderr) = run_chromium(
        page,
        &[
            "--enable-logging=stderr".to_string(),
            "--v=0".to_string(),
            format!("--screenshot={}", shot.display()),
            "--window-size=1200,3000".to_string(),
        ],
    );
    let console = console_messages(&stderr);
    assert!(console.is_empty(), "the page wrote to the console:\n{}", console.join("\n"));
    let png = std::fs::read(&shot).unwrap_or_else(|_| panic!("no screenshot; chromium said:\n{stderr}"));
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let (width, height) =
        (u32::from_be_bytes(png[16..20].try_into().unwrap()), u32::from_be_bytes(png[20..24].try_into().unwrap()));
    assert_eq!((width, height), (1200, 3000));
    assert!(png.len() > 50_000, "a page of tables and charts is not a blank image ({} bytes)", png.len());
    eprintln!("screenshot: {}", shot.display());
    shot
}

fn dom(page: &Path) -> Html {
    let (stdout, stderr) = run_chromium(page, &["--dump-dom".to_string()]);
    assert!(stdout.contains("</html>"), "no DOM dumped; chromium said:\n{stderr}");
    Html::parse_document(&stdout)
}

fn select<'a>(scope: ElementRef<'a>, css: &str) -> Vec<ElementRef<'a>> {
    scope.select(&Selector::parse(css).unwrap()).collect()
}

/// Drawn data in a chart: bars, pause bars, heap areas, slow requests, stop bands, and lines with at least two points.
fn drawn_marks(chart: ElementRef) -> usize {
    let shapes = select(chart, "rect.bar, rect.pause, polygon.area, circle.point, rect.stop").len();
    let lines = select(chart, "polyline.series")
        .iter()
        .filter(|line| line.value().attr("points").unwrap_or("").split(' ').count() >= 2)
        .count();
    shapes + lines
}

/// The checks every report page must pass in the browser; returns the DOM.
fn check_page(page: &Path, name: &str, expected_charts: &[(&str, usize)]) -> Html {
    screenshot(page, name);
    let document = dom(page);
    let root = document.root_element();
    let loaders = select(root, "script, link, img, iframe, object, embed, [src]");
    assert!(
        loaders.is_empty(),
        "the page must be self-contained: {:?}",
        loaders.iter().map(|e| e.html()).collect::<Vec<_>>()
    );
    let styles: String = select(root, "style").iter().map(|style| style.inner_html()).collect();
    assert!(!styles.contains("url(") && !styles.contains("@import"), "no external style resources");
    let charts = select(root, "svg.chart");
    for (kind, count) in expected_charts {
        let of_kind: Vec<&ElementRef> =
            charts.iter().filter(|chart| chart.value().attr("data-chart") == Some(kind)).collect();
        assert_eq!(of_kind.len(), *count, "{kind} charts");
    }
    for chart in &charts {
        let title = select(*chart, "title").first().map(|title| title.text().collect::<String>()).unwrap_or_default();
        assert!(!title.is_empty(), "every chart has a title");
        assert!(drawn_marks(*chart) > 0, "chart '{title}' is empty");
    }
    document
}

/// A writable copy of a fixture with its reports written (report.html is the page the tests open).
fn reported_copy_of(name: &str) -> FixtureCopy {
    let dir = copy_of(name);
    write_report(&dir);
    dir
}

#[test]
fn sweep_report_renders_with_every_chart_drawn() {
    let copy = reported_copy_of("sweep");
    let page = copy.join("report.html");
    // Two measured phases × (throughput, p99, spectrum, GC time, longest pause); a timeline per cell.
    let expected = [("throughput", 2), ("p99", 2), ("spectrum", 2), ("gc-time", 2), ("gc-pause", 2), ("timeline", 3)];
    let document = check_page(&page, "sweep", &expected);
    let root = document.root_element();
    // Whiskers for the confidence intervals, marks for the best cell, GC pauses on the timelines.
    assert!(select(root, "svg[data-chart=throughput] g.whisker").len() >= 2);
    assert!(
        select(root, "svg[data-chart=throughput] text.value")
            .iter()
            .any(|text| text.text().collect::<String>().contains('★'))
    );
    assert!(select(root, "svg[data-chart=timeline] rect.pause").len() > 50);
    // The crashed cell says why instead of drawing a bar.
    let missing: String =
        select(root, "svg[data-chart=throughput] text.missing").iter().flat_map(|text| text.text()).collect();
    assert!(missing.contains("OutOfMemoryError"), "{missing}");
}

#[test]
fn report_without_logs_still_draws_its_charts() {
    let copy = reported_copy_of("compare-base");
    let page = copy.join("report.html");
    let expected = [("throughput", 1), ("p99", 1), ("spectrum", 1), ("gc-time", 1), ("gc-pause", 1), ("timeline", 1)];
    check_page(&page, "compare-base", &expected);
}

#[test]
fn a_boxed_report_draws_each_cells_memory_in_the_browser() {
    // The sweep with two cells in a box, one with NMT figures (tests/results_fixtures/boxed.rs): one stacked bar, two
    // memory-over-time charts, each with drawn data and a title; the memory limit drawn across.
    let dir = results_fixtures::boxed::boxed_sweep();
    write_report(&dir);
    let document = check_page(&dir.join("report.html"), "memory", &[("memory", 1), ("memory-over-time", 2)]);
    let root = document.root_element();
    assert_eq!(select(root, "svg[data-chart=memory] rect.bar").len(), 6, "five categories and the smaller ones");
    assert_eq!(select(root, "svg[data-chart=memory-over-time] line.limit").len(), 2);
    assert_eq!(select(root, "svg[data-chart=memory] g.mark-limit").len(), 1);
}

#[test]
fn a_label_with_markup_stays_text_in_the_browser() {
    let dir = copy_of("sweep");
    let label = "<script>document.title='pwned'</script><img src=x>";
    edit_summary(&dir, |summary| summary["cells"][1]["axes"]["heap"] = serde_json::Value::from(label));
    write_report(&dir);
    let page = dir.join("report.html");
    let document = check_page(&page, "escaped", &[("timeline", 3)]);
    let root = document.root_element();
    let headers: Vec<String> = select(root, "table.metrics thead th").iter().map(|th| th.text().collect()).collect();
    assert!(headers.iter().any(|header| header.contains(label)), "the label shows as text: {headers:?}");
    let title: String = select(root, "head title").iter().flat_map(|title| title.text()).collect();
    assert_eq!(title, "jload report: sweep", "no script ran");
}

#[test]
fn the_console_check_catches_a_script_error() {
    let dir = tempdir();
    let page = dir.join("broken.html");
    std::fs::write(&page, "<!DOCTYPE html><html><body><p>x</p><script>undefinedFunction();</script></body></html>")
        .unwrap();
    let (_, stderr) = run_chromium(
        &page,
        &[
            "--enable-logging=stderr".to_string(),
            "--v=0".to_string(),
            format!("--screenshot={}", dir.join("broken.png").display()),
            "--window-size=400,300".to_string(),
        ],
    );
    let console = console_messages(&stderr);
    assert!(console.iter().any(|line| line.contains("undefinedFunction is not defined")), "{stderr}");
}

#[test]
fn a_25_cell_report_has_grids_every_cell_in_the_legend_and_no_two_cells_alike() {
    let copy = reported_copy_of("sweep25");
    let page = copy.join("report.html");
    // Two measured phases × (throughput, p99, spectrum, GC time, longest pause); a timeline per cell.
    let expected = [("throughput", 2), ("p99", 2), ("spectrum", 2), ("gc-time", 2), ("gc-pause", 2), ("timeline", 25)];
    let document = check_page(&page, "sweep25", &expected);
    let root = document.root_element();
    let text = |element: &ElementRef| element.text().collect::<String>().trim().to_string();
    let labels: Vec<String> = ["32m", "64m", "128m", "256m", "512m"]
        .iter()
        .flat_map(|heap| ["Serial", "Parallel", "G1", "ZGC", "Shenandoah"].map(|gc| format!("{heap} {gc}")))
        .collect();

    // Grids: per phase req/s, P99 and GC share %, rows the heaps, columns the collectors.
    let grids = select(root, "table.grid");
    assert_eq!(grids.len(), 6);
    let columns: Vec<String> = select(grids[0], "thead th").iter().map(text).collect();
    assert_eq!(columns, ["heap \\ gc", "Serial", "Parallel", "G1", "ZGC", "Shenandoah"]);
    let rows: Vec<String> = select(grids[0], "tbody th").iter().map(text).collect();
    assert_eq!(rows, ["32m", "64m", "128m", "256m", "512m"]);
    let row_512: Vec<String> =
        select(grids[0], "tbody tr").last().map(|tr| select(*tr, "td").iter().map(text).collect()).unwrap();
    assert_eq!(row_512, ["3256", "8681", "3800", "2800", "4329"], "set req/s at 512m");
    // Shading runs from the worst (white-most) to the best: the best req/s is the darkest.
    let best = select(grids[0], "td").into_iter().find(|td| text(td) == "8681").unwrap();
    assert_eq!(best.value().attr("style"), Some("background:hsl(130, 45%, 75%)"));

    // Phase tables: 25 cells as rows, each with its swatch.
    let phase_tables = select(root, "table.cellrows");
    assert!(phase_tables.len() >= 2);
    let row_labels: Vec<String> = select(phase_tables[0], "tbody th").iter().map(text).collect();
    assert_eq!(row_labels, labels);
    assert_eq!(select(phase_tables[0], "tbody th svg.swatch").len(), 25);

    for spectrum in select(root, "svg[data-chart=spectrum]") {
        // Every cell in the legend, in cell order, with its full label.
        let legend: Vec<String> = select(spectrum, "g.legend text.label title").iter().map(text).collect();
        assert_eq!(legend.len(), 25);
        for (entry, label) in legend.iter().zip(&labels) {
            assert!(entry.starts_with(&format!("{label} (")), "{entry}");
        }
        // Colour by collector, dash and marker by heap: 25 distinct looks, 5 colours, 5 dash-marker pairs.
        let looks: Vec<(String, String, String)> = select(spectrum, "g.cell")
            .iter()
            .map(|cell| {
                let line = select(*cell, "polyline.series")[0].value();
                let marker = select(*cell, ".marker")[0].value().name().to_string();
                let attr = |name: &str| line.attr(name).unwrap_or("solid").to_string();
                (attr("stroke"), attr("stroke-dasharray"), marker)
            })
            .collect();
        assert_eq!(looks.len(), 25);
        let distinct: std::collections::HashSet<_> = looks.iter().collect();
        assert_eq!(distinct.len(), 25, "{looks:?}");
        let colours: std::collections::HashSet<_> = looks.iter().map(|look| &look.0).collect();
        assert_eq!(colours.len(), 5);
        for (index, look) in looks.iter().enumerate() {
            assert_eq!(look.0, looks[index % 5].0, "one colour per collector");
            assert_eq!((&look.1, &look.2), (&looks[index / 5 * 5].1, &looks[index / 5 * 5].2), "one style per heap");
        }
    }
}

#[test]
fn a_ladder_report_draws_its_curves_with_the_slo_line_and_its_capacities() {
    let copy = reported_copy_of("ladder");
    let page = copy.join("report.html");
    // Two measured phases × (throughput, p99, spectrum, GC time, longest pause, curves); capacity bars for the
    // capacity phase; a timeline per cell.
    let expected = [
        ("throughput", 2),
        ("p99", 2),
        ("curves", 2),
        ("capacity", 1),
        ("spectrum", 2),
        ("gc-time", 2),
        ("gc-pause", 2),
        ("timeline", 3),
    ];
    let document = check_page(&page, "ladder", &expected);
    let root = document.root_element();
    let text = |element: &ElementRef| element.text().collect::<String>();
    for (chart, slo) in select(root, "svg[data-chart=curves]").iter().zip(["SLO: P99 ≤ 10 ms", "SLO: P99 ≤ 15 ms"])
    {
        // One line per cell that ran steps (the crashed cell ran none), each repeat faint beside it, the SLO dashed.
        assert_eq!(select(*chart, "polyline.series").len(), 2);
        assert_eq!(select(*chart, "polyline.repeat").len(), 6);
        assert_eq!(select(*chart, "g.slo line.limit").len(), 1);
        assert_eq!(select(*chart, "g.slo text").iter().map(text).collect::<String>(), slo);
    }
    // The capacity bars: the best marked, the crashed cell saying why.
    let capacity = select(root, "svg[data-chart=capacity]")[0];
    assert!(select(capacity, "text.value").iter().any(|value| text(value).contains('★')));
    assert!(select(capacity, "text.missing").iter().any(|missing| text(missing).contains("OutOfMemoryError")));
    // The per-step tables, with the generator-limited step marked.
    let steps: String = select(root, "table.metrics td").iter().map(text).collect();
    assert!(steps.contains("short: generator"), "{steps}");
}

#[test]
fn an_attribution_report_draws_each_cells_slow_requests_over_its_stops() {
    let copy = reported_copy_of("gc-attribution");
    let page = copy.join("report.html");
    // Two measured phases × two cells.
    let document = check_page(&page, "gc-attribution", &[("tail", 4)]);
    let root = document.root_element();
    let summary = read_json(&copy.join("summary.json"));
    for chart in select(root, "svg[data-chart=tail]") {
        // `set: -Xmx48m, repeat 2`: the points are that repeat's slowest requests, at most 1,000.
        let title: String = select(chart, "title")[0].text().collect();
        let (phase, rest) = title.split_once(": ").unwrap();
        let (label, rep) = rest.split_once(", repeat ").unwrap();
        let slow = copy.join(format!("cells/heap={label}/rep-{rep}/{phase}.slow.csv"));
        let requests = std::fs::read_to_string(&slow).unwrap().lines().count() - 1;
        assert_eq!(select(chart, "g.whole circle.point").len(), requests.min(1000), "{title}");
        // The zoomed second holds the slowest request at least, each point with its exposure.
        let zoomed = select(chart, "g.zoom circle.point").len();
        assert!(zoomed >= 1, "{title}");
        assert_eq!(select(chart, "g.zoom line.exposure").len(), zoomed, "{title}");
        // Every stop the repeat's attribution counted inside the phase is a band, in its kind's class.
        let rep_index = rep.parse::<usize>().unwrap() - 1;
        let cell = summary["cells"].as_array().unwrap().iter().find(|cell| cell["axes"]["heap"] == label).unwrap();
        let stops = &cell["reps"][rep_index]["phases"][phase]["gc_attribution"]["stops"];
        for (class, count) in [("gc-pause", "gc_pauses"), ("gc-stall", "gc_stalls"), ("safepoint", "safepoints")] {
            let bands = select(chart, &format!("g.whole rect.stop.{class}")).len();
            assert_eq!(bands as u64, stops[count].as_u64().unwrap(), "{title}: {class}");
        }
        let legend: String = select(chart, "g.legend text").iter().flat_map(|text| text.text()).collect();
        for kind in ["GC pause", "GC stall", "other safepoint"] {
            assert!(legend.contains(kind), "{title}: {legend}");
        }
    }
}

#[test]
fn a_timeline_draws_every_step_of_a_search_where_it_ran_and_the_headline_series_inside_its_step() {
    // ladder-real: each repeat's "set" is a real capacity search and "get" a rate ladder, a JVM window per step.
    let copy = reported_copy_of("ladder-real");
    let page = copy.join("report.html");
    let document = check_page(&page, "ladder-real", &[("timeline", 2)]);
    let root = document.root_element();
    let summary = read_json(&copy.join("summary.json"));
    let number =
        |element: &ElementRef, attribute: &str| -> f64 { element.value().attr(attribute).unwrap().parse().unwrap() };
    for chart in select(root, "svg[data-chart=timeline]") {
        // `jit, repeat 1`: that repeat's records.
        let title: String = select(chart, "title")[0].text().collect();
        let (label, rep) = title.split_once(", repeat ").unwrap();
        let cell = summary["cells"].as_array().unwrap().iter().find(|cell| cell["axes"]["mode"] == label).unwrap();
        let phases = &cell["reps"][rep.parse::<usize>().unwrap() - 1]["phases"];
        let drawn = select(chart, "g.step");
        let windows: Vec<&serde_json::Value> = ["get", "set"]
            .iter()
            .flat_map(|phase| phases[phase]["step_jvm"].as_array().unwrap())
            .filter(|window| !window.is_null())
            .collect();
        assert_eq!(drawn.len(), windows.len(), "{title}: every step of both ladders");
        // Each of the search's steps where its JVM window says it ran, at its rate, in the order run.
        let search = &phases["set"];
        let steps = search["steps"].as_array().unwrap();
        let of_search: Vec<&ElementRef> = drawn
            .iter()
            .filter(|step| {
                let from = number(step, "data-from");
                from >= search["jvm"]["uptime_start_s"].as_f64().unwrap()
                    && from < search["jvm"]["uptime_end_s"].as_f64().unwrap()
            })
            .collect();
        assert_eq!(of_search.len(), steps.len(), "{title}");
        for ((mark, step), window) in of_search.iter().zip(steps).zip(search["step_jvm"].as_array().unwrap()) {
            assert_eq!(number(mark, "data-rate"), step["requested_rps"].as_f64().unwrap(), "{title}");
            assert_eq!(number(mark, "data-from"), window["uptime_start_s"].as_f64().unwrap(), "{title}");
            assert_eq!(number(mark, "data-to"), window["uptime_end_s"].as_f64().unwrap(), "{title}");
        }
        // The search's per-second series are its capacity step's: drawn inside that step, not at the phase's start.
        let rate = search["capacity"]["rps"].as_f64().unwrap();
        let headline = of_search.iter().rev().find(|mark| number(mark, "data-rate") == rate).unwrap();
        let bar = select(**headline, "line.step-rps")[0];
        let (left, right) = (number(&bar, "x1"), number(&bar, "x2"));
        let series = select(chart, "polyline.series[data-phase=set]");
        assert_eq!(series.len(), 2, "{title}: req/s and p99");
        for line in series {
            for point in line.value().attr("points").unwrap().split_whitespace() {
                let x: f64 = point.split(',').next().unwrap().parse().unwrap();
                assert!(left - 0.5 <= x && x <= right + 0.5, "{title}: {x} outside the capacity step {left}–{right}");
            }
        }
    }
}

#[test]
fn jloads_code_spans_are_code_in_the_page_and_no_backtick_shows() {
    // The sweep's "set" phase ran its cells at different throughputs: its note names the keys to use as code.
    let copy = reported_copy_of("sweep");
    let document = dom(&copy.join("report.html"));
    let root = document.root_element();
    let callouts: Vec<ElementRef> = select(root, "p.callout.warn")
        .into_iter()
        .filter(|p| p.text().collect::<String>().contains("not comparable"))
        .collect();
    assert!(!callouts.is_empty());
    for callout in callouts {
        let code: Vec<String> = select(callout, "code").iter().map(|code| code.text().collect()).collect();
        assert_eq!(code, ["rate", "rates", "capacity"]);
        assert!(!callout.text().collect::<String>().contains('`'), "{}", callout.html());
    }
    let body: String = select(root, "body")[0].text().collect();
    assert!(!body.contains("\\`"), "no escaped backtick in the page");
}
