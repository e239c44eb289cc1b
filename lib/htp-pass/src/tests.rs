//! The boundary and the registry, exercised with passes defined here.

use htp_dialects::diagnostics::collect_errors;
use melior::{
    ir::{block::BlockLike, operation::OperationLike, Module, OperationRef, RegionLike},
    pass::PassManager,
    Context,
};
use mlir_sys::MlirPass;

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

const PANICKING: PassDefinition =
    PassDefinition { argument: "test-panicking", description: "panics", anchor: "builtin.module", create_raw: create_panicking, options: &[] };
const FAILING: PassDefinition =
    PassDefinition { argument: "test-failing", description: "fails", anchor: "builtin.module", create_raw: create_failing, options: &[] };
const AT_OP: PassDefinition =
    PassDefinition { argument: "test-panicking-at-op", description: "panics at an op", anchor: "builtin.module", create_raw: create_at_op, options: &[] };

unsafe extern "C" fn create_panicking() -> MlirPass {
    PANICKING.external(panicking, pass_type_id!(), "TestPanicking", &[])
}
unsafe extern "C" fn create_failing() -> MlirPass {
    FAILING.external(failing, pass_type_id!(), "TestFailing", &[])
}
unsafe extern "C" fn create_at_op() -> MlirPass {
    AT_OP.external(panicking_at_an_op, pass_type_id!(), "TestPanickingAtOp", &[])
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
    static OTHER: [PassDefinition; 1] =
        [PassDefinition { argument: "test-failing", description: "another", anchor: "builtin.module", create_raw: create_panicking, options: &[] }];
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

const WITH_OPTIONS: PassDefinition = PassDefinition {
    argument: "test-options",
    description: "reads its options",
    anchor: "builtin.module",
    create_raw: create_failing,
    options: &[
        crate::PassOption { name: "level", description: "a number", default: "2" },
        crate::PassOption { name: "fast", description: "a flag", default: "false" },
    ],
};

#[test]
fn options_parse_against_the_declaration_with_defaults() {
    let values = crate::options::parse(&WITH_OPTIONS, "fast level=7").unwrap();
    assert_eq!(values, vec![("level", "7".to_string()), ("fast", "true".to_string())]);
    assert_eq!(crate::options::parse(&WITH_OPTIONS, "").unwrap(), vec![("level", "2".to_string()), ("fast", "false".to_string())]);
    assert_eq!(
        crate::options::parse(&WITH_OPTIONS, "speed=1").unwrap_err(),
        "'test-options' has no option 'speed' (its options: level, fast)"
    );
}
