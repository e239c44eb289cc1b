//! The boundary and the registry, exercised with passes defined here.

use htp_dialects::diagnostics::collect_errors;
use melior::{
    ir::{block::BlockLike, operation::OperationLike, Module, OperationRef, RegionLike},
    pass::PassManager,
    Context,
};

use crate::{Failure, PassDefinition, PipelineDefinition};

fn panicking<'c>(_: &'c Context, _: OperationRef<'c, '_>) -> Result<(), Failure<'c>> {
    panic!("an index out of range");
}

fn failing<'c>(_: &'c Context, op: OperationRef<'c, '_>) -> Result<(), Failure<'c>> {
    Err((op.location(), "the kernel needs 300 KiB of UB".into()))
}

fn panicking_at_an_op<'c>(_: &'c Context, op: OperationRef<'c, '_>) -> Result<(), Failure<'c>> {
    let function = op.region(0).unwrap().first_block().unwrap().first_operation().unwrap();
    crate::processing(function.location());
    panic!("while lowering the function");
}

crate::pass! {
    PANICKING = Pass<"test-panicking", "builtin.module"> { summary: "panics", dialects: [], run: panicking }
}
crate::pass! {
    FAILING = Pass<"test-failing", "builtin.module"> { summary: "fails", dialects: [], run: failing }
}
crate::pass! {
    AT_OP = Pass<"test-panicking-at-op", "builtin.module"> { summary: "panics at an op", dialects: [], run: panicking_at_an_op }
}
crate::pass! {
    ANOTHER_FAILING = Pass<"test-failing", "builtin.module"> { summary: "another", dialects: [], run: panicking }
}

/// Runs `pass` on a module with one function at `k.py:3:5`; the errors.
fn run(pass: &PassDefinition) -> Vec<String> {
    let context = htp_dialects::new_context();
    let mut module = Module::parse(&context, "module { func.func @k() { return } loc(\"k.py\":3:5) } loc(\"k.py\":1:1)").unwrap();
    let (ok, errors) = collect_errors(&context, || {
        let manager = PassManager::new(&context);
        manager.add_pass(pass.create());
        manager.run(&mut module).is_ok()
    });
    assert!(!ok, "the pass must fail");
    errors.iter().map(|e| e.to_string()).collect()
}

#[test]
fn a_panic_is_an_internal_error_at_the_anchor_and_the_process_lives_on() {
    let errors = run(&PANICKING);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].starts_with("k.py:1:1: error: internal error in an HTP pass on 'builtin.module': an index out of range"), "{errors:?}");
    // The boundary leaves the thread usable: the same pass fails the same way again.
    assert_eq!(run(&PANICKING), errors);
}

#[test]
fn a_panic_points_at_the_op_being_processed() {
    let errors = run(&AT_OP);
    assert!(errors[0].starts_with("k.py:3:5: error: internal error"), "{errors:?}");
}

#[test]
fn a_failure_is_a_diagnostic_at_its_location() {
    assert_eq!(run(&FAILING), ["k.py:1:1: error: the kernel needs 300 KiB of UB"]);
}

#[test]
fn the_registry_refuses_a_second_pass_or_pipeline_under_a_taken_name() {
    static ONE: [PassDefinition; 1] = [FAILING];
    static OTHER: [PassDefinition; 1] = [ANOTHER_FAILING];
    crate::register_passes(&ONE).unwrap();
    crate::register_passes(&ONE).unwrap();
    let error = crate::register_passes(&OTHER).unwrap_err();
    assert!(error.contains("two passes claim the name 'test-failing'"), "{error}");

    let pipeline = PipelineDefinition { name: "test-pipeline", description: "d", passes: "test-failing" };
    crate::register_pipeline(pipeline).unwrap();
    crate::register_pipeline(pipeline).unwrap();
    let error = crate::register_pipeline(PipelineDefinition { passes: "canonicalize", ..pipeline }).unwrap_err();
    assert!(error.contains("two pipelines claim the name 'test-pipeline'"), "{error}");
    let error = crate::register_pipeline(PipelineDefinition { name: "test-failing", ..pipeline }).unwrap_err();
    assert!(error.contains("conflicts with a pass"), "{error}");
    assert_eq!(crate::find_pipeline("test-pipeline"), Some(pipeline));
}

#[test]
fn a_registered_pipeline_runs_by_name() {
    static ONE: [PassDefinition; 1] = [FAILING];
    crate::register_passes(&ONE).unwrap();
    crate::register_pipeline(PipelineDefinition { name: "test-failing-pipeline", description: "d", passes: "test-failing" }).unwrap();
    let context = htp_dialects::new_context();
    let mut module = Module::parse(&context, "module {} loc(\"k.py\":1:1)").unwrap();
    let (ok, errors) = collect_errors(&context, || {
        let manager = PassManager::new(&context);
        melior::utility::parse_pass_pipeline(manager.as_operation_pass_manager(), "builtin.module(test-failing-pipeline)").unwrap();
        manager.run(&mut module).is_ok()
    });
    assert!(!ok);
    assert_eq!(errors[0].to_string(), "k.py:1:1: error: the kernel needs 300 KiB of UB");
}

#[test]
fn catch_quietly_returns_the_panic_message_and_nests() {
    let outer = crate::catch_quietly(|| {
        let inner = crate::catch_quietly(|| -> u32 { panic!("inner {}", 1) });
        assert_eq!(inner, Err("inner 1".to_string()));
        // The outer guard still holds after the inner one ends.
        panic!("outer")
    });
    assert_eq!(outer.map(|_: ()| ()), Err("outer".to_string()));
    assert_eq!(crate::catch_quietly(|| 7), Ok(7));
}

/// The option types a pass can declare, each with a default.
#[derive(Clone, Debug, PartialEq)]
enum Units {
    Known(i64),
    RunTime,
}

impl crate::OptionType for Units {
    const EXPECTED: &'static str = "a positive integer or ?";
    fn parse_option(text: &str) -> Option<Self> {
        match text {
            "?" => Some(Units::RunTime),
            _ => text.parse().ok().filter(|n| *n > 0).map(Units::Known),
        }
    }
}

crate::pass! {
    WITH_OPTIONS = Pass<"test-options", "builtin.module"> {
        summary: "reads its options",
        dialects: [],
        options: Options {
            #[option("level", default = "2", "a number")]
            level: i64,
            #[option("fast", default = "false", "a flag")]
            fast: bool,
            #[option("name", default = "", "a string")]
            name: String,
            #[option("budget", default = "1024", "a positive number")]
            budget: std::num::NonZeroUsize,
            #[option("count", default = "3", "a non-negative number")]
            count: u32,
            #[option("units", default = "?", "a type of the pass's own")]
            units: Units,
        },
        run: report_options,
    }
}

/// Fails with its options, so a test sees what the body got.
fn report_options<'c>(_: &'c Context, op: OperationRef<'c, '_>, options: &Options) -> Result<(), Failure<'c>> {
    Err((op.location(), format!("{options:?}")))
}

fn parse(text: &str) -> Result<Options, String> {
    WITH_OPTIONS.parse_options(text)
}

#[test]
fn options_take_their_defaults() {
    let defaults = Options { level: 2, fast: false, name: String::new(), budget: 1024.try_into().unwrap(), count: 3, units: Units::RunTime };
    assert_eq!(parse("").unwrap(), defaults);
    assert_eq!(parse("  ").unwrap(), defaults);
}

#[test]
fn options_parse_every_type() {
    let options = parse("level=-7 fast name=cluster budget=42 count=0 units=24").unwrap();
    assert_eq!(options.level, -7);
    assert!(options.fast);
    assert_eq!(options.name, "cluster");
    assert_eq!(options.budget.get(), 42);
    assert_eq!(options.count, 0);
    assert_eq!(options.units, Units::Known(24));
    assert!(!parse("fast=false").unwrap().fast);
    assert!(parse("fast=1").unwrap().fast);
    assert!(!parse("fast=0").unwrap().fast);
    // The last value given wins, as in MLIR.
    assert_eq!(parse("level=1 level=5").unwrap().level, 5);
}

#[test]
fn a_bad_value_names_the_pass_the_option_and_what_it_must_be() {
    let error = |text| parse(text).unwrap_err();
    assert_eq!(error("level=two"), "test-options: level must be an integer, got 'two'");
    assert_eq!(error("fast=yes"), "test-options: fast must be true or false, got 'yes'");
    assert_eq!(error("budget=0"), "test-options: budget must be a positive integer, got '0'");
    assert_eq!(error("count=-1"), "test-options: count must be a non-negative integer, got '-1'");
    assert_eq!(error("units=0"), "test-options: units must be a positive integer or ?, got '0'");
    // A bare key is `key=true`: fine for a flag, a type error for a number.
    assert_eq!(error("level"), "test-options: level must be an integer, got 'true'");
}

#[test]
fn an_unknown_key_lists_the_options() {
    assert_eq!(parse("speed=1").unwrap_err(), "'test-options' has no option 'speed' (its options: level, fast, name, budget, count, units)");
    assert_eq!(FAILING.create_with("speed=1").err(), Some("'test-failing' takes no options (given 'speed')".to_string()));
}

#[test]
fn the_definition_lists_the_options_for_help() {
    let names: Vec<_> = WITH_OPTIONS.options.iter().map(|o| (o.name, o.default)).collect();
    assert_eq!(names, [("level", "2"), ("fast", "false"), ("name", ""), ("budget", "1024"), ("count", "3"), ("units", "?")]);
    assert_eq!(WITH_OPTIONS.options[0].description, "a number");
    assert!(FAILING.options.is_empty());
}

#[test]
fn the_body_gets_the_options_of_its_instance() {
    let run_with = |text: &str| {
        let context = htp_dialects::new_context();
        let mut module = Module::parse(&context, "module {} loc(\"k.py\":1:1)").unwrap();
        let (_, errors) = collect_errors(&context, || {
            let manager = PassManager::new(&context);
            manager.add_pass(WITH_OPTIONS.create_with(text).unwrap());
            manager.run(&mut module).is_ok()
        });
        errors[0].to_string()
    };
    assert!(run_with("level=9 units=4").contains("level: 9, fast: false, name: \"\", budget: 1024, count: 3, units: Known(4)"), "{}", run_with("level=9 units=4"));
    assert!(run_with("").contains("level: 2,"));
}

#[test]
fn the_class_name_is_the_argument_in_camel_case() {
    assert_eq!(crate::definition::class_name("tile-peak-live-bytes"), "TilePeakLiveBytes");
    assert_eq!(crate::definition::class_name("htp-apply-pdl"), "HtpApplyPdl");
}
