//! The HTTP load engine: request templates and mixes, connections, closed and open load models, latency recording.
//! It knows nothing about JVMs or plans: it takes a resolved [`spec::LoadSpec`] and returns a [`result::BenchResult`].

pub mod cli;
