// One case per verifier rule of the wsp dialect.
// RUN: htp-opt %s --split-input-file --verify-diagnostics

func.func @k(%x: memref<16x64xf32>, %s: f32) attributes {htp.kernel} { return }

func.func @wrong_argument_count(%x: memref<16x64xf32>) {
  // expected-error @+1 {{passes 1 arguments to 'k', which takes 2}}
  wsp.task @k[](%x) : (memref<16x64xf32>) -> ()
  return
}

// -----

// A trailing argument the target supplies (htp.implicit) is not the task's; the others are.
func.func @k(%x: memref<16x64xf32>, %s: f32, %comm: i64 {htp.implicit}) attributes {htp.kernel} { return }

func.func @wrong_argument_count_besides_implicit(%x: memref<16x64xf32>) {
  // expected-error @+1 {{passes 1 arguments to 'k', which takes 2 (and 1 the target supplies)}}
  wsp.task @k[](%x) : (memref<16x64xf32>) -> ()
  return
}

// -----

// Only trailing arguments are supplied: an implicit one before others is the task's to pass.
func.func @k(%comm: i64 {htp.implicit}, %x: memref<16x64xf32>) attributes {htp.kernel} { return }

func.func @implicit_not_trailing(%x: memref<16x64xf32>) {
  // expected-error @+1 {{passes 1 arguments to 'k', which takes 2}}
  wsp.task @k[](%x) : (memref<16x64xf32>) -> ()
  return
}

// -----

func.func @k(%x: memref<16x64xf32>, %s: f32) attributes {htp.kernel} { return }

func.func @wrong_element(%x: memref<16x64xf16>, %s: f32) {
  // expected-error @+1 {{argument #0 of 'k' holds 'f32', the view holds 'f16'}}
  wsp.task @k[](%x, %s) : (memref<16x64xf16>, f32) -> ()
  return
}

// -----

func.func @k(%x: memref<16x64xf32>, %s: f32) attributes {htp.kernel} { return }

func.func @wrong_rank(%x: memref<16xf32>, %s: f32) {
  // expected-error @+1 {{argument #0 of 'k' is a rank-2 tensor, the view has rank 1}}
  wsp.task @k[](%x, %s) : (memref<16xf32>, f32) -> ()
  return
}

// -----

func.func @k(%x: memref<16x64xf32>, %s: f32) attributes {htp.kernel} { return }

func.func @wrong_extent(%x: memref<8x64xf32>, %s: f32) {
  // expected-error @+1 {{argument #0 of 'k' has 16 elements in dimension 0, the view 8}}
  wsp.task @k[](%x, %s) : (memref<8x64xf32>, f32) -> ()
  return
}

// -----

func.func @k(%x: memref<16x64xf32>, %s: f32) attributes {htp.kernel} { return }

func.func @wrong_scalar(%x: memref<16x64xf32>, %s: i32) {
  // expected-error @+1 {{argument #1 of 'k' is 'f32', got 'i32'}}
  wsp.task @k[](%x, %s) : (memref<16x64xf32>, i32) -> ()
  return
}

// -----

func.func @no_kernel(%x: memref<16x64xf32>) {
  // expected-error @+1 {{calls 'missing', which is not a function of the module}}
  wsp.task @missing[](%x) : (memref<16x64xf32>) -> ()
  return
}

// -----

func.func @k(%x: memref<16x64xf32>) attributes {htp.kernel} { return }

func.func @access_count(%x: memref<16x64xf32>) {
  // expected-error @+1 {{has 2 access modes for 1 arguments}}
  wsp.task @k[](%x) {access = ["in", "out"]} : (memref<16x64xf32>) -> ()
  return
}

// -----

func.func @k(%x: memref<16x64xf32>) attributes {htp.kernel} { return }

func.func @access_name(%x: memref<16x64xf32>) {
  // expected-error @+1 {{access mode of argument #0 must be in, out, inout or none; got 'write'}}
  wsp.task @k[](%x) {access = ["write"]} : (memref<16x64xf32>) -> ()
  return
}

// -----

func.func @parallel_indices(%n: index) {
  %d = wsp.dense %n
  %r = wsp.dense %n
  // expected-error @+1 {{binds 2 indices (one per dense axis, two per ragged or sparse axis) but its body has 1 arguments}}
  wsp.parallel (%d, %r) : !wsp.dense_axis, !wsp.dense_axis {
  ^bb0(%i: index):
    wsp.yield
  }
  return
}

// -----

func.func @parallel_no_axis() {
  // expected-error @+1 {{needs at least one axis}}
  "wsp.parallel"() ({
    "wsp.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

func.func @ragged_indices(%n: index, %lens: memref<8xi32>) {
  %r = wsp.ragged %n, %lens : memref<8xi32>
  // expected-error @+1 {{binds 2 indices}}
  wsp.sequential (%r) : !wsp.ragged_axis {
  ^bb0(%i: index):
    wsp.yield
  }
  return
}

// -----

func.func @index_type(%n: index) {
  %d = wsp.dense %n
  // expected-error @+1 {{body argument #0 must be an index, got 'i32'}}
  wsp.parallel (%d) : !wsp.dense_axis {
  ^bb0(%i: i32):
    wsp.yield
  }
  return
}

// -----

func.func @select_indices(%n: index, %p: memref<8xi32>) {
  // expected-error @+1 {{binds 1 indices}}
  wsp.select (%n, %p) : memref<8xi32> {
  ^bb0(%i: index, %j: index):
    wsp.yield
  }
  return
}

// -----

func.func @ragged_lengths_are_integers(%n: index, %lens: memref<8xf32>) {
  // expected-error @+1 {{operand #1 must be a 1-D (or 1xN) tensor of integers}}
  %r = wsp.ragged %n, %lens : memref<8xf32>
  return
}

// -----

func.func @when_predicate(%c: memref<8xi32>, %i: index, %b: i32) {
  %e = wsp.element %c[%i] : memref<8xi32> -> i32
  // expected-error @+1 {{predicate must be one of eq, ne, lt, le, gt, ge; got 'above'}}
  wsp.when %e "above" %b : i32, i32 {
    wsp.yield
  }
  return
}

// -----

func.func @when_needs_an_element(%a: i32, %b: i32) {
  // expected-error @+1 {{condition must read a tensor element with wsp.element}}
  wsp.when %a "gt" %b : i32, i32 {
    wsp.yield
  }
  return
}

// -----

func.func @when_types(%c: memref<8xi32>, %i: index, %b: i64) {
  %e = wsp.element %c[%i] : memref<8xi32> -> i32
  // expected-error @+1 {{compares a 'i32' element with a 'i64' bound}}
  wsp.when %e "gt" %b : i32, i64 {
    wsp.yield
  }
  return
}

// -----

func.func @element_indices(%c: memref<8x1xi32>, %i: index) {
  // expected-error @+1 {{takes 2 indices for a rank-2 tensor, got 1}}
  %e = wsp.element %c[%i] : memref<8x1xi32> -> i32
  return
}

// -----

func.func @element_type(%c: memref<8xi32>, %i: index) {
  // expected-error @+1 {{result must be the tensor's element type 'i32', got 'i64'}}
  %e = wsp.element %c[%i] : memref<8xi32> -> i64
  return
}

// -----

func.func @view_offsets(%x: memref<?x64xf32>, %i: index) {
  // expected-error @+1 {{takes one offset per dimension of the rank-2 tensor, got 1}}
  %v = wsp.view %x[%i] sizes [%i, %i] : memref<?x64xf32> -> memref<?x?xf32>
  return
}

// -----

func.func @view_sizes(%x: memref<?x64xf32>, %i: index) {
  // expected-error @+1 {{takes one size per dimension of the rank-2 view, got 1}}
  %v = wsp.view %x[%i, %i] sizes [%i] : memref<?x64xf32> -> memref<?x?xf32>
  return
}

// -----

func.func @view_rank(%x: memref<?x64xf32>, %i: index) {
  // expected-error @+1 {{a view of a rank-2 tensor has rank 1 to 2, got 3}}
  %v = wsp.view %x[%i, %i] sizes [%i, %i, %i] : memref<?x64xf32> -> memref<?x?x?xf32>
  return
}

// -----

func.func @view_element(%x: memref<?x64xf32>, %i: index) {
  // expected-error @+1 {{a view holds the tensor's 'f32', got 'f16'}}
  %v = wsp.view %x[%i, %i] sizes [%i, %i] : memref<?x64xf32> -> memref<?x?xf16>
  return
}

// -----

func.func @view_extent(%x: memref<?x64xf32>, %i: index) {
  // expected-error @+1 {{dimension 1 of the view holds 128 elements, more than the tensor's 64}}
  %v = wsp.view %x[%i, %i] sizes [%i, %i] : memref<?x64xf32> -> memref<?x128xf32>
  return
}

// -----

func.func @yield_outside_a_loop() {
  // expected-error @+1 {{'wsp.yield' op expects parent op to be one of 'wsp.parallel, wsp.sequential, wsp.select, wsp.when, wsp.pipe, wsp.process, wsp.produce, wsp.consume'}}
  wsp.yield
}

// -----

func.func @ring_without_slots() {
  // expected-error @+1 {{is a ring of slots: its type has the depth first, then the slot's shape; got 'memref<2xf32>'}}
  %ring = wsp.channel "a" : memref<2xf32>
  return
}

// -----

func.func @zero_depth() {
  // expected-error @+1 {{needs a depth of at least 1, got 0}}
  %ring = wsp.channel "a" : memref<0x16xf32>
  return
}

// -----

func.func @empty_slot() {
  // expected-error @+1 {{has an empty slot}}
  %ring = wsp.channel "a" : memref<2x0x16xf32>
  return
}

// -----

func.func @channel_in_a_loop(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    // expected-error @+1 {{belongs at the top of the workload (one ring per call), not inside a loop or block}}
    %ring = wsp.channel "a" : memref<2x16xf32>
  }
  return
}

// -----

func.func @k(%x: memref<2x16xf32>) attributes {htp.kernel} { return }

func.func @ring_to_a_task() {
  %ring = wsp.channel "a" : memref<2x16xf32>
  // expected-error @+1 {{uses the channel 'a': only wsp.produce, wsp.send and wsp.consume take a channel}}
  wsp.task @k[](%ring) : (memref<2x16xf32>) -> ()
  return
}

// -----

func.func @two_producers() {
  %ring = wsp.channel "a" : memref<2x16xf32>
  wsp.pipe {
    wsp.process "one" {
      wsp.produce %ring : memref<2x16xf32> {
      ^bb0(%slot: memref<16xf32>):
      }
    }
    wsp.process "two" {
      // expected-error @+1 {{fills the channel 'a' from the process 'two', but the process 'one' already does: a channel has one producing process}}
      wsp.produce %ring : memref<2x16xf32> {
      ^bb0(%slot: memref<16xf32>):
      }
    }
  }
  return
}

// -----

func.func @two_consumers() {
  %ring = wsp.channel "a" : memref<2x16xf32>
  wsp.pipe {
    wsp.process "one" {
      wsp.consume %ring : memref<2x16xf32> {
      ^bb0(%slot: memref<16xf32>):
      }
    }
    wsp.process "two" {
      // expected-error @+1 {{reads the channel 'a' from the process 'two', but the process 'one' already does: a channel has one consuming process}}
      wsp.consume %ring : memref<2x16xf32> {
      ^bb0(%slot: memref<16xf32>):
      }
    }
  }
  return
}

// -----

func.func @both_ends_in_one_process() {
  // expected-error @+1 {{is filled and read by the same process 'loop': a channel connects two processes}}
  %ring = wsp.channel "a" : memref<2x16xf32>
  wsp.pipe {
    wsp.process "loop" {
      wsp.produce %ring : memref<2x16xf32> {
      ^bb0(%slot: memref<16xf32>):
      }
      wsp.consume %ring : memref<2x16xf32> {
      ^bb0(%slot: memref<16xf32>):
      }
    }
  }
  return
}

// -----

func.func @empty_pipe() {
  // expected-error @+1 {{holds no wsp.process}}
  wsp.pipe {
  }
  return
}

// -----

func.func @process_outside_a_pipe() {
  // expected-error @+1 {{expects parent op 'wsp.pipe'}}
  wsp.process "lonely" {
  }
  return
}

// -----

func.func @produce_outside_a_process() {
  %ring = wsp.channel "a" : memref<2x16xf32>
  // expected-error @+1 {{belongs in a wsp.process of a wsp.pipe}}
  wsp.produce %ring : memref<2x16xf32> {
  ^bb0(%slot: memref<16xf32>):
  }
  return
}

// -----

func.func @consume_of_a_tensor(%x: memref<2x16xf32>) {
  wsp.pipe {
    wsp.process "p" {
      // expected-error @+1 {{takes a channel (wsp.channel)}}
      wsp.consume %x : memref<2x16xf32> {
      ^bb0(%slot: memref<16xf32>):
      }
    }
  }
  return
}

// -----

func.func @slot_of_another_shape() {
  %ring = wsp.channel "a" : memref<2x16xf32>
  wsp.pipe {
    wsp.process "p" {
      // expected-error @+1 {{body takes one argument, the slot 'memref<16xf32>'}}
      wsp.produce %ring : memref<2x16xf32> {
      ^bb0(%slot: memref<8xf32>):
      }
    }
  }
  return
}
