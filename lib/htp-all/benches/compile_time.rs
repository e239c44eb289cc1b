//! Compile time of each example in `examples/python`, in a warm process,
//! split by stage:
//!   front end    Python source -> verified tile MLIR (Rust parser, AST
//!                mutators, lowering, verification)
//!   htp passes   convert-tile-to-linalg
//!   mlir passes  bufferization and MLIR's lowering to the LLVM dialect
//!   llvm codegen LLVM IR translation, optimisation and JIT code generation
//!   first call   the whole of the above, then one run on small inputs is
//!                what the first call of a kernel costs (not measured here:
//!                see docs/performance.md for the Python measurement)
//! Each stage is the median of RUNS repetitions. A second table does the
//! same for the PTO target (pto-a2a3sim): the PTO passes (convert-tile-to-pto,
//! pto-allocate-tiles, pto-insert-sync) and writing the package (C++ kernels,
//! orchestration, manifest).
//!
//! Run: `cargo bench -p htp-all --bench compile_time` (`-- pto`: the PTO
//! table only)

use std::{path::Path, time::Instant};

use htp_frontend::{import_python, Constants};
use melior::{ir::operation::OperationLike, pass::PassManager, utility::parse_pass_pipeline};

const RUNS: usize = 15;
const EXAMPLES: &[&str] = &["vector_add", "softmax", "rmsnorm", "gemm", "flash_attention"];

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(|a, b| a.partial_cmp(b).unwrap());
    samples[samples.len() / 2]
}

/// An example's file name and source text.
fn example(examples: &Path, name: &str) -> (String, String) {
    let file = examples.join(format!("{name}.py"));
    (file.display().to_string(), std::fs::read_to_string(&file).expect("example exists"))
}

/// Imports an example into `context`, adding the time it took to `samples`.
fn timed_import<'c>(context: &'c melior::Context, (file_name, source): &(String, String), samples: &mut Vec<f64>) -> htp_frontend::ImportedModule<'c> {
    let start = Instant::now();
    let imported = import_python(context, source, file_name, 1, &Constants::new()).expect("example imports");
    samples.push(start.elapsed().as_secs_f64());
    imported
}

fn run_pipeline(context: &melior::Context, module: &mut melior::ir::Module, pipeline: &str) {
    let manager = PassManager::new(context);
    parse_pass_pipeline(manager.as_operation_pass_manager(), pipeline).expect("pipeline parses");
    manager.run(module).expect("pipeline succeeds on the examples");
}

fn main() {
    htp_all::register_all().expect("in-tree extensions register");
    melior::utility::register_all_passes();
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/python");
    // `cargo bench -p htp-all --bench compile_time -- pto`: the PTO table only.
    if std::env::args().any(|a| a == "pto") {
        return pto(&examples);
    }
    println!("{:<16} {:>12} {:>12} {:>12} {:>13} {:>10}", "example", "front end", "htp passes", "mlir passes", "llvm codegen", "total");
    for name in EXAMPLES {
        let text = example(&examples, name);
        let (mut front, mut htp, mut mlir, mut llvm) = (vec![], vec![], vec![], vec![]);
        for _ in 0..RUNS {
            let context = htp_dialects::new_context();
            let mut module = timed_import(&context, &text, &mut front).module;
            let start = Instant::now();
            run_pipeline(&context, &mut module, &format!("builtin.module({})", htp_backend_cpu::TILE_LOWERING));
            htp.push(start.elapsed().as_secs_f64());
            let start = Instant::now();
            run_pipeline(&context, &mut module, &format!("builtin.module({})", htp_backend_cpu::UPSTREAM_LOWERING));
            mlir.push(start.elapsed().as_secs_f64());
            assert!(module.as_operation().verify());
            let start = Instant::now();
            let engine = htp_backend_cpu::jit(&mut module);
            // Looking a symbol up forces code generation (the JIT is lazy).
            assert!(!engine.lookup(name).is_null(), "{name} was compiled");
            llvm.push(start.elapsed().as_secs_f64());
        }
        let (f, h, m, l) = (median(front), median(htp), median(mlir), median(llvm));
        println!(
            "{:<16} {:>9.2} ms {:>9.2} ms {:>9.2} ms {:>10.2} ms {:>7.1} ms",
            name,
            f * 1e3,
            h * 1e3,
            m * 1e3,
            l * 1e3,
            (f + h + m + l) * 1e3
        );
    }
    pto(&examples);
}

/// The PTO target's stages for each example.
fn pto(examples: &Path) {
    println!();
    println!("{:<16} {:>12} {:>12} {:>12} {:>10} {:>8}", "pto-a2a3sim", "front end", "pto passes", "package", "total", "C++ B");
    for name in EXAMPLES {
        let text = example(examples, name);
        let (mut front, mut passes, mut emit, mut bytes) = (vec![], vec![], vec![], 0);
        for _ in 0..RUNS {
            let context = htp_dialects::new_context();
            let imported = timed_import(&context, &text, &mut front);
            let mut module = imported.module;
            let start = Instant::now();
            htp_backend_pto::lower(&context, &mut module).expect("the PTO lowering succeeds on the examples");
            passes.push(start.elapsed().as_secs_f64());
            let start = Instant::now();
            let dim_names = htp_backend_pto::dim_names(&imported.kernels[0]);
            let lines = |_: &str, _: u32| None;
            let package = htp_backend_pto::package(&module, name, &dim_names, htp_backend_pto::Flavour::Sim, &lines, &[]).expect("package");
            emit.push(start.elapsed().as_secs_f64());
            bytes = package.files.iter().filter(|(path, _)| path.ends_with(".cpp")).map(|(_, text)| text.len()).sum();
        }
        let (f, p, e) = (median(front), median(passes), median(emit));
        println!("{:<16} {:>9.2} ms {:>9.2} ms {:>9.2} ms {:>7.1} ms {:>8}", name, f * 1e3, p * 1e3, e * 1e3, (f + p + e) * 1e3, bytes);
    }
}
