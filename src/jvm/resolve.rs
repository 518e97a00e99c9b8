//! Which JVM the user means: TARGET is a pid, `port:N` (the process listening on TCP port N) or a fragment of the
//! main class / jar name as `jload jps` shows it.

use anyhow::Result;

use super::discovery::{self, JvmInfo};
use super::procfs;
use crate::error::bad_input;

/// Resolves TARGET (a pid, `port:N` or a main class / jar name fragment) to the pid of a running process.
pub fn resolve(target: &str) -> Result<u32> {
    let target = target.trim();
    if let Some(port) = target.strip_prefix("port:") {
        let port: u16 = port.parse().map_err(|_| bad_input(format!("'{target}': port:N needs a TCP port, 1-65535")))?;
        return resolve_port(port);
    }
    if !target.is_empty() && target.bytes().all(|b| b.is_ascii_digit()) {
        let pid: u32 = target.parse().map_err(|_| bad_input(format!("'{target}' is not a valid pid")))?;
        if !procfs::is_running(pid) {
            return Err(bad_input(format!("no process with pid {pid} is running")));
        }
        return Ok(pid);
    }
    if target.is_empty() {
        return Err(bad_input("empty TARGET: give a pid, port:N or part of a main class / jar name (see jload jps)"));
    }
    resolve_name(target)
}

/// The pid of the process listening on TCP `port` (IPv4 or IPv6, this network namespace).
pub fn resolve_port(port: u16) -> Result<u32> {
    let inodes = procfs::listening_socket_inodes(port)?;
    if inodes.is_empty() {
        return Err(bad_input(format!("nothing listens on TCP port {port} (checked /proc/net/tcp and tcp6)")));
    }
    let mut owners = procfs::socket_owners(&inodes)?;
    if owners.len() > 1 {
        // A listening socket inherited by children (a wrapper script, a forked helper): prefer the JVM.
        owners.retain(|&pid| procfs::has_libjvm(pid));
    }
    match owners.as_slice() {
        [pid] => Ok(*pid),
        [] => Err(bad_input(format!(
            "TCP port {port} is listened on by a process jload may not inspect (another user's?): \
             run jload as that user or as root, or give the pid"
        ))),
        many => Err(bad_input(format!(
            "several JVMs hold the listening socket of TCP port {port}: {}; give the pid",
            many.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
        ))),
    }
}

/// The pid of the one local JVM whose main class or jar name contains `fragment` (case-insensitive).
pub fn resolve_name(fragment: &str) -> Result<u32> {
    let needle = fragment.to_lowercase();
    let matches: Vec<JvmInfo> =
        discovery::list_jvms().into_iter().filter(|jvm| jvm.main.to_lowercase().contains(&needle)).collect();
    match matches.as_slice() {
        [jvm] => Ok(jvm.pid),
        [] => Err(bad_input(format!(
            "no local JVM's main class or jar matches '{fragment}' (see jload jps; or give a pid or port:N)"
        ))),
        many => Err(bad_input(format!(
            "'{fragment}' matches {} JVMs, give the pid: {}",
            many.len(),
            many.iter()
                .map(|jvm| format!("{} {} {}", jvm.pid, jvm.main, jvm.args).trim().to_owned())
                .collect::<Vec<_>>()
                .join("; ")
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_targets_are_bad_input() {
        for target in ["port:http", "port:70000", "", "4294967296"] {
            let err = resolve(target).unwrap_err();
            assert!(err.downcast_ref::<crate::error::BadInput>().is_some(), "{target}: {err}");
        }
    }

    #[test]
    fn port_target_finds_the_listening_process() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        assert_eq!(resolve(&format!("port:{port}")).unwrap(), std::process::id());
        drop(listener);
        let err = resolve_port(port).unwrap_err().to_string();
        assert!(err.contains(&format!("nothing listens on TCP port {port}")), "{err}");
    }
}
