//! The JIT compiles each kernel body once: the kernel, its chunk and its
//! bounds function are `no_inline`, so the wrappers around them (the C
//! interface, the ExecutionEngine's packed entries) stay calls.

use htp_backend_cpu::compile;
use melior::ir::{operation::OperationLike, Module, RegionLike};

#[test]
fn kernel_bodies_are_not_inlined_into_their_wrappers() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/softmax.mlir");
    let source = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let context = htp_dialects::new_context();
    let mut module = Module::parse(&context, &source).expect("softmax.mlir parses");
    compile(&context, &mut module).unwrap_or_else(|e| panic!("{e:?}"));

    let (mut bodies, mut wrappers) = (Vec::new(), Vec::new());
    for function in htp_ir::query::ops_named(module.as_operation(), "llvm.func") {
        let name = htp_ir::query::symbol_name(function).unwrap_or_default();
        let no_inline = function.attribute("no_inline").is_ok();
        let is_private = function.attribute("linkage").is_ok_and(|l| l.to_string() != "#llvm.linkage<external>");
        if name.starts_with("_mlir_ciface_") {
            assert!(!no_inline, "{name}: a wrapper stays inlinable");
            wrappers.push(name);
        } else if function.region(0).is_ok_and(|r| r.first_block().is_some()) && !is_private {
            assert!(no_inline, "{name}: a kernel body is kept out of line");
            bodies.push(name);
        }
    }
    assert!(bodies.contains(&"softmax".to_string()), "{bodies:?}");
    assert_eq!(wrappers.len(), bodies.len(), "a wrapper per body: {wrappers:?} {bodies:?}");
}
