//! Which parameters mattered: each parameter's share of the variation of the figure, read from the fitted model
//! rather than from the few trials themselves — the model's mean over a seeded hypercube of configurations, grouped
//! by the parameter's value (a choice by value, a range in five equal bins of its scale, "not applicable" as a group
//! of its own), the variance of the group means over the total variance (a first-order Sobol index estimated by
//! binning). The shares need not add up to 100 %: what is left is the parameters acting together.

use super::design::latin_hypercube;
use super::gp::Gp;
use super::space::{Domain, Space, Value, coordinates};

/// How many configurations the model is read at, and the bins of a range.
const SAMPLES: usize = 2000;
const BINS: usize = 5;

/// One parameter's share of the figure's variation (0–1).
#[derive(Debug, Clone, PartialEq)]
pub struct Importance {
    pub parameter: String,
    pub share: f64,
}

/// The shares, largest first; empty when the model's mean does not vary.
pub fn importance(space: &Space, model: &Gp, seed: u64) -> Vec<Importance> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let configs: Vec<_> =
        latin_hypercube(SAMPLES, space.dimensions(), &mut rng).iter().map(|point| space.decode(point)).collect();
    let points: Vec<Vec<f64>> = configs.iter().map(|config| space.encode(config)).collect();
    let means: Vec<f64> = points.iter().map(|point| model.predict(point).mean).collect();
    let overall = means.iter().sum::<f64>() / means.len() as f64;
    let total = means.iter().map(|m| (m - overall).powi(2)).sum::<f64>() / means.len() as f64;
    if total <= 0.0 {
        return Vec::new();
    }
    let mut shares: Vec<Importance> = space
        .parameters()
        .iter()
        .map(|parameter| {
            // Group 0: not applicable; then one group per value of a choice, or per bin of a range.
            let group_of = |value: Option<&Value>, point: &[f64]| -> usize {
                match (&parameter.domain, value) {
                    (_, None) => 0,
                    (Domain::Choice(values) | Domain::Ordered(values), Some(Value::Choice(v))) => {
                        1 + values.iter().position(|c| c == v).unwrap_or(0)
                    }
                    (_, Some(_)) => {
                        let at = coordinate_of(space, &parameter.name, point);
                        1 + ((at * BINS as f64) as usize).min(BINS - 1)
                    }
                }
            };
            let groups = 1 + match &parameter.domain {
                Domain::Choice(values) | Domain::Ordered(values) => values.len(),
                _ => BINS,
            };
            let mut sums = vec![(0.0, 0usize); groups];
            for ((config, point), mean) in configs.iter().zip(&points).zip(&means) {
                let group = group_of(config.get(&parameter.name), point);
                sums[group].0 += mean;
                sums[group].1 += 1;
            }
            let between: f64 = sums
                .iter()
                .filter(|(_, count)| *count > 0)
                .map(|(sum, count)| *count as f64 * (sum / *count as f64 - overall).powi(2))
                .sum::<f64>()
                / means.len() as f64;
            Importance { parameter: parameter.name.clone(), share: (between / total).clamp(0.0, 1.0) }
        })
        .collect();
    shares.sort_by(|a, b| b.share.total_cmp(&a.share));
    shares
}

/// The unit-cube coordinate of a range parameter in an encoded point.
fn coordinate_of(space: &Space, name: &str, point: &[f64]) -> f64 {
    let mut at = 0;
    for parameter in space.parameters() {
        if parameter.name == name {
            return point[at];
        }
        at += coordinates(&parameter.domain);
    }
    unreachable!("{name} is a parameter of the space")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tune::space::{Config, Parameter};

    #[test]
    fn the_parameter_the_figure_follows_gets_the_largest_share_and_one_it_ignores_almost_none() {
        let space = Space::new(vec![
            Parameter { name: "gc".into(), domain: Domain::Choice(vec!["A".into(), "B".into()]), only_if: None },
            Parameter { name: "heap".into(), domain: Domain::Real { from: 0.0, to: 1.0, log: false }, only_if: None },
            Parameter { name: "noise".into(), domain: Domain::Real { from: 0.0, to: 1.0, log: false }, only_if: None },
        ])
        .unwrap();
        let figure = |config: &Config| {
            let heap = match config["heap"] {
                Value::Real(v) => v,
                _ => unreachable!(),
            };
            let gc = if config["gc"] == Value::Choice("A".into()) { 10.0 } else { 0.0 };
            gc + 3.0 * heap
        };
        let mut rng = fastrand::Rng::with_seed(1);
        let configs: Vec<Config> =
            latin_hypercube(30, space.dimensions(), &mut rng).iter().map(|p| space.decode(p)).collect();
        let points: Vec<Vec<f64>> = configs.iter().map(|c| space.encode(c)).collect();
        let values: Vec<f64> = configs.iter().map(figure).collect();
        let shares = importance(&space, &Gp::fit(&points, &values, 1), 2);
        let names: Vec<&str> = shares.iter().map(|s| s.parameter.as_str()).collect();
        assert_eq!(names, ["gc", "heap", "noise"], "{shares:?}");
        // Exactly: gc ±5 gives variance 25, heap 3·U(0,1) gives 0.75; 25 / 25.75 = 0.97, 0.75 / 25.75 = 0.029 (the
        // bins see 96 % of a uniform's variance).
        assert!((shares[0].share - 0.97).abs() < 0.03, "{shares:?}");
        assert!(shares[1].share > 0.015 && shares[1].share < 0.04, "{shares:?}");
        assert!(shares[2].share < 0.005, "{shares:?}");
    }
}
