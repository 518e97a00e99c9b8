//! jload's integration suite as one test binary: each module is one suite (its file says what it tests), `common` the
//! helpers they share. One binary links the crate once; its tests run in one process, two at a time (libtest's
//! threads, in the order of their names), and the ones that weigh timings or load the machine coordinate through
//! `common::machine`. tests/zz_working_tree_untouched.rs, a binary of its own, checks the tree after this one has run.

mod common;

/// The longest tests, each run from its suite: libtest starts tests in the order of their names, so these, named to
/// sort before every other, start first and the rest run beside them instead of them running last and alone. Each
/// sits in a module named after its suite, so that `cargo test run_tune::` still selects it. The one that needs the
/// machine alone (`a_alone`) sorts first, so that no test has to be drained for it; then the sweeps, beside each other
/// (common::machine).
mod a_started_first {
    mod a_alone {
        mod run_box {
            #[test]
            fn a_quota_that_holds_the_jvm_back_is_in_box_csv_in_the_phase_record_and_named_by_is_it_the_gc() {
                crate::run_box::a_quota_that_holds_the_jvm_back_is_in_box_csv_in_the_phase_record_and_named_by_is_it_the_gc();
            }
        }
    }

    mod real_targets {
        #[test]
        fn a_tomcat_started_with_catalina_sh_run_on_jdk_17_and_25_is_measured_and_not_called_crashed() {
            crate::real_targets::a_tomcat_started_with_catalina_sh_run_on_jdk_17_and_25_is_measured_and_not_called_crashed();
        }
    }

    mod run_tune {
        #[test]
        fn a_bowl_search_finds_the_minimum_within_a_tenth_in_twelve_trials_across_an_interrupt() {
            crate::run_tune::a_bowl_search_finds_the_minimum_within_a_tenth_in_twelve_trials_across_an_interrupt();
        }

        #[test]
        fn a_memory_tune_at_a_rate_records_each_trials_memory_and_capacity_and_their_frontier() {
            crate::run_tune::a_memory_tune_at_a_rate_records_each_trials_memory_and_capacity_and_their_frontier();
        }
    }
}

mod bench;
mod bench_accounting;
mod bench_capacity;
mod bench_jvm;
mod bench_steady;
mod cgroup_box;
mod cli;
mod gc_attribution;
mod gclog_cli;
mod h2_session;
mod http2;
mod java_oom;
mod jfr;
mod jvm_attach;
mod jvm_gcstat;
mod merge;
mod pinning;
mod real_targets;
mod remote;
mod report;
mod report_big_sweep;
mod report_gc;
mod report_hosts;
mod report_html;
mod report_ladder;
mod report_memory;
mod run;
mod run_args;
mod run_attribution;
mod run_box;
mod run_box_search;
mod run_capacity;
mod run_nmt;
mod run_ownership;
mod run_profile;
mod run_protocols;
mod run_saturation;
mod run_stalls;
mod run_tune;
mod sshnet;
mod tls;

/// With `autotests = false` cargo builds no file of tests/ unless it is named here or in Cargo.toml, so a suite that
/// is not declared would never run: every suite file is a module of this binary.
#[test]
fn every_suite_file_is_a_module_of_this_binary() {
    let dir = common::repo().join("tests");
    let declared = std::fs::read_to_string(dir.join("tests.rs")).unwrap();
    let own_binaries = ["tests", "zz_working_tree_untouched"];
    let mut undeclared: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|entry| entry.unwrap().file_name().into_string().ok())
        .filter_map(|name| name.strip_suffix(".rs").map(str::to_string))
        .filter(|suite| !own_binaries.contains(&suite.as_str()) && !declared.contains(&format!("\nmod {suite};\n")))
        .collect();
    undeclared.sort();
    assert!(
        undeclared.is_empty(),
        "tests/{{{}}}.rs: declare each as `mod NAME;` in tests/tests.rs",
        undeclared.join(",")
    );
}
