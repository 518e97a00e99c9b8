//! Space-filling starts: a Latin hypercube of `n` points in the unit cube — each coordinate's [0, 1] cut into `n`
//! equal strata, each stratum used by exactly one point, at a random place within it — so that a handful of trials
//! already spreads over every parameter's whole range. Seeded: the same seed gives the same points.

/// `n` points of `dimensions` coordinates each.
pub fn latin_hypercube(n: usize, dimensions: usize, rng: &mut fastrand::Rng) -> Vec<Vec<f64>> {
    let mut points = vec![vec![0.0; dimensions]; n];
    for dimension in 0..dimensions {
        let mut strata: Vec<usize> = (0..n).collect();
        rng.shuffle(&mut strata);
        for (point, stratum) in points.iter_mut().zip(strata) {
            point[dimension] = (stratum as f64 + rng.f64()) / n as f64;
        }
    }
    points
}

#[cfg(test)]
mod tests {
    use super::latin_hypercube;

    #[test]
    fn every_stratum_of_every_coordinate_holds_exactly_one_point() {
        let points = latin_hypercube(8, 3, &mut fastrand::Rng::with_seed(42));
        assert_eq!(points.len(), 8);
        for dimension in 0..3 {
            let mut strata: Vec<usize> = points.iter().map(|point| (point[dimension] * 8.0) as usize).collect();
            strata.sort();
            assert_eq!(strata, (0..8).collect::<Vec<_>>(), "dimension {dimension}");
        }
    }

    #[test]
    fn the_same_seed_gives_the_same_points_and_another_seed_others() {
        let again = latin_hypercube(5, 2, &mut fastrand::Rng::with_seed(7));
        assert_eq!(latin_hypercube(5, 2, &mut fastrand::Rng::with_seed(7)), again);
        assert_ne!(latin_hypercube(5, 2, &mut fastrand::Rng::with_seed(8)), again);
    }
}
