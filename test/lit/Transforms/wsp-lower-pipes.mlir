// wsp-lower-pipes (lib/htp-model-wsp/src/pipe/lower.rs): a pipe's
// processes, which iterate together, fuse into one wsp.parallel over the
// trip count (producers first); each produce/consume becomes the view of
// its slot, (k * m + j) mod depth of the ring, its body inlined. What
// would make that order wrong is an error at the op.
// RUN: htp-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(wsp-lower-pipes)' | FileCheck %s

func.func @copy(%x: memref<16x64xf32>, %y: memref<16x64xf32>) attributes {htp.kernel, htp.outputs = array<i64: 1>} {
  return
}

// The consumer is declared first; the producer's task is issued first.
// CHECK-LABEL: func.func @two_stages
// CHECK: %[[RING:.*]] = wsp.channel "a" : memref<3x16x64xf32>
// CHECK: %[[TRIPS:.*]] = arith.maxsi
// CHECK: %[[AXIS:.*]] = wsp.dense %[[TRIPS]]
// CHECK: wsp.parallel(%[[AXIS]]) : !wsp.dense_axis {
// CHECK-NEXT: ^bb0(%[[K:.*]]: index):
// CHECK: %[[ITEM:.*]] = arith.muli %[[K]], %{{.*}} : index
// CHECK: %[[SLOT:.*]] = arith.remsi %{{.*}}, %{{.*}} : index
// CHECK: %[[FILL:.*]] = wsp.view %[[RING]][%[[SLOT]], %{{.*}}, %{{.*}}] sizes[%{{.*}}, %{{.*}}] : memref<3x16x64xf32> -> memref<16x64xf32>
// CHECK: wsp.task @copy[] (%{{.*}}, %[[FILL]])
// CHECK: %[[READ:.*]] = wsp.view %[[RING]]
// CHECK: wsp.task @copy[] (%[[READ]], %{{.*}})
// CHECK-NOT: wsp.pipe
// CHECK-NOT: wsp.process
// CHECK-NOT: wsp.produce
// CHECK-NOT: wsp.consume
func.func @two_stages(%x: memref<64x64xf32>, %y: memref<64x64xf32>) attributes {htp.model = "wsp"} {
  %ring = wsp.channel "a" : memref<3x16x64xf32>
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c16 = arith.constant 16 : index
  wsp.pipe {
    wsp.process "store" {
      scf.for %i = %c0 to %c64 step %c16 {
        wsp.consume %ring : memref<3x16x64xf32> {
        ^bb0(%t: memref<16x64xf32>):
          %v = wsp.view %y[%i, %c0] sizes[%c16, %c64] : memref<64x64xf32> -> memref<16x64xf32>
          wsp.task @copy[](%t, %v) : (memref<16x64xf32>, memref<16x64xf32>) -> ()
        }
      }
    }
    wsp.process "load" {
      scf.for %i = %c0 to %c64 step %c16 {
        wsp.produce %ring : memref<3x16x64xf32> {
        ^bb0(%s: memref<16x64xf32>):
          %v = wsp.view %x[%i, %c0] sizes[%c16, %c64] : memref<64x64xf32> -> memref<16x64xf32>
          wsp.task @copy[](%v, %s) : (memref<16x64xf32>, memref<16x64xf32>) -> ()
        }
      }
    }
  }
  return
}

// -----

func.func @copy(%x: memref<16x64xf32>, %y: memref<16x64xf32>) attributes {htp.kernel, htp.outputs = array<i64: 1>} {
  return
}

// Without loops: slots 0, 1 in order, no wsp.parallel.
// CHECK-LABEL: func.func @straight
// CHECK-NOT: wsp.parallel
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: wsp.view %{{.*}}[%[[C0]],
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK: wsp.view %{{.*}}[%[[C1]],
func.func @straight(%x: memref<16x64xf32>, %y: memref<16x64xf32>) attributes {htp.model = "wsp"} {
  %ring = wsp.channel "a" : memref<2x16x64xf32>
  wsp.pipe {
    wsp.process "load" {
      wsp.produce %ring : memref<2x16x64xf32> {
      ^bb0(%s: memref<16x64xf32>):
        wsp.task @copy[](%x, %s) : (memref<16x64xf32>, memref<16x64xf32>) -> ()
      }
      wsp.produce %ring : memref<2x16x64xf32> {
      ^bb0(%s: memref<16x64xf32>):
        wsp.task @copy[](%x, %s) : (memref<16x64xf32>, memref<16x64xf32>) -> ()
      }
    }
    wsp.process "store" {
      wsp.consume %ring : memref<2x16x64xf32> {
      ^bb0(%t: memref<16x64xf32>):
        wsp.task @copy[](%t, %y) : (memref<16x64xf32>, memref<16x64xf32>) -> ()
      }
      wsp.consume %ring : memref<2x16x64xf32> {
      ^bb0(%t: memref<16x64xf32>):
        wsp.task @copy[](%t, %y) : (memref<16x64xf32>, memref<16x64xf32>) -> ()
      }
    }
  }
  return
}

// -----

func.func @copy(%x: memref<16x64xf32>, %y: memref<16x64xf32>) attributes {htp.kernel, htp.outputs = array<i64: 1>} {
  return
}

func.func @unbalanced(%x: memref<16x64xf32>, %y: memref<16x64xf32>) attributes {htp.model = "wsp"} {
  %ring = wsp.channel "a" : memref<2x16x64xf32>
  wsp.pipe {
    wsp.process "load" {
      // expected-error @+1 {{the channel 'a' is unbalanced: the process 'load' fills it 2 times per iteration and the process 'store' reads it 1 times}}
      wsp.produce %ring : memref<2x16x64xf32> {
      ^bb0(%s: memref<16x64xf32>):
        wsp.task @copy[](%x, %s) : (memref<16x64xf32>, memref<16x64xf32>) -> ()
      }
      wsp.produce %ring : memref<2x16x64xf32> {
      ^bb0(%s: memref<16x64xf32>):
        wsp.task @copy[](%x, %s) : (memref<16x64xf32>, memref<16x64xf32>) -> ()
      }
    }
    wsp.process "store" {
      wsp.consume %ring : memref<2x16x64xf32> {
      ^bb0(%t: memref<16x64xf32>):
        wsp.task @copy[](%t, %y) : (memref<16x64xf32>, memref<16x64xf32>) -> ()
      }
    }
  }
  return
}

// -----

func.func @copy(%x: memref<16x64xf32>, %y: memref<16x64xf32>) attributes {htp.kernel, htp.outputs = array<i64: 1>} {
  return
}

func.func @too_shallow(%x: memref<16x64xf32>, %y: memref<16x64xf32>) attributes {htp.model = "wsp"} {
  // expected-error @+1 {{the channel 'a' has depth 1, but an iteration of the pipe fills 2 of its slots before its reader runs: give it depth=2 or more}}
  %ring = wsp.channel "a" : memref<1x16x64xf32>
  wsp.pipe {
    wsp.process "load" {
      wsp.produce %ring : memref<1x16x64xf32> {
      ^bb0(%s: memref<16x64xf32>):
        wsp.task @copy[](%x, %s) : (memref<16x64xf32>, memref<16x64xf32>) -> ()
      }
      wsp.produce %ring : memref<1x16x64xf32> {
      ^bb0(%s: memref<16x64xf32>):
        wsp.task @copy[](%x, %s) : (memref<16x64xf32>, memref<16x64xf32>) -> ()
      }
    }
    wsp.process "store" {
      wsp.consume %ring : memref<1x16x64xf32> {
      ^bb0(%t: memref<16x64xf32>):
        wsp.task @copy[](%t, %y) : (memref<16x64xf32>, memref<16x64xf32>) -> ()
      }
      wsp.consume %ring : memref<1x16x64xf32> {
      ^bb0(%t: memref<16x64xf32>):
        wsp.task @copy[](%t, %y) : (memref<16x64xf32>, memref<16x64xf32>) -> ()
      }
    }
  }
  return
}

// -----

func.func @copy(%x: memref<16x64xf32>, %y: memref<16x64xf32>) attributes {htp.kernel, htp.outputs = array<i64: 1>} {
  return
}

func.func @cycle(%x: memref<16x64xf32>, %y: memref<16x64xf32>) attributes {htp.model = "wsp"} {
  %a = wsp.channel "a" : memref<2x16x64xf32>
  %b = wsp.channel "b" : memref<2x16x64xf32>
  // expected-error @+1 {{the processes 'ping', 'pong' feed each other in a cycle}}
  wsp.pipe {
    wsp.process "ping" {
      wsp.consume %b : memref<2x16x64xf32> {
      ^bb0(%t: memref<16x64xf32>):
        wsp.produce %a : memref<2x16x64xf32> {
        ^bb0(%s: memref<16x64xf32>):
          wsp.task @copy[](%t, %s) : (memref<16x64xf32>, memref<16x64xf32>) -> ()
        }
      }
    }
    wsp.process "pong" {
      wsp.consume %a : memref<2x16x64xf32> {
      ^bb0(%t: memref<16x64xf32>):
        wsp.produce %b : memref<2x16x64xf32> {
        ^bb0(%s: memref<16x64xf32>):
          wsp.task @copy[](%t, %s) : (memref<16x64xf32>, memref<16x64xf32>) -> ()
        }
      }
    }
  }
  return
}

// -----

func.func @copy(%x: memref<16x64xf32>, %y: memref<16x64xf32>) attributes {htp.kernel, htp.outputs = array<i64: 1>} {
  return
}

func.func @different_loops(%x: memref<16x64xf32>, %y: memref<16x64xf32>) attributes {htp.model = "wsp"} {
  %ring = wsp.channel "a" : memref<2x16x64xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  wsp.pipe {
    wsp.process "load" {
      scf.for %i = %c0 to %c4 step %c1 {
        wsp.produce %ring : memref<2x16x64xf32> {
        ^bb0(%s: memref<16x64xf32>):
          wsp.task @copy[](%x, %s) : (memref<16x64xf32>, memref<16x64xf32>) -> ()
        }
      }
    }
    wsp.process "store" {
      // expected-error @+1 {{the processes of a pipe iterate together: the end of this loop (process 'store') is not the end of the loop of the process 'load'}}
      scf.for %i = %c0 to %c5 step %c1 {
        wsp.consume %ring : memref<2x16x64xf32> {
        ^bb0(%t: memref<16x64xf32>):
          wsp.task @copy[](%t, %y) : (memref<16x64xf32>, memref<16x64xf32>) -> ()
        }
      }
    }
  }
  return
}

// -----

func.func @copy(%x: memref<16x64xf32>, %y: memref<16x64xf32>) attributes {htp.kernel, htp.outputs = array<i64: 1>} {
  return
}

func.func @under_an_if(%x: memref<16x64xf32>, %y: memref<16x64xf32>, %c: i1) attributes {htp.model = "wsp"} {
  %ring = wsp.channel "a" : memref<2x16x64xf32>
  wsp.pipe {
    wsp.process "load" {
      scf.if %c {
        // expected-error @+1 {{a pipe's channel operations run once per iteration of its processes: not under an if or an inner loop}}
        wsp.produce %ring : memref<2x16x64xf32> {
        ^bb0(%s: memref<16x64xf32>):
          wsp.task @copy[](%x, %s) : (memref<16x64xf32>, memref<16x64xf32>) -> ()
        }
      }
    }
    wsp.process "store" {
      wsp.consume %ring : memref<2x16x64xf32> {
      ^bb0(%t: memref<16x64xf32>):
        wsp.task @copy[](%t, %y) : (memref<16x64xf32>, memref<16x64xf32>) -> ()
      }
    }
  }
  return
}

// -----

func.func @copy(%x: memref<16x64xf32>, %y: memref<16x64xf32>) attributes {htp.kernel, htp.outputs = array<i64: 1>} {
  return
}

func.func @task_between_processes(%x: memref<16x64xf32>, %y: memref<16x64xf32>) attributes {htp.model = "wsp"} {
  wsp.pipe {
    // expected-error @+1 {{is in a wsp.pipe outside its processes}}
    wsp.task @copy[](%x, %y) : (memref<16x64xf32>, memref<16x64xf32>) -> ()
    wsp.process "p" {
      wsp.task @copy[](%x, %y) : (memref<16x64xf32>, memref<16x64xf32>) -> ()
    }
  }
  return
}

// -----

func.func @copy(%x: memref<16x64xf32>, %y: memref<16x64xf32>) attributes {htp.kernel, htp.outputs = array<i64: 1>} {
  return
}

func.func @run_time_step(%x: memref<16x64xf32>, %y: memref<16x64xf32>, %step: index) attributes {htp.model = "wsp"} {
  %ring = wsp.channel "a" : memref<2x16x64xf32>
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  wsp.pipe {
    wsp.process "load" {
      // expected-error @+1 {{a pipe's loop steps by a positive constant}}
      scf.for %i = %c0 to %c4 step %step {
        wsp.produce %ring : memref<2x16x64xf32> {
        ^bb0(%s: memref<16x64xf32>):
          wsp.task @copy[](%x, %s) : (memref<16x64xf32>, memref<16x64xf32>) -> ()
        }
      }
    }
    wsp.process "store" {
      scf.for %i = %c0 to %c4 step %step {
        wsp.consume %ring : memref<2x16x64xf32> {
        ^bb0(%t: memref<16x64xf32>):
          wsp.task @copy[](%t, %y) : (memref<16x64xf32>, memref<16x64xf32>) -> ()
        }
      }
    }
  }
  return
}

// -----

func.func @copy(%x: memref<16x64xf32>, %y: memref<16x64xf32>) attributes {htp.kernel, htp.outputs = array<i64: 1>} {
  return
}

func.func @slot_read_not_written(%x: memref<16x64xf32>, %y: memref<16x64xf32>) attributes {htp.model = "wsp"} {
  %ring = wsp.channel "a" : memref<2x16x64xf32>
  wsp.pipe {
    wsp.process "load" {
      // expected-error @+1 {{no task here writes the slot: pass it for an htp.Out (or htp.InOut) parameter of a kernel}}
      wsp.produce %ring : memref<2x16x64xf32> {
      ^bb0(%s: memref<16x64xf32>):
        wsp.task @copy[](%s, %y) : (memref<16x64xf32>, memref<16x64xf32>) -> ()
      }
    }
    wsp.process "store" {
      wsp.consume %ring : memref<2x16x64xf32> {
      ^bb0(%t: memref<16x64xf32>):
        wsp.task @copy[](%t, %y) : (memref<16x64xf32>, memref<16x64xf32>) -> ()
      }
    }
  }
  return
}

// -----

func.func @copy(%x: memref<16x64xf32>, %y: memref<16x64xf32>) attributes {htp.kernel, htp.outputs = array<i64: 1>} {
  return
}

// One process alone is checked too.
func.func @carried(%x: memref<16x64xf32>, %y: memref<16x64xf32>) attributes {htp.model = "wsp"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  wsp.pipe {
    wsp.process "alone" {
      // expected-error @+1 {{the loop of the process 'alone' carries variables: a pipe's processes communicate through channels}}
      %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%n = %c0) -> (index) {
        wsp.task @copy[](%x, %y) : (memref<16x64xf32>, memref<16x64xf32>) -> ()
        %m = arith.addi %n, %c1 : index
        scf.yield %m : index
      }
    }
  }
  return
}
