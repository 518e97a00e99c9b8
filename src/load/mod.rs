//! The HTTP load engine: request templates and mixes, connections, closed and open load models, latency recording.
//! It knows nothing about JVMs or plans: it takes a resolved [`input::spec::LoadSpec`] and returns a
//! [`record::result::BenchResult`].

pub mod connections;
pub mod engine;
pub mod figures;
pub mod format;
pub mod generator;
pub mod input;
pub mod merge;
pub mod printout;
pub mod record;
pub mod search;
