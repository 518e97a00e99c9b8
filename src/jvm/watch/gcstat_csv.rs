//! `gcstat.csv`: a watched JVM sampled once an interval over its life, one row per sample. The one definition of its
//! columns: [`crate::jvm::watch`] writes rows with it, and the results directory's reader finds the heap columns by the
//! same names. Empty fields are figures the JVM does not have; older files may hold jstat's `-` instead.

use crate::jvm::perfdata::sampler::JvmSample;

/// A column: its header name and how a sample fills it.
struct Column {
    name: &'static str,
    value: fn(&JvmSample) -> String,
}

const UPTIME: &str = "uptime_s";
const EDEN_USED: &str = "eden_used_mb";
const OLD_USED: &str = "old_used_mb";
const OLD_CAPACITY: &str = "old_capacity_mb";
const RSS: &str = "rss_mb";

fn pct(value: Option<f64>) -> String {
    value.map_or(String::new(), |value| format!("{value:.2}"))
}

fn count(value: Option<u64>) -> String {
    value.map_or(String::new(), |value| value.to_string())
}

fn secs(value: Option<f64>) -> String {
    value.map_or(String::new(), |value| format!("{value:.3}"))
}

fn mb(bytes: Option<u64>) -> String {
    bytes.map_or(String::new(), |bytes| format!("{:.1}", bytes as f64 / 1048576.0))
}

const COLUMNS: &[Column] = &[
    Column { name: "unix_ms", value: |s| s.unix_ms.to_string() },
    Column { name: UPTIME, value: |s| format!("{:.3}", s.uptime_s) },
    Column { name: "S0", value: |s| pct(s.survivor0.used_pct) },
    Column { name: "S1", value: |s| pct(s.survivor1.used_pct) },
    Column { name: "E", value: |s| pct(s.eden.used_pct) },
    Column { name: "O", value: |s| pct(s.old.used_pct) },
    Column { name: "M", value: |s| pct(s.metaspace.used_pct) },
    Column { name: "CCS", value: |s| pct(s.ccs.used_pct) },
    Column { name: "YGC", value: |s| count(s.collections.ygc) },
    Column { name: "YGCT", value: |s| secs(s.collections.ygct_s) },
    Column { name: "FGC", value: |s| count(s.collections.fgc) },
    Column { name: "FGCT", value: |s| secs(s.collections.fgct_s) },
    Column { name: "CGC", value: |s| count(s.collections.cgc) },
    Column { name: "CGCT", value: |s| secs(s.collections.cgct_s) },
    Column { name: "GCT", value: |s| secs(s.collections.gct_s) },
    Column { name: EDEN_USED, value: |s| mb(s.eden.used_bytes) },
    Column { name: OLD_USED, value: |s| mb(s.old.used_bytes) },
    Column { name: OLD_CAPACITY, value: |s| mb(s.old.capacity_bytes) },
    Column { name: RSS, value: |s| mb(Some(s.rss_bytes)) },
    Column { name: "cpu_pct", value: |s| pct(s.cpu_pct) },
    Column { name: "threads", value: |s| s.threads.to_string() },
];

/// The header line (without its newline).
pub fn header() -> String {
    COLUMNS.iter().map(|column| column.name).collect::<Vec<_>>().join(",")
}

/// One sample as a line (without its newline).
pub fn row(sample: &JvmSample) -> String {
    COLUMNS.iter().map(|column| (column.value)(sample)).collect::<Vec<_>>().join(",")
}

/// Heap occupancy and the process's resident memory at a moment of JVM uptime: the columns of a row the report's
/// timelines and its memory section draw.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HeapSample {
    pub uptime_s: f64,
    pub eden_mb: Option<f64>,
    pub old_mb: Option<f64>,
    pub old_capacity_mb: Option<f64>,
    /// The JVM process's resident set (RSS), MiB.
    pub rss_mb: Option<f64>,
}

/// The heap and RSS columns of a `gcstat.csv`, found by their header names; an error without an uptime column.
pub fn read_heap_samples(text: &str) -> anyhow::Result<Vec<HeapSample>> {
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or_default().split(',').collect();
    let column = |name: &str| header.iter().position(|column| *column == name);
    let uptime = column(UPTIME).ok_or_else(|| anyhow::anyhow!("no {UPTIME} column"))?;
    let (eden, old, capacity, rss) = (column(EDEN_USED), column(OLD_USED), column(OLD_CAPACITY), column(RSS));
    let mut samples = Vec::new();
    for line in lines.filter(|line| !line.trim().is_empty()) {
        let fields: Vec<&str> = line.split(',').collect();
        let number = |index: Option<usize>| index.and_then(|index| fields.get(index)?.trim().parse::<f64>().ok());
        let Some(uptime_s) = number(Some(uptime)) else { continue };
        samples.push(HeapSample {
            uptime_s,
            eden_mb: number(eden),
            old_mb: number(old),
            old_capacity_mb: number(capacity),
            rss_mb: number(rss),
        });
    }
    Ok(samples)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heap_columns_are_found_by_name() {
        let text = "unix_ms,uptime_s,S0,E,O,eden_used_mb,old_used_mb,old_capacity_mb,rss_mb\n\
                    1,1.5,0,10,20,3.5,7.25,16.0,140.5\n2,2.5,0,10,20,-,8.0,16.0,\n";
        let samples = read_heap_samples(text).unwrap();
        assert_eq!(samples.len(), 2);
        assert_eq!(
            samples[0],
            HeapSample {
                uptime_s: 1.5,
                eden_mb: Some(3.5),
                old_mb: Some(7.25),
                old_capacity_mb: Some(16.0),
                rss_mb: Some(140.5)
            }
        );
        assert_eq!(samples[1].eden_mb, None, "jstat's '-' is no value");
        assert_eq!(samples[1].rss_mb, None, "an empty field is no value");
        assert!(read_heap_samples("a,b\n1,2\n").is_err());
    }

    #[test]
    fn the_header_names_every_column_once_and_the_reader_finds_its_columns_in_it() {
        let names: Vec<&str> = COLUMNS.iter().map(|column| column.name).collect();
        assert_eq!(header().split(',').collect::<Vec<_>>(), names);
        let mut unique = names.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), names.len());
        for name in [UPTIME, EDEN_USED, OLD_USED, OLD_CAPACITY, RSS] {
            assert!(names.contains(&name), "{name}");
        }
    }

    #[test]
    fn the_header_is_the_one_earlier_runs_wrote() {
        let fixture = include_str!("../../../tests/fixtures/results/sweep/cells/heap=-Xmx64m,gc=G1/rep-1/gcstat.csv");
        assert_eq!(fixture.lines().next(), Some(header().as_str()));
        assert!(read_heap_samples(fixture).unwrap().len() > 10);
    }
}
