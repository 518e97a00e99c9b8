//! The number formats of HotSpot's GC log messages: decimals with a dot or a comma (the C library locale decides),
//! sizes with a unit (`17M`, `2142K`), durations (`12.369ms`, `0.025s`) and heap changes (`17M->4M(61M)`).

use crate::units::size_unit_bytes;

/// A decimal number with at most one `.` or `,` as decimal separator, no sign, no exponent: `12.369`, `12,369`, `7`.
pub fn parse_decimal(text: &str) -> Option<f64> {
    let mut separators = 0;
    for c in text.chars() {
        match c {
            '0'..='9' => {}
            '.' | ',' => separators += 1,
            _ => return None,
        }
    }
    let starts_with_digit = text.starts_with(|c: char| c.is_ascii_digit());
    let ends_with_digit = text.ends_with(|c: char| c.is_ascii_digit());
    if separators > 1 || !starts_with_digit || !ends_with_digit {
        return None;
    }
    text.replace(',', ".").parse().ok()
}

/// A duration as the GC logs print it, in milliseconds: `12.369ms`, `0.025s`, `850us`, `4487ns`.
pub fn parse_duration_ms(text: &str) -> Option<f64> {
    const UNITS: [(&str, f64); 4] = [("ms", 1.0), ("us", 1e-3), ("ns", 1e-6), ("s", 1e3)];
    UNITS.iter().find_map(|(unit, to_ms)| {
        let number = text.strip_suffix(unit)?;
        parse_decimal(number).map(|value| value * to_ms)
    })
}

const MIB: f64 = 1024.0 * 1024.0;

/// A size with a binary unit, in MB (MiB, as the JVM means it): `17M`, `2142K`, `1G`, `512B`.
pub fn parse_size_mb(text: &str) -> Option<f64> {
    let unit = text.chars().last()?;
    let number = &text[..text.len() - unit.len_utf8()];
    // GC logs write the unit in capitals; `B` is bytes.
    let unit_bytes = match unit {
        'B' => 1.0,
        'K' | 'M' | 'G' | 'T' => size_unit_bytes(unit)?,
        _ => return None,
    };
    parse_decimal(number).map(|value| value * unit_bytes / MIB)
}

/// Heap (or generation) occupancy before and after a collection, and the capacity after it when the line has it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HeapChange {
    pub before_mb: f64,
    pub after_mb: f64,
    pub total_mb: Option<f64>,
}

/// `17M->4M(61M)` (Serial, Parallel, G1, Shenandoah), `2142K(43712K)->4306K(43712K)` (generation lines) and
/// `8M(12%)->8M(12%)` (ZGC: the parentheses hold a share of the heap, not a capacity).
pub fn parse_heap_change(text: &str) -> Option<HeapChange> {
    let (before, after) = text.split_once("->")?;
    let (before_mb, _) = size_with_note(before)?;
    let (after_mb, after_note) = size_with_note(after)?;
    let total_mb = match after_note {
        Some(note) if note.ends_with('%') => None,
        Some(note) => Some(parse_size_mb(note)?),
        None => None,
    };
    Some(HeapChange { before_mb, after_mb, total_mb })
}

/// `17M` or `17M(61M)` / `8M(12%)`: the size and what stands in parentheses after it.
fn size_with_note(text: &str) -> Option<(f64, Option<&str>)> {
    match text.split_once('(') {
        Some((size, rest)) => Some((parse_size_mb(size)?, Some(rest.strip_suffix(')')?))),
        None => Some((parse_size_mb(text)?, None)),
    }
}

/// `8->23`: G1 region counts before and after.
pub fn parse_region_change(text: &str) -> Option<(f64, f64)> {
    let (before, after) = text.trim().split_once("->")?;
    Some((parse_decimal(before)?, parse_decimal(after)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_take_a_dot_or_a_comma() {
        assert_eq!(parse_decimal("12.369"), Some(12.369));
        assert_eq!(parse_decimal("12,369"), Some(12.369));
        assert_eq!(parse_decimal("7"), Some(7.0));
        for bad in ["", ".5", "5.", "1.2.3", "1,2.3", "-1", "1e3", "12 3"] {
            assert_eq!(parse_decimal(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn durations_convert_to_milliseconds() {
        assert_eq!(parse_duration_ms("12.369ms"), Some(12.369));
        assert_eq!(parse_duration_ms("12,745ms"), Some(12.745));
        assert_eq!(parse_duration_ms("0.025s"), Some(25.0));
        assert_eq!(parse_duration_ms("850us"), Some(0.85));
        assert_eq!(parse_duration_ms("4487ns"), Some(0.004487));
        assert_eq!(parse_duration_ms("12.3"), None);
        assert_eq!(parse_duration_ms("ms"), None);
    }

    #[test]
    fn sizes_convert_to_megabytes() {
        assert_eq!(parse_size_mb("17M"), Some(17.0));
        assert_eq!(parse_size_mb("2048K"), Some(2.0));
        assert_eq!(parse_size_mb("1G"), Some(1024.0));
        assert_eq!(parse_size_mb("0B"), Some(0.0));
        assert_eq!(parse_size_mb("17"), None);
        assert_eq!(parse_size_mb(""), None);
        assert_eq!(parse_size_mb("M"), None);
        assert_eq!(parse_size_mb("1é"), None);
    }

    #[test]
    fn heap_changes_of_every_collector() {
        assert_eq!(
            parse_heap_change("17M->4M(61M)"),
            Some(HeapChange { before_mb: 17.0, after_mb: 4.0, total_mb: Some(61.0) })
        );
        assert_eq!(
            parse_heap_change("2048K(43712K)->4096K(43712K)"),
            Some(HeapChange { before_mb: 2.0, after_mb: 4.0, total_mb: Some(42.6875) })
        );
        assert_eq!(
            parse_heap_change("8M(12%)->10M(15%)"),
            Some(HeapChange { before_mb: 8.0, after_mb: 10.0, total_mb: None })
        );
        assert_eq!(parse_heap_change("17M->4M"), Some(HeapChange { before_mb: 17.0, after_mb: 4.0, total_mb: None }));
        for bad in ["17M->", "->4M", "17M-4M", "17M->4M(61M", "17M->4M(abc)"] {
            assert_eq!(parse_heap_change(bad), None, "{bad:?}");
        }
    }
}
