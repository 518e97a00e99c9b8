//! `jload run` on plans whose axes vary the target's program arguments (`args`, docs/plan.md "Program arguments"),
//! with a real JVM: tests/java/Argv.java, configured only by its arguments (`--delay-ms D` delays every answer), prints
//! the arguments it got; each cell's process got its own — at `{args}` or after the command's last word, several
//! axes' in axis order — as its recorded command, its own output and its latency show, across `--only` and
//! `--resume`; `--dry-run` shows each cell's command with its args; a tune whose parameter sets args gives each trial
//! its own and reports them; bad `args` exit 2 with one line and start nothing.

use crate::common;

use std::path::{Path, PathBuf};

use common::jdks::compiled;
use common::machine;
use common::{folder_of, jload, json, tempdir};

/// A plan running Argv with `command_tail` after its class (`{args}` or not), a `delay` axis (no delay, or 80 ms per
/// answer) and a `tag` axis, each giving program arguments; one measured phase of 0.6 s at 20 req/s.
fn plan(dir: &Path, classes: &Path, command_tail: &str) -> PathBuf {
    let text = format!(
        "name = \"argv\"\n[target]\ncommand = \"java {{jvm}} -cp {classes} Argv {command_tail}\"\n\
         ready = \"http://127.0.0.1:{{port}}/\"\njdk = \"17\"\nstartup_timeout = \"30s\"\nstop_timeout = \"5s\"\n\
         jvm = [\"-XX:+UseSerialGC\", \"-XX:TieredStopAtLevel=1\"]\n\
         [[axis]]\nname = \"delay\"\nvalues = [{{ label = \"none\" }}, \
         {{ label = \"80ms\", args = [\"--delay-ms\", \"80\"] }}]\n\
         [[axis]]\nname = \"tag\"\nvalues = [{{ label = \"t\", args = [\"--tag\", \"dir={{dir}}\"] }}]\n\
         [[phase]]\nname = \"get\"\nurl = \"http://127.0.0.1:{{port}}/\"\nconnections = 4\nrate = 20\n\
         duration = \"600ms\"\n[run]\ncooldown = \"0s\"\n",
        classes = classes.display()
    );
    let path = dir.join("argv.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// What a cell-repeat recorded: its command's words, the line its process printed, the least latency of its phase.
struct Observed {
    command: Vec<String>,
    printed: String,
    min_ms: f64,
}

fn observed(out: &Path, id: &str) -> Observed {
    let rep = out.join("cells").join(folder_of(out, id)).join("rep-1");
    let meta = json(&rep.join("meta.json"));
    assert_eq!(meta["status"], "ok", "{meta}");
    let command = meta["command"].as_array().unwrap().iter().map(|word| word.as_str().unwrap().to_string()).collect();
    let stdout = std::fs::read_to_string(rep.join("stdout.log")).unwrap();
    let printed = stdout.lines().find_map(|line| line.strip_prefix("argv: ")).unwrap_or_else(|| panic!("{stdout}"));
    let min_ms = json(&rep.join("get.json"))["latency_ms"]["min"].as_f64().unwrap();
    Observed { command, printed: printed.to_string(), min_ms }
}

#[test]
fn each_cell_gets_its_args_at_the_placeholder_across_only_and_resume() {
    let _machine = machine::shared();
    let dir = tempdir();
    let classes = compiled(&dir, "Argv.java");
    let plan = plan(&dir, &classes, "{args} --port {port}");
    let out = dir.join("results");

    let (output, _) = jload(&["run", plan.to_str().unwrap(), "--out", out.to_str().unwrap(), "--only", "delay=80ms"]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let slow_first = json(&out.join("cells").join(folder_of(&out, "delay=80ms,tag=t")).join("rep-1/meta.json"));
    let (output, _) = jload(&["run", "--resume", out.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");

    let slow = observed(&out, "delay=80ms,tag=t");
    let fast = observed(&out, "delay=none,tag=t");
    let slow_meta = json(&out.join("cells").join(folder_of(&out, "delay=80ms,tag=t")).join("rep-1/meta.json"));
    assert_eq!(slow_meta, slow_first, "the resume kept the cell that ran and did not run it again");
    for (cell, id, args) in [(&slow, "delay=80ms,tag=t", "--delay-ms 80 "), (&fast, "delay=none,tag=t", "")] {
        let rep_dir = out.join("cells").join(folder_of(&out, id)).join("rep-1").canonicalize().unwrap();
        let port = cell.command.last().unwrap().clone();
        // The axes' args, in axis order, stand where {args} is, before --port; the tag's {dir} is filled.
        let expected = format!("{args}--tag dir={} --port {port}", rep_dir.display());
        assert_eq!(cell.printed, expected, "what the process of {id} got");
        let at = cell.command.iter().position(|word| word == "Argv").unwrap();
        assert_eq!(cell.command[at + 1..].join(" "), expected, "the recorded command of {id}");
    }
    // The arguments took effect: every answer of the slow cell waited its 80 ms, and the other's did not.
    assert!(slow.min_ms >= 80.0, "--delay-ms 80 delays every answer: least latency {} ms", slow.min_ms);
    assert!(fast.min_ms < 80.0, "no delay without the args: least latency {} ms", fast.min_ms);
    let summary = json(&out.join("summary.json"));
    assert_eq!(summary["cells"].as_array().unwrap().len(), 2, "{summary}");
}

#[test]
fn without_the_placeholder_the_args_follow_the_commands_last_word_and_the_dry_run_shows_them() {
    let _machine = machine::shared();
    let dir = tempdir();
    let classes = compiled(&dir, "Argv.java");
    let plan = plan(&dir, &classes, "--port {port}");
    let (output, _) = jload(&["run", plan.to_str().unwrap(), "--dry-run"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let commands: Vec<&str> = stdout.lines().filter(|line| line.contains(" Argv ")).collect();
    assert_eq!(commands.len(), 2, "{stdout}");
    // Each cell's exact command, its args after --port in axis order, {dir} filled with the cell's folder.
    assert!(
        commands[0].ends_with(" Argv --port {port} --tag 'dir=<results>/cells/delay=none__tag=t/rep-N'"),
        "{}",
        commands[0]
    );
    assert!(
        commands[1].ends_with(" Argv --port {port} --delay-ms 80 --tag 'dir=<results>/cells/delay=80ms__tag=t/rep-N'"),
        "{}",
        commands[1]
    );

    let out = dir.join("results");
    let (output, _) = jload(&["run", plan.to_str().unwrap(), "--out", out.to_str().unwrap(), "--only", "delay=80ms"]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let slow = observed(&out, "delay=80ms,tag=t");
    let port = &slow.command[slow.command.iter().position(|word| word == "--port").unwrap() + 1];
    assert!(
        slow.printed.starts_with(&format!("--port {port} --delay-ms 80 --tag dir=")),
        "appended after --port, in axis order: {}",
        slow.printed
    );
    assert!(slow.min_ms >= 80.0, "least latency {} ms", slow.min_ms);
}

#[test]
fn bad_args_are_one_line_and_exit_2_before_anything_starts() {
    let dir = tempdir();
    let classes = dir.join("classes");
    let cases = [
        (
            "args = [\"--delay-ms\", \"80\"]",
            "args = \"--delay-ms 80\"",
            "line 11: axis 'delay' value '80ms': args must be a list of words, like args = [\"--no-request-journal\"] \
             or [\"--container-threads\", \"10\"], not \"--delay-ms 80\"",
        ),
        (
            "Argv --port {port}",
            "Argv --port={port}{args}",
            "line 3: target.command: {args} must be a word of its own, not part of '--port={port}{args}'",
        ),
    ];
    for (from, to, expected) in cases {
        let path = plan(&dir, &classes, "--port {port}");
        std::fs::write(&path, std::fs::read_to_string(&path).unwrap().replace(from, to)).unwrap();
        let out = dir.join("results");
        let (output, _) = jload(&["run", path.to_str().unwrap(), "--out", out.to_str().unwrap()]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{expected}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains(expected), "expected '{expected}' in {stderr}");
        assert!(!out.exists(), "nothing is started or written");
    }
}

#[test]
fn a_tune_of_program_arguments_gives_each_trial_its_args_and_reports_them() {
    let _machine = machine::shared();
    let dir = tempdir();
    let classes = compiled(&dir, "Argv.java");
    let plan = dir.join("tune.toml");
    let text = format!(
        "name = \"argv-tune\"\n[target]\ncommand = \"java {{jvm}} -cp {classes} Argv --port {{port}}\"\n\
         ready = \"http://127.0.0.1:{{port}}/\"\njdk = \"17\"\nstartup_timeout = \"30s\"\nstop_timeout = \"5s\"\n\
         jvm = [\"-XX:+UseSerialGC\", \"-XX:TieredStopAtLevel=1\"]\n\
         [[phase]]\nname = \"get\"\nurl = \"http://127.0.0.1:{{port}}/\"\nconnections = 4\nrate = 20\n\
         duration = \"600ms\"\n[run]\ncooldown = \"0s\"\n\
         [tune]\nobjective = \"p99\"\nbudget = {{ trials = 3 }}\nmethod = \"random\"\nconfirm = 1\n[tune.space]\n\
         delay = {{ values = [40, 80], args = [\"--delay-ms\", \"{{}}\"] }}\n",
        classes = classes.display()
    );
    std::fs::write(&plan, text).unwrap();
    let (output, _) = jload(&["run", plan.to_str().unwrap(), "--dry-run"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("  delay: 40 < 80, program arguments --delay-ms {}\n"), "{stdout}");

    let out = dir.join("results");
    let (output, _) = jload(&["run", plan.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let trials = json(&out.join("tune.json"))["cells"][0]["trials"].as_array().unwrap().clone();
    assert_eq!(trials.len(), 3, "{trials:?}");
    assert!(trials[0].get("args").is_none(), "the defaults add none: {}", trials[0]);
    let markdown = std::fs::read_to_string(out.join("report.md")).unwrap();
    let mut delays = Vec::new();
    for trial in &trials[1..] {
        let delay = trial["config"]["delay"].as_str().unwrap();
        assert_eq!(trial["args"], serde_json::json!(["--delay-ms", delay]), "{trial}");
        assert_eq!(trial["options"], serde_json::json!([]), "no JVM option: {trial}");
        let rep = out.join("cells").join(trial["dir"].as_str().unwrap()).join("rep-1");
        let command = json(&rep.join("meta.json"))["command"].as_array().unwrap().clone();
        let tail: Vec<&str> = command[command.len() - 4..].iter().map(|word| word.as_str().unwrap()).collect();
        assert_eq!(tail[..2], ["--port", json(&rep.join("meta.json"))["port"].to_string().as_str()]);
        assert_eq!(tail[2..], ["--delay-ms", delay], "after the command's last word");
        let ms: f64 = delay.parse().unwrap();
        let min = json(&rep.join("get.json"))["latency_ms"]["min"].as_f64().unwrap();
        assert!(min >= ms, "{delay} ms of delay, least latency {min} ms");
        assert!(markdown.contains(&format!("| args: --delay-ms {delay} |")), "{markdown}");
        delays.push(ms);
    }
    delays.sort_by(f64::total_cmp);
    assert_eq!(delays, [40.0, 80.0], "random search tries each value once");
}
