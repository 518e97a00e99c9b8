//! Beyond one machine, over OpenSSH (no daemon of jload's own): the target on its own server (`[target] host`), load
//! from several hosts merged exactly (`[load] hosts`), and the far sides that serve them (`jload agent`), with jload
//! copying itself to hosts that lack this build.

pub mod agent;
pub mod cli;
pub mod install;
pub mod link;
pub mod load;
pub mod load_agent;
pub mod messages;
pub mod remote_target;
pub mod server;
pub mod ssh;
