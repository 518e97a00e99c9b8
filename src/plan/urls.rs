//! The URLs a plan reaches its target at — the ready URL and every phase's requests — and the one-line warning for
//! those that name a fixed port instead of `{port}`.

use super::Plan;
use crate::load::input::spec::{PORT_PLACEHOLDER, STAND_IN_HOST, fill_target};

impl Plan {
    /// Every URL the plan reaches its target at, as written (`{host}` and `{port}` unfilled), with where:
    /// `target.ready`, then each phase's requests (`phase 'get'`).
    pub fn urls(&self) -> impl Iterator<Item = (String, &String)> {
        let phases = self.phases.iter().flat_map(|phase| {
            phase.load.requests.iter().map(move |request| (format!("phase '{}'", phase.name), &request.url))
        });
        std::iter::once(("target.ready".to_string(), &self.target.ready)).chain(phases)
    }

    /// What `jload run` (and `--dry-run`) warns once when the ready URL or a phase's URL names a fixed port instead of
    /// `{port}`: every cell-repeat then needs that port free, and gets no port of its own.
    pub fn fixed_port_warning(&self) -> Option<String> {
        let (mut places, mut ports): (Vec<String>, Vec<u16>) = (Vec::new(), Vec::new());
        for (place, url) in self.urls().filter(|(_, url)| !url.contains(PORT_PLACEHOLDER)) {
            let filled = fill_target(url, STAND_IN_HOST, "1");
            let Some(port) = url::Url::parse(&filled).ok().and_then(|url| url.port_or_known_default()) else {
                continue;
            };
            if !places.contains(&place) {
                places.push(place);
            }
            if !ports.contains(&port) {
                ports.push(port);
            }
        }
        if ports.is_empty() {
            return None;
        }
        let ports: Vec<String> = ports.iter().map(u16::to_string).collect();
        Some(format!(
            "warning: {} name{} the fixed port{} {} instead of {{port}}: each cell-repeat is refused while another \
             process holds it; write {{port}} in the URLs and pass it to the service (e.g. -Dkv.port={{port}})",
            places.join(", "),
            if places.len() == 1 { "s" } else { "" },
            if ports.len() == 1 { "" } else { "s" },
            ports.join(", ")
        ))
    }
}
