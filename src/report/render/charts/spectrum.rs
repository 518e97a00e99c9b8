//! The latency percentile spectrum, HdrHistogram-style: one line per cell, latency (log scale) against percentile
//! on a "nines" axis where 90 %, 99 %, 99.9 % … are equally spaced, so the tail gets the room it deserves.

use maud::{Markup, html};

use super::style::{CellStyle, LegendEntry, legend, legend_height, marker};
use super::{Linear, Log, points, px, svg, tick_label, x_axis, y_axis};

pub struct SpectrumLine {
    pub label: String,
    pub style: CellStyle,
    /// (quantile, ms), quantile ascending.
    pub points: Vec<[f64; 2]>,
    /// Says where the line comes from (every request, or stored percentiles).
    pub note: String,
}

const WIDTH: f64 = 1000.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = 30.0;
const TOP: f64 = 34.0;
/// The percentile axis; the legend starts below its title.
const PLOT_BOTTOM: f64 = 360.0;
const LEGEND_TOP: f64 = PLOT_BOTTOM + 54.0;
/// Markers per line (besides its last point), so styles tell lines apart where colours repeat.
const MARKERS_PER_LINE: usize = 6;

/// Position of a quantile on the nines axis: 0 at 0 %, 1 at 90 %, 2 at 99 %, 3 at 99.9 % …
fn nines(quantile: f64) -> f64 {
    -(1.0 - quantile).log10()
}

/// `0%`, `90%`, `99%`, `99.9%` … for 0, 1, 2, 3 nines.
fn nines_label(nines: u32) -> String {
    match nines {
        0 => "0%".to_string(),
        1 => "90%".to_string(),
        n => format!("99.{}%", "9".repeat(n as usize - 2)).replace("99.%", "99%"),
    }
}

pub fn spectrum_chart(title: &str, lines: &[SpectrumLine]) -> Markup {
    let values = lines.iter().flat_map(|line| line.points.iter().map(|point| point[1])).filter(|ms| *ms > 0.0);
    let (min, max) = values.fold((f64::INFINITY, 0.0f64), |(min, max), ms| (min.min(ms), max.max(ms)));
    let (min, max) = if min.is_finite() { (min, max) } else { (0.1, 1.0) };
    let top_nines =
        lines.iter().filter_map(|line| line.points.last()).map(|point| nines(point[0])).fold(2.0f64, f64::max).ceil();
    let x = Linear::new((0.0, top_nines), (LEFT, WIDTH - RIGHT));
    let y = Log::decades(min, max, (PLOT_BOTTOM, TOP));
    let x_ticks: Vec<(f64, String)> = (0..=top_nines as u32).map(|n| (x.at(n as f64), nines_label(n))).collect();
    let y_ticks: Vec<(f64, String)> = y.ticks().into_iter().map(|ms| (y.at(ms), tick_label(ms))).collect();
    let at = |point: &[f64; 2]| (x.at(nines(point[0])), y.at(point[1]));
    let entries: Vec<LegendEntry> =
        lines.iter().map(|line| LegendEntry { label: &line.label, style: &line.style, note: &line.note }).collect();
    let height = LEGEND_TOP + legend_height(entries.len());
    let body = html! {
        text x=(px(LEFT)) y="20" class="heading" { (title) }
        (x_axis(&x_ticks, PLOT_BOTTOM, TOP, "percentile", (LEFT + WIDTH - RIGHT) / 2.0))
        (y_axis(&y_ticks, LEFT, WIDTH - RIGHT, "latency (ms, log scale)", (TOP + PLOT_BOTTOM) / 2.0))
        @for line in lines {
            g class="cell" {
                polyline class="series" stroke=(line.style.color) stroke-dasharray=[line.style.dash]
                    points=(points(line.points.iter().map(at))) {}
                @for point in marked(&line.points) {
                    @let (px_x, px_y) = at(point);
                    (marker(&line.style, px_x, px_y, 7.0))
                }
            }
        }
        (legend(&entries, LEFT, LEGEND_TOP, WIDTH - LEFT))
    };
    svg("spectrum", WIDTH, height, title, body)
}

/// The points a line carries markers on: about [`MARKERS_PER_LINE`] spread along it, and its last.
fn marked(points: &[[f64; 2]]) -> impl Iterator<Item = &[f64; 2]> {
    let step = (points.len() / MARKERS_PER_LINE).max(1);
    points.iter().enumerate().filter(move |(index, _)| index % step == 0 || *index + 1 == points.len()).map(|(_, p)| p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nines_axis() {
        assert_eq!(nines(0.0), 0.0);
        assert!((nines(0.9) - 1.0).abs() < 1e-12);
        assert!((nines(0.999) - 3.0).abs() < 1e-9);
    }

    #[test]
    fn nines_labels() {
        let labels: Vec<String> = (0..5).map(nines_label).collect();
        assert_eq!(labels, ["0%", "90%", "99%", "99.9%", "99.99%"]);
    }
}
