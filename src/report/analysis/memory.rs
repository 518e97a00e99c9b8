//! Memory over a JVM's whole life, decided once: the whole-life RSS peak of a repeat (every `gcstat.csv` row and
//! every phase's JVM window: fill and warm-up too), and for a cell in a box or with native memory tracking its memory
//! section — the box's limit, peak and throttling, the last native-memory (NMT) breakdown, the headroom, the memory
//! the configuration needs and whether the memory limit killed it — per cell and per phase, with the series over
//! time the HTML draws. Everything in bytes here; the renderers write MB (MiB, as every memory figure of jload).

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use crate::cgroup::Limits;
use crate::cgroup::box_csv::BoxRow;
use crate::jvm::attach::nmt::{Amount, NmtSummary};
use crate::report::words::box_words;
use crate::results::{BoxFigures, CellSummary, FailureKind, PhaseRecord, RepSummary, Results};

const MIB: f64 = 1048576.0;

/// Native-memory categories under this share of the committed total are shown together as `other`.
pub const OTHER_SHARE: f64 = 0.02;

/// The name the small categories go by together.
pub const SMALLER_ONES: &str = "smaller ones";

/// The memory figures of one repeat (a cell's) or of one phase, as report.json carries them (bytes).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Memory {
    /// The box's memory limit; None: no memory limit.
    pub limit: Option<u64>,
    /// The box's highest usage since it was made (page cache included): whole-life for a cell, up to the phase's end
    /// for a phase.
    pub peak: Option<u64>,
    /// The JVM's highest resident set: whole-life for a cell, within the phase for a phase.
    pub rss_peak: Option<u64>,
    /// Native memory by category, the JVM's names: the last read of the life (a cell) or the phase's end (a phase).
    pub nmt: BTreeMap<String, Amount>,
    /// The share of CFS periods in which the CPU quota held the box back, in percent.
    pub throttled_pct: Option<f64>,
}

/// A cell's memory section: the repeat that needed the most memory, its figures over its whole life and what they
/// mean.
#[derive(Debug, Clone, Serialize)]
pub struct CellMemory {
    #[serde(flatten)]
    pub figures: Memory,
    /// The repeat shown: the one that needed the most memory.
    pub rep: u32,
    /// The box's CPU quota, CPUs; None: no quota.
    pub quota_cpus: Option<f64>,
    /// `limit − peak` (negative never: a box cannot use more than its limit), with no limit or no peak none.
    pub headroom: Option<i64>,
    /// The headroom as a share of the limit, percent.
    pub headroom_pct: Option<f64>,
    /// What the configuration needs: the larger of the whole-life RSS peak and the box's peak of anonymous memory
    /// (else its peak usage), rounded up to a MiB ([`needs`]).
    pub needs: Option<u64>,
    /// The box's highest anonymous memory over the life (`box.csv`, once a second): the part of its usage the kernel
    /// cannot reclaim. None without `box.csv`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub anon_peak: Option<u64>,
    /// Processes the kernel's OOM killer killed in the box.
    pub oom_kills: Option<u64>,
    /// The box in a few words (`512m / 0.5 CPU`), from its limit and quota; None: no box.
    pub box_label: Option<String>,
    /// The repeats the memory limit killed (`failure: "memory_limit"` in their meta.json).
    pub killed_reps: Vec<u32>,
    /// The cause recorded for the first of them, as recorded.
    pub killed: Option<String>,
    /// (JVM uptime s, RSS MiB) from `gcstat.csv`, for the HTML's chart.
    #[serde(skip)]
    pub rss: Vec<(f64, f64)>,
    /// (JVM uptime s, box usage MiB) from `box.csv`, for the HTML's chart.
    #[serde(skip)]
    pub usage: Vec<(f64, f64)>,
}

impl CellMemory {
    /// Committed native memory by category, largest first, categories under `share` of the total committed grouped
    /// as [`SMALLER_ONES`]: (name, committed bytes).
    pub fn committed_by_category(&self, share: f64) -> Vec<(String, u64)> {
        committed_by_category(&self.figures.nmt, share)
    }
}

/// What one repeat's files say about its memory.
#[derive(Debug, Clone, Default)]
pub struct RepMemory {
    pub rss_peak_mb: Option<f64>,
    rss: Vec<(f64, f64)>,
    box_rows: Vec<BoxRow>,
    nmt: Option<NmtSummary>,
    killed: Option<String>,
    /// The box the plan asked for (meta.json), for a repeat that recorded no box figures (one that failed early).
    limits: Option<Limits>,
}

impl RepMemory {
    /// Whether the kernel killed the repeat for its box's memory limit (`failure: "memory_limit"`).
    pub fn killed_by_the_limit(&self) -> bool {
        self.killed.is_some()
    }

    /// Whether the repeat ran in a box or has a native-memory breakdown: whether it has a memory section.
    fn has_section(&self, rep: &RepSummary) -> bool {
        self.nmt.is_some()
            || self.limits.is_some()
            || !self.box_rows.is_empty()
            || rep.phases.values().any(|record| record.cell_box.is_some())
    }
}

/// The whole-life RSS peak of a repeat, MiB: the highest RSS of its `gcstat.csv` and of its phases' JVM windows (a
/// window samples more often than once a second). None when neither has one.
pub fn rss_life_peak_mb(rss_samples: impl Iterator<Item = f64>, rep: &RepSummary) -> Option<f64> {
    let windows = rep.phases.values().filter_map(|record| record.jvm.as_ref().map(|jvm| jvm.rss_mb.max));
    rss_samples.chain(windows).fold(None, |peak: Option<f64>, mb| Some(peak.map_or(mb, |peak| peak.max(mb))))
}

/// The whole-life RSS peak of one repeat read from its files (for `compare`, which has no analysis of its own).
pub fn rep_rss_life_peak_mb(results: &Results, cell: &CellSummary, rep: u32) -> Option<f64> {
    let summary = cell.reps.iter().find(|summary| summary.rep == rep)?;
    let samples = results.heap_samples(&cell.id, rep).unwrap_or_default();
    rss_life_peak_mb(samples.iter().filter_map(|sample| sample.rss_mb), summary)
}

/// Every repeat's memory, read once: (cell id, repeat) → its figures; a file that does not read becomes a note.
pub fn rep_memories(results: &Results, notes: &mut Vec<String>) -> HashMap<(String, u32), RepMemory> {
    let mut memories = HashMap::new();
    for cell in &results.summary.cells {
        memories.extend(cell_rep_memories(results, cell, notes));
    }
    memories
}

/// One cell's memory section read from its files alone (for `compare`).
pub fn cell_memory_of(results: &Results, cell: &CellSummary) -> Option<CellMemory> {
    cell_memory(cell, &cell_rep_memories(results, cell, &mut Vec::new()))
}

/// The memory of each repeat of one cell.
fn cell_rep_memories(
    results: &Results,
    cell: &CellSummary,
    notes: &mut Vec<String>,
) -> HashMap<(String, u32), RepMemory> {
    let mut memories = HashMap::new();
    for rep in &cell.reps {
        let mut note = |err: anyhow::Error, what: &str| notes.push(format!("{err:#}: unreadable; {what}"));
        let samples = results.heap_samples(&cell.id, rep.rep).unwrap_or_else(|err| {
            note(err, "its RSS peak is its phases' own");
            Vec::new()
        });
        let rss: Vec<(f64, f64)> =
            samples.iter().filter_map(|sample| Some((sample.uptime_s, sample.rss_mb?))).collect();
        let box_rows = results.box_rows(&cell.id, rep.rep).unwrap_or_else(|err| {
            note(err, "the memory section uses the phase records");
            Vec::new()
        });
        let nmt_reads = results.nmt_reads(&cell.id, rep.rep).unwrap_or_else(|err| {
            note(err, "the native memory shown is the last phase's");
            Vec::new()
        });
        let nmt = nmt_reads
            .last()
            .map(|read| read.summary.clone())
            .or_else(|| by_start(rep).into_iter().rev().find_map(|record| record.nmt.clone()));
        let meta = results.meta(&cell.id, rep.rep);
        let limits = meta.as_ref().and_then(|meta| meta.cell_box);
        let killed = meta
            .filter(|meta| meta.failure == Some(FailureKind::MemoryLimit))
            .map(|meta| meta.cause.unwrap_or_else(|| "killed by the memory limit".to_string()));
        let rss_peak_mb = rss_life_peak_mb(rss.iter().map(|(_, mb)| *mb), rep);
        let memory = RepMemory { rss_peak_mb, rss, box_rows, nmt, killed, limits };
        memories.insert((cell.id.clone(), rep.rep), memory);
    }
    memories
}

/// A repeat's phase records in the order they ran.
fn by_start(rep: &RepSummary) -> Vec<&PhaseRecord> {
    let mut records: Vec<&PhaseRecord> = rep.phases.values().collect();
    records.sort_by(|a, b| a.start_s.total_cmp(&b.start_s));
    records
}

fn bytes(mb: f64) -> u64 {
    (mb * MIB).round() as u64
}

/// What a configuration needs: the larger of the RSS peak and what the box had to hold — its peak of anonymous
/// memory where `box.csv` has it (page cache, which the kernel reclaims before it kills, left out: a store that
/// writes files fills any box with cache), else its peak usage — rounded up to a whole MiB.
fn needs(rss_peak: Option<u64>, box_peak: Option<u64>, anon_peak: Option<u64>) -> Option<u64> {
    let most = rss_peak.into_iter().chain(anon_peak.or(box_peak)).max()?;
    Some(most.div_ceil(1 << 20) << 20)
}

/// The box's highest anonymous memory in `box.csv` (sampled once a second); None without rows.
fn anon_peak(memory: &RepMemory) -> Option<u64> {
    memory.box_rows.iter().filter_map(|row| Some(row.sample.memory.as_ref()?.anon)).max()
}

/// A repeat's memory over its whole life: the box's figures from `box.csv` and the phase records (the latest of
/// each; the peak the highest; the limits asked for in meta.json where neither has them), its RSS peak, the last NMT
/// read.
fn life_figures(memory: &RepMemory, rep: &RepSummary) -> (Memory, Option<f64>, Option<u64>) {
    let records = by_start(rep);
    let boxes: Vec<&BoxFigures> = records.iter().filter_map(|record| record.cell_box.as_ref()).collect();
    let last_box = |pick: &dyn Fn(&BoxFigures) -> Option<u64>| boxes.iter().rev().find_map(|b| pick(b));
    let rows = &memory.box_rows;
    let row_memory = || rows.iter().filter_map(|row| row.sample.memory.as_ref());
    let asked = memory.limits.unwrap_or_default();
    let limit =
        row_memory().rev().find_map(|m| m.limit).or_else(|| last_box(&|b| b.memory_limit)).or(asked.memory_bytes);
    let peak = row_memory()
        .flat_map(|m| m.peak.into_iter().chain([m.usage]))
        .chain(boxes.iter().filter_map(|b| b.memory_peak))
        .max();
    let oom_kills = row_memory().rev().find_map(|m| m.oom_kills).or_else(|| last_box(&|b| b.oom_kills));
    let last_cpu = rows.iter().rev().find_map(|row| row.sample.cpu.as_ref());
    let throttled_pct = match last_cpu {
        Some(cpu) if cpu.periods > 0 => Some(100.0 * cpu.throttled_periods as f64 / cpu.periods as f64),
        _ => boxes.iter().rev().find_map(|b| b.throttled_pct()),
    };
    let quota = last_cpu
        .and_then(|cpu| cpu.quota_cpus)
        .or_else(|| boxes.iter().rev().find_map(|b| b.cpus_quota))
        .or(asked.cpus_quota);
    let figures = Memory {
        limit,
        peak,
        rss_peak: memory.rss_peak_mb.map(bytes),
        nmt: nmt_map(memory.nmt.as_ref()),
        throttled_pct,
    };
    (figures, quota, oom_kills)
}

fn nmt_map(summary: Option<&NmtSummary>) -> BTreeMap<String, Amount> {
    summary
        .iter()
        .flat_map(|summary| &summary.categories)
        .map(|category| (category.name.clone(), Amount { reserved: category.reserved, committed: category.committed }))
        .collect()
}

/// A cell's memory section: None when no repeat of it ran in a box or has native memory figures.
pub fn cell_memory(cell: &CellSummary, memories: &HashMap<(String, u32), RepMemory>) -> Option<CellMemory> {
    let candidates = cell.reps.iter().filter_map(|rep| {
        let memory = memories.get(&(cell.id.clone(), rep.rep)).filter(|memory| memory.has_section(rep))?;
        let (figures, quota, oom_kills) = life_figures(memory, rep);
        Some((rep.rep, memory, figures, quota, oom_kills))
    });
    let need =
        |memory: &RepMemory, figures: &Memory| needs(figures.rss_peak, figures.peak, anon_peak(memory)).unwrap_or(0);
    let killed: Vec<(u32, &String)> = cell
        .reps
        .iter()
        .filter_map(|rep| Some((rep.rep, memories.get(&(cell.id.clone(), rep.rep))?.killed.as_ref()?)))
        .collect();
    let (rep, memory, figures, quota_cpus, oom_kills) = candidates.fold(
        None,
        |most: Option<(u32, &RepMemory, Memory, Option<f64>, Option<u64>)>, candidate| match most {
            Some(most) if need(most.1, &most.2) >= need(candidate.1, &candidate.2) => Some(most),
            _ => Some(candidate),
        },
    )?;
    let headroom = figures.limit.zip(figures.peak).map(|(limit, peak)| limit as i64 - peak as i64);
    let headroom_pct = headroom.zip(figures.limit).map(|(headroom, limit)| 100.0 * headroom as f64 / limit as f64);
    let usage = memory
        .box_rows
        .iter()
        .filter_map(|row| Some((row.uptime_s?, row.sample.memory.as_ref()?.usage as f64 / MIB)))
        .collect();
    let box_label = box_words(figures.limit, quota_cpus);
    Some(CellMemory {
        needs: needs(figures.rss_peak, figures.peak, anon_peak(memory)),
        anon_peak: anon_peak(memory),
        figures,
        rep,
        quota_cpus,
        headroom,
        headroom_pct,
        oom_kills,
        box_label,
        killed_reps: killed.iter().map(|(rep, _)| *rep).collect(),
        killed: killed.first().map(|(_, cause)| cause.to_string()),
        rss: memory.rss.clone(),
        usage,
    })
}

/// A phase's memory figures in one cell: of the measured repeat whose box peaked highest (else whose RSS did). None
/// when no measured repeat of it has box or NMT figures.
pub fn phase_memory(measured: &[(u32, &PhaseRecord)]) -> Option<Memory> {
    let of = |record: &PhaseRecord| Memory {
        limit: record.cell_box.as_ref().and_then(|b| b.memory_limit),
        peak: record.cell_box.as_ref().and_then(|b| b.memory_peak),
        rss_peak: record.jvm.as_ref().map(|jvm| bytes(jvm.rss_mb.max)),
        nmt: nmt_map(record.nmt.as_ref()),
        throttled_pct: record.cell_box.as_ref().and_then(|b| b.phase_throttled_pct().or_else(|| b.throttled_pct())),
    };
    measured
        .iter()
        .filter(|(_, record)| record.cell_box.is_some() || record.nmt.is_some())
        .map(|(_, record)| of(record))
        .max_by_key(|memory| (memory.peak, memory.rss_peak))
}

/// Committed bytes by category, largest first; two or more under `share` of the total committed are added up as
/// [`SMALLER_ONES`] (appended last; not `other`, which NMT's own category `Other` — direct buffers — would be read as). Categories with nothing committed are left out.
pub fn committed_by_category(nmt: &BTreeMap<String, Amount>, share: f64) -> Vec<(String, u64)> {
    let total: u64 = nmt.values().map(|amount| amount.committed).sum();
    let mut categories: Vec<(String, u64)> = nmt
        .iter()
        .filter(|(_, amount)| amount.committed > 0)
        .map(|(name, amount)| (name.clone(), amount.committed))
        .collect();
    categories.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let small = |committed: u64| (committed as f64) < share * total as f64;
    let other: u64 = categories.iter().filter(|(_, committed)| small(*committed)).map(|(_, c)| c).sum();
    let grouped = categories.iter().filter(|(_, committed)| small(*committed)).count();
    if grouped > 1 {
        categories.retain(|(_, committed)| !small(*committed));
        categories.push((SMALLER_ONES.to_string(), other));
    }
    categories
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nmt(categories: &[(&str, u64)]) -> BTreeMap<String, Amount> {
        categories
            .iter()
            .map(|(name, committed)| (name.to_string(), Amount { reserved: committed * 2, committed: *committed }))
            .collect()
    }

    #[test]
    fn categories_come_largest_first_with_the_small_ones_grouped_as_other() {
        let categories =
            nmt(&[("Java Heap", 128), ("Other", 264), ("GC", 41), ("Class", 11), ("Thread", 1), ("Symbol", 1)]);
        let shown = committed_by_category(&categories, 0.02);
        let expected = [("Other", 264), ("Java Heap", 128), ("GC", 41), ("Class", 11), (SMALLER_ONES, 2)];
        assert_eq!(shown, expected.map(|(name, bytes)| (name.to_string(), bytes)));
        // One small category alone keeps its own name.
        let one_small = committed_by_category(&nmt(&[("Java Heap", 1000), ("Thread", 1), ("Code", 0)]), 0.02);
        assert_eq!(one_small, [("Java Heap".to_string(), 1000), ("Thread".to_string(), 1)]);
    }

    #[test]
    fn a_configuration_needs_the_larger_of_its_rss_and_box_peaks_rounded_up_to_a_mib() {
        assert_eq!(needs(Some(444 * (1 << 20) + 1), Some(400 << 20), None), Some(445 << 20));
        assert_eq!(needs(Some(300 << 20), Some(511 << 20), None), Some(511 << 20));
        assert_eq!(needs(None, None, None), None);
        // A box full of page cache needs its anonymous memory, not its limit.
        assert_eq!(needs(Some(329 << 20), Some(360 << 20), Some(250 << 20)), Some(329 << 20));
        assert_eq!(needs(Some(200 << 20), Some(360 << 20), Some(300 << 20)), Some(300 << 20));
    }
}
