//! Test helpers: small real HTTP/1.1 servers on 127.0.0.1 with scripted behaviour, and running the jload binary.

pub mod cgroups;
pub mod jdks;
pub mod kv_plan;
pub mod machine;
pub mod nginx;
pub mod pki;
pub mod queued_server;
pub mod results_fixtures;
pub mod sshnet;

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread;
use std::time::{Duration, Instant};

/// What the server does with one request.
pub enum Reply {
    /// Send these bytes as the response.
    Bytes(Vec<u8>),
    /// Send nothing and keep the connection open (a stalled server).
    Stall,
    /// Close the connection with a TCP reset.
    Reset,
    /// Send these bytes, then close the connection without having announced it (no `Connection: close`), as
    /// HTTP/1.0-style servers, proxies and keep-alive limits do.
    BytesThenClose(Vec<u8>),
}

/// A request as the server saw it.
pub struct Seen {
    pub path: String,
    /// 0-based count of requests the server has seen before this one.
    pub index: u64,
    /// 0-based count of requests seen before this one on the same connection.
    pub on_connection: u64,
}

/// A running test server; it stops accepting when dropped.
pub struct TestServer {
    pub port: u16,
    pub requests: Arc<AtomicU64>,
    pub paths: Arc<Mutex<HashMap<String, u64>>>,
    stop: Arc<AtomicBool>,
}

impl TestServer {
    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    pub fn count_of(&self, path: &str) -> u64 {
        self.paths.lock().unwrap().get(path).copied().unwrap_or(0)
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

/// A plain `200 OK` response with a body.
pub fn ok(body: &str) -> Reply {
    status(200, body)
}

pub fn status(code: u16, body: &str) -> Reply {
    Reply::Bytes(format!("HTTP/1.1 {code} X\r\nContent-Length: {}\r\n\r\n{body}", body.len()).into_bytes())
}

/// Start a keep-alive server (one thread per connection) answering each request with `handler`.
pub fn serve<F>(handler: F) -> TestServer
where
    F: Fn(&Seen) -> Reply + Send + Sync + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let requests = Arc::new(AtomicU64::new(0));
    let paths = Arc::new(Mutex::new(HashMap::new()));
    let stop = Arc::new(AtomicBool::new(false));
    let handler = Arc::new(handler);
    let (requests_c, paths_c, stop_c) = (requests.clone(), paths.clone(), stop.clone());
    thread::spawn(move || {
        for stream in listener.incoming() {
            if stop_c.load(Ordering::SeqCst) {
                break;
            }
            let Ok(stream) = stream else { continue };
            let (handler, requests, paths, stop) =
                (handler.clone(), requests_c.clone(), paths_c.clone(), stop_c.clone());
            thread::spawn(move || connection(stream, &*handler, &requests, &paths, &stop));
        }
    });
    TestServer { port, requests, paths, stop }
}

fn connection(
    mut stream: TcpStream,
    handler: &(dyn Fn(&Seen) -> Reply + Send + Sync),
    requests: &AtomicU64,
    paths: &Mutex<HashMap<String, u64>>,
    stop: &AtomicBool,
) {
    let _ = stream.set_nodelay(true);
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 8192];
    let mut on_connection = 0;
    loop {
        // Parse a whole request (head plus Content-Length body) from what has arrived.
        let parsed = {
            let mut headers = [httparse::EMPTY_HEADER; 32];
            let mut request = httparse::Request::new(&mut headers);
            match request.parse(&buffer) {
                Ok(httparse::Status::Complete(head)) => {
                    let length: usize = request
                        .headers
                        .iter()
                        .find(|header| header.name.eq_ignore_ascii_case("content-length"))
                        .and_then(|header| std::str::from_utf8(header.value).ok()?.parse().ok())
                        .unwrap_or(0);
                    (buffer.len() >= head + length).then(|| (request.path.unwrap_or("/").to_string(), head + length))
                }
                Ok(httparse::Status::Partial) => None,
                Err(_) => return,
            }
        };
        let Some((path, used)) = parsed else {
            match stream.read(&mut chunk) {
                Ok(0) | Err(_) => return,
                Ok(count) => buffer.extend_from_slice(&chunk[..count]),
            }
            continue;
        };
        buffer.drain(..used);
        if stop.load(Ordering::SeqCst) {
            return;
        }
        let index = requests.fetch_add(1, Ordering::SeqCst);
        *paths.lock().unwrap().entry(path.clone()).or_insert(0) += 1;
        match handler(&Seen { path, index, on_connection }) {
            Reply::Bytes(bytes) => {
                if stream.write_all(&bytes).is_err() {
                    return;
                }
            }
            Reply::BytesThenClose(bytes) => {
                let _ = stream.write_all(&bytes);
                return;
            }
            Reply::Stall => {
                // Hold the connection open without answering until the client gives up.
                let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
                let _ = stream.read(&mut chunk);
                return;
            }
            Reply::Reset => {
                let _ = socket2_linger_zero(&stream);
                let _ = stream.shutdown(Shutdown::Both);
                return;
            }
        }
        on_connection += 1;
    }
}

/// A server that stops answering every connection at once for 200 ms every 2 s, like a stop-the-world pause: the
/// pauses start 0.9 s, 2.9 s and 4.9 s after its first request, so a 6 s run holds three whole ones.
pub fn pausing_server() -> TestServer {
    let first_request = Arc::new(OnceLock::<Instant>::new());
    serve(move |_| {
        let since_first = first_request.get_or_init(Instant::now).elapsed().as_millis() as u64;
        let in_period = since_first % 2000;
        if (900..1100).contains(&in_period) {
            thread::sleep(Duration::from_millis(1100 - in_period));
        }
        ok("x")
    })
}

/// Make the next close send a TCP RST (SO_LINGER with a zero timeout).
fn socket2_linger_zero(stream: &TcpStream) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let linger = libc::linger { l_onoff: 1, l_linger: 0 };
    // SAFETY: valid socket and a correctly sized option value.
    let rc = unsafe {
        libc::setsockopt(
            stream.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_LINGER,
            (&linger as *const libc::linger).cast(),
            std::mem::size_of::<libc::linger>() as libc::socklen_t,
        )
    };
    if rc == 0 { Ok(()) } else { Err(std::io::Error::last_os_error()) }
}

/// Run `jload` with these arguments; returns its output and how long it took.
pub fn jload(args: &[&str]) -> (Output, Duration) {
    let started = Instant::now();
    let output = Command::new(env!("CARGO_BIN_EXE_jload")).args(args).output().expect("jload runs");
    (output, started.elapsed())
}

/// Run `jload bench … --json FILE` and return the exit code and the parsed JSON.
pub fn bench_json(args: &[&str]) -> (i32, serde_json::Value, Duration) {
    let (code, result, _, elapsed) = bench_json_and_printout(args);
    (code, result, elapsed)
}

/// Run `jload bench … --json FILE` and return the exit code, the parsed JSON and the printout (stdout).
pub fn bench_json_and_printout(args: &[&str]) -> (i32, serde_json::Value, String, Duration) {
    let dir = tempdir();
    let json_path = dir.join("result.json");
    let mut all: Vec<&str> = vec!["bench", "-q", "--json", json_path.to_str().unwrap()];
    all.extend_from_slice(args);
    let (output, elapsed) = jload(&all);
    let code = output.status.code().unwrap_or(-1);
    let text = std::fs::read_to_string(&json_path).unwrap_or_else(|_| {
        panic!("no JSON written; exit {code}; stderr: {}", String::from_utf8_lossy(&output.stderr))
    });
    (code, serde_json::from_str(&text).unwrap(), String::from_utf8_lossy(&output.stdout).into_owned(), elapsed)
}

/// A fresh, empty temporary directory.
/// A scratch folder of one test (`/tmp/jload-test-…`), removed with everything in it when the test ends; it reads as
/// a `Path`.
pub struct TestDir(tempfile::TempDir);

impl std::ops::Deref for TestDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        self.0.path()
    }
}

impl AsRef<Path> for TestDir {
    fn as_ref(&self) -> &Path {
        self.0.path()
    }
}

pub fn tempdir() -> TestDir {
    TestDir(tempfile::Builder::new().prefix("jload-test-").tempdir().expect("a scratch folder in the temp directory"))
}

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Build kv-service once per test run (once in the test binary); the path of its jar.
pub fn kv_jar() -> &'static Path {
    static JAR: OnceLock<PathBuf> = OnceLock::new();
    JAR.get_or_init(|| {
        let jar = repo().join("samples/kv-service/target/kv-service.jar");
        // Maven takes 5–8 s to find an up-to-date jar up to date: it runs only when the jar is missing or older than
        // a file it is built from.
        if !jar_is_fresh(&jar, &repo().join("samples/kv-service")) {
            let status = Command::new("mvn")
                .args(["-q", "-f", "samples/kv-service", "package", "-DskipTests"])
                .current_dir(repo())
                .status()
                .expect("mvn runs");
            assert!(status.success(), "kv-service builds");
        }
        jar
    })
}

/// Whether `jar` exists and is newer than the project's `pom.xml` and every file under its `src/main`.
fn jar_is_fresh(jar: &Path, project: &Path) -> bool {
    fn newest(path: &Path) -> Option<std::time::SystemTime> {
        let meta = std::fs::metadata(path).ok()?;
        if !meta.is_dir() {
            return meta.modified().ok();
        }
        std::fs::read_dir(path).ok()?.flatten().filter_map(|entry| newest(&entry.path())).max()
    }
    let Some(built) = std::fs::metadata(jar).and_then(|meta| meta.modified()).ok() else { return false };
    [project.join("pom.xml"), project.join("src/main")]
        .iter()
        .all(|source| newest(source).is_some_and(|at| at <= built))
}

/// A kv-service JVM started by a test; killed when dropped.
pub struct KvService(pub std::process::Child);

impl Drop for KvService {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Start kv-service with these JVM options (and `-Dkv.port` on a free port) and wait until its port accepts.
pub fn start_kv_service(jvm_options: &[String]) -> (KvService, u16) {
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let child = Command::new("java")
        .args(jvm_options)
        .arg(format!("-Dkv.port={port}"))
        .arg("-jar")
        .arg(kv_jar())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let service = KvService(child);
    let deadline = Instant::now() + Duration::from_secs(30);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "kv-service did not start");
        thread::sleep(Duration::from_millis(100));
    }
    (service, port)
}

/// A JSON file, parsed (the path is named when it cannot be read).
pub fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap_or_else(|err| panic!("{}: {err}", path.display())))
        .unwrap()
}

/// Run `jload run PLAN --out OUT`, press Ctrl-C 1.5 s after `file` appears (within 90 s, else the test fails naming
/// `what` it waited for), and return jload's exit code.
pub fn interrupt_run_after(plan: &Path, out: &Path, file: &Path, what: &str) -> Option<i32> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_jload"))
        .args(["run", plan.to_str().unwrap(), "--out", out.to_str().unwrap()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(90);
    while !file.exists() {
        assert!(Instant::now() < deadline, "{what} never happened");
        thread::sleep(Duration::from_millis(100));
    }
    thread::sleep(Duration::from_millis(1500));
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    child.wait().unwrap().code()
}

/// Processes (the JVMs of a run) whose command line mentions `marker`.
pub fn jvms_with(marker: &str) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .map(|bytes| String::from_utf8_lossy(&bytes).contains(marker))
                .unwrap_or(false)
        })
        .collect()
}

/// The folder under `cells/` of a cell in a results directory, as its `run.json` records it.
pub fn folder_of(out: &Path, id: &str) -> String {
    let record = json(&out.join("run.json"));
    record["cells"][id].as_str().unwrap_or_else(|| panic!("{id} not in run.json: {record}")).to_string()
}

/// The `-Xlog` option the test JVMs write their GC log with: GC and safepoint lines decorated with the wall clock and
/// the uptime, as the runner writes a cell's gc.log (src/run/cell.rs).
pub fn gc_log_option(path: &Path) -> String {
    format!("-Xlog:gc*,safepoint:file={}:time,uptime,level,tags", path.display())
}

/// A phase record as summary.json repeats it: without its histograms (`histograms`, each series row's `histogram`),
/// which stay in the phase's own file.
pub fn without_histograms(record: &serde_json::Value) -> serde_json::Value {
    let mut record = record.clone();
    record.as_object_mut().expect("a record is an object").remove("histograms");
    for row in record["series"].as_array_mut().into_iter().flatten() {
        row.as_object_mut().expect("a series row is an object").remove("histogram");
    }
    record
}
