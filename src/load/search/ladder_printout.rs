//! The printout of a rate ladder or a capacity search (`jload bench --rates/--capacity`): the steps as a table of
//! corrected latencies, who limited each limited step, and the capacity in one line; and the progress lines on
//! stderr while the steps run.

use std::fmt::Write;

use super::ladder::{StepObserver, StepTiming};
use crate::load::figures::{Percentile, View, percentiles};
use crate::load::format::{format_ms, format_rate, grouped};
use crate::load::record::outcomes::{Capacity, Step};
use crate::load::record::result::BenchResult;
use crate::text_table::{self, Column};

/// The step table's columns: requested and achieved rate, the registry's step latencies (`figures::percentiles`),
/// errors, whose limit, SLO.
fn step_columns(latencies: usize) -> Vec<Column> {
    let latency = (0..latencies).map(|index| if index == 0 { Column::right(8).after(2) } else { Column::right(8) });
    [Column::right(9), Column::right(10).after(2)]
        .into_iter()
        .chain(latency)
        .chain([Column::right(7).after(2), Column::left(10).after(2), Column::left(3).after(2)])
        .collect()
}

/// The steps, the limits that stopped them and the capacity; `ended` says why a fixed ladder stopped early.
pub fn render(result: &BenchResult, ended: Option<&str>) -> String {
    let mut out = String::new();
    let (what, headline) =
        if result.capacity.is_some() { ("Capacity search", "capacity") } else { ("Rate ladder", "last") };
    let measured_s: f64 = result.steps.iter().map(|step| step.duration_s).sum();
    let requests: u64 = result.steps.iter().map(|step| step.requests).sum();
    let _ = writeln!(
        out,
        "{what}: {} steps, {measured_s:.1} s measured in all ({} requests; the summary above is the {headline} \
         step's); latency in ms from each request's due time (corrected for coordinated omission)",
        result.steps.len(),
        grouped(requests)
    );
    step_table(&mut out, &result.steps);
    limit_lines(&mut out, &result.steps);
    if let Some(why) = ended {
        let _ = writeln!(out, "  Ended early   {why}");
    }
    steadiness_lines(&mut out, result);
    if let Some(capacity) = &result.capacity {
        let _ = writeln!(out, "  Capacity      {}", capacity_line(capacity));
    }
    out
}

fn step_table(out: &mut String, steps: &[Step]) {
    let latencies: Vec<&Percentile> = percentiles(View::Steps).collect();
    let header: Vec<String> = ["requested", "achieved"]
        .into_iter()
        .chain(latencies.iter().map(|percentile| percentile.header))
        .chain(["errors", "limited by", "SLO"])
        .map(str::to_string)
        .collect();
    let rows = steps.iter().map(|step| {
        let mut row = vec![format_rate(step.requested_rps), format!("{:.1}", step.achieved_rps)];
        row.extend(latencies.iter().map(|percentile| format_ms((percentile.of)(&step.latency_ms))));
        row.extend([
            step.error_pct.map_or("-".to_string(), |share| format!("{share:.2}%")),
            step.limited_by.as_ref().map_or("", |limit| limit.side.name()).to_string(),
            slo_mark(step.meets_slo).to_string(),
        ]);
        row
    });
    let table: Vec<Vec<String>> = std::iter::once(header).chain(rows).collect();
    for line in text_table::render(&step_columns(latencies.len()), &table) {
        let _ = writeln!(out, "  {}", line.trim_end());
    }
}

/// One line per limited step: whose limit, and the evidence.
fn limit_lines(out: &mut String, steps: &[Step]) {
    for step in steps {
        if let Some(limit) = &step.limited_by {
            let _ = writeln!(
                out,
                "  Limited       at {} req/s by the {}: {}",
                format_rate(step.requested_rps),
                limit.side.name(),
                limit.reason
            );
        }
    }
}

/// The warm-ups before the steps and, when the target changed under them, how (`steady.rs` words both).
fn steadiness_lines(out: &mut String, result: &BenchResult) {
    let Some(steadiness) = &result.steadiness else { return };
    for (index, warmup) in steadiness.warmups.iter().enumerate() {
        let again = if index == 0 { "" } else { "again: " };
        let _ = writeln!(out, "  Warm-up       {again}{}", warmup.describe());
    }
    for change in &steadiness.changes {
        let _ = writeln!(out, "  CHANGED       {}", change.note);
    }
}

/// `497 req/s (bounds 497 .. 519 req/s, limited by the target): <verdict>`.
pub fn capacity_line(capacity: &Capacity) -> String {
    let rps = capacity.rps.map_or("none claimed".to_string(), |rps| format!("{} req/s", format_rate(rps)));
    let bound = |bound: Option<f64>| bound.map_or("-".to_string(), format_rate);
    format!(
        "{rps} (bounds {} .. {} req/s, limited by the {}): {}",
        bound(capacity.bounds[0]),
        bound(capacity.bounds[1]),
        capacity.limited_by.name(),
        capacity.verdict
    )
}

fn slo_mark(meets_slo: Option<bool>) -> &'static str {
    match meets_slo {
        Some(true) => "✓",
        Some(false) => "✗",
        None => "-",
    }
}

/// Progress on stderr, one line as each step starts and ends; remembers why a ladder ended early.
pub struct StepProgress {
    timing: StepTiming,
    quiet: bool,
    started: usize,
    pub ended: Option<String>,
}

impl StepProgress {
    pub fn new(timing: StepTiming, quiet: bool) -> StepProgress {
        StepProgress { timing, quiet, started: 0, ended: None }
    }
}

impl StepObserver for StepProgress {
    fn step_started(&mut self, requested_rps: f64) {
        self.started += 1;
        if !self.quiet {
            eprintln!(
                "step {}: {} req/s, {:.1} s warm-up then {:.1} s measured",
                self.started,
                format_rate(requested_rps),
                self.timing.warmup.as_secs_f64(),
                self.timing.window(requested_rps).as_secs_f64()
            );
        }
    }

    fn rate_pooled(&mut self, pooled: &Step) {
        if !self.quiet {
            eprintln!(
                "step {}: {} req/s {}: p99 {} ms, SLO {}",
                self.started,
                format_rate(pooled.requested_rps),
                pooled.pooled_windows(),
                format_ms(pooled.latency_ms.p99),
                slo_mark(pooled.meets_slo)
            );
        }
    }

    fn step_finished(&mut self, step: &Step) {
        if !self.quiet {
            let limited = step
                .limited_by
                .as_ref()
                .map_or(String::new(), |limit| format!(", limited by the {}", limit.side.name()));
            eprintln!(
                "step {}: {:.1} req/s achieved of {}, {} requests, p99 {} ms{limited}, SLO {}",
                self.started,
                step.achieved_rps,
                format_rate(step.requested_rps),
                grouped(step.requests),
                format_ms(step.latency_ms.p99),
                slo_mark(step.meets_slo)
            );
        }
    }

    fn probed(&mut self, closed_rps: f64, start_rps: f64) {
        if !self.quiet {
            eprintln!(
                "probe: {:.1} req/s in the closed model; the search starts at {} req/s",
                closed_rps,
                format_rate(start_rps)
            );
        }
    }

    fn ladder_ended(&mut self, why: &str) {
        if !self.quiet {
            eprintln!("{why}");
        }
        self.ended = Some(why.to_string());
    }

    fn steadiness(&mut self, line: &str) {
        if !self.quiet {
            eprintln!("{line}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::record::outcomes::{Limit, Side};
    use crate::load::record::summary::{ErrorSummary, LatencySummary};

    fn step(requested: f64, achieved: f64, p99: f64, limited_by: Option<Limit>, meets_slo: Option<bool>) -> Step {
        Step {
            requested_rps: requested,
            achieved_rps: achieved,
            duration_s: 5.0,
            requests: (achieved * 5.0) as u64,
            latency_ms: LatencySummary {
                p50: 2.0,
                p90: 2.5,
                p99,
                p999: p99 * 1.5,
                max: p99 * 2.0,
                ..Default::default()
            },
            errors: ErrorSummary::default(),
            error_pct: Some(0.0),
            never_sent: 0,
            unfinished: 0,
            limited_by,
            meets_slo,
            windows: 1,
            rare: None,
        }
    }

    #[test]
    fn a_ladder_prints_one_aligned_row_per_step_and_why_limited_steps_were() {
        let limit = Limit { side: Side::Target, reason: "450 req/s achieved of 800 requested".to_string() };
        let mut result: BenchResult = serde_json::from_str(include_str!(
            "../../../tests/fixtures/results/sweep25/cells/heap=64m,gc=Shenandoah/rep-1/get.json"
        ))
        .unwrap();
        result.steps = vec![step(2000.0, 1999.9, 2.1, None, None), step(12500.0, 9000.0, 812.5, Some(limit), None)];
        assert_eq!(
            render(&result, Some("the ladder ended after 2 of 3 steps: no request succeeded")),
            "Rate ladder: 2 steps, 10.0 s measured in all (54,999 requests; the summary above is the last step's); \
             latency in ms from each request's due time (corrected for coordinated omission)
  requested    achieved       p50      p90      p99    p99.9      max   errors  limited by  SLO
      2,000      1999.9     2.000    2.500    2.100    3.150    4.200    0.00%              -
     12,500      9000.0     2.000    2.500    812.5     1219     1625    0.00%  target      -
  Limited       at 12,500 req/s by the target: 450 req/s achieved of 800 requested
  Ended early   the ladder ended after 2 of 3 steps: no request succeeded
"
        );
    }

    #[test]
    fn the_capacity_line_names_its_bounds_and_who_limited() {
        let found = Capacity {
            rps: Some(497.0),
            slo: "p99<=20ms".to_string(),
            limited_by: Side::Target,
            bounds: [Some(497.0), Some(519.0)],
            verdict: "v".to_string(),
        };
        assert_eq!(capacity_line(&found), "497 req/s (bounds 497 .. 519 req/s, limited by the target): v");
        let generator = Capacity { rps: None, limited_by: Side::Generator, bounds: [Some(1200.0), None], ..found };
        assert_eq!(capacity_line(&generator), "none claimed (bounds 1,200 .. - req/s, limited by the generator): v");
    }
}
