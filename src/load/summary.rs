//! The human summary of a load run printed on stdout: throughput, latency columns (JMeter's aggregate plus wrk's),
//! errors by class, status codes, per-request rows for a mix, and threshold verdicts.

use std::fmt::Write;

use super::result::{BenchResult, LatencySummary};
use super::threshold::Threshold;

const LATENCY_HEADER: &str = "min      mean     stdev    p50      p90      p95      p99      p99.9    max";

fn latency_row(latency: &LatencySummary) -> String {
    [
        latency.min,
        latency.mean,
        latency.stdev,
        latency.p50,
        latency.p90,
        latency.p95,
        latency.p99,
        latency.p999,
        latency.max,
    ]
    .iter()
    .map(|value| format!("{:<8} ", format_ms(*value)))
    .collect::<String>()
    .trim_end()
    .to_string()
}

/// Milliseconds with three significant decimals at most.
pub fn format_ms(ms: f64) -> String {
    if ms >= 1000.0 {
        format!("{ms:.0}")
    } else if ms >= 100.0 {
        format!("{ms:.1}")
    } else if ms >= 10.0 {
        format!("{ms:.2}")
    } else {
        format!("{ms:.3}")
    }
}

/// An integer with thousands separators (`1,234,567`).
pub fn grouped(value: u64) -> String {
    let digits = value.to_string();
    let mut out = String::new();
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

pub fn render(result: &BenchResult) -> String {
    let mut out = String::new();
    let model = match result.rate {
        Some(rate) => format!("open model at {rate} req/s"),
        None => "closed model".to_string(),
    };
    let _ = writeln!(out, "jload bench {}", result.url);
    let _ = writeln!(
        out,
        "  {model}, {} connections, {} threads{}",
        result.connections,
        result.threads,
        if result.interrupted { "  (interrupted)" } else { "" }
    );
    let kb_per_s = |bytes: u64| if result.duration_s > 0.0 { bytes as f64 / 1024.0 / result.duration_s } else { 0.0 };
    let _ = writeln!(
        out,
        "  Requests      {} in {:.2}s, {:.1} req/s",
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
    let _ = writeln!(out, "  Latency (ms)  {LATENCY_HEADER}");
    let corrected_label = if result.rate.is_some() { "  corrected     " } else { "                " };
    let _ = writeln!(out, "{corrected_label}{}", latency_row(&result.latency_ms));
    if let Some(uncorrected) = &result.latency_uncorrected_ms {
        let _ = writeln!(out, "  uncorrected   {}", latency_row(uncorrected));
    }
    if let Some(late) = result.late {
        let share = if result.requests > 0 { late as f64 * 100.0 / result.requests as f64 } else { 0.0 };
        let _ = writeln!(
            out,
            "  Late sends    {} ({share:.2} %): sent after their intended time, connection busy",
            grouped(late)
        );
    }
    let errors = &result.errors;
    if errors.total == 0 {
        let _ = writeln!(out, "  Errors        none");
    } else {
        let share = result.error_pct().map_or(String::new(), |share| format!(" ({share:.2} %)"));
        let _ = writeln!(
            out,
            "  Errors        {}{share}: connect {}, timeout {}, read {}, write {}, status {}",
            grouped(errors.total),
            errors.connect,
            errors.timeout,
            errors.read,
            errors.write,
            errors.status
        );
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
    if !result.per_request.is_empty() {
        let width = result.per_request.iter().map(|request| request.name.len()).max().unwrap_or(4).max(4);
        let _ = writeln!(
            out,
            "  Per request   {:<width$}  {:>10}  {:>10}  {:>8}  {:>8}  {:>8}  {:>8}",
            "name", "requests", "req/s", "p50", "p99", "max", "errors"
        );
        for request in &result.per_request {
            let latency = &request.latency_ms;
            let _ = writeln!(
                out,
                "                {:<width$}  {:>10}  {:>10.1}  {:>8}  {:>8}  {:>8}  {:>8}",
                request.name,
                grouped(request.requests),
                request.rps,
                format_ms(latency.p50),
                format_ms(latency.p99),
                format_ms(latency.max),
                request.errors.total
            );
        }
    }
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
    out
}

#[cfg(test)]
mod tests {
    use super::*;

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
