// The CSP model's pipeline (lib/htp-model-csp/src/verify_protocol.rs): each
// program's protocol played over its channels' depths. Balanced, deadlock-free
// programs pass unchanged; every problem is an error at the op it stops at.
// RUN: htp-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(csp-verify-protocol)' | FileCheck %s

// A load -> compute -> store pipeline at depth 1: proven, left as it is.
// CHECK-LABEL: func.func @pipeline
// CHECK: csp.process "load"
func.func @pipeline(%t: !tile.tile<16x16xf32>) attributes {htp.model = "csp"} {
  %a = csp.channel "a" depth 1 : !csp.channel<!tile.tile<16x16xf32>>
  %b = csp.channel "b" depth 1 : !csp.channel<!tile.tile<16x16xf32>>
  csp.process "load" {
    %c0_i = arith.constant 0 : index
    %c1_i = arith.constant 1 : index
    %n_i = arith.constant 8 : index
    scf.for %i = %c0_i to %n_i step %c1_i {
      csp.send %a, %t : !csp.channel<!tile.tile<16x16xf32>>, !tile.tile<16x16xf32>
    }
  }
  csp.process "compute" {
    %c0_i = arith.constant 0 : index
    %c1_i = arith.constant 1 : index
    %n_i = arith.constant 8 : index
    scf.for %i = %c0_i to %n_i step %c1_i {
      %u = csp.recv %a : !csp.channel<!tile.tile<16x16xf32>> -> !tile.tile<16x16xf32>
      csp.send %b, %u : !csp.channel<!tile.tile<16x16xf32>>, !tile.tile<16x16xf32>
    }
  }
  csp.process "store" {
    %c0_i = arith.constant 0 : index
    %c1_i = arith.constant 1 : index
    %n_i = arith.constant 8 : index
    scf.for %i = %c0_i to %n_i step %c1_i {
      %u = csp.recv %b : !csp.channel<!tile.tile<16x16xf32>> -> !tile.tile<16x16xf32>
    }
  }
  return
}

// -----

// Two processes each sending twice before receiving: a deadlock at depth 1 ...
func.func @crossed_depth_1(%t: !tile.tile<16x16xf32>) attributes {htp.model = "csp"} {
  %a = csp.channel "a" depth 1 : !csp.channel<!tile.tile<16x16xf32>>
  %b = csp.channel "b" depth 1 : !csp.channel<!tile.tile<16x16xf32>>
  csp.process "p" {
    csp.send %a, %t : !csp.channel<!tile.tile<16x16xf32>>, !tile.tile<16x16xf32>
    // expected-error @+1 {{deadlock: with the channels' depths, these processes wait for each other forever}}
    csp.send %a, %t : !csp.channel<!tile.tile<16x16xf32>>, !tile.tile<16x16xf32>
    %u = csp.recv %b : !csp.channel<!tile.tile<16x16xf32>> -> !tile.tile<16x16xf32>
    %v = csp.recv %b : !csp.channel<!tile.tile<16x16xf32>> -> !tile.tile<16x16xf32>
  }
  csp.process "q" {
    csp.send %b, %t : !csp.channel<!tile.tile<16x16xf32>>, !tile.tile<16x16xf32>
    csp.send %b, %t : !csp.channel<!tile.tile<16x16xf32>>, !tile.tile<16x16xf32>
    %u = csp.recv %a : !csp.channel<!tile.tile<16x16xf32>> -> !tile.tile<16x16xf32>
    %v = csp.recv %a : !csp.channel<!tile.tile<16x16xf32>> -> !tile.tile<16x16xf32>
  }
  return
}

// -----

// ... and none at depth 2 (no false alarm).
// CHECK-LABEL: func.func @crossed_depth_2
func.func @crossed_depth_2(%t: !tile.tile<16x16xf32>) attributes {htp.model = "csp"} {
  %a = csp.channel "a" depth 2 : !csp.channel<!tile.tile<16x16xf32>>
  %b = csp.channel "b" depth 2 : !csp.channel<!tile.tile<16x16xf32>>
  csp.process "p" {
    csp.send %a, %t : !csp.channel<!tile.tile<16x16xf32>>, !tile.tile<16x16xf32>
    csp.send %a, %t : !csp.channel<!tile.tile<16x16xf32>>, !tile.tile<16x16xf32>
    %u = csp.recv %b : !csp.channel<!tile.tile<16x16xf32>> -> !tile.tile<16x16xf32>
    %v = csp.recv %b : !csp.channel<!tile.tile<16x16xf32>> -> !tile.tile<16x16xf32>
  }
  csp.process "q" {
    csp.send %b, %t : !csp.channel<!tile.tile<16x16xf32>>, !tile.tile<16x16xf32>
    csp.send %b, %t : !csp.channel<!tile.tile<16x16xf32>>, !tile.tile<16x16xf32>
    %u = csp.recv %a : !csp.channel<!tile.tile<16x16xf32>> -> !tile.tile<16x16xf32>
    %v = csp.recv %a : !csp.channel<!tile.tile<16x16xf32>> -> !tile.tile<16x16xf32>
  }
  return
}

// -----

// More sends than receives: tiles nobody receives.
func.func @too_many_sends(%t: !tile.tile<16x16xf32>) attributes {htp.model = "csp"} {
  %a = csp.channel "a" depth 8 : !csp.channel<!tile.tile<16x16xf32>>
  csp.process "p" {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c5 = arith.constant 5 : index
    scf.for %i = %c0 to %c5 step %c1 {
      // expected-error @+1 {{unbalanced protocol: channel 'a' is sent 5 tiles here but received 4 times}}
      csp.send %a, %t : !csp.channel<!tile.tile<16x16xf32>>, !tile.tile<16x16xf32>
    }
  }
  csp.process "q" {
    %c0_i = arith.constant 0 : index
    %c1_i = arith.constant 1 : index
    %n_i = arith.constant 4 : index
    scf.for %i = %c0_i to %n_i step %c1_i {
      %u = csp.recv %a : !csp.channel<!tile.tile<16x16xf32>> -> !tile.tile<16x16xf32>
    }
  }
  return
}

// -----

// More receives than sends: the receiver would wait forever.
func.func @too_many_receives(%t: !tile.tile<16x16xf32>) attributes {htp.model = "csp"} {
  %a = csp.channel "a" depth 2 : !csp.channel<!tile.tile<16x16xf32>>
  csp.process "p" {
    %c0_i = arith.constant 0 : index
    %c1_i = arith.constant 1 : index
    %n_i = arith.constant 3 : index
    scf.for %i = %c0_i to %n_i step %c1_i {
      csp.send %a, %t : !csp.channel<!tile.tile<16x16xf32>>, !tile.tile<16x16xf32>
    }
  }
  csp.process "q" {
    // expected-error @+1 {{unbalanced protocol: channel 'a' is received 4 times here but sent only 3 tiles}}
    %first = csp.recv %a : !csp.channel<!tile.tile<16x16xf32>> -> !tile.tile<16x16xf32>
    %c0_i = arith.constant 0 : index
    %c1_i = arith.constant 1 : index
    %n_i = arith.constant 3 : index
    scf.for %i = %c0_i to %n_i step %c1_i {
      %u = csp.recv %a : !csp.channel<!tile.tile<16x16xf32>> -> !tile.tile<16x16xf32>
    }
  }
  return
}

// -----

// Two replicas sending on one element of an array.
func.func @replicas_share_an_element(%t: !tile.tile<16x16xf32>) attributes {htp.model = "csp"} {
  %a = csp.channel "a" depth 1 : !csp.channel<!tile.tile<16x16xf32>, 2>
  csp.process "w" replicas 2 {
  ^bb0(%r: index):
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{replica 1 of process 'w' sends on channel 'a[0]', as replica 0 of process 'w' does}}
    csp.send %a[%c0], %t : !csp.channel<!tile.tile<16x16xf32>, 2>, !tile.tile<16x16xf32>
  }
  csp.process "c" {
    %c0 = arith.constant 0 : index
    %u = csp.recv %a[%c0] : !csp.channel<!tile.tile<16x16xf32>, 2> -> !tile.tile<16x16xf32>
    %v = csp.recv %a[%c0] : !csp.channel<!tile.tile<16x16xf32>, 2> -> !tile.tile<16x16xf32>
  }
  return
}

// -----

// An index past the array (the replica plus one).
func.func @index_past_the_array(%t: !tile.tile<16x16xf32>) attributes {htp.model = "csp"} {
  %a = csp.channel "a" depth 1 : !csp.channel<!tile.tile<16x16xf32>, 2>
  csp.process "w" replicas 2 {
  ^bb0(%r: index):
    %c1 = arith.constant 1 : index
    %next = arith.addi %r, %c1 : index
    // expected-error @+1 {{at=2 is outside the 2 channels of 'a'}}
    csp.send %a[%next], %t : !csp.channel<!tile.tile<16x16xf32>, 2>, !tile.tile<16x16xf32>
  }
  return
}

// -----

// Which channel operations run depends on tensor data.
func.func @data_dependent(%x: memref<16x16xf32>, %t: !tile.tile<16x16xf32>) attributes {htp.model = "csp"} {
  %a = csp.channel "a" depth 1 : !csp.channel<!tile.tile<16x16xf32>>
  csp.process "p" {
    %c0 = arith.constant 0 : index
    %v = memref.load %x[%c0, %c0] : memref<16x16xf32>
    %zero = arith.constant 0.0 : f32
    %positive = arith.cmpf ogt, %v, %zero : f32
    // expected-error @+1 {{which channel operations run (the branches of this if differ) depends on values known only as the program runs}}
    scf.if %positive {
      csp.send %a, %t : !csp.channel<!tile.tile<16x16xf32>>, !tile.tile<16x16xf32>
    }
  }
  csp.process "q" {
    %u = csp.recv %a : !csp.channel<!tile.tile<16x16xf32>> -> !tile.tile<16x16xf32>
  }
  return
}

// -----

// A data-dependent if whose branches talk the same way is fine.
// CHECK-LABEL: func.func @same_on_both_branches
func.func @same_on_both_branches(%x: memref<16x16xf32>, %t: !tile.tile<16x16xf32>, %s: !tile.tile<16x16xf32>) attributes {htp.model = "csp"} {
  %a = csp.channel "a" depth 1 : !csp.channel<!tile.tile<16x16xf32>>
  csp.process "p" {
    %c0 = arith.constant 0 : index
    %v = memref.load %x[%c0, %c0] : memref<16x16xf32>
    %zero = arith.constant 0.0 : f32
    %positive = arith.cmpf ogt, %v, %zero : f32
    scf.if %positive {
      csp.send %a, %t : !csp.channel<!tile.tile<16x16xf32>>, !tile.tile<16x16xf32>
    } else {
      csp.send %a, %s : !csp.channel<!tile.tile<16x16xf32>>, !tile.tile<16x16xf32>
    }
  }
  csp.process "q" {
    %u = csp.recv %a : !csp.channel<!tile.tile<16x16xf32>> -> !tile.tile<16x16xf32>
  }
  return
}

// -----

// A while loop around channel operations: nothing counts its trips.
func.func @while_loop(%t: !tile.tile<16x16xf32>, %go: i1) attributes {htp.model = "csp"} {
  %a = csp.channel "a" depth 1 : !csp.channel<!tile.tile<16x16xf32>>
  csp.process "p" {
    // expected-error @+1 {{'scf.while' repeats channel operations a number of times nothing can count before it runs}}
    scf.while : () -> () {
      scf.condition(%go)
    } do {
      csp.send %a, %t : !csp.channel<!tile.tile<16x16xf32>>, !tile.tile<16x16xf32>
      scf.yield
    }
  }
  return
}

// -----

// Computing outside the processes.
func.func @compute_at_top(%x: memref<16x16xf32>) attributes {htp.model = "csp"} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{a CSP program makes channels and processes; 'tile.load' belongs inside a process}}
  %t = tile.load %x[%c0, %c0] : memref<16x16xf32> -> !tile.tile<16x16xf32>
  return
}

// -----

// Trip counts known only at the call: checked there, not here.
// CHECK-LABEL: func.func @shapes_at_the_call
func.func @shapes_at_the_call(%x: memref<?x16xf32>, %t: !tile.tile<16x16xf32>) attributes {htp.model = "csp"} {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?x16xf32>
  %a = csp.channel "a" depth 1 : !csp.channel<!tile.tile<16x16xf32>>
  csp.process "p" {
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %n step %c1 {
      csp.send %a, %t : !csp.channel<!tile.tile<16x16xf32>>, !tile.tile<16x16xf32>
    }
  }
  csp.process "q" {
    %c2 = arith.constant 2 : index
    scf.for %i = %c0 to %n step %c2 {
      %u = csp.recv %a : !csp.channel<!tile.tile<16x16xf32>> -> !tile.tile<16x16xf32>
    }
  }
  return
}

// -----

// Processes in a row over the elements of one array: each element has its
// own sender and receiver, so the program is fine.
// CHECK-LABEL: func.func @chain_over_an_array
func.func @chain_over_an_array(%t: !tile.tile<16x16xf32>) attributes {htp.model = "csp"} {
  %c = csp.channel "c" depth 1 : !csp.channel<!tile.tile<16x16xf32>, 3>
  csp.process "head" {
    %c0 = arith.constant 0 : index
    csp.send %c[%c0], %t : !csp.channel<!tile.tile<16x16xf32>, 3>, !tile.tile<16x16xf32>
  }
  csp.process "stage" replicas 2 {
  ^bb0(%k: index):
    %c1 = arith.constant 1 : index
    %next = arith.addi %k, %c1 : index
    %u = csp.recv %c[%k] : !csp.channel<!tile.tile<16x16xf32>, 3> -> !tile.tile<16x16xf32>
    csp.send %c[%next], %u : !csp.channel<!tile.tile<16x16xf32>, 3>, !tile.tile<16x16xf32>
  }
  csp.process "tail" {
    %c2 = arith.constant 2 : index
    %u = csp.recv %c[%c2] : !csp.channel<!tile.tile<16x16xf32>, 3> -> !tile.tile<16x16xf32>
  }
  return
}

// -----

// A consume holds its slot while its body runs: sending twice on a channel
// of depth 1 inside it blocks, and the producer cannot refill the held slot.
func.func @consume_holds_its_slot(%t: !tile.tile<16x16xf32>) attributes {htp.model = "csp"} {
  %a = csp.channel "a" depth 1 : !csp.channel<!tile.tile<16x16xf32>>
  %b = csp.channel "b" depth 1 : !csp.channel<!tile.tile<16x16xf32>>
  csp.process "producer" {
    csp.send %a, %t : !csp.channel<!tile.tile<16x16xf32>>, !tile.tile<16x16xf32>
    // expected-error @+1 {{deadlock: with the channels' depths, these processes wait for each other forever}}
    csp.send %a, %t : !csp.channel<!tile.tile<16x16xf32>>, !tile.tile<16x16xf32>
    %u = csp.recv %b : !csp.channel<!tile.tile<16x16xf32>> -> !tile.tile<16x16xf32>
    %v = csp.recv %b : !csp.channel<!tile.tile<16x16xf32>> -> !tile.tile<16x16xf32>
    %w = csp.recv %b : !csp.channel<!tile.tile<16x16xf32>> -> !tile.tile<16x16xf32>
    %z = csp.recv %b : !csp.channel<!tile.tile<16x16xf32>> -> !tile.tile<16x16xf32>
  }
  csp.process "consumer" {
    csp.consume %a () : !csp.channel<!tile.tile<16x16xf32>> {
    ^bb0(%e: !tile.tile<16x16xf32>):
      csp.send %b, %e : !csp.channel<!tile.tile<16x16xf32>>, !tile.tile<16x16xf32>
      csp.send %b, %e : !csp.channel<!tile.tile<16x16xf32>>, !tile.tile<16x16xf32>
    }
    csp.consume %a () : !csp.channel<!tile.tile<16x16xf32>> {
    ^bb0(%e: !tile.tile<16x16xf32>):
      csp.send %b, %e : !csp.channel<!tile.tile<16x16xf32>>, !tile.tile<16x16xf32>
      csp.send %b, %e : !csp.channel<!tile.tile<16x16xf32>>, !tile.tile<16x16xf32>
    }
  }
  return
}

// -----

// A pad value must be of the tile's element type (checked here: the
// dialect's C++ verifier cannot see into the tile dialect's types).
func.func @pad_of_another_type() attributes {htp.model = "csp"} {
  // expected-error @+1 {{channel pads with a f16 value, but carries f32 tiles}}
  %a = csp.channel "a" depth 1 {pad = 0.0 : f16} : !csp.channel<!tile.tile<16x16xf32>>
  return
}
