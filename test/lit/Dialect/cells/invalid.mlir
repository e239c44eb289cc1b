// RUN: htp-opt %s --split-input-file --verify-diagnostics

func.func @put_other_type(%x: f32, %n: i32) {
  %c = cells.new %x : f32
  // expected-error @+1 {{'cells.put' op failed to verify that the value has the cell's element type}}
  "cells.put"(%c, %n) : (!cells.cell<f32>, i32) -> ()
  return
}

// -----

func.func @get_other_type(%x: f32) {
  %c = cells.new %x : f32
  // expected-error @+1 {{'cells.get' op failed to verify that the result has the cell's element type}}
  %v = "cells.get"(%c) : (!cells.cell<f32>) -> i32
  return
}

// -----

func.func @new_of_a_memref(%m: memref<4xf32>) {
  // expected-error @+1 {{'cells.new' op operand #0 must be}}
  %c = "cells.new"(%m) : (memref<4xf32>) -> !cells.cell<memref<4xf32>>
  return
}
