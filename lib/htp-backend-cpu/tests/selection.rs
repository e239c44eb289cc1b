//! The selection ops on the cpu target (`convert_tile_to_linalg/selection.rs`)
//! against a reference written here: the merge sort's order (stable, NaN
//! above +inf, -0.0 equal to +0.0) in both directions and with K < C, the
//! arg reductions' first-of-equal and NaN rules, and `tile.take`, over
//! ragged row blocks and many random rows with ties.

use std::{cmp::Ordering, ffi::c_void};

use htp_api::Dims;
use htp_backend_cpu::{compile, Argument};
use melior::ir::Module;

const C: usize = 40;
const K: usize = 5;

/// One 16-row block per loop trip (the last one ragged): both sorts, the
/// arg reductions and a take by the descending sort's columns.
const KERNEL: &str = r#"
func.func @select(%x: memref<?x40xf32>, %v: memref<?x40xf32>, %i: memref<?x40xi32>, %tv: memref<?x5xf32>,
                  %ti: memref<?x5xi32>, %am: memref<?x1xi32>, %an: memref<?x1xi32>, %g: memref<?x5xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %n = memref.dim %x, %c0 : memref<?x40xf32>
  scf.for %r = %c0 to %n step %c16 {
    %left = arith.subi %n, %r : index
    %rows = arith.minsi %left, %c16 : index
    %t = tile.load %x[%r, %c0] valid [%rows] : memref<?x40xf32> -> !tile.tile<16x40xf32, valid = ?x40>
    %sv, %si = tile.sort %t : !tile.tile<16x40xf32, valid = ?x40> -> !tile.tile<16x40xf32, valid = ?x40>, !tile.tile<16x40xi32, valid = ?x40>
    tile.store %sv, %v[%r, %c0] : !tile.tile<16x40xf32, valid = ?x40>, memref<?x40xf32>
    tile.store %si, %i[%r, %c0] : !tile.tile<16x40xi32, valid = ?x40>, memref<?x40xi32>
    %dv, %di = tile.sort %t descending : !tile.tile<16x40xf32, valid = ?x40> -> !tile.tile<16x5xf32, valid = ?x5>, !tile.tile<16x5xi32, valid = ?x5>
    tile.store %dv, %tv[%r, %c0] : !tile.tile<16x5xf32, valid = ?x5>, memref<?x5xf32>
    tile.store %di, %ti[%r, %c0] : !tile.tile<16x5xi32, valid = ?x5>, memref<?x5xi32>
    %amax = tile.row_arg_reduce max %t : !tile.tile<16x40xf32, valid = ?x40> -> !tile.tile<16x1xi32, valid = ?x1>
    %amin = tile.row_arg_reduce min %t : !tile.tile<16x40xf32, valid = ?x40> -> !tile.tile<16x1xi32, valid = ?x1>
    tile.store %amax, %am[%r, %c0] : !tile.tile<16x1xi32, valid = ?x1>, memref<?x1xi32>
    tile.store %amin, %an[%r, %c0] : !tile.tile<16x1xi32, valid = ?x1>, memref<?x1xi32>
    %taken = tile.take %t[%di] : !tile.tile<16x40xf32, valid = ?x40>, !tile.tile<16x5xi32, valid = ?x5> -> !tile.tile<16x5xf32, valid = ?x5>
    tile.store %taken, %g[%r, %c0] : !tile.tile<16x5xf32, valid = ?x5>, memref<?x5xf32>
  }
  return
}
"#;

fn buffer<T>(data: &mut [T], rows: usize, cols: usize) -> Argument {
    Argument::Buffer { data: data.as_mut_ptr() as *mut c_void, sizes: Dims::from_slice(&[rows as i64, cols as i64]), strides: Dims::from_slice(&[cols as i64, 1]) }
}

/// Rows of values from a few: many ties, both zeros, infinities, NaN.
fn rows(count: usize, seed: u64) -> Vec<f32> {
    let pool = [0.0, -0.0, 1.5, -1.5, 2.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 3.25, -7.0];
    let mut state = seed;
    (0..count * C)
        .map(|_| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let pick = (state >> 33) as usize;
            // Mostly ordinary values; NaN and infinities now and then.
            if pick % 5 == 0 { pool[(pick / 5) % pool.len()] } else { ((pick % 2001) as f32 - 1000.0) / 8.0 }
        })
        .collect()
}

/// The order docs/language.md gives: NaN above every number, equal values
/// (-0.0 and +0.0 too) by column.
fn compare(a: f32, b: f32, descending: bool) -> Ordering {
    let ascending = match (a.is_nan(), b.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        _ => a.partial_cmp(&b).expect("numbers compare"),
    };
    if descending { ascending.reverse() } else { ascending }
}

fn order(row: &[f32], descending: bool) -> Vec<usize> {
    let mut columns: Vec<usize> = (0..row.len()).collect();
    columns.sort_by(|&a, &b| compare(row[a], row[b], descending).then(a.cmp(&b)));
    columns
}

fn same(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

#[test]
fn sorts_arg_reductions_and_takes_match_the_reference() {
    let context = htp_dialects::new_context();
    let mut module = Module::parse(&context, KERNEL).expect("the kernel parses");
    let compiled = compile(&context, &mut module).unwrap_or_else(|e| panic!("{e:?}"));
    for (trial, count) in [37usize, 16, 5, 64].into_iter().enumerate() {
        let mut x = rows(count, trial as u64 + 1);
        let (mut v, mut i) = (vec![f32::NAN; count * C], vec![-1i32; count * C]);
        let (mut tv, mut ti) = (vec![f32::NAN; count * K], vec![-1i32; count * K]);
        let (mut am, mut an, mut g) = (vec![-1i32; count], vec![-1i32; count], vec![f32::NAN; count * K]);
        let arguments = [
            buffer(&mut x, count, C),
            buffer(&mut v, count, C),
            buffer(&mut i, count, C),
            buffer(&mut tv, count, K),
            buffer(&mut ti, count, K),
            buffer(&mut am, count, 1),
            buffer(&mut an, count, 1),
            buffer(&mut g, count, K),
        ];
        unsafe { compiled.call("select", &arguments) }.unwrap_or_else(|e| panic!("{e:?}"));
        for r in 0..count {
            let row = &x[r * C..(r + 1) * C];
            let up = order(row, false);
            for (k, &column) in up.iter().enumerate() {
                assert_eq!(i[r * C + k] as usize, column, "row {r} ascending, position {k}: {row:?}");
                assert!(same(v[r * C + k], row[column]), "row {r} ascending value {k}");
            }
            let down = order(row, true);
            for k in 0..K {
                assert_eq!(ti[r * K + k] as usize, down[k], "row {r} descending, position {k}: {row:?}");
                assert!(same(tv[r * K + k], row[down[k]]), "row {r} descending value {k}");
                assert!(same(g[r * K + k], row[down[k]]), "row {r} take {k}");
            }
            // The first NaN wins both (as tile.max/tile.min let NaN win), else
            // the first of the largest / smallest.
            let first_nan = row.iter().position(|v| v.is_nan());
            let first = |descending: bool| {
                first_nan.unwrap_or_else(|| {
                    let best = row.iter().cloned().filter(|v| !v.is_nan()).fold(row[0], |a, b| if compare(b, a, descending) == Ordering::Less { b } else { a });
                    row.iter().position(|v| *v == best).expect("present")
                })
            };
            assert_eq!(am[r] as usize, first(true), "row {r} argmax: {row:?}");
            assert_eq!(an[r] as usize, first(false), "row {r} argmin (got {}): {row:?}", an[r]);
        }
    }
}
