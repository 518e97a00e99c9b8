//! One latency histogram as text: base64 of HdrHistogram's V2 deflate serialisation, what a result's JSON carries (so
//! that results can be merged exactly) and each line of an interval log (`hlog.rs`) holds.

use base64::Engine;
use hdrhistogram::Histogram;
use hdrhistogram::serialization::{Deserializer, Serializer, V2DeflateSerializer};

use super::recorder::new_histogram;

/// A histogram as base64 of its V2 deflate serialisation: the payload of an interval log's line.
pub fn encode(histogram: &Histogram<u64>) -> String {
    let mut bytes = Vec::new();
    V2DeflateSerializer::new().serialize(histogram, &mut bytes).expect("a histogram serialises into memory");
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// The histogram `encode` wrote, with the engine's bounds (so that it adds to any of the engine's histograms).
pub fn decode(text: &str) -> anyhow::Result<Histogram<u64>> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(text)
        .map_err(|err| anyhow::anyhow!("a histogram is not base64: {err}"))?;
    let decoded: Histogram<u64> = Deserializer::new()
        .deserialize(&mut bytes.as_slice())
        .map_err(|err| anyhow::anyhow!("a histogram is not HdrHistogram's V2 encoding: {err:?}"))?;
    let mut histogram = new_histogram();
    histogram.add(&decoded).map_err(|err| anyhow::anyhow!("a histogram holds values out of range: {err:?}"))?;
    Ok(histogram)
}
