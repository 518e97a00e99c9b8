//! `--mix FILE`: a TOML file of weighted requests (`[[request]] name, weight, method, url, headers, body`).

use std::path::Path;

use serde::Deserialize;

use super::request::RequestSpec;
use crate::error::bad_input;
use crate::tomlfile::parse_toml;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MixFile {
    request: Vec<RequestSpec>,
}

/// Read and validate a mix file; every problem is one line naming the file and what to fix.
pub fn load_mix(path: &Path) -> anyhow::Result<Vec<RequestSpec>> {
    let text = std::fs::read_to_string(path)
        .map_err(|err| bad_input(format!("cannot read mix file {}: {err}", path.display())))?;
    parse_mix(&path.display().to_string(), &text)
}

/// Parse mix-file text; `origin` names it in errors.
pub fn parse_mix(origin: &str, text: &str) -> anyhow::Result<Vec<RequestSpec>> {
    let mix: MixFile = parse_toml(
        &format!("mix file {origin}"),
        text,
        "expected [[request]] tables with url, and optional name, weight, method, headers, body",
    )?;
    if mix.request.is_empty() {
        return Err(bad_input(format!("mix file {origin}: no [[request]]; add at least one")));
    }
    Ok(mix.request)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_000_workload_as_a_mix() {
        let text = r#"
[[request]]
name = "set"
weight = 1
url = "http://127.0.0.1:8088/random_set?keyRange=9999999&valueSize=5000"
[[request]]
name = "get"
weight = 8
url = "http://127.0.0.1:8088/random_get?keyRange=9999999"
headers = ["Accept: */*"]
[[request]]
name = "put"
method = "PUT"
url = "http://127.0.0.1:8088/kv/{rand:1..100}"
body = "hello"
"#;
        let requests = parse_mix("kv.toml", text).unwrap();
        assert_eq!(requests.len(), 3);
        assert_eq!(requests[1].weight, 8);
        assert_eq!(requests[2].method, "PUT");
        assert_eq!(requests[0].method, "GET");
    }

    #[test]
    fn errors_name_file_line_and_key() {
        let err = parse_mix("m.toml", "[[request]]\nurl = \"http://x/\"\nwieght = 2\n").unwrap_err().to_string();
        assert!(err.starts_with("mix file m.toml: line 3:"), "{err}");
        assert!(err.contains("wieght"), "{err}");
        let err = parse_mix("m.toml", "[[request]]\nweight = 2\n").unwrap_err().to_string();
        assert!(err.contains("url"), "{err}");
        let err = parse_mix("m.toml", "[[request]]\nurl = 'http://x/'\nweight = -1\n").unwrap_err().to_string();
        assert!(err.contains("line 3"), "{err}");
    }
}
