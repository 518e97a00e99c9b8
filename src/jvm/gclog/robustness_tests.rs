//! Property tests: the GC-log parser never panics, whatever it is given — arbitrary bytes, text made of the
//! characters GC logs use, and real log lines (from the fixtures) cut, spliced and altered at random — and its
//! counts stay consistent.

use std::sync::OnceLock;

use proptest::prelude::*;

use super::events::recognise;
use super::line::split_line;
use super::numbers::{parse_duration_ms, parse_heap_change};
use super::{GcLog, parse_str};

/// The event lines (pauses, cycles, phases, generation figures, safepoints) of a few fixtures: every collector,
/// both JDKs' formats. Damage to these reaches every recogniser.
fn real_lines() -> &'static [String] {
    static LINES: OnceLock<Vec<String>> = OnceLock::new();
    LINES.get_or_init(|| {
        let directory = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/gclog");
        let files = [
            "g1-jdk17.log",
            "zgc-jdk25.log",
            "shenandoah-jdk17.log",
            "serial-jdk17-decimal-comma.log",
            "parallel-jdk25.log",
        ];
        files
            .iter()
            .flat_map(|name| {
                let text = std::fs::read_to_string(directory.join(name)).unwrap();
                text.lines()
                    .filter(|line| line.contains("GC(") || line.contains("Safepoint"))
                    .map(str::to_string)
                    .collect::<Vec<_>>()
            })
            .collect()
    })
}

/// Parses and summarises, and checks what must hold for any input.
fn parse_checked(text: &str) -> GcLog {
    let log = parse_str(text);
    assert_eq!(log.lines as usize, text.lines().count());
    assert!(log.unparsed_lines <= log.lines);
    let summary = log.summary(None);
    assert_eq!(summary.pauses.count, log.pauses.len());
    let _ = log.summary(Some((0.0, 1.0)));
    serde_json::to_string(&log).unwrap();
    log
}

/// One way to damage a line.
#[derive(Debug, Clone)]
enum Mutation {
    CutAt(usize),
    Delete(usize),
    Insert(usize, char),
    Replace(usize, char),
    SpliceWith(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let glyph = prop::sample::select(vec![
        '[', ']', '(', ')', ',', '.', ' ', '-', '>', '%', 'M', 'K', 's', '0', '9', 'é', '\u{0}',
    ]);
    prop_oneof![
        any::<usize>().prop_map(Mutation::CutAt),
        any::<usize>().prop_map(Mutation::Delete),
        (any::<usize>(), glyph.clone()).prop_map(|(at, c)| Mutation::Insert(at, c)),
        (any::<usize>(), glyph).prop_map(|(at, c)| Mutation::Replace(at, c)),
        (any::<usize>(), any::<usize>()).prop_map(|(at, other)| Mutation::SpliceWith(at, other)),
    ]
}

fn apply(line: &str, mutation: &Mutation) -> String {
    let chars: Vec<char> = line.chars().collect();
    let at = |i: usize| if chars.is_empty() { 0 } else { i % (chars.len() + 1) };
    let mut out = chars.clone();
    match *mutation {
        Mutation::CutAt(i) => out.truncate(at(i)),
        Mutation::Delete(i) => {
            if !out.is_empty() {
                out.remove(i % out.len());
            }
        }
        Mutation::Insert(i, c) => out.insert(at(i), c),
        Mutation::Replace(i, c) => {
            if !out.is_empty() {
                let len = out.len();
                out[i % len] = c;
            }
        }
        Mutation::SpliceWith(i, other) => {
            let lines = real_lines();
            let tail: Vec<char> = lines[other % lines.len()].chars().collect();
            out.truncate(at(i));
            out.extend(&tail[tail.len() / 2..]);
        }
    }
    out.into_iter().collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..2048)) {
        parse_checked(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn text_of_log_characters_never_panics(text in "[\\[\\]()0-9a-zA-Z.,:%>\\- \n\"é😀]{0,400}") {
        parse_checked(&text);
        for line in text.lines() {
            if let Ok(parsed) = split_line(line) {
                let _ = recognise(parsed.message);
            }
            let _ = parse_heap_change(line);
            let _ = parse_duration_ms(line);
        }
    }

    #[test]
    fn event_shaped_messages_never_panic(
        message in "GC\\([0-9x]{1,3}\\) ([yYO]: )?(Pause|Concurrent|Major Collection) [A-Za-z ]{0,12}( \\([A-Za-zé.() ]{0,10}\\)){0,2} [0-9]{1,3}[MKé%]?->[0-9]{1,3}[MKGé%]?(\\([0-9]{1,3}[MKé%]\\))? [0-9.,é]{1,6}(ms|s|é|)"
    ) {
        parse_checked(&message);
        let _ = recognise(&message);
    }

    #[test]
    fn damaged_real_lines_never_panic(
        picks in prop::collection::vec((any::<usize>(), prop::collection::vec(mutation(), 0..4)), 1..40)
    ) {
        let lines = real_lines();
        let text: Vec<String> = picks
            .iter()
            .map(|(pick, mutations)| mutations.iter().fold(lines[pick % lines.len()].clone(), |line, m| apply(&line, m)))
            .collect();
        let log = parse_checked(&text.join("\n"));
        // Undamaged lines parse: real lines are never unparsed.
        let undamaged = picks.iter().filter(|(_, mutations)| mutations.is_empty()).count() as u64;
        prop_assert!(log.unparsed_lines <= log.lines - undamaged);
    }
}

#[test]
fn real_lines_alone_are_never_unparsed() {
    let text = real_lines().join("\n");
    assert_eq!(parse_checked(&text).unparsed_lines, 0);
}
