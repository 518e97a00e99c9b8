//! Beyond one machine, over OpenSSH (no daemon of jload's own): the target on its own server (`[target] host`) and
//! the far side that serves it (`jload agent`), with jload copying itself to hosts that lack this build.

pub mod agent;
pub mod cli;
pub mod install;
pub mod link;
pub mod protocol;
pub mod server;
pub mod ssh;
pub mod target;
