//! A set of CPUs written like taskset's list (`"0-1,3"`): parsed and checked once, shown back the same way, and
//! applied to a process about to start or to the calling thread (`sched_setaffinity`).

use std::fmt;

use serde::{Deserialize, Serialize};

/// CPUs by number, ascending, each once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct CpuSet {
    cpus: Vec<usize>,
}

impl CpuSet {
    /// Parse `"0-1,3"`: numbers and inclusive ranges separated by commas. The error says what is wrong in one line.
    pub fn parse(text: &str) -> Result<CpuSet, String> {
        let mut cpus = Vec::new();
        for part in text.split(',').map(str::trim) {
            let number = |word: &str| {
                word.trim().parse::<usize>().map_err(|_| {
                    format!("CPU list '{text}': '{part}' is not a CPU number or range; write it like \"0-1,3\"")
                })
            };
            match part.split_once('-') {
                Some((from, to)) => {
                    let (from, to) = (number(from)?, number(to)?);
                    if from > to {
                        return Err(format!("CPU list '{text}': range '{part}' runs backwards; write it low-high"));
                    }
                    cpus.extend(from..=to);
                }
                None => cpus.push(number(part)?),
            }
        }
        cpus.sort_unstable();
        cpus.dedup();
        Ok(CpuSet { cpus })
    }

    pub fn cpus(&self) -> &[usize] {
        &self.cpus
    }

    /// Whether the two sets share a CPU.
    pub fn overlaps(&self, other: &CpuSet) -> bool {
        self.cpus.iter().any(|cpu| other.cpus.contains(cpu))
    }
}

impl fmt::Display for CpuSet {
    /// The shortest list taskset would accept: runs of consecutive CPUs as ranges.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        let mut index = 0;
        while index < self.cpus.len() {
            let start = self.cpus[index];
            let mut end = start;
            while index + 1 < self.cpus.len() && self.cpus[index + 1] == end + 1 {
                index += 1;
                end += 1;
            }
            parts.push(if start == end { start.to_string() } else { format!("{start}-{end}") });
            index += 1;
        }
        f.write_str(&parts.join(","))
    }
}

impl TryFrom<String> for CpuSet {
    type Error = String;
    fn try_from(text: String) -> Result<CpuSet, String> {
        CpuSet::parse(&text)
    }
}

impl From<CpuSet> for String {
    fn from(set: CpuSet) -> String {
        set.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::CpuSet;

    #[test]
    fn a_list_of_numbers_and_ranges_is_read_sorted_once_each_and_shown_back_with_ranges() {
        let set = CpuSet::parse("3, 0-1,1").unwrap();
        assert_eq!(set.cpus(), [0, 1, 3]);
        assert_eq!(set.to_string(), "0-1,3");
    }

    #[test]
    fn a_word_or_a_backwards_range_is_refused_with_the_fix() {
        assert_eq!(
            CpuSet::parse("0-x").unwrap_err(),
            "CPU list '0-x': '0-x' is not a CPU number or range; write it like \"0-1,3\""
        );
        assert_eq!(CpuSet::parse("3-1").unwrap_err(), "CPU list '3-1': range '3-1' runs backwards; write it low-high");
    }
}
