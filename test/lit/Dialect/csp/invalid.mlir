// One case per verifier rule of the csp dialect.
// RUN: htp-opt %s --split-input-file --verify-diagnostics

// expected-error @+1 {{an array of channels has at least one channel, got 0}}
func.func @no_channels(%c: !csp.channel<!tile.tile<16x16xf32>, 0>) { return }

// -----

// expected-error @+1 {{a channel carries values, not channels}}
func.func @channel_of_channels(%c: !csp.channel<!csp.channel<!tile.tile<16x16xf32>>>) { return }

// -----

func.func @depth_zero() {
  // expected-error @+1 {{depth must be at least 1 (a channel holds at least one element), got 0}}
  %a = csp.channel "a" depth 0 : !csp.channel<!tile.tile<16x16xf32>>
  return
}

// -----

func.func @channel_in_process() {
  csp.process "p" {
    // expected-error @+1 {{must be made at the top of the program, not inside a process or a loop}}
    %a = csp.channel "a" depth 1 : !csp.channel<!tile.tile<16x16xf32>>
  }
  return
}

// -----

func.func @two_senders(%t: !tile.tile<16x16xf32>) {
  %a = csp.channel "a" depth 1 : !csp.channel<!tile.tile<16x16xf32>>
  csp.process "p" {
    csp.send %a, %t : !csp.channel<!tile.tile<16x16xf32>>, !tile.tile<16x16xf32>
  }
  csp.process "q" {
    // expected-error @+1 {{process 'q' sends on channel 'a', which process 'p' already sends on: a channel has one sending and one receiving process}}
    csp.send %a, %t : !csp.channel<!tile.tile<16x16xf32>>, !tile.tile<16x16xf32>
  }
  return
}

// -----

func.func @two_receivers() {
  %a = csp.channel "a" depth 1 : !csp.channel<!tile.tile<16x16xf32>>
  csp.process "p" {
    %t = csp.recv %a : !csp.channel<!tile.tile<16x16xf32>> -> !tile.tile<16x16xf32>
  }
  csp.process "q" {
    // expected-error @+1 {{process 'q' receives from channel 'a', which process 'p' already receives from}}
    %t = csp.recv %a : !csp.channel<!tile.tile<16x16xf32>> -> !tile.tile<16x16xf32>
  }
  return
}

// -----

func.func @replicas_share_a_channel(%t: !tile.tile<16x16xf32>) {
  %a = csp.channel "a" depth 1 : !csp.channel<!tile.tile<16x16xf32>>
  csp.process "w" replicas 2 {
  ^bb0(%r: index):
    // expected-error @+1 {{the 2 replicas of process 'w' all send on channel 'a': give each replica its own channel (an array of 2, indexed by the replica)}}
    csp.send %a, %t : !csp.channel<!tile.tile<16x16xf32>>, !tile.tile<16x16xf32>
  }
  return
}

// -----

func.func @no_replicas() {
  // expected-error @+1 {{replicas must be at least 1, got 0}}
  csp.process "p" replicas 0 {
  ^bb0(%r: index):
  }
  return
}

// -----

func.func @nested_process(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    // expected-error @+1 {{must be at the top of the program (processes are not nested in loops or other processes)}}
    csp.process "p" {
    }
  }
  return
}

// -----

func.func @replicas_without_index() {
  // expected-error @+1 {{body takes the replica index as its one argument}}
  csp.process "p" replicas 2 {
  }
  return
}

// -----

func.func @replica_index_not_index() {
  // expected-error @+1 {{replica index must be an index, got 'i32'}}
  csp.process "p" {
  ^bb0(%r: i32):
  }
  return
}

// -----

func.func @process_yields(%t: !tile.tile<16x16xf32>) {
  // expected-error @+1 {{body yields nothing (a process talks through channels)}}
  csp.process "p" {
    csp.yield %t : !tile.tile<16x16xf32>
  }
  return
}

// -----

func.func @send_wrong_type(%t: !tile.tile<16x8xf32>) {
  %a = csp.channel "a" depth 1 : !csp.channel<!tile.tile<16x16xf32>>
  csp.process "p" {
    // expected-error @+1 {{sends a '!tile.tile<16x8xf32>' on 'a', a channel of '!tile.tile<16x16xf32>'}}
    csp.send %a, %t : !csp.channel<!tile.tile<16x16xf32>>, !tile.tile<16x8xf32>
  }
  return
}

// -----

func.func @send_outside_process(%t: !tile.tile<16x16xf32>) {
  %a = csp.channel "a" depth 1 : !csp.channel<!tile.tile<16x16xf32>>
  // expected-error @+1 {{must be inside a csp.process (only processes talk on channels)}}
  csp.send %a, %t : !csp.channel<!tile.tile<16x16xf32>>, !tile.tile<16x16xf32>
  return
}

// -----

func.func @array_without_index(%t: !tile.tile<16x16xf32>) {
  %a = csp.channel "a" depth 1 : !csp.channel<!tile.tile<16x16xf32>, 2>
  csp.process "p" {
    // expected-error @+1 {{uses 'a', an array of 2 channels, without an index (at=)}}
    csp.send %a, %t : !csp.channel<!tile.tile<16x16xf32>, 2>, !tile.tile<16x16xf32>
  }
  return
}

// -----

func.func @recv_wrong_type() {
  %a = csp.channel "a" depth 1 : !csp.channel<!tile.tile<16x16xf32>>
  csp.process "p" {
    // expected-error @+1 {{receives a '!tile.tile<16x16xf16>' from 'a', a channel of '!tile.tile<16x16xf32>'}}
    %t = csp.recv %a : !csp.channel<!tile.tile<16x16xf32>> -> !tile.tile<16x16xf16>
  }
  return
}

// -----

func.func @consume_arguments() {
  %a = csp.channel "a" depth 1 : !csp.channel<!tile.tile<16x16xf32>>
  csp.process "p" {
    // expected-error @+1 {{body takes the element and 0 carried values, got 2 arguments}}
    csp.consume %a () : !csp.channel<!tile.tile<16x16xf32>> {
    ^bb0(%t: !tile.tile<16x16xf32>, %u: !tile.tile<16x16xf32>):
    }
  }
  return
}

// -----

func.func @consume_element() {
  %a = csp.channel "a" depth 1 : !csp.channel<!tile.tile<16x16xf32>>
  csp.process "p" {
    // expected-error @+1 {{body's element is a '!tile.tile<16x16xf16>', the channel carries '!tile.tile<16x16xf32>'}}
    csp.consume %a () : !csp.channel<!tile.tile<16x16xf32>> {
    ^bb0(%t: !tile.tile<16x16xf16>):
    }
  }
  return
}

// -----

func.func @consume_results(%init: !tile.tile<16x16xf32>) {
  %a = csp.channel "a" depth 1 : !csp.channel<!tile.tile<16x16xf32>>
  csp.process "p" {
    // expected-error @+1 {{body yields 0 values for 1 carried values}}
    %r = csp.consume %a (%init) : !csp.channel<!tile.tile<16x16xf32>>, !tile.tile<16x16xf32> -> !tile.tile<16x16xf32> {
    ^bb0(%t: !tile.tile<16x16xf32>, %acc: !tile.tile<16x16xf32>):
      csp.yield
    }
  }
  return
}

// -----

func.func @consume_carried_type(%init: !tile.tile<16x16xf32>, %other: !tile.tile<16x16xf16>) {
  %a = csp.channel "a" depth 1 : !csp.channel<!tile.tile<16x16xf32>>
  csp.process "p" {
    // expected-error @+1 {{carried value #0 is a '!tile.tile<16x16xf32>' on entry; its argument, yield and result must be too}}
    %r = csp.consume %a (%init) : !csp.channel<!tile.tile<16x16xf32>>, !tile.tile<16x16xf32> -> !tile.tile<16x16xf32> {
    ^bb0(%t: !tile.tile<16x16xf32>, %acc: !tile.tile<16x16xf32>):
      csp.yield %other : !tile.tile<16x16xf16>
    }
  }
  return
}

// -----

func.func @consume_result_count(%init: !tile.tile<16x16xf32>) {
  %a = csp.channel "a" depth 1 : !csp.channel<!tile.tile<16x16xf32>>
  csp.process "p" {
    // expected-error @+1 {{has 2 results for 1 carried values}}
    %r:2 = csp.consume %a (%init) : !csp.channel<!tile.tile<16x16xf32>>, !tile.tile<16x16xf32> -> !tile.tile<16x16xf32>, !tile.tile<16x16xf32> {
    ^bb0(%t: !tile.tile<16x16xf32>, %acc: !tile.tile<16x16xf32>):
      csp.yield %acc : !tile.tile<16x16xf32>
    }
  }
  return
}
