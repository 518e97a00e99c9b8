//! The JVM's own clock and what it did on it: when its uptime was 0 on the wall clock ([`clock`], from PerfData and
//! the GC log's decorations) and the stretches it held application threads up ([`stops`], from its GC log), so
//! both can be put on the requests' clock.

pub mod clock;
pub mod stops;
