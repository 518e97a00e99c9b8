use super::*;

fn gc() -> Parameter {
    let values = ["G1", "Parallel", "ZGC"].map(String::from).to_vec();
    Parameter { name: "gc".into(), domain: Domain::Choice(values), only_if: None }
}

fn heap() -> Parameter {
    Parameter { name: "heap_mb".into(), domain: Domain::Int { from: 64, to: 1024, log: true }, only_if: None }
}

fn pause() -> Parameter {
    let only_if = Some(Condition { parameter: "gc".into(), one_of: vec!["G1".into()] });
    Parameter { name: "pause_ms".into(), domain: Domain::Real { from: 5.0, to: 200.0, log: false }, only_if }
}

fn space() -> Space {
    Space::new(vec![gc(), heap(), pause()]).unwrap()
}

#[test]
fn a_point_decodes_to_scaled_values_and_the_largest_coordinate_s_choice() {
    let config = space().decode(&[0.1, 0.9, 0.2, 0.5, 0.5]);
    assert_eq!(config["gc"], Value::Choice("Parallel".into()));
    assert_eq!(config["heap_mb"], Value::Int(256), "log scale: the middle of 64..1024 is 256");
    assert!(!config.contains_key("pause_ms"), "pause_ms applies only to G1");
    let g1 = space().decode(&[1.0, 0.0, 0.0, 1.0, 0.5]);
    assert_eq!(g1["heap_mb"], Value::Int(1024));
    assert_eq!(g1["pause_ms"], Value::Real(102.5));
}

#[test]
fn encoding_is_decoding_s_inverse_and_an_inactive_parameter_sits_at_its_middle() {
    let space = space();
    let g1 = space.decode(&[1.0, 0.0, 0.0, 0.25, 0.75]);
    assert_eq!(space.decode(&space.encode(&g1)), g1);
    let parallel: Config =
        [("gc".to_string(), Value::Choice("Parallel".into())), ("heap_mb".to_string(), Value::Int(64))]
            .into_iter()
            .collect();
    assert_eq!(space.encode(&parallel), vec![0.0, 1.0, 0.0, 0.0, 0.5]);
    let mut with_stray = parallel.clone();
    with_stray.insert("pause_ms".into(), Value::Real(5.0));
    assert_eq!(space.encode(&with_stray), space.encode(&parallel), "a value its condition rules out is ignored");
}

#[test]
fn bad_spaces_are_refused_naming_the_parameter_and_the_fix() {
    let range = |from: i64, to: i64, log: bool| Parameter {
        name: "x".into(),
        domain: Domain::Int { from, to, log },
        only_if: None,
    };
    let refused = |parameters: Vec<Parameter>| Space::new(parameters).unwrap_err().to_string();
    assert_eq!(refused(vec![]), "the search space has no parameter; add one");
    assert_eq!(refused(vec![range(5, 1, false)]), "parameter 'x': `from` is above `to`; swap them");
    assert!(refused(vec![range(3, 3, false)]).starts_with("parameter 'x': the range is empty"));
    assert!(refused(vec![range(0, 8, true)]).contains("a log-scaled range must be above 0"));
    assert_eq!(refused(vec![heap(), heap()]), "parameter 'heap_mb' is defined twice");
    assert_eq!(
        refused(vec![heap(), pause()]),
        "parameter 'pause_ms': its condition names 'gc', which is no parameter of the space"
    );
    let mut on_shenandoah = pause();
    on_shenandoah.only_if = Some(Condition { parameter: "gc".into(), one_of: vec!["Shenandoah".into()] });
    assert_eq!(
        refused(vec![gc(), on_shenandoah]),
        "parameter 'pause_ms': its condition names 'Shenandoah', which is no value of 'gc'"
    );
    let twice = Parameter { name: "gc".into(), domain: Domain::Choice(vec!["G1".into(), "G1".into()]), only_if: None };
    assert_eq!(refused(vec![twice]), "parameter 'gc': value 'G1' is listed twice");
}

#[test]
fn reals_print_short() {
    assert_eq!(short_real(102.5), "102.5");
    assert_eq!(short_real(0.30000001), "0.3");
    assert_eq!(short_real(12345.678), "12346");
    assert_eq!(short_real(0.0012346), "0.001235");
}

#[test]
fn ordered_values_take_one_coordinate_in_equal_bins_in_their_order() {
    let values = ["56m", "72m", "96m", "160m"].map(String::from).to_vec();
    let heap = Parameter { name: "heap".into(), domain: Domain::Ordered(values), only_if: None };
    let space = Space::new(vec![gc(), heap]).unwrap();
    assert_eq!(space.dimensions(), 4, "three one-hot coordinates for gc, one for the ordered heap");
    let decoded = |u: f64| match &space.decode(&[1.0, 0.0, 0.0, u])["heap"] {
        Value::Choice(word) => word.clone(),
        other => panic!("{other:?}"),
    };
    let bins: Vec<String> = [0.0, 0.24, 0.25, 0.49, 0.5, 0.74, 0.75, 1.0].into_iter().map(decoded).collect();
    assert_eq!(bins, ["56m", "56m", "72m", "72m", "96m", "96m", "160m", "160m"], "a quarter of [0, 1] each");
    let at = |word: &str| {
        let config: Config =
            [("gc".to_string(), Value::Choice("G1".into())), ("heap".to_string(), Value::Choice(word.into()))]
                .into_iter()
                .collect();
        space.encode(&config)[3]
    };
    assert_eq!([at("56m"), at("72m"), at("96m"), at("160m")], [0.125, 0.375, 0.625, 0.875], "each bin's middle");
}
