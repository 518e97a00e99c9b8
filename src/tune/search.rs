//! The search of a `[tune]`: given every trial so far, the next configuration to try. The caller runs the JVM's
//! defaults first; then come the points of a Latin hypercube (`design`), then the model: a Gaussian process
//! (`gp`) on the trials' figures, and where some trials were infeasible (refused by the preflight, crashed,
//! killed by their box, missed the SLO at every rate) a second process on feasibility (+1 / −1) whose probability of
//! a feasible outcome weighs the expected improvement over the best figure so far — constrained Bayesian optimisation
//! in the manner of Gardner et al. (ICML 2014). In the figure's model a trial that missed a constraint with its figure
//! measured (the SLO missed at a fixed rate: its p99 or its memory is still a measurement) stands at that figure, and
//! one with no figure (refused, crashed, killed, no rate held) at the worst feasible figure, so that the model does not
//! carry a rising figure over a cliff. The next configuration maximises that product over seeded random
//! candidates and perturbations of the best trials, each snapped to a real configuration (integers rounded, one
//! choice, inactive parameters dropped) before it is scored, never one already tried.
//!
//! Every figure is "higher is better" (a capacity as is; a p99 or a memory size negated by the caller). Everything is
//! a function of the seed and the trials, so a resumed search proposes what the first would have.

use statrs::distribution::{Continuous, ContinuousCDF, Normal};

use super::design::latin_hypercube;
use super::gp::Gp;
use super::space::{Config, Space};

/// How a trial ended, as the search sees it.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Its figure (higher is better).
    Figure(f64),
    /// It ran and its figure was measured (higher is better), but it missed a constraint: the SLO at a fixed rate, or
    /// a capacity below `at_rate`. Infeasible, yet its figure tells the model about the figure's landscape.
    Missed(f64),
    /// It gave no figure the objective can use: refused, crashed, killed, or outside the SLO everywhere.
    Infeasible,
}

impl Outcome {
    /// Its figure, when it met every constraint.
    pub fn feasible_figure(&self) -> Option<f64> {
        match self {
            Outcome::Figure(figure) => Some(*figure),
            Outcome::Missed(_) | Outcome::Infeasible => None,
        }
    }

    /// Whether the trial met every constraint.
    pub fn is_feasible(&self) -> bool {
        self.feasible_figure().is_some()
    }
}

/// Where a trial's configuration came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The JVM's ergonomics (or the plan's base options): always the first trial.
    Defaults,
    /// The space-filling start.
    Design,
    /// The model's proposal.
    Model,
    /// A uniform random draw (`method = "random"`: the baseline the model is measured against).
    Random,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Trial {
    pub config: Config,
    pub source: Source,
    pub outcome: Outcome,
}

/// How the search proposes.
#[derive(Debug, Clone)]
pub struct Search {
    space: Space,
    seed: u64,
    /// Points in the space-filling start.
    design_size: usize,
    method: Method,
}

/// How the configurations after the defaults are chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    /// A space-filling start, then the model's proposals.
    Model,
    /// Uniform random configurations, none twice: what a search without a model finds (bench/tune-vs-grid.sh).
    Random,
}

/// Draws a random search (or the start, in later hypercubes) makes for a configuration not yet tried before it
/// repeats one (a small space runs out).
const RANDOM_DRAWS: usize = 1000;

/// Uniform random candidates scored per proposal, and perturbations around each of the best few trials.
const RANDOM_CANDIDATES: usize = 1500;
const BEST_TRIALS_PERTURBED: usize = 5;
const PERTURBATIONS: usize = 150;
/// The perturbations' spread in the unit cube, and the chance that a coordinate is drawn afresh instead (which is
/// what moves a choice to another value: a small step never does).
const PERTURBATION_SD: f64 = 0.08;
const REDRAWN: f64 = 0.15;

impl Search {
    pub fn new(space: Space, seed: u64, design_size: usize, method: Method) -> Search {
        Search { space, seed, design_size, method }
    }

    pub fn space(&self) -> &Space {
        &self.space
    }

    /// The next configuration and where it comes from.
    pub fn propose(&self, trials: &[Trial]) -> (Config, Source) {
        if self.method == Method::Random {
            return (self.random_point(trials), Source::Random);
        }
        let designed = trials.iter().filter(|trial| trial.source == Source::Design).count();
        let feasible = trials.iter().filter(|trial| trial.outcome.is_feasible()).count();
        if designed < self.design_size || feasible < 2 {
            return (self.untried_design_point(designed, trials), Source::Design);
        }
        (self.model_point(trials), Source::Model)
    }

    /// Point `index` of the start: the seed's hypercube of `design_size` points, then (a start that found too few
    /// feasible configurations) the points of further hypercubes.
    fn design_point(&self, index: usize) -> Config {
        let size = self.design_size.max(1);
        let round = (index / size) as u64;
        let mut rng = fastrand::Rng::with_seed(self.seed.wrapping_add(round.wrapping_mul(0x9E37_79B9)));
        let points = latin_hypercube(size, self.space.dimensions(), &mut rng);
        self.space.decode(&points[index % size])
    }

    /// Point `index` of the start, or, when a trial has had its configuration already (a space with few
    /// configurations snaps several points of the cube to one), the first later hypercube point not yet tried.
    fn untried_design_point(&self, index: usize, trials: &[Trial]) -> Config {
        let size = self.design_size.max(1);
        (0..RANDOM_DRAWS)
            .map(|round| self.design_point(index + round * size))
            .find(|config| trials.iter().all(|trial| trial.config != *config))
            .unwrap_or_else(|| self.design_point(index))
    }

    /// The seed of one proposal: the search's, mixed with the number of trials so far.
    fn proposal_seed(&self, trials: &[Trial]) -> u64 {
        self.seed ^ (trials.len() as u64).wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A uniform draw of the seed and the number of trials so far, not one already tried (while the space has one).
    fn random_point(&self, trials: &[Trial]) -> Config {
        let mut rng = fastrand::Rng::with_seed(self.proposal_seed(trials));
        let mut draw = || self.space.decode(&(0..self.space.dimensions()).map(|_| rng.f64()).collect::<Vec<_>>());
        let first = draw();
        std::iter::once(first.clone())
            .chain((1..RANDOM_DRAWS).map(|_| draw()))
            .find(|config| trials.iter().all(|trial| trial.config != *config))
            .unwrap_or(first)
    }

    /// The candidate with the largest expected improvement × probability of feasibility.
    fn model_point(&self, trials: &[Trial]) -> Config {
        let seed = self.proposal_seed(trials);
        let encoded: Vec<Vec<f64>> = trials.iter().map(|trial| self.space.encode(&trial.config)).collect();
        let figures: Vec<f64> = trials.iter().filter_map(|trial| trial.outcome.feasible_figure()).collect();
        // A trial without a figure stands in the figure's model at the worst feasible figure, so that the model does
        // not extrapolate a rising figure into the region that fails; one that missed with its figure measured
        // stands at that figure (the feasibility model below keeps the search off it).
        let worst = figures.iter().copied().fold(f64::INFINITY, f64::min);
        let imputed: Vec<f64> = trials
            .iter()
            .map(|trial| match trial.outcome {
                Outcome::Figure(figure) | Outcome::Missed(figure) => figure,
                Outcome::Infeasible => worst,
            })
            .collect();
        let model = Gp::fit(&encoded, &imputed, seed);
        let feasibility = trials.iter().any(|trial| !trial.outcome.is_feasible()).then(|| {
            let labels: Vec<f64> =
                trials.iter().map(|trial| if trial.outcome.is_feasible() { 1.0 } else { -1.0 }).collect();
            Gp::fit(&encoded, &labels, seed.wrapping_add(1))
        });
        let best = figures.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let score = |point: &[f64]| {
            let improvement = expected_improvement(model.predict(point), best);
            let feasible = feasibility.as_ref().map_or(1.0, |gp| probability_above_zero(gp.predict(point)));
            improvement * feasible
        };
        let mut rng = fastrand::Rng::with_seed(seed);
        let mut best_candidate: Option<(f64, Config)> = None;
        for candidate in self.candidates(trials, &encoded, &mut rng) {
            let config = self.space.decode(&candidate);
            if trials.iter().any(|trial| trial.config == config) {
                continue;
            }
            let value = score(&self.space.encode(&config));
            if best_candidate.as_ref().is_none_or(|(best, _)| value > *best) {
                best_candidate = Some((value, config));
            }
        }
        best_candidate.map_or_else(|| self.design_point(trials.len()), |(_, config)| config)
    }

    /// Uniform points, and Gaussian steps around the best feasible trials (some coordinates drawn afresh).
    fn candidates(&self, trials: &[Trial], encoded: &[Vec<f64>], rng: &mut fastrand::Rng) -> Vec<Vec<f64>> {
        let dimensions = self.space.dimensions();
        let mut candidates: Vec<Vec<f64>> =
            (0..RANDOM_CANDIDATES).map(|_| (0..dimensions).map(|_| rng.f64()).collect()).collect();
        let mut ranked: Vec<(f64, &Vec<f64>)> = trials
            .iter()
            .zip(encoded)
            .filter_map(|(trial, point)| trial.outcome.feasible_figure().map(|figure| (figure, point)))
            .collect();
        ranked.sort_by(|a, b| b.0.total_cmp(&a.0));
        for (_, centre) in ranked.into_iter().take(BEST_TRIALS_PERTURBED) {
            for _ in 0..PERTURBATIONS {
                let point = centre
                    .iter()
                    .map(|x| match rng.f64() < REDRAWN {
                        true => rng.f64(),
                        false => (x + PERTURBATION_SD * normal_sample(rng)).clamp(0.0, 1.0),
                    })
                    .collect();
                candidates.push(point);
            }
        }
        candidates
    }
}

/// E[max(f − best, 0)] under the prediction.
pub fn expected_improvement(prediction: super::gp::Prediction, best: f64) -> f64 {
    if prediction.sd <= 1e-12 {
        return (prediction.mean - best).max(0.0);
    }
    let z = (prediction.mean - best) / prediction.sd;
    let normal = Normal::standard();
    prediction.sd * (z * normal.cdf(z) + normal.pdf(z))
}

fn probability_above_zero(prediction: super::gp::Prediction) -> f64 {
    if prediction.sd <= 1e-12 {
        return f64::from(prediction.mean > 0.0);
    }
    Normal::standard().cdf(prediction.mean / prediction.sd)
}

/// A standard normal draw (Box–Muller).
fn normal_sample(rng: &mut fastrand::Rng) -> f64 {
    let u = rng.f64().max(f64::MIN_POSITIVE);
    (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * rng.f64()).cos()
}

#[cfg(test)]
#[path = "search_tests.rs"]
mod tests;
