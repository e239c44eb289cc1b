// A scalar read of a tensor element in a PTO kernel (`n = lens[b]` in the
// user's kernel): the scalar unit reads the element from GM at its
// row-major offset (dynamic extents from the tensor's descriptor), after
// invalidating its data-cache line (dcci: AI Core caches are not coherent
// with what DMA and other cores wrote). Here element (b, 3) of a table
// bounds an inner loop of row copies.
// RUN: htp-opt %s %pto_pipeline | htp-translate --pto-to-cpp | FileCheck %s

// CHECK-LABEL: // ----- kernels/aiv/rows_aiv.cpp
// CHECK: const int64_t [[OFF:offset[_0-9]*]] = static_cast<int64_t>({{.*}}) * 4 + static_cast<int64_t>({{.*}});
// CHECK-NEXT: dcci(reinterpret_cast<__gm__ void *>([[LENS:[a-z_0-9]+]] + [[OFF]]), cache_line_t::SINGLE_CACHE_LINE);
// CHECK-NEXT: const int32_t [[N:element[_0-9]*]] = [[LENS]][[[OFF]]];
// CHECK: for (
// CHECK: TLOAD
// CHECK: TSTORE
func.func @rows(%x: memref<?x64xf32>, %lens: memref<?x4xi32>, %y: memref<?x64xf32>) attributes {htp.kernel, htp.outputs = array<i64: 2>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  %rows = memref.dim %lens, %c0 : memref<?x4xi32>
  scf.for %b = %c0 to %rows step %c1 {
    %n32 = memref.load %lens[%b, %c3] : memref<?x4xi32>
    %n = arith.index_cast %n32 : i32 to index
    scf.for %i = %c0 to %n step %c16 {
      %t = tile.load %x[%i, %c0] : memref<?x64xf32> -> !tile.tile<16x64xf32>
      tile.store %t, %y[%i, %c0] : !tile.tile<16x64xf32>, memref<?x64xf32>
    }
  }
  return
}
