//! The report's tune section (a plan with `[tune]`, docs/tune.md): per cell, the answer in one line, the trial
//! history with the best figure so far, the best configurations, and which parameters mattered — from `tune.json`,
//! where the runner recorded each trial and the model's shares.

use serde::Serialize;

use crate::results::tune::{CellTune, IMPORTANCE_MIN_FEASIBLE, Objective, TuneRecord, TuneTrial};

/// How many of the best configurations the section lists.
const BEST_LISTED: usize = 3;

#[derive(Debug, Serialize)]
pub struct TuneSection {
    pub objective: Objective,
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
}

#[derive(Debug, Serialize)]
pub struct TuneTrialRow {
    pub number: u32,
    pub source: String,
    pub configuration: String,
    pub options: Vec<String>,
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
        cells: record.cells.iter().map(|cell| cell_section(record.objective, cell)).collect(),
    }
}

fn cell_section(objective: Objective, cell: &CellTune) -> CellTuneSection {
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
    }
}
