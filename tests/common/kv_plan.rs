//! Plans against samples/kv-service, the JVM the run suites drive: one `[target]` that starts its jar and waits for its
//! health page, and what a test varies (where it runs, its JVM options, more `[target]` keys, the axes and phases,
//! `[run]` keys) given to a small builder.

use std::path::{Path, PathBuf};

/// A kv-service plan being put together; `text` is its TOML, `write` puts it in a folder.
pub struct KvPlan {
    name: String,
    servers: Option<String>,
    command: Option<String>,
    ready: Option<String>,
    port: String,
    heap_store: bool,
    client_compiler_only: bool,
    jvm: Vec<String>,
    target: String,
    body: String,
    run: String,
}

/// A plan named `name` against kv-service on this machine: `java {jvm} -jar <kv-service.jar>` on `{port}`, ready at
/// `http://127.0.0.1:{port}/health` within 60 s, stopped within 5 s, with `-Dkv.port={port} -Dkv.store=heap`, and no
/// cooldown between cell-repeats. Its JVM compiles with C1 only (`-XX:TieredStopAtLevel=1`): these plans test what a
/// sweep records, not how fast C2 makes the service, and C2's compiler threads took half of each short cell's CPU.
pub fn kv_plan(name: &str) -> KvPlan {
    KvPlan {
        name: name.to_string(),
        servers: None,
        command: None,
        ready: None,
        port: "{port}".to_string(),
        heap_store: true,
        client_compiler_only: true,
        jvm: Vec::new(),
        target: String::new(),
        body: String::new(),
        run: String::new(),
    }
}

impl KvPlan {
    /// On the server this `[target]` line names (`host = "…"`, or `hosts = […]` for several): ready at
    /// `http://{host}:<port>/health`, listening on `{host}` (`-Dkv.bind={host}`).
    pub fn on(mut self, servers_line: &str) -> KvPlan {
        self.servers = Some(servers_line.to_string());
        self
    }

    /// Started by `command` (with `{jvm}` where the JVM options go) instead of `java {jvm} -jar <kv-service.jar>`.
    pub fn command(mut self, command: &str) -> KvPlan {
        self.command = Some(command.to_string());
        self
    }

    /// Ready at `url` instead of the health page.
    pub fn ready(mut self, url: &str) -> KvPlan {
        self.ready = Some(url.to_string());
        self
    }

    /// On `port` (a number) instead of the `{port}` the runner picks.
    pub fn port(mut self, port: &str) -> KvPlan {
        self.port = port.to_string();
        self
    }

    /// With kv-service's own default store instead of `-Dkv.store=heap`.
    pub fn default_store(mut self) -> KvPlan {
        self.heap_store = false;
        self
    }

    /// With both JIT compilers, as a user's JVM starts (no `-XX:TieredStopAtLevel=1`).
    pub fn full_jit(mut self) -> KvPlan {
        self.client_compiler_only = false;
        self
    }

    /// With these JVM options after the plan's.
    pub fn jvm(mut self, options: &[&str]) -> KvPlan {
        self.jvm.extend(options.iter().map(|option| option.to_string()));
        self
    }

    /// With these lines in `[target]` too.
    pub fn target(mut self, lines: &str) -> KvPlan {
        self.target.push_str(lines);
        self
    }

    /// With these tables (axes, phases, `[load]`) after `[target]`, after those given before.
    pub fn body(mut self, toml: &str) -> KvPlan {
        self.body.push_str(toml);
        self
    }

    /// With these keys in `[run]` (and the tables after it, such as `[slo]`).
    pub fn run(mut self, toml: &str) -> KvPlan {
        self.run.push_str(toml);
        self
    }

    /// The plan's TOML.
    pub fn text(&self) -> String {
        let port = &self.port;
        let host = if self.servers.is_some() { "{host}" } else { "127.0.0.1" };
        let mut jvm = Vec::new();
        if self.client_compiler_only {
            jvm.push("-XX:TieredStopAtLevel=1".to_string());
        }
        if self.servers.is_some() {
            jvm.push("-Dkv.bind={host}".to_string());
        }
        jvm.push(format!("-Dkv.port={port}"));
        if self.heap_store {
            jvm.push("-Dkv.store=heap".to_string());
        }
        jvm.extend(self.jvm.iter().cloned());
        let jvm: Vec<String> = jvm.iter().map(|option| format!("\"{option}\"")).collect();
        let command =
            self.command.clone().unwrap_or_else(|| format!("java {{jvm}} -jar {}", super::kv_jar().display()));
        let ready = self.ready.clone().unwrap_or_else(|| format!("http://{host}:{port}/health"));
        let servers = self.servers.as_ref().map(|line| format!("{line}\n")).unwrap_or_default();
        format!(
            "name = \"{name}\"\n[target]\n{servers}command = \"{command}\"\nready = \"{ready}\"\n\
             startup_timeout = \"60s\"\nstop_timeout = \"5s\"\njvm = [{jvm}]\n{target}\n{body}\n\
             [run]\ncooldown = \"0s\"\n{run}\n",
            name = self.name,
            jvm = jvm.join(", "),
            target = self.target,
            body = self.body,
            run = self.run,
        )
    }

    /// Writes the plan to `dir/<name>.toml` and returns that path.
    pub fn write(&self, dir: &Path) -> PathBuf {
        let path = dir.join(format!("{}.toml", self.name));
        std::fs::write(&path, self.text()).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
        path
    }
}
