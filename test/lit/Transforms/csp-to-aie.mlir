// csp-to-aie (lib/htp-conversion-csp-to-aie/src/lower.rs): a CSP program
// becomes an aie.device (the AIE backend's IR): each computing process a
// core per replica calling its loop body (a tile-IR function of the
// device) once per iteration on one object of each of its FIFOs; each
// channel an object FIFO of its depth; a process that only loads or stores
// a shim transfer of the runtime sequence; a core's loads of blocks that
// change with its loop an implicit FIFO from a shim; what a core reads
// whole a broadcast FIFO of depth 1. What a static design cannot express
// is refused at its op.
// RUN: htp-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(csp-to-aie{device=npu1})' | FileCheck %s

// CHECK-LABEL: aie.device(npu1)
// CHECK-DAG: %[[T2:.*]] = aie.tile(0, 2)
// CHECK-DAG: %[[T3:.*]] = aie.tile(0, 3)
// CHECK-DAG: %[[SHIM:.*]] = aie.tile(0, 0)
// CHECK: aie.objectfifo @loaded(%[[SHIM]], {%[[T2]]}, 2 : i32) : !aie.objectfifo<memref<8x64xf32>>
// CHECK: aie.objectfifo @scaled(%[[T2]], {%[[T3]]}, 3 : i32) : !aie.objectfifo<memref<8x64xf32>>
// CHECK: aie.objectfifo @arg2_shift(%[[T3]], {%[[SHIM]]}, 2 : i32) : !aie.objectfifo<memref<8x64xf32>>
// CHECK: aie.objectfifo @arg1(%[[SHIM]], {%[[T2]]}, 1 : i32) : !aie.objectfifo<memref<1x64xf32>>
// CHECK: aie.objectfifo @arg3({{.*}}, {%[[T3]]}, 1 : i32) : !aie.objectfifo<memref<1x1xf32>>
// CHECK: func.func private @p__scale(%[[IN:.*]]: memref<8x64xf32>, %[[OUT:.*]]: memref<8x64xf32>, %[[W:.*]]: memref<1x64xf32>, %{{.*}}: index, %{{.*}}: index)
// CHECK: tile.load %[[W]]
// CHECK: tile.load %[[IN]]
// CHECK: tile.store %{{.*}}, %[[OUT]]
// CHECK: func.func private @p__shift(%[[IN2:.*]]: memref<8x64xf32>, %[[OUT2:.*]]: memref<8x64xf32>, %[[S:.*]]: memref<1x1xf32>
// CHECK: memref.load %[[S]]
// CHECK: tile.store %{{.*}}, %[[OUT2]]
// CHECK: aie.core(%[[T2]])
// CHECK: aie.objectfifo.acquire @arg1(Consume, 1)
// CHECK: scf.for
// CHECK: aie.objectfifo.acquire @loaded(Consume, 1)
// CHECK: aie.objectfifo.acquire @scaled(Produce, 1)
// CHECK: func.call @p__scale
// CHECK: aie.objectfifo.release @loaded(Consume, 1)
// CHECK: aie.objectfifo.release @scaled(Produce, 1)
// CHECK: aie.core(%[[T3]])
// CHECK: aie.runtime_sequence(%arg0: memref<2048xf32>, %arg1: memref<64xf32>, %arg2: memref<2048xf32>, %arg3: memref<1xf32>)
// CHECK: aiex.npu.dma_memcpy_nd(%arg2[0, 0, 0, 0][1, 1, 4, 512][0, 2048, 512, 1]) {id = 0 : i64, issue_token = true, metadata = @arg2_shift}
// CHECK: aiex.npu.dma_memcpy_nd(%arg0[0, 0, 0, 0][1, 1, 4, 512][0, 2048, 512, 1]) {id = 1 : i64, metadata = @loaded}
// CHECK: metadata = @arg1
// CHECK: metadata = @arg3
// CHECK: aiex.npu.dma_wait {symbol = @arg2_shift}
// CHECK-NOT: csp.
func.func @p(%x: memref<32x64xf32>, %w: memref<1x64xf32>, %y: memref<32x64xf32>, %s: f32) attributes {htp.model = "csp", htp.outputs = array<i64: 2>} {
  %loaded = csp.channel "loaded" depth 2 : !csp.channel<!tile.tile<8x64xf32>>
  %scaled = csp.channel "scaled" depth 3 : !csp.channel<!tile.tile<8x64xf32>>
  csp.process "load" {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    scf.for %i = %c0 to %c32 step %c8 {
      %t = tile.load %x[%i, %c0] : memref<32x64xf32> -> !tile.tile<8x64xf32>
      csp.send %loaded, %t : !csp.channel<!tile.tile<8x64xf32>>, !tile.tile<8x64xf32>
    }
  }
  csp.process "scale" {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %wt = tile.load %w[%c0, %c0] : memref<1x64xf32> -> !tile.tile<1x64xf32>
    scf.for %i = %c0 to %c32 step %c8 {
      csp.consume %loaded () : !csp.channel<!tile.tile<8x64xf32>> {
      ^bb0(%t: !tile.tile<8x64xf32>):
        %b = tile.broadcast %wt : !tile.tile<1x64xf32> -> !tile.tile<8x64xf32>
        %m = tile.mul %t, %b : !tile.tile<8x64xf32>
        csp.send %scaled, %m : !csp.channel<!tile.tile<8x64xf32>>, !tile.tile<8x64xf32>
      }
    }
  }
  csp.process "shift" {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    scf.for %i = %c0 to %c32 step %c8 {
      %t = csp.recv %scaled : !csp.channel<!tile.tile<8x64xf32>> -> !tile.tile<8x64xf32>
      %u = tile.add %t, %s : !tile.tile<8x64xf32>, f32
      tile.store %u, %y[%i, %c0] : !tile.tile<8x64xf32>, memref<32x64xf32>
    }
  }
  return
}

// -----

// Replicas: a core each, the array's elements their own FIFOs; the
// scatter's `at=` deals the blocks, each element's transfer visiting every
// W-th block (a strided window).
// CHECK-LABEL: aie.device(npu1)
// CHECK: aie.objectfifo @work_0(%{{.*}}, {%[[W0:.*]]}, 1 : i32)
// CHECK: aie.objectfifo @work_1(%{{.*}}, {%[[W1:.*]]}, 1 : i32)
// CHECK: aie.objectfifo @arg1_worker_0(%[[W0]], {%{{.*}}}, 2 : i32)
// CHECK: aie.objectfifo @arg1_worker_1(%[[W1]], {%{{.*}}}, 2 : i32)
// CHECK-DAG: aiex.npu.dma_memcpy_nd(%arg1[0, 0, 0, 0][1, 2, 1, 512][0, 1024, 512, 1]) {{.*}}metadata = @arg1_worker_0
// CHECK-DAG: aiex.npu.dma_memcpy_nd(%arg1[0, 0, 0, 512][1, 2, 1, 512][0, 1024, 512, 1]) {{.*}}metadata = @arg1_worker_1
// CHECK-DAG: aiex.npu.dma_memcpy_nd(%arg0[0, 0, 0, 0][1, 2, 1, 512][0, 1024, 512, 1]) {{.*}}metadata = @work_0
// CHECK-DAG: aiex.npu.dma_memcpy_nd(%arg0[0, 0, 0, 512][1, 2, 1, 512][0, 1024, 512, 1]) {{.*}}metadata = @work_1
func.func @fan(%x: memref<32x64xf32>, %y: memref<32x64xf32>) attributes {htp.model = "csp", htp.outputs = array<i64: 1>} {
  %work = csp.channel "work" depth 1 : !csp.channel<!tile.tile<8x64xf32>, 2>
  csp.process "scatter" {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    scf.for %b = %c0 to %c4 step %c1 {
      %row = arith.muli %b, %c8 : index
      %at = arith.remsi %b, %c2 : index
      %t = tile.load %x[%row, %c0] : memref<32x64xf32> -> !tile.tile<8x64xf32>
      csp.send %work[%at], %t : !csp.channel<!tile.tile<8x64xf32>, 2>, !tile.tile<8x64xf32>
    }
  }
  csp.process "worker" replicas 2 {
  ^bb0(%w: index):
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    scf.for %b = %w to %c4 step %c2 {
      %t = csp.recv %work[%w] : !csp.channel<!tile.tile<8x64xf32>, 2> -> !tile.tile<8x64xf32>
      %e = tile.exp %t : !tile.tile<8x64xf32>
      %row = arith.muli %b, %c8 : index
      tile.store %e, %y[%row, %c0] : !tile.tile<8x64xf32>, memref<32x64xf32>
    }
  }
  return
}

// -----

// A loop nest: blocks of 16 x 32 walked row-block by column-block; each
// transfer visits groups of blocks (sizes [groups, blocks, rows, columns]),
// the core runs the same nest and passes both induction variables.
// CHECK-LABEL: aie.device(npu1)
// CHECK: func.func private @nest__work(%{{.*}}: memref<16x32xf32>, %{{.*}}: memref<16x32xf32>, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index)
// CHECK: aie.core
// CHECK: scf.for
// CHECK: scf.for
// CHECK: func.call @nest__work(
// CHECK-DAG: aiex.npu.dma_memcpy_nd(%arg1[0, 0, 0, 0][4, 4, 16, 32][2048, 32, 128, 1]) {{.*}}metadata = @arg1_work
// CHECK-DAG: aiex.npu.dma_memcpy_nd(%arg0[0, 0, 0, 0][4, 4, 16, 32][2048, 32, 128, 1]) {{.*}}metadata = @a
func.func @nest(%x: memref<64x128xf32>, %y: memref<64x128xf32>) attributes {htp.model = "csp", htp.outputs = array<i64: 1>} {
  %a = csp.channel "a" depth 2 : !csp.channel<!tile.tile<16x32xf32>>
  csp.process "load" {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    scf.for %i = %c0 to %c64 step %c16 {
      scf.for %j = %c0 to %c128 step %c32 {
        %t = tile.load %x[%i, %j] : memref<64x128xf32> -> !tile.tile<16x32xf32>
        csp.send %a, %t : !csp.channel<!tile.tile<16x32xf32>>, !tile.tile<16x32xf32>
      }
    }
  }
  csp.process "work" {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    scf.for %i = %c0 to %c64 step %c16 {
      scf.for %j = %c0 to %c128 step %c32 {
        %t = csp.recv %a : !csp.channel<!tile.tile<16x32xf32>> -> !tile.tile<16x32xf32>
        %e = tile.exp %t : !tile.tile<16x32xf32>
        tile.store %e, %y[%i, %j] : !tile.tile<16x32xf32>, memref<64x128xf32>
      }
    }
  }
  return
}

// -----

func.func @no_loop(%x: memref<8x64xf32>, %y: memref<8x64xf32>) attributes {htp.model = "csp"} {
  %a = csp.channel "a" depth 1 : !csp.channel<!tile.tile<8x64xf32>>
  // expected-error @+1 {{the process 'p' has no loop: on the AIE targets a process is one loop nest over its blocks}}
  csp.process "p" {
    %c0 = arith.constant 0 : index
    %t = tile.load %x[%c0, %c0] : memref<8x64xf32> -> !tile.tile<8x64xf32>
    %e = tile.exp %t : !tile.tile<8x64xf32>
    tile.store %e, %y[%c0, %c0] : !tile.tile<8x64xf32>, memref<8x64xf32>
  }
  return
}

// -----

func.func @under_a_branch(%x: memref<32x64xf32>, %y: memref<32x64xf32>) attributes {htp.model = "csp"} {
  %a = csp.channel "a" depth 1 : !csp.channel<!tile.tile<8x64xf32>>
  csp.process "load" {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    scf.for %i = %c0 to %c32 step %c8 {
      %t = tile.load %x[%i, %c0] : memref<32x64xf32> -> !tile.tile<8x64xf32>
      csp.send %a, %t : !csp.channel<!tile.tile<8x64xf32>>, !tile.tile<8x64xf32>
    }
  }
  csp.process "use" {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    scf.for %i = %c0 to %c32 step %c8 {
      %flag = arith.cmpi slt, %i, %c8 : index
      scf.if %flag {
        // expected-error @+1 {{this channel operation of 'use' is under a branch or an inner loop}}
        %t = csp.recv %a : !csp.channel<!tile.tile<8x64xf32>> -> !tile.tile<8x64xf32>
        %e = tile.exp %t : !tile.tile<8x64xf32>
        tile.store %e, %y[%i, %c0] : !tile.tile<8x64xf32>, memref<32x64xf32>
      }
    }
  }
  return
}

// -----

func.func @index_changes(%x: memref<32x64xf32>, %y: memref<32x64xf32>) attributes {htp.model = "csp"} {
  %a = csp.channel "a" depth 1 : !csp.channel<!tile.tile<8x64xf32>, 2>
  csp.process "load" {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    scf.for %i = %c0 to %c4 step %c1 {
      %t = tile.load %x[%c0, %c0] : memref<32x64xf32> -> !tile.tile<8x64xf32>
      %e = tile.exp %t : !tile.tile<8x64xf32>
      %at = arith.remsi %i, %c1 : index
      // expected-error @+1 {{on the AIE targets a core takes the same channel every iteration (its replica's own, `at=w`): this index changes with the loop}}
      csp.send %a[%at], %e : !csp.channel<!tile.tile<8x64xf32>, 2>, !tile.tile<8x64xf32>
    }
  }
  return
}

// -----

func.func @cycle(%x: memref<32x64xf32>) attributes {htp.model = "csp"} {
  // expected-error @+1 {{the cores' channels form a cycle ('ping' --a--> 'pong' --b--> 'ping')}}
  %a = csp.channel "a" depth 1 : !csp.channel<!tile.tile<8x64xf32>>
  %b = csp.channel "b" depth 1 : !csp.channel<!tile.tile<8x64xf32>>
  csp.process "ping" {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    scf.for %i = %c0 to %c4 step %c1 {
      %t = tile.load %x[%c0, %c0] : memref<32x64xf32> -> !tile.tile<8x64xf32>
      %e = tile.exp %t : !tile.tile<8x64xf32>
      csp.send %a, %e : !csp.channel<!tile.tile<8x64xf32>>, !tile.tile<8x64xf32>
      %u = csp.recv %b : !csp.channel<!tile.tile<8x64xf32>> -> !tile.tile<8x64xf32>
    }
  }
  csp.process "pong" {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    scf.for %i = %c0 to %c4 step %c1 {
      %t = csp.recv %a : !csp.channel<!tile.tile<8x64xf32>> -> !tile.tile<8x64xf32>
      %e = tile.exp %t : !tile.tile<8x64xf32>
      csp.send %b, %e : !csp.channel<!tile.tile<8x64xf32>>, !tile.tile<8x64xf32>
    }
  }
  return
}

// -----

func.func @copy(%x: memref<32x64xf32>, %y: memref<32x64xf32>) attributes {htp.model = "csp"} {
  // expected-error @+1 {{'a' joins two processes that only move data (a tensor copied to a tensor): on the AIE targets a channel has a core at one end at least}}
  %a = csp.channel "a" depth 1 : !csp.channel<!tile.tile<8x64xf32>>
  csp.process "load" {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    scf.for %i = %c0 to %c32 step %c8 {
      %t = tile.load %x[%i, %c0] : memref<32x64xf32> -> !tile.tile<8x64xf32>
      csp.send %a, %t : !csp.channel<!tile.tile<8x64xf32>>, !tile.tile<8x64xf32>
    }
  }
  csp.process "store" {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    scf.for %i = %c0 to %c32 step %c8 {
      %t = csp.recv %a : !csp.channel<!tile.tile<8x64xf32>> -> !tile.tile<8x64xf32>
      tile.store %t, %y[%i, %c0] : !tile.tile<8x64xf32>, memref<32x64xf32>
    }
  }
  return
}

// -----

func.func @uneven(%x: memref<64x64xf32>, %y: memref<64x64xf32>) attributes {htp.model = "csp"} {
  %a = csp.channel "a" depth 1 : !csp.channel<!tile.tile<8x64xf32>>
  csp.process "load" {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c8 = arith.constant 8 : index
    scf.for %i = %c0 to %c3 step %c1 {
      %sq = arith.muli %i, %i : index
      %row = arith.muli %sq, %c8 : index
      %t = tile.load %x[%row, %c0] : memref<64x64xf32> -> !tile.tile<8x64xf32>
      // expected-error @+1 {{the blocks of 'arg0' this channel carries are not evenly spaced}}
      csp.send %a, %t : !csp.channel<!tile.tile<8x64xf32>>, !tile.tile<8x64xf32>
    }
  }
  csp.process "use" {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c24 = arith.constant 24 : index
    scf.for %i = %c0 to %c24 step %c8 {
      %t = csp.recv %a : !csp.channel<!tile.tile<8x64xf32>> -> !tile.tile<8x64xf32>
      %e = tile.exp %t : !tile.tile<8x64xf32>
      tile.store %e, %y[%i, %c0] : !tile.tile<8x64xf32>, memref<64x64xf32>
    }
  }
  return
}

// -----

func.func @cut(%x: memref<20x64xf32>, %y: memref<20x64xf32>) attributes {htp.model = "csp"} {
  %a = csp.channel "a" depth 1 : !csp.channel<!tile.tile<8x64xf32>>
  csp.process "load" {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c20 = arith.constant 20 : index
    %f = arith.constant 0.0 : f32
    scf.for %i = %c0 to %c20 step %c8 {
      %left = arith.subi %c20, %i : index
      %n = arith.minsi %left, %c8 : index
      %t = tile.load %x[%i, %c0] valid [%n] : memref<20x64xf32> -> !tile.tile<8x64xf32, valid = ?x64>
      %p = tile.pad %t, %f : !tile.tile<8x64xf32, valid = ?x64> -> !tile.tile<8x64xf32>
      // expected-error @+1 {{this block is cut by the tensor's edge (4 of its 8 rows): the AIE targets move whole blocks; make the tensor's rows a multiple of 8}}
      csp.send %a, %p : !csp.channel<!tile.tile<8x64xf32>>, !tile.tile<8x64xf32>
    }
  }
  csp.process "use" {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    scf.for %i = %c0 to %c16 step %c8 {
      %t = csp.recv %a : !csp.channel<!tile.tile<8x64xf32>> -> !tile.tile<8x64xf32>
      %e = tile.exp %t : !tile.tile<8x64xf32>
      tile.store %e, %y[%i, %c0] : !tile.tile<8x64xf32>, memref<20x64xf32>
    }
  }
  return
}

// -----

// expected-error @+1 {{'arg0' has type memref<?x64xf32>; the aie targets need 2-D tensors of static shape (give dimensions as htp.Const)}}
func.func @dynamic(%x: memref<?x64xf32>) attributes {htp.model = "csp"} {
  return
}

// -----

func.func @carried(%x: memref<32x64xf32>, %y: memref<32x64xf32>) attributes {htp.model = "csp"} {
  %a = csp.channel "a" depth 1 : !csp.channel<!tile.tile<8x64xf32>>
  csp.process "p" {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    // expected-error @+1 {{this loop carries values from one iteration to the next: on the AIE targets each iteration of a process's loop stands alone}}
    %r = scf.for %i = %c0 to %c32 step %c8 iter_args(%k = %c0) -> (index) {
      %t = tile.load %x[%i, %c0] : memref<32x64xf32> -> !tile.tile<8x64xf32>
      %e = tile.exp %t : !tile.tile<8x64xf32>
      tile.store %e, %y[%i, %c0] : !tile.tile<8x64xf32>, memref<32x64xf32>
      scf.yield %k : index
    }
  }
  return
}
