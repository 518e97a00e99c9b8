use super::*;
use crate::results::tune_json::TuneTrial;
use crate::results::tune_json::fixtures::{self, search};

fn trial(number: u32, source: &str, figure: Option<f64>, seconds: f64) -> TuneTrial {
    TuneTrial { seconds, ..fixtures::trial(number, source, &format!("-Dx=0.{number}"), figure) }
}

fn measured(trial: u32, figures: &[Option<f64>]) -> Measured {
    let infeasible = figures.iter().any(Option::is_none).then(|| "killed by the memory limit (256 MiB)".to_string());
    Measured { trial, figures: figures.to_vec(), infeasible }
}

#[test]
fn the_finalists_are_the_best_the_runner_up_close_contenders_and_the_defaults() {
    // Capacity: 1000 is the best; 960 and 905 are within 10 %, 850 is not; the defaults had 700.
    let cell = search(vec![
        trial(1, "defaults", Some(700.0), 20.0),
        trial(2, "design", Some(850.0), 20.0),
        trial(3, "design", None, 2.0),
        trial(4, "model", Some(1000.0), 20.0),
        trial(5, "model", Some(960.0), 20.0),
        trial(6, "model", Some(905.0), 20.0),
    ]);
    assert_eq!(finalists(Objective::Capacity, &cell), [4, 5, 6, 1]);
    // Nothing near the best: the runner-up all the same (best against runner-up is always tested).
    let alone = search(vec![trial(1, "defaults", Some(100.0), 20.0), trial(2, "design", Some(50.0), 20.0)]);
    assert_eq!(finalists(Objective::Capacity, &alone), [1, 2]);
    // Lower is better for p99: 2.0 best, 2.1 within the band, 2.3 not, the defaults 9.0.
    let p99 = search(vec![
        trial(1, "defaults", Some(9.0), 20.0),
        trial(2, "design", Some(2.3), 20.0),
        trial(3, "model", Some(2.1), 20.0),
        trial(4, "model", Some(2.0), 20.0),
    ]);
    assert_eq!(finalists(Objective::P99, &p99), [4, 3, 1]);
    // Infeasible defaults are no finalist; no feasible trial, no finalist at all.
    let refused = search(vec![trial(1, "defaults", None, 2.0), trial(2, "design", Some(5.0), 20.0)]);
    assert_eq!(finalists(Objective::P99, &refused), [2]);
    assert!(finalists(Objective::P99, &search(vec![trial(1, "defaults", None, 2.0)])).is_empty());
}

#[test]
fn a_time_budget_keeps_the_mean_trial_for_each_confirming_run_there_may_be() {
    let cell = search(vec![trial(1, "defaults", Some(1.0), 10.0), trial(2, "design", Some(2.0), 30.0)]);
    // Mean 20 s × 2 more repeats × 4 finalists at most.
    assert_eq!(reserve_seconds(3, &cell), 160.0);
    assert_eq!(reserve_seconds(1, &cell), 0.0, "no confirmation, nothing kept");
    assert_eq!(reserve_seconds(3, &search(Vec::new())), 0.0, "the first trial always runs");
}

#[test]
fn the_confirmed_best_is_the_best_median_and_welch_tells_it_from_the_defaults_and_the_runner_up() {
    // Capacity. Trial 4 won the search with a lucky 1,100 but its repeats say ~1,000; trial 5 holds ~1,030.
    let confirmation = settle(
        Objective::Capacity,
        3,
        vec![
            measured(4, &[Some(1100.0), Some(990.0), Some(1000.0)]),
            measured(5, &[Some(1040.0), Some(1020.0), Some(1030.0)]),
            measured(1, &[Some(700.0), Some(710.0), Some(690.0)]),
        ],
        Some(1),
        40.0,
    );
    let order: Vec<u32> = confirmation.finalists.iter().map(|finalist| finalist.trial).collect();
    assert_eq!(order, [5, 4, 1], "by median: 1,030, 1,000, 700");
    let best = confirmation.best().unwrap();
    assert_eq!(best.median, Some(1030.0));
    // Mean 1,030, s = 10, t(2, 0.975) = 4.3027: ± 24.84.
    let [low, high] = best.interval.unwrap();
    assert!((low - 1005.16).abs() < 0.01 && (high - 1054.84).abs() < 0.01, "{low}–{high}");
    let defaults = confirmation.against_defaults.as_ref().unwrap();
    assert_eq!((defaults.trial, defaults.significant), (1, true));
    assert!(defaults.p < 0.001, "{defaults:?}");
    let runner_up = confirmation.against_runner_up.as_ref().unwrap();
    assert_eq!((runner_up.trial, runner_up.significant), (4, false), "1,030 against 990–1,100: within the noise");
    assert_eq!(confirmation.runs(), 6);
}

#[test]
fn a_finalist_infeasible_in_one_repeat_falls_behind_every_finalist_feasible_in_all() {
    let confirmation = settle(
        Objective::P99,
        3,
        vec![
            measured(6, &[Some(2.0), None, Some(2.1)]),
            measured(3, &[Some(2.5), Some(2.6), Some(2.4)]),
            measured(1, &[Some(2.5), Some(2.7), Some(2.6)]),
        ],
        Some(1),
        30.0,
    );
    let order: Vec<u32> = confirmation.finalists.iter().map(|finalist| finalist.trial).collect();
    assert_eq!(order, [3, 1, 6]);
    let failed = &confirmation.finalists[2];
    assert!(!failed.feasible_everywhere());
    assert_eq!((failed.median, failed.interval.is_some()), (Some(2.05), true), "over its two feasible repeats");
    assert_eq!(confirmation.best().unwrap().trial, 3);
    assert!(!confirmation.against_defaults.as_ref().unwrap().significant, "2.5 against 2.6: either");
    assert_eq!(confirmation.against_runner_up, None, "no other finalist but the defaults is feasible everywhere");
}

#[test]
fn when_the_defaults_are_the_confirmed_best_the_runner_up_is_tested_against_them() {
    let confirmation = settle(
        Objective::P99,
        2,
        vec![measured(7, &[Some(1.0), Some(3.0)]), measured(1, &[Some(1.5), Some(1.6)])],
        Some(1),
        20.0,
    );
    assert_eq!(confirmation.best().unwrap().trial, 1);
    // Trial 7: mean 2, s = √2, ± 12.71 × 1: from below 0, which no p99 is.
    assert_eq!(confirmation.finalists[1].interval.unwrap()[0], 0.0);
    assert_eq!(confirmation.against_defaults, None);
    assert_eq!(confirmation.against_runner_up.as_ref().map(|test| test.trial), Some(7));
}

#[test]
fn the_answer_and_the_verdict_read_the_confirmed_figures() {
    let mut cell = search(vec![
        trial(1, "defaults", Some(700.0), 20.0),
        trial(2, "design", Some(1100.0), 20.0),
        trial(3, "model", Some(1040.0), 20.0),
    ]);
    cell.confirmation = Some(settle(
        Objective::Capacity,
        3,
        vec![
            measured(2, &[Some(1100.0), Some(960.0), Some(970.0)]),
            measured(3, &[Some(1040.0), Some(1020.0), Some(1030.0)]),
            measured(1, &[Some(700.0), Some(710.0), Some(690.0)]),
        ],
        Some(1),
        120.0,
    ));
    assert_eq!(
        cell.answer(Objective::Capacity),
        "best: -Dx=0.3 — capacity 1,030 req/s (1,005–1,055), 1.47× the default's 700 req/s; 3 trial(s) + 6 \
         confirming run(s), 3 min"
    );
    // Trial 2: mean 1,010, s = 78.1, ± 194.0; Welch against trial 3 (mean 1,030, s = 10): t = −0.44, p = 0.70.
    assert_eq!(
        cell.verdict(Objective::Capacity).unwrap(),
        "over 3 repeats each: better than the defaults (p < 0.001); the runner-up, -Dx=0.2 at 970 req/s \
         (816–1,204), cannot be told apart from the best (p = 0.70): either will do"
    );
    assert_eq!(cell.best(Objective::Capacity).map(|best| best.number), Some(3));
    assert_eq!(cell.searched_best(Objective::Capacity).map(|best| best.number), Some(2));
}

#[test]
fn without_a_finalist_feasible_in_every_repeat_the_answer_claims_no_best() {
    let mut cell = search(vec![trial(1, "defaults", Some(4.5), 10.0), trial(2, "design", Some(6.3), 10.0)]);
    cell.confirmation = Some(settle(
        Objective::P99,
        3,
        vec![measured(1, &[Some(4.5), Some(35.8), None]), measured(2, &[Some(6.3), Some(2.0), None])],
        Some(1),
        40.0,
    ));
    assert_eq!(
        cell.answer(Objective::P99),
        "no finalist held in all 3 repeats (the search's best single trial: defaults, p99 4.500 ms); 2 trial(s) + 4 \
         confirming run(s), 60 s"
    );
    assert!(cell.verdict(Objective::P99).unwrap().starts_with(
        "over 3 repeats each: no finalist was feasible in every \
         repeat; trial 1 (defaults) was infeasible in 1 of 3 repeats (killed by the memory limit (256 MiB))"
    ));
}
