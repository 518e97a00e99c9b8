//! The report's tune section (a plan with `[tune]`, docs/tune.md): per cell, the answer in one line, the trial
//! history with the best figure so far, the best configurations, which parameters mattered, and for objective
//! "memory" the frontier of memory against capacity — from `tune.json`, where the runner recorded each trial, the
//! model's shares and the frontier.

use serde::Serialize;

use crate::results::tune_json::{CellTune, IMPORTANCE_MIN_FEASIBLE, Objective, TuneRecord, TuneTrial};

/// How many of the best configurations the section lists.
const BEST_LISTED: usize = 3;

#[derive(Debug, Serialize)]
pub struct TuneSection {
    pub objective: Objective,
    /// Objective "memory": the rate it was judged at (req/s).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at_rate: Option<f64>,
    pub cells: Vec<CellTuneSection>,
}

#[derive(Debug, Serialize)]
pub struct CellTuneSection {
    pub cell: String,
    /// `best: -Dx=0.3 -Dy=0.7 — p99 2.1 ms, 0.06× the default's 34 ms; 12 trial(s), 36 s`.
    pub answer: String,
    /// What the finalists' repeats said (`over 3 repeats each: better than the defaults (p = 0.003); …`); None when
    /// they were not measured again.
    pub verdict: Option<String>,
    pub trials: Vec<TuneTrialRow>,
    /// The finalists in their confirmed order where they were measured again, else the best feasible trials, best
    /// first (at most three).
    pub best: Vec<BestRow>,
    /// Largest first; empty with too few feasible trials (then `importance_note` says why).
    pub importance: Vec<ShareRow>,
    pub importance_note: Option<String>,
    /// Objective "memory": every trial with both a memory and a capacity, least memory first, those on the frontier
    /// of memory against capacity marked; empty without capacities (then `frontier_note` says why).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub capacities: Vec<CapacityPoint>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frontier_note: Option<String>,
}

/// A memory tune's trial with both figures of the frontier.
#[derive(Debug, Serialize)]
pub struct CapacityPoint {
    pub number: u32,
    pub configuration: String,
    /// Bytes.
    pub memory: f64,
    pub memory_words: String,
    /// req/s within the SLO.
    pub capacity: f64,
    pub capacity_words: String,
    pub on_frontier: bool,
    /// Whether its capacity reaches `at_rate`; None without one.
    pub holds_at_rate: Option<bool>,
}

#[derive(Debug, Serialize)]
pub struct TuneTrialRow {
    pub number: u32,
    pub source: String,
    pub configuration: String,
    pub options: Vec<String>,
    /// The program arguments it added (a parameter with `args`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    pub figure: Option<f64>,
    /// The figure in words, or `infeasible: why`.
    pub outcome: String,
    /// The best figure up to this trial, in words.
    pub best_so_far: Option<String>,
    pub dir: String,
}

#[derive(Debug, Serialize)]
pub struct BestRow {
    pub number: u32,
    pub configuration: String,
    pub options: Vec<String>,
    /// The program arguments it added (a parameter with `args`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// The median of its repeats (its trial's figure when it ran once); None when no repeat was feasible.
    pub figure: Option<f64>,
    pub figure_words: String,
    /// The 95 % interval of its repeats' mean, in words (`1,005–1,055`); None with fewer than two.
    pub interval: Option<String>,
    /// `3`, or `2 of 3 feasible (why the other was not)`.
    pub repeats: String,
    /// Its figure over the defaults' (`0.41×`); None when the defaults gave none.
    pub vs_default: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct ShareRow {
    pub parameter: String,
    pub share: f64,
}

pub fn tune_section(record: &TuneRecord) -> TuneSection {
    TuneSection {
        objective: record.objective,
        at_rate: record.at_rate,
        cells: record.cells.iter().map(|cell| cell_section(record, cell)).collect(),
    }
}

/// A memory tune's trials that have both figures, least memory first; and why there is no frontier when none has.
fn capacities(record: &TuneRecord, cell: &CellTune) -> (Vec<CapacityPoint>, Option<String>) {
    if record.objective != Objective::Memory {
        return (Vec::new(), None);
    }
    let point = |trial: &TuneTrial| {
        let (memory, capacity) = (trial.memory?, trial.capacity?);
        Some(CapacityPoint {
            number: trial.number,
            configuration: trial.described.clone(),
            memory,
            memory_words: Objective::Memory.value(memory),
            capacity,
            capacity_words: Objective::Capacity.value(capacity),
            on_frontier: trial.on_frontier,
            holds_at_rate: record.at_rate.map(|rate| capacity >= rate),
        })
    };
    let mut points: Vec<CapacityPoint> = cell.trials.iter().filter_map(point).collect();
    points.sort_by(|a, b| a.memory.total_cmp(&b.memory).then(a.number.cmp(&b.number)));
    let note = points.is_empty().then(|| {
        "No frontier of memory against capacity: no trial recorded a capacity (it needs a measured phase with \
         `capacity = …` that found one)."
            .to_string()
    });
    (points, note)
}

fn cell_section(record: &TuneRecord, cell: &CellTune) -> CellTuneSection {
    let objective = record.objective;
    let (capacities, frontier_note) = capacities(record, cell);
    let best_so_far = cell.best_so_far(objective);
    let trials = cell
        .trials
        .iter()
        .zip(best_so_far)
        .map(|(trial, best)| TuneTrialRow {
            number: trial.number,
            source: trial.source.clone(),
            configuration: trial.described.clone(),
            options: trial.options.clone(),
            args: trial.args.clone(),
            figure: trial.figure,
            outcome: match (trial.figure, &trial.infeasible) {
                (Some(figure), _) => objective.value(figure),
                (None, why) => format!("infeasible: {}", why.as_deref().unwrap_or("no figure")),
            },
            best_so_far: best.map(|best| objective.value(best)),
            dir: trial.dir.clone(),
        })
        .collect();
    let default = cell.trials.first().filter(|trial| trial.source == "defaults").and_then(|trial| cell.figure(trial));
    let vs_default = |figure: Option<f64>| {
        Some(figure? / default.filter(|default| *default != 0.0)?).map(|ratio| format!("{ratio:.2}×"))
    };
    let row = |trial: &TuneTrial, repeats: String, interval: Option<String>| {
        let figure = cell.figure(trial);
        BestRow {
            number: trial.number,
            configuration: trial.name(),
            options: trial.options.clone(),
            args: trial.args.clone(),
            figure,
            figure_words: figure.map_or("—".to_string(), |figure| objective.value(figure)),
            interval,
            repeats,
            vs_default: vs_default(figure),
        }
    };
    let best = match &cell.confirmation {
        Some(confirmation) => confirmation
            .finalists
            .iter()
            .filter_map(|finalist| {
                let trial = cell.trial(finalist.trial)?;
                let feasible = finalist.figures.iter().flatten().count();
                let repeats = match (feasible, finalist.figures.len(), &finalist.infeasible) {
                    (feasible, all, Some(why)) if feasible < all => format!("{feasible} of {all} feasible ({why})"),
                    (_, all, _) => all.to_string(),
                };
                let interval = finalist
                    .interval
                    .map(|[low, high]| format!("{}–{}", objective.number(low), objective.number(high)));
                Some(row(trial, repeats, interval))
            })
            .collect(),
        None => cell.top(objective, BEST_LISTED).into_iter().map(|trial| row(trial, "1".into(), None)).collect(),
    };
    let feasible = cell.trials.iter().filter(|trial| trial.source != "defaults" && trial.figure.is_some()).count();
    let importance_note = match (cell.importance.is_empty(), feasible) {
        (true, feasible) if feasible < IMPORTANCE_MIN_FEASIBLE => Some(format!(
            "Which parameters mattered needs at least {IMPORTANCE_MIN_FEASIBLE} feasible trials besides the defaults; \
             this tune has {feasible}."
        )),
        (true, _) => Some("The model's figure does not vary over the space: no parameter stands out.".to_string()),
        (false, _) => None,
    };
    CellTuneSection {
        cell: cell.cell.clone(),
        answer: cell.answer(objective),
        verdict: cell.verdict(objective),
        trials,
        best,
        importance: cell
            .importance
            .iter()
            .map(|share| ShareRow { parameter: share.parameter.clone(), share: share.share })
            .collect(),
        importance_note,
        capacities,
        frontier_note,
    }
}

#[cfg(test)]
mod tests {
    use crate::results::tune_json::fixtures;

    use super::*;
    use crate::results::tune_json::Method;

    fn trial(number: u32, memory_mib: f64, capacity: Option<f64>, on_frontier: bool) -> TuneTrial {
        let memory = Some(memory_mib * (1u64 << 20) as f64);
        let plain = fixtures::trial(number, "random", &format!("-Dworkers={number}"), memory);
        TuneTrial { seconds: 5.0, capacity, memory, on_frontier, ..plain }
    }

    fn record(objective: Objective, trials: Vec<TuneTrial>) -> TuneRecord {
        let cell = fixtures::search(trials);
        TuneRecord {
            objective,
            seed: 1,
            method: Method::Random,
            budget_trials: Some(3),
            budget_seconds: None,
            at_rate: Some(60.0),
            cells: vec![cell],
        }
    }

    #[test]
    fn a_memory_tune_lists_its_trials_with_capacities_least_memory_first_or_says_why_it_has_no_frontier() {
        let trials =
            vec![trial(1, 300.0, Some(160.0), false), trial(2, 88.0, Some(40.0), true), trial(3, 50.0, None, false)];
        let section = tune_section(&record(Objective::Memory, trials.clone()));
        let cell = &section.cells[0];
        let listed: Vec<(u32, &str, &str, bool, Option<bool>)> = cell
            .capacities
            .iter()
            .map(|point| {
                (
                    point.number,
                    point.memory_words.as_str(),
                    point.capacity_words.as_str(),
                    point.on_frontier,
                    point.holds_at_rate,
                )
            })
            .collect();
        assert_eq!(
            listed,
            [(2, "88 MiB", "40 req/s", true, Some(false)), (1, "300 MiB", "160 req/s", false, Some(true))]
        );
        assert_eq!(cell.frontier_note, None);

        let without = tune_section(&record(Objective::Memory, vec![trial(3, 50.0, None, false)]));
        assert_eq!(
            without.cells[0].frontier_note.as_deref(),
            Some(
                "No frontier of memory against capacity: no trial recorded a capacity (it needs a measured phase with \
                 `capacity = …` that found one)."
            )
        );
        // Another objective has no frontier and says nothing of one; report.json keeps its keys as before.
        let p99 = tune_section(&record(Objective::P99, trials));
        assert!(p99.cells[0].capacities.is_empty() && p99.cells[0].frontier_note.is_none());
        let json = serde_json::to_value(&p99.cells[0]).unwrap();
        assert!(json.get("capacities").is_none() && json.get("frontier_note").is_none());
    }
}
