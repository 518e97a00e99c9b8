//! `jload agent load`: the far side of a load host. It runs its share of a run with this machine's engine from the
//! instant the controller chose, ends it early when told (or when the controller goes silent), and answers with the
//! share's result — histograms included, so the controller merges the shares exactly — and its slow requests.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant, UNIX_EPOCH};

use super::agent::{first_request, read_requests, send};
use super::messages::{Event, HEARTBEAT_INTERVAL_MS, Request};
use crate::load::engine::{self, RunOptions};

/// Run one share of a load, ended early after `silence_limit` without a word from the controller; the exit code of
/// `jload agent load`.
pub fn serve_load(silence_limit: Duration) -> anyhow::Result<i32> {
    let requests = read_requests();
    let mut out = std::io::stdout().lock();
    let job = first_request(&requests, &mut out, "load", |request| match request {
        Request::Load(job) => Some(job),
        _ => None,
    })?;
    let stop = Arc::new(AtomicBool::new(false));
    let start_at = UNIX_EPOCH + Duration::from_micros(u64::try_from(job.start_at_unix_us).unwrap_or(0));
    let options = RunOptions { stop: stop.clone(), start_at: Some(start_at), ..RunOptions::default() };
    let outcome = std::thread::scope(|scope| {
        let run = scope.spawn(|| engine::run(&job.spec, &options));
        let mut last_heard = Instant::now();
        while !run.is_finished() {
            match requests.recv_timeout(Duration::from_millis(HEARTBEAT_INTERVAL_MS / 10)) {
                Ok(Some(Request::EndLoad)) | Ok(None) | Err(RecvTimeoutError::Disconnected) => {
                    stop.store(true, Ordering::Relaxed)
                }
                Ok(Some(_)) => last_heard = Instant::now(),
                Err(RecvTimeoutError::Timeout) => {}
            }
            if last_heard.elapsed() > silence_limit {
                stop.store(true, Ordering::Relaxed);
            }
        }
        run.join().map_err(|_| anyhow::anyhow!("the load thread panicked"))?
    });
    let event = match outcome {
        Ok(mut result) => {
            let slow = std::mem::take(&mut result.slow.kept);
            Event::LoadDone { result: Box::new(result), slow }
        }
        Err(err) => Event::LoadFailed { message: format!("{err:#}") },
    };
    Ok(if send(&mut out, &event) { 0 } else { 3 })
}
