//! The figures a report shows, one definition each: how to read it from one repeat's phase record, its unit and
//! format, and which way is better. Tables, statistics, compare and report.json all go through this list. The bench
//! figures come from the load engine's registry (`load::figures`, which thresholds and `[slo]` judge through); the
//! capacity a search found and the JVM's figures are defined here. Each lists the outputs that show it (its views), and
//! each output asks this list which figures it shows (`shown_in`).

use std::sync::LazyLock;

pub use crate::load::figures::Format;
use crate::load::figures::{FIGURES, Figure, Judged, ReportRow, TerminalRow, View};
use crate::load::record::outcomes::Side;
use crate::results::PhaseRecord;

use super::equal_load::PhaseKind;
use super::stats::Better;

/// What one repeat of a phase measured, with the figures that come from beside its JSON.
#[derive(Debug, Clone, Copy)]
pub struct RepFigures<'a> {
    pub rep: u32,
    pub record: &'a PhaseRecord,
    /// From the repeat's GC log, over the window of the headline figures (`PhaseRecord::headline_jvm`).
    pub alloc_mb_s: Option<f64>,
    /// The repeat's RSS peak over the JVM's whole life, fill and warm-up included (`memory::rss_life_peak_mb`).
    pub rss_life_peak_mb: Option<f64>,
}

/// How a figure is read from one repeat; None when the repeat has no such figure.
pub type Reader = Box<dyn Fn(&RepFigures) -> Option<f64> + Send + Sync>;

/// One figure.
pub struct Metric {
    /// Key in report.json and compare's JSON.
    pub key: &'static str,
    /// Row label.
    pub label: &'static str,
    pub format: Format,
    /// None for figures that are neither good nor bad in themselves (collection counts, allocation rate).
    pub better: Option<Better>,
    pub read: Reader,
    /// The outputs that show it.
    pub shown: &'static [View],
}

/// A JVM figure of the window beside the repeat's headline figures: a ladder phase's headline step's (a capacity
/// phase's P99 and capacity are that step's), else the phase's.
fn jvm<T>(figures: &RepFigures, pick: impl Fn(&crate::jvm::watch::window::JvmWindow) -> Option<T>) -> Option<T> {
    figures.record.headline_jvm().and_then(pick)
}

const LOWER: Option<Better> = Some(Better::Lower);

impl Metric {
    fn new(
        key: &'static str,
        label: &'static str,
        format: Format,
        better: Option<Better>,
        shown: &'static [View],
        read: fn(&RepFigures) -> Option<f64>,
    ) -> Metric {
        Metric { key, label, format, better, read: Box::new(read), shown }
    }

    /// Whether `output` shows it.
    pub fn shown_in(&self, output: View) -> bool {
        self.shown.contains(&output)
    }

    /// A bench figure as the report shows it, read from the repeat's bench result.
    fn bench(figure: &'static Figure) -> Metric {
        Metric {
            key: figure.key,
            label: figure.label,
            format: figure.format,
            better: Some(figure.better),
            read: Box::new(move |figures| figure.read(&figures.record.bench)),
            shown: figure.shown,
        }
    }
}

/// Every figure a report shows: the capacity a search found, the reported bench figures, then the JVM's.
pub static METRICS: LazyLock<Vec<Metric>> = LazyLock::new(|| {
    let bench = FIGURES.iter().filter(|figure| figure.reported()).map(Metric::bench);
    std::iter::once(capacity_metric()).chain(bench).chain(jvm_metrics()).collect()
});

/// The figures `output` shows, in the registry's order.
pub fn shown_in(output: View) -> impl Iterator<Item = &'static Metric> {
    METRICS.iter().filter(move |metric| metric.shown_in(output))
}

/// Key of the capacity a search found: the highest rate that met the SLO.
pub const CAPACITY: &str = "capacity_rps";

/// The capacity of one repeat, when its search claimed one for the target (never when the generator ran out first).
/// A cell's figure over its repeats follows the cell's rule in `capacity.rs` (no figure when any repeat was
/// generator-limited).
fn capacity_metric() -> Metric {
    const SHOWN: &[View] = &[View::Terminal(TerminalRow::Capacity), View::Compare(Judged::Yes), View::Grid];
    Metric::new(CAPACITY, "capacity (req/s)", Format::Count, Some(Better::Higher), SHOWN, |f| {
        let capacity = f.record.bench.capacity.as_ref()?;
        if capacity.limited_by == Side::Target { capacity.rps } else { None }
    })
}

const CONTEXT: View = View::Compare(Judged::Context);
const YGC: &[View] = &[View::Report(ReportRow::Ygc), View::Terminal(TerminalRow::Ygc)];
const FGC: &[View] = &[View::Report(ReportRow::Fgc), View::Terminal(TerminalRow::Fgc)];
// Concurrent cycles: G1 and ZGC count them; Serial, Parallel and (JDK 17) Shenandoah have no counter (`-`).
const CGC: &[View] = &[View::Report(ReportRow::Cgc), View::Terminal(TerminalRow::Cgc)];
// The GC share, in every output (`gc_share.rs`); the other GC-time figures in the report's tables where the phase's
// rule shows them beside it.
const GC_SHARE_VIEWS: &[View] =
    &[View::Report(ReportRow::GcShare), View::Terminal(TerminalRow::GcShare), CONTEXT, View::Grid];
const PAUSE: &[View] = &[View::Report(ReportRow::GcPause)];
const LONGEST_PAUSE: &[View] = &[View::Report(ReportRow::LongestPause), CONTEXT];
const STALLED: &[View] = &[View::Report(ReportRow::StalledThreads)];
const LONGEST_STALL: &[View] = &[View::Report(ReportRow::LongestStall)];

/// The figures of the JVM under load, from the phase's JVM window (a ladder's headline step's) and its GC log.
fn jvm_metrics() -> Vec<Metric> {
    vec![
        Metric::new("ygc", "YGC", Format::Count, None, YGC, |f| jvm(f, |j| j.collections.ygc.map(|v| v as f64))),
        Metric::new("ygct_s", "YGCT", Format::Seconds, None, YGC, |f| jvm(f, |j| j.collections.ygct_s)),
        Metric::new("fgc", "FGC", Format::Count, None, FGC, |f| jvm(f, |j| j.collections.fgc.map(|v| v as f64))),
        Metric::new("fgct_s", "FGCT", Format::Seconds, None, FGC, |f| jvm(f, |j| j.collections.fgct_s)),
        Metric::new("cgc", "CGC", Format::Count, None, CGC, |f| jvm(f, |j| j.collections.cgc.map(|v| v as f64))),
        Metric::new("cgct_s", "CGCT", Format::Seconds, None, CGC, |f| jvm(f, |j| j.collections.cgct_s)),
        // The GC share: the share of the phase the application waited for the collector, paused or with a thread
        // stalled (their union: at most 100 %), the GC windows the attribution weighs; jstat's GC time without a log.
        Metric::new("gc_wait_pct", "GC share %", Format::Percent, LOWER, GC_SHARE_VIEWS, |f| {
            jvm(f, |j| j.gc_wait_pct())
        }),
        // jstat's GC time (GCT): the collector's own time counter, which leaves out the time to reach a safepoint and
        // counts Shenandoah's concurrent cycles.
        Metric::new("gc_pct", "jstat GC time %", Format::Percent, LOWER, &[View::Report(ReportRow::GcTime)], |f| {
            jvm(f, |j| j.gc_time_pct)
        }),
        // The GC pauses alone, each from its safepoint's start where the log has safepoint lines.
        Metric::new("pause_pct", "GC pause %", Format::Percent, LOWER, PAUSE, |f| jvm(f, |j| j.paused_pct())),
        Metric::new("longest_pause_ms", "longest GC pause", Format::Ms, LOWER, LONGEST_PAUSE, |f| {
            jvm(f, |j| j.pauses.as_ref().map(|pauses| pauses.max_ms))
        }),
        // Threads waiting for the collector outside pauses (ZGC allocation stalls, Shenandoah allocation failures):
        // the share of the phase during which at least one was (at most 100 %), and how many were, on average.
        Metric::new("stall_pct", "GC stall %", Format::Percent, LOWER, &[View::Report(ReportRow::GcStall)], |f| {
            jvm(f, |j| j.stalled_pct())
        }),
        Metric::new("stalled_threads", "GC-stalled threads (mean)", Format::Percent, LOWER, STALLED, |f| {
            jvm(f, |j| j.stalled_threads())
        }),
        Metric::new("longest_stall_ms", "longest GC stall", Format::Ms, LOWER, LONGEST_STALL, |f| {
            jvm(f, |j| j.pauses.as_ref().map(|pauses| pauses.stall_max_ms))
        }),
        Metric::new(
            "safepoint_pct",
            "safepoint % (GC or not)",
            Format::Percent,
            LOWER,
            &[View::Report(ReportRow::Safepoint)],
            |f| jvm(f, |j| j.safepoint_pct()),
        ),
        Metric::new("alloc_mb_s", "allocation rate", Format::Rate, None, &[View::Report(ReportRow::Allocation)], |f| {
            f.alloc_mb_s
        }),
        // The JVM's resident set at its highest over its whole life — every gcstat.csv row and every phase's JVM
        // window, fill and warm-up included —, not only within the phase: what a container must hold.
        Metric::new(
            "rss_peak_mb",
            "RSS peak",
            Format::Megabytes,
            LOWER,
            &[View::Report(ReportRow::RssPeak), CONTEXT],
            |f| f.rss_life_peak_mb,
        ),
        // The target's cgroup box at the phase's end (docs/containers.md): its memory limit, its peak since it was
        // made (fill and warm-up included), and the share of the phase's own CFS periods in which the CPU quota held
        // it back.
        Metric::new("memory_limit_mb", "memory limit", Format::Megabytes, None, MEMORY_LIMIT, |f| {
            cell_box(f, |b| b.memory_limit.map(mebibytes))
        }),
        Metric::new("memory_peak_mb", "memory peak", Format::Megabytes, LOWER, MEMORY_PEAK, |f| {
            cell_box(f, |b| b.memory_peak.map(mebibytes))
        }),
        Metric::new("cpu_throttled_pct", "CPU throttled %", Format::Percent, LOWER, CPU_THROTTLED, |f| {
            cell_box(f, |b| b.phase_throttled_pct())
        }),
        // The JVM's CPU by thread group over the phase (from /proc): the collector's threads, the JIT compilers, the
        // VM's own threads and the application's, in cores.
        Metric::new("gc_cores", "GC", Format::Cores, None, THREAD_CPU, |f| f.record.thread_cpu.map(|c| c.gc)),
        Metric::new("jit_cores", "JIT", Format::Cores, None, THREAD_CPU, |f| f.record.thread_cpu.map(|c| c.jit)),
        Metric::new("vm_cores", "VM", Format::Cores, None, THREAD_CPU, |f| f.record.thread_cpu.map(|c| c.vm)),
        Metric::new("app_cores", "app", Format::Cores, None, THREAD_CPU, |f| {
            f.record.thread_cpu.map(|c| c.application)
        }),
    ]
}

// Compare shows the box's limit and peak for context, not judged: the peak counts page cache, which any file read
// raises and the kernel reclaims before it kills, so a higher peak is no regression by itself; a cell the limit
// killed loses its phases, which compare judges (MISSING in B), and its box line names the kill.
const MEMORY_LIMIT: &[View] = &[View::Report(ReportRow::MemoryLimit), CONTEXT];
const MEMORY_PEAK: &[View] = &[View::Report(ReportRow::MemoryPeak), CONTEXT];
const CPU_THROTTLED: &[View] = &[View::Report(ReportRow::CpuThrottled)];
const THREAD_CPU: &[View] = &[View::Report(ReportRow::ThreadCpu)];

fn cell_box(figures: &RepFigures, pick: impl Fn(&crate::results::BoxFigures) -> Option<f64>) -> Option<f64> {
    figures.record.cell_box.as_ref().and_then(pick)
}

fn mebibytes(bytes: u64) -> f64 {
    bytes as f64 / f64::from(1 << 20)
}

/// The metric with this key (a programming error when there is none).
pub fn metric(key: &str) -> &'static Metric {
    METRICS.iter().find(|metric| metric.key == key).unwrap_or_else(|| panic!("no metric '{key}'"))
}

/// The headline figures: the best cell and its equals are marked, the recommendation is built on them. Capacity
/// only exists in capacity phases, where it is the one headline ranked (see `analysis`).
pub const HEADLINE: [&str; 3] = ["rps", "p99_ms", CAPACITY];

/// The headline figures a phase of this kind ranks its cells on: capacity in a capacity phase (its steps' latencies
/// are at a different rate per cell), else req/s and P99. The standings and the host effect both follow it.
pub fn ranked_headlines(kind: PhaseKind) -> impl Iterator<Item = &'static str> {
    let keys: &[&str] = if kind == PhaseKind::Capacity { &[CAPACITY] } else { &["rps", "p99_ms"] };
    HEADLINE.into_iter().filter(move |key| keys.contains(key))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_unique_and_headlines_exist() {
        let mut keys: Vec<&str> = METRICS.iter().map(|metric| metric.key).collect();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), METRICS.len());
        for key in HEADLINE {
            assert!(metric(key).better.is_some());
        }
    }

    #[test]
    fn every_reported_bench_figure_is_a_metric_read_from_the_bench_result() {
        use crate::load::record::recorder::Recorder;
        use crate::load::record::result::tests::result_of;
        let mut recorder = Recorder::new(1, false);
        recorder.response(0, 1_000, 3_000, 200, true);
        recorder.response(0, 1_000, 7_000, 500, false);
        let bench = result_of(&recorder);
        let record = PhaseRecord::of_bench("run", bench.clone());
        let figures = RepFigures { rep: 1, record: &record, alloc_mb_s: None, rss_life_peak_mb: None };
        let bench_metrics: Vec<&str> = METRICS.iter().filter(|m| (m.read)(&figures).is_some()).map(|m| m.key).collect();
        let reported: Vec<&str> = FIGURES.iter().filter(|figure| figure.reported()).map(|figure| figure.key).collect();
        assert_eq!(bench_metrics, reported);
        for figure in FIGURES.iter().filter(|figure| figure.reported()) {
            let shown = metric(figure.key);
            assert_eq!((shown.label, shown.format, shown.better), (figure.label, figure.format, Some(figure.better)));
            assert_eq!((shown.read)(&figures), figure.read(&bench), "{}", figure.key);
        }
    }

    #[test]
    fn every_view_a_figure_lists_is_an_output_that_shows_it() {
        use crate::load::figures::{ReportRow, TerminalRow};
        for metric in METRICS.iter() {
            for view in metric.shown {
                match *view {
                    View::Report(row) => assert!(ReportRow::ALL.contains(&row), "{}: {row:?}", metric.key),
                    View::Terminal(row) => assert!(TerminalRow::ALL.contains(&row), "{}: {row:?}", metric.key),
                    _ => {}
                }
                assert!(shown_in(*view).any(|shown| shown.key == metric.key), "{}: {view:?}", metric.key);
            }
        }
        // Each row of the tables shows a figure (a row no figure lists is left out, but none is meant to be).
        for row in ReportRow::ALL {
            assert!(shown_in(View::Report(row)).next().is_some(), "{row:?}");
        }
        for row in TerminalRow::ALL {
            assert!(shown_in(View::Terminal(row)).next().is_some(), "{row:?}");
        }
        let keys = |view| shown_in(view).map(|metric| metric.key).collect::<Vec<_>>();
        assert_eq!(
            keys(View::Report(ReportRow::Latency)),
            ["min_ms", "p90_ms", "p95_ms", "p99_ms", "p999_ms", "max_ms"]
        );
        assert_eq!(keys(View::Grid), [CAPACITY, "rps", "p99_ms", "gc_wait_pct"]);
    }

    #[test]
    fn docs_report_md_lists_every_metric_key_in_the_registrys_order() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/report.md");
        let doc = std::fs::read_to_string(path).unwrap().replace('\n', " ");
        let (_, list) = doc.split_once("Metric keys: ").expect("docs/report.md lists the metric keys");
        let (list, _) = list.split_once('.').unwrap();
        let listed: Vec<&str> = list.split(", ").map(|key| key.trim().trim_matches('`')).collect();
        let keys: Vec<&str> = METRICS.iter().map(|metric| metric.key).collect();
        assert_eq!(
            listed, keys,
            "docs/report.md's \"Metric keys:\" against report/analysis/metrics.rs and load/figures/mod.rs"
        );
    }
}
