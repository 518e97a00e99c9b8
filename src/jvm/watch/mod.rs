//! Watching a JVM in the background: a thread samples it at a fixed interval (optionally appending each sample to a
//! CSV file, [`gcstat_csv`]), and callers take extra samples at the exact edges of a window (`mark`) to summarise it.

pub mod gcstat_csv;
pub mod window;

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::perfdata::sampler::{JvmSample, JvmSampler};
use window::JvmWindow;

struct Shared {
    sampler: Mutex<JvmSampler>,
    samples: Mutex<Vec<JvmSample>>,
    csv: Mutex<Option<BufWriter<File>>>,
    stop: AtomicBool,
    /// Set once the JVM is gone.
    exited: AtomicBool,
}

pub struct JvmWatch {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl JvmWatch {
    /// Open JVM `pid` (retrying for up to `open_timeout` while its PerfData file appears) and sample it every
    /// `interval` until [`JvmWatch::finish`].
    pub fn start(
        pid: u32,
        interval: Duration,
        csv: Option<PathBuf>,
        open_timeout: Duration,
    ) -> anyhow::Result<JvmWatch> {
        let deadline = Instant::now() + open_timeout;
        let sampler = loop {
            match JvmSampler::open(pid) {
                Ok(sampler) => break sampler,
                Err(err) if Instant::now() >= deadline => return Err(err),
                Err(_) => std::thread::sleep(Duration::from_millis(50)),
            }
        };
        let csv = match csv {
            Some(path) => {
                let mut file = BufWriter::new(File::create(&path)?);
                writeln!(file, "{}", gcstat_csv::header())?;
                Some(file)
            }
            None => None,
        };
        let shared = Arc::new(Shared {
            sampler: Mutex::new(sampler),
            samples: Mutex::new(Vec::new()),
            csv: Mutex::new(csv),
            stop: AtomicBool::new(false),
            exited: AtomicBool::new(false),
        });
        let background = shared.clone();
        let thread = std::thread::Builder::new().name("jload-jvm-watch".into()).spawn(move || {
            let mut next = Instant::now();
            while !background.stop.load(Ordering::Relaxed) && !background.exited.load(Ordering::Relaxed) {
                take_sample(&background, true);
                next += interval;
                while Instant::now() < next && !background.stop.load(Ordering::Relaxed) {
                    std::thread::sleep((next - Instant::now()).min(Duration::from_millis(50)));
                }
            }
        })?;
        Ok(JvmWatch { shared, thread: Some(thread) })
    }

    /// Sample now (e.g. at the start or end of a window); None once the JVM has exited. Not written to the CSV,
    /// which keeps one row per interval (a mark right after a periodic sample would repeat it).
    pub fn mark(&self) -> Option<JvmSample> {
        take_sample(&self.shared, false)
    }

    /// The last sample the background thread took after `start` (for a window whose JVM died before its end mark);
    /// None when it took none since.
    pub fn last_sample_after(&self, start: &JvmSample) -> Option<JvmSample> {
        let samples = self.shared.samples.lock().expect("samples lock");
        samples.last().filter(|sample| sample.timestamp > start.timestamp).cloned()
    }

    /// Summarise the window between two marks, with every sample taken in between.
    pub fn window(&self, start: &JvmSample, end: &JvmSample) -> JvmWindow {
        JvmWindow::between(start, end, &self.samples_between(start, end))
    }

    /// The samples taken strictly between two marks.
    pub fn samples_between(&self, start: &JvmSample, end: &JvmSample) -> Vec<JvmSample> {
        let samples = self.shared.samples.lock().expect("samples lock");
        samples
            .iter()
            .filter(|sample| sample.timestamp > start.timestamp && sample.timestamp < end.timestamp)
            .cloned()
            .collect()
    }

    fn stop_thread(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
        if let Some(csv) = self.shared.csv.lock().expect("csv lock").as_mut() {
            let _ = csv.flush();
        }
    }
}

impl Drop for JvmWatch {
    fn drop(&mut self) {
        self.stop_thread();
    }
}

fn take_sample(shared: &Shared, to_csv: bool) -> Option<JvmSample> {
    let sample = match shared.sampler.lock().expect("sampler lock").sample() {
        Ok(Some(sample)) => sample,
        _ => {
            shared.exited.store(true, Ordering::Relaxed);
            return None;
        }
    };
    if to_csv && let Some(csv) = shared.csv.lock().expect("csv lock").as_mut() {
        let _ = writeln!(csv, "{}", gcstat_csv::row(&sample));
    }
    shared.samples.lock().expect("samples lock").push(sample.clone());
    Some(sample)
}
