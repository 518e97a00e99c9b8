//! How the report words the "is it the GC?" figures, for the analysis's sentences and the renderers' tables alike: a
//! verdict kind in a few words, a share as a percentage, a tail's latency with its bound, and the shares of a tail a
//! table shows. Pure formatters of values the model already holds; a leaf both `analysis` and `render` import.

use crate::attribution::{TailShare, VerdictKind};
use crate::load::format::format_ms;

/// The share of a tail's examined requests that overlapped GC (0–1); 0 for an empty tail.
pub fn overlap_share(tail: &TailShare) -> f64 {
    if tail.examined == 0 { 0.0 } else { tail.gc_overlap as f64 / tail.examined as f64 }
}

/// The share of a tail's examined requests that overlapped another safepoint and no GC stop (0–1).
pub fn safepoint_share(tail: &TailShare) -> f64 {
    if tail.examined == 0 { 0.0 } else { tail.safepoint_overlap as f64 / tail.examined as f64 }
}

/// A verdict kind in a few words, for tables and the terminal.
pub fn kind_words(kind: VerdictKind) -> &'static str {
    match kind {
        VerdictKind::Gc => "GC",
        VerdictKind::PartlyGc => "partly GC",
        VerdictKind::Safepoint => "safepoints",
        VerdictKind::NotGc => "not GC",
        VerdictKind::CannotTell => "cannot tell",
        VerdictKind::CpuQuota => "CPU quota",
        VerdictKind::PartlyCpuQuota => "partly CPU quota",
    }
}

/// A tail's latency (ms), `≤ ` before it when it is only an upper bound (the slow-request store did not keep the
/// request at that rank), as `jload bench --jvm` prints it.
pub fn bound_ms(at_most: bool, ms: f64) -> String {
    format!("{}{}", if at_most { "≤ " } else { "" }, format_ms(ms))
}

/// A cell's box in a few words, `512m / 0.5 CPU`: the memory limit as a JVM size (`g`, `m` or `k`, the largest
/// that divides it) and the CPU quota; None without either.
pub fn box_words(limit_bytes: Option<u64>, quota_cpus: Option<f64>) -> Option<String> {
    let memory = limit_bytes.map(|bytes| match bytes {
        bytes if bytes % (1 << 30) == 0 => format!("{}g", bytes >> 30),
        bytes if bytes % (1 << 20) == 0 => format!("{}m", bytes >> 20),
        bytes => format!("{}k", bytes.div_ceil(1 << 10)),
    });
    let cpu = quota_cpus.map(|cpus| format!("{cpus} CPU"));
    let parts: Vec<String> = memory.into_iter().chain(cpu).collect();
    (!parts.is_empty()).then(|| parts.join(" / "))
}

/// Bytes as whole MB (MiB, as every memory figure of jload), rounded up so that a need is never understated.
pub fn megabytes_up(bytes: u64) -> u64 {
    bytes.div_ceil(1 << 20)
}

/// A share (0–1) as a percentage for tables: whole numbers from 10 %, one decimal below (`94`, `3.2`, `0.4`).
pub fn percent(share: f64) -> String {
    let pct = share * 100.0;
    if pct >= 10.0 { format!("{pct:.0}") } else { format!("{pct:.1}") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentages_keep_two_significant_figures_below_ten() {
        assert_eq!(
            (percent(0.94), percent(0.032), percent(0.004), percent(0.0)),
            ("94".into(), "3.2".into(), "0.4".into(), "0.0".into())
        );
    }

    #[test]
    fn a_box_is_named_by_its_limit_as_a_jvm_size_and_its_quota() {
        assert_eq!(box_words(Some(512 << 20), Some(0.5)), Some("512m / 0.5 CPU".to_string()));
        assert_eq!(box_words(Some(2 << 30), None), Some("2g".to_string()));
        assert_eq!(box_words(Some(1536 << 10), None), Some("1536k".to_string()));
        assert_eq!(box_words(None, Some(1.5)), Some("1.5 CPU".to_string()));
        assert_eq!(box_words(None, None), None);
        assert_eq!(megabytes_up((444 << 20) + 1), 445);
    }
}
