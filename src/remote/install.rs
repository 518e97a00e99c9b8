//! jload on the far side: the remote half of a remote target or load host is this very binary, copied to the host
//! when it has no copy of this build (`${XDG_CACHE_HOME:-~/.cache}/jload/bin/jload-<version>-<content hash>`).

use std::hash::Hasher;
use std::sync::OnceLock;

use anyhow::{Context, bail};

use super::ssh::Ssh;

/// Make sure the host has this build of jload; the path to run it by there.
pub fn ensure_jload(ssh: &Ssh) -> anyhow::Result<String> {
    let name = build_name()?;
    let script = format!(
        "arch=$(uname -m); d=\"${{XDG_CACHE_HOME:-$HOME/.cache}}/jload/bin\"; f=\"$d/{name}\"; \
         if [ -x \"$f\" ]; then echo \"present $arch $f\"; else echo \"missing $arch $f\"; fi"
    );
    let answer = ssh.run(&script)?;
    let mut words = answer.split_whitespace();
    let (Some(state), Some(arch), Some(path)) = (words.next(), words.next(), words.next()) else {
        bail!("ssh {}: unexpected answer while looking for jload: {answer:?}", ssh.destination());
    };
    if arch != std::env::consts::ARCH {
        bail!(
            "{} is {arch} and this jload is built for {}: build jload for {arch} there (cargo build --release) \
             and run the sweep from a machine of the same architecture",
            ssh.destination(),
            std::env::consts::ARCH
        );
    }
    if state == "missing" {
        let exe = std::env::current_exe().context("cannot find this jload's own binary")?;
        ssh.upload(&exe, path, true).with_context(|| format!("cannot copy jload to {}", ssh.destination()))?;
    }
    Ok(path.to_string())
}

/// `jload-<version>-<hash of this binary's bytes>`: two builds of one version are different copies.
fn build_name() -> anyhow::Result<String> {
    static NAME: OnceLock<String> = OnceLock::new();
    if let Some(name) = NAME.get() {
        return Ok(name.clone());
    }
    let exe = std::env::current_exe().context("cannot find this jload's own binary")?;
    let bytes = std::fs::read(&exe).with_context(|| format!("cannot read {}", exe.display()))?;
    let mut hasher = std::hash::DefaultHasher::new();
    hasher.write(&bytes);
    let name = format!("jload-{}-{:016x}", env!("CARGO_PKG_VERSION"), hasher.finish());
    Ok(NAME.get_or_init(|| name).clone())
}
