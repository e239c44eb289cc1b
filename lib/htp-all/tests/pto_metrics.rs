//! The PTO backend's static metrics of kernels written in Python: the
//! front end's output lowered by the backend's pipeline (here, not in the
//! backend's own tests, because no backend depends on the front end).

use htp_backend_pto::metrics::{evaluate, A2A3_CORES, MEMORIES};
use htp_backend_pto::dialect::Location;

use htp_frontend::{import_python_sources, Constants, SourceText};
use melior::ir::Module;

/// Lowers a Python kernel with the backend's pipeline.
fn lowered<'c>(context: &'c melior::Context, source: &str) -> Module<'c> {
    let sources = [SourceText::new(source, "kernel.py", 1)];
    let mut module = import_python_sources(context, &sources, &Constants::new()).expect("the kernel imports").module;
    htp_backend_pto::lower(context, &mut module).expect("the kernel lowers");
    module
}

#[test]
fn a_streaming_kernel_moves_each_element_once() {
    let context = htp_backend_pto::new_context().unwrap();
    let module = lowered(
        &context,
        r#"
@htp.kernel
def vector_add(a: htp.Tensor[htp.f32, "N", 256], b: htp.Tensor[htp.f32, "N", 256], c: htp.Out[htp.f32, "N", 256]):
    for i in range(0, a.shape[0], 16):
        c[i:i + 16, :] = a[i:i + 16, :] + b[i:i + 16, :]
"#,
    );
    let shape = vec![100, 256];
    let metrics = evaluate(module.as_operation(), &[shape.clone(), shape.clone(), shape], &[], A2A3_CORES).unwrap();
    let tensor = 100 * 256 * 4;
    assert_eq!((metrics.read_bytes.clone(), metrics.write_bytes.clone()), (vec![tensor, tensor, 0], vec![0, 0, tensor]));
    // 7 row blocks, one per task (48 vector cores).
    assert_eq!((metrics.tasks, metrics.tloads, metrics.tstores), (7, 14, 7));
    let expected: Vec<(Location, i64)> = MEMORIES.iter().zip([3 * 16 * 256 * 4, 0, 0, 0, 0, 0]).map(|(m, b)| (*m, b)).collect();
    assert_eq!(metrics.peak_bytes, expected);
    assert_eq!(metrics.set_flags, metrics.wait_flags);
}

#[test]
fn a_blocked_gemm_reads_a_once_per_column_block() {
    let context = htp_backend_pto::new_context().unwrap();
    let module = lowered(
        &context,
        r#"
@htp.kernel
def gemm(a: htp.Tensor[htp.f16, "M", "K"], b: htp.Tensor[htp.f16, "K", "N"], c: htp.Out[htp.f32, "M", "N"]):
    for i in range(0, a.shape[0], 64):
        for j in range(0, b.shape[1], 64):
            acc = htp.zeros((64, 64), htp.f32)
            for k in range(0, a.shape[1], 32):
                acc += htp.pad(a[i:i + 64, k:k + 32], 0.0) @ htp.pad(b[k:k + 32, j:j + 64], 0.0)
            c[i:i + 64, j:j + 64] = acc
"#,
    );
    let (m, n, k) = (128, 192, 96);
    let metrics = evaluate(module.as_operation(), &[vec![m, k], vec![k, n], vec![m, n]], &[], A2A3_CORES).unwrap();
    assert_eq!(metrics.read_bytes, vec![m * k * 2 * (n / 64), k * n * 2 * (m / 64), 0]);
    assert_eq!(metrics.write_bytes, vec![0, 0, m * n * 4]);
    assert_eq!(metrics.tasks, 2);
    let peak = |memory: Location| metrics.peak_bytes.iter().find(|(l, _)| *l == memory).map(|(_, b)| *b);
    assert_eq!(peak(Location::Acc), Some(64 * 64 * 4));
    assert_eq!(peak(Location::Left), Some(64 * 32 * 2));
    assert_eq!(peak(Location::Vec), Some(0));
}
