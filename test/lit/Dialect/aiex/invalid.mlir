// RUN: htp-opt %s --split-input-file --verify-diagnostics
//
// One case per verifier rule and ODS constraint of the aiex dialect
// (dialects/aiex/AIEXOps.td, AIEXDialect.cpp).

aie.device(npu1) {
  %s = aie.tile(0, 0)
  %t = aie.tile(0, 2)
  aie.objectfifo @f(%s, {%t}, 2 : i32) : !aie.objectfifo<memref<64xi32>>
  %b = aie.buffer(%t) {sym_name = "b"} : memref<64xi32>
  aie.runtime_sequence(%a: memref<64xi32>) {
    // expected-error @+1 {{names @g, which is not an aie.objectfifo of the device}}
    aiex.npu.dma_memcpy_nd(%a[0, 0, 0, 0][1, 1, 1, 64][0, 0, 0, 1]) {id = 0 : i64, metadata = @g} : memref<64xi32>
  }
}

// -----

aie.device(npu1) {
  %m = aie.tile(0, 1)
  %t = aie.tile(0, 2)
  aie.objectfifo @f(%m, {%t}, 2 : i32) : !aie.objectfifo<memref<64xi32>>
  aie.runtime_sequence(%a: memref<64xi32>) {
    // expected-error @+1 {{names @f, which has no shim tile at either end (host transfers go through a shim tile's DMA)}}
    aiex.npu.dma_memcpy_nd(%a[0, 0, 0, 0][1, 1, 1, 64][0, 0, 0, 1]) {id = 0 : i64, metadata = @f} : memref<64xi32>
  }
}

// -----

aie.device(npu1) {
  %s = aie.tile(0, 0)
  %t = aie.tile(0, 2)
  aie.objectfifo @f(%s, {%t}, 2 : i32) : !aie.objectfifo<memref<64xi32>>
  %x = aie.buffer(%t) : memref<64xi32>
  aie.runtime_sequence(%a: memref<64xi32>) {
    // expected-error @+1 {{moves a buffer that is not an argument of the runtime sequence}}
    aiex.npu.dma_memcpy_nd(%x[0, 0, 0, 0][1, 1, 1, 64][0, 0, 0, 1]) {id = 0 : i64, metadata = @f} : memref<64xi32>
  }
}

// -----

aie.device(npu1) {
  %s = aie.tile(0, 0)
  %t = aie.tile(0, 2)
  aie.objectfifo @f(%s, {%t}, 2 : i32) : !aie.objectfifo<memref<64xi64>>
  aie.runtime_sequence(%a: memref<64xi64>) {
    // expected-error @+1 {{moves 64-bit elements; the shim DMA moves at most 32-bit ones}}
    aiex.npu.dma_memcpy_nd(%a[0, 0, 0, 0][1, 1, 1, 64][0, 0, 0, 1]) {id = 0 : i64, metadata = @f} : memref<64xi64>
  }
}

// -----

aie.device(npu1) {
  %s = aie.tile(0, 0)
  %t = aie.tile(0, 2)
  aie.objectfifo @f(%s, {%t}, 2 : i32) : !aie.objectfifo<memref<64xi32>>
  aie.runtime_sequence(%a: memref<64xf32>) {
    // expected-error @+1 {{moves 'f32' elements through @f, whose objects hold 'i32'}}
    aiex.npu.dma_memcpy_nd(%a[0, 0, 0, 0][1, 1, 1, 64][0, 0, 0, 1]) {id = 0 : i64, metadata = @f} : memref<64xf32>
  }
}

// -----

aie.device(npu1) {
  %s = aie.tile(0, 0)
  %t = aie.tile(0, 2)
  aie.objectfifo @f(%s, {%t}, 2 : i32) : !aie.objectfifo<memref<64xi64>>
  aie.runtime_sequence(%a: memref<128xf32>) {
    // expected-error @+1 {{moves 'f32' elements through @f, whose objects hold 'i64' (moved as the words of a host buffer of i32)}}
    aiex.npu.dma_memcpy_nd(%a[0, 0, 0, 0][1, 1, 1, 128][0, 0, 0, 1]) {id = 0 : i64, metadata = @f} : memref<128xf32>
  }
}

// -----

aie.device(npu1) {
  %s = aie.tile(0, 0)
  %t = aie.tile(0, 2)
  aie.objectfifo @f(%s, {%t}, 2 : i32) : !aie.objectfifo<memref<64xi64>>
  aie.runtime_sequence(%a: memref<192xi32>) {
    // expected-error @+1 {{moves 192 elements through @f, not a whole number of its 128-element objects}}
    aiex.npu.dma_memcpy_nd(%a[0, 0, 0, 0][1, 1, 1, 192][0, 0, 0, 1]) {id = 0 : i64, metadata = @f} : memref<192xi32>
  }
}

// -----

aie.device(npu1) {
  %s = aie.tile(0, 0)
  %t = aie.tile(0, 2)
  aie.objectfifo @f(%s, {%t}, 2 : i32) : !aie.objectfifo<memref<64xi32>>
  aie.runtime_sequence(%a: memref<128xi32>) {
    // expected-error @+1 {{innermost stride is 2; it must be 1}}
    aiex.npu.dma_memcpy_nd(%a[0, 0, 0, 0][1, 1, 1, 64][0, 0, 0, 2]) {id = 0 : i64, metadata = @f} : memref<128xi32>
  }
}

// -----

aie.device(npu1) {
  %s = aie.tile(0, 0)
  %t = aie.tile(0, 2)
  aie.objectfifo @f(%s, {%t}, 2 : i32) : !aie.objectfifo<memref<64xi32>>
  aie.runtime_sequence(%a: memref<64xi32>) {
    // expected-error @+1 {{needs offsets and strides >= 0 and sizes >= 1 (dimension 2)}}
    aiex.npu.dma_memcpy_nd(%a[0, 0, 0, 0][1, 1, 0, 64][0, 0, 0, 1]) {id = 0 : i64, metadata = @f} : memref<64xi32>
  }
}

// -----

aie.device(npu1) {
  %s = aie.tile(0, 0)
  %t = aie.tile(0, 2)
  aie.objectfifo @f(%s, {%t}, 2 : i32) : !aie.objectfifo<memref<7xi8>>
  aie.runtime_sequence(%a: memref<7xi8>) {
    // expected-error @+1 {{innermost size of 7 elements is not a whole number of 32-bit words}}
    aiex.npu.dma_memcpy_nd(%a[0, 0, 0, 0][1, 1, 1, 7][0, 0, 0, 1]) {id = 0 : i64, metadata = @f} : memref<7xi8>
  }
}

// -----

aie.device(npu1) {
  %s = aie.tile(0, 0)
  %t = aie.tile(0, 2)
  aie.objectfifo @f(%s, {%t}, 2 : i32) : !aie.objectfifo<memref<1024xi32>>
  aie.runtime_sequence(%a: memref<2048xi32>) {
    // expected-error @+1 {{innermost size of 2048 elements is 2048 32-bit words; a shim buffer descriptor moves at most 1023}}
    aiex.npu.dma_memcpy_nd(%a[0, 0, 0, 0][1, 1, 1, 2048][0, 0, 0, 1]) {id = 0 : i64, metadata = @f} : memref<2048xi32>
  }
}

// -----

aie.device(npu1) {
  %s = aie.tile(0, 0)
  %t = aie.tile(0, 2)
  aie.objectfifo @f(%s, {%t}, 2 : i32) : !aie.objectfifo<memref<4xi32>>
  aie.runtime_sequence(%a: memref<4096xi32>) {
    // expected-error @+1 {{second-innermost size 1024 exceeds 1023}}
    aiex.npu.dma_memcpy_nd(%a[0, 0, 0, 0][1, 1, 1024, 4][0, 0, 4, 1]) {id = 0 : i64, metadata = @f} : memref<4096xi32>
  }
}

// -----

aie.device(npu1) {
  %s = aie.tile(0, 0)
  %t = aie.tile(0, 2)
  aie.objectfifo @f(%s, {%t}, 2 : i32) : !aie.objectfifo<memref<4xi32>>
  aie.runtime_sequence(%a: memref<260xi32>) {
    // expected-error @+1 {{outermost (repeat) size 65 exceeds 64}}
    aiex.npu.dma_memcpy_nd(%a[0, 0, 0, 0][65, 1, 1, 4][4, 0, 0, 1]) {id = 0 : i64, metadata = @f} : memref<260xi32>
  }
}

// -----

aie.device(npu1) {
  %s = aie.tile(0, 0)
  %t = aie.tile(0, 2)
  aie.objectfifo @f(%s, {%t}, 2 : i32) : !aie.objectfifo<memref<64xi32>>
  aie.runtime_sequence(%a: memref<64x32xi32>) {
    // expected-error @+1 {{reaches element 2079 of a host buffer of 2048 elements}}
    aiex.npu.dma_memcpy_nd(%a[0, 0, 1, 0][1, 1, 64, 32][0, 0, 32, 1]) {id = 0 : i64, metadata = @f} : memref<64x32xi32>
  }
}

// -----

aie.device(npu1) {
  %s = aie.tile(0, 0)
  %t = aie.tile(0, 2)
  aie.objectfifo @f(%s, {%t}, 2 : i32) : !aie.objectfifo<memref<64xi32>>
  aie.runtime_sequence(%a: memref<96xi32>) {
    // expected-error @+1 {{moves 96 elements through @f, not a whole number of its 64-element objects}}
    aiex.npu.dma_memcpy_nd(%a[0, 0, 0, 0][1, 1, 1, 96][0, 0, 0, 1]) {id = 0 : i64, metadata = @f} : memref<96xi32>
  }
}

// -----

aie.device(npu1) {
  %s = aie.tile(0, 0)
  %t = aie.tile(0, 2)
  aie.objectfifo @f(%s, {%t}, 2 : i32) : !aie.objectfifo<memref<64xi32>>
  aie.runtime_sequence(%a: memref<64xi32>) {
    // expected-error @+1 {{'static_offsets' failed to satisfy constraint: i64 dense array attribute with exactly 4 elements}}
    aiex.npu.dma_memcpy_nd(%a[0, 0, 0][1, 1, 64][0, 0, 1]) {id = 0 : i64, metadata = @f} : memref<64xi32>
  }
}

// -----

aie.device(npu1) {
  %s = aie.tile(0, 0)
  %t = aie.tile(0, 2)
  aie.objectfifo @f(%s, {%t}, 2 : i32) : !aie.objectfifo<memref<64xi32>>
  %c = aie.core(%t) {
    %x = memref.alloca() : memref<64xi32>
    // expected-error @+1 {{expects parent op 'aie.runtime_sequence'}}
    aiex.npu.dma_memcpy_nd(%x[0, 0, 0, 0][1, 1, 1, 64][0, 0, 0, 1]) {id = 0 : i64, metadata = @f} : memref<64xi32>
    aie.end
  }
}

// -----

aie.device(npu1) {
  %s = aie.tile(0, 0)
  %t = aie.tile(0, 2)
  aie.objectfifo @f(%s, {%t}, 2 : i32) : !aie.objectfifo<memref<64xi32>>
  aie.runtime_sequence(%a: memref<64xi32>) {
    // expected-error @+1 {{names @h, which is not an aie.objectfifo of the device}}
    aiex.npu.dma_wait {symbol = @h}
  }
}

// -----

aie.device(npu1) {
  %s = aie.tile(0, 0)
  %t = aie.tile(0, 2)
  aie.objectfifo @f(%s, {%t}, 2 : i32) : !aie.objectfifo<memref<64xi32>>
  aie.runtime_sequence(%a: memref<64xindex>) {
    // expected-error @+1 {{moves 'index' elements; the shim DMA moves integers and floats}}
    aiex.npu.dma_memcpy_nd(%a[0, 0, 0, 0][1, 1, 1, 64][0, 0, 0, 1]) {id = 0 : i64, metadata = @f} : memref<64xindex>
  }
}

