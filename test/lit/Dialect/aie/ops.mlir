// RUN: htp-opt %s | htp-opt | FileCheck %s
// RUN: htp-opt %s --mlir-print-op-generic | htp-opt | FileCheck %s
//
// Round trip of every aie op and type: a vector add over one column (shim
// -> memtile -> two compute tiles, split and joined in the memtile), a
// FIFO between neighbouring cores (shared memory), a buffer and an
// external kernel. The printed form is mlir-aie's
// (docs/targets/aie-contract.md): test/Target/aie checks it with aie-opt.

// CHECK-LABEL: aie.device(npu1_1col) {
// CHECK: %[[SHIM:shim_noc_tile_0_0]] = aie.tile(0, 0)
// CHECK: %[[MEM:mem_tile_0_1]] = aie.tile(0, 1)
// CHECK: %[[T2:tile_0_2]] = aie.tile(0, 2)
// CHECK: %[[T3:tile_0_3]] = aie.tile(0, 3)
// CHECK: aie.objectfifo @in(%[[SHIM]], {%[[MEM]]}, 2 : i32) : !aie.objectfifo<memref<512xf32>>
// CHECK: aie.objectfifo @in0(%[[MEM]], {%[[T2]]}, 2 : i32) : !aie.objectfifo<memref<256xf32>>
// CHECK: aie.objectfifo @in1(%[[MEM]], {%[[T3]]}, 2 : i32) : !aie.objectfifo<memref<256xf32>>
// CHECK: aie.objectfifo.link [@in] -> [@in0, @in1]([] [0, 256])
// CHECK: aie.objectfifo.link [@out0, @out1] -> [@out]([0, 256] [])
// CHECK: aie.objectfifo @pass(%[[T2]], {%[[T3]]}, 1 : i32) : !aie.objectfifo<memref<8xi32>>
// CHECK: %{{.*}} = aie.buffer(%[[T2]]) {sym_name = "scratch"} : memref<16xf32>
// CHECK: func.func private @kernel(memref<256xf32>, memref<256xf32>) attributes {link_with = "kernel.o"}
// CHECK: %{{.*}} = aie.core(%[[T2]]) {
// CHECK: scf.for
// CHECK: %[[SV:.*]] = aie.objectfifo.acquire @in0(Consume, 1) : !aie.objectfifosubview<memref<256xf32>>
// CHECK: %[[IN:.*]] = aie.objectfifo.subview.access %[[SV]][0] : !aie.objectfifosubview<memref<256xf32>> -> memref<256xf32>
// CHECK: aie.objectfifo.release @in0(Consume, 1)
// CHECK: aie.end
// CHECK: } {stack_size = 2048 : i32}
// CHECK: aie.runtime_sequence(%[[A:arg[0-9]+]]: memref<2048xf32>, %[[C:arg[0-9]+]]: memref<2048xf32>) {
// CHECK: aiex.npu.dma_memcpy_nd(%[[A]][0, 0, 0, 0][1, 1, 4, 512][0, 0, 512, 1]) {id = 0 : i64, issue_token = true, metadata = @in} : memref<2048xf32>
// CHECK: aiex.npu.dma_memcpy_nd(%[[C]][0, 0, 0, 0][1, 1, 4, 512][0, 0, 512, 1]) {id = 1 : i64, metadata = @out} : memref<2048xf32>
// CHECK: aiex.npu.dma_wait {symbol = @out}
// CHECK-LABEL: aie.device(npu2) @second {
// CHECK: aie.runtime_sequence @run(%{{.*}}: memref<64xi32>) {
module {
  aie.device(npu1_1col) {
    %shim = aie.tile(0, 0)
    %mem = aie.tile(0, 1)
    %t2 = aie.tile(0, 2)
    %t3 = aie.tile(0, 3)
    aie.objectfifo @in(%shim, {%mem}, 2 : i32) : !aie.objectfifo<memref<512xf32>>
    aie.objectfifo @in0(%mem, {%t2}, 2 : i32) : !aie.objectfifo<memref<256xf32>>
    aie.objectfifo @in1(%mem, {%t3}, 2 : i32) : !aie.objectfifo<memref<256xf32>>
    aie.objectfifo.link [@in] -> [@in0, @in1] ([] [0, 256])
    aie.objectfifo @out0(%t2, {%mem}, 2 : i32) : !aie.objectfifo<memref<256xf32>>
    aie.objectfifo @out1(%t3, {%mem}, 2 : i32) : !aie.objectfifo<memref<256xf32>>
    aie.objectfifo @out(%mem, {%shim}, 2 : i32) : !aie.objectfifo<memref<512xf32>>
    aie.objectfifo.link [@out0, @out1] -> [@out] ([0, 256] [])
    aie.objectfifo @pass(%t2, {%t3}, 1 : i32) : !aie.objectfifo<memref<8xi32>>
    %scratch = aie.buffer(%t2) {sym_name = "scratch"} : memref<16xf32>
    func.func private @kernel(memref<256xf32>, memref<256xf32>) attributes {link_with = "kernel.o"}
    %core2 = aie.core(%t2) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      scf.for %i = %c0 to %c4 step %c1 {
        %sv = aie.objectfifo.acquire @in0(Consume, 1) : !aie.objectfifosubview<memref<256xf32>>
        %x = aie.objectfifo.subview.access %sv[0] : !aie.objectfifosubview<memref<256xf32>> -> memref<256xf32>
        %so = aie.objectfifo.acquire @out0(Produce, 1) : !aie.objectfifosubview<memref<256xf32>>
        %y = aie.objectfifo.subview.access %so[0] : !aie.objectfifosubview<memref<256xf32>> -> memref<256xf32>
        func.call @kernel(%x, %y) : (memref<256xf32>, memref<256xf32>) -> ()
        aie.objectfifo.release @in0(Consume, 1)
        aie.objectfifo.release @out0(Produce, 1)
      }
      %sp = aie.objectfifo.acquire @pass(Produce, 1) : !aie.objectfifosubview<memref<8xi32>>
      aie.objectfifo.release @pass(Produce, 1)
      aie.end
    } {stack_size = 2048 : i32}
    %core3 = aie.core(%t3) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %sp = aie.objectfifo.acquire @pass(Consume, 1) : !aie.objectfifosubview<memref<8xi32>>
      aie.objectfifo.release @pass(Consume, 1)
      scf.for %i = %c0 to %c4 step %c1 {
        %sv = aie.objectfifo.acquire @in1(Consume, 1) : !aie.objectfifosubview<memref<256xf32>>
        %x = aie.objectfifo.subview.access %sv[0] : !aie.objectfifosubview<memref<256xf32>> -> memref<256xf32>
        %so = aie.objectfifo.acquire @out1(Produce, 1) : !aie.objectfifosubview<memref<256xf32>>
        %y = aie.objectfifo.subview.access %so[0] : !aie.objectfifosubview<memref<256xf32>> -> memref<256xf32>
        scf.for %j = %c0 to %c4 step %c1 {
          %v = memref.load %x[%j] : memref<256xf32>
          %w = arith.addf %v, %v : f32
          memref.store %w, %y[%j] : memref<256xf32>
        }
        aie.objectfifo.release @in1(Consume, 1)
        aie.objectfifo.release @out1(Produce, 1)
      }
      aie.end
    }
    aie.runtime_sequence(%a: memref<2048xf32>, %c: memref<2048xf32>) {
      aiex.npu.dma_memcpy_nd(%a[0, 0, 0, 0][1, 1, 4, 512][0, 0, 512, 1]) {id = 0 : i64, issue_token = true, metadata = @in} : memref<2048xf32>
      aiex.npu.dma_memcpy_nd(%c[0, 0, 0, 0][1, 1, 4, 512][0, 0, 512, 1]) {id = 1 : i64, metadata = @out} : memref<2048xf32>
      aiex.npu.dma_wait {symbol = @out}
    }
  }
  aie.device(npu2) @second {
    %shim = aie.tile(7, 0)
    %t = aie.tile(7, 5)
    aie.objectfifo @o(%shim, {%t}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
    aie.runtime_sequence @run(%x: memref<64xi32>) {
      aiex.npu.dma_memcpy_nd(%x[0, 0, 0, 0][1, 1, 1, 64][0, 0, 0, 1]) {id = 0 : i64, metadata = @o} : memref<64xi32>
      aiex.npu.dma_wait {symbol = @o}
    }
  }
}
