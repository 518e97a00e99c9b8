//! HdrHistogram's own encodings of latency histograms: one histogram as base64 of its V2 deflate serialisation (what a
//! result's JSON carries, so that results can be merged exactly), and the interval log (`.hlog`, one such histogram a
//! second) that `--hlog` writes while a run goes and [`write_result_log`] writes from a result afterwards.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use hdrhistogram::Histogram;
use hdrhistogram::serialization::V2DeflateSerializer;
use hdrhistogram::serialization::interval_log::{IntervalLogWriter, IntervalLogWriterBuilder};

use super::histogram_codec::decode;
use super::result::BenchResult;
use crate::error::bad_input;

/// Write the interval log of `result` to `path` (atomically): one interval per row of its series, on the result's
/// start time. Refused when the series holds no histograms (a result written before they were kept).
pub fn write_result_log(result: &BenchResult, path: &Path) -> anyhow::Result<()> {
    let start = result.start_unix_us.map_or(UNIX_EPOCH, |us| UNIX_EPOCH + Duration::from_micros(us.max(0) as u64));
    let mut log = HlogFile::create(Some(path))?;
    log.begin(start)?;
    for row in &result.series {
        let encoded = row.histogram.as_deref().ok_or_else(|| {
            bad_input(format!("second {} of the series has no histogram: the result predates them", row.second))
        })?;
        log.write(&decode(encoded)?, Duration::from_secs(row.second), Duration::from_secs_f64(row.duration_s))?;
    }
    log.finish()
}

/// An interval log being written: created (so that a path that cannot be written fails first), begun at the run's
/// start, streamed to a temporary name, renamed when complete. Without a path it writes nothing.
pub struct HlogFile {
    target: Option<(PathBuf, PathBuf, BufWriter<File>)>,
    serializer: V2DeflateSerializer,
}

impl HlogFile {
    /// Create the log's file at `path` (under a temporary name).
    pub fn create(path: Option<&Path>) -> anyhow::Result<HlogFile> {
        let mut hlog = HlogFile { target: None, serializer: V2DeflateSerializer::new() };
        let Some(path) = path else { return Ok(hlog) };
        let mut temporary = path.as_os_str().to_owned();
        temporary.push(".tmp");
        let temporary = PathBuf::from(temporary);
        let file = File::create(&temporary)
            .map_err(|err| bad_input(format!("cannot write --hlog {}: {err}", path.display())))?;
        hlog.target = Some((path.to_path_buf(), temporary, BufWriter::new(file)));
        Ok(hlog)
    }

    /// Write the log's headers: its start and base time at `start`, the run's start (interval times count from it).
    pub fn begin(&mut self, start: SystemTime) -> anyhow::Result<()> {
        let Some((_, _, file)) = &mut self.target else { return Ok(()) };
        IntervalLogWriterBuilder::new()
            .add_comment(&format!("jload {} latency interval log, values in microseconds", env!("CARGO_PKG_VERSION")))
            .with_start_time(start)
            .with_base_time(start)
            .with_max_value_divisor(1000.0)
            .begin_log_with(file, &mut self.serializer)?;
        file.write_all(b"\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n")?;
        Ok(())
    }

    /// Append one interval: `histogram`, beginning `start` after the log's start time and lasting `length`.
    pub fn write(&mut self, histogram: &Histogram<u64>, start: Duration, length: Duration) -> anyhow::Result<()> {
        let Some((_, _, file)) = &mut self.target else { return Ok(()) };
        // A builder with no headers writes nothing itself: this just appends one interval line.
        let mut writer: IntervalLogWriter<'_, '_, BufWriter<File>, V2DeflateSerializer> =
            IntervalLogWriterBuilder::new().begin_log_with(file, &mut self.serializer)?;
        writer
            .write_histogram(histogram, start, length, None)
            .map_err(|err| anyhow::anyhow!("cannot write an hlog interval: {err}"))?;
        Ok(())
    }

    /// Remove the unfinished log (a run that could not start leaves no file behind).
    pub fn discard(self) {
        if let Some((_, temporary, file)) = self.target {
            drop(file);
            let _ = std::fs::remove_file(temporary);
        }
    }

    /// Flush the log to disk and give it its name.
    pub fn finish(self) -> anyhow::Result<()> {
        let Some((path, temporary, file)) = self.target else { return Ok(()) };
        let finish = || -> std::io::Result<()> {
            file.into_inner().map_err(|err| err.into_error())?.sync_all()?;
            std::fs::rename(&temporary, &path)
        };
        finish().map_err(|err| anyhow::anyhow!("cannot write --hlog {}: {err}", path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::record::histogram_codec::encode;
    use crate::load::record::recorder::new_histogram;

    #[test]
    fn a_histogram_survives_its_encoding_exactly() {
        let mut histogram = new_histogram();
        for value in [1, 250, 250, 9_999, 3_600_000_000] {
            histogram.record(value).unwrap();
        }
        let decoded = decode(&encode(&histogram)).unwrap();
        assert_eq!(decoded, histogram);
        assert_eq!((decoded.len(), decoded.max(), decoded.value_at_quantile(0.5)), (5, histogram.max(), 250));
    }

    #[test]
    fn text_that_is_not_a_histogram_is_refused() {
        assert!(decode("not base64!").is_err());
        assert!(decode("aGVsbG8=").is_err());
    }
}
