//! A real nginx on 127.0.0.1 for tests: the caller gives the inside of the `http {}` block (it learns the port and
//! the scratch folder first), this starts `/usr/sbin/nginx` in the foreground with everything it writes (pid, logs,
//! temp paths) in the scratch folder, waits until it accepts connections, and kills it when dropped. Every request
//! is logged to `access.log` in the format `plain` (`METHOD URI STATUS PROTOCOL`), readable with `access_log_lines`.

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

const NGINX: &str = "/usr/sbin/nginx";
/// How long nginx gets to start accepting.
const READY_WITHIN: Duration = Duration::from_secs(10);

/// A running nginx; killed when dropped.
pub struct Nginx {
    pub port: u16,
    folder: tempfile::TempDir,
    child: Child,
}

impl Nginx {
    /// Start nginx with `http_block(port, folder)` inside its `http {}` block: the caller's `server` blocks listen on
    /// `127.0.0.1:{port}` and keep their files under `folder`. Panics (never skips) when nginx is missing or does not
    /// come up, with its error log.
    pub fn start(http_block: impl FnOnce(u16, &Path) -> String) -> Nginx {
        assert!(
            Path::new(NGINX).exists(),
            "{NGINX} not found: these tests run a real nginx; install it with `apt-get install -y nginx-light`"
        );
        let folder = tempfile::Builder::new().prefix("jload-nginx-").tempdir().expect("a scratch folder for nginx");
        let port = free_port();
        let dir = folder.path();
        let config = format!(
            "daemon off;\n\
             master_process off;\n\
             worker_processes 1;\n\
             pid {dir}/nginx.pid;\n\
             error_log {dir}/error.log info;\n\
             events {{ worker_connections 1024; }}\n\
             http {{\n\
             log_format plain '$request_method $uri $status $server_protocol';\n\
             access_log {dir}/access.log plain;\n\
             client_body_temp_path {dir}/client_body;\n\
             proxy_temp_path {dir}/proxy;\n\
             fastcgi_temp_path {dir}/fastcgi;\n\
             uwsgi_temp_path {dir}/uwsgi;\n\
             scgi_temp_path {dir}/scgi;\n\
             {block}\n\
             }}\n",
            dir = dir.display(),
            block = http_block(port, dir),
        );
        let config_path = dir.join("nginx.conf");
        std::fs::write(&config_path, config).expect("write nginx.conf");
        let child = Command::new(NGINX)
            .arg("-p")
            .arg(dir)
            .arg("-e")
            .arg(dir.join("error.log"))
            .arg("-c")
            .arg(&config_path)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|err| panic!("start {NGINX}: {err}"));
        let mut nginx = Nginx { port, folder, child };
        nginx.wait_until_accepting();
        nginx
    }

    pub fn addr(&self) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], self.port))
    }

    /// The scratch folder holding the configuration, logs and whatever the caller serves or receives.
    pub fn folder(&self) -> &Path {
        self.folder.path()
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.folder.path().join(name)
    }

    /// The access log's lines so far (`METHOD URI STATUS PROTOCOL`).
    pub fn access_log_lines(&self) -> Vec<String> {
        let text = std::fs::read_to_string(self.path("access.log")).unwrap_or_default();
        text.lines().map(str::to_string).collect()
    }

    /// The access log's lines once it has at least `count` (nginx writes a line when it closes the stream, which
    /// may be just after the client read the response), or after two seconds whatever it has.
    pub fn access_log_lines_once(&self, count: usize) -> Vec<String> {
        let deadline = Instant::now() + Duration::from_secs(2);
        loop {
            let lines = self.access_log_lines();
            if lines.len() >= count || Instant::now() > deadline {
                return lines;
            }
            thread::sleep(Duration::from_millis(10));
        }
    }

    pub fn error_log(&self) -> String {
        std::fs::read_to_string(self.path("error.log")).unwrap_or_default()
    }

    fn wait_until_accepting(&mut self) {
        let deadline = Instant::now() + READY_WITHIN;
        loop {
            if let Some(status) = self.child.try_wait().expect("nginx's status") {
                panic!("nginx exited ({status}) before accepting:\n{}", self.error_log());
            }
            if TcpStream::connect_timeout(&self.addr(), Duration::from_millis(200)).is_ok() {
                return;
            }
            assert!(Instant::now() < deadline, "nginx did not accept within {READY_WITHIN:?}:\n{}", self.error_log());
            thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A port free on 127.0.0.1 a moment ago (the kernel's choice for a listener that is closed again at once).
fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
    listener.local_addr().expect("the listener's address").port()
}
