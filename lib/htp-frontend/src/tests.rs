//! End-to-end tests of the import: source text in, verified MLIR or
//! diagnostics out.

use super::*;

pub(crate) fn import_ok(src: &str) -> String {
    let ctx = htp_dialects::new_context();
    let result = import_python(&ctx, src, "k.py", 1, &Constants::new());
    match result {
        Ok(m) => m.module.as_operation().to_string(),
        Err(d) => panic!("unexpected errors:\n{d}"),
    }
}

pub(crate) fn import_err(src: &str) -> Diagnostic {
    let ctx = htp_dialects::new_context();
    let result = import_python(&ctx, src, "k.py", 1, &Constants::new());
    match result {
        Ok(m) => panic!("expected an error, got\n{}", m.module.as_operation()),
        Err(d) => d.first().cloned().expect("at least one diagnostic"),
    }
}

const SOFTMAX: &str = r#"
import htp

@htp.kernel
def softmax(x: htp.Tensor[htp.f32, "N", 256], y: htp.Out[htp.Tensor[htp.f32, "N", 256]], BLOCK: htp.Const[int] = 16):
    for i in range(0, x.shape[0], BLOCK):
        t = x[i:i + BLOCK, :]
        e = htp.exp(t - htp.row_max(t))
        y[i:i + BLOCK, :] = e / htp.row_sum(e)
"#;

#[test]
fn imports_softmax_with_signature_and_contract() {
    let ctx = htp_dialects::new_context();
    let m = import_python(&ctx, SOFTMAX, "k.py", 1, &Constants::new()).unwrap();
    let text = m.module.as_operation().to_string();
    assert!(text.contains("func.func @softmax(%arg0: memref<?x256xf32>, %arg1: memref<?x256xf32>)"), "{text}");
    assert!(text.contains("htp.outputs = array<i64: 1>"), "{text}");
    assert!(text.contains("llvm.emit_c_interface"), "{text}");
    assert!(text.contains("valid = ?x256"), "{text}");
    let sig = &m.kernels[0];
    assert_eq!(sig.name, "softmax");
    assert_eq!(sig.params.len(), 3);
    assert_eq!(sig.params[0].kind, ParamKind::Tensor {
        elem: lower::types::Elem::F32,
        shape: vec![DimSig::Symbol("N".into()), DimSig::Static(256)],
        is_output: false,
        in_out: false,
        layout: crate::TensorLayout::RowMajor,
    });
    assert_eq!(sig.params[2].kind, ParamKind::Constant { value: ConstValue::Int(16) });
    assert_eq!(sig.params[2].arg_index, None);
    assert_eq!(sig.outputs(), vec![1]);
}

#[test]
fn constants_specialise_the_kernel() {
    let ctx = htp_dialects::new_context();
    let mut c = Constants::new();
    c.insert("BLOCK", ConstValue::Int(32));
    let m = import_python(&ctx, SOFTMAX, "k.py", 1, &c).unwrap();
    assert!(m.module.as_operation().to_string().contains("!tile.tile<32x256xf32, valid = ?x256>"));
}

#[test]
fn every_op_has_the_users_location() {
    let ctx = htp_dialects::new_context();
    let m = import_python(&ctx, SOFTMAX, "soft.py", 100, &Constants::new()).unwrap();
    let flags = melior::ir::operation::OperationPrintingFlags::new().enable_debug_info(true, false);
    let text = m.module.as_operation().to_string_with_flags(flags).unwrap();
    // `e = htp.exp(...)` is line 8 of the text, so line 107 of the file.
    assert!(text.contains("loc(\"soft.py\":107:13)"), "{text}");
    for line in text.lines().filter(|l| l.contains("tile.") && l.contains(" = ")) {
        assert!(line.contains("loc(\"soft.py\":") || line.contains("loc(#loc"), "op without a location: {line}");
    }
}

#[test]
fn loop_carried_accumulator_and_fused_matmul() {
    let text = import_ok(r#"
@htp.kernel
def gemm(a: htp.Tensor[htp.f16, 128, 64], b: htp.Tensor[htp.f16, 64, 128], c: htp.Out[htp.f32, 128, 128]):
    for i in range(0, 128, 64):
        acc = htp.zeros((64, 128), htp.f32)
        for k in range(0, 64, 32):
            acc += a[i:i + 64, k:k + 32] @ b[k:k + 32, :]
        c[i:i + 64, :] = acc
"#);
    assert!(text.contains("iter_args"), "{text}");
    assert!(text.contains("tile.matmul %") && text.contains(", %arg"), "{text}");
    assert!(!text.contains("tile.add"), "the add must be fused: {text}");
}

#[test]
fn user_errors_have_file_line_col() {
    let d = import_err("@htp.kernel\ndef f(x: htp.Tensor[htp.f32, 16, 16]):\n    while True:\n        pass\n");
    assert_eq!((d.kind, d.line, d.col), (DiagnosticKind::Unsupported, 3, 5));
    let d = import_err("@htp.kernel\ndef f(x: htp.Tensor[htp.f32, 16, 16]):\n    t = htp.foo(x[:, :])\n");
    assert_eq!((d.kind, d.line, d.col), (DiagnosticKind::UnknownName, 3, 9));
    let d = import_err(
        "@htp.kernel\ndef f(x: htp.Tensor[htp.f32, 16, 16], y: htp.Tensor[htp.f16, 16, 16]):\n    t = x[:, :] + y[:, :]\n",
    );
    assert_eq!((d.kind, d.line), (DiagnosticKind::Type, 3));
    let d = import_err(
        "@htp.kernel\ndef f(x: htp.Tensor[htp.f32, 16, 16], y: htp.Tensor[htp.f32, 16, 8]):\n    t = x[:, :] + y[:, :]\n",
    );
    assert_eq!((d.kind, d.line), (DiagnosticKind::Shape, 3));
    assert!(d.to_string().starts_with("k.py:3:9: error: shape mismatch"), "{d}");
}

#[test]
fn loop_carried_type_change_is_an_error() {
    let d = import_err(r#"
@htp.kernel
def f(x: htp.Tensor[htp.f32, 64, 64], y: htp.Out[htp.f32, 64, 64]):
    acc = htp.zeros((16, 64), htp.f32)
    for i in range(0, 64, 16):
        acc = htp.row_sum(x[i:i + 16, :])
    y[0:16, :] = acc
"#);
    assert_eq!(d.kind, DiagnosticKind::Type);
    assert!(d.message.contains("keeps one type"), "{d}");
}

#[test]
fn helpers_are_inlined_and_branches_merge() {
    let text = import_ok(r#"
@htp.func
def scale(t, s):
    return t * s

@htp.kernel
def f(x: htp.Tensor[htp.f32, 16, 16], y: htp.Out[htp.f32, 16, 16], n: htp.i32):
    t = x[:, :]
    if n > 0:
        t = scale(t, 2.0)
    else:
        t = htp.relu(t)
    y[:, :] = t
"#);
    assert!(text.contains("scf.if"), "{text}");
    assert!(text.contains("tile.mul"), "{text}");
    assert!(!text.contains("func.call"), "{text}");
}

#[test]
fn malformed_sources_never_panic() {
    let ctx = htp_dialects::new_context();
    let pieces = [
        "@htp.kernel\ndef f(", "@htp.kernel\ndef f(x: htp.Tensor[", "x[", "@htp.kernel\ndef f():\n  return (",
        "@htp.kernel\ndef f(x: htp.Tensor[htp.f32, 4, 4]):\n    y = x[::2, :]\n",
        "@htp.kernel\ndef f(x: htp.Tensor[htp.f32, 4, 4]):\n    y = x[0:0, :]\n",
        "@htp.kernel\ndef f(x: htp.Tensor[htp.f32, 4, 4]):\n    y = x[:, :, :]\n",
        "@htp.kernel\ndef f(x: htp.Tensor[htp.f32, 4, 4]):\n    y = x[5:9, :]\n",
        "@htp.kernel\ndef f(x: htp.Tensor[htp.f32, 4, 4]):\n    y = htp.iota((0, 4), 0)\n",
        "@htp.kernel\ndef f(x: htp.Tensor[htp.f32, 4, 4]):\n    y = 1 // 0\n",
        "@htp.kernel\ndef f(x: htp.Tensor[htp.f32, 4, 4]):\n    y = 99999999999999999999999\n",
        "@htp.kernel\ndef f(x: htp.Tensor[htp.f32, 4, 4]):\n    y = f(x)\n",
        "@htp.kernel\ndef f(x: htp.Tensor[htp.f32, 4, 4]):\n    for i in range(0, 4, -1):\n        pass\n",
        "@htp.kernel\ndef f(x: htp.Tensor[htp.i1, 4, 4]):\n    y = htp.exp(x[:, :])\n",
        "@htp.kernel\ndef f(x: htp.Tensor[htp.f32, 4, 4]):\n    y = [a for a in x]\n",
        "\t@htp.kernel\n\tdef f():\n\t\tpass\n",
        "@htp.kernel\ndef f(x: htp.Tensor[htp.f32, 4, 4]):\n    x[:, :] = htp.full((4, 4), 1.5, htp.i32)\n",
        "@htp.kernel\ndef f(x: htp.Tensor[htp.f32, 4, 4]):\n    a, b = x[:, :]\n",
        "@htp.kernel\ndef f(x: htp.Tensor[htp.f32, 4, 4]):\n    y = htp.where(x[:, :], 1, 2)\n",
        "@htp.kernel\ndef f(x: htp.Tensor[htp.f32, 4, 4]):\n    y = x[:, :] @ x[:, :]\n",
        "@htp.kernel\ndef f(x: htp.Tensor[htp.i8, 4, 4]):\n    y = x[:, :] @ x[:, :]\n",
    ];
    for src in pieces {
        // Every prefix of every piece: truncated programs are the commonest malformed input.
        let mut cut = 0;
        while cut <= src.len() {
            if src.is_char_boundary(cut) {
                let _ = import_python(&ctx, &src[..cut], "fuzz.py", 1, &Constants::new());
            }
            cut += 1;
        }
    }
}

#[test]
fn builtin_list_is_documented() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/language.md")).unwrap_or_default();
    for f in BUILTIN_FUNCTIONS {
        assert!(doc.contains(&format!("`htp.{f}")) || doc.contains(&format!("`{f}(")), "docs/language.md does not document {f}");
    }
}
