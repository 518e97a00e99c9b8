//! `nmt.csv`: the target JVM's native memory (NMT summary, [`super::nmt`]) read every few seconds and at each phase's
//! end, in long form: one row per category per read, so a category only one JDK has needs no column of its own. The
//! one definition of its columns: the runner writes rows with [`rows`], the report reads them with [`read`].
//! `read_ms` is how long the read took (the attach round trip), so a reader can tell jload's reads apart.

use super::nmt::{Amount, NmtCategory, NmtSummary};

/// One read of a JVM's NMT summary.
#[derive(Debug, Clone, PartialEq)]
pub struct NmtRead {
    /// When the read began, wall clock, milliseconds since the Unix epoch.
    pub unix_ms: u64,
    /// The JVM's uptime when the read began (the axis of `gcstat.csv` and the GC log), where known.
    pub uptime_s: Option<f64>,
    /// How long the read took, from connecting to the last byte of the reply.
    pub read_ms: f64,
    pub summary: NmtSummary,
}

/// The pseudo-category of a read's `Total:` line.
pub const TOTAL: &str = "Total";

/// The header line (without its newline).
pub fn header() -> &'static str {
    "unix_ms,uptime_s,read_ms,category,reserved_bytes,committed_bytes"
}

/// One read as lines (each without its newline): its total first, then each category in the JVM's order. A
/// category name never holds a comma (the JVM's names are words and spaces); one that did would be quoted.
pub fn rows(read: &NmtRead) -> Vec<String> {
    let uptime = read.uptime_s.map_or(String::new(), |uptime| format!("{uptime:.3}"));
    let line = |name: &str, reserved: u64, committed: u64| {
        let name = if name.contains(',') { format!("\"{}\"", name.replace('"', "")) } else { name.to_string() };
        format!("{},{uptime},{:.3},{name},{reserved},{committed}", read.unix_ms, read.read_ms)
    };
    let total = &read.summary.total;
    std::iter::once(line(TOTAL, total.reserved, total.committed))
        .chain(read.summary.categories.iter().map(|c| line(&c.name, c.reserved, c.committed)))
        .collect()
}

/// The reads of an `nmt.csv`, in order: rows of one `unix_ms` are one read. The `malloc` and `mmap` lines of a
/// summary are not kept in the file (None in what is read back).
pub fn read(text: &str) -> anyhow::Result<Vec<NmtRead>> {
    let mut lines = text.lines();
    if lines.next().map(str::trim) != Some(header()) {
        anyhow::bail!("nmt.csv: the first line is not `{}`", header());
    }
    let mut reads: Vec<NmtRead> = Vec::new();
    for (number, line) in lines.enumerate().filter(|(_, line)| !line.trim().is_empty()) {
        let bad = || anyhow::anyhow!("nmt.csv line {}: `{line}` is not {}", number + 2, header());
        let (unix_ms, rest) = line.split_once(',').ok_or_else(bad)?;
        let (uptime, rest) = rest.split_once(',').ok_or_else(bad)?;
        let (read_ms, rest) = rest.split_once(',').ok_or_else(bad)?;
        let (name, amounts) = rest
            .rsplit_once(',')
            .and_then(|(head, committed)| {
                let (name, reserved) = head.rsplit_once(',')?;
                Some((name.trim_matches('"'), (reserved.parse::<u64>().ok()?, committed.parse::<u64>().ok()?)))
            })
            .ok_or_else(bad)?;
        let unix_ms: u64 = unix_ms.parse().map_err(|_| bad())?;
        let (reserved, committed) = amounts;
        if reads.last().is_none_or(|last| last.unix_ms != unix_ms) {
            reads.push(NmtRead {
                unix_ms,
                uptime_s: uptime.parse().ok(),
                read_ms: read_ms.parse().map_err(|_| bad())?,
                summary: NmtSummary { total: Amount::default(), malloc: None, mmap: None, categories: Vec::new() },
            });
        }
        let summary = &mut reads.last_mut().expect("pushed").summary;
        if name == TOTAL {
            summary.total = Amount { reserved, committed };
        } else {
            summary.categories.push(NmtCategory { name: name.to_string(), reserved, committed });
        }
    }
    Ok(reads)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn a_read(unix_ms: u64) -> NmtRead {
        let category =
            |name: &str, reserved: u64, committed: u64| NmtCategory { name: name.into(), reserved, committed };
        NmtRead {
            unix_ms,
            uptime_s: Some(3.25),
            read_ms: 0.412,
            summary: NmtSummary {
                total: Amount { reserved: 1_500_000_000, committed: 200_000_000 },
                malloc: None,
                mmap: None,
                categories: vec![
                    category("Java Heap", 1_073_741_824, 134_217_728),
                    category("Object Monitors", 10, 10),
                ],
            },
        }
    }

    #[test]
    fn reads_come_back_as_written_one_per_unix_ms() {
        let mut text = format!("{}\n", header());
        for read in [a_read(1000), a_read(2000)] {
            for line in rows(&read) {
                text.push_str(&line);
                text.push('\n');
            }
        }
        assert_eq!(read(&text).unwrap(), vec![a_read(1000), a_read(2000)]);
        assert_eq!(rows(&a_read(1000))[1], "1000,3.250,0.412,Java Heap,1073741824,134217728");
    }

    #[test]
    fn a_line_that_is_not_a_row_names_its_number() {
        let text = format!("{}\n1000,1.0,0.5,Total,1,1\n1000,oops\n", header());
        let err = read(&text).unwrap_err().to_string();
        assert!(err.starts_with("nmt.csv line 3: `1000,oops`"), "{err}");
        assert!(read("a,b\n").is_err());
    }
}
