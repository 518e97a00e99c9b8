//! The tune's runner (docs/tune.md): per cell of the plan, trial 1 with the cell's own options alone (the JVM's
//! ergonomics), then each configuration `tune::search` proposes from the trials so far, until the budget — trials,
//! or time: no trial starts once the cell's time is spent. Each trial is one fresh cell-repeat through the box
//! search's [`run_once`] (preflight — a refused option costs seconds and no load —, ready, phases, crash causes) with
//! the trial's options after the cell's, in a folder of its own (`cells/trial=t03`); its figure per objective or why
//! it is infeasible (`figure_of`). `tune.json` and `summary.json` (each trial a cell, `trial` an axis) are rewritten
//! after each trial, so `--resume` replays the trials on disk — the search is a function of its seed and its trials —
//! and goes on.

mod confirm;
pub mod figure;

use std::collections::BTreeMap;
use std::time::Instant;

use super::box_search::trial::{SearchContext, run_once};
use super::runner::PreparedCell;
use super::store::{build_summary_with_repeats, needs_run};
use crate::atomic_file::write_json;
use crate::load::format::format_rate;
use crate::plan::folder::cell_folder;
use crate::plan::matrix::Cell;
use crate::plan::tune::{AtRate, Objective, TunePlan};
use crate::plan::{Axis, AxisValue};
use crate::results::tune_json::{
    CellTune, IMPORTANCE_MIN_FEASIBLE, ParameterShare, TuneRecord, TuneTrial, duration_words,
};
use crate::results::{ResultsDir, read_json};
use crate::tune::gp::Gp;
use crate::tune::importance::importance;
use crate::tune::search::{Search, Source, Trial};
use crate::tune::space::Config;
use confirm::{confirm, reserve_seconds};
use figure::{capacity_and_memory, figure_of, search_outcome};

/// Tune every cell of `prepared`. Returns true when interrupted.
pub fn run_tune(context: &SearchContext<'_>, tune: &TunePlan, prepared: &[PreparedCell]) -> anyhow::Result<bool> {
    let earlier: Option<TuneRecord> = read_json(&context.results.tune());
    let mut record = TuneRecord {
        objective: tune.objective,
        seed: tune.seed,
        method: tune.method,
        budget_trials: (tune.trials != u64::MAX).then_some(tune.trials),
        budget_seconds: tune.time.map(|time| time.as_secs_f64()),
        at_rate: tune.at_rate.map(AtRate::rate),
        cells: Vec::new(),
    };
    let search = Search::new(tune.space.clone(), tune.seed, tune.start, tune.method);
    let mut trial_cells: Vec<Cell> = Vec::new();
    for item in prepared {
        let earlier_trials: Vec<TuneTrial> = earlier
            .iter()
            .flat_map(|record| &record.cells)
            .filter(|cell| cell.cell == item.cell.id)
            .flat_map(|cell| cell.trials.clone())
            .collect();
        record.cells.push(CellTune {
            cell: item.cell.id.clone(),
            axes: item.cell.axes.clone(),
            trials: Vec::new(),
            importance: Vec::new(),
            confirmation: None,
        });
        // The search sees the trials it proposed; the defaults' empty configuration is no point of its space.
        let mut searched: Vec<Trial> = Vec::new();
        loop {
            let cell_tune = record.cells.last_mut().expect("pushed");
            let number = cell_tune.trials.len() as u32 + 1;
            // A time budget keeps the confirmation's share: the search stops early enough to leave it.
            let spent = cell_tune.seconds() + reserve_seconds(tune.confirm, cell_tune);
            if u64::from(number) > tune.trials || tune.time.is_some_and(|time| spent >= time.as_secs_f64()) {
                break;
            }
            let (config, source) = match number {
                1 => (Config::new(), Source::Defaults),
                _ => search.propose(&searched),
            };
            let (options, args) = (tune.options(&config), tune.args(&config));
            let cell = tune_cell(&item.cell, number, &options, &args);
            let kept = context.results.read_meta(&cell.dir, 1).filter(|meta| !needs_run(Some(meta)));
            let started = Instant::now();
            let Some(meta) = run_once(context, context.plan, &cell)? else {
                write_records(context, &record, &trial_cells)?;
                return Ok(true);
            };
            let seconds = match kept {
                Some(kept) => earlier_trials
                    .iter()
                    .find(|trial| trial.number == number && trial.dir == cell.dir)
                    .map(|trial| trial.seconds)
                    .unwrap_or_else(|| kept.wall_seconds()),
                None => started.elapsed().as_secs_f64(),
            };
            let outcome = figure_of(tune.objective, context.plan, context.results, &cell, &meta);
            if source != Source::Defaults {
                let outcome = search_outcome(tune.objective, context.plan, context.results, &cell, &meta, &outcome);
                searched.push(Trial { config: config.clone(), source, outcome });
            }
            let described = match source {
                Source::Defaults => "defaults".to_string(),
                _ => tune.describe(&config),
            };
            let values = config_words(tune, &config);
            let (capacity, memory) = match tune.objective {
                Objective::Memory => capacity_and_memory(context.plan, context.results, &cell, &meta),
                _ => (None, None),
            };
            cell_tune.trials.push(TuneTrial {
                number,
                source: source_name(source).to_string(),
                config: values,
                described,
                options,
                args,
                cell: cell.id.clone(),
                dir: cell.dir.clone(),
                figure: outcome.as_ref().ok().copied(),
                infeasible: outcome.as_ref().err().cloned(),
                seconds,
                capacity,
                memory,
                on_frontier: false,
            });
            cell_tune.mark_frontier();
            cell_tune.importance = parameter_shares(tune, &searched);
            trial_cells.push(cell);
            write_records(context, &record, &trial_cells)?;
            let cell_tune = record.cells.last().expect("pushed");
            say!("jload: {}", progress_line(tune, cell_tune, prepared.len() > 1));
        }
        let cell_tune = record.cells.last_mut().expect("pushed");
        let interrupted = confirm(context, context.plan, tune, cell_tune, &trial_cells)?;
        write_records(context, &record, &trial_cells)?;
        if interrupted {
            return Ok(true);
        }
        if let Some(verdict) = record.cells.last().and_then(|cell| cell.verdict(tune.objective)) {
            say!("jload: confirmed {verdict}");
        }
    }
    Ok(false)
}

/// `trial 4/20 (model): heap=384m gc=G1 → capacity 31,200 req/s (best 41,200 req/s; 23 min left)`.
fn progress_line(tune: &TunePlan, cell_tune: &CellTune, name_cell: bool) -> String {
    let trial = cell_tune.trials.last().expect("a trial just ran");
    let of = match tune.trials {
        u64::MAX => String::new(),
        trials => format!("/{trials}"),
    };
    let cell = if name_cell { format!("{}: ", cell_tune.cell) } else { String::new() };
    let result = match (trial.figure, &trial.infeasible) {
        (Some(figure), _) => tune.objective.words(figure),
        (None, why) => format!("infeasible: {}", why.as_deref().unwrap_or("no figure")),
    };
    // A memory trial's capacity, the frontier's other figure, when its figure does not already say it.
    let result = match trial.capacity {
        Some(capacity) if trial.figure.is_some() => {
            format!("{result}, {}", Objective::Capacity.words(capacity))
        }
        _ => result,
    };
    let mut notes = Vec::new();
    if let Some(best) = cell_tune.best(tune.objective).and_then(|best| best.figure) {
        notes.push(format!("best {}", tune.objective.value(best)));
    }
    if let Some(time) = tune.time {
        let left = (time.as_secs_f64() - cell_tune.seconds()).max(0.0);
        notes.push(format!("{} left", duration_words(left)));
    }
    let notes = if notes.is_empty() { String::new() } else { format!(" ({})", notes.join("; ")) };
    format!("{cell}trial {}{of} ({}): {} → {result}{notes}", trial.number, trial.source, trial.described)
}

fn source_name(source: Source) -> &'static str {
    match source {
        Source::Defaults => "defaults",
        Source::Design => "design",
        Source::Model => "model",
        Source::Random => "random",
    }
}

/// Each parameter's value as `describe` writes it (`heap` → `384m`).
fn config_words(tune: &TunePlan, config: &Config) -> BTreeMap<String, String> {
    let described = tune.describe(config);
    let mut words = BTreeMap::new();
    for parameter in tune.space.parameters() {
        if config.contains_key(&parameter.name) {
            let prefix = format!("{}=", parameter.name);
            let value = described.split(' ').find_map(|word| word.strip_prefix(&prefix)).unwrap_or_default();
            words.insert(parameter.name.clone(), value.to_string());
        }
    }
    words
}

/// Which parameters mattered, from the model over the feasible searched trials; none with fewer than six.
fn parameter_shares(tune: &TunePlan, searched: &[Trial]) -> Vec<ParameterShare> {
    let feasible: Vec<(&Trial, f64)> =
        searched.iter().filter_map(|trial| trial.outcome.feasible_figure().map(|figure| (trial, figure))).collect();
    if feasible.len() < IMPORTANCE_MIN_FEASIBLE {
        return Vec::new();
    }
    let points: Vec<Vec<f64>> = feasible.iter().map(|(trial, _)| tune.space.encode(&trial.config)).collect();
    let figures: Vec<f64> = feasible.iter().map(|(_, figure)| *figure).collect();
    let model = Gp::fit(&points, &figures, tune.seed);
    importance(&tune.space, &model, tune.seed)
        .into_iter()
        .map(|share| ParameterShare { parameter: share.parameter, share: share.share })
        .collect()
}

/// The trial's cell: the plan's cell with the trial's options and program arguments after its own, labelled
/// `trial=t03` beside its axes, in a folder of its own.
fn tune_cell(cell: &Cell, number: u32, options: &[String], args: &[String]) -> Cell {
    let label = format!("t{number:02}");
    let mut trial = cell.clone();
    trial.jvm.extend(options.iter().cloned());
    trial.args.extend(args.iter().cloned());
    trial.axes.insert("trial".to_string(), label.clone());
    let own = cell_folder(&[("trial", &label)]);
    (trial.id, trial.dir) = match cell.id.as_str() {
        "default" => (format!("trial={label}"), own),
        id => (format!("{id},trial={label}"), format!("{}__{own}", cell.dir)),
    };
    trial
}

/// `tune.json`, and `summary.json` over every trial so far: the plan's axes and `trial`, whose labels are the trials;
/// a confirmed finalist's cell with its repeats.
fn write_records(context: &SearchContext<'_>, record: &TuneRecord, trial_cells: &[Cell]) -> anyhow::Result<()> {
    write_json(&context.results.tune(), record)?;
    let mut plan = context.plan.clone();
    plan.run.repeats = 1;
    let mut labels: Vec<String> = trial_cells.iter().filter_map(|cell| cell.axes.get("trial").cloned()).collect();
    labels.sort();
    labels.dedup();
    let values = labels
        .into_iter()
        .map(|label| AxisValue {
            label,
            jvm: Vec::new(),
            jdk: None,
            env: BTreeMap::new(),
            args: Vec::new(),
            limits: Default::default(),
        })
        .collect();
    plan.axes.push(Axis { name: "trial".to_string(), values });
    let repeats = |cell: &Cell| {
        let confirmed = record.cells.iter().filter_map(|cell_tune| {
            let confirmation = cell_tune.confirmation.as_ref()?;
            let finalist = confirmation
                .finalists
                .iter()
                .find(|finalist| cell_tune.trial(finalist.trial).is_some_and(|trial| trial.dir == cell.dir))?;
            Some(finalist.figures.len() as u32)
        });
        confirmed.max().unwrap_or(1)
    };
    let summary = build_summary_with_repeats(&plan, trial_cells, context.results, repeats);
    write_json(&context.results.summary(), &summary)
}

/// The tune of a finished (or interrupted) run, as recorded; None without one.
pub fn read_record(results: &ResultsDir) -> Option<TuneRecord> {
    read_json(&results.tune())
}

/// What `--dry-run` says of a tune: objective, budget, the space, and that the cell's command above is trial 1.
pub fn dry_run_text(tune: &TunePlan, cells: usize) -> String {
    use crate::tune::space::{Domain, short_real};
    let then = match tune.method {
        crate::tune::search::Method::Model => format!("{} space-filling trial(s), then the model's", tune.start),
        crate::tune::search::Method::Random => "uniform random configurations".to_string(),
    };
    let mut text = format!(
        "\ntune: {} ({}), per cell: trial 1 the defaults — the command shown above, the JVM's ergonomics —, then \
         {then}; seed {}\n",
        tune.objective.name(),
        match tune.objective {
            Objective::Capacity => "the highest rate the capacity phase holds within the SLO",
            Objective::P99 => "the lowest p99 of the last measured phase, within the SLO",
            Objective::Memory => "the lowest memory peak (box, else RSS) that holds the SLO",
        },
        tune.seed
    );
    if tune.confirm >= 2 {
        text += &format!(
            "  then the finalists (the best, the runner-up, trials within {:.0} % of the best — {} at most — and the \
             defaults) measured to {} repeats each, the best confirmed against the defaults and the runner-up\n",
            confirm::CONTENDER_BAND * 100.0,
            confirm::CONTENDERS_MOST,
            tune.confirm
        );
    }
    if let Some(judged) = at_rate_words(tune) {
        text += &format!("  {judged}\n");
    }
    let trials = (tune.trials != u64::MAX).then(|| format!("{} trial(s)", tune.trials));
    let time = tune.time.map(|time| format!("{} (no trial starts after it)", duration_words(time.as_secs_f64())));
    let budget: Vec<String> = trials.into_iter().chain(time).collect();
    text += &format!("  budget per cell: {} × {cells} cell(s)\n", budget.join(", "));
    for parameter in tune.space.parameters() {
        let setter = &tune.setters[&parameter.name];
        let size = |value: i64| if setter.takes_sizes() { format!("{value}m") } else { value.to_string() };
        let domain = match &parameter.domain {
            Domain::Int { from, to, log } => {
                format!("{}–{}{}", size(*from), size(*to), if *log { ", log" } else { "" })
            }
            Domain::Real { from, to, log } => {
                format!("{}–{}{}", short_real(*from), short_real(*to), if *log { ", log" } else { "" })
            }
            Domain::Choice(values) => values.join(" | "),
            Domain::Ordered(values) => values.join(" < "),
        };
        let when = parameter.only_if.as_ref().map_or(String::new(), |condition| {
            format!(" when {} is {}", condition.parameter, condition.one_of.join(" or "))
        });
        let sets = match setter {
            crate::plan::tune::Setter::Args { words, .. } => format!(", program arguments {}", words.join(" ")),
            crate::plan::tune::Setter::ArgsWhenTrue(words) => {
                format!(", program arguments {} when true", words.join(" "))
            }
            _ => String::new(),
        };
        text += &format!("  {}: {domain}{when}{sets}\n", parameter.name);
    }
    text
}

/// How a memory tune's trials are held to `at_rate`, for `--dry-run`: `at 20,000 req/s: …`; None without one.
fn at_rate_words(tune: &TunePlan) -> Option<String> {
    let at = |rate: f64| format!("at {} req/s", format_rate(rate));
    Some(match tune.at_rate? {
        AtRate::Capacity(rate) => format!(
            "{}: every trial runs the capacity phase as written and is feasible when its capacity is at least that \
             (its memory peak covers the search's steps above it too)",
            at(rate)
        ),
        AtRate::Fixed(rate) => format!(
            "{}: every measured phase of every trial runs at that fixed rate; a trial is feasible when it holds \
             the SLO",
            at(rate)
        ),
    })
}

/// The answers at the end of the run, one line per cell, with the best trial's options; None without a tune.
pub fn answers_text(results: &ResultsDir) -> Option<String> {
    let record = read_record(results)?;
    let mut text = String::from("\ntune:\n");
    for cell in &record.cells {
        text += &format!("  {}\n", cell.answer(record.objective));
        if let Some(verdict) = cell.verdict(record.objective) {
            text += &format!("    {verdict}\n");
        }
        if let Some(frontier) = cell.frontier_words() {
            text += &format!("    {frontier}\n");
        }
        if let Some(best) = cell.best(record.objective).filter(|best| !best.options.is_empty() || !best.args.is_empty())
        {
            text += &format!("    options: {} (trial {}, {})\n", best.settings_words(), best.number, best.dir);
        }
    }
    Some(text)
}

#[cfg(test)]
mod tests;
