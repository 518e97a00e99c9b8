//! `jload run`: the runner. The only part of jload that starts or kills target processes and the only writer of a
//! results directory's records (through [`crate::results`]): per cell × repeat it launches a fresh JVM, drives it
//! through the plan's phases while watching it, and stores what was seen.

pub mod cell;
#[cfg(test)]
mod cell_tests;
pub mod cli;
pub mod crash;
pub mod launcher;
pub mod runner;
pub mod store;
