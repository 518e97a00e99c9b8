//! JVM telemetry without spawning a JDK tool: the hsperfdata reader and sampler (`jload gcstat`, `jload jps`),
//! target resolution (pid, `port:N`, name) and /proc figures. It knows nothing about HTTP.

pub mod cli;
pub mod discovery;
pub mod gcutil;
pub mod perfdata;
pub mod procfs;
pub mod sampler;
pub mod target;
