//! report.md: pasteable into a wiki like the seeds — a header with the plan, machine and JDKs, how to read the
//! statistics, the recommendation, one table per measured phase (with what its latencies can be compared with, whether
//! its repeats' spread follows the servers they ran on, and
//! latency against throughput for ladders and capacity searches), the memory section (cells in a box or with native
//! memory figures), "is it the GC?" per phase, the phases not measured, and
//! what crashed. Every string from the plan or the results is escaped so it shows as text.

use std::fmt::Write;

use super::grid::{grid_axes, grid_note, phase_grids};
use super::memory::{MEMORY_NOTE, killed_line, memory_cells, memory_table, title};
use super::prose::{Part, parts};
use super::tables::{Entry, Table, curve_table, gc_attribution_table, phase_table, unmeasured_table};
use super::tune::{BEST_HEAD, FRONTIER_INTRO, HISTORY_HEAD, frontier_head, holds_words, shares, title as tune_title};
use crate::report::analysis::{Analysis, CellTuneSection, PhaseAnalysis, PhaseKind};
use crate::results::tune_json::settings_words;

/// Make text show literally in Markdown (table pipes, emphasis, links, code, inline HTML), escaping only what
/// Markdown would read otherwise, so that the file reads as written too: `p99<=10ms` and `a&b` stay as they are, while
/// `<b>` (a tag) becomes `&lt;b>` and `&amp;` (an entity) `\&amp;`.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let next = chars.peek().copied();
        match c {
            // A tag, a comment or an autolink starts with `<` and one of these; `<=` or `< 5` is text.
            '<' if next.is_some_and(|n| n.is_ascii_alphabetic() || "/!?".contains(n)) => out.push_str("&lt;"),
            // An entity reference: `&` then letters, digits or `#`, up to `;`.
            '&' if is_entity(chars.clone()) => out.push_str("\\&"),
            // A block quote, at the start of a line.
            '>' if out.is_empty() => out.push_str("\\>"),
            '\\' | '|' | '*' | '_' | '`' | '[' | ']' | '#' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' => out.push(' '),
            _ => out.push(c),
        }
    }
    out
}

/// Whether what follows an `&` makes it an entity reference (`amp;`, `#60;`, `#x3C;`).
fn is_entity(rest: impl Iterator<Item = char>) -> bool {
    let mut length = 0;
    for c in rest {
        match c {
            ';' => return length > 0,
            c if c.is_ascii_alphanumeric() || (c == '#' && length == 0) => length += 1,
            _ => return false,
        }
    }
    false
}

/// One of jload's own sentences (`report::render::prose`): its code parts as code spans, the rest escaped.
pub fn prose(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for part in parts(text) {
        match part {
            Part::Plain(plain) => out.push_str(&escape(plain)),
            // A code span shows its content as it is, but a table still splits at `|`.
            Part::Code(code) => out.push_str(&format!("`{}`", code.replace(['\n', '\r'], " ").replace('|', "\\|"))),
        }
    }
    out
}

fn entry(entry: &Entry) -> String {
    let mut text = escape(&entry.text);
    if let Some(mark) = entry.mark {
        text = format!("{text} {}", mark.symbol());
    }
    if let Some(ci) = &entry.ci {
        text = format!("{text} ({})", escape(ci));
    }
    text
}

/// A Markdown table like seed 000's: left column left-aligned, figures centred.
pub fn table(table: &Table) -> String {
    let mut out = String::new();
    let header: Vec<String> =
        std::iter::once(escape(&table.corner)).chain(table.columns.iter().map(|column| escape(column))).collect();
    let _ = writeln!(out, "|{}|", header.join("|"));
    let align: Vec<&str> = std::iter::once(":---").chain(table.columns.iter().map(|_| ":---:")).collect();
    let _ = writeln!(out, "|{}|", align.join("|"));
    for row in &table.rows {
        let cells: Vec<String> = std::iter::once(escape(&row.label)).chain(row.entries.iter().map(entry)).collect();
        let _ = writeln!(out, "|{}|", cells.join("|"));
    }
    for note in &table.notes {
        let _ = writeln!(out, "\n{}", prose(note));
    }
    out
}

/// The header's facts, shared by the HTML: `(label, items)`.
pub fn header_facts(analysis: &Analysis) -> Vec<(&'static str, Vec<String>)> {
    let mut facts = vec![("Results", vec![analysis.results_dir.clone()])];
    if let Some(env) = &analysis.env {
        let machine = |env: &crate::results::Env| {
            format!(
                "{}, {} cores, {:.1} GiB memory, Linux {}",
                env.host,
                env.cores,
                env.memory_bytes as f64 / (1u64 << 30) as f64,
                env.kernel
            )
        };
        let load_side = if env.servers.is_empty() { "Machine" } else { "Load from" };
        facts.push((load_side, vec![machine(env)]));
        if !env.servers.is_empty() {
            let servers = env.servers.iter().map(|(destination, server)| format!("{destination}: {}", machine(server)));
            facts.push(("Target on", servers.collect()));
        }
    }
    let mut jdks: Vec<String> = Vec::new();
    for cell in &analysis.cells {
        if let Some(version) = &cell.java_version
            && !jdks.contains(version)
        {
            jdks.push(version.clone());
        }
    }
    if !jdks.is_empty() {
        facts.push(("JDK", jdks));
    }
    let axes: Vec<String> = analysis
        .axes
        .iter()
        .map(|axis| {
            format!(
                "{} = {}{}",
                axis.name,
                axis.labels.join(", "),
                if axis.varies { "" } else { " (same in every cell)" }
            )
        })
        .collect();
    if !axes.is_empty() {
        facts.push(("Axes", axes));
    }
    facts.push(("Phases", analysis.phases.iter().map(phase_shape).collect()));
    let mut run = format!("{} repeat(s) per cell", analysis.repeats);
    if !analysis.slo.is_empty() {
        run += &format!("; SLO {}", analysis.slo.join(", "));
    }
    if let Some(axis) = &analysis.cost_axis {
        run += &format!("; cost axis {axis}");
    }
    facts.push(("Run", vec![run]));
    facts
}

/// `set: 16 connections, closed model, 3.0 s, 114000 requests, http://…`; a ladder or search states the whole phase
/// (its steps, wall time and requests) and then whose figures its tables show: the capacity step's, or the last
/// step's.
pub fn phase_shape(phase: &PhaseAnalysis) -> String {
    let measured = if phase.measured { "" } else { " (not measured)" };
    let Some(load) = &phase.load else { return format!("{}{measured}: no cell measured it", phase.name) };
    let model = match (phase.kind, load.rate) {
        (PhaseKind::Capacity, _) => match phase.cells.iter().find_map(|cell| cell.capacity.as_ref()) {
            Some(capacity) => format!("capacity search under {}", capacity.slo),
            None => "capacity search".to_string(),
        },
        (PhaseKind::Ladder, _) => {
            let rates: Vec<String> = load.rates.iter().map(|rate| format!("{rate}")).collect();
            format!("open model at rates {} req/s", rates.join(", "))
        }
        (_, Some(rate)) => format!("open model at {rate} req/s"),
        (_, None) => format!("{} model", load.model),
    };
    let head = format!("{}{measured}: {} connections, {model}", phase.name, load.connections);
    match &load.steps {
        Some(steps) => {
            let whose = if phase.kind == PhaseKind::Capacity { "the capacity step's" } else { "the last step's" };
            format!(
                "{head}, the whole phase {:.1} s: {} steps, {} requests measured in all (medians); the figures below \
                 are {whose} ({:.1} s, {} requests), {}",
                steps.duration_s, steps.count, steps.requests, load.duration_s, load.requests, load.url
            )
        }
        None => format!("{head}, {:.1} s, {} requests (medians), {}", load.duration_s, load.requests, load.url),
    }
}

/// How to read the figures, or the plain warning that one repeat qualifies nothing.
pub fn statistics_note(analysis: &Analysis) -> String {
    if analysis.single_repeat() {
        "One repeat per cell: the differences between cells are unqualified — there is no interval and no test, so a \
         difference may be noise. Run with --repeats 3 (or more) to tell real differences from noise."
            .to_string()
    } else {
        format!(
            "{} ★ marks the best cell on req/s and on P99, ≈ every cell not distinguishable from it; an unmarked \
             figure is worse with significance. Ranges in parentheses are the 95 % confidence intervals.",
            analysis.statistics
        )
    }
}

pub const IS_IT_GC_NOTE: &str = "Per cell, over its repeats, the requests slower than the phase's p99: how many there \
    were, the share whose time (from the intended send to the answer) overlapped a GC pause or a GC stall (a thread \
    waiting for the collector: ZGC allocation stalls, Shenandoah allocation failures) on the GC log, next to the share \
    requests of the same lengths placed at random in the phase would overlap (chance); the share that overlapped \
    another safepoint and no GC; p99 and p99.9 as measured → recomputed with each request's overlap with GC taken out \
    (medians over repeats); and the largest error of putting the JVM's uptime on the run's clock. Counts are summed \
    over repeats and shares taken of the sums. See docs/report.md.";

pub fn render(analysis: &Analysis) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# jload report: {}\n", escape(&analysis.plan));
    if !analysis.description.is_empty() {
        let _ = writeln!(out, "{}\n", escape(&analysis.description));
    }
    for (label, items) in header_facts(analysis) {
        match items.as_slice() {
            [item] => {
                let _ = writeln!(out, "- {label}: {}", escape(item));
            }
            _ => {
                let _ = writeln!(out, "- {label}:");
                for item in &items {
                    let _ = writeln!(out, "  - {}", escape(item));
                }
            }
        }
    }
    let _ = writeln!(out, "\n## Statistics\n\n{}\n", prose(&statistics_note(analysis)));
    let _ = writeln!(out, "## Recommendation\n");
    for phase in analysis.phases.iter().filter(|phase| phase.measured) {
        let _ = writeln!(out, "### {}\n", escape(&phase.name));
        for finding in phase.recommendation.iter().flat_map(|recommendation| &recommendation.findings) {
            let _ = writeln!(out, "- {}", prose(&finding.text));
        }
        let _ = writeln!(out);
    }
    out += &box_searches(analysis);
    out += &tune_section(analysis);
    out += &grids(analysis);
    for phase in analysis.phases.iter().filter(|phase| phase.measured) {
        let _ = writeln!(out, "## Phase {}\n\n{}\n", escape(&phase.name), escape(&phase_shape(phase)));
        if let Some(note) = &phase.equal_load_note {
            let _ = writeln!(out, "**{}**\n", prose(note));
        }
        if let Some(hosts) = &phase.hosts {
            let _ = writeln!(out, "{}\n", prose(&hosts.sentence));
        }
        let _ = writeln!(out, "{}", table(&phase_table(analysis, phase)));
        if let Some(curve) = curve_table(analysis, phase) {
            let _ = writeln!(out, "### Latency against throughput: {}\n\n{}", escape(&phase.name), table(&curve));
        }
    }
    for sweep in &analysis.connection_sweeps {
        let _ = writeln!(
            out,
            "## Connections: {}\n\n{}\n\n{}",
            escape(&sweep.title()),
            escape(&sweep.note()),
            table(&sweep.table(analysis))
        );
    }
    out += &memory(analysis);
    out += &is_it_gc(analysis);
    out += &profiles(analysis);
    if let Some(unmeasured) = unmeasured_table(analysis) {
        let _ = writeln!(
            out,
            "## Phases not measured\n\nFill and warm-up phases: shown, never compared.\n\n{}",
            table(&unmeasured)
        );
    }
    let troubled: Vec<_> = analysis.cells.iter().filter(|cell| !cell.problems.is_empty()).collect();
    if !troubled.is_empty() {
        let _ = writeln!(out, "## Crashed, failed and incomplete cells\n");
        for cell in troubled {
            for problem in &cell.problems {
                let _ = writeln!(out, "- {}: {}", escape(&cell.label), escape(&problem.describe(cell.reps)));
            }
        }
        let _ = writeln!(out);
    }
    if !analysis.notes.is_empty() {
        let _ = writeln!(out, "## Notes\n");
        for note in &analysis.notes {
            let _ = writeln!(out, "- {}", prose(note));
        }
        let _ = writeln!(out);
    }
    let _ = writeln!(
        out,
        "---\nWritten by jload {} from the results directory; regenerate with `jload report DIR`.",
        escape(&analysis.jload_version)
    );
    out
}

/// The memory section: per cell in a box or with native memory figures, its table (nothing for other runs).
fn memory(analysis: &Analysis) -> String {
    let cells = memory_cells(analysis);
    if cells.is_empty() {
        return String::new();
    }
    let mut out = format!("## Memory\n\n{}\n\n", prose(MEMORY_NOTE));
    for (info, memory) in cells {
        let _ = writeln!(out, "### {}\n", escape(&title(info, memory)));
        if let Some(killed) = killed_line(memory) {
            let _ = writeln!(out, "**{}**\n", prose(&killed));
        }
        let _ = writeln!(out, "{}", table(&memory_table(memory)));
    }
    out
}

/// Per measured phase, what each profiled cell's flight recording says (docs/profiling.md); nothing without one.
fn profiles(analysis: &Analysis) -> String {
    let mut out = String::new();
    for phase in analysis.phases.iter().filter(|phase| phase.measured) {
        for cell in &phase.cells {
            let Some((rep, profile)) = &cell.profile else { continue };
            if out.is_empty() {
                out = format!("## Profiles (JDK Flight Recorder)\n\n{}\n\n", prose(PROFILE_NOTE));
            }
            let label =
                analysis.cells.iter().find(|info| info.id == cell.cell).map_or(cell.cell.as_str(), |info| &info.label);
            let _ = writeln!(out, "### Phase {}: {} (repeat {rep})\n", escape(&phase.name), escape(label));
            for line in profile_lines(profile) {
                let _ = writeln!(out, "- {}", escape(&line));
            }
            out.push('\n');
        }
    }
    out
}

const PROFILE_NOTE: &str = "Each profiled cell's first measured repeat, over its load's window: the hottest methods \
    (their share of the execution samples on top of the stack, and anywhere in it), what was allocated by class and \
    by site, the longest waits on monitors, parks and I/O, VM operations, the phases of the longest GC pause. Each \
    phase's recording is a .jfr file of its name in the repeat's folder; see docs/profiling.md.";

/// The profile in lines: each list's first entries.
fn profile_lines(profile: &crate::jvm::jfr::profile::PhaseProfile) -> Vec<String> {
    let pct = |share: f64| format!("{:.0} %", share * 100.0);
    let mut lines = Vec::new();
    let hot: Vec<String> = profile
        .hot_methods
        .iter()
        .take(5)
        .map(|hot| format!("{} {} (total {})", hot.method, pct(hot.self_share), pct(hot.total_share)))
        .collect();
    lines.push(format!("hot methods ({} samples): {}", profile.execution_samples, or_none(&hot)));
    let mib = |bytes: u64| format!("{:.1} MiB", bytes as f64 / 1048576.0);
    let by = |shares: &[crate::jvm::jfr::profile::Share]| -> Vec<String> {
        shares.iter().take(3).map(|share| format!("{} {}", share.name, pct(share.share))).collect()
    };
    lines.push(format!(
        "allocated {}: by class {}; by site {}",
        mib(profile.allocated_bytes),
        or_none(&by(&profile.allocation_by_class)),
        or_none(&by(&profile.allocation_by_site))
    ));
    let waits = |list: &[crate::jvm::jfr::profile::Contention]| -> Vec<String> {
        list.iter()
            .take(3)
            .map(|wait| {
                let mut text = format!(
                    "{} ×{} {:.1} ms in all, longest {:.1} ms",
                    wait.on, wait.count, wait.total_ms, wait.longest_ms
                );
                if let Some(frame) = &wait.waiting_frame {
                    text += &format!(", waiting in {frame}");
                }
                if let Some(owner) = &wait.previous_owner {
                    text += &format!(", held by {owner}");
                }
                text
            })
            .collect()
    };
    lines.push(format!("monitors: {}", or_none(&waits(&profile.monitors))));
    lines.push(format!(
        "parks ({} of idle pool workers left out): {}",
        profile.idle_parks,
        or_none(&waits(&profile.parks))
    ));
    lines.push(format!("I/O of 10 ms or more: {}", or_none(&waits(&profile.io))));
    lines.push(format!("VM operations: {}", or_none(&waits(&profile.vm_operations))));
    if let Some(pause) = profile.longest_pauses.first() {
        let phases: Vec<String> = pause.phases.iter().take(3).map(|(name, ms)| format!("{name} {ms:.1} ms")).collect();
        lines.push(format!("longest GC pause: {} {:.1} ms: {}", pause.name, pause.pause_ms, or_none(&phases)));
    }
    lines.push(format!(
        "{} compilations, {} deoptimizations, {} classes loaded",
        profile.compilations, profile.deoptimizations, profile.class_loads
    ));
    lines
}

fn or_none(items: &[String]) -> String {
    if items.is_empty() { "none".to_string() } else { items.join("; ") }
}

/// "Is it the GC?": per measured phase, a row per cell.
fn is_it_gc(analysis: &Analysis) -> String {
    let mut out = format!("## Is it the GC?\n\n{}\n\n", prose(IS_IT_GC_NOTE));
    for phase in analysis.phases.iter().filter(|phase| phase.measured) {
        if let Some(attribution) = gc_attribution_table(analysis, phase) {
            let _ = writeln!(out, "### Phase {}\n\n{}", escape(&phase.name), table(&attribution));
        }
    }
    out
}

/// The grids section (sweeps with two or more varying axes), else nothing.
fn grids(analysis: &Analysis) -> String {
    let Some(axes) = grid_axes(analysis) else {
        return String::new();
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "## Grids: {} × {}\n\n{}\n",
        escape(&axes.rows),
        escape(&axes.columns),
        prose(&grid_note(&axes, analysis))
    );
    for phase in analysis.phases.iter().filter(|phase| phase.measured) {
        let _ = writeln!(out, "### Phase {}\n", escape(&phase.name));
        for grid in phase_grids(analysis, &axes, phase) {
            let _ = writeln!(out, "**{}**\n\n{}", escape(&grid.title()), table(&grid.table));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_in_labels_shows_as_text() {
        assert_eq!(escape("<script>alert(1)</script>"), "&lt;script>alert(1)&lt;/script>");
        assert_eq!(escape("a|b *c* _d_ [e](f) `g` #h"), "a\\|b \\*c\\* \\_d\\_ \\[e\\](f) \\`g\\` \\#h");
        assert_eq!(escape("&amp; &#60; &#x3C;"), "\\&amp; \\&\\#60; \\&\\#x3C;");
        assert_eq!(escape("> quoted"), "\\> quoted");
        assert_eq!(escape("-Xmx64m"), "-Xmx64m");
        assert_eq!(escape("two\nlines"), "two lines");
    }

    #[test]
    fn what_markdown_would_not_read_as_markup_stays_as_written() {
        assert_eq!(escape("p99<=10ms, errors<=0.1%"), "p99<=10ms, errors<=0.1%");
        assert_eq!(escape("/random_set?keyRange=20000&valueSize=100"), "/random\\_set?keyRange=20000&valueSize=100");
        assert_eq!(escape("a < b > c & d"), "a < b > c & d");
    }

    #[test]
    fn jloads_own_sentences_keep_their_code_spans_and_escape_the_rest() {
        assert_eq!(prose("with `rate`/`rates` or by *capacity*"), "with `rate`/`rates` or by \\*capacity\\*");
        assert_eq!(prose("a|b `x|y`"), "a\\|b `x\\|y`");
        assert_eq!(prose("a lone ` backtick"), "a lone \\` backtick");
    }
}

/// The box search's answers and each search's trials (a plan with `[box_search]`); nothing without one.
fn box_searches(analysis: &Analysis) -> String {
    if analysis.box_searches.is_empty() {
        return String::new();
    }
    let mut out = String::from("## Smallest box holding the SLO\n\n");
    for finding in &analysis.box_searches {
        let _ = writeln!(out, "- {}", escape(&finding.sentence));
    }
    let _ = writeln!(out, "\n| cell | trial | limit | outcome |\n|---|---:|---:|---|");
    for finding in &analysis.box_searches {
        let dimension = finding.search.range.dimension;
        for (index, trial) in finding.search.trials.iter().enumerate() {
            let outcome = trial.failure.as_deref().map_or("holds the SLO".to_string(), |why| format!("fails: {why}"));
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} |",
                escape(&finding.search.cell),
                index + 1,
                dimension.words(trial.limit),
                escape(&outcome)
            );
        }
    }
    out.push('\n');
    out
}

/// A memory tune's frontier of memory against capacity as a table, or why it has none; nothing for other objectives.
fn frontier_table(at_rate: Option<f64>, cell: &CellTuneSection) -> String {
    if let Some(note) = &cell.frontier_note {
        return format!("{}\n\n", escape(note));
    }
    let on: Vec<_> = cell.capacities.iter().filter(|point| point.on_frontier).collect();
    if on.is_empty() {
        return String::new();
    }
    let head = frontier_head(at_rate);
    let rule: Vec<&str> = head.iter().enumerate().map(|(at, _)| if at < 3 { "---:" } else { "---" }).collect();
    let mut out = format!("{FRONTIER_INTRO}\n\n| {} |\n|{}|\n", head.join(" | "), rule.join("|"));
    for point in on {
        let holds = point.holds_at_rate.map_or(String::new(), |holds| format!(" {} |", holds_words(holds)));
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |{holds}",
            escape(&point.memory_words),
            escape(&point.capacity_words),
            point.number,
            escape(&point.configuration)
        );
    }
    out + "\n"
}

/// The tune section (a plan with `[tune]`, docs/tune.md); nothing without one.
fn tune_section(analysis: &Analysis) -> String {
    let Some(tune) = &analysis.tune else { return String::new() };
    let mut out = String::new();
    for cell in &tune.cells {
        let _ = writeln!(out, "## {}\n\n- {}", escape(&tune_title(analysis, cell)), escape(&cell.answer));
        if let Some(verdict) = &cell.verdict {
            let _ = writeln!(out, "- Confirmed {}", escape(verdict));
        }
        out.push('\n');
        if !cell.best.is_empty() {
            let _ = writeln!(out, "Best configurations:\n\n| {} |", BEST_HEAD.join(" | "));
            let _ = writeln!(out, "|---:|---|---|---:|---:|---|---:|");
            for row in &cell.best {
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | {} | {} | {} | {} |",
                    row.number,
                    escape(&row.configuration),
                    escape(&settings_words(&row.options, &row.args)),
                    escape(&row.figure_words),
                    row.interval.as_deref().unwrap_or("—"),
                    escape(&row.repeats),
                    row.vs_default.as_deref().unwrap_or("—")
                );
            }
            out.push('\n');
        }
        out += &frontier_table(tune.at_rate, cell);
        match &cell.importance_note {
            Some(note) => {
                let _ = writeln!(out, "{}\n", escape(note));
            }
            None => {
                let _ = writeln!(out, "{}\n", escape(&shares(cell)));
            }
        }
        let _ = writeln!(out, "Trials:\n\n| {} |\n|---:|---|---|---|---|---|", HISTORY_HEAD.join(" | "));
        for row in &cell.trials {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} |",
                row.number,
                row.source,
                escape(&row.configuration),
                escape(&settings_words(&row.options, &row.args)),
                escape(&row.outcome),
                row.best_so_far.as_deref().map_or("—".to_string(), escape)
            );
        }
        out.push('\n');
    }
    out
}
