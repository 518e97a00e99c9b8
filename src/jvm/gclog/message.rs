//! The grammar shared by GC event messages, without their meaning: leading words, parenthesised remarks (which may
//! nest, as in `(System.gc())`), and the figures at the end (a heap change, a duration).

use super::numbers::{HeapChange, parse_duration_ms, parse_heap_change};

/// A message cut into its leading words, its parenthesised remarks and what follows them.
pub struct Title<'a> {
    pub words: &'a str,
    pub groups: Vec<&'a str>,
    pub rest: &'a str,
}

/// `Young (Normal) (G1 Evacuation Pause) 24M->3M(64M) 1.2ms` → `Young`, [`Normal`, `G1 Evacuation Pause`],
/// `24M->3M(64M) 1.2ms`. Parentheses may nest (`System.gc()`). None when a parenthesis is not closed.
pub fn split_title(text: &str) -> Option<Title<'_>> {
    let words_end = text
        .char_indices()
        .find(|&(i, c)| c == '(' || (c.is_ascii_digit() && text[..i].ends_with(' ')))
        .map_or(text.len(), |(i, _)| i);
    let words = text[..words_end].trim_end();
    let mut rest = text[words_end..].trim_start();
    let mut groups = Vec::new();
    while rest.starts_with('(') {
        let close = matching_parenthesis(rest)?;
        groups.push(&rest[1..close]);
        rest = rest[close + 1..].trim_start();
    }
    Some(Title { words, groups, rest: rest.trim_end() })
}

/// Index of the `)` that closes the `(` at index 0.
fn matching_parenthesis(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// The figures at the end of an event line: nothing, a duration, a heap change, or a heap change and a duration.
/// None when there is anything else.
pub fn parse_figures(text: &str) -> Option<(Option<HeapChange>, Option<f64>)> {
    let tokens: Vec<&str> = text.split_whitespace().collect();
    match tokens.as_slice() {
        [] => Some((None, None)),
        [one] => match parse_duration_ms(one) {
            Some(duration) => Some((None, Some(duration))),
            None => parse_heap_change(one).map(|heap| (Some(heap), None)),
        },
        [heap, duration] => Some((Some(parse_heap_change(heap)?), Some(parse_duration_ms(duration)?))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_remarks_and_figures() {
        let title = split_title("Full (System.gc()) (extra remark) 25M->14M(61M) 1.377ms").unwrap();
        assert_eq!(
            (title.words, title.groups.as_slice(), title.rest),
            ("Full", &["System.gc()", "extra remark"][..], "25M->14M(61M) 1.377ms")
        );
        let (heap, duration) = parse_figures(title.rest).unwrap();
        assert_eq!((heap.map(|h| h.after_mb), duration), (Some(14.0), Some(1.377)));
        let words_only = split_title("Concurrent cleanup 21M->7M(64M) 0.013ms").unwrap();
        assert_eq!((words_only.words, words_only.groups.len()), ("Concurrent cleanup", 0));
        assert!(split_title("Young (Allocation Fail").is_none());
        assert_eq!(parse_figures(""), Some((None, None)));
        assert_eq!(parse_figures("1.0ms 2.0ms"), None);
        assert_eq!(parse_figures("a b c"), None);
    }
}
