//! One cell-repeat's run on one time axis (JVM uptime): req/s per second; p99 per second with every GC pause drawn as
//! a bar as tall as it was long, on the same millisecond scale; heap occupancy (old generation and eden) beneath.
//! Phases are shaded bands, so a slow second can be read against the pauses and the heap at that moment. A ladder's or
//! capacity search's steps are drawn where each ran (a mark at its start, its achieved req/s and p99 across it), the
//! headline step's per-second series inside its own step.

use maud::{Markup, html};

use super::{Linear, Log, nice_ticks, points, px, range_ticks, svg, tick_label, x_axis, y_axis};
use crate::report::analysis::{PhaseSpan, StepSpan};
use crate::results::HeapSample;

pub struct Timeline<'a> {
    pub title: String,
    pub color: &'static str,
    pub phases: &'a [PhaseSpan],
    pub heap: &'a [HeapSample],
    pub max_heap_mb: Option<f64>,
}

const WIDTH: f64 = 1000.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = 150.0;
const TOP: f64 = 56.0;
const RPS: (f64, f64) = (TOP, 170.0);
const LATENCY: (f64, f64) = (198.0, 358.0);
const HEAP: (f64, f64) = (386.0, 496.0);
const HEIGHT: f64 = 546.0;
const P99_COLOR: &str = "#1f3b73";
const PAUSE_COLOR: &str = "#d62728";
const OLD_COLOR: &str = "#9c755f";
const EDEN_COLOR: &str = "#f1ce63";

fn linear_ticks(max: f64, panel: (f64, f64)) -> (Linear, Vec<(f64, String)>) {
    let ticks = nice_ticks(max, 4);
    let scale = Linear::new((0.0, *ticks.last().unwrap_or(&1.0)), (panel.1, panel.0));
    let marks = ticks.iter().map(|tick| (scale.at(*tick), tick_label(*tick))).collect();
    (scale, marks)
}

fn legend(x: f64, y: f64, entries: &[(&str, &str)]) -> Markup {
    html! {
        g class="legend" {
            @for (index, (color, label)) in entries.iter().enumerate() {
                @let row = y + 8.0 + index as f64 * 16.0;
                rect x=(px(x)) y=(px(row - 8.0)) width="12" height="10" fill=(color) {}
                text x=(px(x + 18.0)) y=(px(row + 1.0)) class="label" { (label) }
            }
        }
    }
}

pub fn timeline_chart(timeline: &Timeline<'_>) -> Markup {
    let from = timeline.phases.iter().map(|phase| phase.from_s).fold(f64::INFINITY, f64::min);
    let to = timeline.phases.iter().map(|phase| phase.to_s).fold(f64::NEG_INFINITY, f64::max);
    let (from, to) = if from.is_finite() && to > from { (from, to) } else { (0.0, 1.0) };
    let x = Linear::new((from, to), (LEFT, WIDTH - RIGHT));
    let time_ticks: Vec<(f64, String)> =
        range_ticks(from, to, 8).into_iter().map(|tick| (x.at(tick), tick_label(tick))).collect();
    let seconds = || timeline.phases.iter().flat_map(|phase| phase.seconds.iter());
    let steps = || timeline.phases.iter().flat_map(|phase| phase.steps.iter());
    let top_rps = seconds().map(|second| second.1).chain(steps().map(|step| step.achieved_rps)).fold(0.0, f64::max);
    let (rps, rps_ticks) = linear_ticks(top_rps, RPS);
    let latencies = seconds()
        .map(|second| second.2)
        .chain(steps().map(|step| step.p99_ms))
        .chain(timeline.phases.iter().flat_map(|phase| phase.pauses.iter().map(|pause| pause.1)));
    let (low, high) =
        latencies.filter(|ms| *ms > 0.0).fold((f64::INFINITY, 0.0f64), |(low, high), ms| (low.min(ms), high.max(ms)));
    let latency = if low.is_finite() {
        Log::decades(low, high, (LATENCY.1, LATENCY.0))
    } else {
        Log::decades(0.1, 10.0, (LATENCY.1, LATENCY.0))
    };
    let latency_ticks: Vec<(f64, String)> =
        latency.ticks().into_iter().map(|ms| (latency.at(ms), tick_label(ms))).collect();
    let heap: Vec<&HeapSample> =
        timeline.heap.iter().filter(|sample| sample.uptime_s >= from - 1.0 && sample.uptime_s <= to + 1.0).collect();
    let used = |sample: &HeapSample| sample.old_mb.unwrap_or(0.0) + sample.eden_mb.unwrap_or(0.0);
    let heap_top = heap.iter().map(|sample| used(sample)).fold(timeline.max_heap_mb.unwrap_or(0.0), f64::max);
    let (heap_scale, heap_ticks) = linear_ticks(heap_top, HEAP);
    let clamp = |uptime: f64| x.at(uptime.clamp(from, to));
    let area = |top: &dyn Fn(&HeapSample) -> f64, bottom: &dyn Fn(&HeapSample) -> f64| {
        let upper = heap.iter().map(|sample| (clamp(sample.uptime_s), heap_scale.at(top(sample))));
        let lower = heap.iter().rev().map(|sample| (clamp(sample.uptime_s), heap_scale.at(bottom(sample))));
        points(upper.chain(lower))
    };
    let body = html! {
        text x=(px(LEFT)) y="20" class="heading" { (timeline.title) }
        @for (index, phase) in timeline.phases.iter().enumerate() {
            rect x=(px(x.at(phase.from_s))) y=(px(TOP - 22.0))
                width=(px((x.at(phase.to_s) - x.at(phase.from_s)).max(1.0)))
                height=(px(HEAP.1 - TOP + 22.0)) class=(if index % 2 == 0 { "band even" } else { "band odd" }) {}
            text x=(px(x.at(phase.from_s) + 4.0)) y=(px(TOP - 8.0)) class="phase" { (phase.name) }
        }
        (x_axis(&time_ticks, HEAP.1, HEAP.1, "JVM uptime (s)", (LEFT + WIDTH - RIGHT) / 2.0))
        (y_axis(&rps_ticks, LEFT, WIDTH - RIGHT, "req/s", (RPS.0 + RPS.1) / 2.0))
        (y_axis(&latency_ticks, LEFT, WIDTH - RIGHT, "ms (log)", (LATENCY.0 + LATENCY.1) / 2.0))
        (y_axis(&heap_ticks, LEFT, WIDTH - RIGHT, "heap MB", (HEAP.0 + HEAP.1) / 2.0))
        @for step in steps() {
            @let (left, right) = (x.at(step.from_s), x.at(step.to_s).max(x.at(step.from_s) + 1.0));
            g class=(if step.meets_slo == Some(false) { "step failed" } else { "step" })
                data-rate=(step.requested_rps) data-from=(step.from_s) data-to=(step.to_s) {
                title { (step_title(step)) }
                line x1=(px(left)) x2=(px(left)) y1=(px(TOP - 22.0)) y2=(px(HEAP.1)) class="step-edge" {}
                line x1=(px(left)) x2=(px(right)) y1=(px(rps.at(step.achieved_rps)))
                    y2=(px(rps.at(step.achieved_rps))) stroke=(timeline.color) class="step-rps" {}
                @if step.p99_ms > 0.0 {
                    line x1=(px(left)) x2=(px(right)) y1=(px(latency.at(step.p99_ms)))
                        y2=(px(latency.at(step.p99_ms))) stroke=(P99_COLOR) class="step-p99" {}
                }
            }
        }
        @for phase in timeline.phases {
            polyline class="series" stroke=(timeline.color) data-phase=(phase.name)
                points=(points(phase.seconds.iter().map(|s| (x.at(s.0), rps.at(s.1))))) {}
            @for (start, ms) in &phase.pauses {
                rect x=(px(x.at(*start))) y=(px(latency.at(*ms)))
                    width=(px((x.at(start + ms / 1000.0) - x.at(*start)).max(1.5)))
                    height=(px((LATENCY.1 - latency.at(*ms)).max(1.0))) fill=(PAUSE_COLOR) class="pause" {}
            }
            polyline class="series" stroke=(P99_COLOR) data-phase=(phase.name)
                points=(points(phase.seconds.iter().map(|s| (x.at(s.0), latency.at(s.2))))) {}
        }
        @if heap.is_empty() {
            text x=(px(LEFT + 10.0)) y=(px((HEAP.0 + HEAP.1) / 2.0)) class="missing" {
                "heap not sampled (no gcstat.csv)"
            }
        } @else {
            polygon fill=(OLD_COLOR) class="area" points=(area(&|sample| sample.old_mb.unwrap_or(0.0), &|_| 0.0)) {}
            polygon fill=(EDEN_COLOR) class="area" points=(area(&used, &|sample| sample.old_mb.unwrap_or(0.0))) {}
        }
        @if let Some(max_heap) = timeline.max_heap_mb {
            @let y = px(heap_scale.at(max_heap));
            line x1=(px(LEFT)) x2=(px(WIDTH - RIGHT)) y1=(y) y2=(y) class="limit" {}
        }
        (legend(WIDTH - RIGHT + 14.0, RPS.0, &[(timeline.color, "req/s per second")]))
        (legend(WIDTH - RIGHT + 14.0, LATENCY.0,
            &[(P99_COLOR, "p99 per second"), (PAUSE_COLOR, "GC pause (height:"), ("none", "its duration)")]))
        @if steps().next().is_some() {
            (legend(WIDTH - RIGHT + 14.0, LATENCY.1 - 28.0,
                &[("#8c8c8c", "ladder step: req/s"), ("none", "and p99 across it")]))
        }
        (legend(WIDTH - RIGHT + 14.0, HEAP.0,
            &[(OLD_COLOR, "old gen used"), (EDEN_COLOR, "eden used"), ("#555", "max heap (dashed)")]))
    };
    svg("timeline", WIDTH, HEIGHT, &timeline.title, body)
}

/// A step's tooltip: "step 4000 req/s: 3998 achieved, p99 4.13 ms, SLO met".
fn step_title(step: &StepSpan) -> String {
    let slo = match step.meets_slo {
        Some(true) => ", SLO met",
        Some(false) => ", SLO missed",
        None => "",
    };
    format!("step {:.0} req/s: {:.0} achieved, p99 {:.2} ms{slo}", step.requested_rps, step.achieved_rps, step.p99_ms)
}
