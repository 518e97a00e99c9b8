//! Statistics over repeats: each figure is the median of its repeats, with a Student's t 95 % confidence interval
//! of the mean; Welch's t-test (two-sided, 5 %) tells whether two cells really differ; the best cell of a headline
//! figure and every cell not distinguishable from it are marked. One definition for the report, `jload compare` and
//! the tune's confirmation of its finalists.
//!
//! Why t-based and not a bootstrap: plans run 2–5 repeats, and a bootstrap of 3 values can only return those values
//! (its 95 % interval is about the range of the repeats, which covers far less than 95 %), while the t interval is
//! exact for normal noise and widens honestly when there are few repeats (× 4.30 the standard error with 3).

use serde::Serialize;
use statrs::distribution::{ContinuousCDF, StudentsT};

/// Two-sided confidence level of the intervals and significance level of the tests.
pub const CONFIDENCE: f64 = 0.95;
pub const ALPHA: f64 = 1.0 - CONFIDENCE;

/// One figure over a cell's repeats.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Estimate {
    /// Repeats that measured it.
    pub n: usize,
    /// What tables show.
    pub median: f64,
    pub mean: f64,
    /// 95 % t interval of the mean; none with fewer than two repeats.
    pub ci: Option<[f64; 2]>,
    /// Per repeat, in repeat order.
    pub values: Vec<f64>,
}

impl Estimate {
    /// None when there are no values.
    pub fn of(values: Vec<f64>) -> Option<Estimate> {
        let median = median(values.clone())?;
        let (mean, sd) = mean_sd(&values);
        let n = values.len();
        let ci = (n >= 2).then(|| {
            let half = t_quantile(n as f64 - 1.0, 1.0 - ALPHA / 2.0) * sd / (n as f64).sqrt();
            [mean - half, mean + half]
        });
        Some(Estimate { n, median, mean, ci, values })
    }
}

/// The median of the values (None when empty).
pub fn median(mut values: Vec<f64>) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let middle = values.len() / 2;
    Some(if values.len() % 2 == 1 { values[middle] } else { (values[middle - 1] + values[middle]) / 2.0 })
}

/// Mean and sample standard deviation (n − 1); the deviation is 0 for fewer than two values.
pub fn mean_sd(values: &[f64]) -> (f64, f64) {
    let n = values.len() as f64;
    if values.is_empty() {
        return (f64::NAN, 0.0);
    }
    let mean = values.iter().sum::<f64>() / n;
    if values.len() < 2 {
        return (mean, 0.0);
    }
    let variance = values.iter().map(|value| (value - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, variance.sqrt())
}

/// The `p` quantile of Student's t distribution with `df` degrees of freedom.
pub fn t_quantile(df: f64, p: f64) -> f64 {
    StudentsT::new(0.0, 1.0, df).expect("df > 0").inverse_cdf(p)
}

/// Welch's unequal-variances t-test of two samples.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Welch {
    /// (mean b − mean a) / standard error.
    pub t: f64,
    /// Welch–Satterthwaite degrees of freedom.
    pub df: f64,
    /// Two-sided p-value.
    pub p: f64,
}

impl Welch {
    pub fn significant(&self) -> bool {
        self.p < ALPHA
    }
}

/// Welch's t-test of `b` against `a`; None when either has fewer than two values. Two samples without any spread
/// differ exactly when their means do (p = 0 or 1).
pub fn welch(a: &[f64], b: &[f64]) -> Option<Welch> {
    if a.len() < 2 || b.len() < 2 {
        return None;
    }
    let ((mean_a, sd_a), (mean_b, sd_b)) = (mean_sd(a), mean_sd(b));
    let (va, vb) = (sd_a.powi(2) / a.len() as f64, sd_b.powi(2) / b.len() as f64);
    let se2 = va + vb;
    if se2 == 0.0 {
        let differ = mean_a != mean_b;
        let t = if differ { (mean_b - mean_a).signum() * f64::INFINITY } else { 0.0 };
        return Some(Welch { t, df: (a.len() + b.len() - 2) as f64, p: if differ { 0.0 } else { 1.0 } });
    }
    let t = (mean_b - mean_a) / se2.sqrt();
    let df = se2.powi(2) / (va.powi(2) / (a.len() as f64 - 1.0) + vb.powi(2) / (b.len() as f64 - 1.0));
    let p = 2.0 * StudentsT::new(0.0, 1.0, df).expect("df > 0").sf(t.abs());
    Some(Welch { t, df, p })
}

pub use crate::load::figures::Better;

/// A cell's place on a headline figure.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "standing")]
pub enum Standing {
    /// Best median.
    Best,
    /// Not distinguishable from the best (p ≥ 0.05).
    Indistinguishable { p: f64 },
    /// Worse than the best with significance.
    Worse { p: f64 },
    /// Too few repeats (here or in the best cell) to tell.
    Unqualified,
}

/// Mark each estimate against the best one (by median). Cells without an estimate get None.
pub fn rank(estimates: &[Option<&Estimate>], better: Better) -> Vec<Option<Standing>> {
    let best = estimates
        .iter()
        .enumerate()
        .filter_map(|(index, estimate)| estimate.map(|estimate| (index, estimate)))
        .reduce(|best, candidate| if better.prefers(candidate.1.median, best.1.median) { candidate } else { best });
    let Some((best_index, best)) = best else {
        return vec![None; estimates.len()];
    };
    estimates
        .iter()
        .enumerate()
        .map(|(index, estimate)| {
            let estimate = (*estimate)?;
            if index == best_index {
                return Some(Standing::Best);
            }
            Some(match welch(&best.values, &estimate.values) {
                Some(test) if test.significant() => Standing::Worse { p: test.p },
                Some(test) => Standing::Indistinguishable { p: test.p },
                None => Standing::Unqualified,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(actual: f64, expected: f64, tolerance: f64) {
        assert!((actual - expected).abs() <= tolerance, "{actual} is not {expected} ± {tolerance}");
    }

    #[test]
    fn t_quantiles_match_the_printed_tables() {
        // Two-sided 95 % critical values from any t table.
        close(t_quantile(1.0, 0.975), 12.706, 0.001);
        close(t_quantile(2.0, 0.975), 4.303, 0.001);
        close(t_quantile(4.0, 0.975), 2.776, 0.001);
        close(t_quantile(30.0, 0.975), 2.042, 0.001);
    }

    #[test]
    fn estimate_of_known_samples() {
        // 1..5: mean 3, s = √2.5, se = √0.5; 2.776445 × 0.707107 = 1.963243.
        let estimate = Estimate::of(vec![5.0, 1.0, 4.0, 2.0, 3.0]).unwrap();
        assert_eq!((estimate.n, estimate.median, estimate.mean), (5, 3.0, 3.0));
        let [low, high] = estimate.ci.unwrap();
        close(low, 3.0 - 1.963243, 1e-5);
        close(high, 3.0 + 1.963243, 1e-5);
        // Even count: the median is the middle pair's mean; skew pulls the mean but not the median.
        let skewed = Estimate::of(vec![10.0, 11.0, 12.0, 100.0]).unwrap();
        assert_eq!(skewed.median, 11.5);
        assert_eq!(skewed.mean, 33.25);
        // One value: a figure without an interval.
        let single = Estimate::of(vec![7.0]).unwrap();
        assert_eq!((single.median, single.ci), (7.0, None));
        assert!(Estimate::of(Vec::new()).is_none());
    }

    #[test]
    fn welch_matches_the_textbook_example() {
        // Example 1 of Wikipedia's "Welch's t-test" article: published t = 2.46 (positive: the second sample is
        // larger) and p = 0.021; ν by the Welch–Satterthwaite formula (checked by hand) = 24.99.
        let a1 = [27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4];
        let a2 = [27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4];
        let test = welch(&a1, &a2).unwrap();
        close(test.t, 2.46, 0.005);
        close(test.df, 24.99, 0.01);
        close(test.p, 0.021, 0.001);
        assert!(test.significant());
        // Symmetric: swapping the samples only flips the sign.
        let swapped = welch(&a2, &a1).unwrap();
        close(swapped.t, -test.t, 1e-12);
        close(swapped.p, test.p, 1e-12);
    }

    #[test]
    fn welch_on_three_repeats() {
        // Hand computation: means 10 and 13, variances 1 and 1; se = √(2/3) = 0.8165; t = 3.674; ν = 4;
        // two-sided p of t = 3.674 with 4 degrees of freedom = 0.0213.
        let test = welch(&[9.0, 10.0, 11.0], &[12.0, 13.0, 14.0]).unwrap();
        close(test.t, 3.674, 0.001);
        close(test.df, 4.0, 1e-9);
        close(test.p, 0.0213, 0.0005);
        // Overlapping noisy repeats: not significant.
        let noisy = welch(&[34329.0, 34082.0, 34614.0], &[36848.0, 33925.0, 24141.0]).unwrap();
        assert!(!noisy.significant(), "{noisy:?}");
        // Too few repeats.
        assert!(welch(&[1.0], &[2.0, 3.0]).is_none());
        // No spread at all.
        assert_eq!(welch(&[5.0, 5.0], &[5.0, 5.0]).unwrap().p, 1.0);
        assert_eq!(welch(&[5.0, 5.0], &[6.0, 6.0]).unwrap().p, 0.0);
    }

    #[test]
    fn ranking_marks_the_best_and_its_equals() {
        let fast = Estimate::of(vec![100.0, 101.0, 99.0]).unwrap();
        let close_second = Estimate::of(vec![98.0, 102.0, 97.0]).unwrap();
        let slow = Estimate::of(vec![50.0, 51.0, 49.0]).unwrap();
        let single = Estimate::of(vec![120.0]).unwrap();
        let standings = rank(&[Some(&slow), Some(&fast), None, Some(&close_second)], Better::Higher);
        assert_eq!(standings[1], Some(Standing::Best));
        assert!(matches!(standings[0], Some(Standing::Worse { p }) if p < 0.001));
        assert_eq!(standings[2], None);
        assert!(matches!(standings[3], Some(Standing::Indistinguishable { p }) if p > 0.05));
        // Lower is better: the slow cell's figures as latencies make it the best.
        let latency = rank(&[Some(&slow), Some(&fast)], Better::Lower);
        assert_eq!(latency[0], Some(Standing::Best));
        // A best cell with one repeat cannot be compared with anything.
        let unqualified = rank(&[Some(&single), Some(&fast)], Better::Higher);
        assert_eq!(unqualified, vec![Some(Standing::Best), Some(Standing::Unqualified)]);
    }
}
