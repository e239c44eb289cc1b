//! Runs the example tile programs in `examples/` through the CPU target and
//! compares with reference implementations written here.

use std::ffi::c_void;

use half::f16;
use htp_api::Dims;
use htp_backend_cpu::{compile, Argument};
use melior::ir::Module;

fn example(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn buffer<T>(data: &mut [T], sizes: &[i64]) -> Argument {
    let mut strides = vec![1i64; sizes.len()];
    for d in (0..sizes.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * sizes[d + 1];
    }
    Argument::Buffer { data: data.as_mut_ptr() as *mut c_void, sizes: Dims::from_slice(sizes), strides: strides.into() }
}

/// Deterministic values in [-4, 4).
fn values(n: usize, seed: u64) -> Vec<f32> {
    let mut state = seed;
    (0..n)
        .map(|_| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((state >> 40) as f32 / (1u64 << 24) as f32) * 8.0 - 4.0
        })
        .collect()
}

#[test]
fn softmax_matches_reference_with_a_ragged_tail() {
    let context = htp_dialects::new_context();
    let mut module = Module::parse(&context, &example("softmax.mlir")).unwrap();
    let compiled = compile(&context, &mut module).unwrap_or_else(|e| panic!("{e:?}"));

    // 37 rows = two full 16-row tiles and a 5-row tail.
    let (rows, cols) = (37usize, 256usize);
    let mut x = values(rows * cols, 1);
    let mut y = vec![f32::NAN; rows * cols];
    let shape = [rows as i64, cols as i64];
    unsafe { compiled.call("softmax", &[buffer(&mut x, &shape), buffer(&mut y, &shape)]) }.unwrap();

    for r in 0..rows {
        let row = &x[r * cols..(r + 1) * cols];
        let max = row.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
        let sum: f32 = row.iter().map(|v| (v - max).exp()).sum();
        for c in 0..cols {
            let expected = (row[c] - max).exp() / sum;
            let got = y[r * cols + c];
            assert!((got - expected).abs() <= 1e-6, "row {r} col {c}: {got} vs {expected}");
        }
    }
}

#[test]
fn gemm_f16_inputs_accumulate_in_f32() {
    let context = htp_dialects::new_context();
    let mut module = Module::parse(&context, &example("gemm.mlir")).unwrap();
    let compiled = compile(&context, &mut module).unwrap_or_else(|e| panic!("{e:?}"));

    let (m, n, k) = (256usize, 128usize, 512usize);
    let mut a: Vec<f16> = values(m * k, 2).into_iter().map(f16::from_f32).collect();
    let mut b: Vec<f16> = values(k * n, 3).into_iter().map(f16::from_f32).collect();
    let mut c = vec![0f32; m * n];
    unsafe {
        compiled.call(
            "gemm",
            &[buffer(&mut a, &[m as i64, k as i64]), buffer(&mut b, &[k as i64, n as i64]), buffer(&mut c, &[m as i64, n as i64])],
        )
    }
    .unwrap();

    for i in (0..m).step_by(17) {
        for j in (0..n).step_by(13) {
            let expected: f64 = (0..k).map(|p| a[i * k + p].to_f64() * b[p * n + j].to_f64()).sum();
            let got = c[i * n + j] as f64;
            assert!((got - expected).abs() <= 1e-3 * expected.abs().max(1.0), "[{i},{j}]: {got} vs {expected}");
        }
    }
}

#[test]
fn calling_an_unknown_function_is_an_error() {
    let context = htp_dialects::new_context();
    let mut module = Module::parse(&context, "func.func @f() { return }").unwrap();
    let compiled = compile(&context, &mut module).unwrap();
    assert_eq!(compiled.functions(), ["f"]);
    assert!(unsafe { compiled.call("g", &[]) }.is_err());
}

#[test]
fn invalid_ir_reports_mlir_errors_instead_of_crashing() {
    let context = htp_dialects::new_context();
    // Type-correct for the parser but rejected by the verifier.
    let source = "func.func @f(%m: memref<4x4xf32>) {\n  %c0 = arith.constant 0 : index\n  %t = tile.load %m[%c0] : memref<4x4xf32> -> !tile.tile<4x4xf32>\n  return\n}";
    context.attach_diagnostic_handler(|_| true);
    let module = Module::parse(&context, source);
    // The parser verifies too; either way no crash and an error comes back.
    if let Some(mut module) = module {
        let errors = compile(&context, &mut module).err().expect("invalid IR does not compile");
        assert!(!errors.is_empty());
    }
}
