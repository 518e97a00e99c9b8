//! JVM telemetry without spawning a JDK tool: the hsperfdata reader and sampler (`jload gcstat`, `jload jps`),
//! target resolution (pid, `port:N`, name), /proc figures, GC-log analysis (`jload gclog`), and watching a JVM
//! over a window of time, and HotSpot's attach protocol with the native memory summary it reads. It knows nothing
//! about HTTP.

pub mod attach;
pub mod cli;
pub mod clock;
pub mod discovery;
pub mod gc_init;
pub mod gclog;
pub mod gcstat_csv;
pub mod gcutil;
pub mod nmt;
pub mod nmt_csv;
pub mod nmt_reader;
pub mod perfdata;
pub mod perfdata_file;
pub mod procfs;
pub mod sampler;
pub mod stops;
pub mod target;
#[cfg(test)]
pub mod test_jvm;
pub mod watch;
pub mod window;
