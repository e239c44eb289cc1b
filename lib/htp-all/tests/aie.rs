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
fn vector_add_becomes_a_one_column_design_with_split_and_joined_fifos() {
    let files = compile(VECTOR_ADD, "vector_add", "aie-npu1").unwrap();
    let text = design(&files);
    println!("{text}");
    assert!(text.contains("aie.device(npu1)"), "{text}");
    // Two inputs and one output fit the memtile's channels with 2 cores.
    assert!(text.contains("aie.objectfifo @a(%shim_noc_tile_0_0, {%mem_tile_0_1}, 2 : i32) : !aie.objectfifo<memref<4096xf32>>"), "{text}");
    assert!(text.contains("aie.objectfifo.link [@a] -> [@a_0, @a_1]([] [0, 2048])"), "{text}");
    assert!(text.contains("aie.objectfifo.link [@c_0, @c_1] -> [@c]([0, 2048] [])"), "{text}");
    assert!(text.contains("func.func @vector_add_block(%arg0: memref<8x256xf32>, %arg1: memref<8x256xf32>, %arg2: memref<8x256xf32>, %arg3: index)"), "{text}");
    assert_eq!(text.matches("aie.core(").count(), 2, "{text}");
    assert!(text.contains("aiex.npu.dma_memcpy_nd(%arg0[0, 0, 0, 0][1, 1, 512, 512][0, 262144, 512, 1])"), "{text}");
    assert!(!text.contains("tile."), "no tile op is left: {text}");
    let manifest = &files.iter().find(|(p, _)| p == "manifest.json").unwrap().1;
    assert!(manifest.contains("\"device\": \"npu1\"") && manifest.contains("\"cores\": 2"), "{manifest}");
}

#[test]
fn blocks_too_large_for_a_core_are_an_error_at_the_loop() {
    let source = VECTOR_ADD.replace("8", "16");
    let error = compile(&source, "vector_add", "aie-npu1").unwrap_err();
    assert!(error.contains("k.py:6:5: error: each core would hold 98304 bytes of FIFO objects"), "{error}");
    assert!(error.contains("take fewer rows per block"), "{error}");
}
