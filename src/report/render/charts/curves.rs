//! Latency against throughput, the "hockey stick": per cell a line through its steps (achieved req/s, corrected P99
//! on a log axis; medians over the repeats at each requested rate), each repeat's own steps as a faint line, and the
//! SLO's P99 bound as a dashed horizontal line. Where a line turns up is where the cell stops keeping up.

use maud::{Markup, html};

use super::style::{CellStyle, LegendEntry, legend, legend_height, marker};
use super::{Linear, Log, nice_ticks, points, px, svg, tick_label, x_axis, y_axis};

pub struct CurveLine {
    pub label: String,
    pub style: CellStyle,
    /// (achieved req/s, P99 ms) per requested rate, lowest requested first.
    pub points: Vec<(f64, f64)>,
    /// Each repeat's steps as (achieved req/s, P99 ms), lowest requested rate first.
    pub repeats: Vec<Vec<(f64, f64)>>,
    /// Said after the label in the legend.
    pub note: String,
}

const WIDTH: f64 = 1000.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = 30.0;
const TOP: f64 = 34.0;
const PLOT_BOTTOM: f64 = 380.0;
const LEGEND_TOP: f64 = PLOT_BOTTOM + 54.0;

pub fn curves_chart(title: &str, lines: &[CurveLine], slo_p99_ms: Option<f64>) -> Markup {
    let all = || lines.iter().flat_map(|line| line.points.iter().chain(line.repeats.iter().flatten()));
    let max_rps = all().map(|(rps, _)| *rps).fold(0.0, f64::max);
    let latencies = all().map(|(_, ms)| *ms).chain(slo_p99_ms).filter(|ms| *ms > 0.0);
    let (min_ms, max_ms) = latencies.fold((f64::INFINITY, 0.0f64), |(low, high), ms| (low.min(ms), high.max(ms)));
    let (min_ms, max_ms) = if min_ms.is_finite() { (min_ms, max_ms) } else { (0.1, 1.0) };
    let rps_ticks = nice_ticks(max_rps, 8);
    let x = Linear::new((0.0, *rps_ticks.last().unwrap_or(&1.0)), (LEFT, WIDTH - RIGHT));
    let y = Log::decades(min_ms, max_ms, (PLOT_BOTTOM, TOP));
    let x_marks: Vec<(f64, String)> = rps_ticks.iter().map(|rps| (x.at(*rps), tick_label(*rps))).collect();
    let y_marks: Vec<(f64, String)> = y.ticks().into_iter().map(|ms| (y.at(ms), tick_label(ms))).collect();
    let at = |(rps, ms): &(f64, f64)| (x.at(*rps), y.at(*ms));
    let entries: Vec<LegendEntry> =
        lines.iter().map(|line| LegendEntry { label: &line.label, style: &line.style, note: &line.note }).collect();
    let height = LEGEND_TOP + legend_height(entries.len());
    let body = html! {
        text x=(px(LEFT)) y="20" class="heading" { (title) }
        (x_axis(&x_marks, PLOT_BOTTOM, TOP, "achieved req/s", (LEFT + WIDTH - RIGHT) / 2.0))
        (y_axis(&y_marks, LEFT, WIDTH - RIGHT, "P99 ms, corrected (log scale)", (TOP + PLOT_BOTTOM) / 2.0))
        @if let Some(bound) = slo_p99_ms {
            g class="slo" {
                line class="limit" x1=(px(LEFT)) x2=(px(WIDTH - RIGHT)) y1=(px(y.at(bound))) y2=(px(y.at(bound))) {}
                text x=(px(WIDTH - RIGHT - 4.0)) y=(px(y.at(bound) - 5.0)) text-anchor="end" class="note" {
                    "SLO: P99 ≤ " (tick_label(bound)) " ms"
                }
            }
        }
        @for line in lines {
            g class="cell" {
                @for repeat in &line.repeats {
                    polyline class="repeat" stroke=(line.style.color) stroke-opacity="0.3" fill="none"
                        stroke-dasharray=[line.style.dash] points=(points(repeat.iter().map(at))) {}
                    @for point in repeat {
                        @let (px_x, px_y) = at(point);
                        circle class="repeat" cx=(px(px_x)) cy=(px(px_y)) r="2.5" fill=(line.style.color)
                            fill-opacity="0.3" {}
                    }
                }
                polyline class="series" stroke=(line.style.color) stroke-dasharray=[line.style.dash]
                    points=(points(line.points.iter().map(at))) {}
                @for point in &line.points {
                    @let (px_x, px_y) = at(point);
                    (marker(&line.style, px_x, px_y, 7.0))
                }
            }
        }
        (legend(&entries, LEFT, LEGEND_TOP, WIDTH - LEFT))
    };
    svg("curves", WIDTH, height, title, body)
}
