//! A Gaussian process over the unit cube: the model of a `[tune]`'s search. Matérn 5/2 kernel with one length scale
//! per coordinate (ARD: a coordinate the figure does not depend on gets a long one), a signal variance and a noise
//! variance (trials are measurements: the same configuration measured twice differs), fitted by maximising the log
//! marginal likelihood of the standardised observations with a weak log-normal prior on the length scales, from
//! seeded random starts refined by a pattern search in log space — the likelihood of a few dozen trials costs
//! microseconds, so no gradient is needed. Linear algebra by nalgebra (Cholesky).

use nalgebra::{DMatrix, DVector};

/// The hyperparameters, all as natural logarithms.
#[derive(Debug, Clone, PartialEq)]
struct Hyper {
    length: Vec<f64>,
    signal: f64,
    noise: f64,
}

/// Bounds of the log hyperparameters (observations standardised: variance 1).
const LENGTH: (f64, f64) = (-4.6, 2.3); // 0.01 .. 10
const SIGNAL: (f64, f64) = (-3.0, 3.0);
const NOISE: (f64, f64) = (-9.2, 0.0); // 1e-4 .. 1
/// The prior on each log length scale: normal around ln 0.5, sd 1.5 (loose: it only stops degenerate fits).
const LENGTH_PRIOR: (f64, f64) = (-0.69, 1.5);

/// A fitted process.
#[derive(Debug, Clone)]
pub struct Gp {
    points: Vec<Vec<f64>>,
    hyper: Hyper,
    mean: f64,
    scale: f64,
    cholesky: nalgebra::Cholesky<f64, nalgebra::Dyn>,
    alpha: DVector<f64>,
}

/// A prediction: mean and standard deviation (the model's uncertainty about the mean, noise left out), in the
/// observations' units.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Prediction {
    pub mean: f64,
    pub sd: f64,
}

impl Gp {
    /// Fit to `values` observed at `points` (at least one; all the same dimension). Deterministic for a seed.
    pub fn fit(points: &[Vec<f64>], values: &[f64], seed: u64) -> Gp {
        assert!(!points.is_empty() && points.len() == values.len(), "a GP needs observations");
        let n = values.len() as f64;
        let mean = values.iter().sum::<f64>() / n;
        let variance = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n;
        let scale = if variance > 0.0 { variance.sqrt() } else { 1.0 };
        let y = DVector::from_iterator(values.len(), values.iter().map(|v| (v - mean) / scale));
        let hyper = fit_hyper(points, &y, seed);
        let (cholesky, alpha) = factor(points, &y, &hyper).expect("the fitted hyperparameters factor");
        Gp { points: points.to_vec(), hyper, mean, scale, cholesky, alpha }
    }

    /// The process at `x`.
    pub fn predict(&self, x: &[f64]) -> Prediction {
        let k: DVector<f64> =
            DVector::from_iterator(self.points.len(), self.points.iter().map(|p| kernel(p, x, &self.hyper)));
        let mean = k.dot(&self.alpha);
        let v = self.cholesky.l().solve_lower_triangular(&k).expect("L is triangular with a positive diagonal");
        let variance = (self.hyper.signal.exp() - v.dot(&v)).max(0.0);
        Prediction { mean: self.mean + self.scale * mean, sd: self.scale * variance.sqrt() }
    }

    /// Each coordinate's fitted length scale: short where the figure changes fast along it.
    pub fn length_scales(&self) -> Vec<f64> {
        self.hyper.length.iter().map(|l| l.exp()).collect()
    }

    /// The fitted noise's standard deviation, in the observations' units.
    pub fn noise_sd(&self) -> f64 {
        self.scale * (self.hyper.noise.exp()).sqrt()
    }
}

/// Matérn 5/2 with ARD.
fn kernel(a: &[f64], b: &[f64], hyper: &Hyper) -> f64 {
    let r2: f64 = a.iter().zip(b).zip(&hyper.length).map(|((x, y), l)| ((x - y) / l.exp()).powi(2)).sum();
    let r = (5.0 * r2).sqrt();
    hyper.signal.exp() * (1.0 + r + r * r / 3.0) * (-r).exp()
}

fn covariance(points: &[Vec<f64>], hyper: &Hyper) -> DMatrix<f64> {
    let n = points.len();
    let noise = hyper.noise.exp() + 1e-9;
    DMatrix::from_fn(n, n, |i, j| kernel(&points[i], &points[j], hyper) + if i == j { noise } else { 0.0 })
}

type Factored = (nalgebra::Cholesky<f64, nalgebra::Dyn>, DVector<f64>);

fn factor(points: &[Vec<f64>], y: &DVector<f64>, hyper: &Hyper) -> Option<Factored> {
    let cholesky = covariance(points, hyper).cholesky()?;
    let alpha = cholesky.solve(y);
    Some((cholesky, alpha))
}

/// Log marginal likelihood plus the length scales' log prior; None where the covariance does not factor.
fn objective(points: &[Vec<f64>], y: &DVector<f64>, hyper: &Hyper) -> Option<f64> {
    let (cholesky, alpha) = factor(points, y, hyper)?;
    let log_det: f64 = cholesky.l().diagonal().iter().map(|d| d.ln()).sum();
    let fit = -0.5 * y.dot(&alpha) - log_det;
    let (centre, sd) = LENGTH_PRIOR;
    let prior: f64 = hyper.length.iter().map(|l| -0.5 * ((l - centre) / sd).powi(2)).sum();
    Some(fit + prior).filter(|value| value.is_finite())
}

/// The hyperparameters as one vector (lengths, signal, noise) and back, with each one's bounds.
fn flat(hyper: &Hyper) -> Vec<f64> {
    let mut v = hyper.length.clone();
    v.push(hyper.signal);
    v.push(hyper.noise);
    v
}

fn unflat(v: &[f64]) -> Hyper {
    let d = v.len() - 2;
    Hyper { length: v[..d].to_vec(), signal: v[d], noise: v[d + 1] }
}

fn bounds(d: usize, index: usize) -> (f64, f64) {
    match index {
        i if i < d => LENGTH,
        i if i == d => SIGNAL,
        _ => NOISE,
    }
}

/// Seeded random starts, the best refined by a pattern search (each coordinate tried ± step, the step halved when
/// nothing improves).
fn fit_hyper(points: &[Vec<f64>], y: &DVector<f64>, seed: u64) -> Hyper {
    let d = points[0].len();
    let mut rng = fastrand::Rng::with_seed(seed);
    let score = |v: &[f64]| objective(points, y, &unflat(v)).unwrap_or(f64::NEG_INFINITY);
    let mut best = flat(&Hyper { length: vec![LENGTH_PRIOR.0; d], signal: 0.0, noise: -4.6 });
    let mut best_score = score(&best);
    for _ in 0..24 {
        let start: Vec<f64> = (0..d + 2)
            .map(|i| {
                let (low, high) = bounds(d, i);
                low + rng.f64() * (high - low)
            })
            .collect();
        let start_score = score(&start);
        if start_score > best_score {
            (best, best_score) = (start, start_score);
        }
    }
    let mut step = 1.0;
    while step > 0.02 {
        let mut improved = false;
        for i in 0..d + 2 {
            let (low, high) = bounds(d, i);
            for direction in [-1.0, 1.0] {
                let mut trial = best.clone();
                trial[i] = (trial[i] + direction * step).clamp(low, high);
                let trial_score = score(&trial);
                if trial_score > best_score + 1e-9 {
                    (best, best_score) = (trial, trial_score);
                    improved = true;
                }
            }
        }
        if !improved {
            step /= 2.0;
        }
    }
    unflat(&best)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_smooth_function_is_predicted_closely_between_its_observations() {
        let points: Vec<Vec<f64>> = (0..9).map(|i| vec![i as f64 / 8.0]).collect();
        let values: Vec<f64> = points.iter().map(|p| (6.0 * p[0]).sin() * 10.0 + 50.0).collect();
        let gp = Gp::fit(&points, &values, 1);
        for x in [0.07, 0.31, 0.55, 0.93] {
            let predicted = gp.predict(&[x]);
            let truth = (6.0 * x).sin() * 10.0 + 50.0;
            assert!((predicted.mean - truth).abs() < 0.5, "at {x}: {predicted:?} vs {truth}");
            assert!(predicted.sd < 1.0, "at {x}: {predicted:?}");
        }
        let far = gp.predict(&[0.0625]);
        let on = gp.predict(&[0.0]);
        assert!(on.sd < far.sd, "less sure between observations than on one: {on:?} {far:?}");
    }

    #[test]
    fn a_coordinate_the_figure_ignores_gets_a_longer_length_scale() {
        let mut rng = fastrand::Rng::with_seed(3);
        let points: Vec<Vec<f64>> = (0..20).map(|_| vec![rng.f64(), rng.f64()]).collect();
        let values: Vec<f64> = points.iter().map(|p| 100.0 * (3.0 * p[0]).cos()).collect();
        let lengths = Gp::fit(&points, &values, 5).length_scales();
        assert!(lengths[1] > 3.0 * lengths[0], "{lengths:?}");
    }

    #[test]
    fn noise_is_fitted_as_noise_not_as_signal() {
        let mut rng = fastrand::Rng::with_seed(11);
        let points: Vec<Vec<f64>> = (0..24).map(|i| vec![(i % 6) as f64 / 5.0]).collect();
        let values: Vec<f64> = points.iter().map(|p| 10.0 * p[0] + (rng.f64() - 0.5) * 2.0).collect();
        let gp = Gp::fit(&points, &values, 2);
        let noise = gp.noise_sd();
        assert!(noise > 0.2 && noise < 1.2, "uniform ±1 has sd 0.58; fitted {noise}");
        assert!((gp.predict(&[0.5]).mean - 5.0).abs() < 0.6);
    }

    #[test]
    fn the_same_observations_and_seed_fit_the_same_process() {
        let points = vec![vec![0.1, 0.2], vec![0.5, 0.9], vec![0.8, 0.3]];
        let values = vec![1.0, 3.0, 2.0];
        let (a, b) = (Gp::fit(&points, &values, 9), Gp::fit(&points, &values, 9));
        assert_eq!(a.length_scales(), b.length_scales());
        assert_eq!(a.predict(&[0.4, 0.4]), b.predict(&[0.4, 0.4]));
    }
}
