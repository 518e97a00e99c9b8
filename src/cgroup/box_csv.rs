//! `box.csv`: the target's cgroup box sampled once a second over its life, one row per sample, beside `gcstat.csv`.
//! The one definition of its columns: the runner writes rows with [`row`], the report reads them with [`read`].
//! Counters (`periods`, `throttled_periods`, `throttled_ms`, `oom_kills`, `peak_mb`) are the kernel's, counted since
//! the box was made; a reader takes differences between rows. Empty fields are figures the box does not keep.

use super::BoxSample;

/// One row: when, the JVM's uptime then (None before its PerfData could be read), and the box's figures.
#[derive(Debug, Clone, PartialEq)]
pub struct BoxRow {
    /// Wall clock, milliseconds since the Unix epoch.
    pub unix_ms: u64,
    /// The target JVM's uptime at the sample (the axis of `gcstat.csv` and the GC log), where known.
    pub uptime_s: Option<f64>,
    pub sample: BoxSample,
}

const HEADER: &[&str] = &[
    "unix_ms",
    "uptime_s",
    "limit_mb",
    "usage_mb",
    "peak_mb",
    "anon_mb",
    "file_mb",
    "oom_kills",
    "quota_cpus",
    "periods",
    "throttled_periods",
    "throttled_ms",
];

const MIB: f64 = 1048576.0;

/// The header line (without its newline).
pub fn header() -> String {
    HEADER.join(",")
}

/// One row as a line (without its newline). Memory in MiB with three decimals (4 KiB steps), times in ms.
pub fn row(row: &BoxRow) -> String {
    let mb = |bytes: Option<u64>| bytes.map_or(String::new(), |bytes| format!("{:.3}", bytes as f64 / MIB));
    let number = |value: Option<u64>| value.map_or(String::new(), |value| value.to_string());
    let memory = row.sample.memory.as_ref();
    let cpu = row.sample.cpu.as_ref();
    let fields = [
        row.unix_ms.to_string(),
        row.uptime_s.map_or(String::new(), |uptime| format!("{uptime:.3}")),
        mb(memory.and_then(|m| m.limit)),
        mb(memory.map(|m| m.usage)),
        mb(memory.and_then(|m| m.peak)),
        mb(memory.map(|m| m.anon)),
        mb(memory.map(|m| m.file)),
        number(memory.and_then(|m| m.oom_kills)),
        cpu.and_then(|c| c.quota_cpus).map_or(String::new(), |quota| format!("{quota}")),
        number(cpu.map(|c| c.periods)),
        number(cpu.map(|c| c.throttled_periods)),
        cpu.map_or(String::new(), |c| format!("{:.3}", c.throttled_ns as f64 / 1e6)),
    ];
    fields.join(",")
}

/// The rows of a `box.csv`, columns found by their header names; an error without a `unix_ms` column. A row's
/// memory figures are `None` where its usage is empty, its CPU figures where its periods are.
pub fn read(text: &str) -> anyhow::Result<Vec<BoxRow>> {
    use super::{CpuFigures, MemoryFigures};
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or_default().split(',').collect();
    let column = |name: &str| header.iter().position(|column| *column == name);
    let unix_ms = column("unix_ms").ok_or_else(|| anyhow::anyhow!("box.csv: no unix_ms column"))?;
    let mut rows = Vec::new();
    for line in lines.filter(|line| !line.trim().is_empty()) {
        let fields: Vec<&str> = line.split(',').collect();
        let field = |name: &str| column(name).and_then(|index| fields.get(index)).map(|field| field.trim());
        let float = |name: &str| field(name).and_then(|field| field.parse::<f64>().ok());
        let int = |name: &str| field(name).and_then(|field| field.parse::<u64>().ok());
        let bytes = |name: &str| float(name).map(|mb| (mb * MIB).round() as u64);
        let Some(unix_ms) = fields.get(unix_ms).and_then(|field| field.trim().parse().ok()) else { continue };
        let memory = bytes("usage_mb").map(|usage| MemoryFigures {
            limit: bytes("limit_mb"),
            usage,
            peak: bytes("peak_mb"),
            oom_kills: int("oom_kills"),
            anon: bytes("anon_mb").unwrap_or(0),
            file: bytes("file_mb").unwrap_or(0),
        });
        let cpu = int("periods").map(|periods| CpuFigures {
            quota_cpus: float("quota_cpus"),
            periods,
            throttled_periods: int("throttled_periods").unwrap_or(0),
            throttled_ns: float("throttled_ms").map_or(0, |ms| (ms * 1e6).round() as u64),
        });
        rows.push(BoxRow { unix_ms, uptime_s: float("uptime_s"), sample: BoxSample { memory, cpu } });
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cgroup::{CpuFigures, MemoryFigures};

    fn sample_row() -> BoxRow {
        let memory = MemoryFigures {
            limit: Some(512 << 20),
            usage: 300 << 20,
            peak: Some(310 << 20),
            oom_kills: Some(0),
            anon: 290 << 20,
            file: 10 << 20,
        };
        let cpu =
            CpuFigures { quota_cpus: Some(0.5), periods: 120, throttled_periods: 40, throttled_ns: 1_500_000_000 };
        BoxRow {
            unix_ms: 1_700_000_000_123,
            uptime_s: Some(12.5),
            sample: BoxSample { memory: Some(memory), cpu: Some(cpu) },
        }
    }

    #[test]
    fn a_row_reads_back_as_written() {
        let text = format!("{}\n{}\n", header(), row(&sample_row()));
        assert_eq!(read(&text).unwrap(), vec![sample_row()]);
    }

    #[test]
    fn a_box_without_a_cpu_controller_leaves_its_columns_empty_and_reads_back_without_cpu_figures() {
        let mut without_cpu = sample_row();
        without_cpu.sample.cpu = None;
        without_cpu.uptime_s = None;
        let line = row(&without_cpu);
        assert_eq!(line, "1700000000123,,512.000,300.000,310.000,290.000,10.000,0,,,,");
        let rows = read(&format!("{}\n{line}\n", header())).unwrap();
        assert_eq!(rows, vec![without_cpu]);
    }

    #[test]
    fn a_file_without_unix_ms_is_refused() {
        assert!(read("a,b\n1,2\n").is_err());
    }
}
