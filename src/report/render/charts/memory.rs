//! A cell's memory drawn two ways: its committed native memory by category as one stacked bar (largest first) against
//! the box's memory limit, its whole-life RSS peak and the box's peak, each a vertical line; and its RSS and the box's
//! usage over the JVM's uptime with the limit drawn across.

use maud::{Markup, html};

use super::style::PALETTE;
use super::{Linear, fit, nice_ticks, points, px, range_ticks, svg, tick_label, x_axis, y_axis};

const MIB: f64 = 1048576.0;
const WIDTH: f64 = 1000.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = 190.0;
const RSS_COLOR: &str = "#1f3b73";
const USAGE_COLOR: &str = "#f28e2b";
const LIMIT_COLOR: &str = "#d62728";
/// The colour of the stylesheet's `.limit` lines (a limit across a chart), which the over-time chart's limit is.
const LIMIT_LINE_COLOR: &str = "#555";

/// One stacked bar of committed memory by category (bytes, largest first) with the limit, the RSS peak and the box
/// peak as marks (bytes; each where known).
pub struct MemoryBar<'a> {
    pub title: String,
    pub categories: &'a [(String, u64)],
    pub limit: Option<u64>,
    pub rss_peak: Option<u64>,
    pub box_peak: Option<u64>,
}

fn mb(bytes: u64) -> f64 {
    bytes as f64 / MIB
}

/// A vertical mark across the bar at `x`, labelled above (`row` staggers labels that would meet).
fn mark(x: f64, class: &str, color: &str, label: String, row: usize) -> Markup {
    let y = 30.0 + row as f64 * 14.0;
    html! {
        g class=(class) {
            line x1=(px(x)) x2=(px(x)) y1=(px(y + 4.0)) y2="124" stroke=(color) stroke-width="2" {}
            text x=(px(x + 4.0)) y=(px(y)) class="label" fill=(color) { (label) }
        }
    }
}

pub fn memory_bar(bar: &MemoryBar) -> Markup {
    let committed: u64 = bar.categories.iter().map(|(_, bytes)| bytes).sum();
    let top =
        [Some(committed), bar.limit, bar.rss_peak, bar.box_peak].into_iter().flatten().map(mb).fold(1.0, f64::max);
    let ticks = nice_ticks(top, 6);
    let x = Linear::new((0.0, *ticks.last().unwrap_or(&1.0)), (LEFT, WIDTH - RIGHT));
    let tick_marks: Vec<(f64, String)> = ticks.iter().map(|tick| (x.at(*tick), tick_label(*tick))).collect();
    let mut start = 0.0;
    let segments: Vec<(f64, f64, &'static str, &str, u64)> = bar
        .categories
        .iter()
        .enumerate()
        .map(|(index, (name, bytes))| {
            let from = start;
            start += mb(*bytes);
            (x.at(from), x.at(start), PALETTE[index % PALETTE.len()], name.as_str(), *bytes)
        })
        .collect();
    let legend_rows = segments.len().max(1) as f64;
    let height = (170.0f64).max(40.0 + legend_rows * 16.0);
    let marks = [
        (bar.limit, "mark-limit", LIMIT_COLOR, "limit"),
        (bar.box_peak, "mark-box-peak", USAGE_COLOR, "box peak"),
        (bar.rss_peak, "mark-rss-peak", RSS_COLOR, "RSS peak"),
    ];
    let body = html! {
        text x=(px(LEFT)) y="16" class="heading" { (bar.title) }
        (x_axis(&tick_marks, 124.0, 84.0, "MB (MiB)", (LEFT + WIDTH - RIGHT) / 2.0))
        @for (from, to, color, name, bytes) in &segments {
            rect x=(px(*from)) y="84" width=(px((to - from).max(1.0))) height="40" fill=(color) class="bar" {
                title { (name) ": " (format!("{:.1}", mb(*bytes))) " MB committed" }
            }
        }
        @for (row, (bytes, class, color, name)) in marks.iter().filter(|mark| mark.0.is_some()).enumerate() {
            @let bytes = bytes.expect("filtered");
            (mark(x.at(mb(bytes)), class, color, format!("{name} {:.0}", mb(bytes)), row))
        }
        g class="legend" {
            @for (index, (_, _, color, name, bytes)) in segments.iter().enumerate() {
                @let y = 36.0 + index as f64 * 16.0;
                rect x=(px(WIDTH - RIGHT + 20.0)) y=(px(y - 8.0)) width="12" height="10" fill=(color) {}
                text x=(px(WIDTH - RIGHT + 38.0)) y=(px(y + 1.0)) class="label" {
                    (fit(name, 16)) " " (format!("{:.1}", mb(*bytes)))
                }
            }
        }
    };
    svg("memory", WIDTH, height, &bar.title, body)
}

/// RSS (from gcstat.csv) and the box's usage (from box.csv) over the JVM's uptime, MiB, with the limit across.
pub struct MemoryOverTime<'a> {
    pub title: String,
    pub rss: &'a [(f64, f64)],
    pub usage: &'a [(f64, f64)],
    pub limit: Option<u64>,
}

pub fn memory_over_time(chart: &MemoryOverTime) -> Markup {
    const TOP: f64 = 40.0;
    const BOTTOM: f64 = 250.0;
    let all = || chart.rss.iter().chain(chart.usage);
    let from = all().map(|(uptime, _)| *uptime).fold(f64::INFINITY, f64::min);
    let to = all().map(|(uptime, _)| *uptime).fold(f64::NEG_INFINITY, f64::max);
    let (from, to) = if from.is_finite() && to > from { (from, to) } else { (0.0, 1.0) };
    let x = Linear::new((from, to), (LEFT, WIDTH - RIGHT));
    let top = all().map(|(_, mb)| *mb).chain(chart.limit.map(mb)).fold(1.0, f64::max);
    let ticks = nice_ticks(top, 5);
    let y = Linear::new((0.0, *ticks.last().unwrap_or(&1.0)), (BOTTOM, TOP));
    let time_ticks: Vec<(f64, String)> =
        range_ticks(from, to, 8).into_iter().map(|tick| (x.at(tick), tick_label(tick))).collect();
    let mb_ticks: Vec<(f64, String)> = ticks.iter().map(|tick| (y.at(*tick), tick_label(*tick))).collect();
    let line = |series: &[(f64, f64)]| points(series.iter().map(|(uptime, mb)| (x.at(*uptime), y.at(*mb))));
    // The legend names what is drawn: a run without box.csv has no usage line, a cell without a limit no limit.
    let legend: Vec<(&str, &str)> = [
        (!chart.rss.is_empty(), RSS_COLOR, "RSS (gcstat.csv)"),
        (!chart.usage.is_empty(), USAGE_COLOR, "box usage (box.csv)"),
        (chart.limit.is_some(), LIMIT_LINE_COLOR, "memory limit"),
    ]
    .into_iter()
    .filter_map(|(drawn, color, label)| drawn.then_some((color, label)))
    .collect();
    let body = html! {
        text x=(px(LEFT)) y="20" class="heading" { (chart.title) }
        (x_axis(&time_ticks, BOTTOM, BOTTOM, "JVM uptime (s)", (LEFT + WIDTH - RIGHT) / 2.0))
        (y_axis(&mb_ticks, LEFT, WIDTH - RIGHT, "MB", (TOP + BOTTOM) / 2.0))
        @if let Some(limit) = chart.limit {
            line class="limit" x1=(px(LEFT)) x2=(px(WIDTH - RIGHT)) y1=(px(y.at(mb(limit)))) y2=(px(y.at(mb(limit))))
                stroke=(LIMIT_LINE_COLOR) {}
        }
        @if !chart.rss.is_empty() { polyline class="series rss" points=(line(chart.rss)) stroke=(RSS_COLOR) {} }
        @if !chart.usage.is_empty() { polyline class="series usage" points=(line(chart.usage)) stroke=(USAGE_COLOR) {} }
        g class="legend" {
            @for (index, (color, label)) in legend.iter().enumerate() {
                @let row = TOP + 8.0 + index as f64 * 16.0;
                rect x=(px(WIDTH - RIGHT + 20.0)) y=(px(row - 8.0)) width="12" height="10" fill=(color) {}
                text x=(px(WIDTH - RIGHT + 38.0)) y=(px(row + 1.0)) class="label" { (label) }
            }
        }
    };
    svg("memory-over-time", WIDTH, BOTTOM + 44.0, &chart.title, body)
}
