//! How a cell is drawn: its colour, line dash and point marker, so that up to 300 cells never share all three, and a
//! small swatch showing the three for legends and table headers.

use maud::{Markup, html};

use super::{fit, px};

/// Tableau 10: distinct, print-safe colours.
pub const PALETTE: [&str; 10] =
    ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"];

/// SVG `stroke-dasharray` values: solid, dashed, dotted, dash-dot, long dash.
const DASHES: [Option<&str>; 5] = [None, Some("8 4"), Some("2 3"), Some("8 3 2 3"), Some("14 4")];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Marker {
    Circle,
    Square,
    Triangle,
    Diamond,
    Cross,
    Bar,
}

const MARKERS: [Marker; 6] =
    [Marker::Circle, Marker::Square, Marker::Triangle, Marker::Diamond, Marker::Cross, Marker::Bar];

/// One cell's look.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CellStyle {
    pub color: &'static str,
    pub dash: Option<&'static str>,
    pub marker: Marker,
}

/// Distinct styles before they repeat: every dash with every marker.
#[cfg(test)]
const STYLES: usize = DASHES.len() * MARKERS.len();

impl CellStyle {
    /// The look of colour `color` (cycled over the palette) and style `style` (a dash and marker pair).
    pub fn new(color: usize, style: usize) -> CellStyle {
        CellStyle {
            color: PALETTE[color % PALETTE.len()],
            dash: DASHES[style % DASHES.len()],
            marker: MARKERS[(style / DASHES.len()) % MARKERS.len()],
        }
    }
}

/// The marker centred at (x, y), `size` pixels across.
pub fn marker(style: &CellStyle, x: f64, y: f64, size: f64) -> Markup {
    let r = size / 2.0;
    let polygon = |corners: &[(f64, f64)]| -> String {
        corners.iter().map(|(dx, dy)| format!("{},{}", px(x + dx * r), px(y + dy * r))).collect::<Vec<_>>().join(" ")
    };
    html! {
        @match style.marker {
            Marker::Circle => circle class="marker" cx=(px(x)) cy=(px(y)) r=(px(r)) fill=(style.color) {},
            Marker::Square => rect class="marker" x=(px(x - r)) y=(px(y - r)) width=(px(size)) height=(px(size))
                fill=(style.color) {},
            Marker::Triangle => polygon class="marker" points=(polygon(&[(0.0, -1.2), (1.1, 0.9), (-1.1, 0.9)]))
                fill=(style.color) {},
            Marker::Diamond => polygon class="marker"
                points=(polygon(&[(0.0, -1.3), (1.1, 0.0), (0.0, 1.3), (-1.1, 0.0)])) fill=(style.color) {},
            Marker::Cross => path class="marker" d=(format!("M{} {}L{} {}M{} {}L{} {}", px(x - r), px(y - r), px(x + r),
                px(y + r), px(x - r), px(y + r), px(x + r), px(y - r))) stroke=(style.color) stroke-width="2" {},
            Marker::Bar => rect class="marker" x=(px(x - r * 0.35)) y=(px(y - r * 1.2)) width=(px(r * 0.7))
                height=(px(r * 2.4)) fill=(style.color) {},
        }
    }
}

/// A short line in the cell's colour and dash with its marker in the middle, at (x, y) in an SVG.
pub fn legend_sample(style: &CellStyle, x: f64, y: f64) -> Markup {
    html! {
        g class="sample" {
            line x1=(px(x)) x2=(px(x + 30.0)) y1=(px(y)) y2=(px(y)) stroke=(style.color) stroke-width="2"
                stroke-dasharray=[style.dash] {}
            (marker(style, x + 15.0, y, 7.0))
        }
    }
}

/// One cell in a chart's legend.
pub struct LegendEntry<'a> {
    pub label: &'a str,
    pub style: &'a CellStyle,
    /// Said after the label, smaller (where the line comes from).
    pub note: &'a str,
}

const LEGEND_COLUMNS: usize = 3;
const LEGEND_ROW: f64 = 18.0;

/// Height of a legend of `count` cells (three columns; the chart grows with the cells).
pub fn legend_height(count: usize) -> f64 {
    count.div_ceil(LEGEND_COLUMNS) as f64 * LEGEND_ROW + 10.0
}

/// Every cell's sample and full label (as a tooltip; cut to fit its column), in three columns from (left, top).
pub fn legend(entries: &[LegendEntry], left: f64, top: f64, width: f64) -> Markup {
    let column_width = width / LEGEND_COLUMNS as f64;
    html! {
        g class="legend" {
            @for (index, entry) in entries.iter().enumerate() {
                @let x = left + (index % LEGEND_COLUMNS) as f64 * column_width;
                @let y = top + (index / LEGEND_COLUMNS) as f64 * LEGEND_ROW;
                (legend_sample(entry.style, x, y - 4.0))
                text x=(px(x + 38.0)) y=(px(y)) class="label" {
                    title { (entry.label) " (" (entry.note) ")" } (fit(entry.label, 24))
                    tspan class="note" dx="6" { (entry.note) }
                }
            }
        }
    }
}

/// The same sample as a small inline SVG, for table headers.
pub fn cell_swatch(style: &CellStyle) -> Markup {
    html! {
        svg.swatch xmlns="http://www.w3.org/2000/svg" width="34" height="12" viewBox="0 0 34 12" aria-hidden="true" {
            (legend_sample(style, 2.0, 6.0))
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn styles_differ_until_every_pair_is_used() {
        let styles: HashSet<(Option<&str>, Marker)> =
            (0..STYLES).map(|index| CellStyle::new(0, index)).map(|style| (style.dash, style.marker)).collect();
        assert_eq!(styles.len(), STYLES);
        assert_eq!(STYLES, 30);
    }
}
