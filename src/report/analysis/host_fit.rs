//! The least-squares fit behind `host_effect`: each repeat's log figure = its cell's level + its host's effect, over
//! the cells that ran on two hosts or more. The cell levels are taken out by centring within each cell (the host
//! indicators too, Frisch–Waugh–Lovell), which leaves a small system in the host effects (the last host is the
//! reference, effect 0) solved with nalgebra; a contrast of host effects gets its t-test from the residual variance.

use std::collections::BTreeSet;

use nalgebra::{DMatrix, DVector};
use statrs::distribution::{ContinuousCDF, StudentsT};

/// One measured repeat of a cell on a host.
#[derive(Debug, Clone)]
pub struct Observation {
    pub cell: String,
    pub rep: u32,
    pub host: String,
    pub value: f64,
}

/// One kept repeat: its cell and host (indexes into the fit's lists) and its figure's log.
#[derive(Debug, Clone)]
pub struct Point {
    pub cell: usize,
    pub host: usize,
    pub rep: u32,
    pub log: f64,
}

/// A host's log factor against others, with its test.
#[derive(Debug, Clone, Copy)]
pub struct Contrast {
    pub log_factor: f64,
    pub p: Option<f64>,
}

/// Least squares of log figure = cell level + host effect, over the cells that ran on two hosts or more. The cell
/// levels are taken out by centring within each cell (the host indicators too), which leaves a small system in the
/// host effects (the last host is the reference, effect 0).
pub struct Fit {
    pub cells: Vec<String>,
    pub hosts: Vec<String>,
    pub points: Vec<Point>,
    /// Log effect per host, the last one 0.
    pub effects: Vec<f64>,
    /// (ZᵀZ)⁻¹ over the effects of all hosts but the last.
    inverse: DMatrix<f64>,
    pub df: usize,
    /// Sum of squares of the log figures about their cell's mean, and of the fit's residuals.
    ss_within: f64,
    ss_residual: f64,
}

impl Fit {
    pub fn of(observations: &[Observation]) -> Option<Fit> {
        let mut cells: Vec<String> = Vec::new();
        for observation in observations {
            let hosts: BTreeSet<&str> = observations
                .iter()
                .filter(|other| other.cell == observation.cell && usable(other.value))
                .map(|other| other.host.as_str())
                .collect();
            if hosts.len() >= 2 && !cells.contains(&observation.cell) {
                cells.push(observation.cell.clone());
            }
        }
        let kept: Vec<&Observation> = observations
            .iter()
            .filter(|observation| usable(observation.value) && cells.contains(&observation.cell))
            .collect();
        let hosts: Vec<String> =
            kept.iter().map(|observation| observation.host.clone()).collect::<BTreeSet<_>>().into_iter().collect();
        if hosts.len() < 2 {
            return None;
        }
        let index = |list: &[String], name: &str| list.iter().position(|item| item == name).expect("listed");
        let points: Vec<Point> = kept
            .iter()
            .map(|observation| Point {
                cell: index(&cells, &observation.cell),
                host: index(&hosts, &observation.host),
                rep: observation.rep,
                log: observation.value.ln(),
            })
            .collect();
        if !connected(&points, hosts.len()) {
            return None;
        }
        let (z, centred) = centred_design(&points, cells.len(), hosts.len());
        let inverse = (z.transpose() * &z).try_inverse()?;
        let beta = &inverse * z.transpose() * &centred;
        let residuals = &centred - &z * &beta;
        let df = points.len().checked_sub(cells.len() + hosts.len() - 1)?;
        let mut effects: Vec<f64> = beta.iter().copied().collect();
        effects.push(0.0);
        Some(Fit {
            cells,
            hosts,
            points,
            effects,
            inverse,
            df,
            ss_within: centred.norm_squared(),
            ss_residual: residuals.norm_squared(),
        })
    }

    /// `host`'s log effect less the mean of `against`'s, with its two-sided t-test.
    pub fn contrast(&self, host: usize, against: &[usize]) -> Contrast {
        let mut weights = vec![0.0; self.hosts.len()];
        weights[host] = 1.0;
        for &other in against {
            weights[other] = -1.0 / against.len() as f64;
        }
        let log_factor: f64 = weights.iter().zip(&self.effects).map(|(weight, effect)| weight * effect).sum();
        let c = DVector::from_row_slice(&weights[..self.hosts.len() - 1]);
        let p = (self.df > 0).then(|| {
            let variance = self.ss_residual / self.df as f64 * (c.transpose() * &self.inverse * &c)[(0, 0)];
            if variance <= 0.0 || !variance.is_finite() {
                return if log_factor.abs() > 1e-12 { 0.0 } else { 1.0 };
            }
            let t = log_factor / variance.sqrt();
            2.0 * StudentsT::new(0.0, 1.0, self.df as f64).expect("df > 0").sf(t.abs())
        });
        Contrast { log_factor, p }
    }

    pub fn variance_explained(&self) -> f64 {
        if self.ss_within <= 0.0 { 0.0 } else { (1.0 - self.ss_residual / self.ss_within).max(0.0) }
    }

    /// In `cell`, every repeat on `host` below (or above) every repeat on the hosts of `against`; false when none of
    /// them ran there.
    pub fn beyond(&self, cell: usize, host: usize, against: &[usize], below: bool) -> bool {
        let logs = |hosts: &[usize]| -> Vec<f64> {
            self.points.iter().filter(|p| p.cell == cell && hosts.contains(&p.host)).map(|p| p.log).collect()
        };
        let (mine, theirs) = (logs(&[host]), logs(against));
        if mine.is_empty() || theirs.is_empty() {
            return false;
        }
        let max = |values: &[f64]| values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let min = |values: &[f64]| values.iter().copied().fold(f64::INFINITY, f64::min);
        if below { max(&mine) < min(&theirs) } else { min(&mine) > max(&theirs) }
    }

    /// A cell's spread (its highest repeat over its lowest, minus one) before and after each repeat is divided by its
    /// host's factor.
    pub fn cell_spread(&self, cell: usize) -> (f64, f64) {
        let points: Vec<&Point> = self.points.iter().filter(|point| point.cell == cell).collect();
        let span = |logs: Vec<f64>| {
            let (low, high) = logs
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(low, high), log| (low.min(*log), high.max(*log)));
            (high - low).exp() - 1.0
        };
        let spread = span(points.iter().map(|point| point.log).collect());
        (spread, span(points.iter().map(|point| point.log - self.effects[point.host]).collect()))
    }
}

/// A figure the log scale can hold.
fn usable(value: f64) -> bool {
    value.is_finite() && value > 0.0
}

/// Every host reachable from every other through cells they both ran (else their effects are not comparable).
fn connected(points: &[Point], hosts: usize) -> bool {
    let mut reached = vec![false; hosts];
    reached[0] = true;
    let mut grew = true;
    while grew {
        grew = false;
        let cells: BTreeSet<usize> = points.iter().filter(|p| reached[p.host]).map(|p| p.cell).collect();
        for point in points.iter().filter(|p| cells.contains(&p.cell)) {
            if !reached[point.host] {
                reached[point.host] = true;
                grew = true;
            }
        }
    }
    reached.into_iter().all(|reached| reached)
}

/// The host indicators (all hosts but the last) and the log figures, each centred within its cell.
fn centred_design(points: &[Point], cells: usize, hosts: usize) -> (DMatrix<f64>, DVector<f64>) {
    let mut count = vec![0.0; cells];
    let mut sum = vec![0.0; cells];
    let mut host_count = DMatrix::<f64>::zeros(cells, hosts);
    for point in points {
        count[point.cell] += 1.0;
        sum[point.cell] += point.log;
        host_count[(point.cell, point.host)] += 1.0;
    }
    let z = DMatrix::from_fn(points.len(), hosts - 1, |row, host| {
        let point = &points[row];
        f64::from(u8::from(point.host == host)) - host_count[(point.cell, host)] / count[point.cell]
    });
    let centred = DVector::from_iterator(points.len(), points.iter().map(|p| p.log - sum[p.cell] / count[p.cell]));
    (z, centred)
}
