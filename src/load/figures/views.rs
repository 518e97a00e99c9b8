//! Which outputs show a figure, and where: the views a figure of the registries (`figures/mod.rs` for a bench result's,
//! `report/analysis/metrics.rs` for the capacity and the JVM's) lists in its `shown`, and the rows of the tables that
//! group several figures. Every output shows the registry's figures that list it, in the registry's order, so showing a
//! figure somewhere is a view in its one entry. A leaf: it names outputs, it does not render them.

/// An output that shows figures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum View {
    /// A row of the report's per-phase tables (report.md, report.html); a figure shown in any view of a report is in
    /// report.json's `figures` too.
    Report(ReportRow),
    /// A row of the compact table printed at the end of a run.
    Terminal(TerminalRow),
    /// A line of `jload compare`.
    Compare(Judged),
    /// The grids of a sweep over two or more axes (a phase shows those of its kind: `report/render/grid.rs`).
    Grid,
    /// A column, per connection count, of the table of the connection counts a plan swept (`report/render/connection_sweep.rs`).
    Connections,
    /// A latency column of `jload bench`'s printout (corrected and uncorrected).
    Printout,
    /// A latency column of a rate ladder's or capacity search's step table (`ladder_printout.rs`).
    Steps,
    /// A latency column of the printout's per-request table (a mix) and per-host table (a merged result), and of the
    /// per-host figures a merged result keeps (`result::HostFigures`).
    PerRequest,
}

impl View {
    /// Whether it is an output of a report (results directory → tables, report.json, compare), not a printout.
    pub fn is_report(self) -> bool {
        !matches!(self, View::Printout | View::Steps | View::PerRequest)
    }
}

/// Whether `jload compare` judges a figure (a significant worsening beyond the threshold is a regression) or shows it
/// for context (a maximum is one request; GC figures are causes, not outcomes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Judged {
    Yes,
    Context,
}

/// The rows of the report's per-phase tables, in their order. A row shows the figures that list it, `/`-joined in
/// the registry's order (`YGC/YGCT`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ReportRow {
    Rps,
    P99,
    Latency,
    MeanMedian,
    Stdev,
    ErrorTimeout,
    Ygc,
    Fgc,
    Cgc,
    GcShare,
    GcTime,
    GcPause,
    GcStall,
    StalledThreads,
    Safepoint,
    LongestPause,
    LongestStall,
    Allocation,
    RssPeak,
    MemoryLimit,
    MemoryPeak,
    CpuThrottled,
    ThreadCpu,
}

impl ReportRow {
    /// Every row, in the tables' order.
    pub const ALL: [ReportRow; 23] = [
        ReportRow::Rps,
        ReportRow::P99,
        ReportRow::Latency,
        ReportRow::MeanMedian,
        ReportRow::Stdev,
        ReportRow::ErrorTimeout,
        ReportRow::Ygc,
        ReportRow::Fgc,
        ReportRow::Cgc,
        ReportRow::GcShare,
        ReportRow::GcTime,
        ReportRow::GcPause,
        ReportRow::GcStall,
        ReportRow::StalledThreads,
        ReportRow::Safepoint,
        ReportRow::LongestPause,
        ReportRow::LongestStall,
        ReportRow::Allocation,
        ReportRow::RssPeak,
        ReportRow::MemoryLimit,
        ReportRow::MemoryPeak,
        ReportRow::CpuThrottled,
        ReportRow::ThreadCpu,
    ];

    /// The rows of a phase that is not measured (fill, warm-up): throughput, P99 and errors only.
    pub const UNMEASURED: [ReportRow; 3] = [ReportRow::Rps, ReportRow::P99, ReportRow::ErrorTimeout];

    /// The row's label, given its figures' labels in order: the latency rows list them (`RT (min/P90/P99/P99.9/max)
    /// (ms)`, as the seeds write it), the others are named once here.
    pub fn label(self, figure_labels: &[&str]) -> String {
        let fixed = match self {
            ReportRow::Latency | ReportRow::MeanMedian => return format!("RT ({}) (ms)", figure_labels.join("/")),
            ReportRow::Rps => "req/s",
            ReportRow::P99 => "P99 (ms)",
            ReportRow::Stdev => "stdev (ms)",
            ReportRow::ErrorTimeout => "error/timeout",
            ReportRow::Ygc => "YGC/YGCT (s)",
            ReportRow::Fgc => "FGC/FGCT (s)",
            ReportRow::Cgc => "CGC/CGCT (s)",
            ReportRow::GcShare => "GC share %",
            ReportRow::GcTime => "jstat GC time %",
            ReportRow::GcPause => "GC pause %",
            ReportRow::GcStall => "GC stall %",
            ReportRow::StalledThreads => "GC-stalled threads (mean)",
            ReportRow::Safepoint => "safepoint % (GC or not)",
            ReportRow::LongestPause => "longest GC pause (ms)",
            ReportRow::LongestStall => "longest GC stall (ms)",
            ReportRow::Allocation => "allocation rate (MB/s)",
            ReportRow::RssPeak => "RSS peak (MB)",
            ReportRow::MemoryLimit => "memory limit (MB)",
            ReportRow::MemoryPeak => "memory peak (MB)",
            ReportRow::CpuThrottled => "CPU throttled %",
            ReportRow::ThreadCpu => "CPU GC/JIT/VM/app (cores)",
        };
        fixed.to_string()
    }

    /// A headline row: the cells' confidence intervals and the best cell's mark are shown on it.
    pub fn is_headline(self) -> bool {
        matches!(self, ReportRow::Rps | ReportRow::P99)
    }

    /// When a phase's table shows the row.
    pub fn shown_when(self) -> ShownWhen {
        match self {
            ReportRow::MemoryLimit | ReportRow::MemoryPeak | ReportRow::CpuThrottled | ReportRow::ThreadCpu => {
                ShownWhen::Present
            }
            ReportRow::GcTime
            | ReportRow::GcPause
            | ReportRow::GcStall
            | ReportRow::StalledThreads
            | ReportRow::Safepoint
            | ReportRow::LongestStall => ShownWhen::AddsToGcShare,
            _ => ShownWhen::Always,
        }
    }
}

/// When a row of the report's tables is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShownWhen {
    Always,
    /// Where some cell of the phase has its figures: the cgroup box's (a plan with `memory` or `cpus_quota`), so
    /// reports of plans without a box stay as they were.
    Present,
    /// A GC-time figure beside the GC share, shown where it adds something to it: the phase's rule
    /// (`report::analysis::gc_share`) names its figures.
    AddsToGcShare,
}

/// The rows of the end-of-run table, in their order; a row shows the figures that list it, `/`-joined.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum TerminalRow {
    Capacity,
    Rps,
    P50,
    P99,
    Max,
    Errors,
    Ygc,
    Fgc,
    Cgc,
    GcShare,
}

impl TerminalRow {
    /// Every row, in the table's order.
    pub const ALL: [TerminalRow; 10] = [
        TerminalRow::Capacity,
        TerminalRow::Rps,
        TerminalRow::P50,
        TerminalRow::P99,
        TerminalRow::Max,
        TerminalRow::Errors,
        TerminalRow::Ygc,
        TerminalRow::Fgc,
        TerminalRow::Cgc,
        TerminalRow::GcShare,
    ];

    /// The row's label, short for the terminal.
    pub fn label(self) -> &'static str {
        match self {
            TerminalRow::Capacity => "capacity",
            TerminalRow::Rps => "req/s",
            TerminalRow::P50 => "p50 ms",
            TerminalRow::P99 => "p99 ms",
            TerminalRow::Max => "max ms",
            TerminalRow::Errors => "errors",
            TerminalRow::Ygc => "YGC/YGCT s",
            TerminalRow::Fgc => "FGC/FGCT s",
            TerminalRow::Cgc => "CGC/CGCT s",
            TerminalRow::GcShare => "GC share %",
        }
    }

    /// Rows shown only when some cell has a value (no collector of the run counts concurrent cycles: no CGC row; no
    /// capacity search: no capacity row).
    pub fn is_optional(self) -> bool {
        matches!(self, TerminalRow::Capacity | TerminalRow::Cgc)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_row_lists_hold_every_row_once_in_order() {
        assert!(ReportRow::ALL.windows(2).all(|pair| pair[0] < pair[1]));
        assert!(TerminalRow::ALL.windows(2).all(|pair| pair[0] < pair[1]));
        assert_eq!(ReportRow::ALL.last(), Some(&ReportRow::ThreadCpu));
        assert_eq!(TerminalRow::ALL.last(), Some(&TerminalRow::GcShare));
    }

    #[test]
    fn latency_rows_are_labelled_by_their_figures() {
        assert_eq!(ReportRow::Latency.label(&["min", "P90", "P95", "max"]), "RT (min/P90/P95/max) (ms)");
        assert_eq!(ReportRow::Ygc.label(&["YGC", "YGCT"]), "YGC/YGCT (s)");
    }
}
