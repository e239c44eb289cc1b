// RUN: htp-opt %s | htp-opt | FileCheck %s
// RUN: htp-opt %s --mlir-print-op-generic | htp-opt | FileCheck %s
//
// Round trip of the aiex ops: host transfers into and out of the array in
// both directions, a strided (2-D) window, static and run-time sizes; objects
// of 64-bit elements moved as the words of a host buffer of i32.

// CHECK: aie.runtime_sequence(%[[A:arg0]]: memref<64x32xi32>, %[[B:arg1]]: memref<2048xi32>)
// CHECK: aiex.npu.dma_memcpy_nd(%[[A]][0, 0, 0, 0][1, 1, 64, 16][0, 0, 32, 1]) {id = 0 : i64, issue_token = true, metadata = @in} : memref<64x32xi32>
// CHECK: aiex.npu.dma_memcpy_nd(%[[B]][0, 0, 0, %{{.*}}][1, 1, 1, 1024][0, 0, 0, 1]) {id = 1 : i64, metadata = @out} : memref<2048xi32>
// CHECK: aiex.npu.dma_wait {symbol = @out}
aie.device(npu1_1col) {
  %s = aie.tile(0, 0)
  %t = aie.tile(0, 2)
  aie.objectfifo @in(%s, {%t}, 2 : i32) : !aie.objectfifo<memref<64xi32>>
  aie.objectfifo @out(%t, {%s}, 2 : i32) : !aie.objectfifo<memref<64xi32>>
  aie.runtime_sequence(%a: memref<64x32xi32>, %b: memref<2048xi32>) {
    %off = arith.constant 1024 : i64
    aiex.npu.dma_memcpy_nd(%a[0, 0, 0, 0][1, 1, 64, 16][0, 0, 32, 1]) {id = 0 : i64, issue_token = true, metadata = @in} : memref<64x32xi32>
    aiex.npu.dma_memcpy_nd(%b[0, 0, 0, %off][1, 1, 1, 1024][0, 0, 0, 1]) {id = 1 : i64, metadata = @out} : memref<2048xi32>
    aiex.npu.dma_wait {symbol = @out}
  }
}

// CHECK: aie.objectfifo @pairs
// CHECK: aie.runtime_sequence(%[[W:arg0]]: memref<256xi32>)
// CHECK: aiex.npu.dma_memcpy_nd(%[[W]][0, 0, 0, 0][1, 1, 2, 128][0, 0, 128, 1]) {id = 0 : i64, metadata = @pairs} : memref<256xi32>
aie.device(npu1_1col) @pairs_design {
  %s = aie.tile(0, 0)
  %t = aie.tile(0, 2)
  aie.objectfifo @pairs(%s, {%t}, 2 : i32) : !aie.objectfifo<memref<64xi64>>
  aie.runtime_sequence(%w: memref<256xi32>) {
    aiex.npu.dma_memcpy_nd(%w[0, 0, 0, 0][1, 1, 2, 128][0, 0, 128, 1]) {id = 0 : i64, metadata = @pairs} : memref<256xi32>
  }
}
