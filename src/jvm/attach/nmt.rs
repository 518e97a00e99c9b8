//! A JVM's native memory by category: the text of `VM.native_memory summary` (Native Memory Tracking, the JVM
//! started with `-XX:NativeMemoryTracking=summary` or `detail`) parsed into reserved and committed bytes, total and
//! per category, and read through the attach protocol without spawning `jcmd`.
//!
//! Every category the JVM prints is kept by its own name, in its order (JDK 17 and 25 differ: 25 adds `GCCardSet`,
//! `Tracing`, `Object Monitors` …), so a category this parser has never seen is never dropped. jload asks with
//! `scale=b`: exact bytes, and no category left out for weighing less than the scale (at `scale=KB` the JVM omits
//! those under 1 KB). The other scales (KB, MB, GB) parse too, rounded as the JVM printed them. The detail lines under
//! a category (malloc, mmap, arena, thread and class counts, peaks) are not kept.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::{AttachError, AttachedJvm};

/// The diagnostic command jload sends: the summary, in bytes.
pub const SUMMARY_COMMAND: &str = "VM.native_memory summary scale=b";

/// The option jload adds to a JVM whose native memory it reads.
pub const TRACKING_OPTION: &str = "-XX:NativeMemoryTracking=summary";

const TRACKING_PREFIX: &str = "-XX:NativeMemoryTracking=";

/// Whether any of these JVM options sets Native Memory Tracking (to anything, `off` too): jload then adds none.
pub fn tracking_set(options: &[String]) -> bool {
    options.iter().any(|option| option.starts_with(TRACKING_PREFIX))
}

/// Whether a JVM started with these options tracks its native memory: the last `-XX:NativeMemoryTracking=` wins,
/// and `summary` and `detail` track.
pub fn tracking_on(options: &[String]) -> bool {
    let last = options.iter().rev().find_map(|option| option.strip_prefix(TRACKING_PREFIX));
    matches!(last, Some("summary" | "detail"))
}

const NOT_ENABLED: &str = "Native memory tracking is not enabled";

/// Reserved and committed bytes of the whole JVM or of one category.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Amount {
    pub reserved: u64,
    pub committed: u64,
}

/// One category of the summary, under the name the JVM gives it ("Java Heap", "Class", "Thread", "Other" …).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NmtCategory {
    pub name: String,
    pub reserved: u64,
    pub committed: u64,
}

/// A parsed `VM.native_memory summary`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NmtSummary {
    /// The `Total:` line.
    pub total: Amount,
    /// Bytes allocated through malloc, all categories (the `malloc:` line under the total).
    pub malloc: Option<u64>,
    /// Memory mapped by the JVM, all categories (the `mmap:` line under the total).
    pub mmap: Option<Amount>,
    /// Every category in the JVM's order.
    pub categories: Vec<NmtCategory>,
}

impl NmtSummary {
    /// The category of this name, as the JVM spells it.
    pub fn category(&self, name: &str) -> Option<&NmtCategory> {
        self.categories.iter().find(|category| category.name == name)
    }

    /// The categories' committed bytes added up (equal to the total's at `scale=b`).
    pub fn committed_sum(&self) -> u64 {
        self.categories.iter().map(|category| category.committed).sum()
    }

    /// The categories by committed bytes, largest first (the JVM's order among equals).
    pub fn largest_first(&self) -> Vec<&NmtCategory> {
        let mut categories: Vec<&NmtCategory> = self.categories.iter().collect();
        categories.sort_by_key(|category| std::cmp::Reverse(category.committed));
        categories
    }

    /// The committed memory in one line, largest categories first, in whole MiB under their short names
    /// ([`short_name`]); those under 1 MiB are summed as `other categories` (left out when they round to 0 MiB):
    /// `heap 384 committed, metaspace 52, threads 31, code 24, direct/other 8, GC 12, other categories 3`. The one
    /// wording of a breakdown.
    pub fn breakdown(&self) -> String {
        const MIB: u64 = 1 << 20;
        let (shown, small): (Vec<&NmtCategory>, Vec<&NmtCategory>) =
            self.largest_first().into_iter().partition(|category| category.committed >= MIB);
        let mut parts: Vec<String> = shown
            .iter()
            .enumerate()
            .map(|(index, category)| {
                let mib = (category.committed + MIB / 2) / MIB;
                let unit = if index == 0 { " committed" } else { "" };
                format!("{} {mib}{unit}", short_name(&category.name))
            })
            .collect();
        let rest = (small.iter().map(|category| category.committed).sum::<u64>() + MIB / 2) / MIB;
        if rest > 0 {
            parts.push(format!("other categories {rest}"));
        }
        parts.join(", ")
    }
}

/// The short name a breakdown gives a category of the JVM's: `Java Heap` → `heap`, `Metaspace` (class metadata
/// outside the class space) → `metaspace`, `Class` (the compressed class space and the classes' malloc) → `class
/// space`, `Other` (direct buffers mostly) → `direct/other`, …; a name it does not know stays as the JVM wrote it.
pub fn short_name(name: &str) -> &str {
    match name {
        "Java Heap" => "heap",
        "Class" => "class space",
        "Thread" => "threads",
        "Code" => "code",
        "GC" => "GC",
        "Compiler" => "compiler",
        "Internal" => "internal",
        "Other" => "direct/other",
        "Symbol" => "symbols",
        "Native Memory Tracking" => "NMT itself",
        "Shared class space" => "CDS archive",
        "Arena Chunk" => "arenas",
        "Metaspace" => "metaspace",
        "GCCardSet" => "GC card sets",
        "Object Monitors" => "monitors",
        other => other,
    }
}

/// Why a summary could not be had from a JVM's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NmtError {
    /// The JVM runs without Native Memory Tracking (no `-XX:NativeMemoryTracking=summary`).
    NotEnabled,
    /// The text has no `Total:` line: it is not a summary (its first line is kept).
    NoSummary { first_line: String },
    /// A line that should carry figures does not parse.
    Unparsable { line: String },
}

impl fmt::Display for NmtError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NmtError::NotEnabled => write!(
                f,
                "native memory tracking is not enabled in the JVM (start it with -XX:NativeMemoryTracking=summary)"
            ),
            NmtError::NoSummary { first_line } => {
                write!(f, "the JVM's reply is not a native memory summary: {first_line:?}")
            }
            NmtError::Unparsable { line } => write!(f, "cannot read the native memory summary line {line:?}"),
        }
    }
}

impl std::error::Error for NmtError {}

/// Why reading a JVM's summary failed: attaching, or its reply.
#[derive(Debug)]
pub enum NmtReadError {
    Attach(AttachError),
    Summary(NmtError),
}

impl fmt::Display for NmtReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NmtReadError::Attach(err) => err.fmt(f),
            NmtReadError::Summary(err) => err.fmt(f),
        }
    }
}

impl std::error::Error for NmtReadError {}

impl From<AttachError> for NmtReadError {
    fn from(err: AttachError) -> Self {
        NmtReadError::Attach(err)
    }
}

impl From<NmtError> for NmtReadError {
    fn from(err: NmtError) -> Self {
        NmtReadError::Summary(err)
    }
}

/// The JVM's native memory now, in bytes ([`SUMMARY_COMMAND`] over its attach socket).
pub fn read_summary(jvm: &AttachedJvm) -> Result<NmtSummary, NmtReadError> {
    let text = jvm.jcmd(SUMMARY_COMMAND)?;
    Ok(parse_summary(&text)?)
}

/// Parses the text of `VM.native_memory summary` at any scale (as the JVM sends it, or as `jcmd` prints it with its
/// `<pid>:` line first).
pub fn parse_summary(text: &str) -> Result<NmtSummary, NmtError> {
    if text.lines().any(|line| line.trim() == NOT_ENABLED) {
        return Err(NmtError::NotEnabled);
    }
    let mut total = None;
    let mut malloc = None;
    let mut mmap = None;
    let mut categories = Vec::new();
    for line in text.lines() {
        let trimmed = line.trim();
        let unparsable = || NmtError::Unparsable { line: trimmed.to_owned() };
        if let Some(rest) = trimmed.strip_prefix("Total:") {
            total = Some(amount_of(rest).ok_or_else(unparsable)?);
        } else if let Some(rest) = trimmed.strip_prefix("malloc:").filter(|_| categories.is_empty()) {
            let first = rest.split([' ', ',']).find(|word| !word.is_empty()).unwrap_or("");
            malloc = Some(bytes_of(first).ok_or_else(unparsable)?);
        } else if let Some(rest) = trimmed.strip_prefix("mmap:").filter(|_| categories.is_empty()) {
            mmap = Some(amount_of(rest).ok_or_else(unparsable)?);
        } else if let Some(rest) = trimmed.strip_prefix('-') {
            let (name, figures) = rest.split_once('(').ok_or_else(unparsable)?;
            let amount = amount_of(figures).ok_or_else(unparsable)?;
            let name = name.trim().to_owned();
            categories.push(NmtCategory { name, reserved: amount.reserved, committed: amount.committed });
        }
    }
    let first_line = || text.lines().find(|line| !line.trim().is_empty()).unwrap_or("").trim().to_owned();
    let total = total.ok_or_else(|| NmtError::NoSummary { first_line: first_line() })?;
    Ok(NmtSummary { total, malloc, mmap, categories })
}

/// `reserved=…` and `committed=…` among comma-separated `key=value` figures (`(` and `)` around them allowed).
fn amount_of(figures: &str) -> Option<Amount> {
    let mut reserved = None;
    let mut committed = None;
    for pair in figures.trim().trim_start_matches('(').trim_end_matches(')').split(',') {
        match pair.trim().split_once('=') {
            Some(("reserved", value)) => reserved = Some(bytes_of(value)?),
            Some(("committed", value)) => committed = Some(bytes_of(value)?),
            _ => {}
        }
    }
    Some(Amount { reserved: reserved?, committed: committed? })
}

/// `123`, `123KB`, `123MB` or `123GB` in bytes.
fn bytes_of(value: &str) -> Option<u64> {
    let value = value.trim();
    let digits_end = value.find(|c: char| !c.is_ascii_digit()).unwrap_or(value.len());
    let (digits, unit) = value.split_at(digits_end);
    let multiplier: u64 = match unit {
        "" | "B" => 1,
        "KB" => 1 << 10,
        "MB" => 1 << 20,
        "GB" => 1 << 30,
        _ => return None,
    };
    digits.parse::<u64>().ok()?.checked_mul(multiplier)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> String {
        let path = format!("{}/tests/fixtures/nmt/{name}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("{path}: {err}"))
    }

    fn names(summary: &NmtSummary) -> Vec<&str> {
        summary.categories.iter().map(|category| category.name.as_str()).collect()
    }

    #[test]
    fn jdk17_summary_in_bytes_has_every_category_and_adds_up() {
        let summary = parse_summary(&fixture("jdk17-summary-bytes.txt")).unwrap();
        assert_eq!(
            names(&summary),
            [
                "Java Heap",
                "Class",
                "Thread",
                "Code",
                "GC",
                "Compiler",
                "Internal",
                "Other",
                "Symbol",
                "Native Memory Tracking",
                "Shared class space",
                "Arena Chunk",
                "Tracing",
                "Arguments",
                "Module",
                "Safepoint",
                "Synchronization",
                "Serviceability",
                "Metaspace",
                "String Deduplication",
                "Object Monitors",
            ]
        );
        assert_eq!(summary.committed_sum(), summary.total.committed);
        let reserved: u64 = summary.categories.iter().map(|category| category.reserved).sum();
        assert_eq!(reserved, summary.total.reserved);
        let mmap = summary.mmap.unwrap();
        assert_eq!(summary.malloc.unwrap() + mmap.committed, summary.total.committed);
    }

    #[test]
    fn jdk25_summary_in_bytes_keeps_its_new_categories() {
        let summary = parse_summary(&fixture("jdk25-summary-bytes.txt")).unwrap();
        for name in ["GCCardSet", "Tracing", "Object Monitors", "Shared class space", "Metaspace"] {
            assert!(summary.category(name).is_some(), "{name} missing from {:?}", names(&summary));
        }
        assert_eq!(summary.committed_sum(), summary.total.committed);
        let mmap = summary.mmap.unwrap();
        assert_eq!(summary.malloc.unwrap() + mmap.committed, summary.total.committed);
    }

    #[test]
    fn jcmd_text_in_kilobytes_parses_to_bytes() {
        for name in ["jdk17-jcmd-summary-kb.txt", "jdk25-jcmd-summary-kb.txt"] {
            let summary = parse_summary(&fixture(name)).unwrap();
            let heap = summary.category("Java Heap").unwrap();
            assert_eq!(heap.reserved % 1024, 0, "{name}");
            assert!(heap.committed > 0 && heap.committed <= heap.reserved, "{name}: {heap:?}");
            assert_eq!(summary.total.reserved % 1024, 0, "{name}");
        }
    }

    #[test]
    fn the_figures_of_a_line_are_read_whatever_else_it_carries() {
        let line = "-        Shared class space (reserved=16384KB, committed=13908KB, readonly=0KB)\n";
        let summary = parse_summary(&format!("Total: reserved=2GB, committed=5MB\n{line}")).unwrap();
        assert_eq!(summary.total, Amount { reserved: 2 << 30, committed: 5 << 20 });
        let shared = &summary.categories[0];
        assert_eq!(
            (shared.name.as_str(), shared.reserved, shared.committed),
            ("Shared class space", 16 << 20, 13908 << 10)
        );
    }

    #[test]
    fn a_category_never_seen_is_kept_by_name() {
        let text = "Total: reserved=10, committed=4\n-   Warp Drive (reserved=10, committed=4)\n  (malloc=4 #1)\n";
        let summary = parse_summary(text).unwrap();
        assert_eq!(summary.categories, [NmtCategory { name: "Warp Drive".into(), reserved: 10, committed: 4 }]);
    }

    #[test]
    fn a_breakdown_is_largest_first_in_mib_under_short_names() {
        let mib = |n: u64| n << 20;
        let category = |name: &str, committed: u64| NmtCategory { name: name.into(), reserved: committed, committed };
        let summary = NmtSummary {
            total: Amount { reserved: 0, committed: mib(500) },
            malloc: None,
            mmap: None,
            categories: vec![
                category("Java Heap", mib(384)),
                category("Metaspace", mib(52)),
                category("Thread", mib(31)),
                category("Other", mib(8) + 100),
                category("GC", mib(12)),
                category("Warp Drive", mib(2)),
                category("Symbol", 700 << 10),
                category("Tracing", 400 << 10),
            ],
        };
        let mut tiny = summary.clone();
        tiny.categories.truncate(6);
        tiny.categories.push(category("Tracing", 400 << 10));
        assert_eq!(
            tiny.breakdown(),
            "heap 384 committed, metaspace 52, threads 31, GC 12, direct/other 8, Warp Drive 2",
            "what rounds to 0 MiB is left out"
        );
        assert_eq!(
            summary.breakdown(),
            "heap 384 committed, metaspace 52, threads 31, GC 12, direct/other 8, Warp Drive 2, other categories 1"
        );
    }

    #[test]
    fn the_last_tracking_option_decides() {
        let options = |list: &[&str]| list.iter().map(|option| option.to_string()).collect::<Vec<_>>();
        assert!(tracking_on(&options(&["-Xmx1g", TRACKING_OPTION])));
        assert!(tracking_on(&options(&["-XX:NativeMemoryTracking=detail"])));
        assert!(!tracking_on(&options(&[TRACKING_OPTION, "-XX:NativeMemoryTracking=off"])));
        assert!(!tracking_on(&options(&["-Xmx1g"])));
        assert!(tracking_set(&options(&["-XX:NativeMemoryTracking=off"])));
        assert!(!tracking_set(&options(&["-Xmx1g"])));
    }

    #[test]
    fn not_enabled_is_its_own_error() {
        assert_eq!(parse_summary("Native memory tracking is not enabled\n"), Err(NmtError::NotEnabled));
        assert_eq!(parse_summary("4242:\nNative memory tracking is not enabled\n"), Err(NmtError::NotEnabled));
    }

    #[test]
    fn text_without_a_total_or_with_bad_figures_is_refused() {
        assert_eq!(parse_summary("\nhello\n"), Err(NmtError::NoSummary { first_line: "hello".into() }));
        assert_eq!(
            parse_summary("Total: reserved=12XB, committed=1\n"),
            Err(NmtError::Unparsable { line: "Total: reserved=12XB, committed=1".into() })
        );
        assert_eq!(
            parse_summary("Total: reserved=1, committed=1\n- Heap reserved\n"),
            Err(NmtError::Unparsable { line: "- Heap reserved".into() })
        );
    }
}
