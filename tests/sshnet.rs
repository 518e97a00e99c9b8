//! The ssh test network (tests/common/sshnet.rs) that the remote-target and load-host tests stand on: real OpenSSH in
//! network namespaces of this machine, each host on its own address, reachable from here and from each other, with
//! nothing left once it is dropped and a link that can be cut and restored.

use crate::common;

use common::machine;
use common::sshnet::{SshNet, runs};
use std::io::Read;
use std::net::TcpStream;
use std::process::Stdio;
use std::thread;
use std::time::{Duration, Instant};

fn stdout_of(output: &std::process::Output) -> String {
    assert!(
        output.status.success(),
        "ssh failed ({}): {}",
        output.status,
        String::from_utf8_lossy(&output.stderr).trim()
    );
    String::from_utf8_lossy(&output.stdout).trim().to_string()
}

#[test]
fn each_host_answers_over_ssh_on_its_own_address() {
    let _machine = machine::shared();
    let net = SshNet::start(&["server", "gen1", "gen2"]);
    let addresses: Vec<String> = ["server", "gen1", "gen2"].iter().map(|name| net.address(name)).collect();
    assert_eq!(addresses.len(), 3);
    assert!(addresses[0] != addresses[1] && addresses[1] != addresses[2] && addresses[0] != addresses[2]);
    for (name, address) in ["server", "gen1", "gen2"].iter().zip(&addresses) {
        assert_eq!(net.destination(name), format!("root@{address}"));
        // `hostname -I` lists the addresses of the namespace the session runs in: the host's one, nothing else.
        assert_eq!(stdout_of(&net.ssh(name, "hostname -I")), *address, "{name}");
    }
}

#[test]
fn ssh_command_is_a_complete_command_line_for_each_host() {
    let _machine = machine::shared();
    let net = SshNet::start(&["server"]);
    let words = shell_words::split(&net.ssh_command()).unwrap();
    let output = std::process::Command::new(&words[0])
        .args(&words[1..])
        .args([&net.destination("server"), "echo $USER"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(stdout_of(&output), "root");
}

#[test]
fn every_session_on_a_host_gets_its_own_empty_cache_dir() {
    let _machine = machine::shared();
    let net = SshNet::start(&["server", "gen1"]);
    for name in ["server", "gen1"] {
        let cache = net.cache_dir(name);
        assert_eq!(stdout_of(&net.ssh(name, "echo $XDG_CACHE_HOME")), cache.to_str().unwrap());
        assert_eq!(std::fs::read_dir(&cache).unwrap().count(), 0, "{name}'s cache starts empty");
    }
    assert_ne!(net.cache_dir("server"), net.cache_dir("gen1"));
}

#[test]
fn a_process_started_over_ssh_is_listed_and_gone_after_drop() {
    let _machine = machine::shared();
    let net = SshNet::start(&["server", "gen1"]);
    assert_eq!(net.processes("server"), vec![], "a fresh host runs nothing but sshd");
    let pid: u32 =
        stdout_of(&net.ssh("server", "nohup sleep 300 >/dev/null 2>&1 </dev/null & echo $!")).parse().unwrap();
    // `&` forks a shell that then execs sleep: the pid may still be named bash for a moment after ssh returns.
    let deadline = Instant::now() + Duration::from_secs(5);
    while net.processes("server") != vec![(pid, "sleep".to_string())] && Instant::now() < deadline {
        thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(net.processes("server"), vec![(pid, "sleep".to_string())]);
    assert_eq!(net.processes("gen1"), vec![], "the other host's namespace does not see it");
    drop(net);
    assert!(!runs(pid), "sleep {pid} still runs after the network was dropped");
}

#[test]
fn a_cut_link_fails_a_new_connection_within_seconds_and_restore_brings_it_back() {
    let _machine = machine::shared();
    let net = SshNet::start(&["server"]);
    net.cut("server");
    let started = Instant::now();
    let cut = net.ssh_with("server", &["-o", "ConnectTimeout=2"], "true");
    assert_eq!(cut.status.code(), Some(255), "ssh to a cut host fails");
    assert!(started.elapsed() < Duration::from_secs(8), "ssh to a cut host took {:?}", started.elapsed());
    net.restore("server");
    assert_eq!(stdout_of(&net.ssh_with("server", &["-o", "ConnectTimeout=5"], "echo back")), "back");
}

#[test]
fn a_cut_link_ends_an_open_session_that_sends_keepalives() {
    let _machine = machine::shared();
    let net = SshNet::start(&["server"]);
    let mut session = net
        .ssh_process("server", &["-o", "ServerAliveInterval=1", "-o", "ServerAliveCountMax=2"], "sleep 60")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while !net.processes("server").iter().any(|(_, comm)| comm == "sleep") {
        assert!(Instant::now() < deadline, "the session's sleep never started");
        thread::sleep(Duration::from_millis(20));
    }
    net.cut("server");
    let cut_at = Instant::now();
    let status = loop {
        if let Some(status) = session.try_wait().unwrap() {
            break status;
        }
        if cut_at.elapsed() > Duration::from_secs(20) {
            session.kill().unwrap();
            panic!("the ssh session outlived a cut link by 20 s");
        }
        thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(status.code(), Some(255), "ssh reports the lost connection");
}

#[test]
fn a_server_on_one_host_is_reachable_from_another_host_and_from_this_machine() {
    let _machine = machine::shared();
    let net = SshNet::start(&["server", "gen1"]);
    let address = net.address("server");
    let server = format!(
        "nohup python3 -c 'import socket\ns = socket.create_server((\"{address}\", 7000))\nwhile True:\n    c, _ = \
         s.accept()\n    c.sendall(b\"hello from server\\n\")\n    c.close()\n' >/dev/null 2>&1 </dev/null &"
    );
    stdout_of(&net.ssh("server", &server));
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut greeting = String::new();
    loop {
        if let Ok(mut stream) = TcpStream::connect((address.as_str(), 7000)) {
            stream.read_to_string(&mut greeting).unwrap();
            break;
        }
        assert!(Instant::now() < deadline, "the server over ssh never listened");
        thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(greeting, "hello from server\n", "from this machine");
    let from_gen1 = net.ssh("gen1", &format!("exec 3<>/dev/tcp/{address}/7000; cat <&3"));
    assert_eq!(stdout_of(&from_gen1), "hello from server", "from gen1");
}
