//! How the load's numbers are written in every output: milliseconds, integers with thousands separators, rates.

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

/// A rate as whole requests per second with thousands separators (`12,500`), as every ladder line shows it.
pub fn format_rate(rps: f64) -> String {
    grouped(rps.round() as u64)
}
