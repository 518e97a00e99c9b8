//! Unit tests of `host_effect` on hand-made repeats whose answers are computed by hand: a slow host is found with its
//! exact factor, noise is not blamed, one host (or hosts that share no cell) says nothing.

use statrs::distribution::{ContinuousCDF, StudentsT};

use super::{FigureHostEffect, MIN_HOST_EFFECT, figure_effect};
use crate::report::analysis::host_fit::Observation;

const CELLS: [(&str, f64); 4] = [("a", 1000.0), ("b", 2000.0), ("c", 5000.0), ("d", 20000.0)];
const HOSTS: [&str; 3] = ["s1", "s2", "s3"];

/// Log noise per cell (rows) and host (columns) whose rows and columns all sum to zero: it has no host pattern, so
/// least squares gives each host's true factor exactly and leaves the noise as the residuals (sum of squares 8 a²).
fn balanced_noise(a: f64) -> [[f64; 3]; 4] {
    [[a, -a, 0.0], [-a, a, 0.0], [0.0, a, -a], [0.0, -a, a]]
}

/// One repeat of each cell on each host: level × host factor × e^noise.
fn repeats(factors: [f64; 3], noise: [[f64; 3]; 4]) -> Vec<Observation> {
    let mut observations = Vec::new();
    for (cell, (name, level)) in CELLS.iter().enumerate() {
        for (host, factor) in factors.iter().enumerate() {
            observations.push(Observation {
                cell: name.to_string(),
                rep: host as u32 + 1,
                host: HOSTS[host].to_string(),
                value: level * factor * noise[cell][host].exp(),
            });
        }
    }
    observations
}

fn close(actual: f64, expected: f64, tolerance: f64) {
    assert!((actual - expected).abs() <= tolerance, "{actual} is not {expected} ± {tolerance}");
}

fn blamed(effect: &FigureHostEffect) -> Vec<&str> {
    effect.hosts.iter().filter(|host| host.explains).map(|host| host.host.as_str()).collect()
}

#[test]
fn a_host_ten_percent_slower_in_every_cell_is_blamed_with_its_exact_factor() {
    let a = 0.01;
    let effect = figure_effect("rps", &repeats([1.0, 0.9, 1.0], balanced_noise(a))).unwrap();
    assert_eq!((effect.cells, effect.repeats, effect.df), (4, 12, 12 - 4 - 2));
    assert_eq!(blamed(&effect), ["s2"]);
    let s2 = &effect.hosts[1];
    close(s2.factor, 0.9, 1e-12);
    assert_eq!(s2.against, ["s1", "s3"]);
    assert_eq!((s2.repeats, s2.cells, s2.same_side_cells), (4, 4, 4));
    // σ² = 8a²/6; the balanced design's variance of (g2 − mean(g1, g3)) is σ²/cells × hosts/(hosts − 1) = σ² × 3/8.
    let t = 0.9f64.ln() / (8.0 * a * a / 6.0 * 3.0 / 8.0).sqrt();
    close(s2.p.unwrap(), 2.0 * StudentsT::new(0.0, 1.0, 6.0).unwrap().sf(t.abs()), 1e-12);
    assert!(s2.text.starts_with("s2: 10"), "{}", s2.text);
    assert!(s2.text.contains("% lower req/s than s1 and s3 over 4 cells"), "{}", s2.text);
    // The other two hosts, compared with each other only, are equal.
    close(effect.hosts[0].factor, 1.0, 1e-12);
    assert_eq!(effect.hosts[0].against, ["s3"]);
    // Within-cell variance: the centred host effects (ln 0.9 × (−1/3, 2/3, −1/3)) in 4 cells plus the noise.
    let hosts_ss = 4.0 * 0.9f64.ln().powi(2) * (1.0 / 9.0 + 4.0 / 9.0 + 1.0 / 9.0);
    close(effect.variance_explained, hosts_ss / (hosts_ss + 8.0 * a * a), 1e-9);
    // Cell a: e^a, 0.9 e^−a, 1 → spread e^2a / 0.9 − 1; without the hosts e^a, e^−a, 1 → e^2a − 1.
    let cell_a = &effect.cell_spreads[0];
    assert_eq!(cell_a.cell, "a");
    close(cell_a.spread, (2.0 * a).exp() / 0.9 - 1.0, 1e-12);
    close(cell_a.spread_without_hosts, (2.0 * a).exp() - 1.0, 1e-12);
    assert!(effect.cell_spreads.iter().all(|cell| cell.explained));
    assert_eq!(cell_a.hosts, [(1, "s1".to_string()), (2, "s2".to_string()), (3, "s3".to_string())]);
}

#[test]
fn a_host_with_higher_latency_is_blamed_on_a_lower_is_better_figure() {
    let effect = figure_effect("p99_ms", &repeats([1.0, 1.0, 1.25], balanced_noise(0.01))).unwrap();
    assert_eq!(blamed(&effect), ["s3"]);
    close(effect.hosts[2].factor, 1.25, 1e-12);
    assert!(effect.hosts[2].text.contains("% higher P99 than s1 and s2"), "{}", effect.hosts[2].text);
}

#[test]
fn noise_without_a_host_pattern_is_not_blamed() {
    // Each host's noise over the cells averages ±0.125 % at most: far below 3 %, whatever the test says.
    let noise = [[0.02, -0.01, -0.01], [-0.015, 0.02, -0.005], [0.01, -0.02, 0.01], [-0.01, 0.005, 0.005]];
    let effect = figure_effect("rps", &repeats([1.0, 1.0, 1.0], noise)).unwrap();
    assert!(blamed(&effect).is_empty());
    assert!(effect.hosts.iter().all(|host| (host.factor - 1.0).abs() < MIN_HOST_EFFECT));
    assert!(effect.cell_spreads.iter().all(|cell| !cell.explained));
}

#[test]
fn a_host_effect_within_the_repeats_noise_is_not_blamed() {
    // s2 is exactly 5 % lower (more than 3 %), but the repeats scatter by ±10 %: t = ln 0.95 / √(0.08/6 × 3/8) = −0.73
    // with 6 degrees of freedom, p ≈ 0.5.
    let effect = figure_effect("rps", &repeats([1.0, 0.95, 1.0], balanced_noise(0.1))).unwrap();
    close(effect.hosts[1].factor, 0.95, 1e-12);
    assert!(effect.hosts[1].p.unwrap() > 0.4, "{:?}", effect.hosts[1].p);
    assert!(blamed(&effect).is_empty());
}

#[test]
fn one_host_says_nothing() {
    let mut observations = repeats([1.0, 0.9, 1.0], balanced_noise(0.01));
    for observation in &mut observations {
        observation.host = "s1".to_string();
    }
    assert!(figure_effect("rps", &observations).is_none());
}

#[test]
fn cells_that_ran_on_one_host_each_say_nothing() {
    // Every repeat of cell a on s1, of b on s2, …: a slow host and a slow cell look the same.
    let observations: Vec<Observation> = repeats([1.0, 0.9, 1.0], balanced_noise(0.01))
        .into_iter()
        .map(|mut observation| {
            observation.host = format!("s{}", CELLS.iter().position(|(cell, _)| *cell == observation.cell).unwrap());
            observation
        })
        .collect();
    assert!(figure_effect("rps", &observations).is_none());
}

#[test]
fn hosts_that_share_no_cell_cannot_be_compared() {
    // Cells a and b ran on s1 and s2, cells c and d on s3 and s4.
    let observations: Vec<Observation> = repeats([1.0, 0.9, 1.0], balanced_noise(0.01))
        .into_iter()
        .filter(|observation| observation.host != "s3")
        .map(|mut observation| {
            if observation.cell == "c" || observation.cell == "d" {
                observation.host = if observation.host == "s1" { "s3" } else { "s4" }.to_string();
            }
            observation
        })
        .collect();
    assert!(figure_effect("rps", &observations).is_none());
}

#[test]
fn of_two_hosts_only_the_worse_is_blamed_and_single_host_cells_are_left_out() {
    // Two repeats of each cell on each of two hosts; s2 20 % lower; a fifth cell ran on s1 alone.
    let mut observations = Vec::new();
    for (name, level) in CELLS {
        for (rep, (host, factor, noise)) in
            [("s1", 1.0, 0.01), ("s1", 1.0, -0.01), ("s2", 0.8, 0.01), ("s2", 0.8, -0.01)].into_iter().enumerate()
        {
            let value = level * factor * f64::exp(noise);
            observations.push(Observation {
                cell: name.to_string(),
                rep: rep as u32 + 1,
                host: host.to_string(),
                value,
            });
        }
    }
    observations.push(Observation { cell: "e".to_string(), rep: 1, host: "s1".to_string(), value: 1.0 });
    observations.push(Observation { cell: "e".to_string(), rep: 2, host: "s1".to_string(), value: 3.0 });
    let effect = figure_effect("rps", &observations).unwrap();
    assert_eq!((effect.cells, effect.repeats, effect.df), (4, 16, 16 - 4 - 1));
    assert_eq!(blamed(&effect), ["s2"]);
    close(effect.hosts[1].factor, 0.8, 1e-12);
    // s1 is compared with s2 and is 25 % higher, but is not blamed: of two hosts only the worse can be.
    close(effect.hosts[0].factor, 1.25, 1e-12);
    assert!(!effect.hosts[0].explains);
    // Noise ±1 % about each host's level: the residuals are 16 × 0.01².
    let hosts_ss = 16.0 * (0.8f64.ln() / 2.0).powi(2);
    close(effect.variance_explained, hosts_ss / (hosts_ss + 16.0 * 0.0001), 1e-9);
}
