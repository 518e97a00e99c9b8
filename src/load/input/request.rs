//! Turning request descriptions (method, URL, headers, body) into HTTP/1.1 request bytes: built once when static,
//! rendered per request from templates otherwise; and weighted choice among several requests (a mix).

use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::atomic::AtomicU64;

use serde::{Deserialize, Serialize};

use super::template::{RenderContext, Template};
use crate::error::bad_input;

/// One request as the user describes it (a `jload bench` command line or a `[[request]]` of a mix file).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RequestSpec {
    /// Name used to report results per request (defaults to the method and path).
    #[serde(default)]
    pub name: Option<String>,
    /// Relative weight in a mix (default 1).
    #[serde(default = "default_weight")]
    pub weight: u32,
    #[serde(default = "default_method")]
    pub method: String,
    pub url: String,
    /// "Name: value" lines.
    #[serde(default)]
    pub headers: Vec<String>,
    #[serde(default)]
    pub body: Option<String>,
    /// Body bytes taken as they are (from --body-file); never serialized into mix files.
    #[serde(skip)]
    pub raw_body: Option<Vec<u8>>,
}

fn default_weight() -> u32 {
    1
}

fn default_method() -> String {
    "GET".to_string()
}

/// The network destination shared by every request of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct Endpoint {
    /// `host:port` as written in the URL (for the Host header and messages).
    pub authority: String,
    /// The host alone, as written (the TLS server name).
    pub host: String,
    pub addr: SocketAddr,
    /// `https://`: TLS over the connection.
    pub tls: bool,
}

impl Endpoint {
    /// `scheme://host:port`.
    pub fn describe(&self) -> String {
        format!("{}://{}", if self.tls { "https" } else { "http" }, self.authority)
    }
}

/// A request ready to be sent many times.
#[derive(Debug)]
pub struct CompiledRequest {
    pub name: String,
    pub weight: u32,
    /// True for HEAD: the response has no body whatever its headers say.
    pub is_head: bool,
    head: Template,
    body: Template,
    /// Bytes of the whole request when nothing in it varies.
    static_bytes: Option<Vec<u8>>,
    /// Whether jload adds Content-Length (the user did not give one).
    add_content_length: bool,
}

/// The requests of a run and how to pick among them.
#[derive(Debug)]
pub struct RequestSet {
    pub endpoint: Endpoint,
    pub requests: Vec<CompiledRequest>,
    cumulative_weights: Vec<u32>,
    /// Shared `{seq}` counter.
    pub seq: AtomicU64,
}

impl RequestSet {
    /// Compile every request; all must share one scheme, host and port.
    pub fn compile(specs: &[RequestSpec]) -> anyhow::Result<RequestSet> {
        if specs.is_empty() {
            return Err(bad_input("no request to send: give a URL or a --mix file with at least one [[request]]"));
        }
        let mut endpoint: Option<Endpoint> = None;
        let mut requests = Vec::new();
        for spec in specs {
            let (this_endpoint, request) = compile_one(spec)?;
            match &endpoint {
                None => endpoint = Some(this_endpoint),
                Some(first) if first.authority != this_endpoint.authority || first.tls != this_endpoint.tls => {
                    return Err(bad_input(format!(
                        "all requests must go to one scheme, host and port: '{}' differs from '{}'",
                        this_endpoint.describe(),
                        first.describe()
                    )));
                }
                Some(_) => {}
            }
            requests.push(request);
        }
        let mut total = 0u32;
        let mut cumulative_weights = Vec::new();
        for request in &requests {
            total = total
                .checked_add(request.weight)
                .ok_or_else(|| bad_input("mix weights add up to more than 4294967295; use smaller weights"))?;
            cumulative_weights.push(total);
        }
        if total == 0 {
            return Err(bad_input("every request has weight 0; give at least one a positive weight"));
        }
        let mut names: Vec<&str> = requests.iter().map(|request| request.name.as_str()).collect();
        names.sort_unstable();
        if let Some(pair) = names.windows(2).find(|pair| pair[0] == pair[1]) {
            return Err(bad_input(format!("two requests are named '{}'; give each a distinct name", pair[0])));
        }
        Ok(RequestSet {
            endpoint: endpoint.expect("at least one request"),
            requests,
            cumulative_weights,
            seq: AtomicU64::new(0),
        })
    }

    /// Pick a request index according to the weights.
    pub fn pick(&self, rng: &mut fastrand::Rng) -> usize {
        if self.requests.len() == 1 {
            return 0;
        }
        let total = *self.cumulative_weights.last().expect("non-empty");
        let point = rng.u32(0..total);
        self.cumulative_weights.partition_point(|&upto| upto <= point)
    }

    /// Render request `index` into `scratch` when it varies per request; static requests need nothing.
    pub fn render_if_dynamic(&self, index: usize, rng: &mut fastrand::Rng, scratch: &mut Vec<u8>) {
        let request = &self.requests[index];
        if request.static_bytes.is_none() {
            scratch.clear();
            request.render(&mut RenderContext { rng, seq: &self.seq }, scratch);
        }
    }

    /// The bytes of request `index`: the prebuilt ones, or what `render_if_dynamic` left in `scratch`.
    pub fn request_bytes<'a>(&'a self, index: usize, scratch: &'a [u8]) -> &'a [u8] {
        self.requests[index].static_bytes.as_deref().unwrap_or(scratch)
    }
}

impl CompiledRequest {
    fn render(&self, context: &mut RenderContext<'_>, out: &mut Vec<u8>) {
        if !self.add_content_length {
            self.head.render(context, out);
            out.extend_from_slice(b"\r\n");
            self.body.render(context, out);
            return;
        }
        // The body is rendered first so its length is known, then moved after the head.
        let head_start = out.len();
        self.body.render(context, out);
        let body_len = out.len() - head_start;
        self.head.render(context, out);
        out.extend_from_slice(b"Content-Length: ");
        out.extend_from_slice(itoa::Buffer::new().format(body_len).as_bytes());
        out.extend_from_slice(b"\r\n\r\n");
        out[head_start..].rotate_left(body_len);
    }
}

/// Split an `http://host:port/path?query` URL (which may contain placeholders) into endpoint and request target.
pub fn parse_url(url: &str) -> anyhow::Result<(Endpoint, String)> {
    let Some((scheme, rest)) = url.split_once("://") else {
        return Err(bad_input(format!("invalid URL '{url}': write it like http://127.0.0.1:8088/path")));
    };
    let tls = match scheme.to_ascii_lowercase().as_str() {
        "http" => false,
        "https" => true,
        other => return Err(bad_input(format!("unsupported scheme '{other}' in '{url}'; use http:// or https://"))),
    };
    let path_start = rest.find(['/', '?']).unwrap_or(rest.len());
    let authority = &rest[..path_start];
    let mut target = rest[path_start..].split('#').next().unwrap_or("").to_string();
    if target.is_empty() || target.starts_with('?') {
        target.insert(0, '/');
    }
    if authority.contains(['{', '}']) {
        return Err(bad_input(format!(
            "invalid URL '{url}': placeholders are allowed in the path and query, not the host"
        )));
    }
    // Let the url crate validate host and port; placeholders are not part of the authority.
    let parsed = url::Url::parse(&format!("{}://{authority}/", if tls { "https" } else { "http" }))
        .map_err(|err| bad_input(format!("invalid URL '{url}': {err}")))?;
    let host = parsed
        .host_str()
        .filter(|host| !host.is_empty())
        .ok_or_else(|| bad_input(format!("invalid URL '{url}': no host")))?;
    let port = parsed.port_or_known_default().unwrap_or(if tls { 443 } else { 80 });
    if target.contains([' ', '\r', '\n']) {
        return Err(bad_input(format!("invalid URL '{url}': spaces and line breaks must be percent-encoded (%20)")));
    }
    let lookup_host = host.trim_start_matches('[').trim_end_matches(']');
    let addr = (lookup_host, port)
        .to_socket_addrs()
        .map_err(|err| bad_input(format!("cannot resolve host '{host}' in '{url}': {err}")))?
        .next()
        .ok_or_else(|| bad_input(format!("host '{host}' in '{url}' has no address")))?;
    Ok((Endpoint { authority: authority.to_string(), host: host.to_string(), addr, tls }, target))
}

fn compile_one(spec: &RequestSpec) -> anyhow::Result<(Endpoint, CompiledRequest)> {
    let (endpoint, target) = parse_url(&spec.url)?;
    let method = spec.method.trim().to_ascii_uppercase();
    if method.is_empty() || !method.bytes().all(|byte| byte.is_ascii_alphabetic()) {
        return Err(bad_input(format!("invalid HTTP method '{}'; use GET, POST, PUT, DELETE, HEAD, …", spec.method)));
    }
    let mut head_text = format!("{method} {target} HTTP/1.1\r\n");
    let mut user_sets_host = false;
    let mut user_sets_length = false;
    for header in &spec.headers {
        let (name, value) = header
            .split_once(':')
            .filter(|(name, _)| !name.trim().is_empty() && !name.contains(char::is_whitespace))
            .ok_or_else(|| bad_input(format!("invalid header '{header}': write it as 'Name: value'")))?;
        if value.contains(['\r', '\n']) {
            return Err(bad_input(format!("invalid header '{header}': line breaks are not allowed")));
        }
        user_sets_host |= name.eq_ignore_ascii_case("host");
        user_sets_length |= name.eq_ignore_ascii_case("content-length");
        head_text.push_str(&format!("{}: {}\r\n", name.trim(), value.trim()));
    }
    if !user_sets_host {
        let host_line = format!("Host: {}\r\n", endpoint.authority);
        let request_line_end = head_text.find("\r\n").expect("request line") + 2;
        head_text.insert_str(request_line_end, &host_line);
    }
    let body = match (&spec.raw_body, &spec.body) {
        (Some(bytes), _) => Template::literal(bytes.clone()),
        (None, Some(text)) => Template::parse("body", text)?,
        (None, None) => Template::literal(Vec::new()),
    };
    let has_body = spec.raw_body.is_some() || spec.body.is_some();
    let sends_length = has_body || matches!(method.as_str(), "POST" | "PUT" | "PATCH");
    let add_content_length = sends_length && !user_sets_length;
    let head = Template::parse("URL or header", &head_text)?;
    let name = spec.name.clone().unwrap_or_else(|| format!("{method} {}", target.split('?').next().unwrap_or("/")));
    let mut request = CompiledRequest {
        name,
        weight: spec.weight,
        is_head: method == "HEAD",
        head,
        body,
        static_bytes: None,
        add_content_length,
    };
    if request.head.is_static() && request.body.is_static() {
        let mut rng = fastrand::Rng::with_seed(0);
        let seq = AtomicU64::new(0);
        let mut bytes = Vec::new();
        request.render(&mut RenderContext { rng: &mut rng, seq: &seq }, &mut bytes);
        request.static_bytes = Some(bytes);
    }
    Ok((endpoint, request))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(url: &str) -> RequestSpec {
        RequestSpec {
            name: None,
            weight: 1,
            method: "GET".into(),
            url: url.into(),
            headers: vec![],
            body: None,
            raw_body: None,
        }
    }

    #[test]
    fn static_get_is_built_once_with_host() {
        let set = RequestSet::compile(&[spec("http://127.0.0.1:8088/health")]).unwrap();
        let mut rng = fastrand::Rng::with_seed(1);
        let mut scratch = Vec::new();
        set.render_if_dynamic(0, &mut rng, &mut scratch);
        let bytes = set.request_bytes(0, &scratch).to_vec();
        assert_eq!(bytes, b"GET /health HTTP/1.1\r\nHost: 127.0.0.1:8088\r\n\r\n");
        assert!(scratch.is_empty(), "static requests are not rendered");
        assert_eq!(set.requests[0].name, "GET /health");
    }

    #[test]
    fn dynamic_body_gets_its_own_content_length() {
        let mut post = spec("http://localhost:9/kv/{seq}");
        post.method = "put".into();
        post.body = Some("value-{rand:100..100}".into());
        post.headers = vec!["X-Test: yes".into()];
        let set = RequestSet::compile(&[post]).unwrap();
        let mut rng = fastrand::Rng::with_seed(1);
        let mut scratch = Vec::new();
        set.render_if_dynamic(0, &mut rng, &mut scratch);
        let text = String::from_utf8(set.request_bytes(0, &scratch).to_vec()).unwrap();
        assert_eq!(
            text,
            "PUT /kv/0 HTTP/1.1\r\nHost: localhost:9\r\nX-Test: yes\r\nContent-Length: 9\r\n\r\nvalue-100"
        );
    }

    #[test]
    fn url_forms() {
        assert_eq!(parse_url("http://127.0.0.1:8080").unwrap().1, "/");
        assert_eq!(parse_url("http://127.0.0.1:8080?a=1").unwrap().1, "/?a=1");
        assert_eq!(parse_url("http://[::1]:81/x#frag").unwrap().0.addr.port(), 81);
        assert_eq!(parse_url("http://127.0.0.1/x").unwrap().0.addr.port(), 80);
        let (secure, _) = parse_url("https://localhost/x").unwrap();
        assert_eq!((secure.addr.port(), secure.tls, secure.host.as_str()), (443, true, "localhost"));
        for bad in ["127.0.0.1:80/", "ftp://x/", "http://:80/", "http://127.0.0.1:99999/"] {
            let err = parse_url(bad).unwrap_err();
            assert!(err.downcast_ref::<crate::error::BadInput>().is_some(), "{bad}");
        }
    }

    #[test]
    fn weights_are_respected() {
        let mut a = spec("http://127.0.0.1:1/a");
        a.weight = 3;
        let b = spec("http://127.0.0.1:1/b");
        let set = RequestSet::compile(&[a, b]).unwrap();
        let mut rng = fastrand::Rng::with_seed(3);
        let picks_a = (0..40_000).filter(|_| set.pick(&mut rng) == 0).count();
        assert!((29_000..31_000).contains(&picks_a), "{picks_a}");
    }

    #[test]
    fn mixed_hosts_and_duplicate_names_are_rejected() {
        let err = RequestSet::compile(&[spec("http://127.0.0.1:1/a"), spec("http://127.0.0.1:2/a")]).unwrap_err();
        assert!(err.to_string().contains("one scheme, host and port"));
        let err = RequestSet::compile(&[spec("http://127.0.0.1:1/a"), spec("https://127.0.0.1:1/b")]).unwrap_err();
        assert!(err.to_string().contains("'https://127.0.0.1:1' differs from 'http://127.0.0.1:1'"), "{err}");
        let err = RequestSet::compile(&[spec("http://127.0.0.1:1/a"), spec("http://127.0.0.1:1/a?x")]).unwrap_err();
        assert!(err.to_string().contains("named 'GET /a'"), "{err}");
    }
}
