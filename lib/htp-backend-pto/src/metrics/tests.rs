use super::*;

use melior::ir::Module;

/// A hand-written two-task program: each task copies rows [lo, hi) of x to
/// y in 8-row tiles (the last one ragged), with a barrier in full tiles.
const COPY: &str = r#"
module {
  func.func @copy_aiv(%x: memref<?x64xf32>, %y: memref<?x64xf32>, %lo: index, %hi: index) attributes {pto.core = "aiv"} {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %n = memref.dim %x, %c0 : memref<?x64xf32>
    pto.set_flag <v -> mte2>, 0
    scf.for %i = %lo to %hi step %c8 {
      %left = arith.subi %n, %i : index
      %rows = arith.minsi %left, %c8 : index
      %g = pto.global_view %x[%i, %c0] sizes [%rows] dims [0, 1] : memref<?x64xf32> -> !pto.gtensor<?x64xf32>
      %t = pto.alloc_tile valid [%rows] addr 2048 : !pto.tile<vec, 8x64xf32, valid = ?x64>
      pto.wait_flag <v -> mte2>, 0
      pto.tload %t, %g : !pto.tile<vec, 8x64xf32, valid = ?x64>, !pto.gtensor<?x64xf32>
      pto.set_flag <mte2 -> v>, 0
      %full = arith.cmpi eq, %rows, %c8 : index
      scf.if %full {
        pto.barrier <v>
      }
      %h = pto.global_view %y[%i, %c0] sizes [%rows] dims [0, 1] : memref<?x64xf32> -> !pto.gtensor<?x64xf32>
      pto.wait_flag <mte2 -> v>, 0
      pto.tstore %h, %t : !pto.gtensor<?x64xf32>, !pto.tile<vec, 8x64xf32, valid = ?x64>
      pto.set_flag <v -> mte2>, 0
    }
    pto.wait_flag <v -> mte2>, 0
    return
  }
  func.func @copy(%x: memref<?x64xf32>, %y: memref<?x64xf32>) attributes {pto.orchestration} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %n = memref.dim %x, %c0 : memref<?x64xf32>
    scf.for %lo = %c0 to %n step %c16 {
      %e = arith.addi %lo, %c16 : index
      %hi = arith.minsi %e, %n : index
      pto.submit @copy_aiv ins(%x : memref<?x64xf32>) outs(%y : memref<?x64xf32>) scalars(%lo, %hi : index, index)
    }
    return
  }
}
"#;

fn parse<'c>(context: &'c melior::Context, text: &str) -> Module<'c> {
    Module::parse(context, text).expect("the test module parses")
}

fn peaks(vec: i64, mat: i64, left: i64, right: i64, acc: i64) -> Vec<(Location, i64)> {
    MEMORIES.iter().zip([vec, mat, left, right, acc, 0]).map(|(m, b)| (*m, b)).collect()
}

#[test]
fn counts_a_hand_written_program_as_executed() {
    let context = crate::new_context().unwrap();
    let module = parse(&context, COPY);
    // 20 rows: tasks [0, 16) and [16, 20); tiles of 8, 8 and 4 rows.
    let metrics = evaluate(module.as_operation(), &[vec![20, 64], vec![20, 64]], &[], A2A3_CORES).unwrap();
    let row = 64 * 4;
    assert_eq!(
        metrics,
        Metrics {
            tasks: 2,
            read_bytes: vec![20 * row, 0],
            write_bytes: vec![0, 20 * row],
            tloads: 3,
            tstores: 3,
            mgathers: 0,
            mscatters: 0,
            set_flags: 8,
            wait_flags: 8,
            barriers: 2,
            tpushes: 0,
            tpops: 0,
            ring_bytes: 0,
            peak_bytes: peaks(2048 + 8 * row, 0, 0, 0, 0),
        }
    );
    let entries = metrics.entries();
    assert!(entries.contains(&("gm_read_bytes".to_string(), (20 * row) as f64)));
    assert!(entries.contains(&("write_bytes.1".to_string(), (20 * row) as f64)));
    assert!(entries.contains(&("peak_bytes.vec".to_string(), 4096.0)));
}

#[test]
fn wrong_arguments_and_unknown_ops_are_errors() {
    let context = crate::new_context().unwrap();
    let module = parse(&context, COPY);
    let op = module.as_operation();
    assert!(evaluate(op, &[vec![20, 64]], &[], A2A3_CORES).unwrap_err().contains("fewer tensor shapes"));
    assert!(evaluate(op, &[vec![20], vec![20, 64]], &[], A2A3_CORES).unwrap_err().contains("rank 2"));
    assert!(evaluate(op, &[vec![20, 64], vec![20, 64]], &[1.0], A2A3_CORES).unwrap_err().contains("more arguments"));
    let unknown = COPY.replace("%hi = arith.minsi %e, %n : index", "%hi = arith.minsi %e, %n : index\n      %r = index.add %hi, %hi");
    let module = parse(&context, &unknown);
    let error = evaluate(module.as_operation(), &[vec![20, 64], vec![20, 64]], &[], A2A3_CORES).unwrap_err();
    assert!(error.contains("unsupported op index.add"), "{error}");
}

/// The tile kernel of `test/lit/Target/pto/scalar-state.mlir`: a cursor in a
/// kernel-local array and a `scf.while` search from it, per block of y.
fn scalar_state_kernel() -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../test/lit/Target/pto/scalar-state.mlir");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn lowered<'c>(context: &'c melior::Context, text: &str) -> Module<'c> {
    let mut module = parse(context, text);
    crate::lower(context, &mut module).unwrap_or_else(|e| panic!("{e:?}"));
    module
}

#[test]
fn follows_kernel_local_arrays_and_while_loops() {
    let context = crate::new_context().unwrap();
    let module = lowered(&context, &scalar_state_kernel());
    // x: 12 whole blocks and 8 rows; y: 5 blocks. The search finds blocks
    // 1, 4, 7 and 10, then stops at block 12, the first that does not fit
    // whole in x (a bound it reads from the array), with 8 valid rows: only
    // a cursor carried between iterations, the bound and the search itself
    // give these bytes.
    let metrics = evaluate(module.as_operation(), &[vec![200, 64], vec![80, 64]], &[], A2A3_CORES).unwrap();
    let row = 64 * 4;
    let bytes = 4 * 16 * row + 8 * row;
    assert_eq!((metrics.tasks, metrics.tloads, metrics.tstores), (1, 5, 5));
    assert_eq!(metrics.read_bytes, vec![bytes, 0]);
    assert_eq!(metrics.write_bytes, vec![0, bytes]);
}

#[test]
fn an_array_element_out_of_range_is_an_error() {
    let context = crate::new_context().unwrap();
    let text = scalar_state_kernel().replace("memref.store %rows, %cur[%c1]", "memref.store %rows, %cur[%c3]");
    let module = lowered(&context, &text);
    let error = evaluate(module.as_operation(), &[vec![200, 64], vec![80, 64]], &[], A2A3_CORES).unwrap_err();
    assert!(error.contains("element 3 of a kernel-local array of 2"), "{error}");
}
