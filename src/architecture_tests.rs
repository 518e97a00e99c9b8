//! The crate's import graph, held to the architecture: no circle between top-level modules, between the folders or
//! files of one module, and none of the arrows the table `RULES` forbids. It reads every library source file from
//! `src/` (the module tree from `lib.rs`, test-only code left out), takes each module's edges from `use crate::…`
//! items and `crate::…` or `super::…` paths in code, and names in each failure the circle or the arrow and the file
//! and line of one path that makes it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// An arrow the architecture forbids: a module under one of `from` uses a module under one of `to` (a module is under
/// a pattern when it is that module or inside it; `a::*` means strictly inside `a`). With `only`, the arrow is
/// forbidden to anything of the crate but `to`, the leaves and the module itself.
struct Rule {
    from: &'static [&'static str],
    to: &'static [&'static str],
    only: bool,
    why: &'static str,
}

/// The modules every module may use and that use nothing of the crate but each other.
const LEAVES: &[&str] = &["units", "text_table", "tomlfile", "intervals", "cpuset", "cgroup", "atomic_file", "error"];

/// The arrows the architecture forbids, one row each with why. A row judges the module a path names as written, so a
/// re-export is the way in it allows (what `report/analysis/mod.rs` re-exports); a circle follows re-exports to the
/// module that defines the name.
const RULES: &[Rule] = &[
    Rule {
        from: &["load", "jvm"],
        to: &["plan", "run", "results", "report"],
        only: false,
        why: "the load engine and the JVM telemetry serve `jload bench` and `jload gcstat` without a plan: \
              they know nothing of plans, runs, results or reports",
    },
    Rule {
        from: &["report::render"],
        to: &["report::analysis::*"],
        only: false,
        why: "the analysis decides and the renderers only read its model: what `report/analysis/mod.rs` \
              re-exports, never an analysis module",
    },
    Rule {
        from: &["results"],
        to: &["run", "report"],
        only: false,
        why: "the results directory is read by the report and written by the runner, and knows neither",
    },
    Rule {
        from: &["report"],
        to: &["run"],
        only: false,
        why: "a report is made from a results directory alone, never from a run in progress",
    },
    Rule {
        from: LEAVES,
        to: &[],
        only: true,
        why: "a leaf is shared by every layer, so it may use nothing of the crate but other leaves",
    },
    Rule {
        from: &["stats"],
        to: &["load::figures"],
        only: true,
        why: "the statistics over repeats serve the report, the runner and the tune alike: beside the leaves, \
              only the figure registry's `Better` (which way a figure is better), by which it ranks cells",
    },
];

/// One path in code to another module: where it is written and the module it reaches.
#[derive(Clone, Debug)]
struct Reference {
    from: Vec<String>,
    /// The module the path reaches, through the re-exports on its way.
    to: Vec<String>,
    /// The module the path names as written: the longest module it begins with.
    written: Vec<String>,
    file: String,
    line: usize,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Tok<'a> {
    Ident(&'a str),
    Str(&'a str),
    PathSep,
    Punct(char),
}

#[derive(Clone, Copy, Debug)]
struct Token<'a> {
    tok: Tok<'a>,
    line: usize,
}

/// Rust's tokens as far as paths need them: identifiers, string literals (for `#[path]`), `::` and single
/// punctuation; comments, numbers, characters and lifetimes dropped.
fn tokens(text: &str) -> Vec<Token<'_>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut line = 1;
    let mut i = 0;
    let count_lines = |from: usize, to: usize| bytes[from..to].iter().filter(|&&b| b == b'\n').count();
    while i < bytes.len() {
        let c = bytes[i];
        if c == b'\n' {
            line += 1;
            i += 1;
        } else if c.is_ascii_whitespace() {
            i += 1;
        } else if text[i..].starts_with("//") {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
        } else if text[i..].starts_with("/*") {
            let start = i;
            let mut depth = 0;
            while i < bytes.len() {
                if text[i..].starts_with("/*") {
                    depth += 1;
                    i += 2;
                } else if text[i..].starts_with("*/") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            line += count_lines(start, i);
        } else if c == b'"' {
            let (end, content) = plain_string(text, i);
            out.push(Token { tok: Tok::Str(content), line });
            line += count_lines(i, end);
            i = end;
        } else if c == b'\'' {
            // A character literal ('x', '\n', '\u{..}') or a lifetime ('a).
            if bytes.get(i + 1) == Some(&b'\\') {
                i += 2;
                while i < bytes.len() && bytes[i] != b'\'' {
                    i += 1;
                }
                i += 1;
            } else {
                let next = text[i + 1..].chars().next().map_or(1, char::len_utf8);
                if bytes.get(i + 1 + next) == Some(&b'\'') {
                    i += 2 + next;
                } else {
                    i += 1;
                }
            }
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            let word = &text[start..i];
            let raw = matches!(word, "r" | "br" | "cr") && matches!(bytes.get(i), Some(b'"' | b'#'));
            if raw {
                let hashes = text[i..].bytes().take_while(|&b| b == b'#').count();
                if bytes.get(i + hashes) == Some(&b'"') {
                    let open = i + hashes + 1;
                    let close = format!("\"{}", "#".repeat(hashes));
                    let end = text[open..].find(&close).map_or(bytes.len(), |at| open + at);
                    out.push(Token { tok: Tok::Str(&text[open..end]), line });
                    let after = (end + close.len()).min(bytes.len());
                    line += count_lines(i, after);
                    i = after;
                    continue;
                }
                if word == "r" && hashes == 1 {
                    // A raw identifier, r#name.
                    i += 1;
                    continue;
                }
            }
            if matches!(word, "b" | "c") && bytes.get(i) == Some(&b'"') {
                let (end, content) = plain_string(text, i);
                out.push(Token { tok: Tok::Str(content), line });
                line += count_lines(i, end);
                i = end;
                continue;
            }
            if word == "b" && bytes.get(i) == Some(&b'\'') {
                continue;
            }
            out.push(Token { tok: Tok::Ident(word), line });
        } else if c.is_ascii_digit() {
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
        } else if text[i..].starts_with("::") {
            out.push(Token { tok: Tok::PathSep, line });
            i += 2;
        } else {
            let ch = text[i..].chars().next().expect("in bounds");
            out.push(Token { tok: Tok::Punct(ch), line });
            i += ch.len_utf8();
        }
    }
    out
}

/// A `"…"` literal starting at `start`: the index after it and its content.
fn plain_string(text: &str, start: usize) -> (usize, &str) {
    let bytes = text.as_bytes();
    let mut i = start + 1;
    while i < bytes.len() && bytes[i] != b'"' {
        i += if bytes[i] == b'\\' { 2 } else { 1 };
    }
    let end = i.min(bytes.len());
    (end + 1, &text[start + 1..end])
}

/// The paths a use tree or a path in code names, from just after its first `::`, below `prefix`.
fn use_tree(toks: &[Token<'_>], mut at: usize, prefix: &[String], out: &mut Vec<UsePath>) -> usize {
    let mut path = prefix.to_vec();
    let mut line = toks.get(at).map_or(0, |t| t.line);
    loop {
        match toks.get(at).map(|t| t.tok) {
            Some(Tok::Ident("self")) => {
                line = toks[at].line;
                at += 1;
                break;
            }
            Some(Tok::Ident(name)) => {
                path.push(name.to_string());
                line = toks[at].line;
                at += 1;
                if toks.get(at).map(|t| t.tok) == Some(Tok::PathSep) {
                    at += 1;
                    continue;
                }
                break;
            }
            Some(Tok::Punct('{')) => {
                at += 1;
                while let Some(t) = toks.get(at) {
                    match t.tok {
                        Tok::Punct('}') => {
                            at += 1;
                            break;
                        }
                        Tok::Punct(',') => at += 1,
                        _ => at = use_tree(toks, at, &path, out),
                    }
                }
                return at;
            }
            _ => break,
        }
    }
    let mut alias = None;
    if let (Some(Tok::Ident("as")), Some(Tok::Ident(name))) =
        (toks.get(at).map(|t| t.tok), toks.get(at + 1).map(|t| t.tok))
    {
        alias = Some(name.to_string());
        at += 2;
    }
    out.push(UsePath { path, alias, line });
    at
}

/// One path of a use tree: its segments, the name it is imported as when renamed, and the line of its last segment.
struct UsePath {
    path: Vec<String>,
    alias: Option<String>,
    line: usize,
}

/// The modules of the crate and the references between them.
#[derive(Default)]
struct Graph {
    modules: BTreeSet<Vec<String>>,
    references: Vec<Reference>,
}

/// What one file gives the graph: the modules it declares in files of their own (their path below the file's module
/// and the `#[path]` given), its paths to other modules (from, to, line), and the names its `use` items import.
struct Walked {
    declared: Vec<(Vec<String>, Option<String>)>,
    references: Vec<(Vec<String>, Vec<String>, usize)>,
    imports: Vec<Import>,
}

/// A name a `use` item brings into a module, and the path it stands for (for a path relative to the module, the
/// module's own path and then it: a child module's, or an extern crate's when no such child exists).
struct Import {
    module: Vec<String>,
    name: String,
    path: Vec<String>,
}

/// Walks one file's tokens, test-only code (an item under `#[cfg(test)]`) left out: the modules it declares
/// (`mod x;`) with the inline modules around them, every `crate::` or `super::` path resolved against the module it
/// is written in, and what each `use` item imports.
fn walk(toks: &[Token<'_>], module: &[String]) -> Walked {
    let mut walked = Walked { declared: Vec::new(), references: Vec::new(), imports: Vec::new() };
    if toks.len() >= 7 && is_cfg_test(&toks[2..]) && toks[0].tok == Tok::Punct('#') && toks[1].tok == Tok::Punct('!') {
        return walked;
    }
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut path_attr: Option<String> = None;
    let mut at = 0;
    while at < toks.len() {
        let here: Vec<String> = module.iter().cloned().chain(inline.iter().map(|(n, _)| n.clone())).collect();
        match toks[at].tok {
            Tok::Punct('#') if toks.get(at + 1).map(|t| t.tok) == Some(Tok::Punct('[')) => {
                if is_cfg_test(&toks[at + 1..]) {
                    at = skip_item(toks, at + 7);
                    continue;
                }
                if let (Some(Tok::Ident("path")), Some(Tok::Punct('=')), Some(Tok::Str(p))) =
                    (toks.get(at + 2).map(|t| t.tok), toks.get(at + 3).map(|t| t.tok), toks.get(at + 4).map(|t| t.tok))
                {
                    path_attr = Some(p.to_string());
                }
                at += 2;
            }
            Tok::Ident("mod") => {
                if let Some(Tok::Ident(name)) = toks.get(at + 1).map(|t| t.tok) {
                    match toks.get(at + 2).map(|t| t.tok) {
                        Some(Tok::Punct(';')) => {
                            let mut declared = here[module.len()..].to_vec();
                            declared.push(name.to_string());
                            walked.declared.push((declared, path_attr.take()));
                            at += 3;
                            continue;
                        }
                        Some(Tok::Punct('{')) => {
                            depth += 1;
                            inline.push((name.to_string(), depth));
                            path_attr = None;
                            at += 3;
                            continue;
                        }
                        _ => {}
                    }
                }
                at += 1;
            }
            Tok::Punct('{') => {
                depth += 1;
                at += 1;
            }
            Tok::Punct('}') => {
                if inline.last().is_some_and(|(_, d)| *d == depth) {
                    inline.pop();
                }
                depth = depth.saturating_sub(1);
                at += 1;
            }
            Tok::Ident("use") => {
                let mut base = Vec::new();
                let mut relative = false;
                at += 1;
                match (toks.get(at).map(|t| t.tok), toks.get(at + 1).map(|t| t.tok)) {
                    (Some(Tok::Ident("crate")), Some(Tok::PathSep)) => at += 2,
                    (Some(Tok::Ident("self")), Some(Tok::PathSep)) => {
                        base = here.clone();
                        at += 2;
                    }
                    (Some(Tok::Ident("super")), Some(Tok::PathSep)) => {
                        base = here.clone();
                        while toks.get(at).map(|t| t.tok) == Some(Tok::Ident("super"))
                            && toks.get(at + 1).map(|t| t.tok) == Some(Tok::PathSep)
                        {
                            base.pop();
                            at += 2;
                        }
                    }
                    (Some(Tok::PathSep), _) => continue,
                    _ => {
                        base = here.clone();
                        relative = true;
                    }
                }
                let mut paths = Vec::new();
                at = use_tree(toks, at, &base, &mut paths);
                for UsePath { path, alias, line } in paths {
                    if path.len() > base.len() {
                        let name = alias.unwrap_or_else(|| path.last().expect("non-empty").clone());
                        walked.imports.push(Import { module: here.clone(), name, path: path.clone() });
                    }
                    if !relative {
                        walked.references.push((here.clone(), path, line));
                    }
                }
            }
            Tok::Ident("crate")
                if toks.get(at + 1).map(|t| t.tok) == Some(Tok::PathSep)
                    && (at == 0 || toks[at - 1].tok != Tok::Punct('$')) =>
            {
                let mut paths = Vec::new();
                at = use_tree(toks, at + 2, &[], &mut paths);
                for UsePath { path, line, .. } in paths {
                    walked.references.push((here.clone(), path, line));
                }
            }
            Tok::Ident("super")
                if toks.get(at + 1).map(|t| t.tok) == Some(Tok::PathSep)
                    && (at == 0 || toks[at - 1].tok != Tok::PathSep) =>
            {
                let mut base = here.clone();
                while toks.get(at).map(|t| t.tok) == Some(Tok::Ident("super"))
                    && toks.get(at + 1).map(|t| t.tok) == Some(Tok::PathSep)
                {
                    base.pop();
                    at += 2;
                }
                let mut paths = Vec::new();
                at = use_tree(toks, at, &base, &mut paths);
                for UsePath { path, line, .. } in paths {
                    walked.references.push((here.clone(), path, line));
                }
            }
            _ => at += 1,
        }
    }
    walked
}

/// Whether the tokens from a `[` are `[cfg(test)]`.
fn is_cfg_test(toks: &[Token<'_>]) -> bool {
    let want =
        [Tok::Punct('['), Tok::Ident("cfg"), Tok::Punct('('), Tok::Ident("test"), Tok::Punct(')'), Tok::Punct(']')];
    toks.len() >= want.len() && toks.iter().zip(want).all(|(t, w)| t.tok == w)
}

/// The index after the item that starts at `at`: its `;`, or the `}` that closes its first `{`.
fn skip_item(toks: &[Token<'_>], mut at: usize) -> usize {
    let mut depth = 0usize;
    while at < toks.len() {
        match toks[at].tok {
            Tok::Punct(';') if depth == 0 => return at + 1,
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') => {
                depth -= 1;
                if depth == 0 {
                    return at + 1;
                }
            }
            _ => {}
        }
        at += 1;
    }
    at
}

/// The crate's graph from its source files (paths relative to `src/`, with `/`), from `lib.rs` down the module
/// tree.
fn graph(files: &BTreeMap<String, String>) -> Graph {
    let mut graph = Graph::default();
    let mut imports: BTreeMap<(Vec<String>, String), Vec<String>> = BTreeMap::new();
    let mut pending = vec![("lib.rs".to_string(), Vec::<String>::new())];
    while let Some((file, module)) = pending.pop() {
        let Some(text) = files.get(&file) else {
            continue;
        };
        graph.modules.insert(module.clone());
        let walked = walk(&tokens(text), &module);
        let dir = match file.rfind('/') {
            Some(at) => &file[..at + 1],
            None => "",
        };
        let stem = file.rsplit('/').next().unwrap_or(&file).trim_end_matches(".rs");
        let owns_folder = matches!(stem, "lib" | "mod" | "main");
        for (declared, path_attr) in walked.declared {
            let child: Vec<String> = module.iter().chain(&declared).cloned().collect();
            let found = match path_attr {
                Some(p) => format!("{dir}{p}"),
                None => {
                    let own = if owns_folder { String::new() } else { format!("{stem}/") };
                    let base = format!("{dir}{own}{}", declared.join("/"));
                    let flat = format!("{base}.rs");
                    if files.contains_key(&flat) { flat } else { format!("{base}/mod.rs") }
                }
            };
            pending.push((found, child));
        }
        for import in walked.imports {
            imports.insert((import.module, import.name), import.path);
        }
        for (from, to, line) in walked.references {
            graph.references.push(Reference { from, written: to.clone(), to, file: format!("src/{file}"), line });
        }
    }
    for reference in &mut graph.references {
        reference.to = resolve(&graph.modules, &imports, &reference.to);
        while !graph.modules.contains(&reference.written) {
            reference.written.pop();
        }
        while !graph.modules.contains(&reference.from) {
            reference.from.pop();
        }
    }
    graph
}

/// The module a path reaches: the longest module it begins with, or, when the name after that module is one the
/// module imports (a re-export, say), the module that name's path reaches.
fn resolve(
    modules: &BTreeSet<Vec<String>>,
    imports: &BTreeMap<(Vec<String>, String), Vec<String>>,
    path: &[String],
) -> Vec<String> {
    let mut path = path.to_vec();
    for _ in 0..16 {
        let mut module = path.clone();
        while !module.is_empty() && !modules.contains(&module) {
            module.pop();
        }
        let Some(next) = path.get(module.len()) else {
            return module;
        };
        match imports.get(&(module.clone(), next.clone())) {
            Some(imported) if imported.len() > module.len() && modules.contains(&imported[..module.len() + 1]) => {
                path = imported.iter().chain(&path[module.len() + 1..]).cloned().collect();
            }
            Some(imported) if !imported.starts_with(&module) => {
                path = imported.iter().chain(&path[module.len() + 1..]).cloned().collect();
            }
            _ => return module,
        }
    }
    while !path.is_empty() && !modules.contains(&path) {
        path.pop();
    }
    path
}

fn name(module: &[String]) -> String {
    if module.is_empty() { "crate".to_string() } else { module.join("::") }
}

/// Whether `module` is under `pattern`: the module itself or inside it, strictly inside for `a::*`.
fn under(module: &[String], pattern: &str) -> bool {
    let (prefix, strict) = match pattern.strip_suffix("::*") {
        Some(p) => (p, true),
        None => (pattern, false),
    };
    let prefix: Vec<&str> = prefix.split("::").collect();
    module.len() >= prefix.len() + usize::from(strict) && module.iter().zip(&prefix).all(|(m, p)| m == p)
}

/// Every failure of the graph: each circle between the children of one module (top-level modules, folders, files),
/// then each forbidden arrow, the first path in code that makes it named.
fn failures(graph: &Graph, rules: &[Rule], leaves: &[&str]) -> Vec<String> {
    let mut sorted = graph.references.clone();
    sorted.sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
    // Each reference is an arrow between the two children of the module both are inside (the longest common
    // prefix), when neither is that module itself.
    let mut arrows: BTreeMap<Vec<String>, BTreeMap<(String, String), &Reference>> = BTreeMap::new();
    for r in &sorted {
        let common = r.from.iter().zip(&r.to).take_while(|(a, b)| a == b).count();
        if r.from.len() > common && r.to.len() > common {
            arrows
                .entry(r.from[..common].to_vec())
                .or_default()
                .entry((r.from[common].clone(), r.to[common].clone()))
                .or_insert(r);
        }
    }
    let mut out = Vec::new();
    for (parent, edges) in &arrows {
        for circle in circles(edges.keys()) {
            let full = |child: &String| name(&parent.iter().chain([child]).cloned().collect::<Vec<_>>());
            let (circle, group) = circle;
            let mut message =
                format!("circle: {}", circle.iter().chain(circle.first()).map(full).collect::<Vec<_>>().join(" → "));
            if group.len() > circle.len() {
                let names: Vec<String> = group.iter().map(full).collect();
                message.push_str(&format!(" (one circle of those between {})", names.join(", ")));
            }
            for pair in circle.iter().zip(circle.iter().cycle().skip(1)) {
                let r = edges[&(pair.0.clone(), pair.1.clone())];
                message.push_str(&format!(
                    "\n  {} → {}: {}:{} names {}",
                    full(pair.0),
                    full(pair.1),
                    r.file,
                    r.line,
                    name(&r.to)
                ));
            }
            out.push(message);
        }
    }
    for rule in rules {
        let mut seen = BTreeSet::new();
        for r in &sorted {
            let Some(from) = rule.from.iter().find(|p| under(&r.from, p)) else {
                continue;
            };
            let to_listed = rule.to.iter().find(|p| under(&r.written, p));
            let forbidden = if rule.only {
                to_listed.is_none()
                    && !r.written.is_empty()
                    && !under(&r.written, from)
                    && !leaves.iter().any(|leaf| under(&r.written, leaf))
            } else {
                to_listed.is_some()
            };
            let to = to_listed.map_or_else(|| name(&r.written), |p| p.to_string());
            if forbidden && seen.insert((from.to_string(), to.clone())) {
                out.push(format!(
                    "forbidden arrow: {from} → {to} ({}): {}:{} names {}",
                    rule.why,
                    r.file,
                    r.line,
                    name(&r.written)
                ));
            }
        }
    }
    out
}

/// One circle in each group of nodes that all reach each other (of more than one node): the shortest one through
/// its smallest node, and the group.
fn circles<'a>(edges: impl Iterator<Item = &'a (String, String)>) -> Vec<(Vec<String>, Vec<String>)> {
    let mut next: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for (a, b) in edges {
        next.entry(a).or_default().insert(b);
    }
    let reach = |from: &str| -> BTreeMap<String, Vec<String>> {
        // Shortest paths from `from` to every node it reaches (breadth first, in name order).
        let mut paths: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let mut queue = std::collections::VecDeque::from([vec![from.to_string()]]);
        while let Some(path) = queue.pop_front() {
            let last = path.last().expect("non-empty").clone();
            for n in next.get(last.as_str()).into_iter().flatten() {
                if !paths.contains_key(*n) {
                    let mut longer = path.clone();
                    longer.push(n.to_string());
                    paths.insert(n.to_string(), longer.clone());
                    queue.push_back(longer);
                }
            }
        }
        paths
    };
    let mut done: BTreeSet<String> = BTreeSet::new();
    let mut out = Vec::new();
    for node in next.keys() {
        if done.contains(*node) {
            continue;
        }
        let Some(back) = reach(node).remove(*node) else {
            continue;
        };
        let group: Vec<String> = reach(node).into_keys().filter(|n| reach(n).contains_key(*node)).collect();
        done.extend(group.iter().cloned());
        out.push((back[..back.len() - 1].to_vec(), group));
    }
    out
}

fn read_sources(dir: &Path, root: &Path, files: &mut BTreeMap<String, String>) {
    for entry in std::fs::read_dir(dir).expect("src/ is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            read_sources(&path, root, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let relative = path.strip_prefix(root).expect("under src/").to_string_lossy().replace('\\', "/");
            files.insert(relative, std::fs::read_to_string(&path).expect("a source file is UTF-8"));
        }
    }
}

#[test]
fn the_crate_has_no_circle_and_no_forbidden_arrow() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = BTreeMap::new();
    read_sources(&src, &src, &mut files);
    let graph = graph(&files);
    assert!(graph.modules.len() > 100, "the module tree was read: {} modules", graph.modules.len());
    let failures = failures(&graph, RULES, LEAVES);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The failures of a crate made of `files` (path under `src/`, text), held to `rules`.
fn failures_of(files: &[(&str, &str)], rules: &[Rule], leaves: &[&str]) -> Vec<String> {
    let files = files.iter().map(|(p, t)| (p.to_string(), t.to_string())).collect();
    failures(&graph(&files), rules, leaves)
}

#[test]
fn a_circle_between_files_of_one_folder_is_named_with_the_line_of_each_arrow() {
    let failures = failures_of(
        &[
            ("lib.rs", "pub mod plan;\n"),
            ("plan/mod.rs", "mod phase;\nmod schema;\nmod tune;\npub use phase::Phase;\n"),
            ("plan/schema.rs", "// crate::plan::tune in a comment is no arrow\npub struct S(super::tune::T);\n"),
            ("plan/tune.rs", "use super::{\n    Phase,\n};\npub struct T;\n"),
            (
                "plan/phase.rs",
                "use crate::plan::schema::S;\npub struct Phase;\n#[cfg(test)]\nmod tests {\n    use crate::plan::tune::T;\n}\n",
            ),
        ],
        &[],
        &[],
    );
    assert_eq!(
        failures,
        ["circle: plan::phase → plan::schema → plan::tune → plan::phase\n  \
          plan::phase → plan::schema: src/plan/phase.rs:1 names plan::schema\n  \
          plan::schema → plan::tune: src/plan/schema.rs:2 names plan::tune\n  \
          plan::tune → plan::phase: src/plan/tune.rs:2 names plan::phase"]
    );
}

#[test]
fn a_circle_between_folders_and_a_forbidden_arrow_are_named() {
    let rules = [Rule { from: &["load"], to: &["plan"], only: false, why: "load knows no plans" }];
    let failures = failures_of(
        &[
            ("lib.rs", "pub mod load;\npub mod plan;\n"),
            ("load/mod.rs", "pub mod connections;\npub mod input;\n"),
            ("load/input/mod.rs", "pub mod protocol;\n"),
            ("load/input/protocol.rs", "use crate::{load::connections::tls::Tls, plan::Plan};\n"),
            ("load/connections/mod.rs", "pub mod tls;\n"),
            ("load/connections/tls.rs", "pub struct Tls;\nfn f() { let _ = crate::load::input::protocol::X; }\n"),
            ("plan/mod.rs", "pub struct Plan;\n"),
        ],
        &rules,
        &[],
    );
    assert_eq!(
        failures,
        [
            "circle: load::connections → load::input → load::connections\n  \
             load::connections → load::input: src/load/connections/tls.rs:2 names load::input::protocol\n  \
             load::input → load::connections: src/load/input/protocol.rs:1 names load::connections::tls",
            "forbidden arrow: load → plan (load knows no plans): src/load/input/protocol.rs:1 names plan",
        ]
    );
}

#[test]
fn a_leaf_may_use_only_other_leaves() {
    let rules = [Rule { from: &["units", "error"], to: &[], only: true, why: "leaves" }];
    let failures = failures_of(
        &[
            ("lib.rs", "pub mod error;\npub mod load;\npub mod units;\n"),
            ("error.rs", ""),
            ("load.rs", ""),
            ("units.rs", "use crate::error::E;\nuse crate::load::L;\n"),
        ],
        &rules,
        &["units", "error"],
    );
    assert_eq!(failures, ["forbidden arrow: units → load (leaves): src/units.rs:2 names load"]);
}
