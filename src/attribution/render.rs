//! The attribution as `jload bench --jvm` prints it after its JVM section: the verdict, a table of the three tails
//! (requests, how many overlapped GC and other safepoints against chance, the percentile and the same without the
//! GC's time), the stops in the run, the clock mapping and its error, and the slowest requests that met no stop.

use std::fmt::Write;

use super::verdict::percent;
use super::{GcAttribution, StopCounts, TailShare};
use crate::jvm::clock::{ClockSource, UptimeClock};
use crate::load::format::{format_ms, grouped};
use crate::text_table::{self, Column};

/// The block's label, and the indent of its other lines: as wide as the JVM section's (`JvmWindow::render`).
const LABEL: &str = "  Is it the GC?  ";
const INDENT: &str = "                 ";
/// Prose lines wrap to a 120-column terminal.
const WIDTH: usize = 120;

/// Unexplained requests printed (the JSON holds up to [`super::UNEXPLAINED`]).
const PRINTED_UNEXPLAINED: usize = 5;

const COLUMNS: [Column; 7] = [
    Column::left(0),
    Column::right(0).after(2),
    Column::right(0).after(2),
    Column::right(0).after(2),
    Column::right(0).after(2),
    Column::right(0).after(2),
    Column::left(0).after(2),
];

/// The block, one line per figure, each ending in a newline.
pub fn render(attribution: &GcAttribution) -> String {
    let mut out = String::new();
    for (index, sentence) in attribution.verdict.text.split(". ").enumerate() {
        paragraph(&mut out, if index == 0 { LABEL } else { INDENT }, &format!("{sentence}."));
    }
    let tails = [("p99", &attribution.p99), ("p99.9", &attribution.p999), ("slowest 100", &attribution.slowest)];
    let mut rows = vec![
        ["tail", "requests", "overlapped GC", "chance", "other safepoints", "chance", "ms → without GC"]
            .map(String::from)
            .to_vec(),
    ];
    rows.extend(tails.iter().map(|(name, tail)| tail_row(name, tail)));
    for line in text_table::render(&COLUMNS, &rows) {
        let _ = writeln!(out, "{INDENT}{line}");
    }
    paragraph(&mut out, INDENT, &stops_line(&attribution.stops, attribution));
    paragraph(&mut out, INDENT, &clock_line(&attribution.clock));
    unexplained_lines(&mut out, attribution);
    out
}

/// `text` wrapped to the terminal's width, its first line after `first`, the others indented under it. A number
/// stays on the line of its unit ("3.5 %", "41 ms").
fn paragraph(out: &mut String, first: &str, text: &str) {
    const KEEP_TOGETHER: char = '\u{a0}';
    let glued = text.replace(" %", &format!("{KEEP_TOGETHER}%")).replace(" ms", &format!("{KEEP_TOGETHER}ms"));
    let options = textwrap::Options::new(WIDTH).initial_indent(first).subsequent_indent(INDENT);
    for line in textwrap::wrap(&glued, options) {
        let _ = writeln!(out, "{}", line.replace(KEEP_TOGETHER, " "));
    }
}

fn tail_row(name: &str, tail: &TailShare) -> Vec<String> {
    let examined = tail.examined.max(1) as f64;
    let requests = if tail.examined < tail.requests {
        format!("{} ({} kept)", grouped(tail.requests), grouped(tail.examined))
    } else {
        grouped(tail.requests)
    };
    let bound = |at_most: bool, ms: f64| format!("{}{}", if at_most { "≤ " } else { "" }, format_ms(ms));
    vec![
        name.to_string(),
        requests,
        format!("{} ({})", grouped(tail.gc_overlap), percent(tail.gc_overlap as f64 / examined)),
        percent(tail.gc_chance),
        format!("{} ({})", grouped(tail.safepoint_overlap), percent(tail.safepoint_overlap as f64 / examined)),
        percent(tail.safepoint_chance),
        format!(
            "{} → {}",
            bound(tail.percentile_at_most, tail.percentile_ms),
            bound(tail.recomputed_at_most, tail.recomputed_ms)
        ),
    ]
}

/// "stops in the run: 43 GC pauses (longest 12.30 ms), 12 other safepoints (longest 0.800 ms); GC 3.0 % of the
/// time, other safepoints 0.1 %" (the safepoints' share only when there were some: without `-Xlog:safepoint` the
/// log names none).
fn stops_line(stops: &StopCounts, attribution: &GcAttribution) -> String {
    let kinds = [
        (stops.gc_pauses, "GC pauses", stops.longest_gc_pause_ms),
        (stops.gc_stalls, "GC stalls", stops.longest_gc_stall_ms),
        (stops.safepoints, "other safepoints", stops.longest_safepoint_ms),
        (stops.throttled_periods, "periods held back by the CPU quota", stops.longest_throttled_ms),
    ];
    let listed: Vec<String> = kinds
        .iter()
        .filter(|(count, _, _)| *count > 0)
        .map(|(count, name, longest)| format!("{} {name} (longest {} ms)", grouped(*count), format_ms(*longest)))
        .collect();
    if listed.is_empty() {
        return "stops in the run: none".to_string();
    }
    let safepoints = if stops.safepoints > 0 {
        format!(", other safepoints {}", percent(attribution.safepoint_time_share))
    } else {
        String::new()
    };
    let quota = attribution
        .quota_time_share
        .map_or(String::new(), |share| format!(", held back by the CPU quota {}", percent(share)));
    format!(
        "stops in the run: {}; GC {} of the time{safepoints}{quota}",
        listed.join(", "),
        percent(attribution.gc_time_share)
    )
}

/// "clock: uptime from PerfData and the GC log, ± 0.210 ms (sources 0.050 ms apart); stops widened by it".
fn clock_line(clock: &UptimeClock) -> String {
    let source = match clock.source {
        ClockSource::PerfdataTicks => "PerfData's ticks",
        ClockSource::PerfdataVmStart => "PerfData's VM start",
        ClockSource::GcLog => "the GC log",
        ClockSource::PerfdataAndGcLog => "PerfData and the GC log",
    };
    let check = clock.cross_check_ms.map_or(String::new(), |apart| format!(" (sources {} ms apart)", format_ms(apart)));
    format!("clock: uptime from {source}, ± {} ms{check}; stops widened by it", format_ms(clock.error_ms))
}

fn unexplained_lines(out: &mut String, attribution: &GcAttribution) {
    if attribution.unexplained.is_empty() {
        return;
    }
    let _ =
        writeln!(out, "{INDENT}slowest requests that met no stop (look elsewhere: locks, the network, the generator):");
    let rows: Vec<Vec<String>> = attribution
        .unexplained
        .iter()
        .take(PRINTED_UNEXPLAINED)
        .map(|request| {
            vec![
                format!("at {:.3} s", request.at_s),
                format!("{} ms", format_ms(request.latency_ms)),
                request.request.clone(),
            ]
        })
        .collect();
    let columns = [Column::left(0), Column::right(0).after(2), Column::left(0).after(2)];
    for line in text_table::render(&columns, &rows) {
        let _ = writeln!(out, "{INDENT}  {line}");
    }
    if attribution.unexplained.len() > PRINTED_UNEXPLAINED {
        let _ = writeln!(out, "{INDENT}({} in the JSON)", attribution.unexplained.len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_number_is_never_wrapped_away_from_its_unit() {
        // 17 columns of indent and 100 of "a a …" leave room for "3.5" at the very end of the line, not for " %".
        let text = format!("{}3.5 % of the run and 41 ms", "a ".repeat(50));
        let mut out = String::new();
        paragraph(&mut out, INDENT, &text);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 2, "{out}");
        assert_eq!(lines[1].trim_start(), "3.5 % of the run and 41 ms");
    }
}
