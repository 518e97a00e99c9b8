//! The latency percentile spectrum, HdrHistogram-style: one line per cell, latency (log scale) against percentile
//! on a "nines" axis where 90 %, 99 %, 99.9 % … are equally spaced, so the tail gets the room it deserves.

use maud::{Markup, html};

use super::{Linear, Log, fit, points, px, svg, tick_label, x_axis, y_axis};
use crate::report::spectrum::nines;

pub struct Line {
    pub label: String,
    pub color: &'static str,
    /// (quantile, ms), quantile ascending.
    pub points: Vec<[f64; 2]>,
    /// Says where the line comes from (every request, or stored percentiles).
    pub note: String,
}

const WIDTH: f64 = 1000.0;
const HEIGHT: f64 = 420.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = 230.0;
const TOP: f64 = 34.0;
const BOTTOM: f64 = 60.0;

/// `0%`, `90%`, `99%`, `99.9%` … for 0, 1, 2, 3 nines.
fn nines_label(nines: u32) -> String {
    match nines {
        0 => "0%".to_string(),
        1 => "90%".to_string(),
        n => format!("99.{}%", "9".repeat(n as usize - 2)).replace("99.%", "99%"),
    }
}

pub fn spectrum_chart(title: &str, lines: &[Line]) -> Markup {
    let values = lines.iter().flat_map(|line| line.points.iter().map(|point| point[1])).filter(|ms| *ms > 0.0);
    let (min, max) = values.fold((f64::INFINITY, 0.0f64), |(min, max), ms| (min.min(ms), max.max(ms)));
    let (min, max) = if min.is_finite() { (min, max) } else { (0.1, 1.0) };
    let top_nines =
        lines.iter().filter_map(|line| line.points.last()).map(|point| nines(point[0])).fold(2.0f64, f64::max).ceil();
    let x = Linear::new((0.0, top_nines), (LEFT, WIDTH - RIGHT));
    let y = Log::decades(min, max, (HEIGHT - BOTTOM, TOP));
    let x_ticks: Vec<(f64, String)> = (0..=top_nines as u32).map(|n| (x.at(n as f64), nines_label(n))).collect();
    let y_ticks: Vec<(f64, String)> = y.ticks().into_iter().map(|ms| (y.at(ms), tick_label(ms))).collect();
    let body = html! {
        text x=(px(LEFT)) y="20" class="heading" { (title) }
        (x_axis(&x_ticks, HEIGHT - BOTTOM, TOP, "percentile", (LEFT + WIDTH - RIGHT) / 2.0))
        (y_axis(&y_ticks, LEFT, WIDTH - RIGHT, "latency (ms, log scale)", (TOP + HEIGHT - BOTTOM) / 2.0))
        @for line in lines {
            polyline class="series" stroke=(line.color)
                points=(points(line.points.iter().map(|point| (x.at(nines(point[0])), y.at(point[1]))))) {}
        }
        g class="legend" {
            @for (index, line) in lines.iter().enumerate() {
                @let row = TOP + 10.0 + index as f64 * 34.0;
                rect x=(px(WIDTH - RIGHT + 20.0)) y=(px(row - 9.0)) width="14" height="4" fill=(line.color) {}
                text x=(px(WIDTH - RIGHT + 40.0)) y=(px(row - 3.0)) class="label" {
                    title { (line.label) } (fit(&line.label, 27))
                }
                text x=(px(WIDTH - RIGHT + 40.0)) y=(px(row + 11.0)) class="note" { (line.note) }
            }
        }
    };
    svg("spectrum", WIDTH, HEIGHT, title, body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nines_labels() {
        let labels: Vec<String> = (0..5).map(nines_label).collect();
        assert_eq!(labels, ["0%", "90%", "99%", "99.9%", "99.99%"]);
    }
}
