//! Is it the host? When a sweep's cell-repeats ran on several servers (`[target] hosts`), a server slower than the
//! others (another tenant, a throttled CPU, a different BIOS setting) spreads the repeats of every cell it ran. Per
//! measured phase and per headline figure the phase ranks (`metrics::ranked_headlines`), each repeat's figure is fitted
//! on the log scale as its cell's level times its host's factor (least squares over the cells that ran on two hosts or
//! more); [`blamed_hosts`] says which host measured differently from the others beyond the repeats' noise (the rule and
//! its thresholds are there), and the fit gives the share of the repeat-to-repeat variance the hosts explain and, per
//! cell, its spread before and after the host factors are taken out (the fit itself is `host_fit`'s). Nothing when the
//! phase ran on one machine.

use std::collections::{BTreeSet, HashMap};

use serde::Serialize;

use super::equal_load::PhaseKind;
use super::host_fit::{Contrast, Fit, Observation, Point};
use super::metrics::{CAPACITY, RepFigures, metric, ranked_headlines};
use super::stats::{ALPHA, Better};
use crate::report::words::percent;
use crate::results::{Results, Summary};

/// A host is blamed only when its figures differ from the others' by at least this share, however significant.
pub const MIN_HOST_EFFECT: f64 = 0.03;
/// A cell's spread follows its host when taking the host factors out cuts it by at least this share (and it was at
/// least [`MIN_HOST_EFFECT`] to begin with).
pub const MIN_SPREAD_CUT: f64 = 0.5;

/// The server of every cell-repeat that recorded one: (cell id, repeat) → ssh destination.
pub type RepHosts = HashMap<(String, u32), String>;

/// Whether the servers a phase ran on explain its repeats' spread (report.json's `hosts` of a phase).
#[derive(Debug, Clone, Serialize)]
pub struct HostEffect {
    /// The servers its measured repeats ran on, sorted.
    pub hosts: Vec<String>,
    /// One per headline figure the phase ranks that cells on two hosts or more measured.
    pub figures: Vec<FigureHostEffect>,
    /// What the report says about it, in one sentence.
    pub sentence: String,
}

/// The cell × host fit of one headline figure.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FigureHostEffect {
    /// Metric key (`rps`, `p99_ms`, `capacity_rps`).
    pub figure: &'static str,
    /// Cells that ran on two hosts or more (only they tell a host's effect from a cell's) and their repeats.
    pub cells: usize,
    pub repeats: usize,
    /// Residual degrees of freedom of the fit: repeats − cells − (hosts − 1).
    pub df: usize,
    /// Share of the repeat-to-repeat variance (of the log figures about their cell's mean) the host factors explain.
    pub variance_explained: f64,
    /// In host order.
    pub hosts: Vec<HostFactor>,
    /// The cells of the fit, in cell order.
    pub cell_spreads: Vec<CellSpread>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HostFactor {
    pub host: String,
    /// Its repeats and cells in the fit.
    pub repeats: usize,
    pub cells: usize,
    /// Its figures over those of `against` (geometric, cell by cell): 0.91 is 9 % lower.
    pub factor: f64,
    pub against: Vec<String>,
    /// Two-sided p of the factor being 1 (t-test in the fit); None without residual degrees of freedom.
    pub p: Option<f64>,
    /// Cells where every repeat it ran was beyond every repeat of `against`, on the factor's side.
    pub same_side_cells: usize,
    /// The host's figures differ by the rule of [`blamed_hosts`].
    pub explains: bool,
    /// `s2: 9 % lower req/s than s1 and s3 over 6 cells (p 0.001)`
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CellSpread {
    pub cell: String,
    /// (repeat, host) in repeat order.
    pub hosts: Vec<(u32, String)>,
    /// Its highest repeat over its lowest, minus one.
    pub spread: f64,
    /// The same once each repeat is divided by its host's factor.
    pub spread_without_hosts: f64,
    /// It ran on a blamed host and another, and the host factors cut its spread by [`MIN_SPREAD_CUT`] or more.
    pub explained: bool,
}

/// A cell of a measured phase as the host fit sees it (the report model's `CellPhase` is one): its id, its
/// counted repeats, and whether the phase ranks it on a figure.
pub trait RankedCell {
    fn id(&self) -> &str;
    fn counted_reps(&self) -> &[u32];
    fn is_ranked_on(&self, key: &str) -> bool;
}

/// The server of every cell-repeat whose meta.json names one.
pub fn rep_hosts(results: &Results) -> RepHosts {
    let mut hosts = RepHosts::new();
    for cell in &results.summary.cells {
        for rep in &cell.reps {
            if let Some(host) = results.host(&cell.id, rep.rep) {
                hosts.insert((cell.id.clone(), rep.rep), host);
            }
        }
    }
    hosts
}

/// The host effect of a measured phase, None when its repeats ran on fewer than two servers. `label` names a cell.
pub fn phase_host_effect<C: RankedCell>(
    summary: &Summary,
    phase: &str,
    kind: PhaseKind,
    cells: &[C],
    rep_hosts: &RepHosts,
    label: &dyn Fn(&str) -> String,
) -> Option<HostEffect> {
    let host_of = |cell: &C, rep: u32| rep_hosts.get(&(cell.id().to_string(), rep));
    let hosts: BTreeSet<&String> =
        cells.iter().flat_map(|cell| cell.counted_reps().iter().filter_map(move |rep| host_of(cell, *rep))).collect();
    if hosts.len() < 2 {
        return None;
    }
    let figures: Vec<FigureHostEffect> = ranked_headlines(kind)
        .filter_map(|key| figure_effect(key, &observations(summary, phase, cells, rep_hosts, key)))
        .collect();
    let hosts: Vec<String> = hosts.into_iter().cloned().collect();
    let sentence = sentence(&hosts, &figures, label);
    Some(HostEffect { hosts, figures, sentence })
}

/// Each counted repeat's figure `key` with its server, in the cells ranked on it.
fn observations<C: RankedCell>(
    summary: &Summary,
    phase: &str,
    cells: &[C],
    rep_hosts: &RepHosts,
    key: &str,
) -> Vec<Observation> {
    let mut observations = Vec::new();
    for cell in cells.iter().filter(|cell| cell.is_ranked_on(key)) {
        for (rep, record) in
            summary.measurements(cell.id(), phase).into_iter().filter(|(rep, _)| cell.counted_reps().contains(rep))
        {
            let value = (metric(key).read)(&RepFigures { rep, record, alloc_mb_s: None, rss_life_peak_mb: None });
            if let (Some(value), Some(host)) = (value, rep_hosts.get(&(cell.id().to_string(), rep))) {
                observations.push(Observation { cell: cell.id().to_string(), rep, host: host.clone(), value });
            }
        }
    }
    observations
}

/// The cell × host fit of one figure's repeats; None when fewer than two hosts ran cells that also ran elsewhere, or
/// when the hosts fall into groups that share no cell (then no host can be compared with all the others).
pub fn figure_effect(key: &'static str, observations: &[Observation]) -> Option<FigureHostEffect> {
    let fit = Fit::of(observations)?;
    let better = metric(key).better.expect("headline figures have a direction");
    let blamed = blamed_hosts(&fit, better);
    let hosts = (0..fit.hosts.len())
        .map(|host| match blamed.iter().find(|blame| blame.host == host) {
            Some(blame) => host_factor(&fit, key, host, &blame.against, blame.contrast, true),
            None => {
                let against = unblamed_others(&fit, &blamed, host);
                host_factor(&fit, key, host, &against, fit.contrast(host, &against), false)
            }
        })
        .collect();
    let blamed_hosts: Vec<usize> = blamed.iter().map(|blame| blame.host).collect();
    Some(FigureHostEffect {
        figure: key,
        cells: fit.cells.len(),
        repeats: fit.points.len(),
        df: fit.df,
        variance_explained: fit.variance_explained(),
        hosts,
        cell_spreads: (0..fit.cells.len()).map(|cell| cell_spread(&fit, cell, &blamed_hosts)).collect(),
    })
}

/// What a host that is not blamed is compared with: the other hosts not blamed, or all the others when it is the
/// only one left.
fn unblamed_others(fit: &Fit, blamed: &[Blame], host: usize) -> Vec<usize> {
    let others = (0..fit.hosts.len()).filter(|&other| other != host);
    let unblamed: Vec<usize> = others.clone().filter(|&other| blamed.iter().all(|blame| blame.host != other)).collect();
    if unblamed.is_empty() { others.collect() } else { unblamed }
}

/// A host blamed for the spread, and the hosts it was compared with.
#[derive(Debug, Clone)]
struct Blame {
    host: usize,
    against: Vec<usize>,
    contrast: Contrast,
}

/// The rule: the host whose factor is furthest from 1 among the hosts not yet blamed (on a tie, the one that measured
/// worse), compared with the other hosts not yet blamed, is blamed when its factor is off by at least
/// [`MIN_HOST_EFFECT`] and the t-test of its log factor in the fit (residual variance of the cell × host model) gives
/// p < [`ALPHA`] / (hosts − 1) — Bonferroni over the hosts' independent comparisons; then the next is tried against
/// the hosts still unblamed, until one is not blamed or fewer than two remain. So one slow host among three is blamed
/// alone (the other two are not "faster" for being compared with it), and of two hosts only the worse can be.
fn blamed_hosts(fit: &Fit, better: Better) -> Vec<Blame> {
    let level = ALPHA / (fit.hosts.len() - 1) as f64;
    let mut blamed: Vec<Blame> = Vec::new();
    loop {
        let unblamed: Vec<usize> =
            (0..fit.hosts.len()).filter(|host| blamed.iter().all(|blame| blame.host != *host)).collect();
        if unblamed.len() < 2 {
            return blamed;
        }
        let candidate = unblamed
            .iter()
            .map(|&host| {
                let against: Vec<usize> = unblamed.iter().copied().filter(|&other| other != host).collect();
                Blame { host, contrast: fit.contrast(host, &against), against }
            })
            .reduce(|best, next| {
                let (a, b) = (best.contrast.log_factor, next.contrast.log_factor);
                let further = b.abs() > a.abs() + 1e-12;
                let tie_and_worse = (b.abs() - a.abs()).abs() <= 1e-12 && better.prefers(a, b);
                if further || tie_and_worse { next } else { best }
            })
            .expect("two hosts or more");
        let off = (candidate.contrast.log_factor.exp() - 1.0).abs() >= MIN_HOST_EFFECT;
        let significant = candidate.contrast.p.is_some_and(|p| p < level);
        if !(off && significant) {
            return blamed;
        }
        blamed.push(candidate);
    }
}

/// A cell's spread, and whether it follows its host: it ran on a blamed host and another, its repeats are at least
/// [`MIN_HOST_EFFECT`] apart, and taking the host factors out cuts that by [`MIN_SPREAD_CUT`] or more.
fn cell_spread(fit: &Fit, cell: usize, blamed: &[usize]) -> CellSpread {
    let points: Vec<&Point> = fit.points.iter().filter(|point| point.cell == cell).collect();
    let (spread, spread_without_hosts) = fit.cell_spread(cell);
    let on_blamed = points.iter().any(|point| blamed.contains(&point.host));
    let explained = on_blamed && spread >= MIN_HOST_EFFECT && spread_without_hosts <= spread * (1.0 - MIN_SPREAD_CUT);
    let mut hosts: Vec<(u32, String)> = points.iter().map(|point| (point.rep, fit.hosts[point.host].clone())).collect();
    hosts.sort();
    CellSpread { cell: fit.cells[cell].clone(), hosts, spread, spread_without_hosts, explained }
}

fn host_factor(fit: &Fit, key: &str, host: usize, against: &[usize], contrast: Contrast, explains: bool) -> HostFactor {
    let mine = |point: &&Point| point.host == host;
    let cells: BTreeSet<usize> = fit.points.iter().filter(mine).map(|point| point.cell).collect();
    let factor = contrast.log_factor.exp();
    let same_side_cells = cells.iter().filter(|&&cell| fit.beyond(cell, host, against, factor < 1.0)).count();
    let against_names: Vec<String> = against.iter().map(|&other| fit.hosts[other].clone()).collect();
    let p = contrast.p.map(|p| format!(", p {p:.3}")).unwrap_or_default();
    let text = format!(
        "{}: {} than {} over {} cell{}{p}",
        fit.hosts[host],
        difference(key, factor),
        names(&against_names),
        cells.len(),
        if cells.len() == 1 { "" } else { "s" }
    );
    HostFactor {
        host: fit.hosts[host].clone(),
        repeats: fit.points.iter().filter(mine).count(),
        cells: cells.len(),
        factor,
        against: against_names,
        p: contrast.p,
        same_side_cells,
        explains,
        text,
    }
}

/// `9.1 % lower req/s`, `12 % higher P99`.
fn difference(key: &str, factor: f64) -> String {
    let direction = if factor < 1.0 { "lower" } else { "higher" };
    format!("{} % {direction} {}", percent((factor - 1.0).abs()), figure_name(key))
}

/// How a sentence names a figure.
fn figure_name(key: &str) -> &'static str {
    match key {
        CAPACITY => "capacity",
        key => metric(key).label,
    }
}

/// `s1`, `s1 and s3`, `s1, s3 and s4`.
fn names(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

impl HostEffect {
    /// Some host explains the spread of some figure.
    pub fn blames(&self) -> bool {
        self.figures.iter().flat_map(|figure| &figure.hosts).any(|host| host.explains)
    }

    /// One note per cell whose spread follows its host, for under the phase's table: `-Xmx64m: req/s repeats 38 %
    /// apart, 2.1 % with the host factors taken out (repeat 1 on s1, repeat 2 on s2, repeat 3 on s3)`.
    pub fn cell_notes(&self, label: &dyn Fn(&str) -> String) -> Vec<String> {
        let mut notes = Vec::new();
        for figure in &self.figures {
            for cell in figure.cell_spreads.iter().filter(|cell| cell.explained) {
                let ran: Vec<String> = cell.hosts.iter().map(|(rep, host)| format!("repeat {rep} on {host}")).collect();
                notes.push(format!(
                    "{}: {} repeats {} % apart, {} % with the host factors taken out ({})",
                    label(&cell.cell),
                    figure_name(figure.figure),
                    percent(cell.spread),
                    percent(cell.spread_without_hosts),
                    ran.join(", ")
                ));
            }
        }
        notes
    }
}

/// The phase's sentence: which cells' spread follows which host, or that no host measured differently.
fn sentence(hosts: &[String], figures: &[FigureHostEffect], label: &dyn Fn(&str) -> String) -> String {
    if figures.is_empty() {
        return format!(
            "Repeats ran on {} but no cell ran on two of them: a host's effect cannot be told from its cells'.",
            names(hosts)
        );
    }
    let blamed: Vec<String> = figures.iter().filter_map(|figure| blame_clause(figure, label)).collect();
    if blamed.is_empty() {
        let shares: Vec<String> = figures
            .iter()
            .map(|figure| format!("{} {} %", figure_name(figure.figure), percent(figure.variance_explained)))
            .collect();
        return format!(
            "Repeats ran on {}: no host measured differently from the others beyond the repeats' noise (share of the \
             repeat-to-repeat variance the hosts explain: {}).",
            names(hosts),
            shares.join(", ")
        );
    }
    format!("{}.", blamed.join("; "))
}

/// `The spread of cells A, B follows their host: s2 measured 9.1 % lower req/s than s1 and s3, lower in all 6 cells it
/// ran (the hosts explain 78 % of the repeat-to-repeat variance)`, or None when no host is blamed on this figure.
fn blame_clause(figure: &FigureHostEffect, label: &dyn Fn(&str) -> String) -> Option<String> {
    let hosts: Vec<String> = figure
        .hosts
        .iter()
        .filter(|host| host.explains)
        .map(|host| {
            let side = side_word(host.factor);
            let cells = match (host.same_side_cells, host.cells) {
                (1, 1) => format!("{side} in the one cell it ran"),
                (same, all) if same == all => format!("{side} in all {all} cells it ran"),
                (same, all) => format!("{side} in {same} of the {all} cells it ran"),
            };
            format!(
                "{} measured {} than {}, {cells}",
                host.host,
                difference(figure.figure, host.factor),
                names(&host.against)
            )
        })
        .collect();
    if hosts.is_empty() {
        return None;
    }
    let cells: Vec<String> =
        figure.cell_spreads.iter().filter(|cell| cell.explained).map(|cell| label(&cell.cell)).collect();
    let whose = match cells.as_slice() {
        [] => format!("The repeats' {}", figure_name(figure.figure)),
        [one] => format!("The spread of cell {one}"),
        many => format!("The spread of cells {}", many.join(", ")),
    };
    Some(format!(
        "{whose} follows {}: {} (the hosts explain {} % of the repeat-to-repeat variance)",
        if cells.len() > 1 { "their host" } else { "the host" },
        hosts.join(", and "),
        percent(figure.variance_explained)
    ))
}

fn side_word(factor: f64) -> &'static str {
    if factor < 1.0 { "lower" } else { "higher" }
}

#[cfg(test)]
#[path = "host_effect_tests.rs"]
mod tests;
