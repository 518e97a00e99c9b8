//! The connection machinery of the engine: one mio event loop per worker thread (`worker/`, with its connect and
//! schedule parts), HTTP/1.1 connections (`conn.rs`) and their response parser (`http/`), HTTP/2 connections
//! (`h2_link.rs`) over the sans-IO session (`h2/`), the transport under them — TCP connect, TLS handshake, interest
//! (`socket.rs`), the byte stream, TCP or TLS (`transport.rs`) —, the event
//! loop's deadline timer (`timer.rs`), a run's start at a wall-clock instant (`start_at.rs`), the open-files limit
//! (`open_files.rs`), and the one blocking GET of a readiness check (`probe.rs`).

pub mod conn;
pub mod h2;
pub mod h2_link;
pub mod http;
pub mod open_files;
pub mod probe;
pub mod socket;
pub mod start_at;
pub mod timer;
pub mod transport;
pub mod wire;
pub mod worker;
