//! A server that runs the target: reached over ssh, with this build of jload on it, its address for URLs, and a
//! scratch folder of the sweep where each cell-repeat's files are written before they are fetched home.

use std::path::Path;
use std::time::Duration;

use anyhow::Context;

use super::install::ensure_jload;
use super::messages::{BoxedPreflight, silence_limit};
use super::ssh::{Ssh, quote_words};
use crate::cgroup::Limits;
use crate::cpuset::CpuSet;
use crate::plan::jdks::Jdk;
use crate::plan::preflight::{self, Preflight};
use crate::results::Env;

pub struct RemoteServer {
    pub ssh: Ssh,
    /// This build of jload there.
    pub jload: String,
    /// The address URLs name it by (`{host}`).
    pub address: String,
    /// The sweep's scratch folder there.
    work_root: String,
    /// How long the agents there wait without a word from jload before they stop the target (`JLOAD_SILENCE_LIMIT`).
    pub silence_limit: Duration,
}

impl RemoteServer {
    /// Log in, copy jload there if needed, and make the sweep's scratch folder.
    pub fn connect(destination: &str) -> anyhow::Result<RemoteServer> {
        let silence_limit = silence_limit()?;
        let ssh = Ssh::new(destination)?;
        ssh.check()?;
        let jload = ensure_jload(&ssh)?;
        let address = ssh.address()?;
        let work_root = ssh.run("mktemp -d \"${TMPDIR:-/tmp}/jload-target-XXXXXX\"")?.trim().to_string();
        Ok(RemoteServer { ssh, jload, address, work_root, silence_limit })
    }

    pub fn destination(&self) -> &str {
        self.ssh.destination()
    }

    /// The sweep's scratch folder there: a results directory's layout, for the files of cell-repeats running there.
    pub fn work_root(&self) -> &str {
        &self.work_root
    }

    /// A port free there a moment ago.
    pub fn free_port(&self) -> anyhow::Result<u16> {
        let answer = self.ssh.run(&format!("{} agent port", shell_words::quote(&self.jload)))?;
        answer.trim().parse().with_context(|| format!("jload agent port on {} said {answer:?}", self.destination()))
    }

    /// The machine's facts read there (`jload agent env`), for env.json.
    pub fn environment(&self) -> anyhow::Result<Env> {
        let answer = self.ssh.run(&format!("{} agent env", shell_words::quote(&self.jload)))?;
        serde_json::from_str(&answer)
            .with_context(|| format!("jload agent env on {} printed {answer:?}", self.destination()))
    }

    /// Remove the cgroup boxes a killed jload left there, and check a box (with a CPU quota: `quota`) can be made
    /// there (`jload agent boxes`); else why not, in one line.
    pub fn check_boxes(&self, quota: bool) -> anyhow::Result<()> {
        let flag = if quota { " --quota" } else { "" };
        let answer = self.ssh.run(&format!("{} agent boxes{flag}", shell_words::quote(&self.jload)))?;
        match answer.trim() {
            "ok" => Ok(()),
            why => anyhow::bail!("{}: {why}", self.destination()),
        }
    }

    /// The JDKs installed there (`jload jdks --json`).
    pub fn jdks(&self) -> anyhow::Result<Vec<Jdk>> {
        let answer = self.ssh.run(&format!("{} jdks --json || true", shell_words::quote(&self.jload)))?;
        serde_json::from_str(&answer)
            .with_context(|| format!("jload jdks on {} printed {answer:?}", self.destination()))
    }

    /// Preflight the options with the JDK there, pinned to `cpus` as the target will be (taskset) and in a cgroup box
    /// with `limits` when it has one (`jload agent preflight`), writing into `scratch` (made there first).
    pub fn preflight(
        &self,
        java: &Path,
        options: &[String],
        cpus: Option<&CpuSet>,
        limits: &Limits,
        scratch: &Path,
    ) -> Preflight {
        if *limits != Limits::default() {
            return self.preflight_boxed(BoxedPreflight {
                java: java.to_path_buf(),
                options: options.to_vec(),
                cpus: cpus.cloned(),
                limits: *limits,
                scratch: scratch.to_path_buf(),
            });
        }
        let java = java.display().to_string();
        let mut words = match cpus {
            Some(cpus) => vec!["taskset".to_string(), "-c".to_string(), cpus.to_string()],
            None => Vec::new(),
        };
        words.push(java.clone());
        words.extend(options.iter().cloned());
        words.extend(["-XX:+PrintFlagsFinal".to_string(), "-version".to_string()]);
        let script =
            format!("mkdir -p {} && {}", shell_words::quote(&scratch.display().to_string()), quote_words(&words));
        match self.ssh.command(&script).output() {
            Ok(output) => preflight::judge(&output),
            Err(err) => Preflight::Invalid(format!("cannot run {java} on {}: {err}", self.destination())),
        }
    }

    fn preflight_boxed(&self, job: BoxedPreflight) -> Preflight {
        let script = format!("{} agent preflight", shell_words::quote(&self.jload));
        let answer = serde_json::to_vec(&job)
            .map_err(anyhow::Error::from)
            .and_then(|input| self.ssh.run_with_input(&script, &input));
        match answer {
            Ok(answer) => serde_json::from_str(&answer).unwrap_or_else(|err| {
                Preflight::Invalid(format!("jload agent preflight on {} printed {answer:?}: {err}", self.destination()))
            }),
            Err(err) => Preflight::Invalid(format!("preflight on {}: {err:#}", self.destination())),
        }
    }

    /// Run the plan's build step there, in `workdir`.
    pub fn build(&self, build: &str, workdir: &Path) -> anyhow::Result<()> {
        let script =
            format!("cd {} && sh -c {}", shell_words::quote(&workdir.display().to_string()), shell_words::quote(build));
        self.ssh.run(&script).map(|_| ())
    }

    /// Copy the folder `remote` there into `local`, then remove it there.
    pub fn fetch(&self, remote: &str, local: &Path) -> anyhow::Result<()> {
        self.ssh.fetch_dir(remote, local)
    }

    pub fn remove(&self, remote: &str) {
        let _ = self.ssh.run(&format!("rm -rf {}", shell_words::quote(remote)));
    }
}

impl Drop for RemoteServer {
    fn drop(&mut self) {
        let script = format!("rm -rf {}", shell_words::quote(&self.work_root));
        let mut command = self.ssh.command(&script);
        if let Ok(mut child) = command.stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null()).spawn() {
            let deadline = std::time::Instant::now() + Duration::from_secs(5);
            while std::time::Instant::now() < deadline {
                if let Ok(Some(_)) = child.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
