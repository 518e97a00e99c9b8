//! The HTTP load engine: request templates and mixes, connections, closed and open load models, latency recording.
//! It knows nothing about JVMs or plans: it takes a resolved [`spec::LoadSpec`] and returns a [`result::BenchResult`].

pub mod capacity;
pub mod conn;
pub mod engine;
pub mod figures;
pub mod generator;
pub mod h2;
pub mod h2_link;
pub mod hlog;
pub mod http;
pub mod ladder;
pub mod ladder_printout;
pub mod limit;
pub mod limits;
pub mod merge;
pub mod mix;
pub mod pause_correction;
pub mod printout;
pub mod probe;
pub mod protocol;
pub mod recorder;
pub mod request;
pub mod result;
pub mod slow;
pub mod socket;
pub mod spec;
pub mod start_at;
pub mod status;
pub mod steady;
pub mod template;
pub mod thread_cpu;
pub mod threshold;
pub mod timer;
pub mod tls;
pub mod transport;
pub mod worker;
