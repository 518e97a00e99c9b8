//! The report's renderers: they read the model (`report::analysis`'s re-exports) and decide nothing. `tables` the
//! table values in seed 000's shape, `grid` the headline figures of a sweep over two axes as grids, `connection_sweep` the
//! table of a connection sweep, `memory` the memory section's words and tables, `tune` a tune's section, `cell_styles` each cell's look in the charts, `prose` jload's own sentences split into
//! text and `code` spans, `markdown` (report.md), `html` (report.html, with `charts`) and `terminal` (the end-of-run
//! tables). None of them can reach an analysis helper: `report::analysis` keeps its modules private.

mod cell_styles;
mod charts;
mod connection_sweep;
mod grid;
pub(super) mod html;
pub(super) mod markdown;
mod memory;
mod prose;
mod tables;
pub(super) mod terminal;
mod tune;
