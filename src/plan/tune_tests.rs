use super::*;

#[derive(Debug, Deserialize)]
struct Wrapper {
    tune: TuneFile,
}

const FACTS: PlanFacts = PlanFacts { has_capacity_phase: true, has_slo: true, rate_ladder: None };

fn checked(text: &str, facts: &PlanFacts) -> anyhow::Result<TunePlan> {
    let wrapper: Wrapper = toml::from_str(text).unwrap();
    tune_plan(Source { origin: "p.toml", text }, &wrapper.tune, facts)
}

fn refused(text: &str) -> String {
    checked(text, &FACTS).unwrap_err().to_string()
}

const SPACE: &str = "[tune]\nobjective = \"capacity\"\nbudget = { trials = 20, time = \"40m\" }\nseed = 7\n\
    [tune.space]\n\
    heap = { from = \"64m\", to = \"1g\", log = true }\n\
    gc = [\"G1\", \"Parallel\", \"ZGC\"]\n\
    \"-XX:MaxGCPauseMillis\" = { from = 5, to = 200, when = { gc = [\"G1\"] } }\n\
    \"-XX:UseStringDeduplication\" = { values = [true, false] }\n\
    \"-Dkv.share\" = { from = 0.1, to = 0.9 }\n\
    stack = { values = [\"256k\", \"1m\"], option = \"-Xss{}\" }\n";

#[test]
fn a_space_is_checked_into_parameters_and_the_options_each_value_sets() {
    let plan = checked(SPACE, &FACTS).unwrap();
    assert_eq!(
        (plan.objective, plan.trials, plan.time, plan.seed),
        (Objective::Capacity, 20, Some(Duration::from_secs(2400)), 7)
    );
    assert_eq!(plan.start, 8, "six parameters + 2");
    assert_eq!((plan.confirm, plan.method), (3, Method::Model), "each finalist measured three times, by the model");
    let names: Vec<&str> = plan.space.parameters().iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["-Dkv.share", "-XX:UseStringDeduplication", "gc", "heap", "stack", "-XX:MaxGCPauseMillis"]);
    let config: Config = [
        ("heap", Value::Int(384)),
        ("gc", Value::Choice("G1".into())),
        ("-XX:MaxGCPauseMillis", Value::Int(20)),
        ("-XX:UseStringDeduplication", Value::Choice("true".into())),
        ("-Dkv.share", Value::Real(0.3)),
        ("stack", Value::Choice("256k".into())),
    ]
    .into_iter()
    .map(|(name, value)| (name.to_string(), value))
    .collect();
    assert_eq!(
        plan.options(&config),
        [
            "-Dkv.share=0.3",
            "-XX:+UseStringDeduplication",
            "-XX:+UseG1GC",
            "-Xmx384m",
            "-Xss256k",
            "-XX:MaxGCPauseMillis=20"
        ]
    );
    assert_eq!(
        plan.describe(&config),
        "-Dkv.share=0.3 -XX:UseStringDeduplication=true gc=G1 heap=384m stack=256k -XX:MaxGCPauseMillis=20"
    );
}

#[test]
fn a_list_of_numbers_or_sizes_is_ordered_smallest_first_and_a_list_of_words_is_a_choice() {
    let plan = checked(
        "[tune]\nobjective = \"p99\"\nbudget = { trials = 12 }\n[tune.space]\nheap = { values = [\"160m\", \"56m\", \"1g\", \"96m\"] }\n\
         \"-XX:NewRatio\" = { values = [4, 1, 2] }\n\"-Dshare\" = { values = [0.75, 0.25, 0.5] }\n\
         \"-Dmode\" = { values = [\"fast\", \"safe\"] }\n",
        &FACTS,
    )
    .unwrap();
    let domains: Vec<(&str, &Domain)> = plan.space.parameters().iter().map(|p| (p.name.as_str(), &p.domain)).collect();
    let words = |list: &[&str]| list.iter().map(|word| word.to_string()).collect::<Vec<_>>();
    assert_eq!(
        domains,
        [
            ("-Dmode", &Domain::Choice(words(&["fast", "safe"]))),
            ("-Dshare", &Domain::Ordered(words(&["0.25", "0.5", "0.75"]))),
            ("-XX:NewRatio", &Domain::Ordered(words(&["1", "2", "4"]))),
            ("heap", &Domain::Ordered(words(&["56m", "96m", "160m", "1g"]))),
        ]
    );
    let config: Config = [("heap", "96m"), ("-XX:NewRatio", "2"), ("-Dshare", "0.5"), ("-Dmode", "safe")]
        .into_iter()
        .map(|(name, word)| (name.to_string(), Value::Choice(word.into())))
        .collect();
    assert_eq!(plan.options(&config), ["-Dmode=safe", "-Dshare=0.5", "-XX:NewRatio=2", "-Xmx96m"]);
}

#[test]
fn a_collector_choice_takes_known_names_or_options_as_written() {
    let text = "[tune]\nobjective = \"p99\"\nbudget = { trials = 5 }\n[tune.space]\ngc = [\"Serial\", \"-XX:+UseZGC -XX:+ZGenerational\"]\n";
    let plan = checked(text, &FACTS).unwrap();
    let config: Config = [("gc".to_string(), Value::Choice("Serial".into()))].into_iter().collect();
    assert_eq!(plan.options(&config), ["-XX:+UseSerialGC"]);
    assert!(
        refused(&text.replace("Serial", "CMS"))
            .contains("tune.space.gc: 'CMS' is no collector jload knows (Serial, Parallel, G1, ZGC, Shenandoah)")
    );
}

#[test]
fn bad_tune_blocks_are_refused_in_one_line_naming_the_line_and_the_fix() {
    let base = "[tune]\nobjective = \"capacity\"\nbudget = { trials = 20 }\n[tune.space]\n";
    assert_eq!(
        refused(&format!("{base}heap = {{ from = \"1g\", to = \"64m\" }}\n")),
        "p.toml: line 5: tune.space: parameter 'heap': `from` is above `to`; swap them"
    );
    assert!(refused(&format!("{base}\"-XX:A\" = {{ from = 3, to = 3 }}\n")).contains("the range is empty"));
    assert_eq!(
        refused(&format!("{base}\"-XX:A\" = {{ from = 5, to = 9, when = {{ collector = [\"G1\"] }} }}\n")),
        "p.toml: line 5: tune.space: parameter '-XX:A': its condition names 'collector', which is no parameter of the space"
    );
    assert_eq!(
        refused(
            "[tune]\nobjective = \"capacity\"\nbudget = { trials = 0 }\n[tune.space]\nheap = { from = \"64m\", to = \"1g\" }\n"
        ),
        "p.toml: line 3: tune.budget: trials must be at least 1"
    );
    assert!(
        refused(&base.replace("capacity", "speed"))
            .contains("tune.objective 'speed' is none of \"capacity\", \"p99\" or \"memory\"")
    );
    assert!(
        refused(&format!("{base}threads = {{ from = 1, to = 4 }}\n"))
            .contains("tune.space.threads: say which JVM option it sets")
    );
    assert!(refused(&format!("{base}heap = {{ from = \"64q\", to = \"1g\" }}\n")).contains("'64q' is not a size"));
    assert!(refused(&format!("{base}heap = {{ from = 64, to = 128 }}\n")).contains("heap is a size range"));
    assert!(
        refused(&format!("{base}stack = {{ values = [\"1m\", \"2m\"], option = \"-Xss\" }}\n"))
            .contains("has no {} where the value goes")
    );
    assert_eq!(
        refused(
            &format!("{base}heap = {{ from = \"64m\", to = \"1g\" }}\n")
                .replace("[tune]\n", "[tune]\nmethod = \"grid\"\n")
        ),
        "p.toml: line 2: tune.method 'grid' is neither \"model\" nor \"random\""
    );
    assert_eq!(
        refused(
            &format!("{base}heap = {{ from = \"64m\", to = \"1g\" }}\n").replace("[tune]\n", "[tune]\nconfirm = 0\n")
        ),
        "p.toml: line 2: tune.confirm must be at least 1 (1: no finalist measured again; 3: each measured 3 times)"
    );
    let no_capacity = PlanFacts { has_capacity_phase: false, has_slo: true, rate_ladder: None };
    let text = format!("{base}heap = {{ from = \"64m\", to = \"1g\" }}\n");
    assert!(checked(&text, &no_capacity).unwrap_err().to_string().contains("needs a phase with `capacity = …`"));
    let memory = text.replace("\"capacity\"", "\"memory\"");
    let no_slo = PlanFacts { has_capacity_phase: true, has_slo: false, rate_ladder: None };
    assert!(checked(&memory, &no_slo).unwrap_err().to_string().contains("objective \"memory\" needs an [slo]"));
}

#[test]
fn a_setter_knows_an_option_written_elsewhere_that_sets_the_same_thing() {
    let plan = checked(SPACE, &FACTS).unwrap();
    let sets = |parameter: &str, option: &str| plan.setters[parameter].sets_same(option);
    assert!(sets("heap", "-Xmx512m") && sets("heap", "-Xmx{memory*0.75}") && !sets("heap", "-Xms512m"));
    assert!(sets("gc", "-XX:+UseSerialGC") && sets("gc", "-XX:+UseZGC") && !sets("gc", "-XX:+UseNUMA"));
    assert!(
        sets("-XX:MaxGCPauseMillis", "-XX:MaxGCPauseMillis=50")
            && !sets("-XX:MaxGCPauseMillis", "-XX:MaxGCPauseMillisX=5")
    );
    assert!(sets("-XX:UseStringDeduplication", "-XX:-UseStringDeduplication"));
    assert!(sets("-XX:UseStringDeduplication", "-XX:UseStringDeduplication=true"));
    assert!(sets("-Dkv.share", "-Dkv.share=0.5") && !sets("-Dkv.share", "-Dkv.shared=1"));
    assert!(sets("stack", "-Xss2m") && !sets("stack", "-Xms2m"));
}

#[test]
fn a_parameter_with_args_sets_program_arguments_and_no_jvm_option() {
    let text = "[tune]\nobjective = \"p99\"\nbudget = { trials = 6 }\n[tune.space]\n\
                threads = { values = [10, 50, 200], args = [\"--container-threads\", \"{}\"] }\n\
                journal = { values = [true, false], args = [\"--no-request-journal\"] }\n\
                buffer = { from = \"1m\", to = \"8m\", args = [\"--buffer={}\"] }\n\
                heap = { from = \"64m\", to = \"1g\" }\n";
    let plan = checked(text, &FACTS).unwrap();
    let domains: Vec<(&str, &Domain)> = plan.space.parameters().iter().map(|p| (p.name.as_str(), &p.domain)).collect();
    assert_eq!(domains[1], ("heap", &Domain::Int { from: 64, to: 1024, log: false }));
    assert_eq!(domains[2], ("journal", &Domain::Choice(vec!["true".into(), "false".into()])));
    assert_eq!(domains[3], ("threads", &Domain::Ordered(vec!["10".into(), "50".into(), "200".into()])));
    let config = |journal: &str| -> Config {
        [
            ("threads", Value::Choice("50".into())),
            ("journal", Value::Choice(journal.into())),
            ("buffer", Value::Int(4)),
            ("heap", Value::Int(128)),
        ]
        .into_iter()
        .map(|(name, value)| (name.to_string(), value))
        .collect()
    };
    assert_eq!(plan.options(&config("true")), ["-Xmx128m"], "only heap sets a JVM option");
    assert_eq!(plan.args(&config("true")), ["--buffer=4m", "--no-request-journal", "--container-threads", "50"]);
    assert_eq!(plan.args(&config("false")), ["--buffer=4m", "--container-threads", "50"]);
    assert_eq!(plan.describe(&config("false")), "buffer=4m heap=128m journal=false threads=50");
    assert!(plan.setters["threads"].sets_same_arg("--container-threads"));
    assert!(plan.setters["buffer"].sets_same_arg("--buffer=2m") && !plan.setters["buffer"].sets_same_arg("--b"));
    assert!(plan.setters["journal"].sets_same_arg("--no-request-journal"));
    assert!(!plan.setters["heap"].sets_same_arg("--container-threads") && !plan.setters["threads"].sets_same("-Xmx1g"));

    let base = "[tune]\nobjective = \"p99\"\nbudget = { trials = 6 }\n[tune.space]\n";
    assert_eq!(
        refused(&format!("{base}threads = {{ values = [10, 50], args = \"--container-threads\" }}\n")),
        "p.toml: line 5: tune.space.threads: args must be a list of words, like args = [\"--no-request-journal\"] \
         or [\"--container-threads\", \"10\"], not \"--container-threads\""
    );
    assert_eq!(
        refused(&format!("{base}threads = {{ values = [10, 50], args = [\"--container-threads\"] }}\n")),
        "p.toml: line 5: tune.space.threads: args [\"--container-threads\"] has no {} where the value goes (only a \
         parameter of values = [true, false] may leave it out: its args are then given for true)"
    );
    assert_eq!(
        refused(&format!(
            "{base}threads = {{ values = [10, 50], args = [\"-t\", \"{{}}\"], option = \"-Dt={{}}\" }}\n"
        )),
        "p.toml: line 5: tune.space.threads: give option (a JVM option) or args (program arguments), not both"
    );
}

#[test]
fn at_rate_goes_with_memory_alone_above_zero_against_a_capacity_phase_or_as_every_measured_phases_rate() {
    let memory = "[tune]\nobjective = \"memory\"\nat_rate = 20000\nbudget = { trials = 5 }\n[tune.space]\n\
                  heap = { from = \"64m\", to = \"1g\" }\n";
    assert_eq!(checked(memory, &FACTS).unwrap().at_rate, Some(AtRate::Capacity(20000.0)));
    let plain = PlanFacts { has_capacity_phase: false, has_slo: true, rate_ladder: None };
    assert_eq!(checked(memory, &plain).unwrap().at_rate, Some(AtRate::Fixed(20000.0)));
    assert_eq!(checked(&memory.replace("at_rate = 20000\n", ""), &FACTS).unwrap().at_rate, None);
    assert_eq!(
        refused(&memory.replace("\"memory\"", "\"p99\"")),
        "p.toml: line 3: tune.at_rate goes with objective \"memory\" only (the least memory that holds the SLO at \
         that rate), not \"p99\""
    );
    assert_eq!(
        refused(&memory.replace("20000", "0")),
        "p.toml: line 3: tune.at_rate must be a rate above 0 req/s, not 0"
    );
    assert!(refused(&memory.replace("20000", "-5.5")).ends_with("tune.at_rate must be a rate above 0 req/s, not -5.5"));
    let ladder = PlanFacts { has_capacity_phase: false, has_slo: true, rate_ladder: Some("steps".into()) };
    assert_eq!(
        checked(memory, &ladder).unwrap_err().to_string(),
        "p.toml: line 3: tune.at_rate sets one fixed rate for every measured phase, and phase 'steps' is a ladder of \
         rates (`rates = […]`): drop one of them"
    );
}
