//! `tune.json`: what a tune tried per cell and how each trial ended — its configuration, the JVM options it added,
//! where it came from (the defaults, the space-filling start, the model), its figure or why it was infeasible, its
//! seconds — and which parameters mattered (docs/results.md, docs/tune.md); the best trial and the answer in one line
//! for every output; for objective "memory", each trial's capacity and memory and the frontier of the two.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::load::format::{format_ms, format_rate};
pub use crate::plan::tune::Objective;
pub use crate::tune::search::Method;

fn model_method() -> Method {
    Method::Model
}

/// The whole file.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct TuneRecord {
    pub objective: Objective,
    pub seed: u64,
    /// How configurations were chosen after the defaults (absent in files before it was recorded: the model).
    #[serde(default = "model_method")]
    pub method: Method,
    /// The budget per cell: trials (None: unlimited) and seconds (None: unlimited).
    pub budget_trials: Option<u64>,
    pub budget_seconds: Option<f64>,
    /// Objective "memory": the rate (req/s) it was judged at (`[tune] at_rate`); absent without one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_rate: Option<f64>,
    /// One search per cell of the plan, in the order they ran.
    pub cells: Vec<CellTune>,
}

/// One cell's search.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CellTune {
    /// The plan's cell (`default` without axes).
    pub cell: String,
    pub axes: BTreeMap<String, String>,
    /// In the order they ran; trial 1 is the defaults.
    pub trials: Vec<TuneTrial>,
    /// Each parameter's share of the figure's variation (largest first), from the model over the feasible trials;
    /// empty with fewer than [`IMPORTANCE_MIN_FEASIBLE`] of them.
    #[serde(default)]
    pub importance: Vec<ParameterShare>,
    /// The finalists measured again once the search ended (`confirm` ≥ 2); None before, or without.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirmation: Option<Confirmation>,
}

/// The search's finalists measured again: each figure the median of its repeats, with an interval, and Welch's
/// test — `jload compare`'s — of the confirmed best against the defaults and the runner-up (docs/tune.md).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Confirmation {
    /// Measurements per finalist: its trial (repeat 1) and the runs after the search.
    pub repeats: u32,
    /// The confirmed order: those feasible in every repeat by median, best first, then the others.
    pub finalists: Vec<Finalist>,
    /// The first finalist against the defaults' trial (None: not tested — the defaults are the best, were
    /// infeasible or had too few feasible repeats).
    pub against_defaults: Option<Difference>,
    /// The first finalist against the next one feasible in every repeat.
    pub against_runner_up: Option<Difference>,
    /// Wall-clock seconds of the runs after the search.
    pub seconds: f64,
}

/// One finalist's repeats.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Finalist {
    /// Its trial's number.
    pub trial: u32,
    /// The objective's figure per repeat, repeat 1 (the trial) first; None where that repeat was infeasible.
    pub figures: Vec<Option<f64>>,
    /// Why the first infeasible repeat was, when one was.
    pub infeasible: Option<String>,
    /// The median of the feasible repeats, and the 95 % t interval of their mean (two or more).
    pub median: Option<f64>,
    pub interval: Option<[f64; 2]>,
}

/// Welch's two-sided test of the first finalist against another.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Difference {
    /// The other finalist's trial number.
    pub trial: u32,
    pub p: f64,
    /// p < 0.05: the two differ; else they cannot be told apart.
    pub significant: bool,
}

impl Finalist {
    pub fn feasible_everywhere(&self) -> bool {
        self.figures.iter().all(Option::is_some) && self.median.is_some()
    }
}

impl Confirmation {
    /// The confirmed best: the first finalist, when it was feasible in every repeat.
    pub fn best(&self) -> Option<&Finalist> {
        self.finalists.first().filter(|finalist| finalist.feasible_everywhere())
    }

    pub fn finalist(&self, trial: u32) -> Option<&Finalist> {
        self.finalists.iter().find(|finalist| finalist.trial == trial)
    }

    /// The runs after the search.
    pub fn runs(&self) -> usize {
        self.finalists.iter().map(|finalist| finalist.figures.len().saturating_sub(1)).sum()
    }
}
/// The feasible trials (besides the defaults) the model needs before it says which parameters mattered.
pub const IMPORTANCE_MIN_FEASIBLE: usize = 6;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ParameterShare {
    pub parameter: String,
    /// 0–1.
    pub share: f64,
}

/// One trial: a fresh cell-repeat with the trial's options after the cell's own.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct TuneTrial {
    /// 1, 2, … within its cell.
    pub number: u32,
    /// `defaults`, `design` or `model`.
    pub source: String,
    /// Each parameter's value as the user writes it (`heap` → `384m`); empty for the defaults.
    pub config: BTreeMap<String, String>,
    /// The configuration in one line (`heap=384m gc=G1`), or `defaults` for trial 1.
    pub described: String,
    /// The JVM options the trial added to its cell's.
    pub options: Vec<String>,
    /// The program arguments the trial added to its cell's (a parameter with `args`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// Its cell id in `summary.json` and its folder under `cells/` (`trial=t03`).
    pub cell: String,
    pub dir: String,
    /// The objective's figure in its own unit (req/s, ms, bytes); None when infeasible.
    pub figure: Option<f64>,
    /// Why it gave no figure, in one line (`preflight: …`, `phase 'get': p99<=50ms missed (61.2 ms)`).
    pub infeasible: Option<String>,
    /// Wall-clock seconds, preflight to stop.
    pub seconds: f64,
    /// Objective "memory" with a measured capacity phase: the rate it held within the SLO (req/s), feasible or not;
    /// absent when the run did not end well or found none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity: Option<f64>,
    /// Objective "memory": the memory it used over its whole life (bytes; box peak, else RSS peak), feasible or not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<f64>,
    /// On its cell's frontier of memory against capacity ([`frontier`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub on_frontier: bool,
}

/// The Pareto frontier of memory (lower is better) against capacity (higher is better) over the trials that have
/// both — the infeasible ones below `at_rate` too: they are what less memory buys. A trial is on it unless another
/// has no more memory and no less capacity and is better in one; two trials with the same figures both are. Their
/// numbers, least memory first.
pub fn frontier(trials: &[TuneTrial]) -> Vec<u32> {
    let points: Vec<(u32, f64, f64)> =
        trials.iter().filter_map(|trial| Some((trial.number, trial.memory?, trial.capacity?))).collect();
    let dominated = |(_, memory, capacity): &(u32, f64, f64)| {
        points.iter().any(|(_, other_memory, other_capacity)| {
            other_memory <= memory && other_capacity >= capacity && (other_memory < memory || other_capacity > capacity)
        })
    };
    let mut on: Vec<(u32, f64, f64)> = points.iter().filter(|point| !dominated(point)).copied().collect();
    on.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.2.total_cmp(&b.2)).then(a.0.cmp(&b.0)));
    on.into_iter().map(|(number, _, _)| number).collect()
}

impl TuneTrial {
    /// What the outputs call it: `defaults`, or its configuration (`heap=384m gc=G1`).
    pub fn name(&self) -> String {
        if self.source == "defaults" { "defaults".to_string() } else { self.described.clone() }
    }

    /// What it added to its cell's command line, in one line ([`settings_words`]).
    pub fn settings_words(&self) -> String {
        settings_words(&self.options, &self.args)
    }
}

/// JVM options and program arguments in one line, as every output shows what a trial set: the options, then
/// `args: …` when there are program arguments (`-Xmx384m args: --container-threads 50`).
pub fn settings_words(options: &[String], args: &[String]) -> String {
    let args = (!args.is_empty()).then(|| format!("args: {}", args.join(" ")));
    options.iter().cloned().chain(args).collect::<Vec<_>>().join(" ")
}

impl Objective {
    /// A figure as "higher is better", as the search wants it.
    pub fn score(self, figure: f64) -> f64 {
        match self {
            Objective::Capacity => figure,
            Objective::P99 | Objective::Memory => -figure,
        }
    }

    /// A figure in words: `capacity 41,200 req/s`, `p99 3.125 ms`, `memory 301 MiB`.
    pub fn words(self, figure: f64) -> String {
        format!("{} {}", self.name(), self.value(figure))
    }

    /// A figure without the objective's name: `41,200 req/s`, `3.125 ms`, `301 MiB`.
    pub fn value(self, figure: f64) -> String {
        format!("{} {}", self.number(figure), self.unit())
    }

    /// A figure without its unit: `41,200`, `3.125`, `301`.
    pub fn number(self, figure: f64) -> String {
        match self {
            Objective::Capacity => format_rate(figure),
            Objective::P99 => format_ms(figure),
            Objective::Memory => format!("{}", (figure / (1u64 << 20) as f64).round()),
        }
    }

    pub fn unit(self) -> &'static str {
        match self {
            Objective::Capacity => "req/s",
            Objective::P99 => "ms",
            Objective::Memory => "MiB",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Objective::Capacity => "capacity",
            Objective::P99 => "p99",
            Objective::Memory => "memory",
        }
    }
}

impl CellTune {
    /// The best trial: the confirmed best where the finalists were measured again, else the best feasible trial
    /// (the first of equals), defaults included.
    pub fn best(&self, objective: Objective) -> Option<&TuneTrial> {
        if let Some(best) = self.confirmation.as_ref().and_then(Confirmation::best) {
            return self.trial(best.trial);
        }
        self.searched_best(objective)
    }

    pub fn trial(&self, number: u32) -> Option<&TuneTrial> {
        self.trials.iter().find(|trial| trial.number == number)
    }

    /// A trial's figure as every output shows it: the median of its repeats where it was confirmed, else its own.
    pub fn figure(&self, trial: &TuneTrial) -> Option<f64> {
        match self.confirmation.as_ref().and_then(|confirmation| confirmation.finalist(trial.number)) {
            Some(finalist) => finalist.median,
            None => trial.figure,
        }
    }

    /// The best feasible trial of the search (the first of equals), defaults included.
    pub fn searched_best(&self, objective: Objective) -> Option<&TuneTrial> {
        self.trials.iter().filter(|trial| trial.figure.is_some()).fold(None, |best: Option<&TuneTrial>, trial| {
            match best {
                Some(best) if objective.score(best.figure.unwrap()) >= objective.score(trial.figure.unwrap()) => {
                    Some(best)
                }
                _ => Some(trial),
            }
        })
    }

    /// The `count` best feasible trials, best first.
    pub fn top(&self, objective: Objective, count: usize) -> Vec<&TuneTrial> {
        let mut feasible: Vec<&TuneTrial> = self.trials.iter().filter(|trial| trial.figure.is_some()).collect();
        feasible.sort_by(|a, b| objective.score(b.figure.unwrap()).total_cmp(&objective.score(a.figure.unwrap())));
        feasible.truncate(count);
        feasible
    }

    /// The best figure up to and including each trial (None while no trial was feasible).
    pub fn best_so_far(&self, objective: Objective) -> Vec<Option<f64>> {
        let mut best: Option<f64> = None;
        self.trials
            .iter()
            .map(|trial| {
                if let Some(figure) = trial.figure
                    && best.is_none_or(|best| objective.score(figure) > objective.score(best))
                {
                    best = Some(figure);
                }
                best
            })
            .collect()
    }

    /// Mark the trials on the frontier of memory against capacity ([`frontier`]), after each trial.
    pub fn mark_frontier(&mut self) {
        let on = frontier(&self.trials);
        for trial in &mut self.trials {
            trial.on_frontier = on.contains(&trial.number);
        }
    }

    /// The trials on the frontier, least memory first.
    pub fn frontier_trials(&self) -> Vec<&TuneTrial> {
        let mut on: Vec<&TuneTrial> = self.trials.iter().filter(|trial| trial.on_frontier).collect();
        on.sort_by(|a, b| a.memory.unwrap_or_default().total_cmp(&b.memory.unwrap_or_default()));
        on
    }

    /// The frontier in one line, `frontier (memory → capacity): 52 MiB → 40 req/s (t02), 70 MiB → 80 req/s (t03)`;
    /// None without one.
    pub fn frontier_words(&self) -> Option<String> {
        let points: Vec<String> = self
            .frontier_trials()
            .iter()
            .map(|trial| {
                format!(
                    "{} → {} (t{:02})",
                    Objective::Memory.value(trial.memory.unwrap_or_default()),
                    Objective::Capacity.value(trial.capacity.unwrap_or_default()),
                    trial.number
                )
            })
            .collect();
        (!points.is_empty()).then(|| format!("frontier (memory → capacity): {}", points.join(", ")))
    }

    /// The search's seconds and the confirmation's.
    pub fn seconds(&self) -> f64 {
        self.trials.iter().map(|trial| trial.seconds).sum::<f64>()
            + self.confirmation.as_ref().map_or(0.0, |confirmation| confirmation.seconds)
    }

    /// The answer in one line: `best: heap=384m gc=G1 — capacity 41,200 req/s (39,800–42,100), 1.59× the default's
    /// 25,900 req/s; 17 trial(s) + 6 confirming run(s), 38 min` (the cell first when the plan has axes; the interval
    /// where the finalists were measured again).
    pub fn answer(&self, objective: Objective) -> String {
        let cell = if self.cell == "default" { String::new() } else { format!("{}: ", self.cell) };
        let runs = self.confirmation.as_ref().map_or(0, Confirmation::runs);
        let confirming = if runs > 0 { format!(" + {runs} confirming run(s)") } else { String::new() };
        let spent = format!("{} trial(s){confirming}, {}", self.trials.len(), duration_words(self.seconds()));
        if let Some(confirmation) = self.confirmation.as_ref().filter(|confirmation| confirmation.best().is_none())
            && let Some(searched) = self.searched_best(objective)
        {
            let name = searched.name();
            return format!(
                "{cell}no finalist held in all {} repeats (the search's best single trial: {name}, {}); {spent}",
                confirmation.repeats,
                objective.words(searched.figure.expect("feasible"))
            );
        }
        let Some((best, figure)) = self.best(objective).and_then(|best| Some((best, self.figure(best)?))) else {
            return format!("{cell}no feasible configuration in {spent}");
        };
        let interval = self.interval_words(objective, best.number);
        let defaults = self.trials.first().filter(|trial| trial.source == "defaults");
        let beside = match defaults.map(|trial| (self.figure(trial), &trial.infeasible)) {
            _ if best.source == "defaults" => "the defaults (the JVM's ergonomics): no trial beat them".to_string(),
            Some((Some(default), _)) if default != 0.0 => {
                format!("{:.2}× the default's {}", figure / default, objective.value(default))
            }
            Some((None, Some(why))) => format!("the defaults were infeasible ({why})"),
            _ => "the defaults gave no figure".to_string(),
        };
        format!("{cell}best: {} — {}{interval}, {beside}; {spent}", best.name(), objective.words(figure))
    }

    /// ` (39,800–42,100)`: a confirmed trial's interval, empty for one without.
    fn interval_words(&self, objective: Objective, trial: u32) -> String {
        let finalist = self.confirmation.as_ref().and_then(|confirmation| confirmation.finalist(trial));
        match finalist.and_then(|finalist| finalist.interval) {
            Some([low, high]) => format!(" ({}–{})", objective.number(low), objective.number(high)),
            None => String::new(),
        }
    }

    /// What the repeats said, in one line; None without a confirmation: `over 3 repeats each: better than the
    /// defaults (p = 0.003); the runner-up, heap=512m gc=G1 at 40,100 req/s (38,000–42,000), cannot be told apart
    /// from the best (p = 0.41): either will do`.
    pub fn verdict(&self, objective: Objective) -> Option<String> {
        let confirmation = self.confirmation.as_ref()?;
        let mut parts = Vec::new();
        let best = confirmation.best();
        let best_is_defaults = best.and_then(|best| self.trial(best.trial)).is_some_and(|t| t.source == "defaults");
        let it = if best_is_defaults { "the defaults" } else { "the best" };
        match (&confirmation.against_defaults, best) {
            (Some(test), _) if test.significant => {
                parts.push(format!("better than the defaults ({})", p_words(test.p)))
            }
            (Some(test), _) => parts.push(format!(
                "the best cannot be told apart from the defaults ({}): the gain is within the noise",
                p_words(test.p)
            )),
            (None, None) => parts.push("no finalist was feasible in every repeat".to_string()),
            (None, Some(_)) => {}
        }
        if let Some(test) = &confirmation.against_runner_up
            && let Some(runner_up) = self.trial(test.trial)
        {
            let name =
                if runner_up.source == "defaults" { "defaults".to_string() } else { runner_up.described.clone() };
            let at = self.figure(runner_up).map_or(String::new(), |figure| {
                format!(" at {}{}", objective.value(figure), self.interval_words(objective, runner_up.number))
            });
            let standing = match test.significant {
                true => format!("is worse ({})", p_words(test.p)),
                false => format!("cannot be told apart from {it} ({}): either will do", p_words(test.p)),
            };
            parts.push(format!("the runner-up, {name}{at}, {standing}"));
        }
        for failed in confirmation.finalists.iter().filter(|finalist| !finalist.feasible_everywhere()) {
            let infeasible = failed.figures.iter().filter(|figure| figure.is_none()).count();
            let name = self.trial(failed.trial).map_or(String::new(), TuneTrial::name);
            parts.push(format!(
                "trial {} ({name}) was infeasible in {infeasible} of {} repeats ({})",
                failed.trial,
                failed.figures.len(),
                failed.infeasible.as_deref().unwrap_or("no figure")
            ));
        }
        Some(format!("over {} repeats each: {}", confirmation.repeats, parts.join("; ")))
    }
}

/// `p = 0.003`, `p = 0.41`, `p < 0.001`.
fn p_words(p: f64) -> String {
    match p {
        p if p < 0.001 => "p < 0.001".to_string(),
        p if p < 0.01 => format!("p = {p:.3}"),
        p => format!("p = {p:.2}"),
    }
}

/// `38 min`, `52 s`.
pub fn duration_words(seconds: f64) -> String {
    if seconds >= 120.0 { format!("{} min", (seconds / 60.0).round()) } else { format!("{} s", seconds.round()) }
}

/// Trials and searches for unit tests, spelled once.
#[cfg(test)]
pub mod fixtures {
    use super::*;

    /// A trial of 30 s; infeasible (the preflight refused it) where it has no figure.
    pub fn trial(number: u32, source: &str, described: &str, figure: Option<f64>) -> TuneTrial {
        TuneTrial {
            number,
            source: source.into(),
            config: BTreeMap::new(),
            described: described.into(),
            options: Vec::new(),
            args: Vec::new(),
            cell: format!("trial=t{number:02}"),
            dir: format!("trial=t{number:02}"),
            figure,
            infeasible: figure.is_none().then(|| "preflight: Unrecognized VM option".to_string()),
            seconds: 30.0,
            capacity: None,
            memory: None,
            on_frontier: false,
        }
    }

    /// The search of a plan without axes.
    pub fn search(trials: Vec<TuneTrial>) -> CellTune {
        CellTune { cell: "default".into(), axes: BTreeMap::new(), trials, importance: Vec::new(), confirmation: None }
    }
}

#[cfg(test)]
mod tests {
    use super::fixtures::{search, trial};
    use super::*;

    /// A memory trial with its memory (MiB) and capacity (req/s).
    fn measured(number: u32, memory_mib: Option<f64>, capacity: Option<f64>) -> TuneTrial {
        let memory = memory_mib.map(|mib| mib * (1u64 << 20) as f64);
        TuneTrial { memory, capacity, ..trial(number, "model", &format!("-Dw={number}"), memory) }
    }

    #[test]
    fn the_frontier_keeps_the_trials_no_other_beats_in_both_least_memory_first() {
        let mut cell = search(vec![
            measured(1, Some(300.0), Some(160.0)), // dominated by 4: more memory, the same capacity
            measured(2, Some(60.0), Some(40.0)),
            measured(3, Some(90.0), Some(80.0)),
            measured(4, Some(120.0), Some(160.0)),
            measured(5, Some(100.0), Some(70.0)), // dominated by 3: more memory, less capacity
            measured(6, Some(90.0), Some(80.0)),  // a tie with 3: both stay
            measured(7, Some(50.0), None),        // no capacity: left out
            measured(8, None, Some(500.0)),       // no memory: left out
            measured(9, Some(60.0), Some(30.0)),  // dominated by 2: the same memory, less capacity
        ]);
        assert_eq!(frontier(&cell.trials), [2, 3, 6, 4]);
        cell.mark_frontier();
        let on: Vec<u32> = cell.frontier_trials().iter().map(|trial| trial.number).collect();
        assert_eq!(on, [2, 3, 6, 4]);
        assert!(!cell.trials[0].on_frontier && cell.trials[1].on_frontier);
        assert_eq!(
            cell.frontier_words().unwrap(),
            "frontier (memory → capacity): 60 MiB → 40 req/s (t02), 90 MiB → 80 req/s (t03), 90 MiB → 80 req/s \
             (t06), 120 MiB → 160 req/s (t04)"
        );
        assert_eq!(frontier(&[measured(1, Some(50.0), None)]), Vec::<u32>::new());
        assert_eq!(search(vec![measured(1, Some(50.0), None)]).frontier_words(), None);
        // Only the frontier's flag is new in a trial's JSON, and only where it is on it.
        let json = serde_json::to_value(&cell.trials[1]).unwrap();
        assert_eq!((json["on_frontier"].as_bool(), json["capacity"].as_f64()), (Some(true), Some(40.0)));
        let plain = serde_json::to_value(trial(1, "defaults", "defaults", Some(3.0))).unwrap();
        assert!(plain.get("on_frontier").is_none() && plain.get("capacity").is_none() && plain.get("memory").is_none());
    }

    #[test]
    fn the_answer_names_the_best_against_the_defaults_and_what_it_cost() {
        let capacity = search(vec![
            trial(1, "defaults", "defaults", Some(25_900.0)),
            trial(2, "design", "heap=64m", None),
            trial(3, "model", "heap=384m gc=G1", Some(41_200.0)),
            trial(4, "model", "heap=512m gc=G1", Some(39_000.0)),
        ]);
        assert_eq!(
            capacity.answer(Objective::Capacity),
            "best: heap=384m gc=G1 — capacity 41,200 req/s, 1.59× the default's 25,900 req/s; 4 trial(s), 2 min"
        );
        assert_eq!(
            capacity.best_so_far(Objective::Capacity),
            [Some(25_900.0), Some(25_900.0), Some(41_200.0), Some(41_200.0)]
        );
        let top: Vec<u32> = capacity.top(Objective::Capacity, 3).iter().map(|trial| trial.number).collect();
        assert_eq!(top, [3, 4, 1]);
        // Lower is better for p99: the defaults win here.
        let p99 = search(vec![trial(1, "defaults", "defaults", Some(3.0)), trial(2, "design", "-Dx=0.5", Some(7.5))]);
        assert_eq!(
            p99.answer(Objective::P99),
            "best: defaults — p99 3.000 ms, the defaults (the JVM's ergonomics): no trial beat them; 2 trial(s), 60 s"
        );
        let none = search(vec![trial(1, "defaults", "defaults", None)]);
        assert_eq!(none.answer(Objective::Memory), "no feasible configuration in 1 trial(s), 30 s");
        let refused = search(vec![trial(1, "defaults", "defaults", None), trial(2, "model", "-Dx=0.3", Some(2.0))]);
        assert_eq!(
            refused.answer(Objective::P99),
            "best: -Dx=0.3 — p99 2.000 ms, the defaults were infeasible (preflight: Unrecognized VM option); 2 \
             trial(s), 60 s"
        );
    }
}
