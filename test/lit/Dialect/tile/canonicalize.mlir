// RUN: htp-opt %s --canonicalize --split-input-file | FileCheck %s
//
// One case per tile folder (dialects/tile/TileOps.cpp). Folded splats come
// back as tile.constant through TileDialect::materializeConstant, and
// identical constants are uniqued, so constants are matched with CHECK-DAG.

// x + (-0.0) == x for every x, for a tile or a scalar right operand, and
// -0.0 + x == x (add and mul fold an identity on either side).
// CHECK-LABEL: func.func @add_neg_zero(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: !tile.tile<16x64xf32>
// CHECK-NEXT:    return %[[X]], %[[X]], %[[X]] :
func.func @add_neg_zero(%x: !tile.tile<16x64xf32>) -> (!tile.tile<16x64xf32>, !tile.tile<16x64xf32>, !tile.tile<16x64xf32>) {
  %z = tile.constant -0.0 : !tile.tile<16x64xf32>
  %zs = arith.constant -0.0 : f32
  %a = tile.add %x, %z : !tile.tile<16x64xf32>
  %b = tile.add %x, %zs : !tile.tile<16x64xf32>, f32
  %c = tile.add %z, %x : !tile.tile<16x64xf32>
  return %a, %b, %c : !tile.tile<16x64xf32>, !tile.tile<16x64xf32>, !tile.tile<16x64xf32>
}

// -----

// x + (+0.0) is not x when x is -0.0 (the sum is +0.0): not folded.
// CHECK-LABEL: func.func @add_pos_zero_not_folded(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: !tile.tile<16x64xf32>
// CHECK-DAG:     %[[Z:.*]] = tile.constant 0.0 : !tile.tile<16x64xf32>
// CHECK-DAG:     %[[ZS:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[A:.*]] = tile.add %[[X]], %[[Z]] : !tile.tile<16x64xf32>
// CHECK-NEXT:    %[[B:.*]] = tile.add %[[X]], %[[ZS]] : !tile.tile<16x64xf32>, f32
// CHECK-NEXT:    return %[[A]], %[[B]] :
func.func @add_pos_zero_not_folded(%x: !tile.tile<16x64xf32>) -> (!tile.tile<16x64xf32>, !tile.tile<16x64xf32>) {
  %z = tile.constant 0.0 : !tile.tile<16x64xf32>
  %zs = arith.constant 0.0 : f32
  %a = tile.add %x, %z : !tile.tile<16x64xf32>
  %b = tile.add %x, %zs : !tile.tile<16x64xf32>, f32
  return %a, %b : !tile.tile<16x64xf32>, !tile.tile<16x64xf32>
}

// -----

// x - (+0.0) == x exactly; x - (-0.0) is not x when x is -0.0.
// CHECK-LABEL: func.func @sub_zero(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: !tile.tile<16x64xf32>
// CHECK-NEXT:    %[[NZ:.*]] = tile.constant -0.0 : !tile.tile<16x64xf32>
// CHECK-NEXT:    %[[B:.*]] = tile.sub %[[X]], %[[NZ]] : !tile.tile<16x64xf32>
// CHECK-NEXT:    return %[[X]], %[[B]] :
func.func @sub_zero(%x: !tile.tile<16x64xf32>) -> (!tile.tile<16x64xf32>, !tile.tile<16x64xf32>) {
  %z = tile.constant 0.0 : !tile.tile<16x64xf32>
  %nz = tile.constant -0.0 : !tile.tile<16x64xf32>
  %a = tile.sub %x, %z : !tile.tile<16x64xf32>
  %b = tile.sub %x, %nz : !tile.tile<16x64xf32>
  return %a, %b : !tile.tile<16x64xf32>, !tile.tile<16x64xf32>
}

// -----

// x * 1.0 and x / 1.0, with tile and scalar ones, in each float type.
// CHECK-LABEL: func.func @mul_div_one_float(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: !tile.tile<16x64xf32>
// CHECK-SAME:    %[[H:[a-zA-Z0-9_]+]]: !tile.tile<16x64xf16>
// CHECK-SAME:    %[[B:[a-zA-Z0-9_]+]]: !tile.tile<16x64xbf16, valid = ?x?>
// CHECK-NEXT:    return %[[X]], %[[X]], %[[H]], %[[B]] :
func.func @mul_div_one_float(%x: !tile.tile<16x64xf32>, %h: !tile.tile<16x64xf16>, %b: !tile.tile<16x64xbf16, valid = ?x?>) -> (!tile.tile<16x64xf32>, !tile.tile<16x64xf32>, !tile.tile<16x64xf16>, !tile.tile<16x64xbf16, valid = ?x?>) {
  %one = tile.constant 1.0 : !tile.tile<16x64xf32>
  %one_h = arith.constant 1.0 : f16
  %one_b = arith.constant 1.0 : bf16
  %0 = tile.mul %x, %one : !tile.tile<16x64xf32>
  %1 = tile.div %x, %one : !tile.tile<16x64xf32>
  %2 = tile.mul %h, %one_h : !tile.tile<16x64xf16>, f16
  %3 = tile.div %b, %one_b : !tile.tile<16x64xbf16, valid = ?x?>, bf16
  return %0, %1, %2, %3 : !tile.tile<16x64xf32>, !tile.tile<16x64xf32>, !tile.tile<16x64xf16>, !tile.tile<16x64xbf16, valid = ?x?>
}

// -----

// Integer identities: x + 0, 0 + x, x - 0, x * 1, x / 1. Division by zero is
// left to run time.
// CHECK-LABEL: func.func @int_identities(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: !tile.tile<16x64xi32>
// CHECK-DAG:     %[[Z:.*]] = tile.constant 0 : !tile.tile<16x64xi32>
// CHECK:         %[[F:.*]] = tile.div %[[X]], %[[Z]] : !tile.tile<16x64xi32>
// CHECK-NEXT:    return %[[X]], %[[X]], %[[X]], %[[X]], %[[X]], %[[X]], %[[F]] :
func.func @int_identities(%x: !tile.tile<16x64xi32>) -> (!tile.tile<16x64xi32>, !tile.tile<16x64xi32>, !tile.tile<16x64xi32>, !tile.tile<16x64xi32>, !tile.tile<16x64xi32>, !tile.tile<16x64xi32>, !tile.tile<16x64xi32>) {
  %z = tile.constant 0 : !tile.tile<16x64xi32>
  %zs = arith.constant 0 : i32
  %o = arith.constant 1 : i32
  %ot = tile.constant 1 : !tile.tile<16x64xi32>
  %a = tile.add %x, %z : !tile.tile<16x64xi32>
  %b = tile.add %x, %zs : !tile.tile<16x64xi32>, i32
  %c = tile.add %z, %x : !tile.tile<16x64xi32>
  %d = tile.sub %x, %zs : !tile.tile<16x64xi32>, i32
  %e = tile.mul %x, %ot : !tile.tile<16x64xi32>
  %g = tile.div %x, %o : !tile.tile<16x64xi32>, i32
  %f = tile.div %x, %z : !tile.tile<16x64xi32>
  return %a, %b, %c, %d, %e, %g, %f : !tile.tile<16x64xi32>, !tile.tile<16x64xi32>, !tile.tile<16x64xi32>, !tile.tile<16x64xi32>, !tile.tile<16x64xi32>, !tile.tile<16x64xi32>, !tile.tile<16x64xi32>
}

// -----

// Non-identity constants are not folded away: x + 1, x * 2, x - 1.
// CHECK-LABEL: func.func @not_identities(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: !tile.tile<16x64xi16>
// CHECK-DAG:     %[[ONE:.*]] = arith.constant 1 : i16
// CHECK-DAG:     %[[TWO:.*]] = tile.constant 2 : !tile.tile<16x64xi16>
// CHECK:         %[[A:.*]] = tile.add %[[X]], %[[ONE]] : !tile.tile<16x64xi16>, i16
// CHECK-NEXT:    %[[B:.*]] = tile.mul %[[X]], %[[TWO]] : !tile.tile<16x64xi16>
// CHECK-NEXT:    %[[C:.*]] = tile.sub %[[X]], %[[ONE]] : !tile.tile<16x64xi16>, i16
// CHECK-NEXT:    return %[[A]], %[[B]], %[[C]] :
func.func @not_identities(%x: !tile.tile<16x64xi16>) -> (!tile.tile<16x64xi16>, !tile.tile<16x64xi16>, !tile.tile<16x64xi16>) {
  %one = arith.constant 1 : i16
  %two = tile.constant 2 : !tile.tile<16x64xi16>
  %a = tile.add %x, %one : !tile.tile<16x64xi16>, i16
  %b = tile.mul %x, %two : !tile.tile<16x64xi16>
  %c = tile.sub %x, %one : !tile.tile<16x64xi16>, i16
  return %a, %b, %c : !tile.tile<16x64xi16>, !tile.tile<16x64xi16>, !tile.tile<16x64xi16>
}

// -----

// max(x, x) == min(x, x) == x, for floats and integers.
// CHECK-LABEL: func.func @max_min_same(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: !tile.tile<16x64xf32>
// CHECK-SAME:    %[[W:[a-zA-Z0-9_]+]]: !tile.tile<16x64xi8, valid = 4x?>
// CHECK-NEXT:    return %[[X]], %[[X]], %[[W]], %[[W]] :
func.func @max_min_same(%x: !tile.tile<16x64xf32>, %w: !tile.tile<16x64xi8, valid = 4x?>) -> (!tile.tile<16x64xf32>, !tile.tile<16x64xf32>, !tile.tile<16x64xi8, valid = 4x?>, !tile.tile<16x64xi8, valid = 4x?>) {
  %a = tile.max %x, %x : !tile.tile<16x64xf32>
  %b = tile.min %x, %x : !tile.tile<16x64xf32>
  %c = tile.max %w, %w : !tile.tile<16x64xi8, valid = 4x?>
  %d = tile.min %w, %w : !tile.tile<16x64xi8, valid = 4x?>
  return %a, %b, %c, %d : !tile.tile<16x64xf32>, !tile.tile<16x64xf32>, !tile.tile<16x64xi8, valid = 4x?>, !tile.tile<16x64xi8, valid = 4x?>
}

// -----

// max and min of different values are not folded.
// CHECK-LABEL: func.func @max_min_different(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: !tile.tile<16x64xf32>
// CHECK-SAME:    %[[Y:[a-zA-Z0-9_]+]]: !tile.tile<16x64xf32>
// CHECK-NEXT:    %[[A:.*]] = tile.max %[[X]], %[[Y]] : !tile.tile<16x64xf32>
// CHECK-NEXT:    %[[B:.*]] = tile.min %[[X]], %[[Y]] : !tile.tile<16x64xf32>
// CHECK-NEXT:    return %[[A]], %[[B]] :
func.func @max_min_different(%x: !tile.tile<16x64xf32>, %y: !tile.tile<16x64xf32>) -> (!tile.tile<16x64xf32>, !tile.tile<16x64xf32>) {
  %a = tile.max %x, %y : !tile.tile<16x64xf32>
  %b = tile.min %x, %y : !tile.tile<16x64xf32>
  return %a, %b : !tile.tile<16x64xf32>, !tile.tile<16x64xf32>
}

// -----

// Constant folding of every binary op on floats, with tile and scalar
// right operands: 6 op -4.
// CHECK-LABEL: func.func @fold_f32(
// CHECK-DAG:     %[[ADD:.*]] = tile.constant 2.0 : !tile.tile<4x4xf32>
// CHECK-DAG:     %[[SUB:.*]] = tile.constant 10.0 : !tile.tile<4x4xf32>
// CHECK-DAG:     %[[MUL:.*]] = tile.constant -24.0 : !tile.tile<4x4xf32>
// CHECK-DAG:     %[[DIV:.*]] = tile.constant -1.5 : !tile.tile<4x4xf32>
// CHECK-DAG:     %[[MAX:.*]] = tile.constant 6.0 : !tile.tile<4x4xf32>
// CHECK-DAG:     %[[MIN:.*]] = tile.constant -4.0 : !tile.tile<4x4xf32>
// CHECK-NOT:     tile.add
// CHECK-NOT:     tile.sub
// CHECK-NOT:     tile.mul
// CHECK-NOT:     tile.div
// CHECK-NOT:     tile.max
// CHECK-NOT:     tile.min
// CHECK:         return %[[ADD]], %[[SUB]], %[[MUL]], %[[DIV]], %[[MAX]], %[[MIN]] :
func.func @fold_f32() -> (!tile.tile<4x4xf32>, !tile.tile<4x4xf32>, !tile.tile<4x4xf32>, !tile.tile<4x4xf32>, !tile.tile<4x4xf32>, !tile.tile<4x4xf32>) {
  %a = tile.constant 6.0 : !tile.tile<4x4xf32>
  %b = tile.constant -4.0 : !tile.tile<4x4xf32>
  %bs = arith.constant -4.0 : f32
  %0 = tile.add %a, %b : !tile.tile<4x4xf32>
  %1 = tile.sub %a, %bs : !tile.tile<4x4xf32>, f32
  %2 = tile.mul %a, %b : !tile.tile<4x4xf32>
  %3 = tile.div %a, %bs : !tile.tile<4x4xf32>, f32
  %4 = tile.max %a, %b : !tile.tile<4x4xf32>
  %5 = tile.min %a, %bs : !tile.tile<4x4xf32>, f32
  return %0, %1, %2, %3, %4, %5 : !tile.tile<4x4xf32>, !tile.tile<4x4xf32>, !tile.tile<4x4xf32>, !tile.tile<4x4xf32>, !tile.tile<4x4xf32>, !tile.tile<4x4xf32>
}

// -----

// Float folding follows IEEE: 1/0 is inf, max(-0, +0) is +0, min is -0,
// and arithmetic rounds in the element type (f16 here: 2048 + 1 == 2048).
// CHECK-LABEL: func.func @fold_float_ieee(
// CHECK-DAG:     %[[INF:.*]] = tile.constant inf : !tile.tile<4x4xf32>
// CHECK-DAG:     %[[PZ:.*]] = tile.constant 0.0 : !tile.tile<4x4xf32>
// CHECK-DAG:     %[[NZ:.*]] = tile.constant -0.0 : !tile.tile<4x4xf32>
// CHECK-DAG:     %[[H:.*]] = tile.constant 2048.0 : !tile.tile<4x4xf16>
// CHECK-DAG:     %[[B:.*]] = tile.constant 0.75 : !tile.tile<4x4xbf16>
// CHECK-NOT:     tile.div
// CHECK-NOT:     tile.max
// CHECK-NOT:     tile.min
// CHECK-NOT:     tile.add
// CHECK-NOT:     tile.mul
// CHECK:         return %[[INF]], %[[PZ]], %[[NZ]], %[[H]], %[[B]] :
func.func @fold_float_ieee() -> (!tile.tile<4x4xf32>, !tile.tile<4x4xf32>, !tile.tile<4x4xf32>, !tile.tile<4x4xf16>, !tile.tile<4x4xbf16>) {
  %one = tile.constant 1.0 : !tile.tile<4x4xf32>
  %pz = tile.constant 0.0 : !tile.tile<4x4xf32>
  %nz = tile.constant -0.0 : !tile.tile<4x4xf32>
  %0 = tile.div %one, %pz : !tile.tile<4x4xf32>
  %1 = tile.max %nz, %pz : !tile.tile<4x4xf32>
  %2 = tile.min %pz, %nz : !tile.tile<4x4xf32>
  %h = tile.constant 2048.0 : !tile.tile<4x4xf16>
  %h1 = arith.constant 1.0 : f16
  %3 = tile.add %h, %h1 : !tile.tile<4x4xf16>, f16
  %b = tile.constant 1.5 : !tile.tile<4x4xbf16>
  %b2 = tile.constant 0.5 : !tile.tile<4x4xbf16>
  %4 = tile.mul %b, %b2 : !tile.tile<4x4xbf16>
  return %0, %1, %2, %3, %4 : !tile.tile<4x4xf32>, !tile.tile<4x4xf32>, !tile.tile<4x4xf32>, !tile.tile<4x4xf16>, !tile.tile<4x4xbf16>
}

// -----

// Constant folding of every binary op on integers (signed): 7 op -2.
// CHECK-LABEL: func.func @fold_i8(
// CHECK-DAG:     %[[ADD:.*]] = tile.constant 5 : !tile.tile<4x4xi8>
// CHECK-DAG:     %[[SUB:.*]] = tile.constant 9 : !tile.tile<4x4xi8>
// CHECK-DAG:     %[[MUL:.*]] = tile.constant -14 : !tile.tile<4x4xi8>
// CHECK-DAG:     %[[DIV:.*]] = tile.constant -3 : !tile.tile<4x4xi8>
// CHECK-DAG:     %[[MAX:.*]] = tile.constant 7 : !tile.tile<4x4xi8>
// CHECK-DAG:     %[[MIN:.*]] = tile.constant -2 : !tile.tile<4x4xi8>
// CHECK-NOT:     tile.add
// CHECK-NOT:     tile.sub
// CHECK-NOT:     tile.mul
// CHECK-NOT:     tile.div
// CHECK-NOT:     tile.max
// CHECK-NOT:     tile.min
// CHECK:         return %[[ADD]], %[[SUB]], %[[MUL]], %[[DIV]], %[[MAX]], %[[MIN]] :
func.func @fold_i8() -> (!tile.tile<4x4xi8>, !tile.tile<4x4xi8>, !tile.tile<4x4xi8>, !tile.tile<4x4xi8>, !tile.tile<4x4xi8>, !tile.tile<4x4xi8>) {
  %a = tile.constant 7 : !tile.tile<4x4xi8>
  %b = tile.constant -2 : !tile.tile<4x4xi8>
  %bs = arith.constant -2 : i8
  %0 = tile.add %a, %b : !tile.tile<4x4xi8>
  %1 = tile.sub %a, %bs : !tile.tile<4x4xi8>, i8
  %2 = tile.mul %a, %b : !tile.tile<4x4xi8>
  %3 = tile.div %a, %b : !tile.tile<4x4xi8>
  %4 = tile.max %a, %bs : !tile.tile<4x4xi8>, i8
  %5 = tile.min %a, %b : !tile.tile<4x4xi8>
  return %0, %1, %2, %3, %4, %5 : !tile.tile<4x4xi8>, !tile.tile<4x4xi8>, !tile.tile<4x4xi8>, !tile.tile<4x4xi8>, !tile.tile<4x4xi8>, !tile.tile<4x4xi8>
}

// -----

// Integer folding wraps (i8: 127 + 7 == -122; i64 too), and leaves x / 0 and
// INT_MIN / -1 to run time.
// CHECK-LABEL: func.func @fold_int_edges(
// CHECK-DAG:     %[[WRAP:.*]] = tile.constant -122 : !tile.tile<4x4xi8>
// CHECK-DAG:     %[[WRAP64:.*]] = tile.constant -9223372036854775808 : !tile.tile<4x4xi64>
// CHECK-DAG:     %[[A:.*]] = tile.constant 7 : !tile.tile<4x4xi8>
// CHECK-DAG:     %[[MIN:.*]] = tile.constant -128 : !tile.tile<4x4xi8>
// CHECK-DAG:     %[[M1:.*]] = arith.constant -1 : i8
// CHECK-DAG:     %[[Z:.*]] = arith.constant 0 : i8
// CHECK-DAG:     %[[DZ:.*]] = tile.div %[[A]], %[[Z]] : !tile.tile<4x4xi8>, i8
// CHECK-DAG:     %[[OV:.*]] = tile.div %[[MIN]], %[[M1]] : !tile.tile<4x4xi8>, i8
// CHECK-NOT:     tile.add
// CHECK:         return %[[WRAP]], %[[WRAP64]], %[[DZ]], %[[OV]] :
func.func @fold_int_edges() -> (!tile.tile<4x4xi8>, !tile.tile<4x4xi64>, !tile.tile<4x4xi8>, !tile.tile<4x4xi8>) {
  %a = tile.constant 7 : !tile.tile<4x4xi8>
  %big = tile.constant 127 : !tile.tile<4x4xi8>
  %max64 = tile.constant 9223372036854775807 : !tile.tile<4x4xi64>
  %one64 = arith.constant 1 : i64
  %min = tile.constant -128 : !tile.tile<4x4xi8>
  %m1 = arith.constant -1 : i8
  %z = arith.constant 0 : i8
  %0 = tile.add %big, %a : !tile.tile<4x4xi8>
  %1 = tile.add %max64, %one64 : !tile.tile<4x4xi64>, i64
  %2 = tile.div %a, %z : !tile.tile<4x4xi8>, i8
  %3 = tile.div %min, %m1 : !tile.tile<4x4xi8>, i8
  return %0, %1, %2, %3 : !tile.tile<4x4xi8>, !tile.tile<4x4xi64>, !tile.tile<4x4xi8>, !tile.tile<4x4xi8>
}

// -----

// Folding keeps the valid region of the result type.
// CHECK-LABEL: func.func @fold_keeps_valid_region(
// CHECK-NEXT:    %[[R:.*]] = tile.constant 3 : !tile.tile<4x4xi32, valid = 3x2>
// CHECK-NEXT:    return %[[R]] :
func.func @fold_keeps_valid_region() -> !tile.tile<4x4xi32, valid = 3x2> {
  %a = tile.constant 1 : !tile.tile<4x4xi32, valid = 3x2>
  %b = tile.constant 2 : !tile.tile<4x4xi32, valid = 3x2>
  %0 = tile.add %a, %b : !tile.tile<4x4xi32, valid = 3x2>
  return %0 : !tile.tile<4x4xi32, valid = 3x2>
}

// -----

// A fill of a constant scalar is a tile.constant; of anything else, a fill.
// CHECK-LABEL: func.func @fill(
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: f16
// CHECK-DAG:     %[[A:.*]] = tile.constant 1.5 : !tile.tile<16x64xf16>
// CHECK-DAG:     %[[B:.*]] = tile.constant true : !tile.tile<16x64xi1, valid = 8x32>
// CHECK-DAG:     %[[C:.*]] = tile.constant -3 : !tile.tile<16x64xi64>
// CHECK-DAG:     %[[D:.*]] = tile.fill %[[S]] : !tile.tile<16x64xf16>
// CHECK-NOT:     arith.constant
// CHECK:         return %[[A]], %[[B]], %[[C]], %[[D]] :
func.func @fill(%s: f16) -> (!tile.tile<16x64xf16>, !tile.tile<16x64xi1, valid = 8x32>, !tile.tile<16x64xi64>, !tile.tile<16x64xf16>) {
  %c = arith.constant 1.5 : f16
  %t = arith.constant true
  %i = arith.constant -3 : i64
  %a = tile.fill %c : !tile.tile<16x64xf16>
  %b = tile.fill %t : !tile.tile<16x64xi1, valid = 8x32>
  %e = tile.fill %i : !tile.tile<16x64xi64>
  %d = tile.fill %s : !tile.tile<16x64xf16>
  return %a, %b, %e, %d : !tile.tile<16x64xf16>, !tile.tile<16x64xi1, valid = 8x32>, !tile.tile<16x64xi64>, !tile.tile<16x64xf16>
}

// -----

// Identical constants are uniqued; constants of other types are not.
// CHECK-LABEL: func.func @constant_uniquing(
// CHECK-DAG:     %[[A:.*]] = tile.constant 1.0 : !tile.tile<4x4xf32>
// CHECK-DAG:     %[[C:.*]] = tile.constant 1.0 : !tile.tile<8x4xf32>
// CHECK-DAG:     %[[D:.*]] = tile.constant 1.0 : !tile.tile<4x4xf32, valid = 2x4>
// CHECK:         return %[[A]], %[[A]], %[[C]], %[[D]] :
func.func @constant_uniquing() -> (!tile.tile<4x4xf32>, !tile.tile<4x4xf32>, !tile.tile<8x4xf32>, !tile.tile<4x4xf32, valid = 2x4>) {
  %a = tile.constant 1.0 : !tile.tile<4x4xf32>
  %b = tile.constant 1.0 : !tile.tile<4x4xf32>
  %c = tile.constant 1.0 : !tile.tile<8x4xf32>
  %d = tile.constant 1.0 : !tile.tile<4x4xf32, valid = 2x4>
  return %a, %b, %c, %d : !tile.tile<4x4xf32>, !tile.tile<4x4xf32>, !tile.tile<8x4xf32>, !tile.tile<4x4xf32, valid = 2x4>
}

// -----

// neg(neg(x)) == x, for floats and integers.
// CHECK-LABEL: func.func @neg_neg(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: !tile.tile<16x64xf32>
// CHECK-SAME:    %[[W:[a-zA-Z0-9_]+]]: !tile.tile<16x64xi32, valid = ?x8>
// CHECK-NEXT:    return %[[X]], %[[W]] :
func.func @neg_neg(%x: !tile.tile<16x64xf32>, %w: !tile.tile<16x64xi32, valid = ?x8>) -> (!tile.tile<16x64xf32>, !tile.tile<16x64xi32, valid = ?x8>) {
  %a = tile.neg %x : !tile.tile<16x64xf32>
  %b = tile.neg %a : !tile.tile<16x64xf32>
  %c = tile.neg %w : !tile.tile<16x64xi32, valid = ?x8>
  %d = tile.neg %c : !tile.tile<16x64xi32, valid = ?x8>
  return %b, %d : !tile.tile<16x64xf32>, !tile.tile<16x64xi32, valid = ?x8>
}

// -----

// A single neg is kept.
// CHECK-LABEL: func.func @neg_once(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: !tile.tile<16x64xf32>
// CHECK-NEXT:    %[[A:.*]] = tile.neg %[[X]] : !tile.tile<16x64xf32>
// CHECK-NEXT:    return %[[A]] :
func.func @neg_once(%x: !tile.tile<16x64xf32>) -> !tile.tile<16x64xf32> {
  %a = tile.neg %x : !tile.tile<16x64xf32>
  return %a : !tile.tile<16x64xf32>
}

// -----

// neg of a constant: floats flip the sign (also of zero), integers wrap.
// CHECK-LABEL: func.func @neg_constant(
// CHECK-DAG:     %[[F:.*]] = tile.constant -2.5 : !tile.tile<16x64xf32>
// CHECK-DAG:     %[[NZ:.*]] = tile.constant -0.0 : !tile.tile<16x64xf32>
// CHECK-DAG:     %[[NI:.*]] = tile.constant -inf : !tile.tile<16x64xbf16>
// CHECK-DAG:     %[[I:.*]] = tile.constant 5 : !tile.tile<16x64xi32>
// CHECK-DAG:     %[[W:.*]] = tile.constant -128 : !tile.tile<16x64xi8>
// CHECK-NOT:     tile.neg
// CHECK:         return %[[F]], %[[NZ]], %[[NI]], %[[I]], %[[W]] :
func.func @neg_constant() -> (!tile.tile<16x64xf32>, !tile.tile<16x64xf32>, !tile.tile<16x64xbf16>, !tile.tile<16x64xi32>, !tile.tile<16x64xi8>) {
  %f = tile.constant 2.5 : !tile.tile<16x64xf32>
  %z = tile.constant 0.0 : !tile.tile<16x64xf32>
  %inf = tile.constant inf : !tile.tile<16x64xbf16>
  %i = tile.constant -5 : !tile.tile<16x64xi32>
  %w = tile.constant -128 : !tile.tile<16x64xi8>
  %0 = tile.neg %f : !tile.tile<16x64xf32>
  %1 = tile.neg %z : !tile.tile<16x64xf32>
  %2 = tile.neg %inf : !tile.tile<16x64xbf16>
  %3 = tile.neg %i : !tile.tile<16x64xi32>
  %4 = tile.neg %w : !tile.tile<16x64xi8>
  return %0, %1, %2, %3, %4 : !tile.tile<16x64xf32>, !tile.tile<16x64xf32>, !tile.tile<16x64xbf16>, !tile.tile<16x64xi32>, !tile.tile<16x64xi8>
}

// -----

// abs(abs(x)) == abs(x) and relu(relu(x)) == relu(x): the outer op goes.
// CHECK-LABEL: func.func @abs_relu_idempotent(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: !tile.tile<16x64xf32>
// CHECK-SAME:    %[[W:[a-zA-Z0-9_]+]]: !tile.tile<16x64xi32>
// CHECK-NEXT:    %[[A:.*]] = tile.abs %[[X]] : !tile.tile<16x64xf32>
// CHECK-NEXT:    %[[R:.*]] = tile.relu %[[W]] : !tile.tile<16x64xi32>
// CHECK-NEXT:    %[[RF:.*]] = tile.relu %[[X]] : !tile.tile<16x64xf32>
// CHECK-NEXT:    return %[[A]], %[[R]], %[[RF]] :
func.func @abs_relu_idempotent(%x: !tile.tile<16x64xf32>, %w: !tile.tile<16x64xi32>) -> (!tile.tile<16x64xf32>, !tile.tile<16x64xi32>, !tile.tile<16x64xf32>) {
  %a1 = tile.abs %x : !tile.tile<16x64xf32>
  %a2 = tile.abs %a1 : !tile.tile<16x64xf32>
  %r1 = tile.relu %w : !tile.tile<16x64xi32>
  %r2 = tile.relu %r1 : !tile.tile<16x64xi32>
  %r3 = tile.relu %r2 : !tile.tile<16x64xi32>
  %f1 = tile.relu %x : !tile.tile<16x64xf32>
  %f2 = tile.relu %f1 : !tile.tile<16x64xf32>
  return %a2, %r3, %f2 : !tile.tile<16x64xf32>, !tile.tile<16x64xi32>, !tile.tile<16x64xf32>
}

// -----

// Other unary pairs are not folded: abs(neg x), relu(abs x), exp(log x).
// CHECK-LABEL: func.func @unary_no_fold(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: !tile.tile<16x64xf32>
// CHECK-NEXT:    %[[N:.*]] = tile.neg %[[X]] : !tile.tile<16x64xf32>
// CHECK-NEXT:    %[[A:.*]] = tile.abs %[[N]] : !tile.tile<16x64xf32>
// CHECK-NEXT:    %[[AX:.*]] = tile.abs %[[X]] : !tile.tile<16x64xf32>
// CHECK-NEXT:    %[[R:.*]] = tile.relu %[[AX]] : !tile.tile<16x64xf32>
// CHECK-NEXT:    %[[L:.*]] = tile.log %[[X]] : !tile.tile<16x64xf32>
// CHECK-NEXT:    %[[E:.*]] = tile.exp %[[L]] : !tile.tile<16x64xf32>
// CHECK-NEXT:    return %[[A]], %[[R]], %[[E]] :
func.func @unary_no_fold(%x: !tile.tile<16x64xf32>) -> (!tile.tile<16x64xf32>, !tile.tile<16x64xf32>, !tile.tile<16x64xf32>) {
  %n = tile.neg %x : !tile.tile<16x64xf32>
  %a = tile.abs %n : !tile.tile<16x64xf32>
  %ax = tile.abs %x : !tile.tile<16x64xf32>
  %r = tile.relu %ax : !tile.tile<16x64xf32>
  %l = tile.log %x : !tile.tile<16x64xf32>
  %e = tile.exp %l : !tile.tile<16x64xf32>
  return %a, %r, %e : !tile.tile<16x64xf32>, !tile.tile<16x64xf32>, !tile.tile<16x64xf32>
}

// -----

// A broadcast to the input's own type is the input; a broadcast of a
// constant is a constant of the result type; other broadcasts stay.
// CHECK-LABEL: func.func @broadcast(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: !tile.tile<16x1xf32>
// CHECK-SAME:    %[[Y:[a-zA-Z0-9_]+]]: !tile.tile<1x64xi8, valid = 1x?>
// CHECK-DAG:     %[[C:.*]] = tile.constant 3.0 : !tile.tile<16x64xf32>
// CHECK-DAG:     %[[CV:.*]] = tile.constant -1 : !tile.tile<16x64xi8, valid = 8x64>
// CHECK-DAG:     %[[B:.*]] = tile.broadcast %[[X]] : !tile.tile<16x1xf32> -> !tile.tile<16x64xf32>
// CHECK-NOT:     tile.broadcast
// CHECK:         return %[[X]], %[[Y]], %[[C]], %[[CV]], %[[B]] :
func.func @broadcast(%x: !tile.tile<16x1xf32>, %y: !tile.tile<1x64xi8, valid = 1x?>) -> (!tile.tile<16x1xf32>, !tile.tile<1x64xi8, valid = 1x?>, !tile.tile<16x64xf32>, !tile.tile<16x64xi8, valid = 8x64>, !tile.tile<16x64xf32>) {
  %a = tile.broadcast %x : !tile.tile<16x1xf32> -> !tile.tile<16x1xf32>
  %a2 = tile.broadcast %y : !tile.tile<1x64xi8, valid = 1x?> -> !tile.tile<1x64xi8, valid = 1x?>
  %c = tile.constant 3.0 : !tile.tile<16x1xf32>
  %b = tile.broadcast %c : !tile.tile<16x1xf32> -> !tile.tile<16x64xf32>
  %cv = tile.constant -1 : !tile.tile<16x1xi8, valid = 8x1>
  %d = tile.broadcast %cv : !tile.tile<16x1xi8, valid = 8x1> -> !tile.tile<16x64xi8, valid = 8x64>
  %e = tile.broadcast %x : !tile.tile<16x1xf32> -> !tile.tile<16x64xf32>
  return %a, %a2, %b, %d, %e : !tile.tile<16x1xf32>, !tile.tile<1x64xi8, valid = 1x?>, !tile.tile<16x64xf32>, !tile.tile<16x64xi8, valid = 8x64>, !tile.tile<16x64xf32>
}

// -----

// A cast to the same type (which the verifier allows) is the input. Casts
// that change the element type are kept, also of constants.
// CHECK-LABEL: func.func @cast(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: !tile.tile<16x64xf32>
// CHECK-SAME:    %[[V:[a-zA-Z0-9_]+]]: !tile.tile<16x64xi1, valid = 8x32>
// CHECK-DAG:     %[[C:.*]] = tile.constant 2.5 : !tile.tile<16x64xf32>
// CHECK-DAG:     %[[B:.*]] = tile.cast %[[X]] : !tile.tile<16x64xf32> to !tile.tile<16x64xf16>
// CHECK-DAG:     %[[D:.*]] = tile.cast %[[C]] : !tile.tile<16x64xf32> to !tile.tile<16x64xi32>
// CHECK:         return %[[X]], %[[V]], %[[B]], %[[D]] :
func.func @cast(%x: !tile.tile<16x64xf32>, %v: !tile.tile<16x64xi1, valid = 8x32>) -> (!tile.tile<16x64xf32>, !tile.tile<16x64xi1, valid = 8x32>, !tile.tile<16x64xf16>, !tile.tile<16x64xi32>) {
  %a = tile.cast %x : !tile.tile<16x64xf32> to !tile.tile<16x64xf32>
  %a2 = tile.cast %v : !tile.tile<16x64xi1, valid = 8x32> to !tile.tile<16x64xi1, valid = 8x32>
  %b = tile.cast %x : !tile.tile<16x64xf32> to !tile.tile<16x64xf16>
  %c = tile.constant 2.5 : !tile.tile<16x64xf32>
  %d = tile.cast %c : !tile.tile<16x64xf32> to !tile.tile<16x64xi32>
  return %a, %a2, %b, %d : !tile.tile<16x64xf32>, !tile.tile<16x64xi1, valid = 8x32>, !tile.tile<16x64xf16>, !tile.tile<16x64xi32>
}

// -----

// select(m, x, x) == x; a constant mask picks one side; other selects stay.
// CHECK-LABEL: func.func @select(
// CHECK-SAME:    %[[M:[a-zA-Z0-9_]+]]: !tile.tile<16x64xi1>
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: !tile.tile<16x64xf32>
// CHECK-SAME:    %[[Y:[a-zA-Z0-9_]+]]: !tile.tile<16x64xf32>
// CHECK-NEXT:    %[[D:.*]] = tile.select %[[M]], %[[X]], %[[Y]] : !tile.tile<16x64xf32>
// CHECK-NEXT:    return %[[X]], %[[X]], %[[Y]], %[[D]] :
func.func @select(%m: !tile.tile<16x64xi1>, %x: !tile.tile<16x64xf32>, %y: !tile.tile<16x64xf32>) -> (!tile.tile<16x64xf32>, !tile.tile<16x64xf32>, !tile.tile<16x64xf32>, !tile.tile<16x64xf32>) {
  %a = tile.select %m, %x, %x : !tile.tile<16x64xf32>
  %t = tile.constant true : !tile.tile<16x64xi1>
  %f = tile.constant false : !tile.tile<16x64xi1>
  %b = tile.select %t, %x, %y : !tile.tile<16x64xf32>
  %c = tile.select %f, %x, %y : !tile.tile<16x64xf32>
  %d = tile.select %m, %x, %y : !tile.tile<16x64xf32>
  return %a, %b, %c, %d : !tile.tile<16x64xf32>, !tile.tile<16x64xf32>, !tile.tile<16x64xf32>, !tile.tile<16x64xf32>
}

// -----

// A mask made by tile.fill of a constant scalar also selects statically.
// CHECK-LABEL: func.func @select_fill_mask(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: !tile.tile<8x8xi32>
// CHECK-SAME:    %[[Y:[a-zA-Z0-9_]+]]: !tile.tile<8x8xi32>
// CHECK-NEXT:    return %[[Y]] :
func.func @select_fill_mask(%x: !tile.tile<8x8xi32>, %y: !tile.tile<8x8xi32>) -> !tile.tile<8x8xi32> {
  %false = arith.constant false
  %m = tile.fill %false : !tile.tile<8x8xi1>
  %r = tile.select %m, %x, %y : !tile.tile<8x8xi32>
  return %r : !tile.tile<8x8xi32>
}

// -----

// transpose(transpose(x)) == x, valid region included; one transpose stays.
// CHECK-LABEL: func.func @transpose(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: !tile.tile<16x64xf32, valid = ?x32>
// CHECK-NEXT:    %[[A:.*]] = tile.transpose %[[X]] : !tile.tile<16x64xf32, valid = ?x32> -> !tile.tile<64x16xf32, valid = 32x?>
// CHECK-NEXT:    return %[[X]], %[[A]] :
func.func @transpose(%x: !tile.tile<16x64xf32, valid = ?x32>) -> (!tile.tile<16x64xf32, valid = ?x32>, !tile.tile<64x16xf32, valid = 32x?>) {
  %a = tile.transpose %x : !tile.tile<16x64xf32, valid = ?x32> -> !tile.tile<64x16xf32, valid = 32x?>
  %b = tile.transpose %a : !tile.tile<64x16xf32, valid = 32x?> -> !tile.tile<16x64xf32, valid = ?x32>
  return %b, %a : !tile.tile<16x64xf32, valid = ?x32>, !tile.tile<64x16xf32, valid = 32x?>
}

// -----

// Memory effects. tile.load and tile.gather only read their source (and a
// tensor source is a value, touching no memory), so when their result is
// unused they are dead and canonicalize removes them, like any pure op. A
// store into a memref writes memory and is kept even though it has no
// result; a store into a tensor only produces a new tensor value, so it is
// removed when that value is unused and kept when it is used.
// CHECK-LABEL: func.func @memory_effects(
// CHECK-SAME:    %[[M:[a-zA-Z0-9_]+]]: memref<128x256xf32>
// CHECK-SAME:    %[[T:[a-zA-Z0-9_]+]]: tensor<128x256xf32>
// CHECK-SAME:    %[[R:[a-zA-Z0-9_]+]]: !tile.tile<8x1xi32>
// CHECK-SAME:    %[[I:[a-zA-Z0-9_]+]]: index
// CHECK-NEXT:    %[[L:.*]] = tile.load %[[M]][%[[I]], %[[I]]] : memref<128x256xf32> -> !tile.tile<16x64xf32>
// CHECK-NEXT:    %[[G:.*]] = tile.gather %[[M]][%[[R]], %[[I]]] : memref<128x256xf32>, !tile.tile<8x1xi32> -> !tile.tile<8x64xf32>
// CHECK-NEXT:    %[[LT:.*]] = tile.load %[[T]][%[[I]], %[[I]]] : tensor<128x256xf32> -> !tile.tile<16x64xf32>
// CHECK-NEXT:    %[[X:.*]] = tile.exp %[[L]] : !tile.tile<16x64xf32>
// CHECK-NEXT:    tile.store %[[X]], %[[M]][%[[I]], %[[I]]] : !tile.tile<16x64xf32>, memref<128x256xf32>
// CHECK-NEXT:    tile.store %[[X]], %[[M]][%[[I]], %[[I]]] : !tile.tile<16x64xf32>, memref<128x256xf32>
// CHECK-NEXT:    %[[S:.*]] = tile.store %[[LT]], %[[T]][%[[I]], %[[I]]] : !tile.tile<16x64xf32>, tensor<128x256xf32> -> tensor<128x256xf32>
// CHECK-NEXT:    return %[[X]], %[[G]], %[[S]] :
func.func @memory_effects(%m: memref<128x256xf32>, %t: tensor<128x256xf32>, %r: !tile.tile<8x1xi32>, %i: index) -> (!tile.tile<16x64xf32>, !tile.tile<8x64xf32>, tensor<128x256xf32>) {
  %dead_load = tile.load %m[%i, %i] : memref<128x256xf32> -> !tile.tile<16x64xf32>
  %dead_tensor_load = tile.load %t[%i, %i] : tensor<128x256xf32> -> !tile.tile<16x64xf32>
  %dead_gather = tile.gather %m[%r, %i] : memref<128x256xf32>, !tile.tile<8x1xi32> -> !tile.tile<8x64xf32>
  %dead_tensor_gather = tile.gather %t[%r, %i] : tensor<128x256xf32>, !tile.tile<8x1xi32> -> !tile.tile<8x64xf32>
  %l = tile.load %m[%i, %i] : memref<128x256xf32> -> !tile.tile<16x64xf32>
  %g = tile.gather %m[%r, %i] : memref<128x256xf32>, !tile.tile<8x1xi32> -> !tile.tile<8x64xf32>
  %lt = tile.load %t[%i, %i] : tensor<128x256xf32> -> !tile.tile<16x64xf32>
  %x = tile.exp %l : !tile.tile<16x64xf32>
  %dead_exp = tile.exp %l : !tile.tile<16x64xf32>
  tile.store %x, %m[%i, %i] : !tile.tile<16x64xf32>, memref<128x256xf32>
  // A second identical store to memory is not merged away either.
  tile.store %x, %m[%i, %i] : !tile.tile<16x64xf32>, memref<128x256xf32>
  %dead_store = tile.store %x, %t[%i, %i] : !tile.tile<16x64xf32>, tensor<128x256xf32> -> tensor<128x256xf32>
  %s = tile.store %lt, %t[%i, %i] : !tile.tile<16x64xf32>, tensor<128x256xf32> -> tensor<128x256xf32>
  return %x, %g, %s : !tile.tile<16x64xf32>, !tile.tile<8x64xf32>, tensor<128x256xf32>
}

// -----

// A load is not moved across or merged over a store to the same memref.
// CHECK-LABEL: func.func @load_store_order(
// CHECK-SAME:    %[[M:[a-zA-Z0-9_]+]]: memref<16x64xf32>
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: !tile.tile<16x64xf32>
// CHECK-SAME:    %[[I:[a-zA-Z0-9_]+]]: index
// CHECK-NEXT:    %[[A:.*]] = tile.load %[[M]][%[[I]], %[[I]]] : memref<16x64xf32> -> !tile.tile<16x64xf32>
// CHECK-NEXT:    tile.store %[[X]], %[[M]][%[[I]], %[[I]]] : !tile.tile<16x64xf32>, memref<16x64xf32>
// CHECK-NEXT:    %[[B:.*]] = tile.load %[[M]][%[[I]], %[[I]]] : memref<16x64xf32> -> !tile.tile<16x64xf32>
// CHECK-NEXT:    return %[[A]], %[[B]] :
func.func @load_store_order(%m: memref<16x64xf32>, %x: !tile.tile<16x64xf32>, %i: index) -> (!tile.tile<16x64xf32>, !tile.tile<16x64xf32>) {
  %a = tile.load %m[%i, %i] : memref<16x64xf32> -> !tile.tile<16x64xf32>
  tile.store %x, %m[%i, %i] : !tile.tile<16x64xf32>, memref<16x64xf32>
  %b = tile.load %m[%i, %i] : memref<16x64xf32> -> !tile.tile<16x64xf32>
  return %a, %b : !tile.tile<16x64xf32>, !tile.tile<16x64xf32>
}

// -----

// Regression: a constant tile on the left of a tile-scalar op must stay on the
// left (the ops are not `Commutative`: swapping would put the scalar in the
// tile operand's place). 1.0 + s folds nothing; 1.0 * s neither.
// CHECK-LABEL: func.func @constant_lhs_scalar_rhs(
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: f32
// CHECK-DAG:     %[[C:.*]] = tile.constant 1.0 : !tile.tile<4x4xf32>
// CHECK-DAG:     %[[A:.*]] = tile.add %[[C]], %[[S]] : !tile.tile<4x4xf32>, f32
// CHECK-DAG:     %[[M:.*]] = tile.mul %[[C]], %[[S]] : !tile.tile<4x4xf32>, f32
// CHECK:         return %[[A]], %[[M]]
func.func @constant_lhs_scalar_rhs(%s: f32) -> (!tile.tile<4x4xf32>, !tile.tile<4x4xf32>) {
  %c = tile.constant 1.0 : !tile.tile<4x4xf32>
  %a = tile.add %c, %s : !tile.tile<4x4xf32>, f32
  %m = tile.mul %c, %s : !tile.tile<4x4xf32>, f32
  return %a, %m : !tile.tile<4x4xf32>, !tile.tile<4x4xf32>
}

// -----

// Folded constants print in a form that reads back exactly: 4096 * 4097 is
// 16781312, which a 6-digit form would round.
// CHECK-LABEL: func.func @exact_float_print
// CHECK-NEXT:    %[[C:.*]] = tile.constant 16781312.0 : !tile.tile<4x4xf32>
func.func @exact_float_print() -> !tile.tile<4x4xf32> {
  %a = tile.constant 4096.0 : !tile.tile<4x4xf32>
  %b = tile.constant 4097.0 : !tile.tile<4x4xf32>
  %c = tile.mul %a, %b : !tile.tile<4x4xf32>
  return %c : !tile.tile<4x4xf32>
}

// -----

// Padding a fully valid tile and re-setting a tile's own static valid region
// change nothing; a run-time set_valid stays.
// CHECK-LABEL: func.func @pad_set_valid_folds(
// CHECK-SAME:    %[[F:[a-zA-Z0-9_]+]]: !tile.tile<16x64xf32>, %[[H:[a-zA-Z0-9_]+]]: !tile.tile<16x64xf32, valid = 8x64>
// CHECK:         %[[S:.*]] = tile.set_valid %[[F]] valid [%{{.*}}]
// CHECK-NEXT:    return %[[F]], %[[H]], %[[S]] :
func.func @pad_set_valid_folds(%f: !tile.tile<16x64xf32>, %h: !tile.tile<16x64xf32, valid = 8x64>, %z: f32, %n: index) -> (!tile.tile<16x64xf32>, !tile.tile<16x64xf32, valid = 8x64>, !tile.tile<16x64xf32, valid = ?x64>) {
  %p = tile.pad %f, %z : !tile.tile<16x64xf32> -> !tile.tile<16x64xf32>
  %s = tile.set_valid %h : !tile.tile<16x64xf32, valid = 8x64> -> !tile.tile<16x64xf32, valid = 8x64>
  %d = tile.set_valid %f valid [%n] : !tile.tile<16x64xf32> -> !tile.tile<16x64xf32, valid = ?x64>
  return %p, %s, %d : !tile.tile<16x64xf32>, !tile.tile<16x64xf32, valid = 8x64>, !tile.tile<16x64xf32, valid = ?x64>
}

// -----

// A relayout to the same type is its input; two relayouts are one.
// CHECK-LABEL: func.func @relayouts
// CHECK-SAME: (%[[X:.*]]: !tile.tile<16x64xf32>)
// CHECK-NEXT: %[[Z:.*]] = tile.relayout %[[X]] : !tile.tile<16x64xf32> -> !tile.tile<16x64xf32, layout = #layout.axe<[2@m:512, 8@m:8] x [8@m:64, 8@m:1]>>
// CHECK-NEXT: return %[[X]], %[[Z]]
func.func @relayouts(%x: !tile.tile<16x64xf32>) -> (!tile.tile<16x64xf32>, !tile.tile<16x64xf32, layout = #layout.axe<[2@m:512, 8@m:8] x [8@m:64, 8@m:1]>>) {
  %same = tile.relayout %x : !tile.tile<16x64xf32> -> !tile.tile<16x64xf32>
  %d = tile.relayout %x : !tile.tile<16x64xf32> -> !tile.tile<16x64xf32, layout = #layout.axe<[16@m:1] x [64@m:16]>>
  %back = tile.relayout %d : !tile.tile<16x64xf32, layout = #layout.axe<[16@m:1] x [64@m:16]>> -> !tile.tile<16x64xf32>
  %z = tile.relayout %d : !tile.tile<16x64xf32, layout = #layout.axe<[16@m:1] x [64@m:16]>> -> !tile.tile<16x64xf32, layout = #layout.axe<[2@m:512, 8@m:8] x [8@m:64, 8@m:1]>>
  return %same, %z : !tile.tile<16x64xf32>, !tile.tile<16x64xf32, layout = #layout.axe<[2@m:512, 8@m:8] x [8@m:64, 8@m:1]>>
}

// -----

// A slice of the whole tile and a concat of one tile are the tile; a reshape
// to the same shape is its input, two reshapes are one (and back again, none).
// CHECK-LABEL: func.func @shape_folds
// CHECK-SAME: (%[[X:.*]]: !tile.tile<16x64xf32, valid = ?x64>, %[[Y:.*]]: !tile.tile<16x64xf32>)
// CHECK-NEXT: %[[R:.*]] = tile.reshape %[[Y]] : !tile.tile<16x64xf32> -> !tile.tile<64x16xf32>
// CHECK-NEXT: return %[[X]], %[[X]], %[[Y]], %[[R]], %[[Y]]
func.func @shape_folds(%x: !tile.tile<16x64xf32, valid = ?x64>, %y: !tile.tile<16x64xf32>) -> (!tile.tile<16x64xf32, valid = ?x64>, !tile.tile<16x64xf32, valid = ?x64>, !tile.tile<16x64xf32>, !tile.tile<64x16xf32>, !tile.tile<16x64xf32>) {
  %s = tile.slice %x [0, 0] strides [1, 1] : !tile.tile<16x64xf32, valid = ?x64> -> !tile.tile<16x64xf32, valid = ?x64>
  %c = tile.concat %x axis 1 : !tile.tile<16x64xf32, valid = ?x64> -> !tile.tile<16x64xf32, valid = ?x64>
  %same = tile.reshape %y : !tile.tile<16x64xf32> -> !tile.tile<16x64xf32>
  %a = tile.reshape %y : !tile.tile<16x64xf32> -> !tile.tile<32x32xf32>
  %b = tile.reshape %a : !tile.tile<32x32xf32> -> !tile.tile<64x16xf32>
  %back = tile.reshape %b : !tile.tile<64x16xf32> -> !tile.tile<16x64xf32>
  return %s, %c, %same, %b, %back : !tile.tile<16x64xf32, valid = ?x64>, !tile.tile<16x64xf32, valid = ?x64>, !tile.tile<16x64xf32>, !tile.tile<64x16xf32>, !tile.tile<16x64xf32>
}
