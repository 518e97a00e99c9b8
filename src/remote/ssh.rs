//! OpenSSH as jload's remote-execution engine: the user's `ssh` (or `JLOAD_SSH_COMMAND`, as git's `GIT_SSH_COMMAND`)
//! with their config and keys, one master connection per host reused by every command (`ControlMaster`), keep-alives
//! that notice a dead link within seconds, and no password prompt (`BatchMode`). Runs a script, streams a process,
//! copies a file there and fetches a folder back.

use std::io::Write;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::sync::Arc;

use anyhow::{Context, bail};

/// The environment variable that replaces `ssh` (words split like a shell's), e.g. `ssh -F ~/lab/ssh_config`.
pub const SSH_COMMAND_VARIABLE: &str = "JLOAD_SSH_COMMAND";
/// Seconds between keep-alives, and how many may go unanswered before ssh gives the connection up.
const ALIVE_INTERVAL_S: u32 = 1;
const ALIVE_COUNT_MAX: u32 = 4;

/// One remote host reached over ssh.
#[derive(Clone)]
pub struct Ssh {
    destination: String,
    /// The ssh program and its own options, before jload's.
    program: Vec<String>,
    /// Folder of the master connection's socket: short (a unix socket path has ~100 bytes), private, removed at the end.
    control_dir: Arc<tempfile::TempDir>,
}

impl Ssh {
    /// A host by ssh destination (`user@host` or a config alias). Nothing is connected yet.
    pub fn new(destination: &str) -> anyhow::Result<Ssh> {
        let program = match std::env::var(SSH_COMMAND_VARIABLE) {
            Ok(words) if !words.trim().is_empty() => {
                shell_words::split(&words).map_err(|err| anyhow::anyhow!("{SSH_COMMAND_VARIABLE} '{words}': {err}"))?
            }
            _ => vec!["ssh".to_string()],
        };
        let control_dir = tempfile::Builder::new().prefix("jload-ssh-").tempdir_in("/tmp")?;
        Ok(Ssh { destination: destination.to_string(), program, control_dir: Arc::new(control_dir) })
    }

    pub fn destination(&self) -> &str {
        &self.destination
    }

    /// `ssh [options] destination -- script`: the script runs in the remote user's shell.
    pub fn command(&self, script: &str) -> Command {
        let mut command = self.base();
        command.arg(&self.destination).arg("--").arg(script);
        command
    }

    fn base(&self) -> Command {
        let mut command = Command::new(&self.program[0]);
        command.args(&self.program[1..]).args([
            "-o",
            "BatchMode=yes",
            "-o",
            "ControlMaster=auto",
            "-o",
            &format!("ControlPath={}/%C", self.control_dir.path().display()),
            "-o",
            "ControlPersist=60",
            "-o",
            &format!("ServerAliveInterval={ALIVE_INTERVAL_S}"),
            "-o",
            &format!("ServerAliveCountMax={ALIVE_COUNT_MAX}"),
            "-o",
            "ConnectTimeout=10",
        ]);
        command.stdin(Stdio::null());
        command
    }

    /// Run `script` there; its standard output. A failure names the host, the script and what it said.
    pub fn run(&self, script: &str) -> anyhow::Result<String> {
        let output = self.command(script).output().with_context(|| self.cannot_run())?;
        self.checked(script, output)
    }

    /// Run `script` there with `input` on its standard input.
    pub fn run_with_input(&self, script: &str, input: &[u8]) -> anyhow::Result<String> {
        let mut child = self
            .command(script)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .with_context(|| self.cannot_run())?;
        let mut stdin = child.stdin.take().expect("piped stdin");
        let written = stdin.write_all(input);
        drop(stdin);
        let output = child.wait_with_output()?;
        let text = self.checked(script, output)?;
        written.with_context(|| format!("ssh {}: cannot send input to `{script}`", self.destination))?;
        Ok(text)
    }

    /// Start `script` there with its standard input and output piped to this process (stderr too).
    pub fn spawn(&self, script: &str) -> anyhow::Result<Child> {
        self.command(script)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .with_context(|| self.cannot_run())
    }

    /// Whether the host answers, with the fix when it does not (ssh asks nothing: keys or an agent must do).
    pub fn check(&self) -> anyhow::Result<()> {
        self.run("true").map(|_| ()).map_err(|err| {
            anyhow::anyhow!(
                "{err:#}; jload logs in without prompts: check that `ssh {}` works without a password (a key in \
                 ~/.ssh or an agent; {SSH_COMMAND_VARIABLE} sets another ssh command)",
                self.destination
            )
        })
    }

    /// The address ssh connects to (`ssh -G`: the config's HostName for an alias), as URLs should name the host.
    pub fn address(&self) -> anyhow::Result<String> {
        let output = self.base().arg("-G").arg(&self.destination).output().with_context(|| self.cannot_run())?;
        let text = self.checked("ssh -G", output)?;
        text.lines()
            .find_map(|line| line.strip_prefix("hostname "))
            .map(|host| host.trim().to_string())
            .ok_or_else(|| anyhow::anyhow!("ssh -G {} printed no hostname", self.destination))
    }

    /// Copy the local file `local` to `remote` there (created atomically, mode 755 when `executable`).
    pub fn upload(&self, local: &Path, remote: &str, executable: bool) -> anyhow::Result<()> {
        let bytes = std::fs::read(local).with_context(|| format!("cannot read {}", local.display()))?;
        let target = shell_words::quote(remote);
        let mode = if executable { "755" } else { "644" };
        let script = format!(
            "mkdir -p \"$(dirname {target})\" && cat > {target}.part.$$ && chmod {mode} {target}.part.$$ && \
             mv -f {target}.part.$$ {target}"
        );
        self.run_with_input(&script, &bytes).map(|_| ())
    }

    /// Copy the remote folder `remote` into the local folder `local` (tar over the connection).
    pub fn fetch_dir(&self, remote: &str, local: &Path) -> anyhow::Result<()> {
        std::fs::create_dir_all(local)?;
        let script = format!("tar -C {} -cf - .", shell_words::quote(remote));
        let mut ssh = self.command(&script).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn()?;
        let unpacked = Command::new("tar")
            .arg("-C")
            .arg(local)
            .arg("-xf")
            .arg("-")
            .stdin(ssh.stdout.take().expect("piped stdout"))
            .stderr(Stdio::piped())
            .output()
            .context("cannot run tar to unpack what the host sent")?;
        let output = ssh.wait_with_output()?;
        self.checked(&script, output)?;
        if !unpacked.status.success() {
            let said = String::from_utf8_lossy(&unpacked.stderr);
            bail!("tar could not unpack {}:{remote} into {}: {}", self.destination, local.display(), said.trim());
        }
        Ok(())
    }

    fn cannot_run(&self) -> String {
        format!("cannot run {} for {}", self.program[0], self.destination)
    }

    fn checked(&self, script: &str, output: Output) -> anyhow::Result<String> {
        if output.status.success() {
            return Ok(String::from_utf8_lossy(&output.stdout).into_owned());
        }
        let stderr = String::from_utf8_lossy(&output.stderr);
        let said = stderr.lines().map(str::trim).rfind(|line| !line.is_empty()).unwrap_or("");
        let how = match output.status.code() {
            Some(255) => "ssh failed".to_string(),
            Some(code) => format!("exit {code}"),
            None => "killed".to_string(),
        };
        bail!(
            "ssh {}: `{}` failed ({how}){}",
            self.destination,
            short(script),
            if said.is_empty() { String::new() } else { format!(": {said}") }
        )
    }
}

impl Drop for Ssh {
    fn drop(&mut self) {
        // The last clone closes the master connection (its socket is in the folder about to go).
        if Arc::strong_count(&self.control_dir) == 1 {
            let _ = self
                .base()
                .args(["-O", "exit"])
                .arg(&self.destination)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
        }
    }
}

/// A script in an error message: its first line, at most 80 characters.
fn short(script: &str) -> String {
    let line = script.lines().next().unwrap_or("");
    if line.chars().count() > 80 {
        format!("{}…", line.chars().take(80).collect::<String>())
    } else {
        line.to_string()
    }
}

/// Words quoted for the remote shell, joined by spaces.
pub fn quote_words<S: AsRef<str>>(words: &[S]) -> String {
    words.iter().map(|word| shell_words::quote(word.as_ref()).into_owned()).collect::<Vec<_>>().join(" ")
}
