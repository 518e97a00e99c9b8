//! jstat's `-gcutil` and `-gc` options: the PerfData counters they read, their formulas (OpenJDK's
//! `sun/tools/jstat/resources/jstat_options`, identical in JDK 17 and 25 for these two options) and jstat's
//! formatting, reproduced exactly:
//! - a counter the JVM does not publish is NaN, and so is a division by zero (`Operator.DIVIDE`); NaN prints "-";
//! - except in a `required` column (GCT), where a missing counter counts as 0 (`ExpressionResolver`);
//! - numbers are `java.text.DecimalFormat` patterns ("0.00", "0.000", "0.0", "0": half-even rounding of the exact
//!   binary value, like Rust's `{:.N}`), right-aligned in the column width, columns separated by one space;
//! - headers are centred (`HeaderClosure` with `^NAME^` anchors, `Alignment.CENTER`).

use super::{Counter, Snapshot};

/// A memory space jstat reports on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    Survivor0,
    Survivor1,
    Eden,
    Old,
    Metaspace,
    CompressedClass,
}

impl Space {
    pub const ALL: [Space; 6] =
        [Space::Survivor0, Space::Survivor1, Space::Eden, Space::Old, Space::Metaspace, Space::CompressedClass];

    /// The PerfData counters `<prefix>.capacity` and `<prefix>.used` (bytes) of this space.
    fn counter_names(self) -> [&'static str; 2] {
        match self {
            Space::Survivor0 => ["sun.gc.generation.0.space.1.capacity", "sun.gc.generation.0.space.1.used"],
            Space::Survivor1 => ["sun.gc.generation.0.space.2.capacity", "sun.gc.generation.0.space.2.used"],
            Space::Eden => ["sun.gc.generation.0.space.0.capacity", "sun.gc.generation.0.space.0.used"],
            Space::Old => ["sun.gc.generation.1.space.0.capacity", "sun.gc.generation.1.space.0.used"],
            Space::Metaspace => ["sun.gc.metaspace.capacity", "sun.gc.metaspace.used"],
            Space::CompressedClass => ["sun.gc.compressedclassspace.capacity", "sun.gc.compressedclassspace.used"],
        }
    }
}

/// jstat matches collectors by ordinal: 0 = young (YGC), 1 = full (FGC), 2 = concurrent cycle pauses (CGC).
pub const COLLECTORS: usize = 3;

/// `sun.gc.collector.N.invocations` and `sun.gc.collector.N.time` (ticks of `sun.os.hrt.frequency`).
fn collector_counter_names(ordinal: usize) -> [&'static str; 2] {
    const NAMES: [[&str; 2]; COLLECTORS] = [
        ["sun.gc.collector.0.invocations", "sun.gc.collector.0.time"],
        ["sun.gc.collector.1.invocations", "sun.gc.collector.1.time"],
        ["sun.gc.collector.2.invocations", "sun.gc.collector.2.time"],
    ];
    NAMES[ordinal]
}

const FREQUENCY: &str = "sun.os.hrt.frequency";

/// Raw values of the counters read by jstat -gcutil / -gc; None where the JVM does not publish the counter.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GcCounters {
    /// Per [`Space::ALL`] index: (capacity, used) in bytes.
    pub spaces: [(Option<i64>, Option<i64>); 6],
    /// Per collector ordinal: (invocations, time in ticks).
    pub collectors: [(Option<i64>, Option<i64>); COLLECTORS],
    /// Ticks per second of the collector times.
    pub frequency: Option<i64>,
}

/// The counters of [`GcCounters`], located once in a snapshot and then read by offset.
#[derive(Clone, Copy, Debug, Default)]
pub struct GcCounterHandles {
    spaces: [(Option<Counter>, Option<Counter>); 6],
    collectors: [(Option<Counter>, Option<Counter>); COLLECTORS],
    frequency: Option<Counter>,
}

impl GcCounterHandles {
    pub fn locate(snapshot: &Snapshot) -> Self {
        let pair = |[a, b]: [&str; 2]| (snapshot.counter(a), snapshot.counter(b));
        GcCounterHandles {
            spaces: Space::ALL.map(|space| pair(space.counter_names())),
            collectors: [0, 1, 2].map(|ordinal| pair(collector_counter_names(ordinal))),
            frequency: snapshot.counter(FREQUENCY),
        }
    }

    pub fn read(&self, snapshot: &Snapshot) -> GcCounters {
        let value = |counter: Option<Counter>| counter.and_then(|c| snapshot.long(c));
        let pair = |(a, b): (Option<Counter>, Option<Counter>)| (value(a), value(b));
        GcCounters {
            spaces: self.spaces.map(pair),
            collectors: self.collectors.map(pair),
            frequency: value(self.frequency),
        }
    }
}

/// jstat's `Operator.DIVIDE`: division by zero is NaN, not infinity.
fn divide(x: f64, y: f64) -> f64 {
    if y == 0.0 { f64::NAN } else { x / y }
}

/// A counter as jstat's expression evaluator sees it: a missing one is NaN.
fn number(value: Option<i64>) -> f64 {
    value.map_or(f64::NAN, |v| v as f64)
}

impl GcCounters {
    fn space(&self, space: Space) -> (Option<i64>, Option<i64>) {
        self.spaces[space as usize]
    }

    pub fn capacity(&self, space: Space) -> Option<i64> {
        self.space(space).0
    }

    pub fn used(&self, space: Space) -> Option<i64> {
        self.space(space).1
    }

    pub fn invocations(&self, ordinal: usize) -> Option<i64> {
        self.collectors[ordinal].0
    }

    /// The gcutil percentage `(1-((capacity - used)/capacity)) * 100`, evaluated in jstat's order; NaN for "-".
    pub fn percent_used(&self, space: Space) -> f64 {
        let (capacity, used) = (number(self.capacity(space)), number(self.used(space)));
        (1.0 - divide(capacity - used, capacity)) * 100.0
    }

    /// `sun.gc.collector.N.time/sun.os.hrt.frequency`: seconds; NaN for "-".
    pub fn seconds(&self, ordinal: usize) -> f64 {
        divide(number(self.collectors[ordinal].1), number(self.frequency))
    }

    /// GCT: `(time0 + time1 + time2)/frequency`, a `required` column where a missing counter counts as 0.
    pub fn total_seconds(&self) -> f64 {
        let ticks = self.collectors.iter().fold(0.0, |sum, (_, time)| sum + time.map_or(0.0, |t| t as f64));
        divide(ticks, self.frequency.map_or(0.0, |f| f as f64))
    }

    fn count(&self, ordinal: usize) -> f64 {
        number(self.invocations(ordinal))
    }

    fn kilobytes(value: Option<i64>) -> f64 {
        number(value) / 1024.0
    }
}

/// One output column: a centred header, a width, a number of decimals, and how to compute its value.
pub struct Column<T> {
    pub header: &'static str,
    pub width: usize,
    pub decimals: usize,
    pub value: fn(&T) -> f64,
}

impl<T> Column<T> {
    /// jstat widens a column to fit its DecimalFormat pattern ("0.00" is 4 wide) and its header.
    fn effective_width(&self) -> usize {
        let pattern_len = if self.decimals == 0 { 1 } else { self.decimals + 2 };
        self.width.max(pattern_len).max(self.header.len())
    }
}

/// The header line: each header centred like jstat's `Alignment.CENTER`, joined by one space.
pub fn header_line<T>(columns: &Columns<T>) -> String {
    let cells: Vec<String> =
        columns.iter().flat_map(|g| g.iter()).map(|c| center(c.header, c.effective_width())).collect();
    cells.join(" ")
}

/// One data line: each value formatted like DecimalFormat and right-aligned, joined by one space.
pub fn row_line<T>(columns: &Columns<T>, values: &T) -> String {
    let cells: Vec<String> = columns
        .iter()
        .flat_map(|g| g.iter())
        .map(|c| format!("{:>width$}", format_number((c.value)(values), c.decimals), width = c.effective_width()))
        .collect();
    cells.join(" ")
}

/// `new DecimalFormat("0.000")` with NaN shown as "-" (what jstat's RowClosure sets up).
pub fn format_number(value: f64, decimals: usize) -> String {
    if value.is_nan() {
        "-".to_owned()
    } else if value.is_infinite() {
        if value > 0.0 { "\u{221e}".to_owned() } else { "-\u{221e}".to_owned() }
    } else {
        format!("{value:.decimals$}")
    }
}

fn center(text: &str, width: usize) -> String {
    let pad = width.saturating_sub(text.len());
    let (left, extra) = (pad / 2, pad % 2);
    if left == 0 {
        format!("{text}{}", " ".repeat(extra))
    } else {
        format!("{}{text}{}", " ".repeat(left), " ".repeat(left + extra))
    }
}

/// Columns printed together: one table is a list of column groups.
pub type Columns<T> = [&'static [Column<T>]];

/// The collection columns shared by -gcutil and -gc: YGC YGCT FGC FGCT CGC CGCT GCT.
static COLLECTIONS: [Column<GcCounters>; 7] = [
    Column { header: "YGC", width: 6, decimals: 0, value: |c| c.count(0) },
    Column { header: "YGCT", width: 9, decimals: 3, value: |c| c.seconds(0) },
    Column { header: "FGC", width: 5, decimals: 0, value: |c| c.count(1) },
    Column { header: "FGCT", width: 9, decimals: 3, value: |c| c.seconds(1) },
    Column { header: "CGC", width: 5, decimals: 0, value: |c| c.count(2) },
    Column { header: "CGCT", width: 9, decimals: 3, value: |c| c.seconds(2) },
    Column { header: "GCT", width: 9, decimals: 3, value: |c| c.total_seconds() },
];

/// gcutil's space columns: percent used.
static PERCENTS: [Column<GcCounters>; 6] = {
    const fn pct(header: &'static str, value: fn(&GcCounters) -> f64) -> Column<GcCounters> {
        Column { header, width: 6, decimals: 2, value }
    }
    [
        pct("S0", |c| c.percent_used(Space::Survivor0)),
        pct("S1", |c| c.percent_used(Space::Survivor1)),
        pct("E", |c| c.percent_used(Space::Eden)),
        pct("O", |c| c.percent_used(Space::Old)),
        pct("M", |c| c.percent_used(Space::Metaspace)),
        pct("CCS", |c| c.percent_used(Space::CompressedClass)),
    ]
};

/// gc's space columns: capacities and usages in KB.
static KILOBYTES: [Column<GcCounters>; 12] = {
    const fn kb(header: &'static str, width: usize, value: fn(&GcCounters) -> f64) -> Column<GcCounters> {
        Column { header, width, decimals: 1, value }
    }
    [
        kb("S0C", 11, |c| GcCounters::kilobytes(c.capacity(Space::Survivor0))),
        kb("S1C", 11, |c| GcCounters::kilobytes(c.capacity(Space::Survivor1))),
        kb("S0U", 11, |c| GcCounters::kilobytes(c.used(Space::Survivor0))),
        kb("S1U", 11, |c| GcCounters::kilobytes(c.used(Space::Survivor1))),
        kb("EC", 12, |c| GcCounters::kilobytes(c.capacity(Space::Eden))),
        kb("EU", 12, |c| GcCounters::kilobytes(c.used(Space::Eden))),
        kb("OC", 12, |c| GcCounters::kilobytes(c.capacity(Space::Old))),
        kb("OU", 12, |c| GcCounters::kilobytes(c.used(Space::Old))),
        kb("MC", 10, |c| GcCounters::kilobytes(c.capacity(Space::Metaspace))),
        kb("MU", 10, |c| GcCounters::kilobytes(c.used(Space::Metaspace))),
        kb("CCSC", 9, |c| GcCounters::kilobytes(c.capacity(Space::CompressedClass))),
        kb("CCSU", 9, |c| GcCounters::kilobytes(c.used(Space::CompressedClass))),
    ]
};

/// `jstat -gcutil`: S0 S1 E O M CCS YGC YGCT FGC FGCT CGC CGCT GCT.
pub static GCUTIL: &Columns<GcCounters> = &[&PERCENTS, &COLLECTIONS];

/// `jstat -gc`: S0C S1C S0U S1U EC EU OC OU MC MU CCSC CCSU, then the collection columns.
pub static GC: &Columns<GcCounters> = &[&KILOBYTES, &COLLECTIONS];

#[cfg(test)]
mod tests {
    use super::*;

    /// The counters of the JDK 17 ZGC JVM whose `jstat -gcutil` line is checked below (no survivor, eden or
    /// collector 0/1 counters; collector 2 only).
    fn zgc17() -> GcCounters {
        let mut c = GcCounters { frequency: Some(1_000_000_000), ..GcCounters::default() };
        c.spaces[Space::Old as usize] = (Some(67_108_864), Some(10_485_760));
        c.spaces[Space::Metaspace as usize] = (Some(10_092_544), Some(9_844_160));
        c.spaces[Space::CompressedClass as usize] = (Some(1_310_720), Some(1_202_280));
        c.collectors[2] = (Some(51), Some(1_180_000));
        c
    }

    #[test]
    fn header_matches_jstat_byte_for_byte() {
        assert_eq!(
            header_line(GCUTIL),
            "  S0     S1     E      O      M     CCS    YGC     YGCT     FGC    FGCT     CGC    CGCT       GCT   "
        );
        assert_eq!(
            header_line(GC),
            "    S0C         S1C         S0U         S1U          EC           EU           OC           OU          MC         MU       CCSC      CCSU     YGC     YGCT     FGC    FGCT     CGC    CGCT       GCT   "
        );
    }

    #[test]
    fn missing_counters_print_a_dash_and_gct_treats_them_as_zero() {
        assert_eq!(
            row_line(GCUTIL, &zgc17()),
            "     -      -      -  15.62  97.54  91.73      -         -     -         -    51     0.001     0.001"
        );
    }

    #[test]
    fn zero_capacity_is_a_division_by_zero_dash_but_zero_used_is_zero_percent() {
        let mut c = zgc17();
        c.spaces[Space::Survivor0 as usize] = (Some(0), Some(0));
        c.spaces[Space::Survivor1 as usize] = (Some(8), Some(0));
        assert!(c.percent_used(Space::Survivor0).is_nan());
        assert_eq!(c.percent_used(Space::Survivor1), 0.0);
        assert!(GcCounters::default().total_seconds().is_nan(), "no frequency: GCT divides by zero");
    }

    #[test]
    fn numbers_round_half_even_like_decimal_format() {
        assert_eq!(format_number(0.0625, 3), "0.062");
        assert_eq!(format_number(0.375, 2), "0.38");
        assert_eq!(format_number(12.125, 2), "12.12");
        assert_eq!(format_number(2.5, 0), "2");
        assert_eq!(format_number(f64::NAN, 2), "-");
        assert_eq!(format_number(f64::INFINITY, 1), "\u{221e}");
    }
}
