// RUN: htp-opt %s --split-input-file --verify-diagnostics
//
// One case per verifier rule and ODS constraint of the aie dialect
// (dialects/aie/AIEOps.td, AIEOps.cpp, AIEDialect.cpp): the rules of
// docs/targets/aie-contract.md.

// expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'device' [npu1, npu1_1col, npu1_2col, npu1_3col, npu2, npu2_1col, npu2_2col, npu2_3col, npu2_4col, npu2_5col, npu2_6col, npu2_7col]}}
aie.device(npu1_4col) {
}

// -----

aie.device(npu1_2col) {
  // expected-error @+1 {{(2, 2) is outside the device npu1_2col, which has 2 columns (0-1) and rows 0-5 (0 shim, 1 memtile, 2-5 compute)}}
  %t = aie.tile(2, 2)
}

// -----

aie.device(npu2) {
  // expected-error @+1 {{(7, 6) is outside the device npu2}}
  %t = aie.tile(7, 6)
}

// -----

func.func @f() {
  // expected-error @+1 {{expects parent op 'aie.device'}}
  %t = aie.tile(0, 2)
  return
}

// -----

aie.device(npu1) {
  %m = aie.tile(0, 1)
  // expected-error @+1 {{runs on a compute tile (rows 2-5), not on the memtile (0, 1)}}
  %c = aie.core(%m) {
    aie.end
  }
}

// -----

aie.device(npu1) {
  %t = aie.tile(0, 2)
  // expected-error @+1 {{body must end with aie.end}}
  %c = aie.core(%t) {
    %x = arith.constant 0 : index
  }
}

// -----

aie.device(npu1) {
  %t = aie.tile(0, 2)
  // expected-error @+1 {{stack_size 65536 leaves no memory for buffers (65536 bytes in all)}}
  %c = aie.core(%t) {
    aie.end
  } {stack_size = 65536 : i32}
}

// -----

aie.device(npu1) {
  %t = aie.tile(0, 2)
  %c = aie.core(%t) {
    aie.end
  }
  // expected-error @+1 {{is a second core on the compute tile (0, 2) (a tile runs one core)}}
  %d = aie.core(%t) {
    aie.end
  }
}

// -----

aie.device(npu1) {
  %s = aie.tile(1, 0)
  // expected-error @+1 {{is on the shim tile (1, 0), which has no data memory}}
  %b = aie.buffer(%s) : memref<16xi32>
}

// -----

aie.device(npu1) {
  %t = aie.tile(0, 2)
  // expected-error @+1 {{has the tile (0, 2) as both producer and consumer}}
  aie.objectfifo @f(%t, {%t}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
}

// -----

aie.device(npu1) {
  %s = aie.tile(0, 0)
  %t = aie.tile(0, 2)
  // expected-error @+1 {{names the consumer tile (0, 2) twice}}
  aie.objectfifo @f(%s, {%t, %t}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
}

// -----

aie.device(npu1) {
  %s = aie.tile(0, 0)
  %r = aie.tile(1, 0)
  // expected-error @+1 {{connects two shim tiles (host memory to host memory)}}
  aie.objectfifo @f(%s, {%r}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
}

// -----

aie.device(npu1) {
  %s = aie.tile(0, 0)
  %t = aie.tile(0, 2)
  // expected-error @+1 {{element type 'memref<?xi32>' needs a static shape}}
  aie.objectfifo @f(%s, {%t}, 2 : i32) : !aie.objectfifo<memref<?xi32>>
}

// -----

aie.device(npu1) {
  %s = aie.tile(0, 0)
  %t = aie.tile(0, 2)
  // expected-error @+1 {{attribute 'elemNumber' failed to satisfy constraint}}
  aie.objectfifo @f(%s, {%t}, 0 : i32) : !aie.objectfifo<memref<16xi32>>
}

// -----

// Tile memory: a core's stack (1024 bytes by default) and two objects of
// 32 KiB do not fit the compute tile's 64 KiB.
aie.device(npu1) {
  %s = aie.tile(0, 0)
  %t = aie.tile(0, 2)
  // expected-error @+1 {{needs 66560 bytes of the compute tile (0, 2)'s data memory with everything placed there before it (a core's stack of 1024 bytes first), which has 65536}}
  aie.objectfifo @f(%s, {%t}, 2 : i32) : !aie.objectfifo<memref<8192xf32>>
  %c = aie.core(%t) {
    aie.end
  }
}

// -----

// Every FIFO end on a tile counts, and its buffers: here the producer end
// on (0, 2) after a 60 KiB buffer.
aie.device(npu1) {
  %t = aie.tile(0, 2)
  %m = aie.tile(0, 1)
  %b = aie.buffer(%t) : memref<15360xf32>
  // expected-error @+1 {{needs 69632 bytes of the compute tile (0, 2)'s data memory}}
  aie.objectfifo @f(%t, {%m}, 2 : i32) : !aie.objectfifo<memref<1024xf32>>
}

// -----

aie.device(npu2) {
  %s = aie.tile(0, 0)
  %m = aie.tile(0, 1)
  // expected-error @+1 {{needs 786432 bytes of the memtile (0, 1)'s data memory with everything placed there before it, which has 524288}}
  aie.objectfifo @f(%s, {%m}, 3 : i32) : !aie.objectfifo<memref<65536xf32>>
}

// -----

// A link point holds the larger side of the link once: 512 KiB here,
// exactly the memtile's memory, so one more buffer does not fit.
aie.device(npu2) {
  %s = aie.tile(0, 0)
  %m = aie.tile(0, 1)
  %t = aie.tile(0, 2)
  %u = aie.tile(0, 3)
  aie.objectfifo @in(%s, {%m}, 2 : i32) : !aie.objectfifo<memref<65536xf32>>
  aie.objectfifo @a(%m, {%t}, 2 : i32) : !aie.objectfifo<memref<1024xf32>>
  aie.objectfifo @b(%m, {%u}, 2 : i32) : !aie.objectfifo<memref<1024xf32>>
  aie.objectfifo.link [@in] -> [@a, @b] ([] [0, 1024])
  // expected-error @+1 {{needs 528384 bytes of the memtile (0, 1)'s data memory}}
  %x = aie.buffer(%m) : memref<1024xf32>
}

// -----

// DMA channels: a compute tile has 2 inputs (S2MM).
aie.device(npu1) {
  %m = aie.tile(0, 1)
  %t = aie.tile(0, 2)
  aie.objectfifo @a(%m, {%t}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  aie.objectfifo @b(%m, {%t}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  // expected-error @+1 {{needs 3 input (S2MM) DMA channels on the compute tile (0, 2), which has 2 (one per FIFO end that does not share memory)}}
  aie.objectfifo @c(%m, {%t}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
}

// -----

// A shim tile has 2 outputs (MM2S); a broadcast takes one.
aie.device(npu1) {
  %s = aie.tile(2, 0)
  %t = aie.tile(2, 2)
  %u = aie.tile(2, 3)
  aie.objectfifo @a(%s, {%t, %u}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  aie.objectfifo @b(%s, {%u}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  // expected-error @+1 {{needs 3 output (MM2S) DMA channels on the shim tile (2, 0), which has 2}}
  aie.objectfifo @c(%s, {%t}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
}

// -----

// Neighbouring cores share memory: no DMA channel, so three such FIFOs
// into (0, 3) are fine, and a DMA'd one after them takes one of its two.
aie.device(npu1) {
  %s = aie.tile(0, 0)
  %t = aie.tile(0, 2)
  %u = aie.tile(0, 3)
  %w = aie.tile(0, 4)
  aie.objectfifo @a(%t, {%u}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  aie.objectfifo @b(%w, {%u}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  aie.objectfifo @c(%t, {%u}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  aie.objectfifo @d(%s, {%u}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  aie.objectfifo @e(%s, {%u}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  %x = aie.tile(1, 0)
  // expected-error @+1 {{needs 3 input (S2MM) DMA channels on the compute tile (0, 3)}}
  aie.objectfifo @f(%x, {%u}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
}

// -----

aie.device(npu1) {
  %s = aie.tile(0, 0)
  %m = aie.tile(0, 1)
  aie.objectfifo @in(%s, {%m}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  // expected-error @+1 {{names @nowhere, which is not an aie.objectfifo}}
  aie.objectfifo.link [@in] -> [@nowhere] ([] [])
}

// -----

aie.device(npu1) {
  %s = aie.tile(0, 0)
  %m = aie.tile(0, 1)
  %t = aie.tile(0, 2)
  %u = aie.tile(0, 3)
  aie.objectfifo @a(%s, {%m}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  aie.objectfifo @b(%s, {%m}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  aie.objectfifo @c(%m, {%t}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  aie.objectfifo @d(%m, {%u}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  // expected-error @+1 {{either joins several FIFOs into one or splits one into several, not both}}
  aie.objectfifo.link [@a, @b] -> [@c, @d] ([0, 16] [0, 16])
}

// -----

aie.device(npu1) {
  %s = aie.tile(0, 0)
  %m = aie.tile(0, 1)
  %t = aie.tile(0, 2)
  %u = aie.tile(0, 3)
  aie.objectfifo @in(%s, {%m}, 2 : i32) : !aie.objectfifo<memref<32xi32>>
  aie.objectfifo @a(%m, {%t}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  aie.objectfifo @b(%t, {%u}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  // expected-error @+1 {{output FIFOs must all be produced by one tile (the link point)}}
  aie.objectfifo.link [@in] -> [@a, @b] ([] [0, 16])
}

// -----

aie.device(npu1) {
  %s = aie.tile(0, 0)
  %m = aie.tile(0, 1)
  %t = aie.tile(0, 2)
  aie.objectfifo @in(%s, {%t}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  aie.objectfifo @out(%m, {%t}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  // expected-error @+1 {{input FIFO @in is not consumed by the link point (0, 1), which produces the outputs}}
  aie.objectfifo.link [@in] -> [@out] ([] [])
}

// -----

aie.device(npu1) {
  %s = aie.tile(0, 0)
  %m = aie.tile(0, 1)
  %t = aie.tile(0, 2)
  %u = aie.tile(0, 3)
  aie.objectfifo @in(%s, {%m}, 2 : i32) : !aie.objectfifo<memref<32xi32>>
  aie.objectfifo @a(%m, {%t}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  aie.objectfifo @b(%m, {%u}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  // expected-error @+1 {{has 2 output FIFOs but 1 output offsets}}
  aie.objectfifo.link [@in] -> [@a, @b] ([] [0])
}

// -----

aie.device(npu1) {
  %s = aie.tile(0, 0)
  %m = aie.tile(0, 1)
  %t = aie.tile(0, 2)
  %u = aie.tile(0, 3)
  aie.objectfifo @in(%s, {%m}, 2 : i32) : !aie.objectfifo<memref<32xi32>>
  aie.objectfifo @a(%m, {%t}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  aie.objectfifo @b(%m, {%u}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  // expected-error @+1 {{places @b (16 elements) at offset 20 of @in's 32-element objects}}
  aie.objectfifo.link [@in] -> [@a, @b] ([] [0, 20])
}

// -----

aie.device(npu1) {
  %s = aie.tile(0, 0)
  %m = aie.tile(0, 1)
  %t = aie.tile(0, 2)
  aie.objectfifo @in(%s, {%m}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  aie.objectfifo @out(%m, {%t}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  // expected-error @+1 {{input offsets need several input FIFOs}}
  aie.objectfifo.link [@in] -> [@out] ([0] [])
}

// -----

aie.device(npu1) {
  %s = aie.tile(0, 0)
  %t = aie.tile(0, 2)
  aie.objectfifo @f(%s, {%t}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  %c = aie.core(%t) {
    // expected-error @+1 {{acquires 3 objects of @f, whose depth is 2 (mlir-aie would silently enlarge the FIFO)}}
    %sv = aie.objectfifo.acquire @f(Consume, 3) : !aie.objectfifosubview<memref<16xi32>>
    aie.objectfifo.release @f(Consume, 3)
    aie.end
  }
}

// -----

aie.device(npu1) {
  %s = aie.tile(0, 0)
  %t = aie.tile(0, 2)
  aie.objectfifo @f(%s, {%t}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  %c = aie.core(%t) {
    %sv = aie.objectfifo.acquire @f(Consume, 2) : !aie.objectfifosubview<memref<16xi32>>
    // expected-error @+1 {{releases 4 objects of @f, whose depth is 2}}
    aie.objectfifo.release @f(Consume, 4)
    aie.end
  }
}

// -----

aie.device(npu1) {
  %s = aie.tile(0, 0)
  %t = aie.tile(0, 2)
  aie.objectfifo @f(%s, {%t}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  aie.runtime_sequence(%a: memref<16xi32>) {
    // expected-error @+1 {{must be inside an aie.core}}
    %sv = aie.objectfifo.acquire @f(Consume, 1) : !aie.objectfifosubview<memref<16xi32>>
  }
}

// -----

aie.device(npu1) {
  %s = aie.tile(0, 0)
  %t = aie.tile(0, 2)
  aie.objectfifo @f(%s, {%t}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  %c = aie.core(%t) {
    // expected-error @+1 {{produces into @f from the core of (0, 2), which is not its producer}}
    %sv = aie.objectfifo.acquire @f(Produce, 1) : !aie.objectfifosubview<memref<16xi32>>
    aie.objectfifo.release @f(Produce, 1)
    aie.end
  }
}

// -----

aie.device(npu1) {
  %s = aie.tile(0, 0)
  %t = aie.tile(0, 2)
  %u = aie.tile(0, 3)
  aie.objectfifo @f(%s, {%t}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  %c = aie.core(%u) {
    // expected-error @+1 {{consumes from @f in the core of (0, 3), which is not one of its consumers}}
    %sv = aie.objectfifo.acquire @f(Consume, 1) : !aie.objectfifosubview<memref<16xi32>>
    aie.objectfifo.release @f(Consume, 1)
    aie.end
  }
}

// -----

aie.device(npu1) {
  %t = aie.tile(0, 2)
  %c = aie.core(%t) {
    // expected-error @+1 {{names @g, which is not an aie.objectfifo}}
    aie.objectfifo.release @g(Consume, 1)
    aie.end
  }
}

// -----

aie.device(npu1) {
  %s = aie.tile(0, 0)
  %t = aie.tile(0, 2)
  aie.objectfifo @f(%s, {%t}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  %c = aie.core(%t) {
    // expected-error @+1 {{returns objects of type 'memref<8xi32>', but @f holds 'memref<16xi32>'}}
    %sv = aie.objectfifo.acquire @f(Consume, 1) : !aie.objectfifosubview<memref<8xi32>>
    aie.objectfifo.release @f(Consume, 1)
    aie.end
  }
}

// -----

aie.device(npu1) {
  %s = aie.tile(0, 0)
  %t = aie.tile(0, 2)
  aie.objectfifo @f(%s, {%t}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  %c = aie.core(%t) {
    %sv = aie.objectfifo.acquire @f(Consume, 1) : !aie.objectfifosubview<memref<16xi32>>
    // expected-error @+1 {{accesses object 1 of a subview of 1 object}}
    %x = aie.objectfifo.subview.access %sv[1] : !aie.objectfifosubview<memref<16xi32>> -> memref<16xi32>
    aie.objectfifo.release @f(Consume, 1)
    aie.end
  }
}

// -----

aie.device(npu1) {
  %s = aie.tile(0, 0)
  %t = aie.tile(0, 2)
  aie.objectfifo @f(%s, {%t}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  %c = aie.core(%t) {
    %sv = aie.objectfifo.acquire @f(Consume, 1) : !aie.objectfifosubview<memref<16xi32>>
    // expected-error @+1 {{result type 'memref<16xf32>' is not the objects' type 'memref<16xi32>'}}
    %x = aie.objectfifo.subview.access %sv[0] : !aie.objectfifosubview<memref<16xi32>> -> memref<16xf32>
    aie.objectfifo.release @f(Consume, 1)
    aie.end
  }
}

// -----

aie.device(npu1) {
  %s = aie.tile(0, 0)
  %t = aie.tile(0, 2)
  aie.objectfifo @f(%s, {%t}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  %c = aie.core(%t) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %sv = aie.objectfifo.acquire @f(Consume, 1) : !aie.objectfifosubview<memref<16xi32>>
    %r = scf.for %i = %c0 to %c1 step %c1 iter_args(%v = %sv) -> (!aie.objectfifosubview<memref<16xi32>>) {
      // expected-error @+1 {{subview must come straight from an aie.objectfifo.acquire}}
      %x = aie.objectfifo.subview.access %v[0] : !aie.objectfifosubview<memref<16xi32>> -> memref<16xi32>
      scf.yield %v : !aie.objectfifosubview<memref<16xi32>>
    }
    aie.objectfifo.release @f(Consume, 1)
    aie.end
  }
}

// -----

// Balanced protocol: a loop that acquires without releasing stops the FIFO
// after its depth (mlir-aie accepts it; the NPU hangs).
aie.device(npu1) {
  %s = aie.tile(0, 0)
  %t = aie.tile(0, 2)
  aie.objectfifo @f(%s, {%t}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  %c = aie.core(%t) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    scf.for %i = %c0 to %c8 step %c1 {
      // expected-error @+1 {{@f (Consume) is acquired 1 time but released 0 times in each iteration of the enclosing 'scf.for': every acquire needs its release in the same block, or the FIFO stops (a hang on the device)}}
      %sv = aie.objectfifo.acquire @f(Consume, 1) : !aie.objectfifosubview<memref<16xi32>>
    }
    aie.end
  }
}

// -----

aie.device(npu1) {
  %s = aie.tile(0, 0)
  %t = aie.tile(0, 2)
  aie.objectfifo @f(%s, {%t}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  %c = aie.core(%t) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    scf.for %i = %c0 to %c8 step %c1 {
      // expected-error @+1 {{@f (Consume) is acquired 2 times but released 1 time in each iteration}}
      %sv = aie.objectfifo.acquire @f(Consume, 2) : !aie.objectfifosubview<memref<16xi32>>
      aie.objectfifo.release @f(Consume, 1)
    }
    aie.end
  }
}

// -----

aie.device(npu1) {
  %t = aie.tile(0, 2)
  %m = aie.tile(0, 1)
  aie.objectfifo @f(%t, {%m}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  %c = aie.core(%t) {
    %true = arith.constant true
    scf.if %true {
      // expected-error @+1 {{@f (Produce) is acquired 0 times but released 1 time in a region of 'scf.if'}}
      aie.objectfifo.release @f(Produce, 1)
    }
    aie.end
  }
}

// -----

aie.device(npu1) {
  %t = aie.tile(0, 2)
  %m = aie.tile(0, 1)
  aie.objectfifo @f(%t, {%m}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  %c = aie.core(%t) {
    // expected-error @+1 {{@f (Produce) is acquired 1 time but released 0 times in the core's body}}
    %sv = aie.objectfifo.acquire @f(Produce, 1) : !aie.objectfifosubview<memref<16xi32>>
    aie.end
  }
}

// -----

aie.device(npu1) {
  // expected-error @+1 {{argument #1 is 'i32': host buffers are memrefs}}
  aie.runtime_sequence(%a: memref<16xi32>, %n: i32) {
  }
}
