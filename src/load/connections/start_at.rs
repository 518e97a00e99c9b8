//! A run that starts at a given wall-clock instant (`--start-at`), so that several load generators — other machines,
//! other pods — start together and their results line up second by second: the time as written, the rule on how far
//! ahead it may be, and the wait for it.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The furthest ahead a start may be: a start further away is a mistake (a wrong date, milliseconds given as seconds).
pub const LONGEST_WAIT: Duration = Duration::from_secs(24 * 3600);

/// A time as unix seconds with an optional fraction (`1767225600.5`) or RFC 3339 (`2026-01-01T00:00:00.5Z`).
pub fn parse(text: &str) -> Result<SystemTime, String> {
    let text = text.trim();
    let unix = || -> Option<SystemTime> {
        let (seconds, fraction) = text.split_once('.').unwrap_or((text, ""));
        let all_digits = |part: &str| part.bytes().all(|byte| byte.is_ascii_digit());
        if seconds.is_empty() || !all_digits(seconds) || !all_digits(fraction) || fraction.len() > 9 {
            return None;
        }
        let nanos: u32 = format!("{fraction:0<9}").parse().ok()?;
        Some(UNIX_EPOCH + Duration::new(seconds.parse().ok()?, nanos))
    };
    if let Some(time) = unix() {
        return Ok(time);
    }
    let time = chrono::DateTime::parse_from_rfc3339(text).map_err(|_| {
        format!("'{text}' is not a time: give unix seconds (1767225600.5) or RFC 3339 (2026-01-01T00:00:00.5Z)")
    })?;
    let since_epoch = time.timestamp_nanos_opt().and_then(|nanos| u64::try_from(nanos).ok());
    since_epoch.map(|nanos| UNIX_EPOCH + Duration::from_nanos(nanos)).ok_or_else(|| format!("'{text}' is before 1970"))
}

/// The rule: a start lies ahead of `now`, by at most [`LONGEST_WAIT`].
pub fn check(at: SystemTime, now: SystemTime) -> Result<(), String> {
    let shown = humantime::format_rfc3339_micros(at);
    match at.duration_since(now) {
        Err(past) => Err(format!(
            "the start time {shown} is {:.1} s in the past: give a time ahead (e.g. $(( $(date +%s) + 10 )))",
            past.duration().as_secs_f64()
        )),
        Ok(ahead) if ahead > LONGEST_WAIT => Err(format!(
            "the start time {shown} is {:.1} h ahead, more than 24 h: check the date (unix seconds, not milliseconds)",
            ahead.as_secs_f64() / 3600.0
        )),
        Ok(_) => Ok(()),
    }
}

/// The run's start instant on both clocks: at once when `at` is None, else `at` (slept until). Err(how late) when `at`
/// has already passed.
pub fn wait_until(at: Option<SystemTime>) -> Result<(Instant, SystemTime), Duration> {
    let (now, wall_now) = (Instant::now(), SystemTime::now());
    let Some(at) = at else { return Ok((now, wall_now)) };
    let ahead = at.duration_since(wall_now).map_err(|late| late.duration())?;
    let start = now + ahead;
    std::thread::sleep(start.saturating_duration_since(Instant::now()));
    Ok((start, at))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unix_seconds_and_rfc_3339_name_the_same_instant() {
        let expected = UNIX_EPOCH + Duration::new(1_767_225_600, 500_000_000);
        assert_eq!(parse("1767225600.5"), Ok(expected));
        assert_eq!(parse("2026-01-01T00:00:00.5Z"), Ok(expected));
        assert_eq!(parse("2026-01-01T01:00:00.5+01:00"), Ok(expected));
        assert_eq!(parse("1767225600"), Ok(UNIX_EPOCH + Duration::from_secs(1_767_225_600)));
    }

    #[test]
    fn text_that_is_no_time_is_refused_with_both_forms_named() {
        for text in ["", "soon", "12:00", "1.2.3", "-5"] {
            let err = parse(text).unwrap_err();
            assert!(err.contains("unix seconds") && err.contains("RFC 3339"), "{text}: {err}");
        }
    }

    #[test]
    fn a_start_in_the_past_or_over_a_day_ahead_is_refused() {
        let now = UNIX_EPOCH + Duration::from_secs(1_767_225_600);
        assert!(check(now - Duration::from_secs(3), now).unwrap_err().contains("3.0 s in the past"));
        assert!(check(now + LONGEST_WAIT + Duration::from_secs(1), now).unwrap_err().contains("more than 24 h"));
        assert_eq!(check(now + Duration::from_secs(10), now), Ok(()));
        assert_eq!(check(now + LONGEST_WAIT, now), Ok(()));
    }

    #[test]
    fn a_run_starts_at_its_instant_on_the_wall_clock() {
        let at = SystemTime::now() + Duration::from_millis(200);
        let (start, wall) = wait_until(Some(at)).unwrap();
        assert_eq!(wall, at);
        assert!(Instant::now() >= start, "slept until the start");
        assert!(wait_until(Some(SystemTime::now() - Duration::from_secs(1))).unwrap_err() >= Duration::from_secs(1));
    }
}
