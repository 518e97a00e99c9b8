//! A rate's windows weighed by the target's rare collections. A full collection that comes every 10–15 s falls in
//! one of a rate's two 1.5-s windows or in none, and pooled as they ran, the window that caught it stands for half
//! of the rate's requests where, over a long run, the stretch around one such pause is a tenth of them. So when some
//! of a rate's windows hold the rarest collection that the others do not, the windows are pooled at the share the
//! long run gives them: the collection's rhythm (requests per collection, over every window the search counted) sets
//! how many requests the stretch around one collection stands for, and the windows with and without it are repeated
//! in the pool so that each side holds its share (a mixture, as a stratified sample is weighed).

use crate::load::record::outcomes::RareShare;

/// What the target did in one window the search counted: the requests completed, and its collections of each kind.
#[derive(Debug, Clone, PartialEq)]
pub struct Counted {
    pub requests: u64,
    /// Collections by kind (`young`, `full`, `concurrent`) during the window.
    pub collections: Vec<(&'static str, u64)>,
}

/// A pool of windows never repeats one more than this many times: the share is then within a few percent of the
/// long run's, and merging a window's histograms stays cheap.
pub const MOST_REPEATS: u64 = 32;

/// Weigh `at_rate` (one rate's windows, in the order run) against the rhythm of the target's collections over
/// `counted` (every window the search counted, `at_rate` among them). None when nothing needs weighing: no kind of
/// collection is in some of `at_rate` and missing from others, or the windows already hold the long run's share.
pub fn weigh(at_rate: &[&Counted], counted: &[&Counted]) -> Option<RareShare> {
    let (kind, requests_per_collection) = rarest_mixed(at_rate, counted)?;
    let (with, without): (Vec<&&Counted>, Vec<&&Counted>) =
        at_rate.iter().partition(|window| count_of(window, kind) > 0);
    let requests_with: u64 = with.iter().map(|window| window.requests).sum();
    let requests_without: u64 = without.iter().map(|window| window.requests).sum();
    let collections_with: u64 = with.iter().map(|window| count_of(window, kind)).sum();
    // Each collection stands for the requests around it in its windows; over a long run one comes per
    // `requests_per_collection`.
    let share = (requests_with as f64 / collections_with as f64 / requests_per_collection).min(1.0);
    let (repeats_with, repeats_without) = repeats(requests_with, requests_without, share);
    (repeats_with != repeats_without).then_some(RareShare {
        kind: kind.to_string(),
        windows_with: with.len() as u32,
        requests_per_collection: requests_per_collection.round(),
        share_pct: (share * 1000.0).round() / 10.0,
        repeats_with,
        repeats_without,
    })
}

/// How many times `window` is taken into its rate's weighed pool: `repeats_with` when it holds the rare collection
/// of `share`, else `repeats_without`.
pub fn repeats_of(window: &Counted, share: &RareShare) -> u64 {
    match count_of(window, &share.kind) {
        0 => share.repeats_without,
        _ => share.repeats_with,
    }
}

/// The rarest kind of collection that some of `at_rate` hold and others not, with its requests per collection over
/// `counted`.
fn rarest_mixed(at_rate: &[&Counted], counted: &[&Counted]) -> Option<(&'static str, f64)> {
    let kinds = at_rate.first()?.collections.iter().map(|(kind, _)| *kind);
    let mixed = kinds.filter(|kind| {
        let holding = at_rate.iter().filter(|window| count_of(window, kind) > 0).count();
        holding > 0 && holding < at_rate.len()
    });
    let requests: u64 = counted.iter().map(|window| window.requests).sum();
    mixed
        .map(|kind| (kind, requests as f64 / counted.iter().map(|window| count_of(window, kind)).sum::<u64>() as f64))
        .max_by(|a, b| a.1.total_cmp(&b.1))
}

fn count_of(window: &Counted, kind: &str) -> u64 {
    window.collections.iter().find(|(name, _)| *name == kind).map_or(0, |(_, count)| *count)
}

/// The repeats (with, without) up to [`MOST_REPEATS`] whose pool gives the windows with the collection the share
/// nearest `share`, the fewest repeats among equals.
fn repeats(requests_with: u64, requests_without: u64, share: f64) -> (u64, u64) {
    let pooled_share = |with: u64, without: u64| {
        let with = (with * requests_with) as f64;
        with / (with + (without * requests_without) as f64)
    };
    let mut best = (1, 1);
    for with in 1..=MOST_REPEATS {
        for without in 1..=MOST_REPEATS {
            if (pooled_share(with, without) - share).abs() < (pooled_share(best.0, best.1) - share).abs() {
                best = (with, without);
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::{Counted, repeats_of, weigh};
    use crate::load::record::outcomes::RareShare;

    fn window(requests: u64, young: u64, full: u64) -> Counted {
        Counted { requests, collections: vec![("young", young), ("full", full)] }
    }

    #[test]
    fn a_full_collection_in_one_of_two_windows_is_weighed_to_its_long_run_share() {
        // 60,000 requests a window; a full collection every 480,000 requests over the search's eight windows.
        let windows: Vec<Counted> = (0..8).map(|i| window(60_000, 12, u64::from(i == 3))).collect();
        let counted: Vec<&Counted> = windows.iter().collect();
        let at_rate = [&windows[3], &windows[4]];
        let share = weigh(&at_rate, &counted).unwrap();
        assert_eq!(
            share,
            RareShare {
                kind: "full".into(),
                windows_with: 1,
                requests_per_collection: 480_000.0,
                share_pct: 12.5,
                repeats_with: 1,
                repeats_without: 7,
            }
        );
        assert_eq!(repeats_of(&windows[3], &share), 1);
        assert_eq!(repeats_of(&windows[4], &share), 7);
    }

    #[test]
    fn windows_that_all_hold_the_rare_collection_or_all_miss_it_are_pooled_as_they_ran() {
        let windows = [window(60_000, 12, 1), window(60_000, 12, 1), window(60_000, 12, 0), window(60_000, 12, 0)];
        let counted: Vec<&Counted> = windows.iter().collect();
        assert_eq!(weigh(&[&windows[0], &windows[1]], &counted), None);
        assert_eq!(weigh(&[&windows[2], &windows[3]], &counted), None);
    }

    #[test]
    fn windows_already_at_the_long_run_share_are_pooled_as_they_ran() {
        // A full collection every 120,000 requests: the window holding one is half of the long run's requests.
        let windows = [window(60_000, 12, 1), window(60_000, 12, 0)];
        let counted: Vec<&Counted> = windows.iter().collect();
        assert_eq!(weigh(&[&windows[0], &windows[1]], &counted), None);
    }

    #[test]
    fn the_rarest_of_the_mixed_kinds_is_weighed() {
        let windows = [
            Counted { requests: 50_000, collections: vec![("young", 1), ("full", 0), ("concurrent", 1)] },
            Counted { requests: 50_000, collections: vec![("young", 0), ("full", 0), ("concurrent", 0)] },
            Counted { requests: 50_000, collections: vec![("young", 1), ("full", 0), ("concurrent", 0)] },
            Counted { requests: 50_000, collections: vec![("young", 1), ("full", 0), ("concurrent", 0)] },
        ];
        let counted: Vec<&Counted> = windows.iter().collect();
        let share = weigh(&[&windows[0], &windows[1]], &counted).unwrap();
        assert_eq!(
            (share.kind.as_str(), share.requests_per_collection, share.share_pct),
            ("concurrent", 200_000.0, 25.0)
        );
        assert_eq!((share.repeats_with, share.repeats_without), (1, 3));
    }
}
