//! The printout of a load run on stdout (`jload bench`): throughput (achieved against requested), latency columns
//! (JMeter's aggregate plus wrk's), what was left waiting at the end, late sends by whose fault, the generator's CPU
//! and who limited the rate, errors by class, status codes, per-request rows for a mix, and threshold verdicts. A
//! clean run stays as compact as wrk's: those accounting lines appear only when they have something to say.

use std::fmt::Write;

use super::figures::threshold::Threshold;
use super::figures::{View, latency_figures, percentiles};
use super::format::{format_ms, grouped};
use super::record::recorder::SLIP_TOLERANCE_US;
use super::record::result::BenchResult;
use super::record::summary::LatencySummary;
use super::search::steady::Trend;
use crate::text_table::{self, Column};

/// The busiest generator thread's CPU is shown from this share of a core up (below it the generator had room to spare).
const SHOW_CPU_FROM_PCT: f64 = 50.0;

/// The latency line's header: the registry's printout columns (`figures::percentiles`), as wide as their values.
fn latency_header() -> String {
    latency_columns(percentiles(View::Printout).map(|percentile| percentile.header.to_string()))
}

fn latency_row(latency: &LatencySummary) -> String {
    latency_columns(percentiles(View::Printout).map(|percentile| format_ms((percentile.of)(latency))))
}

/// Latency columns eight characters wide, a space apart.
fn latency_columns(cells: impl Iterator<Item = String>) -> String {
    cells.map(|cell| format!("{cell:<8} ")).collect::<String>().trim_end().to_string()
}

/// The summary of `result` as printed after a run, one line per figure.
pub fn render(result: &BenchResult) -> String {
    let mut out = String::new();
    run_lines(&mut out, result);
    latency_lines(&mut out, result);
    connection_lines(&mut out, result);
    waiting_lines(&mut out, result);
    late_lines(&mut out, result);
    generator_lines(&mut out, result);
    error_lines(&mut out, result);
    per_request_table(&mut out, result);
    per_host_table(&mut out, result);
    threshold_lines(&mut out, result);
    out
}

/// What ran (URL, model, connections, threads), how much and how fast.
fn run_lines(out: &mut String, result: &BenchResult) {
    let model = match result.rate {
        Some(rate) => format!("open model at {rate} req/s"),
        None => "closed model".to_string(),
    };
    let interrupted = if result.interrupted { "  (interrupted)" } else { "" };
    let kb_per_s = |bytes: u64| if result.duration_s > 0.0 { bytes as f64 / 1024.0 / result.duration_s } else { 0.0 };
    let _ = writeln!(out, "jload bench {}", result.url);
    let _ = writeln!(out, "  {model}, {}, {} threads{interrupted}", result.describe_connections(), result.threads);
    let requested = match result.rate {
        Some(rate) if rate > 0.0 => format!(" of {rate} requested ({:.1} %)", result.rps * 100.0 / rate),
        _ => String::new(),
    };
    let _ = writeln!(
        out,
        "  Requests      {} in {:.2}s, {:.1} req/s{requested}",
        grouped(result.requests),
        result.duration_s,
        result.rps
    );
    let _ = writeln!(
        out,
        "  Transfer      in {:.1} KB/s, out {:.1} KB/s",
        kb_per_s(result.bytes_received),
        kb_per_s(result.bytes_sent)
    );
}

/// Latency percentiles, corrected and uncorrected side by side (both models; one unlabelled row for a closed-model
/// record written before the correction).
fn latency_lines(out: &mut String, result: &BenchResult) {
    let _ = writeln!(out, "  Latency (ms)  {}", latency_header());
    match (result.corrected_latency(), result.uncorrected_latency()) {
        (Some(corrected), Some(uncorrected)) => {
            let _ = writeln!(out, "  corrected     {}", latency_row(corrected));
            let _ = writeln!(out, "  uncorrected   {}", latency_row(uncorrected));
        }
        _ => {
            let _ = writeln!(out, "                {}", latency_row(&result.latency_ms));
        }
    }
}

/// How the connections were set up, apart from the requests' latency: how many, how long the TCP connect (and TLS
/// handshake) took, what TLS agreed on.
fn connection_lines(out: &mut String, result: &BenchResult) {
    let Some(setup) = result.connection_setup.as_ref().filter(|setup| setup.connections > 0) else { return };
    let what = if setup.tls.is_some() { "connect + TLS handshake" } else { "connect" };
    let time = &setup.time_ms;
    let _ = writeln!(
        out,
        "  Connections   {} set up, {what} p50 {} ms, p99 {} ms, max {} ms",
        grouped(setup.connections),
        format_ms(time.p50),
        format_ms(time.p99),
        format_ms(time.max)
    );
    if let Some(tls) = &setup.tls {
        let alpn = tls.alpn.as_deref().map_or(String::new(), |alpn| format!(", ALPN {alpn}"));
        let _ = writeln!(out, "  TLS           {} {}{alpn}", tls.version, tls.cipher);
    }
}

/// Requests left waiting at the end: never sent (open model), and unfinished when they reach into the latency's tail
/// (every run with a duration ends with requests in flight; a clean run's waited less than its p99).
fn waiting_lines(out: &mut String, result: &BenchResult) {
    if result.never_sent > 0 {
        let due = result.due.map_or(String::new(), |due| format!(" of {} due", grouped(due)));
        let _ = writeln!(
            out,
            "  Never sent    {}{due}: no free connection until the end; waited up to {} ms (in the latency as lower \
             bounds)",
            grouped(result.never_sent),
            format_ms(result.never_sent_longest_wait_ms)
        );
    }
    let reaches_the_tail = result.never_sent > 0 || result.unfinished_longest_wait_ms > result.latency_ms.p99;
    if result.unfinished > 0 && reaches_the_tail {
        let _ = writeln!(
            out,
            "  Unfinished    {}: sent, unanswered at the end; waited up to {} ms (in the latency as lower bounds)",
            grouped(result.unfinished),
            format_ms(result.unfinished_longest_wait_ms)
        );
    }
}

/// Open model: sends that left after their intended time, by whose fault — the target's (the connection was still
/// busy with an earlier request) or the generator's own (the connection was free, the generator's loop was late).
fn late_lines(out: &mut String, result: &BenchResult) {
    let Some(late) = result.late else { return };
    let slipped = result.generator.map_or(0, |health| health.slipped);
    if late == 0 && slipped == 0 {
        return;
    }
    let due = result.due.unwrap_or(result.requests).max(1) as f64;
    let mut parts = Vec::new();
    if late > 0 {
        parts.push(format!(
            "target {} ({:.2} %: connection still busy at the intended time)",
            grouped(late),
            late as f64 * 100.0 / due
        ));
    }
    if let Some(health) = result.generator.filter(|_| slipped > 0) {
        parts.push(format!(
            "generator {} ({:.2} %: over {} ms behind schedule on a free connection; slip p99 {} ms, max {} ms)",
            grouped(slipped),
            slipped as f64 * 100.0 / due,
            SLIP_TOLERANCE_US / 1000,
            format_ms(health.slip_p99_ms),
            format_ms(health.slip_max_ms)
        ));
    }
    let _ = writeln!(out, "  Late sends    {}", parts.join("; "));
}

/// The busiest generator thread's CPU when it was busy, and who limited the rate when someone did.
fn generator_lines(out: &mut String, result: &BenchResult) {
    if let Some(health) = result.generator.filter(|health| health.busiest_thread_cpu_pct >= SHOW_CPU_FROM_PCT) {
        let _ = writeln!(out, "  Generator     busiest thread at {:.0} % of a core", health.busiest_thread_cpu_pct);
    }
    if let Some(limit) = &result.limited_by {
        let _ = writeln!(out, "  Limited by    {}: {}", limit.side.name(), limit.reason);
    }
    if let Some(trend) = Trend::of_result(result).filter(Trend::changed) {
        let _ = writeln!(out, "  CHANGED       {}", trend.note());
    }
}

/// Errors by class, status codes and reconnects.
fn error_lines(out: &mut String, result: &BenchResult) {
    let errors = &result.errors;
    if errors.total == 0 {
        let _ = writeln!(out, "  Errors        none");
    } else {
        let share = result.error_pct().map_or(String::new(), |share| format!(" ({share:.2} %)"));
        let _ = writeln!(out, "  Errors        {}{share}: {}", grouped(errors.total), errors.describe());
        if let Some(reason) = result.connection_setup.as_ref().and_then(|setup| setup.tls_error.as_deref()) {
            let _ = writeln!(out, "  TLS failure   {reason}");
        }
    }
    if !result.status_codes.is_empty() {
        let codes: Vec<String> =
            result.status_codes.iter().map(|(code, count)| format!("{code}: {}", grouped(*count))).collect();
        let _ = writeln!(out, "  Status codes  {}", codes.join(", "));
    }
    if result.reconnects > 0 {
        let resent = if result.resent > 0 {
            format!(
                " ({} requests re-sent: the server had closed the connection before they reached it)",
                grouped(result.resent)
            )
        } else {
            String::new()
        };
        let _ = writeln!(out, "  Reconnects    {}{resent}", grouped(result.reconnects));
    }
}

/// The columns of the per-request table of a mix: name, requests, req/s, the registry's per-request latencies
/// (`figures::latency_figures`), errors.
fn per_request_columns() -> Vec<Column> {
    let latencies = latency_figures(View::PerRequest).map(|_| Column::right(8).after(2));
    [Column::left(4), Column::right(10).after(2), Column::right(10).after(2)]
        .into_iter()
        .chain(latencies)
        .chain([Column::right(8).after(2)])
        .collect()
}

/// The header of a per-request or per-host table: `first`, requests, req/s, the latencies, errors, then `last`.
fn per_request_header(first: &'static str, last: &[&'static str]) -> Vec<&'static str> {
    let latencies = percentiles(View::PerRequest).map(|percentile| percentile.header);
    [first, "requests", "req/s"].into_iter().chain(latencies).chain(["errors"]).chain(last.iter().copied()).collect()
}

/// One row per request of a mix.
fn per_request_table(out: &mut String, result: &BenchResult) {
    if result.per_request.is_empty() {
        return;
    }
    let header = per_request_header("name", &[]);
    let rows = result.per_request.iter().map(|request| {
        let figures = percentiles(View::PerRequest).map(|percentile| Some((percentile.of)(&request.latency_ms)));
        figure_cells(&request.name, request.requests, request.rps, figures, request.errors.total)
    });
    labelled_table(out, "Per request", &per_request_columns(), &header, rows);
}

/// One row per load generator of a merged result (see `super::merge`): its own figures, its busiest thread's
/// CPU (open model), and whose limit it hit.
fn per_host_table(out: &mut String, result: &BenchResult) {
    if result.hosts.is_empty() {
        return;
    }
    let header = per_request_header("host", &["cpu %", "limited by"]);
    let rows = result.hosts.iter().map(|host| {
        let figures = latency_figures(View::PerRequest).map(|(figure, _)| host.latency.get(figure.key));
        let mut cells = figure_cells(&host.label, host.requests, host.rps, figures, host.errors);
        cells.push(host.busiest_thread_cpu_pct.map_or("-".to_string(), |cpu| format!("{cpu:.0}")));
        cells.push(host.limited_by.as_ref().map_or("-".to_string(), |limit| limit.side.name().to_string()));
        cells
    });
    // The per-request table's columns, then the busiest thread's CPU and whose limit it was.
    let columns: Vec<Column> =
        per_request_columns().into_iter().chain([Column::right(6).after(2), Column::left(0).after(2)]).collect();
    labelled_table(out, "Per host", &columns, &header, rows);
}

/// The cells of a row of a per-request or per-host table: name, requests, req/s, the latencies in ms (`-` for one a
/// record lacks), errors.
fn figure_cells(
    name: &str,
    requests: u64,
    rps: f64,
    latencies: impl Iterator<Item = Option<f64>>,
    errors: u64,
) -> Vec<String> {
    let mut cells = vec![name.to_string(), grouped(requests), format!("{rps:.1}")];
    cells.extend(latencies.map(|ms| ms.map_or("-".to_string(), format_ms)));
    cells.push(errors.to_string());
    cells
}

/// A table whose first line carries `label` in the printout's left margin.
fn labelled_table(
    out: &mut String,
    label: &str,
    columns: &[Column],
    header: &[&str],
    rows: impl Iterator<Item = Vec<String>>,
) {
    let header = header.iter().map(|cell| cell.to_string()).collect();
    let table: Vec<Vec<String>> = std::iter::once(header).chain(rows).collect();
    for (index, line) in text_table::render(columns, &table).iter().enumerate() {
        let label = if index == 0 { label } else { "" };
        let _ = writeln!(out, "  {label:<14}{line}");
    }
}

fn threshold_lines(out: &mut String, result: &BenchResult) {
    for outcome in &result.thresholds {
        let verdict = if outcome.passed { "PASS" } else { "FAIL" };
        let unit = Threshold::unit(&outcome.expression);
        let actual = match outcome.actual {
            Some(actual) if unit == "ms" => format!("actual {}{unit}", format_ms(actual)),
            Some(actual) => format!("actual {actual:.2}{unit}"),
            None => "no value: nothing was attempted".to_string(),
        };
        let _ = writeln!(out, "  Threshold     {verdict} {} ({actual})", outcome.expression);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::record::named_figures::NamedFigures;
    use crate::load::record::outcomes::{Limit, Side};
    use crate::load::record::result::{GeneratorHealth, HostFigures, RequestResult};
    use crate::load::record::summary::ErrorSummary;

    /// A real phase record of a kv-service run (sweep25 fixture), as a load result.
    fn fixture() -> BenchResult {
        let path = "tests/fixtures/results/sweep25/cells/heap=64m,gc=Shenandoah/rep-1/get.json";
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    fn request(name: &str, requests: u64, rps: f64, p99: f64, errors: u64) -> RequestResult {
        RequestResult {
            name: name.to_string(),
            requests,
            rps,
            latency_ms: LatencySummary { p50: 0.5, p99, max: 1234.5, ..LatencySummary::default() },
            errors: ErrorSummary { total: errors, ..ErrorSummary::default() },
            status_codes: Default::default(),
        }
    }

    #[test]
    fn a_mix_gets_one_aligned_row_per_request() {
        let mut result = fixture();
        result.per_request = vec![request("get", 1234567, 4115.2, 12.345, 0), request("set", 12, 0.04, 250.0, 3)];
        let text = render(&result);
        let table: Vec<&str> = text
            .lines()
            .skip_while(|line| !line.starts_with("  Per request"))
            .take_while(|line| !line.starts_with("  Threshold"))
            .collect();
        assert_eq!(
            table,
            [
                "  Per request   name    requests       req/s       p50       p99       max    errors",
                "                get    1,234,567      4115.2     0.500     12.35      1234         0",
                "                set           12         0.0     0.500     250.0      1234         3",
            ]
        );
    }

    #[test]
    fn a_merged_result_gets_one_row_per_host_with_its_cpu_and_limit() {
        let host = |label: &str, requests, cpu, limited_by| HostFigures {
            label: label.to_string(),
            requests,
            rps: requests as f64 / 10.0,
            latency: NamedFigures(vec![("p50_ms".into(), 0.5), ("p99_ms".into(), 12.345), ("max_ms".into(), 40.0)]),
            errors: 2,
            busiest_thread_cpu_pct: cpu,
            limited_by,
        };
        let limit = Limit { side: Side::Generator, reason: String::new() };
        let mut result = fixture();
        result.hosts = vec![host("gen0.json", 20_000, Some(97.4), Some(limit)), host("gen1.json", 25_000, None, None)];
        let text = render(&result);
        let table: Vec<&str> = text.lines().skip_while(|line| !line.starts_with("  Per host")).collect();
        assert_eq!(
            table,
            [
                "  Per host      host         requests       req/s       p50       p99       max    errors   cpu %  \
                 limited by",
                "                gen0.json      20,000      2000.0     0.500     12.35     40.00         2      97  \
                 generator",
                "                gen1.json      25,000      2500.0     0.500     12.35     40.00         2       -  -",
            ]
        );
    }

    #[test]
    fn a_single_url_run_has_no_per_request_table_and_says_what_ran() {
        let text = render(&fixture());
        assert!(!text.contains("Per request"), "{text}");
        let first: Vec<&str> = text.lines().take(2).collect();
        assert_eq!(
            first,
            [
                "jload bench http://127.0.0.1:46367/random_get?keyRange=20000",
                "  closed model, 8 connections, 2 threads"
            ]
        );
    }

    fn latency_rows(result: &BenchResult) -> Vec<String> {
        let text = render(result);
        text.lines()
            .skip_while(|line| !line.starts_with("  Latency (ms)"))
            .skip(1)
            .take(2)
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn the_latency_line_shows_the_registrys_printout_columns_in_wrks_layout() {
        let latency = LatencySummary {
            min: 0.012,
            mean: 0.5,
            stdev: 1.25,
            p50: 0.4,
            p90: 0.9,
            p95: 1.5,
            p99: 12.345,
            p999: 123.4,
            max: 1234.5,
        };
        assert_eq!(latency_header(), "min      mean     stdev    p50      p90      p95      p99      p99.9    max");
        assert_eq!(
            latency_row(&latency),
            "0.012    0.500    1.250    0.400    0.900    1.500    12.35    123.4    1234"
        );
    }

    #[test]
    fn a_closed_model_run_shows_corrected_and_uncorrected_latency_side_by_side() {
        let mut result = fixture();
        result.latency_corrected_ms = Some(LatencySummary { p50: 0.5, p99: 180.0, max: 210.0, ..result.latency_ms });
        let rows = latency_rows(&result);
        assert!(rows[0].starts_with("  corrected     ") && rows[0].contains(" 180.0 "), "{rows:?}");
        assert_eq!(rows[1], format!("  uncorrected   {}", latency_row(&result.latency_ms)));
    }

    #[test]
    fn a_closed_model_record_from_before_the_correction_shows_one_unlabelled_row() {
        let result = fixture();
        assert_eq!(result.latency_corrected_ms, None);
        let rows = latency_rows(&result);
        assert_eq!(rows[0], format!("                {}", latency_row(&result.latency_ms)));
        assert!(rows[1].starts_with("  Errors"), "{rows:?}");
    }

    /// An open-model run at 1000 req/s that sustained it, with nothing left waiting and a generator at ease.
    fn open_model() -> BenchResult {
        let mut result = fixture();
        result.rate = Some(1000.0);
        (result.requests, result.duration_s, result.rps, result.due, result.late) =
            (10_000, 10.0, 1000.0, Some(10_000), Some(0));
        result.latency_uncorrected_ms = Some(result.latency_ms);
        result.generator = Some(GeneratorHealth { busiest_thread_cpu_pct: 12.0, ..GeneratorHealth::default() });
        result
    }

    fn lines_from(text: &str, label: &str) -> Vec<String> {
        text.lines().filter(|line| line.starts_with(label)).map(str::to_string).collect()
    }

    #[test]
    fn a_clean_open_model_run_shows_the_requested_rate_and_no_accounting_lines() {
        let text = render(&open_model());
        assert_eq!(
            lines_from(&text, "  Requests"),
            ["  Requests      10,000 in 10.00s, 1000.0 req/s of 1000 requested (100.0 %)"]
        );
        for label in ["  Never sent", "  Unfinished", "  Late sends", "  Generator", "  Limited by"] {
            assert!(lines_from(&text, label).is_empty(), "{label}: {text}");
        }
    }

    #[test]
    fn what_was_left_waiting_late_sends_and_the_limit_are_shown_when_they_happened() {
        let mut result = open_model();
        (result.requests, result.rps, result.never_sent, result.unfinished) = (8_500, 850.0, 1_490, 10);
        (result.never_sent_longest_wait_ms, result.unfinished_longest_wait_ms) = (1490.2, 1500.0);
        result.late = Some(200);
        let health = result.generator.as_mut().unwrap();
        (health.slipped, health.slip_p99_ms, health.slip_max_ms, health.busiest_thread_cpu_pct) = (30, 0.4, 2.5, 63.0);
        result.limited_by = Some(Limit { side: Side::Target, reason: "850 req/s achieved of 1000 requested".into() });
        let text = render(&result);
        let accounting: Vec<&str> = text
            .lines()
            .skip_while(|line| !line.starts_with("  Never sent"))
            .take_while(|line| !line.starts_with("  Errors"))
            .collect();
        assert_eq!(
            accounting,
            [
                "  Never sent    1,490 of 10,000 due: no free connection until the end; waited up to 1490 ms (in the \
                 latency as lower bounds)",
                "  Unfinished    10: sent, unanswered at the end; waited up to 1500 ms (in the latency as lower bounds)",
                "  Late sends    target 200 (2.00 %: connection still busy at the intended time); generator 30 (0.30 %: \
                 over 1 ms behind schedule on a free connection; slip p99 0.400 ms, max 2.500 ms)",
                "  Generator     busiest thread at 63 % of a core",
                "  Limited by    target: 850 req/s achieved of 1000 requested",
            ]
        );
    }

    #[test]
    fn unfinished_requests_of_a_clean_closed_run_are_not_shown() {
        let mut result = fixture();
        (result.unfinished, result.unfinished_longest_wait_ms) = (8, result.latency_ms.p99 / 2.0);
        assert!(lines_from(&render(&result), "  Unfinished").is_empty());
        result.unfinished_longest_wait_ms = result.latency_ms.p99 * 2.0;
        assert_eq!(lines_from(&render(&result), "  Unfinished").len(), 1);
    }

    #[test]
    fn invalid_responses_show_with_the_first_ones_reason_after_the_other_classes() {
        let mut result = fixture();
        result.errors.classes.read = 2;
        result.errors.classes.invalid_response = 5_940;
        result.errors.total = 5_942;
        result.errors.invalid_response_reason = Some("not an HTTP/1.x status line: 0x8f 0x1c …".to_string());
        let line = lines_from(&render(&result), "  Errors").remove(0);
        assert!(line.ends_with(": read 2, invalid response 5940: not an HTTP/1.x status line: 0x8f 0x1c …"), "{line}");
    }

    #[test]
    fn numbers_read_well() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(1234), "1,234");
        assert_eq!(grouped(1234567), "1,234,567");
        assert_eq!(format_ms(0.1234), "0.123");
        assert_eq!(format_ms(12.345), "12.35");
        assert_eq!(format_ms(1234.5), "1234");
    }
}
