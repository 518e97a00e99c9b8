//! What a run is asked to do, from the user's input to a checked [`spec::LoadSpec`]: the load settings (`spec.rs`),
//! the protocol options (`protocol.rs`) with the TLS settings and their rustls configuration (`tls.rs`), requests and their templates (`request.rs`, `template.rs`), request mixes
//! (`mix.rs`) and the statuses that count as success (`status.rs`).

pub mod mix;
pub mod protocol;
pub mod request;
pub mod settings;
pub mod spec;
pub mod status;
pub mod template;
pub mod tls;
