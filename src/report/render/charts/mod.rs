//! Charts as inline SVG, drawn here with maud (so every label is escaped): scales and axes shared by the charts,
//! the cells' looks (`style`: colour, dash, marker), and the chart kinds — `bars` (a figure per cell with its
//! confidence interval), `curves` (P99 against achieved throughput over ladder steps, the SLO as a line), `spectrum`
//! (latency percentile spectrum on a nines axis), `timeline` (req/s, p99, GC pauses and heap over a cell's run),
//! `tail` (a cell's slowest requests over the JVM's GC pauses, stalls and safepoints, and the worst second zoomed),
//! `frontier` (a memory tune's trials as memory against capacity, its frontier joined).

pub mod bars;
pub mod curves;
pub mod frontier;
pub mod memory;
pub mod spectrum;
pub mod style;
pub mod tail;
pub mod timeline;

use maud::{Markup, html};

/// A label cut to `max` characters (with an ellipsis) so it fits its column; charts give the full label as a tooltip.
pub fn fit(label: &str, max: usize) -> String {
    if label.chars().count() <= max {
        return label.to_string();
    }
    let kept: String = label.chars().take(max.saturating_sub(1)).collect();
    format!("{kept}…")
}

/// An SVG coordinate with one decimal.
pub fn px(value: f64) -> String {
    format!("{value:.1}")
}

/// A linear map from data to pixels.
#[derive(Debug, Clone, Copy)]
pub struct Linear {
    pub from: (f64, f64),
    pub to: (f64, f64),
}

impl Linear {
    pub fn new(from: (f64, f64), to: (f64, f64)) -> Linear {
        let from = if from.1 > from.0 { from } else { (from.0, from.0 + 1.0) };
        Linear { from, to }
    }

    pub fn at(&self, value: f64) -> f64 {
        self.to.0 + (value - self.from.0) / (self.from.1 - self.from.0) * (self.to.1 - self.to.0)
    }
}

/// A log10 map from data to pixels; values at or below the lower bound sit on it.
#[derive(Debug, Clone, Copy)]
pub struct Log {
    pub linear: Linear,
}

impl Log {
    /// Whole decades around `min..max` (both > 0).
    pub fn decades(min: f64, max: f64, to: (f64, f64)) -> Log {
        let low = min.max(1e-6).log10().floor();
        let high = max.max(min * 10.0).log10().ceil().max(low + 1.0);
        Log { linear: Linear::new((low, high), to) }
    }

    pub fn at(&self, value: f64) -> f64 {
        self.linear.at(value.max(10f64.powf(self.linear.from.0)).log10())
    }

    /// Each decade in range: 0.01, 0.1, 1, 10 …
    pub fn ticks(&self) -> Vec<f64> {
        let (low, high) = (self.linear.from.0 as i32, self.linear.from.1 as i32);
        (low..=high).map(|exponent| 10f64.powi(exponent)).collect()
    }
}

/// A round step (1, 2 or 5 × 10^n) that cuts `span` into about `count` pieces.
fn nice_step(span: f64, count: usize) -> f64 {
    let rough = span / count.max(1) as f64;
    let magnitude = 10f64.powf(rough.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|factor| factor * magnitude)
        .find(|step| *step >= rough)
        .unwrap_or(magnitude * 10.0)
}

/// Round tick values covering `0..=max` (about `count` of them).
pub fn nice_ticks(max: f64, count: usize) -> Vec<f64> {
    if max <= 0.0 || !max.is_finite() {
        return vec![0.0, 1.0];
    }
    let step = nice_step(max, count);
    let top = (max / step).ceil() as usize;
    (0..=top).map(|index| index as f64 * step).collect()
}

/// Round tick values inside `from..=to` (about `count` of them).
pub fn range_ticks(from: f64, to: f64, count: usize) -> Vec<f64> {
    if to <= from || !from.is_finite() || !to.is_finite() {
        return vec![from];
    }
    let step = nice_step(to - from, count);
    let first = (from / step).ceil() as i64;
    let last = (to / step).floor() as i64;
    (first..=last).map(|index| index as f64 * step).collect()
}

/// A tick label without trailing zeros: 0.5, 2, 2500, 1.2e5 → 120000.
pub fn tick_label(value: f64) -> String {
    if value == 0.0 {
        return "0".to_string();
    }
    let text = if value.abs() >= 1.0 { format!("{value:.2}") } else { format!("{value:.3}") };
    if text.contains('.') { text.trim_end_matches('0').trim_end_matches('.').to_string() } else { text }
}

/// A horizontal axis at `y` with vertical grid lines up to `top`.
pub fn x_axis(ticks: &[(f64, String)], y: f64, top: f64, title: &str, title_x: f64) -> Markup {
    html! {
        g class="axis x" {
            @for (x, label) in ticks {
                line x1=(px(*x)) x2=(px(*x)) y1=(px(top)) y2=(px(y)) class="grid" {}
                text x=(px(*x)) y=(px(y + 14.0)) text-anchor="middle" { (label) }
            }
            text x=(px(title_x)) y=(px(y + 30.0)) text-anchor="middle" class="title" { (title) }
        }
    }
}

/// A vertical axis at `x` with horizontal grid lines across to `right`.
pub fn y_axis(ticks: &[(f64, String)], x: f64, right: f64, title: &str, title_y: f64) -> Markup {
    html! {
        g class="axis y" {
            @for (y, label) in ticks {
                line x1=(px(x)) x2=(px(right)) y1=(px(*y)) y2=(px(*y)) class="grid" {}
                text x=(px(x - 6.0)) y=(px(*y + 4.0)) text-anchor="end" { (label) }
            }
            text x=(px(x - 44.0)) y=(px(title_y)) text-anchor="middle" class="title"
                transform=(format!("rotate(-90 {} {})", px(x - 44.0), px(title_y))) { (title) }
        }
    }
}

/// A chart's `<svg>` element: scales with the page, keeps its aspect ratio.
pub fn svg(kind: &str, width: f64, height: f64, title: &str, body: Markup) -> Markup {
    html! {
        svg xmlns="http://www.w3.org/2000/svg" class="chart" data-chart=(kind) viewBox=(format!("0 0 {width} {height}"))
            width=(width) height=(height) role="img" aria-label=(title) {
            title { (title) }
            (body)
        }
    }
}

/// Points as an SVG `points` attribute.
pub fn points(coordinates: impl Iterator<Item = (f64, f64)>) -> String {
    coordinates.map(|(x, y)| format!("{},{}", px(x), px(y))).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scales() {
        let linear = Linear::new((0.0, 10.0), (100.0, 200.0));
        assert_eq!(linear.at(5.0), 150.0);
        let log = Log::decades(0.03, 250.0, (0.0, 400.0));
        assert_eq!(log.ticks(), vec![0.01, 0.1, 1.0, 10.0, 100.0, 1000.0]);
        assert_eq!(log.at(0.01), 0.0);
        assert_eq!(log.at(1000.0), 400.0);
        assert_eq!(log.at(0.0), 0.0, "zero sits on the bottom");
    }

    #[test]
    fn ticks_are_round() {
        assert_eq!(nice_ticks(47.0, 5), vec![0.0, 10.0, 20.0, 30.0, 40.0, 50.0]);
        assert_eq!(nice_ticks(52418.0, 5), vec![0.0, 20000.0, 40000.0, 60000.0]);
        assert_eq!(nice_ticks(0.0, 5), vec![0.0, 1.0]);
        assert_eq!(range_ticks(0.68, 3.3, 6), vec![1.0, 1.5, 2.0, 2.5, 3.0]);
        assert_eq!(range_ticks(1.2, 10.9, 8), vec![2.0, 4.0, 6.0, 8.0, 10.0]);
        assert_eq!(tick_label(0.5), "0.5");
        assert_eq!(tick_label(20000.0), "20000");
        assert_eq!(tick_label(0.01), "0.01");
        assert_eq!(tick_label(1.5), "1.5");
        assert_eq!(fit("-Xmx64m", 8), "-Xmx64m");
        assert_eq!(fit("-Xmx64m -XX:+UseG1GC", 8), "-Xmx64m…");
    }
}
