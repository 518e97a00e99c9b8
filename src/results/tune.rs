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
        match self {
            Objective::Capacity => format!("{} req/s", format_rate(figure)),
            Objective::P99 => format!("{} ms", format_ms(figure)),
            Objective::Memory => format!("{} MiB", (figure / (1u64 << 20) as f64).round()),
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
    /// The best feasible trial (the first of equals), defaults included.
    pub fn best(&self, objective: Objective) -> Option<&TuneTrial> {
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

    pub fn seconds(&self) -> f64 {
        self.trials.iter().map(|trial| trial.seconds).sum()
    }

    /// The answer in one line: `best: heap=384m gc=G1 — capacity 41,200 req/s, 1.6× the default's 25,900 req/s; 17
    /// trials, 38 min` (the cell first when the plan has axes).
    pub fn answer(&self, objective: Objective) -> String {
        let cell = if self.cell == "default" { String::new() } else { format!("{}: ", self.cell) };
        let spent = format!("{} trial(s), {}", self.trials.len(), duration_words(self.seconds()));
        let Some(best) = self.best(objective) else {
            return format!("{cell}no feasible configuration in {spent}");
        };
        let figure = best.figure.expect("feasible");
        let defaults = self.trials.first().filter(|trial| trial.source == "defaults");
        let beside = match defaults.map(|trial| (trial.figure, &trial.infeasible)) {
            _ if best.source == "defaults" => "the defaults (the JVM's ergonomics): no trial beat them".to_string(),
            Some((Some(default), _)) if default != 0.0 => {
                format!("{:.2}× the default's {}", figure / default, objective.value(default))
            }
            Some((None, Some(why))) => format!("the defaults were infeasible ({why})"),
            _ => "the defaults gave no figure".to_string(),
        };
        let described = if best.source == "defaults" { "defaults".to_string() } else { best.described.clone() };
        format!("{cell}best: {described} — {}, {beside}; {spent}", objective.words(figure))
    }
}

/// `38 min`, `52 s`.
pub fn duration_words(seconds: f64) -> String {
    if seconds >= 120.0 { format!("{} min", (seconds / 60.0).round()) } else { format!("{} s", seconds.round()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trial(number: u32, source: &str, described: &str, figure: Option<f64>) -> TuneTrial {
        TuneTrial {
            number,
            source: source.into(),
            config: BTreeMap::new(),
            described: described.into(),
            options: Vec::new(),
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

    fn search(trials: Vec<TuneTrial>) -> CellTune {
        CellTune { cell: "default".into(), axes: BTreeMap::new(), trials, importance: Vec::new() }
    }

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
