//! Open-model load at several rates: rate ladders and the capacity search (`ladder/` runs the steps, `capacity.rs`
//! decides the next rate), the rule of a target's steady state (`steady.rs`, run around the steps by
//! `ladder/steadiness.rs`), how a rate's windows are weighed by the target's rare collections (`rare.rs`), and the
//! printout of the steps (`ladder_printout.rs`). Their records are in `record/outcomes.rs`.

pub mod capacity;
pub mod ladder;
pub mod ladder_printout;
pub mod rare;
pub mod steady;
