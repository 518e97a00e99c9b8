//! "Is it the GC?" for one cell and phase, drawn: the slowest requests of one repeat as points (x when the answer
//! came, y its latency on a log scale) over the JVM's GC pauses, GC stalls and other safepoints drawn as bands at
//! their millisecond extent, with the repeat's p99 and p99.9 as dashed lines; beneath, the second around the slowest
//! request zoomed in, where each request also shows its exposure (a line from its intended send to its answer), so a
//! band under a line is a request that waited through that stop.

use maud::{Markup, html};

use super::{Linear, Log, px, range_ticks, svg, tick_label, x_axis, y_axis};
use crate::jvm::gclog::stops::StopKind;
use crate::report::analysis::{TailChart, TailPoint, TailWindow};

const WIDTH: f64 = 1000.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = 200.0;
const TOP: f64 = 40.0;
const WHOLE: (f64, f64) = (TOP, 250.0);
const ZOOM: (f64, f64) = (318.0, 528.0);
const HEIGHT: f64 = 576.0;
const POINT_COLOR: &str = "#1f3b73";
const FAILED_COLOR: &str = "#111111";

/// A stop kind's colour and legend label.
fn stop_look(kind: StopKind) -> (&'static str, &'static str, &'static str) {
    match kind {
        StopKind::GcPause => ("#d62728", "gc-pause", "GC pause"),
        StopKind::GcStall => ("#f28e2b", "gc-stall", "GC stall"),
        StopKind::Safepoint => ("#8c6bb1", "safepoint", "other safepoint"),
        StopKind::CpuThrottled => ("#7f7f7f", "cpu-throttled", "held back by the CPU quota"),
        StopKind::JloadSafepoint => ("#bcbd22", "jload-safepoint", "safepoint of jload's own read"),
        StopKind::JloadRead => ("#dbdb8d", "jload-read", "jload's own read"),
    }
}

/// One panel: a time range (ms on the phase's clock) on the x axis, latency (log) on the y axis.
struct Panel {
    x: Linear,
    y: Log,
    rows: (f64, f64),
    from_ms: f64,
    to_ms: f64,
}

impl Panel {
    fn new(from_ms: f64, to_ms: f64, y: Log, rows: (f64, f64)) -> Panel {
        Panel { x: Linear::new((from_ms, to_ms), (LEFT, WIDTH - RIGHT)), y, rows, from_ms, to_ms }
    }

    /// A request answered in the panel's range.
    fn holds(&self, done_ms: f64) -> bool {
        (self.from_ms..=self.to_ms).contains(&done_ms)
    }

    /// A stop that overlaps the panel's range.
    fn meets(&self, window: &TailWindow) -> bool {
        window.start_ms < self.to_ms && window.end_ms > self.from_ms
    }

    /// A stop as a band over the panel's height, at least a pixel wide, clipped to the panel.
    fn band(&self, window: &TailWindow) -> Markup {
        let (color, class, label) = stop_look(window.kind);
        let left = self.x.at(window.start_ms.max(self.from_ms));
        let right = self.x.at(window.end_ms.min(self.to_ms));
        let title = format!("{label}: {:.1} ms at {:.3} s", window.end_ms - window.start_ms, window.start_ms / 1000.0);
        html! {
            rect class=(format!("stop {class}")) x=(px(left)) y=(px(self.rows.0)) width=(px((right - left).max(1.0)))
                height=(px(self.rows.1 - self.rows.0)) fill=(color) { title { (title) } }
        }
    }

    fn point(&self, point: &TailPoint, exposure: bool) -> Markup {
        let (x, y) = (self.x.at(point.done_ms), self.y.at(point.latency_ms));
        let color = if point.failed { FAILED_COLOR } else { POINT_COLOR };
        html! {
            @if exposure {
                line class="exposure" x1=(px(self.x.at(point.began_ms.max(self.from_ms)))) x2=(px(x)) y1=(px(y)) y2=(px(y))
                    stroke=(color) {}
            }
            @if point.failed {
                circle class="point failed" cx=(px(x)) cy=(px(y)) r="2.6" fill="none" stroke=(color) {}
            } @else {
                circle class="point" cx=(px(x)) cy=(px(y)) r="2.2" fill=(color) {}
            }
        }
    }

    fn threshold(&self, ms: f64, label: &str) -> Markup {
        let y = self.y.at(ms);
        html! {
            line class="limit" x1=(px(LEFT)) x2=(px(WIDTH - RIGHT)) y1=(px(y)) y2=(px(y)) {}
            text x=(px(WIDTH - RIGHT + 4.0)) y=(px(y + 4.0)) class="note" { (label) }
        }
    }

    /// The panel: the stops in its range as bands, its axes, the p99 and p99.9 lines, and the requests answered in its
    /// range as points (slowest last, on top), with their exposure when `exposure`.
    fn draw(&self, name: &str, chart: &TailChart, title: &str, exposure: bool) -> Markup {
        html! {
            g class=(format!("panel {name}")) {
                @for window in chart.windows.iter().filter(|window| self.meets(window)) {
                    (self.band(window))
                }
                (self.axes(title))
                (self.threshold(chart.p99_ms, "p99"))
                (self.threshold(chart.p999_ms, "p99.9"))
                @for point in chart.points.iter().rev().filter(|point| self.holds(point.done_ms)) {
                    (self.point(point, exposure))
                }
            }
        }
    }

    fn axes(&self, title: &str) -> Markup {
        let x_ticks: Vec<(f64, String)> = range_ticks(self.from_ms / 1000.0, self.to_ms / 1000.0, 10)
            .into_iter()
            .map(|s| (self.x.at(s * 1000.0), tick_label(s)))
            .collect();
        let y_ticks: Vec<(f64, String)> =
            self.y.ticks().into_iter().map(|ms| (self.y.at(ms), tick_label(ms))).collect();
        html! {
            (x_axis(&x_ticks, self.rows.1, self.rows.1, title, (LEFT + WIDTH - RIGHT) / 2.0))
            (y_axis(&y_ticks, LEFT, WIDTH - RIGHT, "latency ms (log)", (self.rows.0 + self.rows.1) / 2.0))
        }
    }
}

fn legend(x: f64, y: f64, chart: &TailChart) -> Markup {
    let kinds = [StopKind::GcPause, StopKind::GcStall, StopKind::Safepoint];
    let failed = chart.points.iter().any(|point| point.failed);
    html! {
        g class="legend" {
            @for (index, kind) in kinds.iter().enumerate() {
                @let (color, _, label) = stop_look(*kind);
                @let row = y + index as f64 * 16.0;
                rect x=(px(x)) y=(px(row)) width="12" height="10" fill=(color) {}
                text x=(px(x + 18.0)) y=(px(row + 9.0)) class="label" { (label) }
            }
            @let row = y + kinds.len() as f64 * 16.0 + 5.0;
            circle cx=(px(x + 6.0)) cy=(px(row)) r="2.5" fill=(POINT_COLOR) {}
            text x=(px(x + 18.0)) y=(px(row + 4.0)) class="label" { "request (at its answer)" }
            @if failed {
                circle cx=(px(x + 6.0)) cy=(px(row + 16.0)) r="2.6" fill="none" stroke=(FAILED_COLOR) {}
                text x=(px(x + 18.0)) y=(px(row + 20.0)) class="label" { "failed request (timeout, error)" }
            }
        }
    }
}

pub fn tail_chart(title: &str, chart: &TailChart) -> Markup {
    let latencies = chart.points.iter().map(|point| point.latency_ms).chain([chart.p99_ms, chart.p999_ms]);
    let (low, high) =
        latencies.filter(|ms| *ms > 0.0).fold((f64::INFINITY, 0.0f64), |(low, high), ms| (low.min(ms), high.max(ms)));
    let scale = |rows: (f64, f64)| {
        if low.is_finite() {
            Log::decades(low, high, (rows.1, rows.0))
        } else {
            Log::decades(0.1, 10.0, (rows.1, rows.0))
        }
    };
    let whole = Panel::new(0.0, chart.span_ms.max(1.0), scale(WHOLE), WHOLE);
    let zoom = Panel::new(chart.zoom_ms.0, chart.zoom_ms.1, scale(ZOOM), ZOOM);
    let zoom_title = format!(
        "the second around the slowest request: {:.3}–{:.3} s of the phase (s)",
        chart.zoom_ms.0 / 1000.0,
        chart.zoom_ms.1 / 1000.0
    );
    let body = html! {
        text x=(px(LEFT)) y="22" class="heading" { (title) }
        (whole.draw("whole", chart, "time in the phase (s)", false))
        (zoom.draw("zoom", chart, &zoom_title, true))
        @if chart.points.is_empty() {
            text x=(px(LEFT + 10.0)) y=(px((WHOLE.0 + WHOLE.1) / 2.0)) class="missing" { "no slow requests recorded" }
        }
        (legend(WIDTH - RIGHT + 40.0, WHOLE.0 + 20.0, chart))
        text x=(px(WIDTH - RIGHT + 40.0)) y=(px(ZOOM.0 + 10.0)) class="note" { "zoomed: lines run from" }
        text x=(px(WIDTH - RIGHT + 40.0)) y=(px(ZOOM.0 + 24.0)) class="note" { "intended send to answer" }
    };
    svg("tail", WIDTH, HEIGHT, title, body)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart() -> TailChart {
        let request = |done_ms: f64, latency_ms: f64| TailPoint {
            began_ms: done_ms - latency_ms,
            done_ms,
            latency_ms,
            failed: false,
        };
        TailChart {
            rep: 2,
            span_ms: 30_000.0,
            points: vec![request(5050.0, 100.0), request(12_000.0, 40.0), request(5040.0, 30.0)],
            kept: 3,
            windows: vec![
                TailWindow { start_ms: 4950.0, end_ms: 5048.0, kind: StopKind::GcPause },
                TailWindow { start_ms: 20_000.0, end_ms: 20_000.2, kind: StopKind::Safepoint },
            ],
            windows_left_out: 0,
            p99_ms: 20.0,
            p999_ms: 60.0,
            zoom_ms: (4500.0, 5500.0),
            clock_error_ms: 0.3,
        }
    }

    #[test]
    fn every_request_is_a_point_and_the_zoom_shows_the_ones_in_its_second_with_their_exposure() {
        let svg = tail_chart("t", &chart()).into_string();
        assert_eq!(svg.matches("<circle class=\"point\"").count(), 3 + 2, "three in the phase, two in the zoom");
        assert_eq!(svg.matches("class=\"exposure\"").count(), 2);
    }

    #[test]
    fn stops_are_bands_in_each_panel_they_fall_in_at_least_a_pixel_wide() {
        let svg = tail_chart("t", &chart()).into_string();
        // The pause is in both panels; the 0.2 ms safepoint only in the whole phase, one pixel wide.
        assert_eq!(svg.matches("class=\"stop gc-pause\"").count(), 2);
        assert_eq!(svg.matches("class=\"stop safepoint\"").count(), 1);
        assert!(svg.contains("<rect class=\"stop safepoint\" x=\"560.0\" y=\"40.0\" width=\"1.0\""), "{svg}");
        // In the zoom (1000 ms over 720 px) the 98 ms pause from 4950 ms is 70.6 px wide from 404.0.
        assert!(svg.contains("<rect class=\"stop gc-pause\" x=\"404.0\" y=\"318.0\" width=\"70.6\""), "{svg}");
    }
}
