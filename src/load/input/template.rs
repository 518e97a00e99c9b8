//! Text templates with placeholders (`{rand:LO..HI}`, `{seq}`) used in URLs, headers and bodies, rendered per request.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::bad_input;

/// One piece of a template.
#[derive(Debug, Clone, PartialEq)]
enum Segment {
    Literal(Vec<u8>),
    /// A uniformly distributed integer in `lo..=hi`.
    Rand {
        lo: i64,
        hi: i64,
    },
    /// The run-wide request counter (0, 1, 2, … across all threads).
    Seq,
}

/// A parsed template. Text that is not a placeholder is kept byte for byte, including other braces (JSON bodies).
#[derive(Debug, Clone, PartialEq)]
pub struct Template {
    segments: Vec<Segment>,
}

/// Per-thread state a template needs to render: a random generator and the shared sequence counter.
pub struct RenderContext<'a> {
    pub rng: &'a mut fastrand::Rng,
    pub seq: &'a AtomicU64,
}

impl Template {
    /// Parse `text`; `what` names where it came from (a flag or a mix-file key) for error messages.
    pub fn parse(what: &str, text: &str) -> anyhow::Result<Template> {
        let mut segments = Vec::new();
        let mut literal = Vec::new();
        let mut rest = text;
        while let Some(open) = rest.find('{') {
            let after = &rest[open..];
            let placeholder = if after.starts_with("{rand:") || after.starts_with("{seq") {
                let close = after.find('}').ok_or_else(|| malformed(what, after))?;
                Some((parse_placeholder(what, &after[1..close])?, close + 1))
            } else {
                None
            };
            match placeholder {
                Some((segment, length)) => {
                    literal.extend_from_slice(&rest.as_bytes()[..open]);
                    if !literal.is_empty() {
                        segments.push(Segment::Literal(std::mem::take(&mut literal)));
                    }
                    segments.push(segment);
                    rest = &rest[open + length..];
                }
                None => {
                    literal.extend_from_slice(&rest.as_bytes()[..=open]);
                    rest = &rest[open + 1..];
                }
            }
        }
        literal.extend_from_slice(rest.as_bytes());
        if !literal.is_empty() {
            segments.push(Segment::Literal(literal));
        }
        Ok(Template { segments })
    }

    /// A template made of raw bytes with no placeholders (a body read from a file).
    pub fn literal(bytes: Vec<u8>) -> Template {
        Template { segments: if bytes.is_empty() { vec![] } else { vec![Segment::Literal(bytes)] } }
    }

    /// True when rendering always gives the same bytes, so they can be built once.
    pub fn is_static(&self) -> bool {
        self.segments.iter().all(|segment| matches!(segment, Segment::Literal(_)))
    }

    /// Append the rendered bytes to `out`.
    pub fn render(&self, context: &mut RenderContext<'_>, out: &mut Vec<u8>) {
        for segment in &self.segments {
            match segment {
                Segment::Literal(bytes) => out.extend_from_slice(bytes),
                Segment::Rand { lo, hi } => push_integer(out, context.rng.i64(*lo..=*hi)),
                Segment::Seq => push_integer(out, context.seq.fetch_add(1, Ordering::Relaxed) as i64),
            }
        }
    }
}

fn push_integer(out: &mut Vec<u8>, value: i64) {
    let mut buffer = itoa::Buffer::new();
    out.extend_from_slice(buffer.format(value).as_bytes());
}

fn malformed(what: &str, text: &str) -> anyhow::Error {
    let shown: String = text.chars().take(40).collect();
    bad_input(format!("{what}: malformed placeholder '{shown}'; use {{rand:LO..HI}} (integers, LO <= HI) or {{seq}}"))
}

/// Parse the inside of `{…}` that starts with `rand:` or `seq`.
fn parse_placeholder(what: &str, inner: &str) -> anyhow::Result<Segment> {
    if inner == "seq" {
        return Ok(Segment::Seq);
    }
    let range = inner.strip_prefix("rand:").ok_or_else(|| malformed(what, &format!("{{{inner}}}")))?;
    let (lo, hi) = range.split_once("..").ok_or_else(|| malformed(what, &format!("{{{inner}}}")))?;
    let lo: i64 = lo.trim().parse().map_err(|_| malformed(what, &format!("{{{inner}}}")))?;
    let hi: i64 = hi.trim().parse().map_err(|_| malformed(what, &format!("{{{inner}}}")))?;
    if lo > hi {
        return Err(malformed(what, &format!("{{{inner}}}")));
    }
    Ok(Segment::Rand { lo, hi })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render_once(template: &Template, rng: &mut fastrand::Rng, seq: &AtomicU64) -> String {
        let mut out = Vec::new();
        template.render(&mut RenderContext { rng, seq }, &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn rand_stays_in_range_and_covers_it() {
        let template = Template::parse("url", "/get?key={rand:1..5}").unwrap();
        assert!(!template.is_static());
        let mut rng = fastrand::Rng::with_seed(7);
        let seq = AtomicU64::new(0);
        let mut seen = [0u32; 6];
        for _ in 0..1000 {
            let text = render_once(&template, &mut rng, &seq);
            let key: usize = text.strip_prefix("/get?key=").unwrap().parse().unwrap();
            seen[key] += 1;
        }
        assert_eq!(seen[0], 0);
        assert!(seen[1..].iter().all(|&count| count > 150), "{seen:?}");
    }

    #[test]
    fn seq_counts_from_zero_and_json_braces_stay_literal() {
        let template = Template::parse("body", r#"{"id": {seq}, "v": "{rand:7..7}"}"#).unwrap();
        let mut rng = fastrand::Rng::with_seed(1);
        let seq = AtomicU64::new(0);
        assert_eq!(render_once(&template, &mut rng, &seq), r#"{"id": 0, "v": "7"}"#);
        assert_eq!(render_once(&template, &mut rng, &seq), r#"{"id": 1, "v": "7"}"#);
    }

    #[test]
    fn static_templates_are_detected() {
        let template = Template::parse("url", "/health").unwrap();
        assert!(template.is_static());
        let mut rng = fastrand::Rng::with_seed(0);
        assert_eq!(render_once(&template, &mut rng, &AtomicU64::new(0)), "/health");
    }

    #[test]
    fn malformed_placeholders_are_rejected() {
        for bad in ["{rand:5..1}", "{rand:a..b}", "{rand:1-5}", "{rand:1..5", "{seqx}"] {
            let err = Template::parse("url", bad).unwrap_err().to_string();
            assert!(err.contains("malformed placeholder"), "{bad}: {err}");
        }
    }
}
