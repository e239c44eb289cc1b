// csp-to-pto (lib/htp-conversion-csp-to-pto/src/lower.rs): a CSP program
// becomes one PTO cluster program: the process that multiplies matrices a
// tile kernel for the cube core (pto.core = "aic"), the other one for the
// vector core, both marked pto.cluster = the program, with the pipes' slots
// (the channels' depths, added per direction); sends and receives become
// pto.cluster_send / pto.cluster_recv of the sender's direction, a consume
// a receive with its body inlined. What a cluster cannot run is refused at
// its op.
// RUN: htp-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(csp-to-pto)' | FileCheck %s

// CHECK-LABEL: func.func @p__cube
// CHECK-SAME: htp.kernel
// CHECK-SAME: pto.cluster = "p"
// CHECK-SAME: pto.cluster_slots = array<i64: 3, 1>
// CHECK-SAME: pto.core = "aic"
// CHECK: %[[S:.*]] = tile.matmul
// CHECK: pto.cluster_send c2v %[[S]] : !tile.tile<16x16xf32>
// CHECK: %[[P:.*]] = pto.cluster_recv v2c : !tile.tile<16x16xf32>
// CHECK: tile.matmul %[[P]]
// CHECK: pto.cluster_send c2v
// CHECK-LABEL: func.func @p__vector
// CHECK-SAME: pto.core = "aiv"
// CHECK: %[[T:.*]] = pto.cluster_recv c2v : !tile.tile<16x16xf32>
// CHECK: tile.exp %[[T]]
// CHECK: pto.cluster_send v2c
// CHECK: %[[U:.*]] = pto.cluster_recv c2v : !tile.tile<16x16xf32>
// CHECK: tile.add %[[U]]
// CHECK-NOT: csp.
func.func @p(%x: memref<16x16xf32>, %y: memref<16x16xf32>) attributes {htp.model = "csp", htp.outputs = array<i64: 1>} {
  %s = csp.channel "s" depth 2 : !csp.channel<!tile.tile<16x16xf32>>
  %p = csp.channel "p" depth 1 : !csp.channel<!tile.tile<16x16xf32>>
  %o = csp.channel "o" depth 1 : !csp.channel<!tile.tile<16x16xf32>>
  csp.process "cube" {
    %c0 = arith.constant 0 : index
    %a = tile.load %x[%c0, %c0] : memref<16x16xf32> -> !tile.tile<16x16xf32>
    %m = tile.matmul %a, %a : !tile.tile<16x16xf32>, !tile.tile<16x16xf32> -> !tile.tile<16x16xf32>
    csp.send %s, %m : !csp.channel<!tile.tile<16x16xf32>>, !tile.tile<16x16xf32>
    %t = csp.recv %p : !csp.channel<!tile.tile<16x16xf32>> -> !tile.tile<16x16xf32>
    %n = tile.matmul %t, %a : !tile.tile<16x16xf32>, !tile.tile<16x16xf32> -> !tile.tile<16x16xf32>
    csp.send %o, %n : !csp.channel<!tile.tile<16x16xf32>>, !tile.tile<16x16xf32>
  }
  csp.process "vector" {
    %c0 = arith.constant 0 : index
    csp.consume %s () : !csp.channel<!tile.tile<16x16xf32>> {
    ^bb0(%t: !tile.tile<16x16xf32>):
      %e = tile.exp %t : !tile.tile<16x16xf32>
      csp.send %p, %e : !csp.channel<!tile.tile<16x16xf32>>, !tile.tile<16x16xf32>
    }
    %u = csp.recv %o : !csp.channel<!tile.tile<16x16xf32>> -> !tile.tile<16x16xf32>
    %v = tile.add %u, %u : !tile.tile<16x16xf32>, !tile.tile<16x16xf32>
    tile.store %v, %y[%c0, %c0] : !tile.tile<16x16xf32>, memref<16x16xf32>
  }
  return
}

// -----

func.func @two_vector_processes(%x: memref<16x16xf32>, %y: memref<16x16xf32>) attributes {htp.model = "csp"} {
  %a = csp.channel "a" depth 1 : !csp.channel<!tile.tile<16x16xf32>>
  csp.process "first" {
    %c0 = arith.constant 0 : index
    %t = tile.load %x[%c0, %c0] : memref<16x16xf32> -> !tile.tile<16x16xf32>
    %e = tile.exp %t : !tile.tile<16x16xf32>
    csp.send %a, %e : !csp.channel<!tile.tile<16x16xf32>>, !tile.tile<16x16xf32>
  }
  // expected-error @+1 {{the processes 'first' and 'second' both do vector work only: on PTO a program is one cluster, one cube process (its matmuls) and one vector process}}
  csp.process "second" {
    %c0 = arith.constant 0 : index
    %t = csp.recv %a : !csp.channel<!tile.tile<16x16xf32>> -> !tile.tile<16x16xf32>
    %e = tile.exp %t : !tile.tile<16x16xf32>
    tile.store %e, %y[%c0, %c0] : !tile.tile<16x16xf32>, memref<16x16xf32>
  }
  return
}

// -----

func.func @replicated(%x: memref<16x16xf32>, %y: memref<16x16xf32>) attributes {htp.model = "csp"} {
  %a = csp.channel "a" depth 1 : !csp.channel<!tile.tile<16x16xf32>>
  csp.process "cube" {
    %c0 = arith.constant 0 : index
    %t = tile.load %x[%c0, %c0] : memref<16x16xf32> -> !tile.tile<16x16xf32>
    %m = tile.matmul %t, %t : !tile.tile<16x16xf32>, !tile.tile<16x16xf32> -> !tile.tile<16x16xf32>
    csp.send %a, %m : !csp.channel<!tile.tile<16x16xf32>>, !tile.tile<16x16xf32>
  }
  csp.process "vector" {
    %c0 = arith.constant 0 : index
    %t = csp.recv %a : !csp.channel<!tile.tile<16x16xf32>> -> !tile.tile<16x16xf32>
    %e = tile.exp %t : !tile.tile<16x16xf32>
    tile.store %e, %y[%c0, %c0] : !tile.tile<16x16xf32>, memref<16x16xf32>
  }
  // expected-error @+1 {{the process 'w' runs 2 replicas and talks to a process that computes, and a PTO cluster runs each process once (one cube core, one vector core): on PTO replicas are tasks of their own, which exchange tiles only with loaders and storers}}
  csp.process "w" replicas 2 {
  ^bb0(%r: index):
  }
  return
}

// -----

func.func @channel_array(%x: memref<16x16xf32>) attributes {htp.model = "csp"} {
  // expected-error @+1 {{an array of 2 channels joins replicated processes to a process that computes, and a PTO cluster runs one cube and one vector process: on PTO replicas are tasks of their own, which exchange tiles only with loaders and storers (processes that just move blocks of the program's tensors)}}
  %w = csp.channel "w" depth 1 : !csp.channel<!tile.tile<16x16xf32>, 2>
  return
}

// -----

func.func @vector_work_on_the_cube(%x: memref<16x16xf32>) attributes {htp.model = "csp"} {
  %a = csp.channel "a" depth 1 : !csp.channel<!tile.tile<16x16xf32>>
  csp.process "cube" {
    %c0 = arith.constant 0 : index
    %t = tile.load %x[%c0, %c0] : memref<16x16xf32> -> !tile.tile<16x16xf32>
    %m = tile.matmul %t, %t : !tile.tile<16x16xf32>, !tile.tile<16x16xf32> -> !tile.tile<16x16xf32>
    // expected-error @+1 {{this process multiplies matrices, so on PTO it runs on the cube core, which computes matmuls only ('tile.exp' is vector work): send the tile to the vector process}}
    %e = tile.exp %m : !tile.tile<16x16xf32>
    csp.send %a, %e : !csp.channel<!tile.tile<16x16xf32>>, !tile.tile<16x16xf32>
  }
  return
}

// -----

func.func @out_of_order(%x: memref<16x16xf32>, %y: memref<16x16xf32>) attributes {htp.model = "csp"} {
  %a = csp.channel "a" depth 1 : !csp.channel<!tile.tile<16x16xf32>>
  %b = csp.channel "b" depth 1 : !csp.channel<!tile.tile<16x16xf32>>
  csp.process "cube" {
    %c0 = arith.constant 0 : index
    %t = tile.load %x[%c0, %c0] : memref<16x16xf32> -> !tile.tile<16x16xf32>
    %m = tile.matmul %t, %t : !tile.tile<16x16xf32>, !tile.tile<16x16xf32> -> !tile.tile<16x16xf32>
    csp.send %a, %m : !csp.channel<!tile.tile<16x16xf32>>, !tile.tile<16x16xf32>
    csp.send %b, %m : !csp.channel<!tile.tile<16x16xf32>>, !tile.tile<16x16xf32>
  }
  // expected-error @+1 {{the channels 'a', 'b' share the cluster's c2v pipe, which delivers tiles in the order they were sent}}
  csp.process "vector" {
    %c0 = arith.constant 0 : index
    %u = csp.recv %b : !csp.channel<!tile.tile<16x16xf32>> -> !tile.tile<16x16xf32>
    %v = csp.recv %a : !csp.channel<!tile.tile<16x16xf32>> -> !tile.tile<16x16xf32>
    tile.store %v, %y[%c0, %c0] : !tile.tile<16x16xf32>, memref<16x16xf32>
  }
  return
}

// -----

// A loader dealing blocks to two replicated workers in turn and a storer
// collecting them: both movers dissolve (each worker keeps a cursor per
// channel element and searches the mover's nest for its next block), and
// the workers, no longer talking to anyone, are one task per replica: a
// kernel taking the replica index, called from the program in a loop.

// CHECK-LABEL: func.func @deal__worker
// CHECK-SAME: (%[[X:.*]]: memref<64x16xf32>, %[[Y:.*]]: memref<64x16xf32>, %[[W:.*]]: index)
// CHECK-SAME: htp.kernel
// CHECK-NOT: pto.cluster
// CHECK: memref.alloca() : memref<2xindex>
// CHECK: memref.alloca() : memref<2xindex>
// CHECK: scf.for
// CHECK: %[[START:.*]] = memref.load %[[IN:.*]][%[[W]]]
// CHECK: %[[FOUND:.*]] = scf.while (%[[T:.*]] = %[[START]]) : (index) -> index {
// CHECK: arith.remsi
// CHECK: %[[MORE:.*]] = arith.cmpi slt, %[[T]]
// CHECK: %[[OTHER:.*]] = arith.cmpi ne, %{{.*}}, %[[W]]
// CHECK: %[[GO:.*]] = arith.andi %[[MORE]], %[[OTHER]]
// CHECK: scf.condition(%[[GO]]) %[[T]]
// CHECK: } do {
// CHECK: scf.yield
// CHECK: %[[NEXT:.*]] = arith.addi %[[FOUND]], %{{.*}}
// CHECK: memref.store %[[NEXT]], %[[IN]][%[[W]]]
// CHECK: %[[BLOCK:.*]] = tile.load %[[X]]
// CHECK: %[[R:.*]] = tile.exp %[[BLOCK]]
// CHECK: memref.load %{{.*}}[%[[W]]]
// CHECK: scf.while
// CHECK: tile.store %[[R]], %[[Y]]
// CHECK-NOT: csp.
// CHECK-LABEL: func.func @deal(
// CHECK-SAME: csp.tasks
// CHECK-NOT: csp.
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step
// CHECK-NEXT: func.call @deal__worker(%{{.*}}, %{{.*}}, %[[I]])
func.func @deal(%x: memref<64x16xf32>, %y: memref<64x16xf32>) attributes {htp.model = "csp", htp.outputs = array<i64: 1>} {
  %work = csp.channel "work" depth 2 : !csp.channel<!tile.tile<16x16xf32>, 2>
  %done = csp.channel "done" depth 2 : !csp.channel<!tile.tile<16x16xf32>, 2>
  csp.process "scatter" {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c16 = arith.constant 16 : index
    scf.for %b = %c0 to %c4 step %c1 {
      %row = arith.muli %b, %c16 : index
      %at = arith.remsi %b, %c2 : index
      %t = tile.load %x[%row, %c0] : memref<64x16xf32> -> !tile.tile<16x16xf32>
      csp.send %work[%at], %t : !csp.channel<!tile.tile<16x16xf32>, 2>, !tile.tile<16x16xf32>
    }
  }
  csp.process "worker" replicas 2 {
  ^bb0(%w: index):
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    scf.for %b = %w to %c4 step %c2 {
      %t = csp.recv %work[%w] : !csp.channel<!tile.tile<16x16xf32>, 2> -> !tile.tile<16x16xf32>
      %e = tile.exp %t : !tile.tile<16x16xf32>
      csp.send %done[%w], %e : !csp.channel<!tile.tile<16x16xf32>, 2>, !tile.tile<16x16xf32>
    }
  }
  csp.process "gather" {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c16 = arith.constant 16 : index
    scf.for %b = %c0 to %c4 step %c1 {
      %at = arith.remsi %b, %c2 : index
      %t = csp.recv %done[%at] : !csp.channel<!tile.tile<16x16xf32>, 2> -> !tile.tile<16x16xf32>
      %row = arith.muli %b, %c16 : index
      tile.store %t, %y[%row, %c0] : !tile.tile<16x16xf32>, memref<64x16xf32>
    }
  }
  return
}

// -----

// A loader feeding a computing process and nothing replicated: the loader
// dissolves and what is left is one process, a plain kernel of the
// program's cluster (its vector core).

// CHECK-LABEL: func.func @one_left__compute
// CHECK-SAME: pto.cluster = "one_left"
// CHECK-SAME: pto.core = "aiv"
// CHECK: memref.alloca() : memref<1xindex>
// CHECK-NOT: scf.while
// CHECK: tile.load
// CHECK: tile.exp
// CHECK-NOT: csp.
func.func @one_left(%x: memref<64x16xf32>, %y: memref<64x16xf32>) attributes {htp.model = "csp", htp.outputs = array<i64: 1>} {
  %a = csp.channel "a" depth 2 : !csp.channel<!tile.tile<16x16xf32>>
  csp.process "load" {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    scf.for %i = %c0 to %c64 step %c16 {
      %t = tile.load %x[%i, %c0] : memref<64x16xf32> -> !tile.tile<16x16xf32>
      csp.send %a, %t : !csp.channel<!tile.tile<16x16xf32>>, !tile.tile<16x16xf32>
    }
  }
  csp.process "compute" {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    scf.for %i = %c0 to %c64 step %c16 {
      %t = csp.recv %a : !csp.channel<!tile.tile<16x16xf32>> -> !tile.tile<16x16xf32>
      %e = tile.exp %t : !tile.tile<16x16xf32>
      tile.store %e, %y[%i, %c0] : !tile.tile<16x16xf32>, memref<64x16xf32>
    }
  }
  return
}
