//! `jload run` reading the target JVM's native memory (NMT, docs/containers.md) on this machine's real cgroups with
//! the real kv-service JVM: the switch (on where a cell has a memory limit, `nmt = false|true` over it); a tracked
//! cell's reads, one at each phase's end in its record and all in `nmt.csv`; the slab
//! store pushed past its box is killed by the memory limit with the last read's breakdown in its cause, the phase it
//! died in keeps that read, and the read's committed total reconciles with the box's usage taken with it; a heap
//! `OutOfMemoryError` in a large box stays a Java OOM; no box is left behind.

use crate::common;

use std::path::{Path, PathBuf};

use common::cgroups::{boxes_left_behind, mount_cgroups_on};
use common::kv_plan::{KvPlan, kv_plan};
use common::machine;
use common::sshnet::SshNet;
use common::{folder_of, jload, json, tempdir};
use jload::jvm::attach::nmt_csv;

// The JVM-heavy tests share the machine with one other sweep (common::machine): what they assert is recorded
// figures and causes, NMT's reads and the box's usage of one JVM, which a neighbour does not change.

const MIB: f64 = 1048576.0;

fn plan(dir: &Path, name: &str, target_extra: &str, axes: &str, phases: &str) -> PathBuf {
    one_repeat(name, target_extra, axes, phases).write(dir)
}

/// A kv-service plan of the default store with `axes` and `phases`, one repeat, for a test to add to.
fn one_repeat(name: &str, target_extra: &str, axes: &str, phases: &str) -> KvPlan {
    kv_plan(name).default_store().target(target_extra).body(axes).body(phases).run("repeats = 1\n")
}

/// 16 KB values at 1500 req/s for up to 60 s, then a short read phase. The slab store's box kills its JVM within the
/// fill: measured 2–19 s in (ParallelGC grows the heap at its own pace); a fill of 15 s left the kill to the read
/// phase once in CI.
const FILL_THEN_GET: &str = "[[phase]]\nname = \"fill\"\nmeasure = false\n\
    url = \"http://127.0.0.1:{port}/random_set?keyRange=40000&valueSize=16000\"\nconnections = 4\nrate = 1500\n\
    duration = \"60s\"\n\
    [[phase]]\nname = \"get\"\nurl = \"http://127.0.0.1:{port}/random_get?keyRange=2000\"\nconnections = 4\nduration = \"2s\"\n";

fn rep_dir(out: &Path, id: &str) -> PathBuf {
    out.join("cells").join(folder_of(out, id)).join("rep-1")
}

/// The number before `unit` that follows `after` in `text`: `number_after("the box used 326.5 MiB", "used ", " MiB")`.
fn number_after(text: &str, after: &str, unit: &str) -> f64 {
    let rest = &text[text.find(after).unwrap_or_else(|| panic!("{after:?} in {text}")) + after.len()..];
    rest[..rest.find(unit).unwrap()].parse().unwrap_or_else(|_| panic!("a number after {after:?} in {text}"))
}

#[test]
fn the_switch_tracks_native_memory_where_a_cell_has_a_memory_limit_unless_the_plan_says_otherwise() {
    let _machine = machine::shared();
    let dir = tempdir();
    let axes = "[[axis]]\nname = \"box\"\nvalues = [{ label = \"boxed\", memory = \"512m\" }, \
        { label = \"quota only\", cpus_quota = 1.5 }]\n";
    let shown = |target_extra: &str, axes: &str| {
        let plan = plan(&dir, "switch", target_extra, axes, FILL_THEN_GET);
        let (dry, _) = jload(&["run", plan.to_str().unwrap(), "--dry-run"]);
        assert_eq!(dry.status.code(), Some(0), "{}", String::from_utf8_lossy(&dry.stderr));
        let text = String::from_utf8_lossy(&dry.stdout).into_owned();
        let cell = |id: &str| {
            let start = text.find(&format!("\nbox={id}  [")).unwrap_or_else(|| panic!("cell {id} in {text}"));
            let end = text[start + 1..].find("\n\n").map_or(text.len(), |end| start + 1 + end);
            text[start..end].to_string()
        };
        (cell("boxed"), cell("quota only"))
    };
    let option = "-XX:NativeMemoryTracking=summary";
    let line = "  nmt: read through the attach protocol every 5 s and at each phase's end (nmt.csv)";

    let (boxed, quota_only) = shown("", axes);
    assert!(boxed.contains(option) && boxed.contains(line), "on by default with a memory limit: {boxed}");
    assert!(!quota_only.contains(option) && !quota_only.contains("nmt:"), "off without one: {quota_only}");

    let (boxed, quota_only) = shown("nmt = false", axes);
    assert!(!boxed.contains(option) && !boxed.contains("nmt:"), "{boxed}");
    assert!(!quota_only.contains(option), "{quota_only}");

    let (boxed, quota_only) = shown("nmt = true", axes);
    assert!(boxed.contains(option) && quota_only.contains(option) && quota_only.contains(line), "{quota_only}");

    // The plan's own option wins, and jload adds none beside it.
    let off = "[[axis]]\nname = \"box\"\nvalues = [{ label = \"boxed\", memory = \"512m\", \
        jvm = [\"-XX:NativeMemoryTracking=off\"] }, { label = \"quota only\", cpus_quota = 1.5 }]\n";
    let (boxed, _) = shown("nmt = true", off);
    assert!(boxed.contains("-XX:NativeMemoryTracking=off") && !boxed.contains(option), "{boxed}");
    assert!(!boxed.contains("nmt:"), "no reads of a JVM that tracks nothing: {boxed}");
    assert_eq!(boxes_left_behind(), Vec::<PathBuf>::new());
}

#[test]
fn a_cell_asked_to_track_reads_its_native_memory_at_each_phase_end_into_nmt_csv() {
    let _machine = machine::shared();
    let dir = tempdir();
    let out = dir.join("results");
    let axes = "[[axis]]\nname = \"heap\"\nvalues = [{ label = \"64m\", jvm = [\"-Xmx64m\", \"-XX:+UseSerialGC\"] }]\n";
    let phases = "[[phase]]\nname = \"fill\"\nmeasure = false\n\
        url = \"http://127.0.0.1:{port}/random_set?keyRange=2000&valueSize=500\"\nconnections = 4\nrequests = 2000\n\
        [[phase]]\nname = \"get\"\nurl = \"http://127.0.0.1:{port}/random_get?keyRange=2000\"\nconnections = 4\n\
        duration = \"2s\"\n";
    let plan = plan(&dir, "tracked", "nmt = true", axes, phases);
    let (output, _) = jload(&["run", plan.to_str().unwrap(), "--out", out.to_str().unwrap(), "--seed", "1"]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));

    let rep = rep_dir(&out, "heap=64m");
    let meta = json(&rep.join("meta.json"));
    assert_eq!(meta["status"], "ok", "{meta}");
    assert!(meta["command"].as_array().unwrap().iter().any(|word| word == "-XX:NativeMemoryTracking=summary"));
    let reads = nmt_csv::read(&std::fs::read_to_string(rep.join("nmt.csv")).unwrap()).unwrap();
    assert!(reads.len() >= 3, "a read once ready, then one at each phase's end: {}", reads.len());
    assert!(reads.windows(2).all(|pair| pair[0].unix_ms < pair[1].unix_ms), "in order");
    // Each phase's record holds its end's read, one of the file's; the get phase's is after the fill phase's.
    let mut found = Vec::new();
    for phase in ["fill", "get"] {
        let record = json(&rep.join(format!("{phase}.json")));
        let kept: jload::jvm::attach::nmt::NmtSummary = serde_json::from_value(record["nmt"].clone()).unwrap();
        let index = reads
            .iter()
            .rposition(|read| read.summary.total == kept.total && read.summary.categories == kept.categories);
        found.push(index.unwrap_or_else(|| panic!("{phase}'s read is in nmt.csv: {kept:?}")));
        assert_eq!(kept.category("Java Heap").unwrap().reserved, 64 << 20, "{phase}");
        assert!(kept.malloc.is_some() && kept.mmap.is_some(), "the record keeps the total's parts: {phase}");
    }
    assert!(found[0] < found[1], "the fill's end before the get's: {found:?}");
    assert!(meta["box"].is_null(), "no box: {meta}");
}

#[test]
fn the_slab_store_killed_by_its_box_leaves_its_native_memory_breakdown_which_reconciles_with_the_box() {
    let _machine = machine::shared();
    let dir = tempdir();
    let out = dir.join("results");
    // The slab store's 256 MiB arena (zeroed at start) fits a 350 MiB box with a small heap; under the fill,
    // ParallelGC grows the heap from its 8 MiB start until the kernel kills the JVM a few seconds in.
    let axes = "[[axis]]\nname = \"store\"\nvalues = [{ label = \"slab\", memory = \"350m\", jvm = [\
        \"-Dkv.store=offheap\", \"-Dkv.offheap.capacity=256m\", \"-XX:MaxDirectMemorySize=400m\", \"-Xms8m\", \
        \"-Xmx400m\", \"-XX:+UseParallelGC\"] }]\n";
    // With C2: under C1 alone the fill allocated slower and the heap took 45 s to reach the box.
    let plan = one_repeat("slab", "", axes, FILL_THEN_GET).full_jit().write(&dir);
    let (output, _) = jload(&["run", plan.to_str().unwrap(), "--out", out.to_str().unwrap(), "--seed", "1"]);
    assert_ne!(output.status.code(), Some(2), "{}", String::from_utf8_lossy(&output.stderr));

    let rep = rep_dir(&out, "store=slab");
    let meta = json(&rep.join("meta.json"));
    assert_eq!((meta["status"].as_str(), meta["failure"].as_str()), (Some("crashed"), Some("memory_limit")), "{meta}");
    let cause = meta["cause"].as_str().unwrap();
    assert!(cause.starts_with("killed by the memory limit (350 MiB): peak 350 MiB — direct/other "), "{cause}");
    let direct = number_after(cause, "— direct/other ", " committed");
    assert!((256.0..300.0).contains(&direct), "the arena is the largest category: {cause}");
    assert!(cause.contains(", heap ") && cause.contains(", GC ") && cause.contains(", code "), "{cause}");

    // Every read is in nmt.csv; the phase the JVM died in keeps the last.
    let reads = nmt_csv::read(&std::fs::read_to_string(rep.join("nmt.csv")).unwrap()).unwrap();
    let last = reads.last().expect("a read once the JVM was ready");
    for read in &reads {
        assert!(read.uptime_s.unwrap() > 0.0 && read.read_ms > 0.0, "{read:?}");
        assert_eq!(read.summary.committed_sum(), read.summary.total.committed, "scale=b adds up: {read:?}");
    }
    let fill = json(&rep.join("fill.json"));
    assert_eq!(fill["interrupted"], true, "{}", fill["interrupted"]);
    assert_eq!(fill["nmt"]["total"]["committed"], last.summary.total.committed, "{}", fill["nmt"]["total"]);
    let other = last.summary.category("Other").unwrap().committed;
    assert!(other >= 256 << 20, "direct buffers are under Other: {other}");
    let heap = last.summary.category("Java Heap").unwrap();
    assert!(heap.committed < heap.reserved / 4, "the heap was mostly not even committed: {heap:?}");
    assert!(!rep.join("get.json").exists(), "no phase after the kill");

    // The reconciliation: NMT's committed total at the last read against the box's usage taken with it.
    let nmt_mib = number_after(cause, " s: ", " MiB committed");
    assert!((nmt_mib - last.summary.total.committed as f64 / MIB).abs() < 0.06, "{cause} vs {last:?}");
    let usage_mib = number_after(cause, "; the box used ", " MiB");
    assert!(
        (nmt_mib - usage_mib).abs() <= 0.15 * usage_mib,
        "NMT's committed {nmt_mib} MiB within 15 % of the box's usage {usage_mib} MiB: {cause}"
    );
    assert!(number_after(cause, "the JVM's RSS ", " MiB)") > 256.0, "{cause}");
    assert_eq!(boxes_left_behind(), Vec::<PathBuf>::new());
}

#[test]
fn a_heap_out_of_memory_error_in_a_large_box_stays_a_java_oom_and_keeps_its_last_read() {
    let _machine = machine::shared();
    let dir = tempdir();
    let out = dir.join("results");
    let axes = "[[axis]]\nname = \"store\"\nvalues = [{ label = \"heap\", memory = \"768m\", jvm = [\
        \"-Dkv.store=heap\", \"-Dkv.maxMemory=95%\", \"-Xmx64m\", \"-XX:+UseSerialGC\"] }]\n";
    let plan = plan(&dir, "heap-oom", "", axes, FILL_THEN_GET);
    let (output, _) = jload(&["run", plan.to_str().unwrap(), "--out", out.to_str().unwrap(), "--seed", "1"]);
    assert_ne!(output.status.code(), Some(2), "{}", String::from_utf8_lossy(&output.stderr));

    let rep = rep_dir(&out, "store=heap");
    let meta = json(&rep.join("meta.json"));
    assert_eq!(meta["status"], "crashed", "{meta}");
    assert!(meta["failure"].is_null(), "a Java OOM is no memory kill: {meta}");
    assert_eq!(
        meta["cause"], "Java OOM: Java heap space — Terminating due to java.lang.OutOfMemoryError: Java heap space",
        "{meta}"
    );
    let fill = json(&rep.join("fill.json"));
    assert_eq!(fill["box"]["oom_kills"], 0, "{}", fill["box"]);
    let reads = nmt_csv::read(&std::fs::read_to_string(rep.join("nmt.csv")).unwrap()).unwrap();
    let last = reads.last().expect("a read once the JVM was ready");
    assert_eq!(fill["nmt"]["total"]["committed"], last.summary.total.committed, "{}", fill["nmt"]);
    let heap = last.summary.category("Java Heap").unwrap();
    assert_eq!(heap.reserved, 64 << 20, "{heap:?}");
    assert_eq!(boxes_left_behind(), Vec::<PathBuf>::new());
}

#[test]
fn a_target_on_its_own_server_has_its_native_memory_read_there_by_its_agent() {
    let _machine = machine::shared();
    let net = SshNet::start(&["server"]);
    mount_cgroups_on(&net, "server");
    let dir = tempdir();
    let out = dir.join("results");
    // The heap store with a heap far above its 200 MiB box, filled with 16 KB values: killed seconds into the fill.
    let plan = kv_plan("remote-nmt")
        .on(&format!("host = \"{}\"", net.destination("server")))
        .target("memory = \"200m\"\n")
        .jvm(&["-Xmx1g", "-XX:+UseSerialGC"])
        .body(
            "[[phase]]\nname = \"fill\"\nmeasure = false\n\
             url = \"http://{host}:{port}/random_set?keyRange=40000&valueSize=16000\"\nconnections = 4\nrate = 1500\n\
             duration = \"30s\"\n",
        )
        .run("repeats = 1\n")
        .write(&dir);
    let output = net.jload_run(&plan, &out).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    let rep = out.join("cells/default/rep-1");
    let meta = json(&rep.join("meta.json"));
    assert_eq!((&meta["status"], &meta["failure"]), (&"crashed".into(), &"memory_limit".into()), "{stderr}\n{meta:#}");
    let cause = meta["cause"].as_str().unwrap();
    assert!(cause.starts_with("killed by the memory limit (200 MiB): peak 200 MiB — heap "), "{cause}");
    let usage_mib = number_after(cause, "; the box used ", " MiB");
    assert!(usage_mib > 20.0 && usage_mib <= 200.0, "the box's usage there, at the read: {cause}");

    // The reads were made there and written here; the phase it died in keeps the last.
    let reads = nmt_csv::read(&std::fs::read_to_string(rep.join("nmt.csv")).unwrap()).unwrap();
    let last = reads.last().expect("a read once the JVM was ready");
    assert_eq!(last.summary.category("Java Heap").unwrap().reserved, 1 << 30, "{last:?}");
    assert!(last.uptime_s.unwrap() > 0.0 && last.read_ms > 0.0, "{last:?}");
    let nmt_mib = number_after(cause, " s: ", " MiB committed");
    assert!((nmt_mib - last.summary.total.committed as f64 / MIB).abs() < 0.06, "{cause} vs {last:?}");
    let fill = json(&rep.join("fill.json"));
    assert_eq!(fill["nmt"]["total"]["committed"], last.summary.total.committed, "{}", fill["nmt"]["total"]);
    let left: Vec<_> = net.processes("server").into_iter().filter(|(_, name)| name == "java").collect();
    assert_eq!(left, []);
    assert_eq!(boxes_left_behind(), Vec::<PathBuf>::new());
}
