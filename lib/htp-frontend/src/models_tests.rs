//! A toy programming model, registered as every model crate is: its entry
//! decorator, constructs that build ops from lowered arguments (a scalar,
//! a kernel by name), and the errors a user can make with it.

use melior::ir::Type;

use crate::tests::{import_err, import_ok};
use htp_api::models::{arguments_of, register_model, results_of, Construct, ConstructSite, LoopBody, LoopConstructor, ModelValue, ProgrammingModel};

fn twice<'c>(site: &ConstructSite<'c, '_>) -> Result<ModelValue<'c>, String> {
    let [ModelValue::Value(value)] = site.positional else { return Err("takes one run-time f32 scalar".into()) };
    let f32 = Type::float32(site.context);
    let sum = site.emit("arith.addf", &[*value, *value], &[f32], &[])?;
    Ok(ModelValue::Value(sum[0]))
}

fn launch<'c>(site: &ConstructSite<'c, '_>) -> Result<ModelValue<'c>, String> {
    let Some((ModelValue::Function(kernel), tensors)) = site.positional.split_first() else {
        return Err("takes a kernel, then its tensors".into());
    };
    let operands: Vec<_> = tensors
        .iter()
        .map(|t| match t {
            ModelValue::Value(v) => Ok(*v),
            _ => Err("the kernel's arguments must be tensors".to_string()),
        })
        .collect::<Result<_, _>>()?;
    let callee = melior::ir::attribute::FlatSymbolRefAttribute::new(site.context, kernel);
    site.emit("func.call", &operands, &[], &[("callee", callee.into())])?;
    Ok(ModelValue::None)
}

/// `for t in toy.each(n)`: an `scf.for` from 0 to `n` (an index) by 1.
fn each<'c>(site: &ConstructSite<'c, '_>) -> Result<LoopBody<'c>, String> {
    let index = Type::index(site.context);
    let stop = match site.positional {
        [ModelValue::Value(v)] => *v,
        [ModelValue::Int(n)] => {
            let value = melior::ir::attribute::IntegerAttribute::new(index, *n).into();
            site.emit("arith.constant", &[], &[index], &[("value", value)])?[0]
        }
        _ => return Err("takes one trip count".into()),
    };
    let zero = site.emit("arith.constant", &[], &[index], &[("value", melior::ir::attribute::IntegerAttribute::new(index, 0).into())])?[0];
    let one = site.emit("arith.constant", &[], &[index], &[("value", melior::ir::attribute::IntegerAttribute::new(index, 1).into())])?[0];
    let carried = site.carried_types();
    let mut operands = vec![zero, stop, one];
    operands.extend_from_slice(site.carried);
    let block_types: Vec<Type> = std::iter::once(index).chain(carried.iter().copied()).collect();
    let (op, block) = site.emit_loop("scf.for", &operands, &carried, &[], &block_types)?;
    let arguments = arguments_of(block);
    Ok(LoopBody { block, target: vec![arguments[0]], carried: arguments[1..].to_vec(), results: results_of(op), terminator: Some("scf.yield") })
}

/// A loop constructor that forgets the terminator its op needs.
fn broken<'c>(site: &ConstructSite<'c, '_>) -> Result<LoopBody<'c>, String> {
    let index = Type::index(site.context);
    let zero = site.emit("arith.constant", &[], &[index], &[("value", melior::ir::attribute::IntegerAttribute::new(index, 0).into())])?[0];
    let (_, block) = site.emit_loop("scf.for", &[zero, zero, zero], &[], &[], &[index])?;
    Ok(LoopBody { block, target: arguments_of(block), carried: vec![], results: vec![], terminator: None })
}

static TOY: ProgrammingModel = ProgrammingModel {
    name: "toy",
    namespace: "toy",
    description: "a toy programming model (tests)",
    entry_decorator: "program",
    dialects: &["arith", "func"], rules: &[],
    constructs: &[
        Construct { name: "twice", summary: "s + s", lower: twice },
        Construct { name: "launch", summary: "calls a kernel on tensors", lower: launch },
    ],
    loops: &[
        LoopConstructor { name: "each", summary: "0 .. n", lower: each },
        LoopConstructor { name: "broken", summary: "builds an invalid loop", lower: broken },
    ],
    blocks: &[],
    types: &[],
    pipeline: None,
    python: None,
};

const PROGRAM: &str = r#"
import htp
import toy

@htp.kernel
def scale(x: htp.Tensor[htp.f32, 16, 64], y: htp.Out[htp.f32, 16, 64]):
    y[:, :] = x[:, :] * 2.0

@toy.program
def main(x: htp.Tensor[htp.f32, 16, 64], y: htp.Out[htp.f32, 16, 64], s: htp.f32):
    t = toy.twice(s)
    if t > 1.0:
        toy.launch(scale, x, y)
    for step in toy.each(4):
        u = toy.twice(s)
        if step > 2:
            toy.launch(scale, x, y)
"#;

#[test]
fn a_model_function_is_lowered_with_its_constructs() {
    register_model(&TOY).unwrap();
    let text = import_ok(PROGRAM);
    assert!(text.contains(r#"func.func @main"#) && text.contains(r#"htp.model = "toy""#), "{text}");
    assert!(text.contains("arith.addf %arg2, %arg2 : f32"), "{text}");
    assert!(text.contains("call @scale(%arg0, %arg1)"), "{text}");
    // The loop constructor's scf.for, with the body inside and its variable bound.
    assert!(text.contains("scf.for %arg3 = %c0 to %c4 step %c1"), "{text}");
    assert!(text.contains("arith.cmpi sgt, %arg3"), "{text}");
    // The kernel it launches stays a kernel.
    assert!(text.contains("func.func @scale") && text.contains("htp.kernel"), "{text}");
}

#[test]
fn model_errors_are_located() {
    register_model(&TOY).unwrap();
    let unknown = import_err(&PROGRAM.replace("toy.twice(s)", "toy.thrice(s)"));
    assert_eq!(unknown.line, 11, "{unknown}");
    assert!(unknown.message.contains("the programming model 'toy' has no construct 'thrice' (it has: twice, launch)"), "{unknown}");
    let outside = import_err(&PROGRAM.replace("y[:, :] = x[:, :] * 2.0", "y[:, :] = x[:, :] * toy.twice(2.0)"));
    assert_eq!(outside.line, 7, "{outside}");
    assert!(outside.message.contains("toy.twice() belongs in a function of the programming model 'toy' (@toy.program)"), "{outside}");
    let refused = import_err(&PROGRAM.replace("toy.twice(s)", "toy.twice(x)"));
    assert!(refused.message.contains("toy.twice(): it built an invalid arith.addf: 'arith.addf' op operand #0 must be floating-point-like"), "{refused}");
    assert_eq!(refused.line, 11, "{refused}");
}

#[test]
fn model_loop_errors_are_located() {
    register_model(&TOY).unwrap();
    // A variable of the function reassigned in the body is carried through
    // the loop op the constructor built (its iter_args) and out of it.
    let carried = import_ok(&PROGRAM.replace("        u = toy.twice(s)", "        t = t + toy.twice(s)"));
    assert!(carried.contains("iter_args("), "{carried}");
    assert!(carried.contains("scf.yield %"), "{carried}");
    let unknown = import_err(&PROGRAM.replace("toy.each(4)", "toy.every(4)"));
    assert!(unknown.message.contains("the programming model 'toy' has no loop 'every' (it has: each, broken)"), "{unknown}");
    let broken = import_err(&PROGRAM.replace("toy.each(4)", "toy.broken()"));
    assert!(broken.message.contains("toy.broken(): the loop it built is invalid"), "{broken}");
    assert_eq!(broken.line, 14, "{broken}");
}

#[test]
fn names_are_unique_across_models_and_intrinsic_sets() {
    register_model(&TOY).unwrap();
    assert!(register_model(&TOY).is_ok(), "the same model again is a no-op");
    static CLASH: ProgrammingModel = ProgrammingModel {
        name: "other",
        namespace: "toy",
        description: "another model in toy's namespace",
        entry_decorator: "program",
        dialects: &[], rules: &[],
        constructs: &[],
        loops: &[],
        blocks: &[],
        types: &[],
        pipeline: None,
        python: None,
    };
    assert!(register_model(&CLASH).unwrap_err().contains("two programming models claim"));
    static KERNEL: ProgrammingModel = ProgrammingModel { name: "kernel", namespace: "k", description: "", entry_decorator: "k", dialects: &[], rules: &[], constructs: &[], loops: &[], blocks: &[], types: &[], pipeline: None, python: None };
    assert!(register_model(&KERNEL).is_err());
}
