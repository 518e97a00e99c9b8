//! kv-service serving TLS with HTTP/2 (kv.tls.cert, kv.tls.key, kv.http2) under load over those protocols: a plan
//! comparing them on one JVM configuration — one phase over HTTPS with HTTP/1.1, one over HTTPS with HTTP/2 and
//! several streams, each phase's record saying what was negotiated, the certificate checked against the test's CA —
//! and `jload bench --http2 --jvm auto --hlog` watching the JVM behind an https:// URL.

use crate::common;

use common::kv_plan::kv_plan;
use common::machine;
use common::pki::Pki;
use common::{bench_json, jload, json, start_kv_service, tempdir};

#[test]
fn one_plan_loads_the_same_jvm_over_https_with_http1_and_with_http2() {
    let _machine = machine::shared();
    let dir = tempdir();
    let pki = Pki::create(&dir);
    let phases = "[[phase]]\n\
         name = \"fill\"\nmeasure = false\n\
         url = \"https://localhost:{port}/random_set?keyRange=2000&valueSize=100\"\n\
         cacert = \"ca.pem\"\nconnections = 4\nrequests = 2000\n\
         [[phase]]\n\
         name = \"get-h1\"\n\
         url = \"https://localhost:{port}/random_get?keyRange=2000\"\n\
         cacert = \"ca.pem\"\ncert = \"client.pem\"\nkey = \"client.key\"\n\
         ok_status = \"200-299,404\"\nconnections = 4\nrequests = 3000\n\
         [[phase]]\n\
         name = \"get-h2\"\n\
         url = \"https://localhost:{port}/random_get?keyRange=2000\"\n\
         cacert = \"ca.pem\"\nok_status = \"200-299,404\"\nhttp = \"2\"\nstreams = 4\nconnections = 1\nrequests = 3000\n";
    let (cert, key) =
        (format!("-Dkv.tls.cert={}", pki.path("server.pem")), format!("-Dkv.tls.key={}", pki.path("server.key")));
    let plan = kv_plan("protocols")
        .ready("https://localhost:{port}/health")
        .jvm(&["-Xmx128m", &cert, &key, "-Dkv.http2=true"])
        .body(phases)
        .write(&dir);
    let out = dir.join("results");
    let (output, _) = jload(&["run", plan.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let rep = out.join("cells").read_dir().unwrap().next().unwrap().unwrap().path().join("rep-1");
    for (phase, alpn, connections) in [("get-h1", "http/1.1", 4), ("get-h2", "h2", 1)] {
        let record = json(&rep.join(format!("{phase}.json")));
        assert_eq!(record["requests"], 3000, "{phase}: {record}");
        assert_eq!(record["errors"]["total"], 0, "{phase}: a missing key's 404 is no error");
        assert!(record["status_codes"]["200"].as_u64().unwrap() > 1000, "{phase}: most keys were filled");
        assert_eq!(record["connection_setup"]["tls"]["alpn"], alpn, "{phase}");
        assert_eq!(record["connection_setup"]["connections"], connections, "{phase}");
    }
    // The client private key the plan names is read into the load spec, and no file of the results nor any line
    // jload printed shows it.
    let key_body = std::fs::read_to_string(pki.path("client.key")).unwrap();
    let key_line = key_body.lines().nth(1).expect("a PEM body line");
    assert!(!String::from_utf8_lossy(&output.stdout).contains(key_line), "stdout shows the private key");
    assert!(!String::from_utf8_lossy(&output.stderr).contains(key_line), "stderr shows the private key");
    for file in files_under(&out) {
        let bytes = std::fs::read(&file).unwrap();
        assert!(!String::from_utf8_lossy(&bytes).contains(key_line), "{} holds the private key", file.display());
    }
}

/// Every file under `dir`, at any depth.
fn files_under(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() { files.extend(files_under(&path)) } else { files.push(path) }
    }
    files
}

#[test]
fn bench_watches_the_jvm_behind_an_https_url_while_loading_it_over_http2() {
    let _machine = machine::shared();
    let dir = tempdir();
    let pki = Pki::create(&dir);
    let (service, port) = start_kv_service(&[
        "-Xmx64m".to_string(),
        format!("-Dkv.tls.cert={}", pki.path("server.pem")),
        format!("-Dkv.tls.key={}", pki.path("server.key")),
        "-Dkv.http2=true".to_string(),
    ]);
    let hlog = dir.join("run.hlog");
    let url = format!("https://localhost:{port}/random_set?keyRange=2000&valueSize=200");
    let (ca, hlog_path) = (pki.path("ca.pem"), hlog.display().to_string());
    let (code, result, _) = bench_json(&[
        "-d",
        "3s",
        "-c",
        "2",
        "--streams",
        "4",
        "--http2",
        "--cacert",
        &ca,
        "--jvm",
        "auto",
        "--hlog",
        &hlog_path,
        &url,
    ]);
    assert_eq!(code, 0, "{result}");
    assert_eq!(result["connection_setup"]["tls"]["alpn"], "h2");
    assert_eq!((result["connections"].as_u64(), result["streams"].as_u64()), (Some(2), Some(4)));
    assert_eq!(result["errors"]["total"], 0);
    assert_eq!(result["jvm"]["pid"].as_u64(), Some(u64::from(service.0.id())), "auto found the JVM on the port");
    let intervals = std::fs::read_to_string(&hlog).unwrap().lines().filter(|line| line.contains("HISTFAAA")).count();
    assert_eq!(intervals, result["series"].as_array().unwrap().len(), "one interval per second of the series");
}
