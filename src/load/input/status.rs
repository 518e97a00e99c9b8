//! Which response status codes count as success: 2xx and 3xx by default, or a list the user gives
//! (`--ok-status 200-299,404` when a 404 is a normal answer, such as a cache miss).

use serde::{Deserialize, Serialize};

use crate::error::bad_input;

/// A set of status codes (0..=999) that count as success.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct OkStatus {
    text: String,
    ok: Vec<bool>,
}

impl Default for OkStatus {
    fn default() -> Self {
        OkStatus::parse("200-399").expect("valid default")
    }
}

impl OkStatus {
    /// Parse `200-299,404`: codes and inclusive ranges, comma-separated.
    pub fn parse(text: &str) -> anyhow::Result<OkStatus> {
        let mut ok = vec![false; 1000];
        let invalid = || bad_input(format!("ok-status '{text}': write codes and ranges like 200-299,404 (100 to 999)"));
        for part in text.split(',').map(str::trim) {
            let (low, high) = part.split_once('-').unwrap_or((part, part));
            let low: usize = low.trim().parse().map_err(|_| invalid())?;
            let high: usize = high.trim().parse().map_err(|_| invalid())?;
            if !(100..=999).contains(&low) || !(100..=999).contains(&high) || low > high {
                return Err(invalid());
            }
            ok[low..=high].iter_mut().for_each(|code| *code = true);
        }
        Ok(OkStatus { text: text.trim().to_string(), ok })
    }

    pub fn is_ok(&self, status: u16) -> bool {
        self.ok.get(usize::from(status)).copied().unwrap_or(false)
    }
}

impl TryFrom<String> for OkStatus {
    type Error = String;
    fn try_from(text: String) -> Result<Self, String> {
        OkStatus::parse(&text).map_err(|err| err.to_string())
    }
}

impl From<OkStatus> for String {
    fn from(status: OkStatus) -> String {
        status.text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_is_2xx_and_3xx() {
        let ok = OkStatus::default();
        assert!(ok.is_ok(200) && ok.is_ok(304) && !ok.is_ok(404) && !ok.is_ok(500) && !ok.is_ok(0));
    }

    #[test]
    fn lists_and_ranges() {
        let ok = OkStatus::parse("200-299, 404").unwrap();
        assert!(ok.is_ok(204) && ok.is_ok(404) && !ok.is_ok(301) && !ok.is_ok(405));
        for bad in ["", "abc", "299-200", "99", "200-1000"] {
            assert!(OkStatus::parse(bad).is_err(), "{bad}");
        }
    }
}
