//! `jload run` answers "is it the GC?" per cell with a number: the quickstart's sweep in small (kv-service at one heap
//! size under two collectors, a fill, then a capacity search of the get/set mix) writes, for every measured phase, a
//! `gc_attribution` whose p99 tail is counted and judged, in the phase's file and in summary.json alike.

use crate::common;

use common::kv_plan::kv_plan;
use common::machine;
use common::{folder_of, jload, json, repo, tempdir};

/// The quickstart plan (plans/quickstart.toml) at one heap size and a coarser search bracketed between 2,500 and
/// 5,000 req/s (a pass at the cap ends it once measured again), so that it runs in seconds (a JVM beside it can
/// make it miss at the first rate, and each halving below doubles a step's time); each step measures at
/// least 4,000 requests, so that the p99 tail holds 40 (the verdict needs 20). No warm-up until steady: what is
/// tested is the attribution of whatever the search measured.
fn quickstart_in_small(dir: &std::path::Path) -> std::path::PathBuf {
    let body = format!(
        "[[axis]]\nname = \"gc\"\n\
         values = [ {{ label = \"G1\", jvm = [\"-XX:+UseG1GC\"] }},\n\
                    {{ label = \"Parallel\", jvm = [\"-XX:+UseParallelGC\"] }} ]\n\
         [[phase]]\nname = \"fill\"\nmeasure = false\n\
         url = \"http://127.0.0.1:{{port}}/random_set?keyRange=50000&valueSize=1000\"\n\
         connections = 20\nrequests = 20000\n\
         [[phase]]\nname = \"get-set\"\nmix = \"{mix}\"\nok_status = \"200-299,404\"\nconnections = 50\n\
         capacity = {{ precision = \"25%\", start_rate = 2500, max_rate = 5000 }}\nstep_warmup = \"500ms\"\nstep = \"1s\"\nmin_requests = 4000\n\
         steady_max = \"0s\"\n",
        mix = repo().join("plans/mixes/kv-get-set.toml").display(),
    );
    kv_plan("attribution")
        .jvm(&["-Xms32m", "-Xmx64m"])
        .body(&body)
        .run("repeats = 1\n[slo]\np99 = \"10ms\"\nerrors = \"0.1%\"\n")
        .write(dir)
}

#[test]
fn every_cell_of_a_quickstart_sweep_answers_is_it_the_gc_with_a_number() {
    let _machine = machine::shared();
    let dir = tempdir();
    let out = dir.join("results");
    let plan = quickstart_in_small(&dir);
    let (output, _) = jload(&["run", plan.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let summary = json(&out.join("summary.json"));
    let cells = summary["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 2);
    for cell in cells {
        let id = cell["id"].as_str().unwrap();
        assert_eq!(cell["status"], "ok", "{cell}");
        let rep = out.join("cells").join(folder_of(&out, id)).join("rep-1");
        let record = json(&rep.join("get-set.json"));
        let attribution = &record["gc_attribution"];
        assert!(attribution.is_object(), "{id}: no gc_attribution in get-set.json: {record}");
        assert_eq!(cell["reps"][0]["phases"]["get-set"]["gc_attribution"], *attribution, "{id}: summary repeats it");
        let p99 = &attribution["p99"];
        let requests = p99["requests"].as_u64().unwrap();
        assert!(requests >= 20, "{id}: enough to judge (4,000 requests a step): {p99}");
        assert_eq!(p99["examined"].as_u64(), Some(requests), "{id}: every p99 request kept one by one: {p99}");
        assert_eq!(attribution["slowest"]["requests"], 100, "{id}");
        assert!(p99["gc_overlap"].as_u64().unwrap() <= requests, "{id}: {p99}");
        let share = attribution["gc_time_share"].as_f64().unwrap();
        assert!((0.0..1.0).contains(&share), "{id}: a share of the time: {share}");
        let verdict = &attribution["verdict"];
        assert_ne!(verdict["kind"], "cannot_tell", "{id}: {attribution:#}");
        assert!(!verdict["text"].as_str().unwrap().is_empty(), "{id}: {verdict}");
        assert!(attribution["clock_error_ms"].as_f64().unwrap() < 5.0, "{id}: {attribution:#}");
        assert!(rep.join("get-set.slow.csv").is_file(), "{id}");
    }
}
