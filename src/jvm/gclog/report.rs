//! The human-readable text of `jload gclog`: what was read, pauses by kind with percentiles, stalls, safepoints,
//! concurrent cycles, throughput and rates, and optionally every pause and every stall.

use super::{DurationStats, GcLog, GcLogSummary, Pause, Stall, TimeBase};
use crate::text_table::{self, Column};

/// Which event lists to print after the summary.
#[derive(Debug, Clone, Copy, Default)]
pub struct Lists {
    pub pauses: bool,
    pub stalls: bool,
}

/// Prints the report of `log` (its events already cut to the summary's window) and its `summary` on stdout.
pub fn print_report(log: &GcLog, summary: &GcLogSummary, lists: Lists) {
    print!("{}", render(log, summary, lists));
}

fn render(log: &GcLog, summary: &GcLogSummary, lists: Lists) -> String {
    let mut out = String::new();
    source_section(&mut out, log, summary);
    pause_section(&mut out, summary);
    stall_section(&mut out, log, summary);
    stop_section(&mut out, log, summary);
    rates_section(&mut out, log, summary);
    if lists.pauses {
        pause_list(&mut out, &log.pauses);
    }
    if lists.stalls {
        stall_list(&mut out, &log.stalls);
    }
    out
}

fn source_section(out: &mut String, log: &GcLog, summary: &GcLogSummary) {
    let files: Vec<String> = log.files.iter().map(|file| file.display().to_string()).collect();
    let collector = log.collector.as_deref().unwrap_or("collector not named in the log");
    out.push_str(&format!("GC log {} ({collector}): {} lines", files.join(" + "), log.lines));
    if let (Some(first), Some(last)) = (log.first_uptime_s, log.last_uptime_s) {
        out.push_str(&format!(", uptime {first:.3} s to {last:.3} s"));
    }
    out.push('\n');
    if let Some(window) = summary.window {
        let to = if window.to_s == f64::MAX { "end".to_string() } else { format!("{:.3} s", window.to_s) };
        out.push_str(&format!("  window: events starting from {:.3} s to {to}\n", window.from_s));
    }
    if log.runs.len() > 1 {
        let starts: Vec<String> = log.runs.iter().map(|run| format!("line {}", run.line)).collect();
        out.push_str(&format!(
            "  {} JVM runs in this log (the uptime goes back: runs start at {}); run {} is analysed, choose with --run N\n",
            log.runs.len(),
            starts.join(", "),
            log.run
        ));
    }
    if !log.ignored_files.is_empty() {
        let ignored: Vec<String> = log.ignored_files.iter().map(|file| file.display().to_string()).collect();
        out.push_str(&format!("  ignored (an earlier JVM run): {}\n", ignored.join(", ")));
    }
    if log.unparsed_lines > 0 {
        out.push_str(&format!("  {} unparsed lines", log.unparsed_lines));
        if let Some(sample) = log.unparsed_samples.first() {
            out.push_str(&format!(", first at line {}: {}", sample.line, sample.text));
        }
        out.push('\n');
    }
}

fn pause_section(out: &mut String, summary: &GcLogSummary) {
    out.push_str("\nStop-the-world pauses (as the collector reports them)\n");
    let pauses = &summary.pauses;
    if pauses.count == 0 {
        out.push_str("  none\n");
        return;
    }
    let mut rows: Vec<Vec<String>> = summary
        .by_kind
        .iter()
        .map(|kind| kind_row(kind.kind.as_str(), kind.count, kind.total_ms, Some(kind.mean_ms), Some(kind.max_ms)))
        .collect();
    rows.push(kind_row("all", pauses.count, pauses.total_ms, pauses.mean_ms, pauses.max_ms));
    push_lines(out, "  ", &text_table::render(&KIND_COLUMNS, &with_kind_header(rows)));
    out.push_str(&percentiles(pauses));
    if summary.nested_pauses > 0 {
        out.push_str(&format!(
            "  {} pause(s) logged inside another pause (a young collection that escalated to a full one): counted once, \
             as part of the outer pause\n",
            summary.nested_pauses
        ));
    }
}

fn stall_section(out: &mut String, log: &GcLog, summary: &GcLogSummary) {
    let stalls = &summary.stalls;
    if log.stalls.is_empty() && stalls.pacing_total_ms.is_none() {
        return;
    }
    out.push_str("\nStalls (threads waiting for the collector outside pauses, summed over threads)\n");
    if stalls.stalls.count == 0 {
        out.push_str("  none in the window\n");
    } else {
        let mut rows: Vec<Vec<String>> = stalls
            .by_kind
            .iter()
            .map(|kind| {
                let mean = kind.total_ms / kind.count as f64;
                kind_row(kind.kind.as_str(), kind.count, kind.total_ms, Some(mean), Some(kind.max_ms))
            })
            .collect();
        let all = &stalls.stalls;
        rows.push(kind_row("all", all.count, all.total_ms, all.mean_ms, all.max_ms));
        push_lines(out, "  ", &text_table::render(&KIND_COLUMNS, &with_kind_header(rows)));
        out.push_str(&percentiles(all));
        // Summed over threads, so not a share of time (it passes 100 % when threads stall together): printed as the
        // threads stalled on average.
        if let Some(pct) = stalls.stalled_pct {
            out.push_str(&format!(
                "  stalled threads: {:.2} on average (stall time summed over threads / wall time)\n",
                pct / 100.0
            ));
        }
    }
    if let Some(pacing) = stalls.pacing_total_ms {
        out.push_str(&format!(
            "  Shenandoah pacing over the whole run: {pacing:.0} ms (all threads; not in any window)\n"
        ));
    }
}

/// The columns of the pause and stall tables: kind, count, total, mean and max.
const KIND_COLUMNS: [Column; 5] =
    [Column::left(18), Column::right(6), Column::right(11), Column::right(10), Column::right(10)];

fn with_kind_header(rows: Vec<Vec<String>>) -> Vec<Vec<String>> {
    let header = ["kind", "count", "total ms", "mean ms", "max ms"].map(str::to_string).to_vec();
    std::iter::once(header).chain(rows).collect()
}

fn kind_row(label: &str, count: usize, total_ms: f64, mean_ms: Option<f64>, max_ms: Option<f64>) -> Vec<String> {
    vec![label.to_string(), count.to_string(), format!("{total_ms:.3}"), ms(mean_ms), ms(max_ms)]
}

/// Each line with `indent` before it and a newline after it.
fn push_lines(out: &mut String, indent: &str, lines: &[String]) {
    for line in lines {
        out.push_str(indent);
        out.push_str(line);
        out.push('\n');
    }
}

fn stop_section(out: &mut String, log: &GcLog, summary: &GcLogSummary) {
    let stops = &summary.safepoints.stops;
    if log.safepoints.is_empty() {
        out.push_str("\nSafepoints: none logged (add the safepoint tag: -Xlog:gc*,safepoint:…)\n");
    } else if stops.count == 0 {
        out.push_str("\nSafepoints: none in the window\n");
    } else {
        out.push_str(&format!(
            "\nSafepoints (the whole stop the application felt): {} stops, {:.3} ms",
            stops.count, stops.total_ms
        ));
        if let Some(pct) = summary.safepoints.stopped_pct {
            out.push_str(&format!(" ({pct:.2} % of wall time)"));
        }
        out.push('\n');
        out.push_str(&percentiles(stops));
    }
    let cycles = &summary.concurrent;
    if cycles.count > 0 {
        out.push_str(&format!(
            "Concurrent cycles: {} ({} aborted), {:.3} ms in all, longest {} ms\n",
            cycles.count,
            cycles.aborted,
            cycles.total_ms,
            ms(cycles.max_ms)
        ));
    }
}

fn rates_section(out: &mut String, log: &GcLog, summary: &GcLogSummary) {
    out.push('\n');
    match (summary.gc_throughput_pct, summary.wall_s) {
        (Some(pct), Some(wall)) => out.push_str(&format!("GC throughput        {pct:.2} % of {wall:.3} s\n")),
        _ if log.time_base == TimeBase::None => {
            out.push_str("GC throughput        - (the log has no time decorations)\n")
        }
        _ => out.push_str("GC throughput        - (the window is outside the log)\n"),
    }
    out.push_str(&format!("Allocation rate      {}\n", figure(summary.alloc_rate_mb_s, "MB/s")));
    out.push_str(&format!("Promotion rate       {}\n", figure(summary.promotion_rate_mb_s, "MB/s")));
    out.push_str(&format!("Peak heap after GC   {}\n", figure(summary.peak_heap_after_mb, "MB")));
}

/// The columns of the pause and stall lists: start, duration, kind, then each list's own.
const LIST_START: [Column; 3] = [Column::right(10), Column::right(11), Column::left(22).after(2)];

fn pause_list(out: &mut String, pauses: &[Pause]) {
    let header = ["start s", "duration ms", "kind", "cause", "heap MB", "gc id"].map(str::to_string).to_vec();
    let rows = pauses.iter().map(|pause| {
        let heap = match (pause.before_mb, pause.after_mb, pause.total_mb) {
            (Some(before), Some(after), Some(total)) => format!("{before:.0}->{after:.0} ({total:.0})"),
            (Some(before), Some(after), None) => format!("{before:.0}->{after:.0}"),
            _ => "-".to_string(),
        };
        let kind = match (pause.generation, pause.within_gc_id) {
            (Some(generation), _) => format!("{} ({})", pause.kind.as_str(), generation.as_str()),
            (None, Some(outer)) => format!("{} (in GC {outer})", pause.kind.as_str()),
            (None, None) => pause.kind.as_str().to_string(),
        };
        let cause = pause.cause.as_deref().unwrap_or("-").to_string();
        vec![start(pause.start_s), format!("{:.3}", pause.duration_ms), kind, cause, heap, gc_id(pause.gc_id)]
    });
    let columns = [&LIST_START[..], &[Column::left(28), Column::left(22), Column::left(0)]].concat();
    out.push('\n');
    push_lines(out, "", &text_table::render(&columns, &std::iter::once(header).chain(rows).collect::<Vec<_>>()));
}

fn stall_list(out: &mut String, stalls: &[Stall]) {
    let header = ["start s", "duration ms", "kind", "thread", "gc id"].map(str::to_string).to_vec();
    let rows = stalls.iter().map(|stall| {
        let thread = stall.thread.as_deref().unwrap_or("-").to_string();
        let kind = stall.kind.as_str().to_string();
        vec![start(stall.start_s), format!("{:.3}", stall.duration_ms), kind, thread, gc_id(stall.gc_id)]
    });
    let columns = [&LIST_START[..2], &[Column::left(18).after(2), Column::left(40), Column::left(0)]].concat();
    out.push('\n');
    push_lines(out, "", &text_table::render(&columns, &std::iter::once(header).chain(rows).collect::<Vec<_>>()));
}

fn start(start_s: Option<f64>) -> String {
    start_s.map_or("-".to_string(), |start| format!("{start:.3}"))
}

fn gc_id(id: Option<u64>) -> String {
    id.map_or("-".to_string(), |id| id.to_string())
}

/// `  percentiles: p50 … ms, p90 … ms, p99 … ms, max … ms` and a newline.
fn percentiles(stats: &DurationStats) -> String {
    format!(
        "  percentiles: p50 {} ms, p90 {} ms, p99 {} ms, max {} ms\n",
        ms(stats.p50_ms),
        ms(stats.p90_ms),
        ms(stats.p99_ms),
        ms(stats.max_ms)
    )
}

/// A duration in ms with 3 decimals, or `-`.
fn ms(value: Option<f64>) -> String {
    value.map_or("-".to_string(), |v| format!("{v:.3}"))
}

fn figure(value: Option<f64>, unit: &str) -> String {
    value.map_or("- (not in this log)".to_string(), |v| format!("{v:.1} {unit}"))
}
