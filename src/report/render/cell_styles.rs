//! Which look (colour, dash, marker) each cell of a sweep gets in every chart and table header. With two or more
//! varying axes the colour follows the grids' column axis (e.g. the collector) and the dash and marker follow the
//! other axes (e.g. the heap), so one colour means one value everywhere; otherwise colours cycle over the cells and
//! the style changes every ten. No two cells look the same (up to 300 cells).

use super::charts::style::{CellStyle, PALETTE};
use super::grid::grid_axes;
use crate::report::analysis::Analysis;

/// The look of every cell, in cell order.
pub fn cell_styles(analysis: &Analysis) -> Vec<CellStyle> {
    let Some(axes) = grid_axes(analysis) else {
        return (0..analysis.cells.len()).map(|index| CellStyle::new(index, index / PALETTE.len())).collect();
    };
    let colour_labels =
        analysis.axes.iter().find(|axis| axis.name == axes.columns).map_or(&[][..], |axis| &axis.labels);
    let style_axes: Vec<&String> = std::iter::once(&axes.rows).chain(&axes.split).collect();
    // Cells with the same labels on the style axes (and the same palette round) share a style, never a colour.
    let mut style_keys: Vec<(Vec<Option<&String>>, usize)> = Vec::new();
    analysis
        .cells
        .iter()
        .map(|cell| {
            let colour = cell.axes.get(&axes.columns).and_then(|label| colour_labels.iter().position(|l| l == label));
            let colour = colour.unwrap_or(0);
            let key = (style_axes.iter().map(|axis| cell.axes.get(*axis)).collect(), colour / PALETTE.len());
            let style = style_keys.iter().position(|known| *known == key).unwrap_or_else(|| {
                style_keys.push(key);
                style_keys.len() - 1
            });
            CellStyle::new(colour, style)
        })
        .collect()
}
