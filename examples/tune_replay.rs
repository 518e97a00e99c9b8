//! bench/tune-vs-grid.sh's replay (docs/benchmarks.md, "Tune against a grid"): how many trials the tune's search needs
//! to come within 5 % of a grid's best figure, judged on the grid's own figures so that noise does not decide. The
//! space is the tune plan's (`[tune.space]`, the grid's values written as choices); each proposal is answered with the
//! figure of the grid cell that has the same JVM options and program arguments, read from the grid's results directory
//! by the same rule a real trial's figure is (`run::tune::figure::figure_of`; an infeasible cell is an infeasible
//! trial). As in a real tune, trial 1 is the defaults: counted, as a user counts trials, but no point of the space and
//! not in the grid, so never within 5 % and never fed to the model. A cell that missed the SLO is infeasible, and the
//! search learns its measured figure as a real trial's (`run::tune::figure::search_outcome`). Deterministic for a grid
//! and a seed. Also reads real tunes' `tune.json` and looks each trial's configuration up in the grid.
//!
//! Usage (from the repository root): `tune_replay TUNE_PLAN GRID_DIR [--seeds N] [--table FILE] [--real DIR]... [--trace SEED]`
//! The grid's plan copy is read with its relative paths (the mix) against TUNE_PLAN's folder: the two plans sit side
//! by side in bench/tune-vs-grid/.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use jload::plan::matrix::cells;
use jload::plan::tune::{Objective, TunePlan};
use jload::plan::{PlanBase, load_plan, parse_plan};
use jload::results::Results;
use jload::run::tune::figure::{figure_of, search_outcome};
use jload::stats;
use jload::tune::search::{Method, Outcome, Search, Trial};

/// Within this share of the grid's best figure a trial counts as having found it.
const WITHIN: f64 = 0.05;

struct Args {
    tune_plan: PathBuf,
    grid: PathBuf,
    seeds: u64,
    table: Option<PathBuf>,
    real: Vec<PathBuf>,
    /// Print each trial of the model's search of this seed.
    trace: Option<u64>,
}

/// One cell of the grid: its axis labels, the options and program arguments its axes add (each sorted), its figure
/// or why it has none.
struct GridCell {
    labels: Vec<String>,
    options: Vec<String>,
    args: Vec<String>,
    figure: Result<f64, String>,
    /// What a trial of this configuration tells the search (`run::tune::figure::search_outcome`).
    outcome: Outcome,
}

struct Grid {
    axes: Vec<String>,
    cells: Vec<GridCell>,
    objective: Objective,
}

impl Grid {
    fn best(&self) -> Option<(&GridCell, f64)> {
        let feasible = self.cells.iter().filter_map(|cell| cell.figure.as_ref().ok().map(|figure| (cell, *figure)));
        feasible.max_by(|a, b| self.objective.score(a.1).total_cmp(&self.objective.score(b.1)))
    }

    /// The figure of the cell with these options and program arguments (a space and a grid that disagree are an
    /// error).
    fn lookup(&self, options: &[String], args: &[String]) -> anyhow::Result<&GridCell> {
        let (options, args) = (sorted(options), sorted(args));
        self.cells.iter().find(|cell| cell.options == options && cell.args == args).with_context(|| {
            format!(
                "no grid cell has the options {}: the space and the grid differ",
                jload::results::tune_json::settings_words(&options, &args)
            )
        })
    }

    fn within(&self, figure: f64, best: f64) -> bool {
        (figure - best).abs() <= WITHIN * best.abs()
    }
}

fn main() {
    if let Err(err) = replay() {
        eprintln!("tune_replay: {err:#}");
        std::process::exit(1);
    }
}

fn replay() -> anyhow::Result<()> {
    let args = parse_args()?;
    let tune_plan_path = &args.tune_plan;
    let tune_plan = load_plan(tune_plan_path, &PlanBase::of_plan_file(tune_plan_path)?)?;
    let tune = tune_plan.tune.context("the tune plan has no [tune]")?;
    let grid = read_grid(&args.grid, tune_plan_path, tune.objective)?;
    if let Some(table) = &args.table {
        write_table(&grid, table)?;
    }
    let Some((best_cell, best)) = grid.best() else { bail!("no cell of the grid has a figure") };
    let good = grid.cells.iter().filter(|cell| cell.figure.as_ref().is_ok_and(|f| grid.within(*f, best))).count();
    let feasible = grid.cells.iter().filter(|cell| cell.figure.is_ok()).count();
    let size = grid.cells.len();
    println!("grid: {} — {size} cells, {feasible} with a figure, {} infeasible", args.grid.display(), size - feasible);
    println!(
        "best: {} — {}; {good} cell(s) within {:.0} % of it (a uniform random order of the {size} cells reaches one \
         after {:.1} cells on average)",
        described(&grid, best_cell),
        tune.objective.words(best),
        WITHIN * 100.0,
        (size + 1) as f64 / (good + 1) as f64
    );
    println!();
    println!(
        "trials until one is within {:.0} % of the grid's best (trial 1, the defaults, counted; seeds 1..{}; at most \
         {} = the defaults + {size} searched):",
        WITHIN * 100.0,
        args.seeds,
        size + 1
    );
    println!("{:<8} {:>6} {:>4} {:>4} {:>6}  per seed", "method", "median", "min", "max", "never");
    let mut medians = Vec::new();
    let mut shares = Vec::new();
    for (name, method) in [("model", Method::Model), ("random", Method::Random)] {
        let replayed: Vec<Replayed> = (1..=args.seeds)
            .map(|seed| replay_search(&grid, &tune, method, seed, best, false))
            .collect::<Result<_, _>>()?;
        let counts: Vec<Option<usize>> = replayed.iter().map(|replayed| replayed.to_within).collect();
        let mut at_budget: Vec<f64> = replayed.iter().map(|replayed| replayed.share_at_budget).collect();
        at_budget.sort_by(f64::total_cmp);
        shares.push((name, at_budget));
        let reached: Vec<usize> = counts.iter().flatten().copied().collect();
        let median = median(&counts);
        medians.push(median);
        let per_seed: Vec<String> =
            counts.iter().map(|count| count.map_or("-".to_string(), |c| c.to_string())).collect();
        println!(
            "{name:<8} {:>6} {:>4} {:>4} {:>6}  {}",
            median.map_or("never".to_string(), |m| format!("{m}")),
            reached.iter().min().map_or("-".to_string(), usize::to_string),
            reached.iter().max().map_or("-".to_string(), usize::to_string),
            counts.len() - reached.len(),
            per_seed.join(" ")
        );
    }
    match (medians[0], medians[1]) {
        (Some(model), Some(random)) => println!(
            "model / random (medians): {:.2}; model / grid: {model} / {size} = {:.2}",
            model / random,
            model / size as f64
        ),
        _ => println!("model / random: no ratio (a median never got within {:.0} %)", WITHIN * 100.0),
    }
    println!();
    println!(
        "the best grid figure among the first {BUDGET} trials (the defaults counted), as a share of the grid's best, \
         over seeds 1..{}:",
        args.seeds
    );
    println!("{:<8} {:>6} {:>6} {:>6}  per seed, lowest first", "method", "median", "min", "max");
    for (name, at_budget) in &shares {
        let words: Vec<String> = at_budget.iter().map(|share| format!("{:.0} %", share * 100.0)).collect();
        println!(
            "{name:<8} {:>5.0} % {:>4.0} % {:>4.0} %  {}",
            stats::median(at_budget.clone()).unwrap_or_default() * 100.0,
            at_budget.first().copied().unwrap_or_default() * 100.0,
            at_budget.last().copied().unwrap_or_default() * 100.0,
            words.join(" ")
        );
    }
    if let Some(seed) = args.trace {
        println!();
        println!("the model's trials, seed {seed}:");
        replay_search(&grid, &tune, Method::Model, seed, best, true)?;
    }
    for dir in &args.real {
        print_real_tune(&grid, dir, best)?;
    }
    Ok(())
}

/// What one search of the grid found.
struct Replayed {
    /// The trial (defaults counted) at which it first proposed a cell within 5 % of the best; None when it had not
    /// after as many searched trials as the grid has cells.
    to_within: Option<usize>,
    /// The best grid figure among its first [`BUDGET`] trials (the defaults counted), as a share of the grid's best;
    /// 0 when all were infeasible.
    share_at_budget: f64,
}

/// The budget: a dozen trials, the defaults' included.
const BUDGET: usize = 12;

/// A search of `seed` replayed on the grid, until it proposes a cell within 5 % of the best or has tried as many as
/// the grid has. With `trace`, prints each trial.
fn replay_search(
    grid: &Grid,
    tune: &TunePlan,
    method: Method,
    seed: u64,
    best: f64,
    trace: bool,
) -> anyhow::Result<Replayed> {
    let search = Search::new(tune.space.clone(), seed, tune.start, method);
    let mut searched: Vec<Trial> = Vec::new();
    let mut best_at_budget: f64 = 0.0;
    let mut to_within = None;
    while searched.len() < grid.cells.len() {
        let (config, source) = search.propose(&searched);
        let cell = grid.lookup(&tune.options(&config), &tune.args(&config))?;
        let outcome = cell.outcome.clone();
        let found = matches!(cell.figure, Ok(figure) if grid.within(figure, best));
        if trace {
            let figure =
                cell.figure.as_ref().map_or_else(|why| format!("infeasible: {why}"), |f| grid.objective.words(*f));
            println!("  trial {:>2} ({source:?}): {} — {figure}", searched.len() + 2, tune.describe(&config));
        }
        if let Ok(figure) = cell.figure
            && searched.len() + 2 <= BUDGET
        {
            // Higher is better as the search sees it; as a share of the best in the figure's own direction.
            let share = if grid.objective.score(1.0) > 0.0 { figure / best } else { best / figure };
            best_at_budget = best_at_budget.max(share);
        }
        searched.push(Trial { config, source, outcome });
        // The defaults' trial 1, then the searched ones.
        if found && to_within.is_none() {
            to_within = Some(searched.len() + 1);
        }
        if to_within.is_some() && searched.len() + 1 >= BUDGET {
            break;
        }
    }
    Ok(Replayed { to_within, share_at_budget: best_at_budget })
}

/// The median of the counts, a seed that never got there counted as more than any that did; None when that is the
/// median.
fn median(counts: &[Option<usize>]) -> Option<f64> {
    let mut sorted: Vec<f64> = counts.iter().map(|count| count.map_or(f64::INFINITY, |c| c as f64)).collect();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    let median = if n % 2 == 1 { sorted[n / 2] } else { (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0 };
    median.is_finite().then_some(median)
}

/// Every cell of the grid's plan with its figure, read by the rule a tune's trial is read by.
fn read_grid(dir: &Path, tune_plan: &Path, objective: Objective) -> anyhow::Result<Grid> {
    let results = Results::open(dir)?;
    let text = results.plan_text.as_deref().context("the grid's results have no plan copy")?;
    let plan = parse_plan(&format!("{}/plan.toml", dir.display()), text, &PlanBase::of_plan_file(tune_plan)?)?;
    if plan.tune.is_some() {
        bail!("{}: a tune, not a grid; give the results of bench/tune-vs-grid/grid.toml", dir.display());
    }
    let axes: Vec<String> = plan.axes.iter().map(|axis| axis.name.clone()).collect();
    let mut grid_cells = Vec::new();
    for cell in cells(&plan) {
        let meta = results
            .dir
            .read_meta(&cell.dir, 1)
            .with_context(|| format!("cell {} has not run in {}: finish it with --resume", cell.id, dir.display()))?;
        let figure = figure_of(objective, &plan, &results.dir, &cell, &meta);
        let outcome = search_outcome(objective, &plan, &results.dir, &cell, &meta, &figure);
        let (options, args) = (sorted(&cell.jvm), sorted(&cell.args));
        let labels = axes.iter().map(|axis| cell.axes.get(axis).cloned().unwrap_or_default()).collect();
        grid_cells.push(GridCell { labels, options, args, figure, outcome });
    }
    Ok(Grid { axes, cells: grid_cells, objective })
}

/// Words in order, so that a configuration is found whatever order its parameters or axes gave them in.
fn sorted(words: &[String]) -> Vec<String> {
    let mut words = words.to_vec();
    words.sort();
    words
}

fn described(grid: &Grid, cell: &GridCell) -> String {
    grid.axes.iter().zip(&cell.labels).map(|(axis, label)| format!("{axis}={label}")).collect::<Vec<_>>().join(" ")
}

/// The grid as a table: one row per cell, its labels, its figure (empty when infeasible) and why it has none.
fn write_table(grid: &Grid, path: &Path) -> anyhow::Result<()> {
    let mut text = grid.axes.join("\t") + &format!("\t{}\tinfeasible\n", grid.objective.name());
    for cell in &grid.cells {
        let (figure, why) = match &cell.figure {
            Ok(figure) => (format!("{figure:.0}"), String::new()),
            Err(why) => (String::new(), why.replace(['\t', '\n'], " ")),
        };
        text += &format!("{}\t{figure}\t{why}\n", cell.labels.join("\t"));
    }
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
}

/// A real tune's trials, each looked up in the grid: its own figure, the grid's, and the first trial whose grid
/// figure is within 5 % of the grid's best.
fn print_real_tune(grid: &Grid, dir: &Path, best: f64) -> anyhow::Result<()> {
    let results = Results::open(dir)?;
    let record = results.tune.with_context(|| format!("{}: no tune.json", dir.display()))?;
    println!();
    println!("real tune {} (method {:?}, seed {}):", dir.display(), record.method, record.seed);
    for cell in &record.cells {
        let mut first_within = None;
        let mut best_by_grid: Option<f64> = None;
        for trial in &cell.trials {
            let own = trial.figure.map_or_else(
                || format!("infeasible ({})", trial.infeasible.as_deref().unwrap_or("no figure")),
                |figure| grid.objective.value(figure),
            );
            let in_grid = match trial.source.as_str() {
                "defaults" => "not in the grid".to_string(),
                _ => match grid.lookup(&trial.options, &trial.args)?.figure {
                    Ok(figure) => {
                        if grid.within(figure, best) && first_within.is_none() {
                            first_within = Some(trial.number);
                        }
                        if best_by_grid.is_none_or(|b| grid.objective.score(figure) > grid.objective.score(b)) {
                            best_by_grid = Some(figure);
                        }
                        format!(
                            "grid {} ({:+.0} % of the best)",
                            grid.objective.value(figure),
                            (figure / best - 1.0) * 100.0
                        )
                    }
                    Err(_) => "grid: infeasible".to_string(),
                },
            };
            println!("  trial {:>2} ({}): {} — {own}; {in_grid}", trial.number, trial.source, trial.described);
        }
        let answer = cell.best(grid.objective).map(|trial| trial.described.clone()).unwrap_or_default();
        println!(
            "  its answer: {answer}; the best of its trials by the grid: {}; first within {:.0} %: {}",
            best_by_grid.map_or("none".to_string(), |figure| grid.objective.value(figure)),
            WITHIN * 100.0,
            first_within.map_or("never".to_string(), |number| format!("trial {number}"))
        );
    }
    Ok(())
}

fn parse_args() -> anyhow::Result<Args> {
    let usage = "usage: tune_replay TUNE_PLAN GRID_DIR [--seeds N] [--table FILE] [--real DIR]... [--trace SEED]";
    let mut words = std::env::args().skip(1);
    let mut positional = Vec::new();
    let (mut seeds, mut table, mut real, mut trace) = (10, None, Vec::new(), None);
    while let Some(word) = words.next() {
        match word.as_str() {
            "--seeds" => seeds = words.next().context(usage)?.parse().context("--seeds takes a number")?,
            "--table" => table = Some(PathBuf::from(words.next().context(usage)?)),
            "--real" => real.push(PathBuf::from(words.next().context(usage)?)),
            "--trace" => trace = Some(words.next().context(usage)?.parse().context("--trace takes a seed")?),
            _ if word.starts_with("--") => bail!("{usage}"),
            _ => positional.push(PathBuf::from(word)),
        }
    }
    let [tune_plan, grid] = <[PathBuf; 2]>::try_from(positional).map_err(|_| anyhow::anyhow!(usage))?;
    Ok(Args { tune_plan, grid, seeds, table, real, trace })
}
