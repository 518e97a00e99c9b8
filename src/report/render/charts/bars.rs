//! One figure per cell as horizontal bars (long cell labels stay readable), each with its 95 % confidence interval
//! as a whisker and the best / not-distinguishable marks; a cell without the figure shows why (crashed, no data).

use maud::{Markup, html};

use super::{Linear, fit, nice_ticks, px, svg, tick_label, x_axis};
use crate::report::render::tables::Mark;

/// One bar.
pub struct Bar {
    pub label: String,
    pub color: &'static str,
    /// None: no bar, `missing` is shown instead.
    pub value: Option<f64>,
    pub ci: Option<[f64; 2]>,
    pub mark: Option<Mark>,
    /// The value as the tables print it.
    pub text: String,
    pub missing: String,
}

const WIDTH: f64 = 1000.0;
const LEFT: f64 = 190.0;
const RIGHT: f64 = 150.0;
const ROW: f64 = 30.0;
const TOP: f64 = 34.0;

/// A bar chart titled `title`; `axis` names the unit.
pub fn bar_chart(kind: &str, title: &str, axis: &str, bars: &[Bar]) -> Markup {
    let height = TOP + ROW * bars.len() as f64 + 44.0;
    let max = bars
        .iter()
        .filter_map(|bar| Some(bar.ci.map_or(bar.value?, |ci| ci[1].max(bar.value.unwrap_or(0.0)))))
        .fold(0.0, f64::max);
    let ticks = nice_ticks(max, 6);
    let scale = Linear::new((0.0, *ticks.last().unwrap_or(&1.0)), (LEFT, WIDTH - RIGHT));
    let bottom = TOP + ROW * bars.len() as f64;
    let tick_marks: Vec<(f64, String)> = ticks.iter().map(|tick| (scale.at(*tick), tick_label(*tick))).collect();
    let body = html! {
        text x=(px(LEFT)) y="20" class="heading" { (title) }
        (x_axis(&tick_marks, bottom, TOP - 4.0, axis, (LEFT + WIDTH - RIGHT) / 2.0))
        @for (index, bar) in bars.iter().enumerate() {
            @let y = TOP + ROW * index as f64;
            @let middle = y + ROW / 2.0;
            text x=(px(LEFT - 8.0)) y=(px(middle + 4.0)) text-anchor="end" class="label" {
                title { (bar.label) } (fit(&bar.label, 27))
            }
            @match bar.value {
                Some(value) => {
                    rect x=(px(LEFT)) y=(px(y + 6.0)) width=(px((scale.at(value) - LEFT).max(1.0)))
                        height=(px(ROW - 12.0))
                        fill=(bar.color) class="bar" {}
                    @if let Some([low, high]) = bar.ci {
                        @let (x1, x2) = (scale.at(low.max(0.0)), scale.at(high));
                        g class="whisker" {
                            line x1=(px(x1)) x2=(px(x2)) y1=(px(middle)) y2=(px(middle)) {}
                            line x1=(px(x1)) x2=(px(x1)) y1=(px(middle - 6.0)) y2=(px(middle + 6.0)) {}
                            line x1=(px(x2)) x2=(px(x2)) y1=(px(middle - 6.0)) y2=(px(middle + 6.0)) {}
                        }
                    }
                    @let end = scale.at(bar.ci.map_or(value, |ci| ci[1].max(value)));
                    text x=(px(end + 8.0)) y=(px(middle + 4.0)) class="value" {
                        (bar.text) @if let Some(mark) = bar.mark { " " (mark.symbol()) }
                    }
                }
                None => {
                    text x=(px(LEFT + 6.0)) y=(px(middle + 4.0)) class="missing" { (bar.missing) }
                }
            }
        }
    };
    svg(kind, WIDTH, height, title, body)
}
