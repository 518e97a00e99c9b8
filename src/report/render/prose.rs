//! jload's own sentences in the reports (notes, findings, verdicts) may mark a key, a value or a command as code with
//! backticks, as docs do: "measure at equal load with `rate`/`rates`". This splits such a sentence into its plain and
//! code parts once, for every renderer: report.md writes the code parts as code spans and escapes the rest, report.html
//! puts them in `<code>`. Strings from the plan or the results (labels, URLs, causes) are never prose: renderers
//! escape them whole. A backtick without its pair is plain text.

/// One part of a sentence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part<'a> {
    Plain(&'a str),
    Code(&'a str),
}

/// The plain and code parts of `text`, in order; empty parts are left out.
pub fn parts(text: &str) -> Vec<Part<'_>> {
    let mut parts = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('`') {
        let Some(length) = rest[open + 1..].find('`') else { break };
        if open > 0 {
            parts.push(Part::Plain(&rest[..open]));
        }
        if length > 0 {
            parts.push(Part::Code(&rest[open + 1..open + 1 + length]));
        }
        rest = &rest[open + 1 + length + 1..];
    }
    if !rest.is_empty() {
        parts.push(Part::Plain(rest));
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backticks_in_pairs_are_code_and_a_lone_one_is_text() {
        assert_eq!(
            parts("with `rate`/`rates` or by `capacity`"),
            [
                Part::Plain("with "),
                Part::Code("rate"),
                Part::Plain("/"),
                Part::Code("rates"),
                Part::Plain(" or by "),
                Part::Code("capacity")
            ]
        );
        assert_eq!(parts("a ` b"), [Part::Plain("a ` b")]);
        assert_eq!(parts("`x` and a ` left"), [Part::Code("x"), Part::Plain(" and a ` left")]);
        assert_eq!(parts(""), []);
    }
}
