//! Unit tests of the conversion from user input to a checked [`LoadSpec`] and of its errors.

use super::*;

fn url_input() -> LoadInput {
    LoadInput {
        url: Some("http://127.0.0.1:{port}/get?k={rand:1..9}".to_string()),
        duration: Some(Duration::from_secs(3)),
        ..LoadInput::default()
    }
}

fn error_of(input: LoadInput) -> String {
    input.into_spec().unwrap_err().to_string()
}

#[test]
fn a_url_becomes_one_get_request_with_the_defaults() {
    let spec = url_input().into_spec().unwrap();
    assert_eq!(spec.requests.len(), 1);
    assert_eq!(spec.requests[0].method, "GET");
    assert_eq!(spec.requests[0].weight, 1);
    assert_eq!(spec.requests[0].url, "http://127.0.0.1:{port}/get?k={rand:1..9}", "the port is filled in later");
    assert_eq!(spec.connections, DEFAULT_CONNECTIONS);
    assert_eq!(spec.threads, cores());
    assert_eq!(spec.timeout, DEFAULT_TIMEOUT);
    assert_eq!(spec.stop, StopCondition { requests: None, duration: Some(Duration::from_secs(3)) });
    assert_eq!(spec.rate, None);
    assert_eq!(spec.ok_status, OkStatus::default());
}

#[test]
fn given_settings_are_kept_as_given() {
    let input = LoadInput {
        method: Some("PUT".to_string()),
        headers: vec!["X-A: {port}".to_string()],
        body: Some("v".to_string()),
        connections: Some(7),
        threads: Some(3),
        requests: Some(100),
        rate: Some(250.0),
        timeout: Some(Duration::from_millis(300)),
        ..url_input()
    };
    let spec = input.into_spec().unwrap();
    assert_eq!((spec.connections, spec.threads, spec.rate), (7, 3, Some(250.0)));
    assert_eq!(spec.stop, StopCondition { requests: Some(100), duration: Some(Duration::from_secs(3)) });
    assert_eq!(spec.timeout, Duration::from_millis(300));
    assert_eq!(spec.requests[0].method, "PUT");
    assert_eq!(spec.requests[0].body.as_deref(), Some("v"));
}

#[test]
fn the_port_is_filled_in_url_headers_and_body() {
    let input =
        LoadInput { headers: vec!["X-Port: {port}".to_string()], body: Some("p={port}".to_string()), ..url_input() };
    let spec = input.into_spec().unwrap().with_target("127.0.0.1", 8088);
    let request = &spec.requests[0];
    assert_eq!(request.url, "http://127.0.0.1:8088/get?k={rand:1..9}");
    assert_eq!(request.headers, ["X-Port: 8088"]);
    assert_eq!(request.body.as_deref(), Some("p=8088"));
    assert_eq!(fill_port("{port}:{port}", "1"), "1:1");
}

#[test]
fn url_and_mix_together_or_neither_are_refused() {
    let both = LoadInput { mix: Some("m.toml".into()), ..url_input() };
    assert_eq!(error_of(both), "give url or mix, not both");
    let neither = LoadInput { url: None, ..url_input() };
    assert_eq!(error_of(neither), "nothing to send: give url or mix");
}

#[test]
fn request_settings_beside_a_mix_are_refused_by_name() {
    let input = LoadInput {
        url: None,
        mix: Some("m.toml".into()),
        method: Some("POST".to_string()),
        headers: vec!["A: b".to_string()],
        ..url_input()
    };
    let err = input.into_spec().unwrap_err();
    assert!(matches!(&err, LoadError::NotWithMix(settings) if settings == &[Setting::Method, Setting::Headers]));
    assert_eq!(
        err.to_string(),
        "method and headers do not apply with mix: each [[request]] in the mix file sets its own"
    );
    let raw_body = LoadInput { url: None, mix: Some("m.toml".into()), raw_body: Some(vec![1]), ..url_input() };
    assert_eq!(error_of(raw_body), "body does not apply with mix: each [[request]] in the mix file sets its own");
}

#[test]
fn a_mix_file_gives_its_requests() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.toml");
    std::fs::write(&path, "[[request]]\nurl = \"http://127.0.0.1:{port}/a\"\nweight = 3\n").unwrap();
    let spec = LoadInput { url: None, mix: Some(path), ..url_input() }.into_spec().unwrap();
    assert_eq!(spec.requests.len(), 1);
    assert_eq!(spec.requests[0].weight, 3);
    let missing = LoadInput { url: None, mix: Some(dir.path().join("none.toml")), ..url_input() };
    let err = missing.into_spec().unwrap_err();
    assert_eq!(err.setting(), Some(Setting::Mix));
    assert!(err.to_string().starts_with("cannot read mix file "), "{err}");
}

#[test]
fn each_zero_limit_is_named() {
    let cases = [
        (LoadInput { connections: Some(0), ..url_input() }, "connections must be at least 1"),
        (LoadInput { threads: Some(0), ..url_input() }, "threads must be at least 1"),
        (LoadInput { requests: Some(0), ..url_input() }, "requests must be at least 1"),
        (LoadInput { duration: Some(Duration::ZERO), ..url_input() }, "duration must be longer than 0s"),
        (LoadInput { timeout: Some(Duration::ZERO), ..url_input() }, "timeout must be longer than 0s"),
    ];
    for (input, message) in cases {
        assert_eq!(error_of(input), message);
    }
}

#[test]
fn a_rate_must_be_a_positive_finite_number() {
    for rate in [0.0, -5.0, f64::NAN, f64::INFINITY] {
        let err = LoadInput { rate: Some(rate), ..url_input() }.into_spec().unwrap_err();
        assert_eq!(err.setting(), Some(Setting::Rate));
        assert!(err.to_string().starts_with("rate must be a positive number of requests per second"), "{err}");
    }
}

#[test]
fn a_run_without_requests_or_duration_is_unbounded() {
    let err = LoadInput { duration: None, ..url_input() }.into_spec().unwrap_err();
    assert!(matches!(err, LoadError::Unbounded));
    assert_eq!(err.to_string(), "neither requests nor duration is set; give one (or both) to bound the run");
}

#[test]
fn a_bad_url_is_refused_before_the_port_is_known() {
    let err = LoadInput { url: Some("ftp://127.0.0.1:{port}/".to_string()), ..url_input() }.into_spec().unwrap_err();
    assert!(matches!(err, LoadError::Request(_)));
    assert!(err.to_string().contains("unsupported scheme"), "{err}");
    let bad_template = LoadInput { url: Some("http://127.0.0.1:{port}/?k={rand:9..1}".to_string()), ..url_input() };
    assert!(matches!(bad_template.into_spec().unwrap_err(), LoadError::Request(_)));
}

#[test]
fn a_front_end_names_settings_its_own_way() {
    let flag = |setting: Setting| match setting {
        Setting::Connections => "-c/--connections",
        other => other.key(),
    };
    assert_eq!(LoadError::Zero(Setting::Connections).describe(flag), "-c/--connections must be at least 1");
}

fn spec_of(connections: usize, threads: usize, requests: Option<u64>, rate: Option<f64>) -> LoadSpec {
    LoadInput { connections: Some(connections), threads: Some(threads), requests, rate, ..url_input() }
        .into_spec()
        .unwrap()
}

#[test]
fn a_shared_load_splits_rate_connections_threads_and_requests_and_keeps_the_duration() {
    let whole = spec_of(10, 4, Some(1_001), Some(900.0));
    let shares: Vec<LoadSpec> = (0..3).map(|index| whole.share(3, index).unwrap()).collect();
    let figures: Vec<_> =
        shares.iter().map(|part| (part.connections, part.threads, part.stop.requests, part.rate)).collect();
    assert_eq!(
        figures,
        [(4, 2, Some(334), Some(300.0)), (3, 1, Some(334), Some(300.0)), (3, 1, Some(333), Some(300.0))]
    );
    assert!(shares.iter().all(|part| part.stop.duration == whole.stop.duration && part.requests == whole.requests));
    // Each a third of an interval after the one before: together one even schedule at 900/s.
    let phases: Vec<f64> = shares.iter().map(|part| part.schedule_phase).collect();
    assert_eq!(phases, [0.0, 1.0 / 3.0, 2.0 / 3.0]);
}

#[test]
fn every_generator_gets_at_least_one_thread() {
    let whole = spec_of(4, 1, None, None);
    let threads: Vec<usize> = (0..4).map(|index| whole.share(4, index).unwrap().threads).collect();
    assert_eq!(threads, [1, 1, 1, 1]);
    assert_eq!(whole.share(4, 3).unwrap().connections, 1);
}

#[test]
fn fewer_connections_or_requests_than_generators_cannot_be_shared() {
    let few_connections = spec_of(2, 2, None, None).share(3, 0).unwrap_err();
    assert_eq!(
        few_connections.to_string(),
        "connections = 2 cannot be shared by 3 load generators: give at least one per generator"
    );
    assert_eq!(few_connections.setting(), Some(Setting::Connections));
    let few_requests = spec_of(8, 2, Some(2), None).share(3, 0).unwrap_err();
    assert_eq!(few_requests.setting(), Some(Setting::Requests));
}
