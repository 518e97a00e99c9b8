//! The exact merge of several load generators' results (other machines, other pods) into the one result of the whole
//! load: each part is turned back into what its workers recorded — its histograms, decoded, and its counters — those
//! are added exactly as the engine adds its own threads' ([`Recorder::merge`]), and the result is built by the same
//! code as a single run's ([`BenchResult::build`]). Percentiles are never averaged: they are read from the added
//! histograms. The first invalid response's reason (of the run, of each request name) is the first part's that has one,
//! in the order merged. Each part's own figures are kept beside it (`hosts`) to spot an overloaded generator.

use anyhow::Context;

use super::figures::{View, latency_figures};
use super::record::histogram_codec;
use super::record::named_figures::NamedFigures;
use super::record::recorder::{IntervalCounts, Recorder, Tally, Waiting};
use super::record::result::{BenchResult, HostFigures, RunFacts, SeriesRow};
use super::record::slow::{SlowRequest, SlowRequests};
use super::record::summary::ErrorSummary;
use super::record::whose_limit::limited_by;
use crate::error::bad_input;

/// Merge the results of generators that ran the same load at the same time; each comes with a label (its host or
/// file) that errors and the per-host figures name. The series is laid on the wall clock: each part's rows shift by
/// its start's distance from the earliest start, rounded to the nearest second (exact when the parts started
/// together, see `--start-at`); the merged run spans from the earliest start to the latest end.
pub fn merge(parts: &[(String, BenchResult)]) -> anyhow::Result<BenchResult> {
    check_parts(parts)?;
    let first = &parts[0].1;
    let origin_us = parts.iter().map(|(_, part)| start_us(part)).min().expect("at least one part");
    let end_us = parts.iter().map(|(_, part)| start_us(part) + seconds_to_us(part.duration_s)).max().unwrap_or(0);
    let duration_s = (end_us - origin_us) as f64 / 1e6;
    let mut recorder: Option<Recorder> = None;
    for (label, part) in parts {
        let shift_us = u64::try_from(start_us(part) - origin_us).unwrap_or(0);
        let recorded = recorded_by(part, shift_us).with_context(|| format!("{label}: a histogram cannot be read"))?;
        match &mut recorder {
            Some(merged) => merged.merge(&recorded),
            None => recorder = Some(recorded),
        }
    }
    let rate = parts.iter().map(|(_, part)| part.rate).sum::<Option<f64>>();
    let facts = RunFacts {
        url: first.url.clone(),
        connections: parts.iter().map(|(_, part)| part.connections).sum(),
        streams: first.streams,
        threads: parts.iter().map(|(_, part)| part.threads).sum(),
        rate,
        duration_s,
        request_names: first.per_request.iter().map(|request| request.name.clone()).collect(),
        series: merged_series(parts, origin_us, duration_s)?,
        interrupted: parts.iter().any(|(_, part)| part.interrupted),
        start_unix_us: Some(origin_us),
    };
    let mut result = BenchResult::build(&recorder.expect("at least one part"), facts);
    result.limited_by = rate.and_then(|rate| limited_by(&result, rate));
    // Read back from JSON, a part has no slow requests one by one: then the merge cannot say which it kept.
    if !parts.iter().all(|(_, part)| holds_its_slow_requests(part)) {
        result.slow_requests = None;
    }
    result.hosts = parts.iter().map(|(label, part)| host_figures(label, part)).collect();
    Ok(result)
}

/// The windows one generator measured one after another at one open-model rate (a ladder's rate measured again), as
/// one result: their recorders added exactly, and the time their windows lasted added up, so that its rate, its
/// percentiles and its errors are those of one long window. It keeps no series (the windows are apart on the clock);
/// its slow requests stay on each window's own clock. None when a window has no histograms to add.
pub fn pool(windows: &[&BenchResult]) -> Option<BenchResult> {
    let first = windows.first()?;
    let mut recorder: Option<Recorder> = None;
    for window in windows {
        window.histograms.as_ref()?;
        let recorded = recorded_by(window, 0).ok()?;
        match &mut recorder {
            Some(pooled) => pooled.merge(&recorded),
            None => recorder = Some(recorded),
        }
    }
    let facts = RunFacts {
        url: first.url.clone(),
        connections: first.connections,
        streams: first.streams,
        threads: first.threads,
        rate: first.rate,
        duration_s: windows.iter().map(|window| window.duration_s).sum(),
        request_names: first.per_request.iter().map(|request| request.name.clone()).collect(),
        series: Vec::new(),
        interrupted: windows.iter().any(|window| window.interrupted),
        start_unix_us: first.start_unix_us,
    };
    Some(BenchResult::build(&recorder?, facts))
}

/// Only parts that can be merged exactly, into a result that means something: each with its histograms, all of one
/// load model, sending the same requests, none a ladder.
fn check_parts(parts: &[(String, BenchResult)]) -> anyhow::Result<()> {
    let Some((first_label, first)) = parts.first() else {
        return Err(bad_input("nothing to merge: give the results of at least one run"));
    };
    let names = |part: &BenchResult| part.per_request.iter().map(|request| request.name.clone()).collect::<Vec<_>>();
    for (label, part) in parts {
        let complete = part.histograms.as_ref().is_some_and(|histograms| {
            histograms.per_request.len() == part.per_request.len()
                && part.series.iter().all(|row| row.histogram.is_some())
        });
        if !complete || part.start_unix_us.is_none() {
            return Err(bad_input(format!(
                "{label} has no histograms (a result of an older jload): run that load again with this jload's \
                 `jload bench --json` to merge it"
            )));
        }
        if !part.steps.is_empty() {
            return Err(bad_input(format!(
                "{label} is a rate ladder or capacity search: merge single runs (one rate or concurrency each)"
            )));
        }
        if part.model != first.model {
            return Err(bad_input(format!(
                "{label} is an {}-model run and {first_label} a {}-model one: merge runs of one model (all with -R, \
                 or none)",
                part.model, first.model
            )));
        }
        if names(part) != names(first) {
            return Err(bad_input(format!(
                "{label} sends the requests [{}] and {first_label} [{}]: merge runs of the same mix",
                names(part).join(", "),
                names(first).join(", ")
            )));
        }
    }
    Ok(())
}

fn start_us(part: &BenchResult) -> i64 {
    part.start_unix_us.expect("checked: every part has its start")
}

fn seconds_to_us(seconds: f64) -> i64 {
    (seconds * 1e6).round() as i64
}

/// What the workers of `part` recorded, as one recorder: its histograms decoded, its counters, and its slow requests
/// moved `shift_us` later (onto the merged run's clock).
fn recorded_by(part: &BenchResult, shift_us: u64) -> anyhow::Result<Recorder> {
    let histograms = part.histograms.as_ref().expect("checked: every part has its histograms");
    let optional = |text: &Option<String>| text.as_deref().map(histogram_codec::decode).transpose();
    let mut recorder = Recorder::new(part.per_request.len(), part.rate.is_some());
    recorder.total =
        tally(histogram_codec::decode(&histograms.total)?, part.requests, &part.errors, &part.status_codes);
    recorder.per_request = part
        .per_request
        .iter()
        .zip(&histograms.per_request)
        .map(|(request, histogram)| {
            Ok(tally(histogram_codec::decode(histogram)?, request.requests, &request.errors, &request.status_codes))
        })
        .collect::<anyhow::Result<_>>()?;
    recorder.uncorrected = optional(&histograms.uncorrected)?;
    recorder.corrected = optional(&histograms.corrected)?;
    recorder.slips = optional(&histograms.slips)?;
    recorder.bytes_received = part.bytes_received;
    recorder.bytes_sent = part.bytes_sent;
    recorder.late = part.late.unwrap_or(0);
    recorder.reconnects = part.reconnects;
    if let Some(connects) = &histograms.connects {
        recorder.connects = histogram_codec::decode(connects)?;
    }
    if let Some(setup) = &part.connection_setup {
        (recorder.negotiated, recorder.tls_error) = (setup.tls.clone(), setup.tls_error.clone());
    }
    recorder.resent = part.resent;
    recorder.due = part.due.unwrap_or(0);
    recorder.never_sent = Waiting { count: part.never_sent, longest_us: ms_to_us(part.never_sent_longest_wait_ms) };
    recorder.unfinished = Waiting { count: part.unfinished, longest_us: ms_to_us(part.unfinished_longest_wait_ms) };
    if let Some(generator) = &part.generator {
        recorder.slipped = generator.slipped;
        recorder.busiest_thread_cpu_pct = generator.busiest_thread_cpu_pct;
        recorder.busiest_thread_busy_pct = generator.busiest_thread_busy_pct;
    }
    recorder.slow = shifted(&part.slow, shift_us);
    Ok(recorder)
}

fn tally(
    latency: hdrhistogram::Histogram<u64>,
    requests: u64,
    errors: &ErrorSummary,
    status_codes: &std::collections::BTreeMap<String, u64>,
) -> Tally {
    let mut tally = Tally::new();
    tally.latency = latency;
    tally.requests = requests;
    tally.errors = errors.classes;
    tally.invalid_response_reason = errors.invalid_response_reason.clone();
    for (code, count) in status_codes {
        let index = code.parse::<usize>().map_or(0, |code| code.min(999));
        tally.status_codes[index] += count;
    }
    tally
}

fn ms_to_us(ms: f64) -> u64 {
    (ms * 1000.0).round() as u64
}

/// A part's slow requests on the merged run's clock: each ends `shift_us` later.
fn shifted(slow: &SlowRequests, shift_us: u64) -> SlowRequests {
    let kept = slow.kept.iter().map(|request| SlowRequest { done_us: request.done_us + shift_us, ..*request });
    SlowRequests::from_parts(slow.info(), kept.collect())
}

/// Whether `part` holds its slow requests one by one (a result just run does; one read from JSON does not).
fn holds_its_slow_requests(part: &BenchResult) -> bool {
    part.slow_requests.is_none_or(|info| info.offered == part.slow.offered)
}

/// The parts' seconds added up on the wall clock: row `k` of the merged series holds every part's row that began
/// `k` seconds after the earliest start (rounded to the nearest second); it lasts a second, the last one up to the
/// merged run's end.
fn merged_series(parts: &[(String, BenchResult)], origin_us: i64, duration_s: f64) -> anyhow::Result<Vec<SeriesRow>> {
    let mut seconds: Vec<IntervalCounts> = Vec::new();
    for (label, part) in parts {
        let offset = ((start_us(part) - origin_us) as f64 / 1e6).round() as usize;
        for row in &part.series {
            let encoded = row.histogram.as_deref().expect("checked: every row has its histogram");
            let histogram =
                histogram_codec::decode(encoded).with_context(|| format!("{label}: second {}", row.second))?;
            let index = offset + row.second as usize;
            if seconds.len() <= index {
                seconds.resize_with(index + 1, IntervalCounts::new);
            }
            let counts = &mut seconds[index];
            counts.latency.add(&histogram).map_err(|err| anyhow::anyhow!("{label}: {err:?}"))?;
            counts.requests += row.requests;
            counts.errors += row.errors;
        }
    }
    let length = |second: usize| (duration_s - second as f64).clamp(0.0, 1.0);
    Ok(seconds
        .iter()
        .enumerate()
        .map(|(second, counts)| SeriesRow::of(second as u64, length(second), counts))
        .collect())
}

fn host_figures(label: &str, part: &BenchResult) -> HostFigures {
    HostFigures {
        label: label.to_string(),
        requests: part.requests,
        rps: part.rps,
        latency: NamedFigures(
            latency_figures(View::PerRequest)
                .map(|(figure, percentile)| (figure.key.to_string(), (percentile.of)(&part.latency_ms)))
                .collect(),
        ),
        errors: part.errors.total,
        busiest_thread_cpu_pct: part.generator.map(|generator| generator.busiest_thread_cpu_pct),
        limited_by: part.limited_by.clone(),
    }
}

#[cfg(test)]
#[path = "merge_tests.rs"]
mod tests;
