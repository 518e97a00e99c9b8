//! A memory tune's trials as memory against capacity: each trial with both figures a point (its number beside it),
//! the frontier's points joined by a line from the least memory up, and `at_rate` as a dashed horizontal line.

use maud::{Markup, html};

use super::style::PALETTE;
use super::{Linear, nice_ticks, points, px, svg, tick_label, x_axis, y_axis};
use crate::report::analysis::CapacityPoint;

const WIDTH: f64 = 720.0;
const HEIGHT: f64 = 360.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = 30.0;
const TOP: f64 = 34.0;
const BOTTOM: f64 = HEIGHT - 46.0;
const MIB: f64 = (1u64 << 20) as f64;

/// The chart of `trials` (least memory first), with `at_rate` in req/s when the tune has one.
pub fn frontier_chart(title: &str, trials: &[CapacityPoint], at_rate: Option<f64>) -> Markup {
    let max_mib = trials.iter().map(|point| point.memory / MIB).fold(0.0, f64::max);
    let max_rps = trials.iter().map(|point| point.capacity).chain(at_rate).fold(0.0, f64::max);
    let (mib_ticks, rps_ticks) = (nice_ticks(max_mib, 6), nice_ticks(max_rps, 6));
    let x = Linear::new((0.0, *mib_ticks.last().unwrap_or(&1.0)), (LEFT, WIDTH - RIGHT));
    let y = Linear::new((0.0, *rps_ticks.last().unwrap_or(&1.0)), (BOTTOM, TOP));
    let x_marks: Vec<(f64, String)> = mib_ticks.iter().map(|mib| (x.at(*mib), tick_label(*mib))).collect();
    let y_marks: Vec<(f64, String)> = rps_ticks.iter().map(|rps| (y.at(*rps), tick_label(*rps))).collect();
    let at = |point: &CapacityPoint| (x.at(point.memory / MIB), y.at(point.capacity));
    let frontier = points(trials.iter().filter(|point| point.on_frontier).map(at));
    let body = html! {
        text x=(px(LEFT)) y="20" class="heading" { (title) }
        (x_axis(&x_marks, BOTTOM, TOP, "memory peak, MiB", (LEFT + WIDTH - RIGHT) / 2.0))
        (y_axis(&y_marks, LEFT, WIDTH - RIGHT, "capacity, req/s", (TOP + BOTTOM) / 2.0))
        @if let Some(rate) = at_rate {
            line class="limit" x1=(px(LEFT)) x2=(px(WIDTH - RIGHT)) y1=(px(y.at(rate))) y2=(px(y.at(rate))) {}
            text x=(px(WIDTH - RIGHT - 4.0)) y=(px(y.at(rate) - 5.0)) text-anchor="end" class="note" {
                "at_rate " (tick_label(rate)) " req/s"
            }
        }
        polyline class="series" stroke=(PALETTE[0]) points=(frontier) {}
        @for point in trials {
            @let (px_x, px_y) = at(point);
            circle cx=(px(px_x)) cy=(px(px_y)) r=(if point.on_frontier { "5" } else { "3.5" })
                fill=(if point.on_frontier { PALETTE[0] } else { "#999" }) {
                title { "trial " (point.number) ": " (point.configuration) " — " (point.memory_words) ", "
                    (point.capacity_words) }
            }
            text x=(px(px_x + 7.0)) y=(px(px_y - 6.0)) class="note" { "t" (point.number) }
        }
    };
    svg("frontier", WIDTH, HEIGHT, title, body)
}
