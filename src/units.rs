//! Parsing of human-written quantities shared by the CLI and plan files: durations (`10s`, `2m`, `500ms`, `1.5s`).

use std::time::Duration;

use crate::error::{bad_input, negative_value};

/// Parse a duration such as `10s`, `2m`, `1h30m`, `500ms` or `1.5s`. `what` names the flag or key in the error.
pub fn parse_duration(what: &str, text: &str) -> anyhow::Result<Duration> {
    let trimmed = text.trim();
    if trimmed.starts_with('-') {
        return Err(bad_input(negative_value(what, trimmed)));
    }
    let parsed = humantime::parse_duration(trimmed).ok().or_else(|| parse_decimal_seconds(trimmed));
    match parsed {
        Some(duration) => Ok(duration),
        None => Err(bad_input(format!("{what}: '{text}' is not a duration; write it like 10s, 2m, 1h, 500ms or 1.5s"))),
    }
}

/// Accept a decimal number of a single unit (`1.5s`, `0.25m`), which humantime does not.
fn parse_decimal_seconds(text: &str) -> Option<Duration> {
    let split = text.find(|c: char| c.is_ascii_alphabetic())?;
    let (number, unit) = text.split_at(split);
    let value: f64 = number.trim().parse().ok()?;
    let seconds_per_unit = match unit {
        "ms" => 0.001,
        "s" => 1.0,
        "m" => 60.0,
        "h" => 3600.0,
        _ => return None,
    };
    let seconds = value * seconds_per_unit;
    (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_in_the_forms_users_write() {
        assert_eq!(parse_duration("-d", "10s").unwrap(), Duration::from_secs(10));
        assert_eq!(parse_duration("-d", "2m").unwrap(), Duration::from_secs(120));
        assert_eq!(parse_duration("-d", "500ms").unwrap(), Duration::from_millis(500));
        assert_eq!(parse_duration("-d", "1.5s").unwrap(), Duration::from_millis(1500));
        assert_eq!(parse_duration("-d", "1h30m").unwrap(), Duration::from_secs(5400));
    }

    #[test]
    fn bad_durations_name_the_flag() {
        let err = parse_duration("--timeout", "ten").unwrap_err().to_string();
        assert!(err.starts_with("--timeout: 'ten' is not a duration"), "{err}");
        assert!(parse_duration("-d", "-1s").is_err());
        assert!(parse_duration("-d", "5x").is_err());
    }
}
