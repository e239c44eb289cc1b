//! Scalar state in a tile kernel on the cpu target: a cursor in a
//! kernel-local array (`memref.alloca`, `memref.load`/`memref.store`) and a
//! `scf.while` search, upstream ops the CPU pipeline lowers as they are. The
//! kernel is `test/lit/Target/pto/scalar-state.mlir`'s (the PTO backend's
//! C++ and metrics of it are checked there and in its metrics tests). Its
//! loop must run in order: chunks run at once would each start the cursor
//! again (`htp_transforms::loop_independence`).

use std::ffi::c_void;

use htp_api::Dims;
use htp_backend_cpu::{compile, Argument};
use melior::ir::Module;

fn kernel() -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../test/lit/Target/pto/scalar-state.mlir");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn buffer(data: &mut [f32], rows: usize) -> Argument {
    Argument::Buffer { data: data.as_mut_ptr() as *mut c_void, sizes: Dims::from_slice(&[rows as i64, 64]), strides: Dims::from_slice(&[64, 1]) }
}

/// Runs the kernel on x of `x_rows` rows (row r holds r) and y of `blocks`
/// blocks of 16 rows (NaN first); returns y's first column.
fn run(x_rows: usize, blocks: usize) -> Vec<f32> {
    let context = htp_dialects::new_context();
    let mut module = Module::parse(&context, &kernel()).expect("the kernel parses");
    let compiled = compile(&context, &mut module).unwrap_or_else(|e| panic!("{e:?}"));
    let mut x: Vec<f32> = (0..x_rows * 64).map(|i| (i / 64) as f32).collect();
    let mut y = vec![f32::NAN; blocks * 16 * 64];
    unsafe { compiled.call("search", &[buffer(&mut x, x_rows), buffer(&mut y, blocks * 16)]) }.unwrap_or_else(|e| panic!("{e:?}"));
    (0..blocks * 16).map(|r| y[r * 64]).collect()
}

#[test]
fn each_block_is_the_next_one_the_search_finds() {
    // x: 16 blocks. The cursor moves on from block to block: y's block b is
    // x's block 3b + 1 (the next t >= cursor with t mod 3 == 1).
    let y = run(16 * 16, 5);
    for (r, value) in y.iter().enumerate() {
        let expected = ((3 * (r / 16) + 1) * 16 + r % 16) as f32;
        assert_eq!(*value, expected, "y row {r}");
    }
}

#[test]
fn the_search_stops_at_the_bound_it_reads_from_the_array() {
    // x: 12 whole blocks and 8 rows. Blocks 1, 4, 7, 10; then the search
    // stops at block 12, the first not whole in x (the bound the array
    // holds), whose 8 valid rows are copied.
    let y = run(12 * 16 + 8, 5);
    for (r, value) in y.iter().enumerate() {
        let (block, row) = (r / 16, r % 16);
        if block == 4 && row >= 8 {
            assert!(value.is_nan(), "y row {r} is past the valid rows: {value}");
        } else {
            let source = if block == 4 { 12 } else { 3 * block + 1 };
            assert_eq!(*value, (source * 16 + row) as f32, "y row {r}");
        }
    }
}
