//! The AIE targets on kernels written in Python (here, because no backend
//! depends on the front end): the design each kernel becomes, and the
//! errors at the user's lines for kernels the lowering does not take.

use htp_api::FileContents;

/// Compiles `source`'s kernel `kernel` for `target`: the package's files,
/// or the error text.
fn compile(source: &str, kernel: &str, target: &str) -> Result<Vec<(String, String)>, String> {
    htp_all::register_all().unwrap();
    let sources = [htp_api::SourceText::new(source, "k.py", 1)];
    let request = htp_driver::Request { sources: &sources, kernel, constants: htp_api::Constants::new(), target, pipelines: &[], dump_ir: None };
    let compiled = htp_driver::compile(&request).map_err(|e| e.to_string())?;
    Ok(compiled
        .artifact
        .files()
        .into_iter()
        .map(|f| (f.path, match f.contents {
            FileContents::Text(text) => text,
            FileContents::Binary(_) => panic!("binary"),
        }))
        .collect())
}

fn design(files: &[(String, String)]) -> &str {
    &files.iter().find(|(path, _)| path == "aie.mlir").expect("aie.mlir").1
}

const VECTOR_ADD: &str = r#"import htp
from htp import f32

@htp.kernel
def vector_add(a: htp.Tensor[f32, "N", 256], b: htp.Tensor[f32, "N", 256], c: htp.Out[f32, "N", 256], N: htp.Const[int] = 1024):
    for i in range(0, N, 8):
        c[i:i + 8, :] = a[i:i + 8, :] + b[i:i + 8, :]
"#;

#[test]
fn vector_add_spreads_over_the_columns_with_split_and_joined_fifos() {
    let files = compile(VECTOR_ADD, "vector_add", "aie-npu1").unwrap();
    let text = design(&files);
    println!("{text}");
    assert!(text.contains("aie.device(npu1)"), "{text}");
    // Two inputs and one output fit each memtile's channels with 2 cores; 4 columns (D58).
    for column in 0..4 {
        assert!(text.contains(&format!("aie.objectfifo @a_c{column}(%shim_noc_tile_{column}_0, {{%mem_tile_{column}_1}}, 2 : i32) : !aie.objectfifo<memref<4096xf32>>")), "{text}");
        assert!(text.contains(&format!("aie.objectfifo.link [@a_c{column}] -> [@a_c{column}_0, @a_c{column}_1]([] [0, 2048])")), "{text}");
        assert!(text.contains(&format!("aie.objectfifo.link [@c_c{column}_0, @c_c{column}_1] -> [@c_c{column}]([0, 2048] [])")), "{text}");
        // Column c's share: blocks 2c, 2c + 1 of every 8, 16 times.
        assert!(text.contains(&format!("aiex.npu.dma_memcpy_nd(%arg0[0, 0, 0, {}][1, 16, 8, 512][0, 16384, 512, 1])", column * 4096)), "{text}");
    }
    assert!(text.contains("func.func @vector_add_block(%arg0: memref<8x256xf32>, %arg1: memref<8x256xf32>, %arg2: memref<8x256xf32>, %arg3: index)"), "{text}");
    assert_eq!(text.matches("aie.core(").count(), 8, "{text}");
    assert!(!text.contains("tile."), "no tile op is left: {text}");
    let manifest = &files.iter().find(|(p, _)| p == "manifest.json").unwrap().1;
    assert!(manifest.contains("\"device\": \"npu1\"") && manifest.contains("\"cores\": 8"), "{manifest}");
}

#[test]
fn blocks_too_large_for_a_core_are_an_error_at_the_loop() {
    let source = VECTOR_ADD.replace("8", "16");
    let error = compile(&source, "vector_add", "aie-npu1").unwrap_err();
    assert!(error.contains("k.py:6:5: error: each core would hold 98304 bytes of FIFO objects"), "{error}");
    assert!(error.contains("take fewer rows per block"), "{error}");
}

const RMSNORM: &str = r#"import htp
from htp import f32

@htp.kernel
def rmsnorm(x: htp.Tensor[f32, "N", "H"], w: htp.Tensor[f32, 1, "H"], y: htp.Out[f32, "N", "H"], N: htp.Const[int] = 256, H: htp.Const[int] = 512):
    for i in range(0, N, 4):
        t = x[i:i + 4, :]
        scale = htp.rsqrt(htp.row_sum(t * t) * (1.0 / H) + 1e-6)
        y[i:i + 4, :] = t * scale * w[0:1, :]
"#;

#[test]
fn rmsnorm_broadcasts_its_weights_and_keeps_temporaries_on_the_stack() {
    let files = compile(RMSNORM, "rmsnorm", "aie-npu2").unwrap();
    let text = design(&files);
    println!("{text}");
    assert!(text.contains("aie.device(npu2)"), "{text}");
    // w, read whole by every block: one FIFO from column 0's shim to every core of the 8 columns
    // (64 blocks: 8 columns of 4 cores, D58), acquired once per core.
    let cores: Vec<String> = (0..8).flat_map(|c| (2..6).map(move |r| format!("%tile_{c}_{r}"))).collect();
    assert!(text.contains(&format!("aie.objectfifo @w(%shim_noc_tile_0_0, {{{}}}, 1 : i32) : !aie.objectfifo<memref<1x512xf32>>", cores.join(", "))), "{text}");
    assert_eq!(text.matches("aie.objectfifo.acquire @w(Consume, 1)").count(), 32, "{text}");
    // The row sums live on each core's stack, which grows by their bytes.
    assert!(text.contains("memref.alloca"), "{text}");
    assert!(!text.contains("memref.alloc()"), "{text}");
    assert!(!text.contains("{stack_size = 1024 : i32}"), "{text}");
}

#[test]
fn a_tile_carried_across_column_tiles_is_updated_in_place_on_the_stack() {
    let source = r#"import htp
from htp import f32

@htp.kernel
def rmsnorm(x: htp.Tensor[f32, "N", "H"], y: htp.Out[f32, "N", "H"], N: htp.Const[int] = 256, H: htp.Const[int] = 512):
    for i in range(0, N, 4):
        squares = htp.zeros((4, 1), f32)
        for j in range(0, H, 256):
            t = x[i:i + 4, j:j + 256]
            squares = squares + htp.row_sum(t * t)
        for j in range(0, H, 256):
            y[i:i + 4, j:j + 256] = x[i:i + 4, j:j + 256] * squares
"#;
    // D56: the carried sums are one buffer on the stack, updated in place by each trip.
    let files = compile(source, "rmsnorm", "aie-npu1").unwrap();
    let text = design(&files);
    assert!(text.contains("memref.alloca() {alignment = 64 : i64} : memref<4x1xf32>"), "{text}");
    assert!(!text.contains("memref.alloc()"), "{text}");
}

const SOFTMAX: &str = r#"import htp
from htp import f32

@htp.kernel
def softmax(x: htp.Tensor[f32, "N", 256], y: htp.Out[f32, "N", 256], N: htp.Const[int] = 128):
    for i in range(0, N, 8):
        t = x[i:i + 8, :]
        e = htp.exp(t - htp.row_max(t))
        y[i:i + 8, :] = e / htp.row_sum(e)
"#;

#[test]
fn softmax_spreads_its_blocks_over_four_columns_of_four_cores() {
    let files = compile(SOFTMAX, "softmax", "aie-npu1").unwrap();
    let text = design(&files);
    // One input, one output: 4 cores fit each memtile's 6 channels each way; 16 blocks, 4 columns.
    assert_eq!(text.matches("aie.core(").count(), 16, "{text}");
    assert!(text.contains("aie.objectfifo.link [@x_c3] -> [@x_c3_0, @x_c3_1, @x_c3_2, @x_c3_3]([] [0, 2048, 4096, 6144])"), "{text}");
    assert!(text.contains("math.exp"), "{text}");
    // exp(t - max) (8x256 f32) is a temporary on the stack: 8 KiB more than the default.
    assert!(text.contains("{stack_size = 9280 : i32}"), "{text}");
}

/// mlir-aie's passes from the object-FIFO level to the physical design, as
/// `aiecc` (tools/aiecc/IRTransforms.h at the pin) runs them, with
/// `aie-scf-to-control-flow` also before the object-FIFO stateful
/// transform (docs/validation.md: without it the transform fails on
/// acquires inside `scf` loops), then routing.
fn aiecc_physical(arch: &str) -> String {
    format!("builtin.module(convert-vector-to-aievec{{aie-target={arch}}},lower-affine,aie-canonicalize-device,\
aie-lower-scratchpad-parameters,aie-scf-to-control-flow,aie.device(aie-objectFifo-stateful-transform{{packet-sw-objFifos=false}},\
aie-objectFifo-unroll{{default-dynamic=false}},aie-assign-lock-ids,aie-assign-bd-ids,aie-lower-cascade-flows,aie-lower-broadcast-packet,\
aie-lower-multicast,aie-assign-tile-controller-ids),aie-generate-column-control-overlay{{route-shim-to-tile-ctrl=false}},\
aie.device(aie-assign-buffer-addresses{{alloc-scheme=basic-sequential}},aie-assign-core-link-files,aie-vector-transfer-lowering),\
aie-scf-to-control-flow,aie.device(aie-create-pathfinder-flows))")
}

/// aiecc's per-core lowering to the LLVM dialect (getCoreLLVMLoweringPipeline;
/// `arith-expand` without `include-min-max-f`, which MLIR 22 lacks).
fn aiecc_core(arch: &str, col: u32, row: u32) -> String {
    format!(
        "builtin.module(aie.device(aie-localize-locks,aie-normalize-address-spaces,aie-transform-bfp-types),\
aie-standard-lowering{{device=main tilecol={col} tilerow={row}}},aiex-standard-lowering,convert-aievec-to-llvm{{aie-target={arch}}},\
canonicalize,cse,expand-strided-metadata,lower-affine,arith-expand,finalize-memref-to-llvm,\
convert-func-to-llvm{{use-bare-ptr-memref-call-conv=true}},convert-to-llvm{{dynamic=true}},convert-vector-to-llvm,convert-ub-to-llvm,canonicalize,cse)"
    )
}

/// aiecc's lowering of the runtime sequence to NPU instructions
/// (getNpuDmaLoweringPipeline at the pin).
const AIECC_NPU_INSTRUCTIONS: &str = "builtin.module(aie.device(aie-materialize-bd-chains,aie-substitute-shim-dma-allocations,\
aie-unroll-runtime-sequence-loops,canonicalize,aie-decompose-large-dma-bd,aie-lower-dynamic-bd-pool,canonicalize,\
aie-assign-runtime-sequence-bd-ids,aie-dma-tasks-to-npu,aie-lower-dma-channel-reset,aie-dma-to-npu,aie-lower-set-lock,aie-lower-core-reset))";

/// The aie-opt `HTP_AIE_OPT` names, and a fresh scratch directory
/// `htp-<name>-<pid>` for the files it reads.
fn aie_opt_and_scratch(name: &str) -> (String, std::path::PathBuf) {
    let tool = std::env::var("HTP_AIE_OPT").expect("HTP_AIE_OPT names an aie-opt of mlir-aie 3ca0193c");
    let directory = std::env::temp_dir().join(format!("htp-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&directory).unwrap();
    (tool, directory)
}

/// Runs `aie-opt` (`HTP_AIE_OPT`) with `arguments` on `input`: its output.
fn aie_opt(tool: &str, arguments: &[&str], input: &std::path::Path) -> String {
    let output = std::process::Command::new(tool).args(arguments).arg(input).output().expect("aie-opt runs");
    assert!(output.status.success(), "aie-opt {arguments:?} {}:\n{}", input.display(), String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap()
}

/// Every design verifies in the real mlir-aie and lowers through aiecc's
/// passes to NPU instructions and LLVM code for each core. Needs an aie-opt
/// of the pinned commit: listed as ignored by `cargo test`, run with
/// `HTP_AIE_OPT=<aie-opt> cargo test -p htp-all --test aie -- --include-ignored`.
#[test]
#[ignore = "needs HTP_AIE_OPT (an aie-opt of mlir-aie 3ca0193c): run with --include-ignored"]
fn designs_verify_and_lower_to_core_code_in_mlir_aie() {
    let (tool, directory) = aie_opt_and_scratch("aie");
    let softmax = SOFTMAX.to_string();
    let cases = [
        (VECTOR_ADD, "vector_add", "aie-npu1", 8, "xllvm.intr.aie2.add.accfloat"),
        (RMSNORM, "rmsnorm", "aie-npu2", 32, "xllvm.intr.aie2p.invsqrt"),
        (softmax.as_str(), "softmax", "aie-npu1", 16, "xllvm.intr.aie2.sub.accfloat"),
    ];
    for (source, kernel, target, cores, vector_intrinsic) in cases {
        let files = compile(source, kernel, target).unwrap();
        let arch = if target == "aie-npu2" { "aie2p" } else { "aie2" };
        let path = directory.join(format!("{kernel}.mlir"));
        std::fs::write(&path, design(&files)).unwrap();
        // Parses and verifies; what aie-opt prints parses and verifies here too.
        let printed = aie_opt(&tool, &[], &path);
        assert!(printed.contains("aie.runtime_sequence("), "{printed}");
        let physical_path = directory.join(format!("{kernel}.physical.mlir"));
        let physical = aie_opt(&tool, &[&format!("--pass-pipeline={}", aiecc_physical(arch)), "-o", physical_path.to_str().unwrap()], &path);
        let _ = physical;
        let physical = std::fs::read_to_string(&physical_path).unwrap();
        assert!(physical.contains("aie.lock(") && physical.contains("aie.switchbox(") && !physical.contains("aie.objectfifo"), "{physical}");
        // The runtime sequence becomes NPU instructions: buffer descriptors
        // written, host addresses patched, a sync per wait.
        let instructions = aie_opt(&tool, &[&format!("--pass-pipeline={AIECC_NPU_INSTRUCTIONS}")], &physical_path);
        assert!(instructions.contains("aiex.npu.blockwrite") && instructions.contains("aiex.npu.address_patch") && instructions.contains("aiex.npu.sync"), "{instructions}");
        assert!(!instructions.contains("aiex.npu.dma_memcpy_nd"), "{instructions}");
        // Every core, by its tile: `aie.core(%tile_<col>_<row>)`.
        let tiles: Vec<(u32, u32)> = design(&files)
            .split("aie.core(%tile_")
            .skip(1)
            .map(|rest| {
                let (column, rest) = rest.split_once('_').unwrap();
                (column.parse().unwrap(), rest.split(')').next().unwrap().parse().unwrap())
            })
            .collect();
        assert_eq!(tiles.len(), cores);
        for (column, row) in tiles {
            let llvm = aie_opt(&tool, &[&format!("--pass-pipeline={}", aiecc_core(arch, column, row))], &physical_path);
            assert!(llvm.contains(&format!("llvm.func @core_{column}_{row}()")) && llvm.contains(&format!("llvm.func @{kernel}_block(")), "{llvm}");
            assert!(llvm.contains(&format!("llvm.{arch}.acquire")), "{llvm}");
            // The cores' arithmetic is the vector unit's (aie-vectorize-cores).
            assert!(llvm.contains(vector_intrinsic), "{kernel}: no {vector_intrinsic} in\n{llvm}");
        }
    }
    std::fs::remove_dir_all(&directory).ok();
}

/// Runs `source`'s kernel on `aie-sim` with `inputs` (row-major f32) and
/// outputs of `output_sizes` elements: the outputs.
fn simulate(source: &str, kernel: &str, inputs: &[Vec<f32>], shapes: &[Vec<i64>], output_sizes: &[usize]) -> Result<Vec<Vec<f32>>, String> {
    htp_all::register_all().unwrap();
    let sources = [htp_api::SourceText::new(source, "k.py", 1)];
    let request = htp_driver::Request { sources: &sources, kernel, constants: htp_api::Constants::new(), target: "aie-sim", pipelines: &[], dump_ir: None };
    let compiled = htp_driver::compile(&request).map_err(|e| e.to_string())?;
    let mut inputs = inputs.to_vec();
    let mut outputs: Vec<Vec<f32>> = output_sizes.iter().map(|n| vec![f32::NAN; *n]).collect();
    let mut arguments = Vec::new();
    let buffers = inputs.iter_mut().chain(outputs.iter_mut());
    for (buffer, shape) in buffers.zip(shapes) {
        arguments.push(htp_api::Argument::Buffer { data: buffer.as_mut_ptr() as *mut std::ffi::c_void, sizes: htp_api::Dims::from_slice(&shape), strides: htp_api::Dims::from_slice(&[shape[1], 1]) });
    }
    unsafe { compiled.artifact.run(kernel, &arguments) }.map_err(|e| e.message)?;
    Ok(outputs)
}

fn numbers(count: usize, seed: u32) -> Vec<f32> {
    let mut state = seed.wrapping_mul(2654435761).max(1);
    (0..count)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            (state % 2000) as f32 / 1000.0 - 1.0
        })
        .collect()
}

#[test]
fn the_simulator_runs_the_vector_add_design() {
    let (a, b) = (numbers(1024 * 256, 1), numbers(1024 * 256, 2));
    let shape = vec![1024, 256];
    let c = simulate(VECTOR_ADD, "vector_add", &[a.clone(), b.clone()], &[shape.clone(), shape.clone(), shape], &[1024 * 256]).unwrap();
    let expected: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    assert_eq!(c[0], expected);
}

#[test]
fn the_simulator_runs_the_softmax_design() {
    let x = numbers(128 * 256, 3);
    let shape = vec![128, 256];
    let y = simulate(SOFTMAX, "softmax", &[x.clone()], &[shape.clone(), shape], &[128 * 256]).unwrap();
    for row in 0..128 {
        let values = &x[row * 256..(row + 1) * 256];
        let max = values.iter().cloned().fold(f32::MIN, f32::max);
        let sum: f64 = values.iter().map(|v| ((v - max) as f64).exp()).sum();
        for (column, v) in values.iter().enumerate() {
            let expected = ((v - max) as f64).exp() / sum;
            assert!((y[0][row * 256 + column] as f64 - expected).abs() < 1e-6, "row {row} column {column}");
        }
    }
}

#[test]
fn the_simulator_reports_a_deadlock_with_each_fifos_state() {
    // Two cores each wait for the other's object before producing their own.
    let design = r#"module {
  aie.device(npu1_1col) {
    %t2 = aie.tile(0, 2)
    %t3 = aie.tile(0, 3)
    aie.objectfifo @ping(%t2, {%t3}, 1 : i32) : !aie.objectfifo<memref<1x16xf32>>
    aie.objectfifo @pong(%t3, {%t2}, 1 : i32) : !aie.objectfifo<memref<1x16xf32>>
    %c2 = aie.core(%t2) {
      %s = aie.objectfifo.acquire @pong(Consume, 1) : !aie.objectfifosubview<memref<1x16xf32>> loc("design.py":4:9)
      aie.objectfifo.release @pong(Consume, 1)
      %p = aie.objectfifo.acquire @ping(Produce, 1) : !aie.objectfifosubview<memref<1x16xf32>> loc("design.py":6:9)
      aie.objectfifo.release @ping(Produce, 1)
      aie.end
    }
    %c3 = aie.core(%t3) {
      %s = aie.objectfifo.acquire @ping(Consume, 1) : !aie.objectfifosubview<memref<1x16xf32>> loc("design.py":9:9)
      aie.objectfifo.release @ping(Consume, 1)
      %p = aie.objectfifo.acquire @pong(Produce, 1) : !aie.objectfifosubview<memref<1x16xf32>> loc("design.py":11:9)
      aie.objectfifo.release @pong(Produce, 1)
      aie.end
    }
  }
}"#;
    htp_all::register_all().unwrap();
    let context = htp_dialects::new_context();
    let simulation = htp_backend_aie::sim::build(&context, design).unwrap_or_else(|e| panic!("{e:?}"));
    let error = simulation.run(&[]).unwrap_err();
    assert!(error.message.contains("deadlock in the AIE design"), "{}", error.message);
    assert!(error.message.contains("the core of (0, 2) acquiring 1 object(s) of @pong (design.py:4:9)"), "{}", error.message);
    assert!(error.message.contains("the core of (0, 3) acquiring 1 object(s) of @ping (design.py:9:9)"), "{}", error.message);
    assert!(error.message.contains("@ping: depth 1, produced 0, consumed [0]"), "{}", error.message);
}

#[test]
fn the_simulator_runs_the_rmsnorm_design_with_broadcast_weights() {
    let (x, w) = (numbers(256 * 512, 5), numbers(512, 6));
    let y = simulate(RMSNORM, "rmsnorm", &[x.clone(), w.clone()], &[vec![256, 512], vec![1, 512], vec![256, 512]], &[256 * 512]).unwrap();
    for row in 0..256 {
        let values = &x[row * 512..(row + 1) * 512];
        let mean: f64 = values.iter().map(|v| (*v as f64) * (*v as f64)).sum::<f64>() / 512.0;
        let scale = 1.0 / (mean + 1e-6).sqrt();
        for column in 0..512 {
            let expected = values[column] as f64 * scale * w[column] as f64;
            assert!((y[0][row * 512 + column] as f64 - expected).abs() < 1e-4, "row {row} column {column}");
        }
    }
}

#[test]
fn the_cores_take_the_fewest_blocks_each_and_one_block_still_has_its_loop() {
    // Blocks of 8 rows over up to 4 columns of 4 cores: the fewest blocks per core, then the
    // fewest cores, then the fewest columns (D58). 40 rows (5 blocks) take 6 cores, one block past
    // the end; 43 and 100 rows end in a ragged block; the host pads the tensors to whole blocks.
    for (rows, cores) in [(8, 1), (24, 3), (40, 6), (43, 6), (64, 8), (100, 16), (256, 16)] {
        let source = format!(
            "import htp\nfrom htp import f32\n\n@htp.kernel\ndef scale(x: htp.Tensor[f32, \"N\", 64], y: htp.Out[f32, \"N\", 64], N: htp.Const[int] = {rows}):\n    for i in range(0, N, 8):\n        t = x[i:i + 8, :]\n        y[i:i + 8, :] = t * t + 1.0\n"
        );
        let files = compile(&source, "scale", "aie-npu1").unwrap();
        assert_eq!(design(&files).matches("aie.core(").count(), cores, "{rows} rows");
        let x = numbers(rows * 64, rows as u32);
        let shape = vec![rows as i64, 64];
        let y = simulate(&source, "scale", &[x.clone()], &[shape.clone(), shape], &[rows * 64]).unwrap();
        let expected: Vec<f32> = x.iter().map(|v| v * v + 1.0).collect();
        assert_eq!(y[0], expected, "{rows} rows");
    }
}

#[test]
fn the_design_reports_what_it_uses_as_static_metrics() {
    htp_all::register_all().unwrap();
    let sources = [htp_api::SourceText::new(VECTOR_ADD, "k.py", 1)];
    for target in ["aie-npu1", "aie-sim"] {
        let request = htp_driver::Request { sources: &sources, kernel: "vector_add", constants: htp_api::Constants::new(), target, pipelines: &[], dump_ir: None };
        let compiled = htp_driver::compile(&request).unwrap();
        let shape = vec![1024, 256];
        let metrics: std::collections::HashMap<String, f64> = compiled.artifact.static_metrics(&[shape.clone(), shape.clone(), shape], &[]).unwrap().unwrap().into_iter().collect();
        let block = 8.0 * 256.0 * 4.0;
        assert_eq!((metrics["cores"], metrics["columns"]), (8.0, 4.0));
        assert_eq!((metrics["shim_bytes_in"], metrics["shim_bytes_out"]), (2.0 * 1024.0 * 256.0 * 4.0, 1024.0 * 256.0 * 4.0));
        // The stack, then two objects of each of a, b, c: what the verifier placed.
        assert_eq!((metrics["core_memory_bytes"], metrics["core_memory_capacity"]), (1024.0 + 6.0 * block, 65536.0));
        // Each streamed tensor: 2 objects of 2 blocks at the memtile.
        assert_eq!(metrics["memtile_memory_bytes"], 3.0 * 2.0 * 2.0 * block);
        // Per column: a, b and c each 2 objects at the shim end and 2 per core.
        assert_eq!((metrics["fifo_objects"], metrics["core_locks"]), (4.0 * 18.0, 6.0));
        assert_eq!((metrics["core_dma_inputs"], metrics["core_dma_outputs"]), (2.0, 1.0));
    }
}

/// The upstream conversions after mlir-aie's aievec ones: what lowers a
/// core's vector code to the LLVM dialect.
const VECTOR_TO_LLVM: &str = "expand-strided-metadata,lower-affine,convert-math-to-llvm,convert-vector-to-llvm,finalize-memref-to-llvm,\
convert-scf-to-cf,convert-func-to-llvm,convert-arith-to-llvm,convert-cf-to-llvm,reconcile-unrealized-casts";

/// One vector op in a function of its own, as the cores' code has it (a
/// matmul's 2-D transfers unrolled to rows, as `lower.rs` does).
fn vector_probe(element: &str, lanes: i64, body: &str, result: &str) -> String {
    format!(
        "func.func @probe(%a: memref<{lanes}x{element}>, %b: memref<{lanes}x{element}>, %c: memref<{lanes}x{result}>, %s: memref<1x{result}>) {{\n\
         \x20 %c0 = arith.constant 0 : index\n\
         \x20 %x = vector.load %a[%c0] : memref<{lanes}x{element}>, vector<{lanes}x{element}>\n\
         \x20 %y = vector.load %b[%c0] : memref<{lanes}x{element}>, vector<{lanes}x{element}>\n{body}  return\n}}\n"
    )
}

/// Every entry of the vector units' table (vector_units.rs) lowers through
/// mlir-aie's aievec conversions for its generation to the LLVM dialect —
/// the table says only what the pinned mlir-aie takes.
#[test]
#[ignore = "needs HTP_AIE_OPT (an aie-opt of mlir-aie 3ca0193c): run with --include-ignored"]
fn every_vector_op_the_table_names_lowers_through_mlir_aie() {
    use htp_backend_aie::vector_units::{AIE2, AIE2P};
    let (tool, directory) = aie_opt_and_scratch("aie-vector");
    let mut failures = Vec::new();
    for unit in [&AIE2, &AIE2P] {
        let mut probes = Vec::new();
        for ops in unit.elements {
            let (e, l) = (ops.element, ops.lanes);
            let v = format!("vector<{l}x{e}>");
            let store = |value: &str| format!("  vector.store {value}, %c[%c0] : memref<{l}x{e}>, {v}\n");
            for &op in ops.elementwise {
                let body = match op {
                    "arith.cmpf" => format!("  %m = arith.cmpf ogt, %x, %y : {v}\n  %r = arith.select %m, %x, %y : vector<{l}xi1>, {v}\n{}", store("%r")),
                    "arith.cmpi" => format!("  %m = arith.cmpi sgt, %x, %y : {v}\n  %r = arith.select %m, %x, %y : vector<{l}xi1>, {v}\n{}", store("%r")),
                    "arith.select" => continue, // with its comparison
                    "arith.negf" | "math.exp" | "math.absf" | "math.sqrt" | "math.rsqrt" | "math.log" | "math.tanh" | "math.erf" => format!("  %r = {op} %x : {v}\n{}", store("%r")),
                    _ => format!("  %r = {op} %x, %y : {v}\n{}", store("%r")),
                };
                // A divide or math function: an AIE intrinsic exactly when the table says native.
                let native = if htp_backend_aie::vector_units::is_divide_or_function(op) { if ops.native_functions.contains(&op) { " (native)" } else { " (emulated)" } } else { "" };
                probes.push((format!("{} {op} {e}{native}", unit.generation), vector_probe(e, l, &body, e)));
            }
            // A scalar broadcast into a vector op (a row's max against its elements).
            let add = if e.starts_with('f') || e == "bf16" { "arith.addf" } else { "arith.addi" };
            let body = format!("  %e = memref.load %s[%c0] : memref<1x{e}>\n  %splat = vector.broadcast %e : {e} to {v}\n  %r = {add} %x, %splat : {v}\n{}", store("%r"));
            probes.push((format!("{} broadcast {e}{}", unit.generation, if ops.broadcasts { "" } else { " (refused)" }), vector_probe(e, l, &body, e)));
            for &kind in ops.reductions {
                let body = format!("  %r = vector.reduction <{kind}>, %x : {v} into {e}\n  memref.store %r, %s[%c0] : memref<1x{e}>\n");
                probes.push((format!("{} reduction {kind} {e}", unit.generation), vector_probe(e, l, &body, e)));
            }
        }
        for &(op, from, to) in unit.casts {
            let body = format!("  %r = {op} %x : vector<16x{from}> to vector<16x{to}>\n  vector.store %r, %c[%c0] : memref<16x{to}>, vector<16x{to}>\n");
            probes.push((format!("{} {op} {from} to {to}", unit.generation), vector_probe(from, 16, &body, to)));
        }
        for &(input, accumulator, [m, k, n]) in unit.matmuls {
            let text = format!(
                "func.func @probe(%a: memref<{m}x{k}x{input}>, %b: memref<{k}x{n}x{input}>, %c: memref<{m}x{n}x{accumulator}>) {{\n\
                 \x20 %c0 = arith.constant 0 : index\n\
                 \x20 %p = ub.poison : {input}\n\
                 \x20 %q = ub.poison : {accumulator}\n\
                 \x20 %x = vector.transfer_read %a[%c0, %c0], %p {{in_bounds = [true, true]}} : memref<{m}x{k}x{input}>, vector<{m}x{k}x{input}>\n\
                 \x20 %y = vector.transfer_read %b[%c0, %c0], %p {{in_bounds = [true, true]}} : memref<{k}x{n}x{input}>, vector<{k}x{n}x{input}>\n\
                 \x20 %z = vector.transfer_read %c[%c0, %c0], %q {{in_bounds = [true, true]}} : memref<{m}x{n}x{accumulator}>, vector<{m}x{n}x{accumulator}>\n\
                 \x20 %r = vector.contract {{indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>], \
                 iterator_types = [\"parallel\", \"reduction\", \"parallel\"], kind = #vector.kind<add>}} %x, %y, %z : vector<{m}x{k}x{input}>, vector<{k}x{n}x{input}> into vector<{m}x{n}x{accumulator}>\n\
                 \x20 vector.transfer_write %r, %c[%c0, %c0] {{in_bounds = [true, true]}} : vector<{m}x{n}x{accumulator}>, memref<{m}x{n}x{accumulator}>\n  return\n}}\n"
            );
            probes.push((format!("{} matmul {input} {m}x{k}x{n}", unit.generation), text));
        }
        let pipeline = format!("--pass-pipeline=builtin.module(func.func(convert-vector-to-scf{{full-unroll=true}}),canonicalize,convert-vector-to-aievec{{aie-target={g}}},convert-aievec-to-llvm{{aie-target={g}}},{VECTOR_TO_LLVM})", g = unit.generation);
        for (number, (what, text)) in probes.iter().enumerate() {
            let path = directory.join(format!("{}-{number}.mlir", unit.generation));
            std::fs::write(&path, text).unwrap();
            let output = std::process::Command::new(&tool).arg(&pipeline).arg(&path).output().expect("aie-opt runs");
            // What the table refuses must not lower either (or the table is stale).
            if what.ends_with("(refused)") {
                if output.status.success() {
                    failures.push(format!("{what} lowers through mlir-aie now: the table can take it"));
                }
                continue;
            }
            if !output.status.success() {
                failures.push(format!("{what} does not lower through mlir-aie:\n{text}\n{}", String::from_utf8_lossy(&output.stderr)));
                continue;
            }
            let llvm = String::from_utf8_lossy(&output.stdout);
            assert!(!llvm.contains(" vector.") && !llvm.contains("aievec."), "{what} left vector or aievec ops:\n{llvm}");
            let intrinsic = llvm.contains(&format!("xllvm.intr.{}.", unit.generation));
            if what.ends_with("(native)") && !intrinsic || what.ends_with("(emulated)") && intrinsic {
                failures.push(format!("{what}: the table is wrong about its intrinsic:\n{llvm}"));
            }
            if what.contains("matmul") {
                assert!(llvm.contains(&format!("xllvm.intr.{}.", unit.generation)), "{what} is not one MAC intrinsic:\n{llvm}");
            }
        }
    }
    std::fs::remove_dir_all(&directory).ok();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
