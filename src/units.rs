//! Parsing of human-written quantities: durations (`10s`, `2m`, `500ms`, `1.5s`) from the CLI and plan files, and
//! sizes with the JVM's binary units (`512k`, `64m`, `2g`) in JVM options and GC logs.

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

/// The bytes in one JVM size unit: `k`, `m`, `g`, `t` (either case), binary as the JVM means them.
pub fn size_unit_bytes(unit: char) -> Option<f64> {
    let power = match unit.to_ascii_lowercase() {
        'k' => 1,
        'm' => 2,
        'g' => 3,
        't' => 4,
        _ => return None,
    };
    Some(1024f64.powi(power))
}

/// Parse a size as the JVM writes one: a whole number of bytes, or of `k`, `m`, `g` or `t` (binary, either case;
/// `512m`, `1.5g`). `what` names the key in the error.
pub fn parse_size(what: &str, text: &str) -> anyhow::Result<u64> {
    let trimmed = text.trim();
    let (number, scale) = match trimmed.chars().last().and_then(size_unit_bytes) {
        Some(scale) => (&trimmed[..trimmed.len() - 1], scale),
        None => (trimmed, 1.0),
    };
    let bytes =
        number.parse::<f64>().ok().filter(|value| value.is_finite() && *value >= 0.0).map(|value| value * scale);
    match bytes {
        Some(bytes) if !number.starts_with(['+', '-']) => Ok(bytes.round() as u64),
        _ => Err(bad_input(format!("{what}: '{text}' is not a size; write it like 512m, 2g or 1.5g"))),
    }
}

/// The first JVM-style size in a label (`-Xmx512m`, `je.maxOffHeapMemory=2g`, `64k`), in bytes. A size ends its word:
/// `-Xmx64mb2` has none.
pub fn first_jvm_size_bytes(label: &str) -> Option<f64> {
    let bytes = label.as_bytes();
    let mut index = 0;
    while index < bytes.len() {
        if bytes[index].is_ascii_digit() {
            let start = index;
            while index < bytes.len() && (bytes[index].is_ascii_digit() || bytes[index] == b'.') {
                index += 1;
            }
            let scale = bytes.get(index).and_then(|&unit| size_unit_bytes(char::from(unit)));
            let ends_word = !bytes.get(index + 1).is_some_and(|next| next.is_ascii_alphanumeric());
            if let Some(scale) = scale.filter(|_| ends_word) {
                return Some(label[start..index].parse::<f64>().ok()? * scale);
            }
        }
        index += 1;
    }
    None
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

    #[test]
    fn sizes_as_the_jvm_writes_them() {
        assert_eq!(parse_size("memory", "512m").unwrap(), 512 << 20);
        assert_eq!(parse_size("memory", "1.5G").unwrap(), 3 << 29);
        assert_eq!(parse_size("memory", "4096").unwrap(), 4096);
        assert_eq!(parse_size("memory", "64k").unwrap(), 64 << 10);
        for bad in ["lots", "512mb", "-1m", "", "m"] {
            let err = parse_size("memory", bad).unwrap_err().to_string();
            assert_eq!(err, format!("memory: '{bad}' is not a size; write it like 512m, 2g or 1.5g"));
        }
    }

    #[test]
    fn sizes_in_labels() {
        assert_eq!(first_jvm_size_bytes("-Xmx64m"), Some(64.0 * 1024.0 * 1024.0));
        assert_eq!(first_jvm_size_bytes("je.maxOffHeapMemory=2g"), Some(2.0 * 1024f64.powi(3)));
        assert_eq!(first_jvm_size_bytes("512K"), Some(512.0 * 1024.0));
        assert_eq!(first_jvm_size_bytes("1.5T"), Some(1.5 * 1024f64.powi(4)));
        assert_eq!(first_jvm_size_bytes("G1"), None);
        assert_eq!(first_jvm_size_bytes("5%"), None);
        assert_eq!(first_jvm_size_bytes("-Xmx64mb2"), None, "a size must end the word");
    }
}
