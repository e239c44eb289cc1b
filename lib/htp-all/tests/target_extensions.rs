//! A target extension adds a capability and a lowering stage to `cpu`
//! without editing it (`htp_api::extensions`): a program holding an op of an
//! extension dialect is refused on `cpu` until the extension is registered,
//! then compiles (the stage at `before-lowering` rewrites the op into tile
//! ops) and runs. Its own test binary: the extension stays registered for
//! the rest of the process.

use htp_api::{extensions, Argument, TargetExtension};

/// An extension dialect with one op: `twice.double(x)` is `x + x`.
const TWICE_IRDL: &str = r#"
irdl.dialect @twice {
  irdl.operation @double {
    %any = irdl.any
    irdl.operands(x: %any)
    irdl.results(y: %any)
  }
}
"#;

/// Stands for a front end that produces the op: `tile.add(x, x)` -> `twice.double(x)`.
const FORM_TWICE: &str = r#"
pdl.pattern @form : benefit(1) {
  %type = pdl.type
  %x = pdl.operand
  %add = pdl.operation "tile.add"(%x, %x : !pdl.value, !pdl.value) -> (%type : !pdl.type)
  pdl.rewrite %add {
    %double = pdl.operation "twice.double"(%x : !pdl.value) -> (%type : !pdl.type)
    pdl.replace %add with %double
  }
}
"#;

/// The extension's lowering: `twice.double(x)` -> `tile.add(x, x)`.
const TWICE_TO_TILE: &str = r#"
pdl.pattern @lower : benefit(1) {
  %type = pdl.type
  %x = pdl.operand
  %double = pdl.operation "twice.double"(%x : !pdl.value) -> (%type : !pdl.type)
  pdl.rewrite %double {
    %add = pdl.operation "tile.add"(%x, %x : !pdl.value, !pdl.value) -> (%type : !pdl.type)
    pdl.replace %double with %add
  }
}
"#;

const SOURCE: &str = "import htp\n\n@htp.kernel\ndef doubled(x: htp.Tensor[htp.f32, 16, 64], y: htp.Out[htp.f32, 16, 64]):\n    t = x[0:16, :]\n    y[0:16, :] = t + t\n";

fn compile(target: &str) -> Result<htp_driver::CompiledKernel, htp_driver::CompileError> {
    let sources = [htp_api::SourceText::new(SOURCE, "doubled.py", 1)];
    let pipelines = ["htp-apply-pdl{patterns=test-form-twice}".to_string()];
    let request = htp_driver::Request {
        sources: &sources,
        kernel: "doubled",
        constants: htp_api::Constants::new(),
        target,
        pipelines: &pipelines,
        dump_ir: None,
    };
    htp_driver::compile(&request)
}

#[test]
fn an_extension_adds_a_capability_and_a_stage_to_cpu() {
    htp_all::register_all().unwrap();
    htp_dialects::irdl::register("test-twice", TWICE_IRDL).unwrap();
    htp_transforms::apply_pdl::register_patterns("test-form-twice", "test-twice", FORM_TWICE).unwrap();
    htp_transforms::apply_pdl::register_patterns("test-twice-to-tile", "test-twice", TWICE_TO_TILE).unwrap();

    // Without the extension: refused at the op's line, before any lowering.
    let error = compile("cpu").err().expect("refused").to_string();
    assert!(
        error.contains("doubled.py:6:") && error.contains("error: the 'twice' dialect is not available on target 'cpu' (no registered target provides it)"),
        "{error}"
    );

    // Points the target does not have, and pipelines that do not parse, are refused.
    let extension = |stages: Vec<(&str, &str)>| TargetExtension {
        target: "cpu".into(),
        name: "twice-on-cpu".into(),
        capabilities: vec!["dialect:twice".into()],
        stages: stages.into_iter().map(|(p, s)| (p.to_string(), s.to_string())).collect(),
    };
    let error = htp_api::register_target_extension(extension(vec![("after-everything", "cse")])).unwrap_err();
    assert!(error.contains("target 'cpu' has no extension point 'after-everything' (its points: before-lowering, after-tile-to-linalg, before-llvm)"), "{error}");
    let error = htp_api::register_target_extension(extension(vec![("before-lowering", "no-such-pass")])).unwrap_err();
    assert!(error.contains("does not parse"), "{error}");
    let error = htp_api::register_target_extension(TargetExtension { target: "tpu".into(), ..extension(vec![]) }).unwrap_err();
    assert!(error.contains("no target named 'tpu'"), "{error}");

    let twice = extension(vec![("before-lowering", "htp-apply-pdl{patterns=test-twice-to-tile}")]);
    htp_api::register_target_extension(twice.clone()).unwrap();
    htp_api::register_target_extension(twice.clone()).unwrap(); // the same again: a no-op
    let other = TargetExtension { capabilities: vec![], ..twice.clone() };
    assert!(htp_api::register_target_extension(other).unwrap_err().contains("two extensions of target 'cpu' claim the name 'twice-on-cpu'"));
    // In-tree extensions of cpu (WSP's) come first, in registration order.
    assert_eq!(extensions::target_extensions("cpu").last(), Some(&twice));
    assert!(extensions::target_extensions("cpu").iter().all(|e| e.name != "twice-on-cpu" || *e == twice));
    let cpu = htp_api::find_target("cpu").ok().unwrap();
    assert!(htp_api::capabilities::provided(cpu).contains(&"dialect:twice".to_string()));

    // With it: the capability check passes, the stage lowers the op away, the kernel runs.
    let compiled = compile("cpu").unwrap_or_else(|e| panic!("{e}"));
    assert!(compiled.stages[0].1.contains("twice.double"), "{}", compiled.stages[0].1);
    let x: Vec<f32> = (0..16 * 64).map(|i| i as f32).collect();
    let mut y = vec![0f32; 16 * 64];
    let buffer = |data: *mut std::ffi::c_void| Argument::Buffer { data, sizes: htp_api::Dims::from_slice(&[16, 64]), strides: htp_api::Dims::from_slice(&[64, 1]) };
    let arguments = [buffer(x.as_ptr() as *mut _), buffer(y.as_mut_ptr() as *mut _)];
    unsafe { compiled.artifact.run("doubled", &arguments) }.unwrap();
    assert!(y.iter().zip(&x).all(|(y, x)| *y == 2.0 * x));

    // Other targets are unchanged: PTO still refuses the op.
    let error = compile("pto-a2a3sim").err().expect("refused").to_string();
    assert!(error.contains("the 'twice' dialect is not available on target 'pto-a2a3sim' (targets that provide it: cpu)"), "{error}");

    // The same extension on a PTO target: its pipeline runs in parts, the stage first.
    let pto = TargetExtension {
        target: "pto-a2a3sim".into(),
        name: "twice-on-pto".into(),
        capabilities: vec!["dialect:twice".into()],
        stages: vec![("before-lowering".into(), "htp-apply-pdl{patterns=test-twice-to-tile}".into()), ("before-emit".into(), "cse".into())],
    };
    htp_api::register_target_extension(pto).unwrap();
    let compiled = compile("pto-a2a3sim").unwrap_or_else(|e| panic!("{e}"));
    let files = compiled.artifact.files();
    assert!(files.iter().any(|f| f.path == "manifest.json" && f.as_text().is_some()), "{:?}", files.iter().map(|f| &f.path).collect::<Vec<_>>());
    assert!(files.iter().any(|f| f.path.starts_with("kernels/") && f.as_text().is_some_and(|t| t.contains("TADD"))));
}
