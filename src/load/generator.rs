//! Where a run's load comes from: this machine's engine, or (see `remote::load`) several load hosts whose parts are
//! merged exactly. Everything that drives load — a single run, a rate ladder, a capacity search — goes through one.

use super::engine::{self, RunOptions};
use super::input::spec::LoadSpec;
use super::record::result::BenchResult;

pub trait Generator: Sync {
    /// Run `spec` once, observed as `options` says.
    fn run(&self, spec: &LoadSpec, options: &RunOptions) -> anyhow::Result<BenchResult>;
}

/// This machine's engine.
pub struct LocalEngine;

impl Generator for LocalEngine {
    fn run(&self, spec: &LoadSpec, options: &RunOptions) -> anyhow::Result<BenchResult> {
        engine::run(spec, options)
    }
}
