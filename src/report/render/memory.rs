//! The memory section's words and table, shared by report.md and report.html: per cell with a memory section (a box
//! or native memory figures) its committed native memory by category, largest first, against the memory limit, then
//! the whole-life RSS peak, the box's peak, the limit, the headroom and the CPU quota and throttling; and, for a cell
//! the memory limit killed, the cause as recorded. The HTML draws the same figures as a stacked bar and over time.

use super::tables::{Entry, Layout, Row, Table};
use crate::report::analysis::{Analysis, CellInfo, CellMemory};

/// What the section says before the cells.
pub const MEMORY_NOTE: &str = "Per cell in a box or with native memory tracking, the repeat that needed the most \
    memory: the JVM's committed native memory (NMT) by category at its last read, largest first (categories under 2 % \
    of the total together as smaller ones), against the box's memory limit; the RSS peak over the JVM's whole life (fill and \
    warm-up included); the box's peak usage since it was made (page cache included); headroom = limit − box peak; and \
    the share of CFS periods in which the CPU quota held the box back. MB are MiB. See docs/containers.md, \"How to \
    read the memory section\".";

/// The cells that have a memory section, with it, in cell order.
pub fn memory_cells(analysis: &Analysis) -> Vec<(&CellInfo, &CellMemory)> {
    analysis.cells.iter().filter_map(|info| Some((info, info.memory.as_ref()?))).collect()
}

/// `-Xmx128m G1 in 512m (repeat 2 of 3)`: the title of a cell's part.
pub fn title(info: &CellInfo, memory: &CellMemory) -> String {
    let in_box = memory.box_label.as_ref().map(|label| format!(" in {label}")).unwrap_or_default();
    let rep = if info.reps > 1 { format!(" (repeat {} of {})", memory.rep, info.reps) } else { String::new() };
    format!("{}{in_box}{rep}", info.label)
}

/// The cause of a kill by the memory limit, as a sentence: `In repeat 1: killed by the memory limit …`.
pub fn killed_line(memory: &CellMemory) -> Option<String> {
    let cause = memory.killed.as_ref()?;
    let reps: Vec<String> = memory.killed_reps.iter().map(u32::to_string).collect();
    let plural = if reps.len() > 1 { "s" } else { "" };
    Some(format!("In repeat{plural} {}: {cause}", reps.join(", ")))
}

fn mb(bytes: u64) -> String {
    format!("{:.1}", bytes as f64 / f64::from(1 << 20))
}

/// A cell's table: a row per category (committed MB, of the limit), then the totals and the box.
pub fn memory_table(memory: &CellMemory) -> Table {
    let figures = &memory.figures;
    let of_limit = |bytes: i64| {
        figures
            .limit
            .filter(|limit| *limit > 0)
            .map_or("-".to_string(), |limit| format!("{:.1} %", 100.0 * bytes as f64 / limit as f64))
    };
    let plain = |text: String| Entry { text, ..Entry::default() };
    let row = |label: &str, bytes: Option<u64>| Row {
        label: label.to_string(),
        entries: vec![
            plain(bytes.map_or("-".to_string(), mb)),
            plain(bytes.map_or("-".to_string(), |bytes| of_limit(bytes as i64))),
        ],
    };
    let committed = memory.committed_by_category(crate::report::analysis::OTHER_SHARE);
    let mut rows: Vec<Row> = committed.iter().map(|(name, bytes)| row(&format!("NMT {name}"), Some(*bytes))).collect();
    if !committed.is_empty() {
        rows.push(row("NMT committed in all", Some(committed.iter().map(|(_, bytes)| bytes).sum())));
    }
    rows.push(row("RSS peak (whole life)", figures.rss_peak));
    if figures.limit.is_some() || figures.peak.is_some() {
        rows.push(row("box peak", figures.peak));
        rows.push(row("memory limit", figures.limit));
        rows.push(Row {
            label: "headroom".to_string(),
            entries: vec![
                plain(memory.headroom.map_or("-".to_string(), |bytes| format!("{:.1}", bytes as f64 / 1048576.0))),
                plain(memory.headroom.map_or("-".to_string(), of_limit)),
            ],
        });
    }
    if memory.quota_cpus.is_some() || figures.throttled_pct.is_some() {
        rows.push(Row {
            label: "CPU quota, throttled".to_string(),
            entries: vec![
                plain(memory.quota_cpus.map_or("no quota".to_string(), |cpus| format!("{cpus} CPU"))),
                plain(figures.throttled_pct.map_or("-".to_string(), |pct| format!("{pct:.2} % of periods"))),
            ],
        });
    }
    Table {
        corner: "memory".to_string(),
        columns: vec!["MB".to_string(), "of the limit".to_string()],
        rows,
        notes: Vec::new(),
        layout: Layout::Grid,
    }
}
