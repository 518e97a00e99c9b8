//! What a running JVM says it chose at start-up, from its own GC log's first lines (`gc` and `gc,init`): its
//! collector (`Using Serial`), the CPUs it sees (`CPUs: 2 total, 1 available`), the memory it sees (`Memory: 400M`,
//! a container's limit when it runs in one) and its largest heap (`Heap Max Capacity: 100M`). Read from the target
//! itself, so it holds for a target behind a wrapper that sets its own limits too.

use std::io::{BufRead, BufReader};
use std::path::Path;

use serde::{Deserialize, Serialize};

/// The JVM's own start-up account; each figure absent when its line is not in the log (JDKs before 17 print fewer).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct JvmSaid {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub collector: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpus_total: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpus_available: Option<u32>,
    /// As the JVM wrote it (`400M`, `31G`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heap_max: Option<String>,
}

/// How many lines of the log's start are read: the start-up lines come first.
const HEAD_LINES: usize = 200;

/// Read the start of the GC log at `path`; None without a log or when it says none of it.
pub fn read(path: &Path) -> Option<JvmSaid> {
    let file = std::fs::File::open(path).ok()?;
    let lines = BufReader::new(file).split(b'\n').map_while(Result::ok).take(HEAD_LINES);
    let said = of_lines(lines.map(|bytes| String::from_utf8_lossy(&bytes).into_owned()));
    (said != JvmSaid::default()).then_some(said)
}

/// From the log's lines (decorations `[…]` first, then the message).
pub fn of_lines(lines: impl IntoIterator<Item = String>) -> JvmSaid {
    let mut said = JvmSaid::default();
    for line in lines {
        let message = message_of(&line);
        if let Some(name) = message.strip_prefix("Using ").filter(|_| said.collector.is_none()) {
            said.collector = Some(name.trim().to_string());
        } else if let Some(cpus) = message.strip_prefix("CPUs: ") {
            // `2 total, 1 available`
            let mut numbers = cpus.split(|c: char| !c.is_ascii_digit()).filter_map(|word| word.parse().ok());
            said.cpus_total = numbers.next();
            said.cpus_available = numbers.next();
        } else if let Some(memory) = message.strip_prefix("Memory: ") {
            said.memory = Some(memory.trim().to_string());
        } else if let Some(heap) = message.strip_prefix("Heap Max Capacity: ") {
            said.heap_max = Some(heap.trim().to_string());
        }
    }
    said
}

/// The message after a line's leading `[…]` decorations.
fn message_of(line: &str) -> &str {
    let mut rest = line.trim_end_matches('\r');
    while let Some(after) = rest.strip_prefix('[') {
        match after.split_once(']') {
            Some((_, tail)) => rest = tail,
            None => break,
        }
    }
    rest.trim()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_start_up_lines_of_a_jvm_in_a_half_cpu_box() {
        let log = "[2026-11-27T04:00:00.001+0000][0.004s][4000000ns][info][gc] Using Serial\n\
            [2026-11-27T04:00:00.002+0000][0.005s][5000000ns][info][gc,init] Version: 17.0.15+6 (release)\n\
            [2026-11-27T04:00:00.002+0000][0.005s][5000000ns][info][gc,init] CPUs: 2 total, 1 available\n\
            [2026-11-27T04:00:00.002+0000][0.005s][5000000ns][info][gc,init] Memory: 400M\n\
            [2026-11-27T04:00:00.002+0000][0.005s][5000000ns][info][gc,init] Heap Max Capacity: 100M\n\
            [2026-11-27T04:00:01.000+0000][1.004s][1004000000ns][info][gc] Using nothing else\n";
        let said = of_lines(log.lines().map(str::to_string));
        assert_eq!(
            said,
            JvmSaid {
                collector: Some("Serial".into()),
                cpus_total: Some(2),
                cpus_available: Some(1),
                memory: Some("400M".into()),
                heap_max: Some("100M".into()),
            }
        );
        assert_eq!(of_lines(["[0.1s][info][gc] Pause Young".to_string()]), JvmSaid::default());
    }
}
