// RUN: htp-opt %s | htp-opt | FileCheck %s
// RUN: htp-opt %s --mlir-print-op-generic | htp-opt | FileCheck %s
//
// Round trip of every tile op and of the !tile.tile type, through both the
// custom and the generic form. Each function returns what it computes so that
// nothing is dead.

// The tile type: every element type, with and without a valid region
// (static sizes, `?`, and a mix).
// CHECK-LABEL: func.func private @element_types(!tile.tile<16x64xf32>, !tile.tile<16x64xf16>, !tile.tile<16x64xbf16>, !tile.tile<16x64xi64>, !tile.tile<16x64xi32>, !tile.tile<16x64xi16>, !tile.tile<16x64xi8>, !tile.tile<16x64xi1>)
func.func private @element_types(!tile.tile<16x64xf32>, !tile.tile<16x64xf16>, !tile.tile<16x64xbf16>, !tile.tile<16x64xi64>, !tile.tile<16x64xi32>, !tile.tile<16x64xi16>, !tile.tile<16x64xi8>, !tile.tile<16x64xi1>)
// CHECK-LABEL: func.func private @valid_regions(!tile.tile<16x64xf32, valid = 8x32>, !tile.tile<16x64xf16, valid = ?x64>, !tile.tile<16x64xbf16, valid = 16x?>, !tile.tile<16x64xi8, valid = ?x?>, !tile.tile<1x1xi1, valid = ?x1>, !tile.tile<16x64xi32, valid = 1x1>)
func.func private @valid_regions(!tile.tile<16x64xf32, valid = 8x32>, !tile.tile<16x64xf16, valid = ?x64>, !tile.tile<16x64xbf16, valid = 16x?>, !tile.tile<16x64xi8, valid = ?x?>, !tile.tile<1x1xi1, valid = ?x1>, !tile.tile<16x64xi32, valid = 1x1>)
// CHECK-LABEL: func.func private @smallest_and_tall(!tile.tile<1x1xf32>, !tile.tile<1024x1xi64>, !tile.tile<1x4096xf16>)
func.func private @smallest_and_tall(!tile.tile<1x1xf32>, !tile.tile<1024x1xi64>, !tile.tile<1x4096xf16>)

// CHECK-LABEL: func.func @load_memref(
// CHECK-SAME:    %[[M:[a-zA-Z0-9_]+]]: memref<128x256xf32>
// CHECK-SAME:    %[[I:[a-zA-Z0-9_]+]]: index
// CHECK-SAME:    %[[J:[a-zA-Z0-9_]+]]: index
// CHECK-SAME:  ) -> !tile.tile<16x64xf32> {
// CHECK-NEXT:  %[[T:[a-zA-Z0-9_]+]] = tile.load %[[M]][%[[I]], %[[J]]] : memref<128x256xf32> -> !tile.tile<16x64xf32>
// CHECK-NEXT:  return %[[T]] : !tile.tile<16x64xf32>
func.func @load_memref(%m: memref<128x256xf32>, %i: index, %j: index) -> !tile.tile<16x64xf32> {
  %t = tile.load %m[%i, %j] : memref<128x256xf32> -> !tile.tile<16x64xf32>
  return %t : !tile.tile<16x64xf32>
}

// CHECK-LABEL: func.func @load_tensor(
// CHECK-SAME:    %[[T:[a-zA-Z0-9_]+]]: tensor<128x256xbf16>
// CHECK-SAME:    %[[I:[a-zA-Z0-9_]+]]: index
// CHECK-SAME:  ) -> !tile.tile<16x64xbf16> {
// CHECK-NEXT:  %[[R:[a-zA-Z0-9_]+]] = tile.load %[[T]][%[[I]], %[[I]]] : tensor<128x256xbf16> -> !tile.tile<16x64xbf16>
// CHECK-NEXT:  return %[[R]] : !tile.tile<16x64xbf16>
func.func @load_tensor(%t: tensor<128x256xbf16>, %i: index) -> !tile.tile<16x64xbf16> {
  %r = tile.load %t[%i, %i] : tensor<128x256xbf16> -> !tile.tile<16x64xbf16>
  return %r : !tile.tile<16x64xbf16>
}

// Rank 3 and 4 views: the leading indices pick the 2-D slice.
// CHECK-LABEL: func.func @load_nd(
// CHECK-SAME:    %[[M:[a-zA-Z0-9_]+]]: memref<4x8x128x256xf16>
// CHECK-SAME:    %[[T:[a-zA-Z0-9_]+]]: tensor<?x128x256xi8>
// CHECK-SAME:    %[[I:[a-zA-Z0-9_]+]]: index
// CHECK-SAME:    %[[J:[a-zA-Z0-9_]+]]: index
// CHECK-SAME:    %[[K:[a-zA-Z0-9_]+]]: index
// CHECK-SAME:    %[[L:[a-zA-Z0-9_]+]]: index
// CHECK-SAME:  ) -> (!tile.tile<16x64xf16>, !tile.tile<32x32xi8>) {
// CHECK-NEXT:  %[[A:[a-zA-Z0-9_]+]] = tile.load %[[M]][%[[I]], %[[J]], %[[K]], %[[L]]] : memref<4x8x128x256xf16> -> !tile.tile<16x64xf16>
// CHECK-NEXT:  %[[B:[a-zA-Z0-9_]+]] = tile.load %[[T]][%[[I]], %[[K]], %[[L]]] : tensor<?x128x256xi8> -> !tile.tile<32x32xi8>
// CHECK-NEXT:  return %[[A]], %[[B]] : !tile.tile<16x64xf16>, !tile.tile<32x32xi8>
func.func @load_nd(%m: memref<4x8x128x256xf16>, %t: tensor<?x128x256xi8>, %i: index, %j: index, %k: index, %l: index) -> (!tile.tile<16x64xf16>, !tile.tile<32x32xi8>) {
  %a = tile.load %m[%i, %j, %k, %l] : memref<4x8x128x256xf16> -> !tile.tile<16x64xf16>
  %b = tile.load %t[%i, %k, %l] : tensor<?x128x256xi8> -> !tile.tile<32x32xi8>
  return %a, %b : !tile.tile<16x64xf16>, !tile.tile<32x32xi8>
}

// `?` valid sizes are operands, rows first; static ones are not.
// CHECK-LABEL: func.func @load_valid(
// CHECK-SAME:    %[[M:[a-zA-Z0-9_]+]]: memref<?x?xf32>
// CHECK-SAME:    %[[T:[a-zA-Z0-9_]+]]: tensor<2x100x60xi16>
// CHECK-SAME:    %[[I:[a-zA-Z0-9_]+]]: index
// CHECK-SAME:    %[[ROWS:[a-zA-Z0-9_]+]]: index
// CHECK-SAME:    %[[COLS:[a-zA-Z0-9_]+]]: index
// CHECK-SAME:  ) -> (!tile.tile<16x64xf32, valid = ?x64>, !tile.tile<16x64xf32, valid = 16x?>, !tile.tile<16x64xf32, valid = ?x?>, !tile.tile<16x64xf32, valid = 8x32>, !tile.tile<128x64xi16, valid = ?x60>) {
// CHECK-NEXT:  %[[A:[a-zA-Z0-9_]+]] = tile.load %[[M]][%[[I]], %[[I]]] valid [%[[ROWS]]] : memref<?x?xf32> -> !tile.tile<16x64xf32, valid = ?x64>
// CHECK-NEXT:  %[[B:[a-zA-Z0-9_]+]] = tile.load %[[M]][%[[I]], %[[I]]] valid [%[[COLS]]] : memref<?x?xf32> -> !tile.tile<16x64xf32, valid = 16x?>
// CHECK-NEXT:  %[[C:[a-zA-Z0-9_]+]] = tile.load %[[M]][%[[I]], %[[I]]] valid [%[[ROWS]], %[[COLS]]] : memref<?x?xf32> -> !tile.tile<16x64xf32, valid = ?x?>
// CHECK-NEXT:  %[[D:[a-zA-Z0-9_]+]] = tile.load %[[M]][%[[I]], %[[I]]] : memref<?x?xf32> -> !tile.tile<16x64xf32, valid = 8x32>
// CHECK-NEXT:  %[[E:[a-zA-Z0-9_]+]] = tile.load %[[T]][%[[I]], %[[I]], %[[I]]] valid [%[[ROWS]]] {note = "only the valid region must fit"} : tensor<2x100x60xi16> -> !tile.tile<128x64xi16, valid = ?x60>
// CHECK-NEXT:  return %[[A]], %[[B]], %[[C]], %[[D]], %[[E]] : !tile.tile<16x64xf32, valid = ?x64>, !tile.tile<16x64xf32, valid = 16x?>, !tile.tile<16x64xf32, valid = ?x?>, !tile.tile<16x64xf32, valid = 8x32>, !tile.tile<128x64xi16, valid = ?x60>
func.func @load_valid(%m: memref<?x?xf32>, %t: tensor<2x100x60xi16>, %i: index, %rows: index, %cols: index) -> (!tile.tile<16x64xf32, valid = ?x64>, !tile.tile<16x64xf32, valid = 16x?>, !tile.tile<16x64xf32, valid = ?x?>, !tile.tile<16x64xf32, valid = 8x32>, !tile.tile<128x64xi16, valid = ?x60>) {
  %a = tile.load %m[%i, %i] valid [%rows] : memref<?x?xf32> -> !tile.tile<16x64xf32, valid = ?x64>
  %b = tile.load %m[%i, %i] valid [%cols] : memref<?x?xf32> -> !tile.tile<16x64xf32, valid = 16x?>
  %c = tile.load %m[%i, %i] valid [%rows, %cols] : memref<?x?xf32> -> !tile.tile<16x64xf32, valid = ?x?>
  %d = tile.load %m[%i, %i] : memref<?x?xf32> -> !tile.tile<16x64xf32, valid = 8x32>
  %e = tile.load %t[%i, %i, %i] valid [%rows] {note = "only the valid region must fit"} : tensor<2x100x60xi16> -> !tile.tile<128x64xi16, valid = ?x60>
  return %a, %b, %c, %d, %e : !tile.tile<16x64xf32, valid = ?x64>, !tile.tile<16x64xf32, valid = 16x?>, !tile.tile<16x64xf32, valid = ?x?>, !tile.tile<16x64xf32, valid = 8x32>, !tile.tile<128x64xi16, valid = ?x60>
}

// CHECK-LABEL: func.func @store_memref(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: !tile.tile<16x64xf32>
// CHECK-SAME:    %[[Y:[a-zA-Z0-9_]+]]: !tile.tile<16x64xi1, valid = ?x?>
// CHECK-SAME:    %[[M:[a-zA-Z0-9_]+]]: memref<128x256xf32>
// CHECK-SAME:    %[[N:[a-zA-Z0-9_]+]]: memref<2x3x?x?xi1>
// CHECK-SAME:    %[[I:[a-zA-Z0-9_]+]]: index
// CHECK-SAME:  ) {
// CHECK-NEXT:  tile.store %[[X]], %[[M]][%[[I]], %[[I]]] : !tile.tile<16x64xf32>, memref<128x256xf32>
// CHECK-NEXT:  tile.store %[[Y]], %[[N]][%[[I]], %[[I]], %[[I]], %[[I]]] : !tile.tile<16x64xi1, valid = ?x?>, memref<2x3x?x?xi1>
// CHECK-NEXT:  return
func.func @store_memref(%x: !tile.tile<16x64xf32>, %y: !tile.tile<16x64xi1, valid = ?x?>, %m: memref<128x256xf32>, %n: memref<2x3x?x?xi1>, %i: index) {
  tile.store %x, %m[%i, %i] : !tile.tile<16x64xf32>, memref<128x256xf32>
  tile.store %y, %n[%i, %i, %i, %i] : !tile.tile<16x64xi1, valid = ?x?>, memref<2x3x?x?xi1>
  return
}

// Storing into a tensor yields the updated tensor.
// CHECK-LABEL: func.func @store_tensor(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: !tile.tile<16x64xi64>
// CHECK-SAME:    %[[Y:[a-zA-Z0-9_]+]]: !tile.tile<16x64xi64, valid = 8x?>
// CHECK-SAME:    %[[T:[a-zA-Z0-9_]+]]: tensor<128x256xi64>
// CHECK-SAME:    %[[U:[a-zA-Z0-9_]+]]: tensor<4x16x64xi64>
// CHECK-SAME:    %[[I:[a-zA-Z0-9_]+]]: index
// CHECK-SAME:  ) -> (tensor<128x256xi64>, tensor<4x16x64xi64>) {
// CHECK-NEXT:  %[[A:[a-zA-Z0-9_]+]] = tile.store %[[X]], %[[T]][%[[I]], %[[I]]] : !tile.tile<16x64xi64>, tensor<128x256xi64> -> tensor<128x256xi64>
// CHECK-NEXT:  %[[B:[a-zA-Z0-9_]+]] = tile.store %[[Y]], %[[U]][%[[I]], %[[I]], %[[I]]] {tag} : !tile.tile<16x64xi64, valid = 8x?>, tensor<4x16x64xi64> -> tensor<4x16x64xi64>
// CHECK-NEXT:  return %[[A]], %[[B]] : tensor<128x256xi64>, tensor<4x16x64xi64>
func.func @store_tensor(%x: !tile.tile<16x64xi64>, %y: !tile.tile<16x64xi64, valid = 8x?>, %t: tensor<128x256xi64>, %u: tensor<4x16x64xi64>, %i: index) -> (tensor<128x256xi64>, tensor<4x16x64xi64>) {
  %a = tile.store %x, %t[%i, %i] : !tile.tile<16x64xi64>, tensor<128x256xi64> -> tensor<128x256xi64>
  %b = tile.store %y, %u[%i, %i, %i] {tag} : !tile.tile<16x64xi64, valid = 8x?>, tensor<4x16x64xi64> -> tensor<4x16x64xi64>
  return %a, %b : tensor<128x256xi64>, tensor<4x16x64xi64>
}

// CHECK-LABEL: func.func @gather(
// CHECK-SAME:    %[[M:[a-zA-Z0-9_]+]]: memref<?x128xf16>
// CHECK-SAME:    %[[T:[a-zA-Z0-9_]+]]: tensor<64x32xi8>
// CHECK-SAME:    %[[R32:[a-zA-Z0-9_]+]]: !tile.tile<8x1xi32>
// CHECK-SAME:    %[[R64:[a-zA-Z0-9_]+]]: !tile.tile<16x1xi64, valid = ?x1>
// CHECK-SAME:    %[[C:[a-zA-Z0-9_]+]]: index
// CHECK-SAME:  ) -> (!tile.tile<8x128xf16>, !tile.tile<16x16xi8, valid = ?x16>) {
// CHECK-NEXT:  %[[A:[a-zA-Z0-9_]+]] = tile.gather %[[M]][%[[R32]], %[[C]]] : memref<?x128xf16>, !tile.tile<8x1xi32> -> !tile.tile<8x128xf16>
// CHECK-NEXT:  %[[B:[a-zA-Z0-9_]+]] = tile.gather %[[T]][%[[R64]], %[[C]]] : tensor<64x32xi8>, !tile.tile<16x1xi64, valid = ?x1> -> !tile.tile<16x16xi8, valid = ?x16>
// CHECK-NEXT:  return %[[A]], %[[B]] : !tile.tile<8x128xf16>, !tile.tile<16x16xi8, valid = ?x16>
func.func @gather(%m: memref<?x128xf16>, %t: tensor<64x32xi8>, %r32: !tile.tile<8x1xi32>, %r64: !tile.tile<16x1xi64, valid = ?x1>, %c: index) -> (!tile.tile<8x128xf16>, !tile.tile<16x16xi8, valid = ?x16>) {
  %a = tile.gather %m[%r32, %c] : memref<?x128xf16>, !tile.tile<8x1xi32> -> !tile.tile<8x128xf16>
  %b = tile.gather %t[%r64, %c] : tensor<64x32xi8>, !tile.tile<16x1xi64, valid = ?x1> -> !tile.tile<16x16xi8, valid = ?x16>
  return %a, %b : !tile.tile<8x128xf16>, !tile.tile<16x16xi8, valid = ?x16>
}

// A scatter writes a memref and has no result; rows of any valid region.
// CHECK-LABEL: func.func @scatter(
// CHECK-SAME:    %[[M:[a-zA-Z0-9_]+]]: memref<?x128xf16>
// CHECK-SAME:    %[[N:[a-zA-Z0-9_]+]]: memref<64x32xi8>
// CHECK-SAME:    %[[A:[a-zA-Z0-9_]+]]: !tile.tile<8x128xf16>
// CHECK-SAME:    %[[B:[a-zA-Z0-9_]+]]: !tile.tile<16x16xi8, valid = ?x16>
// CHECK-SAME:    %[[R32:[a-zA-Z0-9_]+]]: !tile.tile<8x1xi32>
// CHECK-SAME:    %[[R64:[a-zA-Z0-9_]+]]: !tile.tile<16x1xi64, valid = ?x1>
// CHECK-SAME:    %[[C:[a-zA-Z0-9_]+]]: index
// CHECK-NEXT:  tile.scatter %[[A]], %[[M]][%[[R32]], %[[C]]] : !tile.tile<8x128xf16>, memref<?x128xf16>, !tile.tile<8x1xi32>
// CHECK-NEXT:  tile.scatter %[[B]], %[[N]][%[[R64]], %[[C]]] : !tile.tile<16x16xi8, valid = ?x16>, memref<64x32xi8>, !tile.tile<16x1xi64, valid = ?x1>
// CHECK-NEXT:  return
func.func @scatter(%m: memref<?x128xf16>, %n: memref<64x32xi8>, %a: !tile.tile<8x128xf16>, %b: !tile.tile<16x16xi8, valid = ?x16>, %r32: !tile.tile<8x1xi32>, %r64: !tile.tile<16x1xi64, valid = ?x1>, %c: index) {
  tile.scatter %a, %m[%r32, %c] : !tile.tile<8x128xf16>, memref<?x128xf16>, !tile.tile<8x1xi32>
  tile.scatter %b, %n[%r64, %c] : !tile.tile<16x16xi8, valid = ?x16>, memref<64x32xi8>, !tile.tile<16x1xi64, valid = ?x1>
  return
}

// The literal is untyped and prints in the element type's form: floats in
// exponent form, `nan`/`inf`/`-inf` as keywords, i1 as true/false. An integer
// literal initializes float elements.
// CHECK-LABEL: func.func @constant_float(
// CHECK-SAME:  ) -> (!tile.tile<4x4xf32>, !tile.tile<4x4xf32>, !tile.tile<4x4xf32>, !tile.tile<4x4xf16>, !tile.tile<4x4xbf16>, !tile.tile<4x4xf32>, !tile.tile<4x4xf16>, !tile.tile<4x4xbf16>, !tile.tile<4x4xf32>, !tile.tile<4x4xf32, valid = 2x3>) {
// CHECK-NEXT:  %[[A:[a-zA-Z0-9_]+]] = tile.constant 0.0 : !tile.tile<4x4xf32>
// CHECK-NEXT:  %[[B:[a-zA-Z0-9_]+]] = tile.constant -0.0 : !tile.tile<4x4xf32>
// CHECK-NEXT:  %[[C:[a-zA-Z0-9_]+]] = tile.constant -1.5 : !tile.tile<4x4xf32>
// CHECK-NEXT:  %[[D:[a-zA-Z0-9_]+]] = tile.constant 65504.0 : !tile.tile<4x4xf16>
// CHECK-NEXT:  %[[E:[a-zA-Z0-9_]+]] = tile.constant 3.00406E+38 : !tile.tile<4x4xbf16>
// CHECK-NEXT:  %[[F:[a-zA-Z0-9_]+]] = tile.constant nan : !tile.tile<4x4xf32>
// CHECK-NEXT:  %[[G:[a-zA-Z0-9_]+]] = tile.constant inf : !tile.tile<4x4xf16>
// CHECK-NEXT:  %[[H:[a-zA-Z0-9_]+]] = tile.constant -inf : !tile.tile<4x4xbf16>
// CHECK-NEXT:  %[[K:[a-zA-Z0-9_]+]] = tile.constant 2.0 : !tile.tile<4x4xf32>
// CHECK-NEXT:  %[[L:[a-zA-Z0-9_]+]] = tile.constant 1.0 {tag} : !tile.tile<4x4xf32, valid = 2x3>
// CHECK-NEXT:  return %[[A]], %[[B]], %[[C]], %[[D]], %[[E]], %[[F]], %[[G]], %[[H]], %[[K]], %[[L]] : !tile.tile<4x4xf32>, !tile.tile<4x4xf32>, !tile.tile<4x4xf32>, !tile.tile<4x4xf16>, !tile.tile<4x4xbf16>, !tile.tile<4x4xf32>, !tile.tile<4x4xf16>, !tile.tile<4x4xbf16>, !tile.tile<4x4xf32>, !tile.tile<4x4xf32, valid = 2x3>
func.func @constant_float() -> (!tile.tile<4x4xf32>, !tile.tile<4x4xf32>, !tile.tile<4x4xf32>, !tile.tile<4x4xf16>, !tile.tile<4x4xbf16>, !tile.tile<4x4xf32>, !tile.tile<4x4xf16>, !tile.tile<4x4xbf16>, !tile.tile<4x4xf32>, !tile.tile<4x4xf32, valid = 2x3>) {
  %a = tile.constant 0.0 : !tile.tile<4x4xf32>
  %b = tile.constant -0.0 : !tile.tile<4x4xf32>
  %c = tile.constant -1.5 : !tile.tile<4x4xf32>
  %d = tile.constant 6.5504e4 : !tile.tile<4x4xf16>
  %e = tile.constant 3.0e38 : !tile.tile<4x4xbf16>
  %f = tile.constant nan : !tile.tile<4x4xf32>
  %g = tile.constant inf : !tile.tile<4x4xf16>
  %h = tile.constant -inf : !tile.tile<4x4xbf16>
  %k = tile.constant 2 : !tile.tile<4x4xf32>
  %l = tile.constant 1.0 {tag} : !tile.tile<4x4xf32, valid = 2x3>
  return %a, %b, %c, %d, %e, %f, %g, %h, %k, %l : !tile.tile<4x4xf32>, !tile.tile<4x4xf32>, !tile.tile<4x4xf32>, !tile.tile<4x4xf16>, !tile.tile<4x4xbf16>, !tile.tile<4x4xf32>, !tile.tile<4x4xf16>, !tile.tile<4x4xbf16>, !tile.tile<4x4xf32>, !tile.tile<4x4xf32, valid = 2x3>
}

// CHECK-LABEL: func.func @constant_int(
// CHECK-SAME:  ) -> (!tile.tile<4x4xi64>, !tile.tile<4x4xi64>, !tile.tile<4x4xi32>, !tile.tile<4x4xi16>, !tile.tile<4x4xi8>, !tile.tile<4x4xi8>, !tile.tile<4x4xi8>, !tile.tile<4x4xi1>, !tile.tile<4x4xi1>, !tile.tile<4x4xi1>) {
// CHECK-NEXT:  %[[A:[a-zA-Z0-9_]+]] = tile.constant 9223372036854775807 : !tile.tile<4x4xi64>
// CHECK-NEXT:  %[[B:[a-zA-Z0-9_]+]] = tile.constant -9223372036854775808 : !tile.tile<4x4xi64>
// CHECK-NEXT:  %[[C:[a-zA-Z0-9_]+]] = tile.constant -7 : !tile.tile<4x4xi32>
// CHECK-NEXT:  %[[D:[a-zA-Z0-9_]+]] = tile.constant 32767 : !tile.tile<4x4xi16>
// CHECK-NEXT:  %[[E:[a-zA-Z0-9_]+]] = tile.constant -128 : !tile.tile<4x4xi8>
// CHECK-NEXT:  %[[F:[a-zA-Z0-9_]+]] = tile.constant 0 : !tile.tile<4x4xi8>
// CHECK-NEXT:  %[[G:[a-zA-Z0-9_]+]] = tile.constant -1 : !tile.tile<4x4xi8>
// CHECK-NEXT:  %[[H:[a-zA-Z0-9_]+]] = tile.constant true : !tile.tile<4x4xi1>
// CHECK-NEXT:  %[[K:[a-zA-Z0-9_]+]] = tile.constant false : !tile.tile<4x4xi1>
// CHECK-NEXT:  %[[L:[a-zA-Z0-9_]+]] = tile.constant true : !tile.tile<4x4xi1>
// CHECK-NEXT:  return %[[A]], %[[B]], %[[C]], %[[D]], %[[E]], %[[F]], %[[G]], %[[H]], %[[K]], %[[L]] : !tile.tile<4x4xi64>, !tile.tile<4x4xi64>, !tile.tile<4x4xi32>, !tile.tile<4x4xi16>, !tile.tile<4x4xi8>, !tile.tile<4x4xi8>, !tile.tile<4x4xi8>, !tile.tile<4x4xi1>, !tile.tile<4x4xi1>, !tile.tile<4x4xi1>
func.func @constant_int() -> (!tile.tile<4x4xi64>, !tile.tile<4x4xi64>, !tile.tile<4x4xi32>, !tile.tile<4x4xi16>, !tile.tile<4x4xi8>, !tile.tile<4x4xi8>, !tile.tile<4x4xi8>, !tile.tile<4x4xi1>, !tile.tile<4x4xi1>, !tile.tile<4x4xi1>) {
  %a = tile.constant 9223372036854775807 : !tile.tile<4x4xi64>
  %b = tile.constant -9223372036854775808 : !tile.tile<4x4xi64>
  %c = tile.constant -7 : !tile.tile<4x4xi32>
  %d = tile.constant 32767 : !tile.tile<4x4xi16>
  %e = tile.constant -128 : !tile.tile<4x4xi8>
  %f = tile.constant 0 : !tile.tile<4x4xi8>
  // An unsigned spelling of the bit pattern is accepted and prints signed.
  %g = tile.constant 255 : !tile.tile<4x4xi8>
  %h = tile.constant true : !tile.tile<4x4xi1>
  %k = tile.constant false : !tile.tile<4x4xi1>
  %l = tile.constant 1 : !tile.tile<4x4xi1>
  return %a, %b, %c, %d, %e, %f, %g, %h, %k, %l : !tile.tile<4x4xi64>, !tile.tile<4x4xi64>, !tile.tile<4x4xi32>, !tile.tile<4x4xi16>, !tile.tile<4x4xi8>, !tile.tile<4x4xi8>, !tile.tile<4x4xi8>, !tile.tile<4x4xi1>, !tile.tile<4x4xi1>, !tile.tile<4x4xi1>
}

// CHECK-LABEL: func.func @fill(
// CHECK-SAME:    %[[F:[a-zA-Z0-9_]+]]: f32
// CHECK-SAME:    %[[H:[a-zA-Z0-9_]+]]: f16
// CHECK-SAME:    %[[B:[a-zA-Z0-9_]+]]: bf16
// CHECK-SAME:    %[[L:[a-zA-Z0-9_]+]]: i64
// CHECK-SAME:    %[[W:[a-zA-Z0-9_]+]]: i32
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: i16
// CHECK-SAME:    %[[C:[a-zA-Z0-9_]+]]: i8
// CHECK-SAME:    %[[P:[a-zA-Z0-9_]+]]: i1
// CHECK-SAME:  ) -> (!tile.tile<16x64xf32>, !tile.tile<16x64xf16, valid = 8x32>, !tile.tile<16x64xbf16>, !tile.tile<16x64xi64>, !tile.tile<16x64xi32>, !tile.tile<16x64xi16>, !tile.tile<16x64xi8>, !tile.tile<16x64xi1>) {
// CHECK-NEXT:  %[[V0:[a-zA-Z0-9_]+]] = tile.fill %[[F]] : !tile.tile<16x64xf32>
// CHECK-NEXT:  %[[V1:[a-zA-Z0-9_]+]] = tile.fill %[[H]] : !tile.tile<16x64xf16, valid = 8x32>
// CHECK-NEXT:  %[[V2:[a-zA-Z0-9_]+]] = tile.fill %[[B]] : !tile.tile<16x64xbf16>
// CHECK-NEXT:  %[[V3:[a-zA-Z0-9_]+]] = tile.fill %[[L]] : !tile.tile<16x64xi64>
// CHECK-NEXT:  %[[V4:[a-zA-Z0-9_]+]] = tile.fill %[[W]] : !tile.tile<16x64xi32>
// CHECK-NEXT:  %[[V5:[a-zA-Z0-9_]+]] = tile.fill %[[S]] : !tile.tile<16x64xi16>
// CHECK-NEXT:  %[[V6:[a-zA-Z0-9_]+]] = tile.fill %[[C]] : !tile.tile<16x64xi8>
// CHECK-NEXT:  %[[V7:[a-zA-Z0-9_]+]] = tile.fill %[[P]] {tag} : !tile.tile<16x64xi1>
// CHECK-NEXT:  return %[[V0]], %[[V1]], %[[V2]], %[[V3]], %[[V4]], %[[V5]], %[[V6]], %[[V7]] : !tile.tile<16x64xf32>, !tile.tile<16x64xf16, valid = 8x32>, !tile.tile<16x64xbf16>, !tile.tile<16x64xi64>, !tile.tile<16x64xi32>, !tile.tile<16x64xi16>, !tile.tile<16x64xi8>, !tile.tile<16x64xi1>
func.func @fill(%f: f32, %h: f16, %b: bf16, %l: i64, %w: i32, %s: i16, %c: i8, %p: i1) -> (!tile.tile<16x64xf32>, !tile.tile<16x64xf16, valid = 8x32>, !tile.tile<16x64xbf16>, !tile.tile<16x64xi64>, !tile.tile<16x64xi32>, !tile.tile<16x64xi16>, !tile.tile<16x64xi8>, !tile.tile<16x64xi1>) {
  %0 = tile.fill %f : !tile.tile<16x64xf32>
  %1 = tile.fill %h : !tile.tile<16x64xf16, valid = 8x32>
  %2 = tile.fill %b : !tile.tile<16x64xbf16>
  %3 = tile.fill %l : !tile.tile<16x64xi64>
  %4 = tile.fill %w : !tile.tile<16x64xi32>
  %5 = tile.fill %s : !tile.tile<16x64xi16>
  %6 = tile.fill %c : !tile.tile<16x64xi8>
  %7 = tile.fill %p {tag} : !tile.tile<16x64xi1>
  return %0, %1, %2, %3, %4, %5, %6, %7 : !tile.tile<16x64xf32>, !tile.tile<16x64xf16, valid = 8x32>, !tile.tile<16x64xbf16>, !tile.tile<16x64xi64>, !tile.tile<16x64xi32>, !tile.tile<16x64xi16>, !tile.tile<16x64xi8>, !tile.tile<16x64xi1>
}

// Largest indices that still fit: 127 rows of i8, 32767 columns of i16.
// CHECK-LABEL: func.func @iota(
// CHECK-SAME:  ) -> (!tile.tile<16x64xi32>, !tile.tile<16x64xi32>, !tile.tile<128x4xi8>, !tile.tile<1x32768xi16>, !tile.tile<16x64xi64>, !tile.tile<16x64xf32>, !tile.tile<16x64xf16, valid = 8x60>) {
// CHECK-NEXT:  %[[A:[a-zA-Z0-9_]+]] = tile.iota 0 : !tile.tile<16x64xi32>
// CHECK-NEXT:  %[[B:[a-zA-Z0-9_]+]] = tile.iota 1 : !tile.tile<16x64xi32>
// CHECK-NEXT:  %[[C:[a-zA-Z0-9_]+]] = tile.iota 0 : !tile.tile<128x4xi8>
// CHECK-NEXT:  %[[D:[a-zA-Z0-9_]+]] = tile.iota 1 : !tile.tile<1x32768xi16>
// CHECK-NEXT:  %[[E:[a-zA-Z0-9_]+]] = tile.iota 1 : !tile.tile<16x64xi64>
// CHECK-NEXT:  %[[F:[a-zA-Z0-9_]+]] = tile.iota 0 : !tile.tile<16x64xf32>
// CHECK-NEXT:  %[[G:[a-zA-Z0-9_]+]] = tile.iota 1 {tag} : !tile.tile<16x64xf16, valid = 8x60>
// CHECK-NEXT:  return %[[A]], %[[B]], %[[C]], %[[D]], %[[E]], %[[F]], %[[G]] : !tile.tile<16x64xi32>, !tile.tile<16x64xi32>, !tile.tile<128x4xi8>, !tile.tile<1x32768xi16>, !tile.tile<16x64xi64>, !tile.tile<16x64xf32>, !tile.tile<16x64xf16, valid = 8x60>
func.func @iota() -> (!tile.tile<16x64xi32>, !tile.tile<16x64xi32>, !tile.tile<128x4xi8>, !tile.tile<1x32768xi16>, !tile.tile<16x64xi64>, !tile.tile<16x64xf32>, !tile.tile<16x64xf16, valid = 8x60>) {
  %a = tile.iota 0 : !tile.tile<16x64xi32>
  %b = tile.iota 1 : !tile.tile<16x64xi32>
  %c = tile.iota 0 : !tile.tile<128x4xi8>
  %d = tile.iota 1 : !tile.tile<1x32768xi16>
  %e = tile.iota 1 : !tile.tile<16x64xi64>
  %f = tile.iota 0 : !tile.tile<16x64xf32>
  %g = tile.iota 1 {tag} : !tile.tile<16x64xf16, valid = 8x60>
  return %a, %b, %c, %d, %e, %f, %g : !tile.tile<16x64xi32>, !tile.tile<16x64xi32>, !tile.tile<128x4xi8>, !tile.tile<1x32768xi16>, !tile.tile<16x64xi64>, !tile.tile<16x64xf32>, !tile.tile<16x64xf16, valid = 8x60>
}

// Tile-tile form prints one type; tile-scalar form prints both.
// CHECK-LABEL: func.func @binary_tile(
// CHECK-SAME:    %[[A:[a-zA-Z0-9_]+]]: !tile.tile<16x64xf32>
// CHECK-SAME:    %[[B:[a-zA-Z0-9_]+]]: !tile.tile<16x64xf32>
// CHECK-SAME:  ) -> (!tile.tile<16x64xf32>, !tile.tile<16x64xf32>, !tile.tile<16x64xf32>, !tile.tile<16x64xf32>, !tile.tile<16x64xf32>, !tile.tile<16x64xf32>) {
// CHECK-NEXT:  %[[V0:[a-zA-Z0-9_]+]] = tile.add %[[A]], %[[B]] : !tile.tile<16x64xf32>
// CHECK-NEXT:  %[[V1:[a-zA-Z0-9_]+]] = tile.sub %[[A]], %[[B]] : !tile.tile<16x64xf32>
// CHECK-NEXT:  %[[V2:[a-zA-Z0-9_]+]] = tile.mul %[[A]], %[[B]] : !tile.tile<16x64xf32>
// CHECK-NEXT:  %[[V3:[a-zA-Z0-9_]+]] = tile.div %[[A]], %[[B]] : !tile.tile<16x64xf32>
// CHECK-NEXT:  %[[V4:[a-zA-Z0-9_]+]] = tile.max %[[A]], %[[B]] : !tile.tile<16x64xf32>
// CHECK-NEXT:  %[[V5:[a-zA-Z0-9_]+]] = tile.min %[[A]], %[[B]] : !tile.tile<16x64xf32>
// CHECK-NEXT:  return %[[V0]], %[[V1]], %[[V2]], %[[V3]], %[[V4]], %[[V5]] : !tile.tile<16x64xf32>, !tile.tile<16x64xf32>, !tile.tile<16x64xf32>, !tile.tile<16x64xf32>, !tile.tile<16x64xf32>, !tile.tile<16x64xf32>
func.func @binary_tile(%a: !tile.tile<16x64xf32>, %b: !tile.tile<16x64xf32>) -> (!tile.tile<16x64xf32>, !tile.tile<16x64xf32>, !tile.tile<16x64xf32>, !tile.tile<16x64xf32>, !tile.tile<16x64xf32>, !tile.tile<16x64xf32>) {
  %0 = tile.add %a, %b : !tile.tile<16x64xf32>
  %1 = tile.sub %a, %b : !tile.tile<16x64xf32>
  %2 = tile.mul %a, %b : !tile.tile<16x64xf32>
  %3 = tile.div %a, %b : !tile.tile<16x64xf32>
  %4 = tile.max %a, %b : !tile.tile<16x64xf32>
  // Spelling out the rhs tile type is accepted; it prints in the short form.
  %5 = tile.min %a, %b : !tile.tile<16x64xf32>, !tile.tile<16x64xf32>
  return %0, %1, %2, %3, %4, %5 : !tile.tile<16x64xf32>, !tile.tile<16x64xf32>, !tile.tile<16x64xf32>, !tile.tile<16x64xf32>, !tile.tile<16x64xf32>, !tile.tile<16x64xf32>
}

// CHECK-LABEL: func.func @binary_scalar(
// CHECK-SAME:    %[[A:[a-zA-Z0-9_]+]]: !tile.tile<16x64xf16>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: f16
// CHECK-SAME:  ) -> (!tile.tile<16x64xf16>, !tile.tile<16x64xf16>, !tile.tile<16x64xf16>, !tile.tile<16x64xf16>, !tile.tile<16x64xf16>, !tile.tile<16x64xf16>) {
// CHECK-NEXT:  %[[V0:[a-zA-Z0-9_]+]] = tile.add %[[A]], %[[S]] : !tile.tile<16x64xf16>, f16
// CHECK-NEXT:  %[[V1:[a-zA-Z0-9_]+]] = tile.sub %[[A]], %[[S]] : !tile.tile<16x64xf16>, f16
// CHECK-NEXT:  %[[V2:[a-zA-Z0-9_]+]] = tile.mul %[[A]], %[[S]] : !tile.tile<16x64xf16>, f16
// CHECK-NEXT:  %[[V3:[a-zA-Z0-9_]+]] = tile.div %[[A]], %[[S]] : !tile.tile<16x64xf16>, f16
// CHECK-NEXT:  %[[V4:[a-zA-Z0-9_]+]] = tile.max %[[A]], %[[S]] : !tile.tile<16x64xf16>, f16
// CHECK-NEXT:  %[[V5:[a-zA-Z0-9_]+]] = tile.min %[[A]], %[[S]] {tag} : !tile.tile<16x64xf16>, f16
// CHECK-NEXT:  return %[[V0]], %[[V1]], %[[V2]], %[[V3]], %[[V4]], %[[V5]] : !tile.tile<16x64xf16>, !tile.tile<16x64xf16>, !tile.tile<16x64xf16>, !tile.tile<16x64xf16>, !tile.tile<16x64xf16>, !tile.tile<16x64xf16>
func.func @binary_scalar(%a: !tile.tile<16x64xf16>, %s: f16) -> (!tile.tile<16x64xf16>, !tile.tile<16x64xf16>, !tile.tile<16x64xf16>, !tile.tile<16x64xf16>, !tile.tile<16x64xf16>, !tile.tile<16x64xf16>) {
  %0 = tile.add %a, %s : !tile.tile<16x64xf16>, f16
  %1 = tile.sub %a, %s : !tile.tile<16x64xf16>, f16
  %2 = tile.mul %a, %s : !tile.tile<16x64xf16>, f16
  %3 = tile.div %a, %s : !tile.tile<16x64xf16>, f16
  %4 = tile.max %a, %s : !tile.tile<16x64xf16>, f16
  %5 = tile.min %a, %s {tag} : !tile.tile<16x64xf16>, f16
  return %0, %1, %2, %3, %4, %5 : !tile.tile<16x64xf16>, !tile.tile<16x64xf16>, !tile.tile<16x64xf16>, !tile.tile<16x64xf16>, !tile.tile<16x64xf16>, !tile.tile<16x64xf16>
}

// Every numeric element type, with and without valid regions.
// CHECK-LABEL: func.func @binary_types(
// CHECK-SAME:    %[[BF:[a-zA-Z0-9_]+]]: !tile.tile<8x8xbf16, valid = ?x4>
// CHECK-SAME:    %[[SBF:[a-zA-Z0-9_]+]]: bf16
// CHECK-SAME:    %[[L:[a-zA-Z0-9_]+]]: !tile.tile<8x8xi64>
// CHECK-SAME:    %[[SL:[a-zA-Z0-9_]+]]: i64
// CHECK-SAME:    %[[W:[a-zA-Z0-9_]+]]: !tile.tile<8x8xi32>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: !tile.tile<8x8xi16>
// CHECK-SAME:    %[[SS:[a-zA-Z0-9_]+]]: i16
// CHECK-SAME:    %[[C:[a-zA-Z0-9_]+]]: !tile.tile<8x8xi8, valid = 2x2>
// CHECK-SAME:    %[[SC:[a-zA-Z0-9_]+]]: i8
// CHECK-SAME:  ) -> (!tile.tile<8x8xbf16, valid = ?x4>, !tile.tile<8x8xi64>, !tile.tile<8x8xi32>, !tile.tile<8x8xi16>, !tile.tile<8x8xi8, valid = 2x2>, !tile.tile<8x8xi8, valid = 2x2>) {
// CHECK-NEXT:  %[[V0:[a-zA-Z0-9_]+]] = tile.add %[[BF]], %[[SBF]] : !tile.tile<8x8xbf16, valid = ?x4>, bf16
// CHECK-NEXT:  %[[V1:[a-zA-Z0-9_]+]] = tile.div %[[L]], %[[SL]] : !tile.tile<8x8xi64>, i64
// CHECK-NEXT:  %[[V2:[a-zA-Z0-9_]+]] = tile.mul %[[W]], %[[W]] : !tile.tile<8x8xi32>
// CHECK-NEXT:  %[[V3:[a-zA-Z0-9_]+]] = tile.sub %[[S]], %[[SS]] : !tile.tile<8x8xi16>, i16
// CHECK-NEXT:  %[[V4:[a-zA-Z0-9_]+]] = tile.max %[[C]], %[[SC]] : !tile.tile<8x8xi8, valid = 2x2>, i8
// CHECK-NEXT:  %[[V5:[a-zA-Z0-9_]+]] = tile.min %[[C]], %[[C]] : !tile.tile<8x8xi8, valid = 2x2>
// CHECK-NEXT:  return %[[V0]], %[[V1]], %[[V2]], %[[V3]], %[[V4]], %[[V5]] : !tile.tile<8x8xbf16, valid = ?x4>, !tile.tile<8x8xi64>, !tile.tile<8x8xi32>, !tile.tile<8x8xi16>, !tile.tile<8x8xi8, valid = 2x2>, !tile.tile<8x8xi8, valid = 2x2>
func.func @binary_types(%bf: !tile.tile<8x8xbf16, valid = ?x4>, %sbf: bf16, %l: !tile.tile<8x8xi64>, %sl: i64, %w: !tile.tile<8x8xi32>, %s: !tile.tile<8x8xi16>, %ss: i16, %c: !tile.tile<8x8xi8, valid = 2x2>, %sc: i8) -> (!tile.tile<8x8xbf16, valid = ?x4>, !tile.tile<8x8xi64>, !tile.tile<8x8xi32>, !tile.tile<8x8xi16>, !tile.tile<8x8xi8, valid = 2x2>, !tile.tile<8x8xi8, valid = 2x2>) {
  %0 = tile.add %bf, %sbf : !tile.tile<8x8xbf16, valid = ?x4>, bf16
  %1 = tile.div %l, %sl : !tile.tile<8x8xi64>, i64
  %2 = tile.mul %w, %w : !tile.tile<8x8xi32>
  %3 = tile.sub %s, %ss : !tile.tile<8x8xi16>, i16
  %4 = tile.max %c, %sc : !tile.tile<8x8xi8, valid = 2x2>, i8
  %5 = tile.min %c, %c : !tile.tile<8x8xi8, valid = 2x2>
  return %0, %1, %2, %3, %4, %5 : !tile.tile<8x8xbf16, valid = ?x4>, !tile.tile<8x8xi64>, !tile.tile<8x8xi32>, !tile.tile<8x8xi16>, !tile.tile<8x8xi8, valid = 2x2>, !tile.tile<8x8xi8, valid = 2x2>
}

// CHECK-LABEL: func.func @unary(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: !tile.tile<16x64xf32>
// CHECK-SAME:    %[[H:[a-zA-Z0-9_]+]]: !tile.tile<16x64xf16, valid = ?x?>
// CHECK-SAME:    %[[B:[a-zA-Z0-9_]+]]: !tile.tile<16x64xbf16>
// CHECK-SAME:  ) -> (!tile.tile<16x64xf32>, !tile.tile<16x64xf32>, !tile.tile<16x64xf32>, !tile.tile<16x64xf16, valid = ?x?>, !tile.tile<16x64xbf16>, !tile.tile<16x64xf32>, !tile.tile<16x64xf32>, !tile.tile<16x64xf32>) {
// CHECK-NEXT:  %[[V0:[a-zA-Z0-9_]+]] = tile.exp %[[X]] : !tile.tile<16x64xf32>
// CHECK-NEXT:  %[[V1:[a-zA-Z0-9_]+]] = tile.log %[[X]] : !tile.tile<16x64xf32>
// CHECK-NEXT:  %[[V2:[a-zA-Z0-9_]+]] = tile.sqrt %[[X]] : !tile.tile<16x64xf32>
// CHECK-NEXT:  %[[V3:[a-zA-Z0-9_]+]] = tile.rsqrt %[[H]] : !tile.tile<16x64xf16, valid = ?x?>
// CHECK-NEXT:  %[[V4:[a-zA-Z0-9_]+]] = tile.recip %[[B]] : !tile.tile<16x64xbf16>
// CHECK-NEXT:  %[[V5:[a-zA-Z0-9_]+]] = tile.abs %[[X]] : !tile.tile<16x64xf32>
// CHECK-NEXT:  %[[V6:[a-zA-Z0-9_]+]] = tile.neg %[[X]] : !tile.tile<16x64xf32>
// CHECK-NEXT:  %[[V7:[a-zA-Z0-9_]+]] = tile.relu %[[X]] {tag} : !tile.tile<16x64xf32>
// CHECK-NEXT:  return %[[V0]], %[[V1]], %[[V2]], %[[V3]], %[[V4]], %[[V5]], %[[V6]], %[[V7]] : !tile.tile<16x64xf32>, !tile.tile<16x64xf32>, !tile.tile<16x64xf32>, !tile.tile<16x64xf16, valid = ?x?>, !tile.tile<16x64xbf16>, !tile.tile<16x64xf32>, !tile.tile<16x64xf32>, !tile.tile<16x64xf32>
func.func @unary(%x: !tile.tile<16x64xf32>, %h: !tile.tile<16x64xf16, valid = ?x?>, %b: !tile.tile<16x64xbf16>) -> (!tile.tile<16x64xf32>, !tile.tile<16x64xf32>, !tile.tile<16x64xf32>, !tile.tile<16x64xf16, valid = ?x?>, !tile.tile<16x64xbf16>, !tile.tile<16x64xf32>, !tile.tile<16x64xf32>, !tile.tile<16x64xf32>) {
  %0 = tile.exp %x : !tile.tile<16x64xf32>
  %1 = tile.log %x : !tile.tile<16x64xf32>
  %2 = tile.sqrt %x : !tile.tile<16x64xf32>
  %3 = tile.rsqrt %h : !tile.tile<16x64xf16, valid = ?x?>
  %4 = tile.recip %b : !tile.tile<16x64xbf16>
  %5 = tile.abs %x : !tile.tile<16x64xf32>
  %6 = tile.neg %x : !tile.tile<16x64xf32>
  %7 = tile.relu %x {tag} : !tile.tile<16x64xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : !tile.tile<16x64xf32>, !tile.tile<16x64xf32>, !tile.tile<16x64xf32>, !tile.tile<16x64xf16, valid = ?x?>, !tile.tile<16x64xbf16>, !tile.tile<16x64xf32>, !tile.tile<16x64xf32>, !tile.tile<16x64xf32>
}

// abs, neg and relu also take (signed) integers.
// CHECK-LABEL: func.func @unary_int(
// CHECK-SAME:    %[[W:[a-zA-Z0-9_]+]]: !tile.tile<16x64xi32>
// CHECK-SAME:    %[[C:[a-zA-Z0-9_]+]]: !tile.tile<16x64xi8, valid = 4x?>
// CHECK-SAME:    %[[L:[a-zA-Z0-9_]+]]: !tile.tile<16x64xi64>
// CHECK-SAME:  ) -> (!tile.tile<16x64xi32>, !tile.tile<16x64xi8, valid = 4x?>, !tile.tile<16x64xi64>) {
// CHECK-NEXT:  %[[V0:[a-zA-Z0-9_]+]] = tile.abs %[[W]] : !tile.tile<16x64xi32>
// CHECK-NEXT:  %[[V1:[a-zA-Z0-9_]+]] = tile.neg %[[C]] : !tile.tile<16x64xi8, valid = 4x?>
// CHECK-NEXT:  %[[V2:[a-zA-Z0-9_]+]] = tile.relu %[[L]] : !tile.tile<16x64xi64>
// CHECK-NEXT:  return %[[V0]], %[[V1]], %[[V2]] : !tile.tile<16x64xi32>, !tile.tile<16x64xi8, valid = 4x?>, !tile.tile<16x64xi64>
func.func @unary_int(%w: !tile.tile<16x64xi32>, %c: !tile.tile<16x64xi8, valid = 4x?>, %l: !tile.tile<16x64xi64>) -> (!tile.tile<16x64xi32>, !tile.tile<16x64xi8, valid = 4x?>, !tile.tile<16x64xi64>) {
  %0 = tile.abs %w : !tile.tile<16x64xi32>
  %1 = tile.neg %c : !tile.tile<16x64xi8, valid = 4x?>
  %2 = tile.relu %l : !tile.tile<16x64xi64>
  return %0, %1, %2 : !tile.tile<16x64xi32>, !tile.tile<16x64xi8, valid = 4x?>, !tile.tile<16x64xi64>
}

// CHECK-LABEL: func.func @row_reduce(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: !tile.tile<16x64xf32>
// CHECK-SAME:    %[[V:[a-zA-Z0-9_]+]]: !tile.tile<16x64xf16, valid = ?x32>
// CHECK-SAME:    %[[W:[a-zA-Z0-9_]+]]: !tile.tile<16x64xi32, valid = 8x?>
// CHECK-SAME:  ) -> (!tile.tile<16x1xf32>, !tile.tile<16x1xf16, valid = ?x1>, !tile.tile<16x1xi32, valid = 8x1>) {
// CHECK-NEXT:  %[[V0:[a-zA-Z0-9_]+]] = tile.row_reduce sum %[[X]] : !tile.tile<16x64xf32> -> !tile.tile<16x1xf32>
// CHECK-NEXT:  %[[V1:[a-zA-Z0-9_]+]] = tile.row_reduce max %[[V]] : !tile.tile<16x64xf16, valid = ?x32> -> !tile.tile<16x1xf16, valid = ?x1>
// CHECK-NEXT:  %[[V2:[a-zA-Z0-9_]+]] = tile.row_reduce min %[[W]] : !tile.tile<16x64xi32, valid = 8x?> -> !tile.tile<16x1xi32, valid = 8x1>
// CHECK-NEXT:  return %[[V0]], %[[V1]], %[[V2]] : !tile.tile<16x1xf32>, !tile.tile<16x1xf16, valid = ?x1>, !tile.tile<16x1xi32, valid = 8x1>
func.func @row_reduce(%x: !tile.tile<16x64xf32>, %v: !tile.tile<16x64xf16, valid = ?x32>, %w: !tile.tile<16x64xi32, valid = 8x?>) -> (!tile.tile<16x1xf32>, !tile.tile<16x1xf16, valid = ?x1>, !tile.tile<16x1xi32, valid = 8x1>) {
  %0 = tile.row_reduce sum %x : !tile.tile<16x64xf32> -> !tile.tile<16x1xf32>
  %1 = tile.row_reduce max %v : !tile.tile<16x64xf16, valid = ?x32> -> !tile.tile<16x1xf16, valid = ?x1>
  %2 = tile.row_reduce min %w : !tile.tile<16x64xi32, valid = 8x?> -> !tile.tile<16x1xi32, valid = 8x1>
  return %0, %1, %2 : !tile.tile<16x1xf32>, !tile.tile<16x1xf16, valid = ?x1>, !tile.tile<16x1xi32, valid = 8x1>
}

// A reduced dimension is fully valid, so the valid region may vanish.
// CHECK-LABEL: func.func @col_reduce(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: !tile.tile<16x64xbf16>
// CHECK-SAME:    %[[V:[a-zA-Z0-9_]+]]: !tile.tile<16x64xf32, valid = ?x32>
// CHECK-SAME:    %[[W:[a-zA-Z0-9_]+]]: !tile.tile<16x64xi8, valid = ?x64>
// CHECK-SAME:  ) -> (!tile.tile<1x64xbf16>, !tile.tile<1x64xf32, valid = 1x32>, !tile.tile<1x64xi8>) {
// CHECK-NEXT:  %[[V0:[a-zA-Z0-9_]+]] = tile.col_reduce sum %[[X]] : !tile.tile<16x64xbf16> -> !tile.tile<1x64xbf16>
// CHECK-NEXT:  %[[V1:[a-zA-Z0-9_]+]] = tile.col_reduce max %[[V]] : !tile.tile<16x64xf32, valid = ?x32> -> !tile.tile<1x64xf32, valid = 1x32>
// CHECK-NEXT:  %[[V2:[a-zA-Z0-9_]+]] = tile.col_reduce min %[[W]] {tag} : !tile.tile<16x64xi8, valid = ?x64> -> !tile.tile<1x64xi8>
// CHECK-NEXT:  return %[[V0]], %[[V1]], %[[V2]] : !tile.tile<1x64xbf16>, !tile.tile<1x64xf32, valid = 1x32>, !tile.tile<1x64xi8>
func.func @col_reduce(%x: !tile.tile<16x64xbf16>, %v: !tile.tile<16x64xf32, valid = ?x32>, %w: !tile.tile<16x64xi8, valid = ?x64>) -> (!tile.tile<1x64xbf16>, !tile.tile<1x64xf32, valid = 1x32>, !tile.tile<1x64xi8>) {
  %0 = tile.col_reduce sum %x : !tile.tile<16x64xbf16> -> !tile.tile<1x64xbf16>
  %1 = tile.col_reduce max %v : !tile.tile<16x64xf32, valid = ?x32> -> !tile.tile<1x64xf32, valid = 1x32>
  %2 = tile.col_reduce min %w {tag} : !tile.tile<16x64xi8, valid = ?x64> -> !tile.tile<1x64xi8>
  return %0, %1, %2 : !tile.tile<1x64xbf16>, !tile.tile<1x64xf32, valid = 1x32>, !tile.tile<1x64xi8>
}

// Selection: the column of each row's max/min (i32, the input's valid rows).
// CHECK-LABEL: func.func @row_arg_reduce(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: !tile.tile<16x64xf32>
// CHECK-SAME:    %[[V:[a-zA-Z0-9_]+]]: !tile.tile<16x64xi16, valid = ?x?>
// CHECK-NEXT:  %[[A:[a-zA-Z0-9_]+]] = tile.row_arg_reduce max %[[X]] : !tile.tile<16x64xf32> -> !tile.tile<16x1xi32>
// CHECK-NEXT:  %[[B:[a-zA-Z0-9_]+]] = tile.row_arg_reduce min %[[V]] : !tile.tile<16x64xi16, valid = ?x?> -> !tile.tile<16x1xi32, valid = ?x1>
// CHECK-NEXT:  return %[[A]], %[[B]]
func.func @row_arg_reduce(%x: !tile.tile<16x64xf32>, %v: !tile.tile<16x64xi16, valid = ?x?>) -> (!tile.tile<16x1xi32>, !tile.tile<16x1xi32, valid = ?x1>) {
  %0 = tile.row_arg_reduce max %x : !tile.tile<16x64xf32> -> !tile.tile<16x1xi32>
  %1 = tile.row_arg_reduce min %v : !tile.tile<16x64xi16, valid = ?x?> -> !tile.tile<16x1xi32, valid = ?x1>
  return %0, %1 : !tile.tile<16x1xi32>, !tile.tile<16x1xi32, valid = ?x1>
}

// A full ascending sort, and the top 8 of ragged rows.
// CHECK-LABEL: func.func @sort(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: !tile.tile<16x64xf16>
// CHECK-SAME:    %[[V:[a-zA-Z0-9_]+]]: !tile.tile<16x64xi32, valid = ?x64>
// CHECK-NEXT:  %[[AV:[a-zA-Z0-9_]+]], %[[AI:[a-zA-Z0-9_]+]] = tile.sort %[[X]] : !tile.tile<16x64xf16> -> !tile.tile<16x64xf16>, !tile.tile<16x64xi32>
// CHECK-NEXT:  %[[BV:[a-zA-Z0-9_]+]], %[[BI:[a-zA-Z0-9_]+]] = tile.sort %[[V]] descending : !tile.tile<16x64xi32, valid = ?x64> -> !tile.tile<16x8xi32, valid = ?x8>, !tile.tile<16x8xi32, valid = ?x8>
// CHECK-NEXT:  return %[[AV]], %[[AI]], %[[BV]], %[[BI]]
func.func @sort(%x: !tile.tile<16x64xf16>, %v: !tile.tile<16x64xi32, valid = ?x64>) -> (!tile.tile<16x64xf16>, !tile.tile<16x64xi32>, !tile.tile<16x8xi32, valid = ?x8>, !tile.tile<16x8xi32, valid = ?x8>) {
  %a:2 = tile.sort %x : !tile.tile<16x64xf16> -> !tile.tile<16x64xf16>, !tile.tile<16x64xi32>
  %b:2 = tile.sort %v descending : !tile.tile<16x64xi32, valid = ?x64> -> !tile.tile<16x8xi32, valid = ?x8>, !tile.tile<16x8xi32, valid = ?x8>
  return %a#0, %a#1, %b#0, %b#1 : !tile.tile<16x64xf16>, !tile.tile<16x64xi32>, !tile.tile<16x8xi32, valid = ?x8>, !tile.tile<16x8xi32, valid = ?x8>
}

// CHECK-LABEL: func.func @take(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: !tile.tile<16x64xbf16, valid = ?x40>
// CHECK-SAME:    %[[I:[a-zA-Z0-9_]+]]: !tile.tile<16x8xi64, valid = ?x8>
// CHECK-NEXT:  %[[A:[a-zA-Z0-9_]+]] = tile.take %[[X]][%[[I]]] : !tile.tile<16x64xbf16, valid = ?x40>, !tile.tile<16x8xi64, valid = ?x8> -> !tile.tile<16x8xbf16, valid = ?x8>
// CHECK-NEXT:  return %[[A]]
func.func @take(%x: !tile.tile<16x64xbf16, valid = ?x40>, %i: !tile.tile<16x8xi64, valid = ?x8>) -> !tile.tile<16x8xbf16, valid = ?x8> {
  %0 = tile.take %x[%i] : !tile.tile<16x64xbf16, valid = ?x40>, !tile.tile<16x8xi64, valid = ?x8> -> !tile.tile<16x8xbf16, valid = ?x8>
  return %0 : !tile.tile<16x8xbf16, valid = ?x8>
}

// A put keeps the input's type; the values have the indices' shape and
// valid region.
// CHECK-LABEL: func.func @put(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: !tile.tile<16x64xbf16, valid = ?x40>
// CHECK-SAME:    %[[I:[a-zA-Z0-9_]+]]: !tile.tile<16x8xi64, valid = ?x8>
// CHECK-SAME:    %[[V:[a-zA-Z0-9_]+]]: !tile.tile<16x8xbf16, valid = ?x8>
// CHECK-SAME:    %[[Y:[a-zA-Z0-9_]+]]: !tile.tile<4x1xi8>
// CHECK-SAME:    %[[J:[a-zA-Z0-9_]+]]: !tile.tile<4x3xi32>
// CHECK-SAME:    %[[W:[a-zA-Z0-9_]+]]: !tile.tile<4x3xi8>
// CHECK-NEXT:  %[[A:[a-zA-Z0-9_]+]] = tile.put %[[X]][%[[I]]], %[[V]] : !tile.tile<16x64xbf16, valid = ?x40>, !tile.tile<16x8xi64, valid = ?x8>, !tile.tile<16x8xbf16, valid = ?x8> -> !tile.tile<16x64xbf16, valid = ?x40>
// CHECK-NEXT:  %[[B:[a-zA-Z0-9_]+]] = tile.put %[[Y]][%[[J]]], %[[W]] : !tile.tile<4x1xi8>, !tile.tile<4x3xi32>, !tile.tile<4x3xi8> -> !tile.tile<4x1xi8>
// CHECK-NEXT:  return %[[A]], %[[B]]
func.func @put(%x: !tile.tile<16x64xbf16, valid = ?x40>, %i: !tile.tile<16x8xi64, valid = ?x8>, %v: !tile.tile<16x8xbf16, valid = ?x8>, %y: !tile.tile<4x1xi8>, %j: !tile.tile<4x3xi32>, %w: !tile.tile<4x3xi8>) -> (!tile.tile<16x64xbf16, valid = ?x40>, !tile.tile<4x1xi8>) {
  %0 = tile.put %x[%i], %v : !tile.tile<16x64xbf16, valid = ?x40>, !tile.tile<16x8xi64, valid = ?x8>, !tile.tile<16x8xbf16, valid = ?x8> -> !tile.tile<16x64xbf16, valid = ?x40>
  %1 = tile.put %y[%j], %w : !tile.tile<4x1xi8>, !tile.tile<4x3xi32>, !tile.tile<4x3xi8> -> !tile.tile<4x1xi8>
  return %0, %1 : !tile.tile<16x64xbf16, valid = ?x40>, !tile.tile<4x1xi8>
}

// CHECK-LABEL: func.func @broadcast(
// CHECK-SAME:    %[[R:[a-zA-Z0-9_]+]]: !tile.tile<16x1xf32>
// CHECK-SAME:    %[[C:[a-zA-Z0-9_]+]]: !tile.tile<1x64xi32, valid = 1x?>
// CHECK-SAME:    %[[V:[a-zA-Z0-9_]+]]: !tile.tile<16x1xf16, valid = ?x1>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: !tile.tile<1x1xi1>
// CHECK-SAME:  ) -> (!tile.tile<16x64xf32>, !tile.tile<16x64xi32, valid = 16x?>, !tile.tile<16x64xf16, valid = ?x64>, !tile.tile<8x8xi1>, !tile.tile<16x1xf32>) {
// CHECK-NEXT:  %[[V0:[a-zA-Z0-9_]+]] = tile.broadcast %[[R]] : !tile.tile<16x1xf32> -> !tile.tile<16x64xf32>
// CHECK-NEXT:  %[[V1:[a-zA-Z0-9_]+]] = tile.broadcast %[[C]] : !tile.tile<1x64xi32, valid = 1x?> -> !tile.tile<16x64xi32, valid = 16x?>
// CHECK-NEXT:  %[[V2:[a-zA-Z0-9_]+]] = tile.broadcast %[[V]] : !tile.tile<16x1xf16, valid = ?x1> -> !tile.tile<16x64xf16, valid = ?x64>
// CHECK-NEXT:  %[[V3:[a-zA-Z0-9_]+]] = tile.broadcast %[[S]] : !tile.tile<1x1xi1> -> !tile.tile<8x8xi1>
// CHECK-NEXT:  %[[V4:[a-zA-Z0-9_]+]] = tile.broadcast %[[R]] {tag} : !tile.tile<16x1xf32> -> !tile.tile<16x1xf32>
// CHECK-NEXT:  return %[[V0]], %[[V1]], %[[V2]], %[[V3]], %[[V4]] : !tile.tile<16x64xf32>, !tile.tile<16x64xi32, valid = 16x?>, !tile.tile<16x64xf16, valid = ?x64>, !tile.tile<8x8xi1>, !tile.tile<16x1xf32>
func.func @broadcast(%r: !tile.tile<16x1xf32>, %c: !tile.tile<1x64xi32, valid = 1x?>, %v: !tile.tile<16x1xf16, valid = ?x1>, %s: !tile.tile<1x1xi1>) -> (!tile.tile<16x64xf32>, !tile.tile<16x64xi32, valid = 16x?>, !tile.tile<16x64xf16, valid = ?x64>, !tile.tile<8x8xi1>, !tile.tile<16x1xf32>) {
  %0 = tile.broadcast %r : !tile.tile<16x1xf32> -> !tile.tile<16x64xf32>
  %1 = tile.broadcast %c : !tile.tile<1x64xi32, valid = 1x?> -> !tile.tile<16x64xi32, valid = 16x?>
  %2 = tile.broadcast %v : !tile.tile<16x1xf16, valid = ?x1> -> !tile.tile<16x64xf16, valid = ?x64>
  %3 = tile.broadcast %s : !tile.tile<1x1xi1> -> !tile.tile<8x8xi1>
  // Broadcasting to the same shape is allowed (and folds away).
  %4 = tile.broadcast %r {tag} : !tile.tile<16x1xf32> -> !tile.tile<16x1xf32>
  return %0, %1, %2, %3, %4 : !tile.tile<16x64xf32>, !tile.tile<16x64xi32, valid = 16x?>, !tile.tile<16x64xf16, valid = ?x64>, !tile.tile<8x8xi1>, !tile.tile<16x1xf32>
}

// Every supported (lhs x rhs -> result) combination, with and without acc.
// CHECK-LABEL: func.func @matmul(
// CHECK-SAME:    %[[AH:[a-zA-Z0-9_]+]]: !tile.tile<64x32xf16>
// CHECK-SAME:    %[[BH:[a-zA-Z0-9_]+]]: !tile.tile<32x128xf16>
// CHECK-SAME:    %[[CF:[a-zA-Z0-9_]+]]: !tile.tile<64x128xf32>
// CHECK-SAME:    %[[CH:[a-zA-Z0-9_]+]]: !tile.tile<64x128xf16>
// CHECK-SAME:    %[[AB:[a-zA-Z0-9_]+]]: !tile.tile<64x32xbf16>
// CHECK-SAME:    %[[BB:[a-zA-Z0-9_]+]]: !tile.tile<32x128xbf16>
// CHECK-SAME:    %[[AF:[a-zA-Z0-9_]+]]: !tile.tile<64x32xf32>
// CHECK-SAME:    %[[BF:[a-zA-Z0-9_]+]]: !tile.tile<32x128xf32>
// CHECK-SAME:    %[[AI:[a-zA-Z0-9_]+]]: !tile.tile<64x32xi8>
// CHECK-SAME:    %[[BI:[a-zA-Z0-9_]+]]: !tile.tile<32x128xi8>
// CHECK-SAME:    %[[CI:[a-zA-Z0-9_]+]]: !tile.tile<64x128xi32>
// CHECK-SAME:  ) -> (!tile.tile<64x128xf32>, !tile.tile<64x128xf32>, !tile.tile<64x128xf16>, !tile.tile<64x128xf16>, !tile.tile<64x128xf32>, !tile.tile<64x128xf32>, !tile.tile<64x128xf32>, !tile.tile<64x128xf32>, !tile.tile<64x128xi32>, !tile.tile<64x128xi32>) {
// CHECK-NEXT:  %[[V0:[a-zA-Z0-9_]+]] = tile.matmul %[[AH]], %[[BH]] : !tile.tile<64x32xf16>, !tile.tile<32x128xf16> -> !tile.tile<64x128xf32>
// CHECK-NEXT:  %[[V1:[a-zA-Z0-9_]+]] = tile.matmul %[[AH]], %[[BH]], %[[CF]] : !tile.tile<64x32xf16>, !tile.tile<32x128xf16> -> !tile.tile<64x128xf32>
// CHECK-NEXT:  %[[V2:[a-zA-Z0-9_]+]] = tile.matmul %[[AH]], %[[BH]] : !tile.tile<64x32xf16>, !tile.tile<32x128xf16> -> !tile.tile<64x128xf16>
// CHECK-NEXT:  %[[V3:[a-zA-Z0-9_]+]] = tile.matmul %[[AH]], %[[BH]], %[[CH]] : !tile.tile<64x32xf16>, !tile.tile<32x128xf16> -> !tile.tile<64x128xf16>
// CHECK-NEXT:  %[[V4:[a-zA-Z0-9_]+]] = tile.matmul %[[AB]], %[[BB]] : !tile.tile<64x32xbf16>, !tile.tile<32x128xbf16> -> !tile.tile<64x128xf32>
// CHECK-NEXT:  %[[V5:[a-zA-Z0-9_]+]] = tile.matmul %[[AB]], %[[BB]], %[[CF]] : !tile.tile<64x32xbf16>, !tile.tile<32x128xbf16> -> !tile.tile<64x128xf32>
// CHECK-NEXT:  %[[V6:[a-zA-Z0-9_]+]] = tile.matmul %[[AF]], %[[BF]] : !tile.tile<64x32xf32>, !tile.tile<32x128xf32> -> !tile.tile<64x128xf32>
// CHECK-NEXT:  %[[V7:[a-zA-Z0-9_]+]] = tile.matmul %[[AF]], %[[BF]], %[[CF]] : !tile.tile<64x32xf32>, !tile.tile<32x128xf32> -> !tile.tile<64x128xf32>
// CHECK-NEXT:  %[[V8:[a-zA-Z0-9_]+]] = tile.matmul %[[AI]], %[[BI]] : !tile.tile<64x32xi8>, !tile.tile<32x128xi8> -> !tile.tile<64x128xi32>
// CHECK-NEXT:  %[[V9:[a-zA-Z0-9_]+]] = tile.matmul %[[AI]], %[[BI]], %[[CI]] {tag} : !tile.tile<64x32xi8>, !tile.tile<32x128xi8> -> !tile.tile<64x128xi32>
// CHECK-NEXT:  return %[[V0]], %[[V1]], %[[V2]], %[[V3]], %[[V4]], %[[V5]], %[[V6]], %[[V7]], %[[V8]], %[[V9]] : !tile.tile<64x128xf32>, !tile.tile<64x128xf32>, !tile.tile<64x128xf16>, !tile.tile<64x128xf16>, !tile.tile<64x128xf32>, !tile.tile<64x128xf32>, !tile.tile<64x128xf32>, !tile.tile<64x128xf32>, !tile.tile<64x128xi32>, !tile.tile<64x128xi32>
func.func @matmul(%ah: !tile.tile<64x32xf16>, %bh: !tile.tile<32x128xf16>, %cf: !tile.tile<64x128xf32>, %ch: !tile.tile<64x128xf16>,
                  %ab: !tile.tile<64x32xbf16>, %bb: !tile.tile<32x128xbf16>,
                  %af: !tile.tile<64x32xf32>, %bf: !tile.tile<32x128xf32>,
                  %ai: !tile.tile<64x32xi8>, %bi: !tile.tile<32x128xi8>, %ci: !tile.tile<64x128xi32>)
    -> (!tile.tile<64x128xf32>, !tile.tile<64x128xf32>, !tile.tile<64x128xf16>, !tile.tile<64x128xf16>, !tile.tile<64x128xf32>, !tile.tile<64x128xf32>, !tile.tile<64x128xf32>, !tile.tile<64x128xf32>, !tile.tile<64x128xi32>, !tile.tile<64x128xi32>) {
  %0 = tile.matmul %ah, %bh : !tile.tile<64x32xf16>, !tile.tile<32x128xf16> -> !tile.tile<64x128xf32>
  %1 = tile.matmul %ah, %bh, %cf : !tile.tile<64x32xf16>, !tile.tile<32x128xf16> -> !tile.tile<64x128xf32>
  %2 = tile.matmul %ah, %bh : !tile.tile<64x32xf16>, !tile.tile<32x128xf16> -> !tile.tile<64x128xf16>
  %3 = tile.matmul %ah, %bh, %ch : !tile.tile<64x32xf16>, !tile.tile<32x128xf16> -> !tile.tile<64x128xf16>
  %4 = tile.matmul %ab, %bb : !tile.tile<64x32xbf16>, !tile.tile<32x128xbf16> -> !tile.tile<64x128xf32>
  %5 = tile.matmul %ab, %bb, %cf : !tile.tile<64x32xbf16>, !tile.tile<32x128xbf16> -> !tile.tile<64x128xf32>
  %6 = tile.matmul %af, %bf : !tile.tile<64x32xf32>, !tile.tile<32x128xf32> -> !tile.tile<64x128xf32>
  %7 = tile.matmul %af, %bf, %cf : !tile.tile<64x32xf32>, !tile.tile<32x128xf32> -> !tile.tile<64x128xf32>
  %8 = tile.matmul %ai, %bi : !tile.tile<64x32xi8>, !tile.tile<32x128xi8> -> !tile.tile<64x128xi32>
  %9 = tile.matmul %ai, %bi, %ci {tag} : !tile.tile<64x32xi8>, !tile.tile<32x128xi8> -> !tile.tile<64x128xi32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : !tile.tile<64x128xf32>, !tile.tile<64x128xf32>, !tile.tile<64x128xf16>, !tile.tile<64x128xf16>, !tile.tile<64x128xf32>, !tile.tile<64x128xf32>, !tile.tile<64x128xf32>, !tile.tile<64x128xf32>, !tile.tile<64x128xi32>, !tile.tile<64x128xi32>
}

// Valid regions: the result takes lhs's valid rows and rhs's valid columns;
// the valid contracting sizes agree.
// CHECK-LABEL: func.func @matmul_valid(
// CHECK-SAME:    %[[A:[a-zA-Z0-9_]+]]: !tile.tile<64x32xf16, valid = ?x?>
// CHECK-SAME:    %[[B:[a-zA-Z0-9_]+]]: !tile.tile<32x128xf16, valid = ?x100>
// CHECK-SAME:    %[[C:[a-zA-Z0-9_]+]]: !tile.tile<64x128xf32, valid = ?x100>
// CHECK-SAME:  ) -> !tile.tile<64x128xf32, valid = ?x100> {
// CHECK-NEXT:  %[[V0:[a-zA-Z0-9_]+]] = tile.matmul %[[A]], %[[B]], %[[C]] : !tile.tile<64x32xf16, valid = ?x?>, !tile.tile<32x128xf16, valid = ?x100> -> !tile.tile<64x128xf32, valid = ?x100>
// CHECK-NEXT:  return %[[V0]] : !tile.tile<64x128xf32, valid = ?x100>
func.func @matmul_valid(%a: !tile.tile<64x32xf16, valid = ?x?>, %b: !tile.tile<32x128xf16, valid = ?x100>, %c: !tile.tile<64x128xf32, valid = ?x100>) -> !tile.tile<64x128xf32, valid = ?x100> {
  %0 = tile.matmul %a, %b, %c : !tile.tile<64x32xf16, valid = ?x?>, !tile.tile<32x128xf16, valid = ?x100> -> !tile.tile<64x128xf32, valid = ?x100>
  return %0 : !tile.tile<64x128xf32, valid = ?x100>
}

// Any element type to any other; a cast to the same type is allowed.
// CHECK-LABEL: func.func @cast(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: !tile.tile<16x64xf32>
// CHECK-SAME:    %[[V:[a-zA-Z0-9_]+]]: !tile.tile<16x64xi32, valid = ?x8>
// CHECK-SAME:    %[[M:[a-zA-Z0-9_]+]]: !tile.tile<16x64xi1>
// CHECK-SAME:  ) -> (!tile.tile<16x64xf16>, !tile.tile<16x64xbf16>, !tile.tile<16x64xi8>, !tile.tile<16x64xf32, valid = ?x8>, !tile.tile<16x64xi64, valid = ?x8>, !tile.tile<16x64xf32>, !tile.tile<16x64xf32>) {
// CHECK-NEXT:  %[[V0:[a-zA-Z0-9_]+]] = tile.cast %[[X]] : !tile.tile<16x64xf32> to !tile.tile<16x64xf16>
// CHECK-NEXT:  %[[V1:[a-zA-Z0-9_]+]] = tile.cast %[[X]] : !tile.tile<16x64xf32> to !tile.tile<16x64xbf16>
// CHECK-NEXT:  %[[V2:[a-zA-Z0-9_]+]] = tile.cast %[[X]] : !tile.tile<16x64xf32> to !tile.tile<16x64xi8>
// CHECK-NEXT:  %[[V3:[a-zA-Z0-9_]+]] = tile.cast %[[V]] : !tile.tile<16x64xi32, valid = ?x8> to !tile.tile<16x64xf32, valid = ?x8>
// CHECK-NEXT:  %[[V4:[a-zA-Z0-9_]+]] = tile.cast %[[V]] : !tile.tile<16x64xi32, valid = ?x8> to !tile.tile<16x64xi64, valid = ?x8>
// CHECK-NEXT:  %[[V5:[a-zA-Z0-9_]+]] = tile.cast %[[M]] : !tile.tile<16x64xi1> to !tile.tile<16x64xf32>
// CHECK-NEXT:  %[[V6:[a-zA-Z0-9_]+]] = tile.cast %[[X]] {tag} : !tile.tile<16x64xf32> to !tile.tile<16x64xf32>
// CHECK-NEXT:  return %[[V0]], %[[V1]], %[[V2]], %[[V3]], %[[V4]], %[[V5]], %[[V6]] : !tile.tile<16x64xf16>, !tile.tile<16x64xbf16>, !tile.tile<16x64xi8>, !tile.tile<16x64xf32, valid = ?x8>, !tile.tile<16x64xi64, valid = ?x8>, !tile.tile<16x64xf32>, !tile.tile<16x64xf32>
func.func @cast(%x: !tile.tile<16x64xf32>, %v: !tile.tile<16x64xi32, valid = ?x8>, %m: !tile.tile<16x64xi1>) -> (!tile.tile<16x64xf16>, !tile.tile<16x64xbf16>, !tile.tile<16x64xi8>, !tile.tile<16x64xf32, valid = ?x8>, !tile.tile<16x64xi64, valid = ?x8>, !tile.tile<16x64xf32>, !tile.tile<16x64xf32>) {
  %0 = tile.cast %x : !tile.tile<16x64xf32> to !tile.tile<16x64xf16>
  %1 = tile.cast %x : !tile.tile<16x64xf32> to !tile.tile<16x64xbf16>
  %2 = tile.cast %x : !tile.tile<16x64xf32> to !tile.tile<16x64xi8>
  %3 = tile.cast %v : !tile.tile<16x64xi32, valid = ?x8> to !tile.tile<16x64xf32, valid = ?x8>
  %4 = tile.cast %v : !tile.tile<16x64xi32, valid = ?x8> to !tile.tile<16x64xi64, valid = ?x8>
  %5 = tile.cast %m : !tile.tile<16x64xi1> to !tile.tile<16x64xf32>
  %6 = tile.cast %x {tag} : !tile.tile<16x64xf32> to !tile.tile<16x64xf32>
  return %0, %1, %2, %3, %4, %5, %6 : !tile.tile<16x64xf16>, !tile.tile<16x64xbf16>, !tile.tile<16x64xi8>, !tile.tile<16x64xf32, valid = ?x8>, !tile.tile<16x64xi64, valid = ?x8>, !tile.tile<16x64xf32>, !tile.tile<16x64xf32>
}

// CHECK-LABEL: func.func @cmp_tile(
// CHECK-SAME:    %[[A:[a-zA-Z0-9_]+]]: !tile.tile<16x64xf32>
// CHECK-SAME:    %[[B:[a-zA-Z0-9_]+]]: !tile.tile<16x64xf32>
// CHECK-SAME:  ) -> (!tile.tile<16x64xi1>, !tile.tile<16x64xi1>, !tile.tile<16x64xi1>, !tile.tile<16x64xi1>, !tile.tile<16x64xi1>, !tile.tile<16x64xi1>) {
// CHECK-NEXT:  %[[V0:[a-zA-Z0-9_]+]] = tile.cmp eq, %[[A]], %[[B]] : !tile.tile<16x64xf32>
// CHECK-NEXT:  %[[V1:[a-zA-Z0-9_]+]] = tile.cmp ne, %[[A]], %[[B]] : !tile.tile<16x64xf32>
// CHECK-NEXT:  %[[V2:[a-zA-Z0-9_]+]] = tile.cmp lt, %[[A]], %[[B]] : !tile.tile<16x64xf32>
// CHECK-NEXT:  %[[V3:[a-zA-Z0-9_]+]] = tile.cmp le, %[[A]], %[[B]] : !tile.tile<16x64xf32>
// CHECK-NEXT:  %[[V4:[a-zA-Z0-9_]+]] = tile.cmp gt, %[[A]], %[[B]] : !tile.tile<16x64xf32>
// CHECK-NEXT:  %[[V5:[a-zA-Z0-9_]+]] = tile.cmp ge, %[[A]], %[[B]] : !tile.tile<16x64xf32>
// CHECK-NEXT:  return %[[V0]], %[[V1]], %[[V2]], %[[V3]], %[[V4]], %[[V5]] : !tile.tile<16x64xi1>, !tile.tile<16x64xi1>, !tile.tile<16x64xi1>, !tile.tile<16x64xi1>, !tile.tile<16x64xi1>, !tile.tile<16x64xi1>
func.func @cmp_tile(%a: !tile.tile<16x64xf32>, %b: !tile.tile<16x64xf32>) -> (!tile.tile<16x64xi1>, !tile.tile<16x64xi1>, !tile.tile<16x64xi1>, !tile.tile<16x64xi1>, !tile.tile<16x64xi1>, !tile.tile<16x64xi1>) {
  %0 = tile.cmp eq, %a, %b : !tile.tile<16x64xf32>
  %1 = tile.cmp ne, %a, %b : !tile.tile<16x64xf32>
  %2 = tile.cmp lt, %a, %b : !tile.tile<16x64xf32>
  %3 = tile.cmp le, %a, %b : !tile.tile<16x64xf32>
  %4 = tile.cmp gt, %a, %b : !tile.tile<16x64xf32>
  %5 = tile.cmp ge, %a, %b : !tile.tile<16x64xf32>
  return %0, %1, %2, %3, %4, %5 : !tile.tile<16x64xi1>, !tile.tile<16x64xi1>, !tile.tile<16x64xi1>, !tile.tile<16x64xi1>, !tile.tile<16x64xi1>, !tile.tile<16x64xi1>
}

// The mask keeps the shape and valid region of lhs; i1 tiles compare too.
// CHECK-LABEL: func.func @cmp_scalar(
// CHECK-SAME:    %[[A:[a-zA-Z0-9_]+]]: !tile.tile<16x64xi32, valid = ?x?>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: i32
// CHECK-SAME:    %[[M:[a-zA-Z0-9_]+]]: !tile.tile<4x4xi1>
// CHECK-SAME:    %[[P:[a-zA-Z0-9_]+]]: i1
// CHECK-SAME:    %[[H:[a-zA-Z0-9_]+]]: !tile.tile<4x4xf16>
// CHECK-SAME:    %[[SH:[a-zA-Z0-9_]+]]: f16
// CHECK-SAME:  ) -> (!tile.tile<16x64xi1, valid = ?x?>, !tile.tile<16x64xi1, valid = ?x?>, !tile.tile<16x64xi1, valid = ?x?>, !tile.tile<16x64xi1, valid = ?x?>, !tile.tile<16x64xi1, valid = ?x?>, !tile.tile<16x64xi1, valid = ?x?>, !tile.tile<4x4xi1>, !tile.tile<4x4xi1>) {
// CHECK-NEXT:  %[[V0:[a-zA-Z0-9_]+]] = tile.cmp eq, %[[A]], %[[S]] : !tile.tile<16x64xi32, valid = ?x?>, i32
// CHECK-NEXT:  %[[V1:[a-zA-Z0-9_]+]] = tile.cmp ne, %[[A]], %[[S]] : !tile.tile<16x64xi32, valid = ?x?>, i32
// CHECK-NEXT:  %[[V2:[a-zA-Z0-9_]+]] = tile.cmp lt, %[[A]], %[[S]] : !tile.tile<16x64xi32, valid = ?x?>, i32
// CHECK-NEXT:  %[[V3:[a-zA-Z0-9_]+]] = tile.cmp le, %[[A]], %[[S]] : !tile.tile<16x64xi32, valid = ?x?>, i32
// CHECK-NEXT:  %[[V4:[a-zA-Z0-9_]+]] = tile.cmp gt, %[[A]], %[[S]] : !tile.tile<16x64xi32, valid = ?x?>, i32
// CHECK-NEXT:  %[[V5:[a-zA-Z0-9_]+]] = tile.cmp ge, %[[A]], %[[S]] : !tile.tile<16x64xi32, valid = ?x?>, i32
// CHECK-NEXT:  %[[V6:[a-zA-Z0-9_]+]] = tile.cmp ne, %[[M]], %[[P]] : !tile.tile<4x4xi1>, i1
// CHECK-NEXT:  %[[V7:[a-zA-Z0-9_]+]] = tile.cmp lt, %[[H]], %[[SH]] {tag} : !tile.tile<4x4xf16>, f16
// CHECK-NEXT:  return %[[V0]], %[[V1]], %[[V2]], %[[V3]], %[[V4]], %[[V5]], %[[V6]], %[[V7]] : !tile.tile<16x64xi1, valid = ?x?>, !tile.tile<16x64xi1, valid = ?x?>, !tile.tile<16x64xi1, valid = ?x?>, !tile.tile<16x64xi1, valid = ?x?>, !tile.tile<16x64xi1, valid = ?x?>, !tile.tile<16x64xi1, valid = ?x?>, !tile.tile<4x4xi1>, !tile.tile<4x4xi1>
func.func @cmp_scalar(%a: !tile.tile<16x64xi32, valid = ?x?>, %s: i32, %m: !tile.tile<4x4xi1>, %p: i1, %h: !tile.tile<4x4xf16>, %sh: f16) -> (!tile.tile<16x64xi1, valid = ?x?>, !tile.tile<16x64xi1, valid = ?x?>, !tile.tile<16x64xi1, valid = ?x?>, !tile.tile<16x64xi1, valid = ?x?>, !tile.tile<16x64xi1, valid = ?x?>, !tile.tile<16x64xi1, valid = ?x?>, !tile.tile<4x4xi1>, !tile.tile<4x4xi1>) {
  %0 = tile.cmp eq, %a, %s : !tile.tile<16x64xi32, valid = ?x?>, i32
  %1 = tile.cmp ne, %a, %s : !tile.tile<16x64xi32, valid = ?x?>, i32
  %2 = tile.cmp lt, %a, %s : !tile.tile<16x64xi32, valid = ?x?>, i32
  %3 = tile.cmp le, %a, %s : !tile.tile<16x64xi32, valid = ?x?>, i32
  %4 = tile.cmp gt, %a, %s : !tile.tile<16x64xi32, valid = ?x?>, i32
  %5 = tile.cmp ge, %a, %s : !tile.tile<16x64xi32, valid = ?x?>, i32
  %6 = tile.cmp ne, %m, %p : !tile.tile<4x4xi1>, i1
  %7 = tile.cmp lt, %h, %sh {tag} : !tile.tile<4x4xf16>, f16
  return %0, %1, %2, %3, %4, %5, %6, %7 : !tile.tile<16x64xi1, valid = ?x?>, !tile.tile<16x64xi1, valid = ?x?>, !tile.tile<16x64xi1, valid = ?x?>, !tile.tile<16x64xi1, valid = ?x?>, !tile.tile<16x64xi1, valid = ?x?>, !tile.tile<16x64xi1, valid = ?x?>, !tile.tile<4x4xi1>, !tile.tile<4x4xi1>
}

// CHECK-LABEL: func.func @select(
// CHECK-SAME:    %[[M:[a-zA-Z0-9_]+]]: !tile.tile<16x64xi1>
// CHECK-SAME:    %[[A:[a-zA-Z0-9_]+]]: !tile.tile<16x64xf32>
// CHECK-SAME:    %[[B:[a-zA-Z0-9_]+]]: !tile.tile<16x64xf32>
// CHECK-SAME:    %[[VM:[a-zA-Z0-9_]+]]: !tile.tile<16x64xi1, valid = ?x32>
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: !tile.tile<16x64xi8, valid = ?x32>
// CHECK-SAME:    %[[Y:[a-zA-Z0-9_]+]]: !tile.tile<16x64xi8, valid = ?x32>
// CHECK-SAME:    %[[P:[a-zA-Z0-9_]+]]: !tile.tile<16x64xi1>
// CHECK-SAME:  ) -> (!tile.tile<16x64xf32>, !tile.tile<16x64xi8, valid = ?x32>, !tile.tile<16x64xi1>) {
// CHECK-NEXT:  %[[V0:[a-zA-Z0-9_]+]] = tile.select %[[M]], %[[A]], %[[B]] : !tile.tile<16x64xf32>
// CHECK-NEXT:  %[[V1:[a-zA-Z0-9_]+]] = tile.select %[[VM]], %[[X]], %[[Y]] : !tile.tile<16x64xi8, valid = ?x32>
// CHECK-NEXT:  %[[V2:[a-zA-Z0-9_]+]] = tile.select %[[M]], %[[P]], %[[M]] {tag} : !tile.tile<16x64xi1>
// CHECK-NEXT:  return %[[V0]], %[[V1]], %[[V2]] : !tile.tile<16x64xf32>, !tile.tile<16x64xi8, valid = ?x32>, !tile.tile<16x64xi1>
func.func @select(%m: !tile.tile<16x64xi1>, %a: !tile.tile<16x64xf32>, %b: !tile.tile<16x64xf32>, %vm: !tile.tile<16x64xi1, valid = ?x32>, %x: !tile.tile<16x64xi8, valid = ?x32>, %y: !tile.tile<16x64xi8, valid = ?x32>, %p: !tile.tile<16x64xi1>) -> (!tile.tile<16x64xf32>, !tile.tile<16x64xi8, valid = ?x32>, !tile.tile<16x64xi1>) {
  %0 = tile.select %m, %a, %b : !tile.tile<16x64xf32>
  %1 = tile.select %vm, %x, %y : !tile.tile<16x64xi8, valid = ?x32>
  %2 = tile.select %m, %p, %m {tag} : !tile.tile<16x64xi1>
  return %0, %1, %2 : !tile.tile<16x64xf32>, !tile.tile<16x64xi8, valid = ?x32>, !tile.tile<16x64xi1>
}

// CHECK-LABEL: func.func @transpose(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: !tile.tile<16x64xf32>
// CHECK-SAME:    %[[V:[a-zA-Z0-9_]+]]: !tile.tile<16x64xbf16, valid = ?x32>
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: !tile.tile<8x8xi1, valid = 4x?>
// CHECK-SAME:  ) -> (!tile.tile<64x16xf32>, !tile.tile<64x16xbf16, valid = 32x?>, !tile.tile<8x8xi1, valid = ?x4>) {
// CHECK-NEXT:  %[[V0:[a-zA-Z0-9_]+]] = tile.transpose %[[X]] : !tile.tile<16x64xf32> -> !tile.tile<64x16xf32>
// CHECK-NEXT:  %[[V1:[a-zA-Z0-9_]+]] = tile.transpose %[[V]] : !tile.tile<16x64xbf16, valid = ?x32> -> !tile.tile<64x16xbf16, valid = 32x?>
// CHECK-NEXT:  %[[V2:[a-zA-Z0-9_]+]] = tile.transpose %[[S]] {tag} : !tile.tile<8x8xi1, valid = 4x?> -> !tile.tile<8x8xi1, valid = ?x4>
// CHECK-NEXT:  return %[[V0]], %[[V1]], %[[V2]] : !tile.tile<64x16xf32>, !tile.tile<64x16xbf16, valid = 32x?>, !tile.tile<8x8xi1, valid = ?x4>
func.func @transpose(%x: !tile.tile<16x64xf32>, %v: !tile.tile<16x64xbf16, valid = ?x32>, %s: !tile.tile<8x8xi1, valid = 4x?>) -> (!tile.tile<64x16xf32>, !tile.tile<64x16xbf16, valid = 32x?>, !tile.tile<8x8xi1, valid = ?x4>) {
  %0 = tile.transpose %x : !tile.tile<16x64xf32> -> !tile.tile<64x16xf32>
  %1 = tile.transpose %v : !tile.tile<16x64xbf16, valid = ?x32> -> !tile.tile<64x16xbf16, valid = 32x?>
  %2 = tile.transpose %s {tag} : !tile.tile<8x8xi1, valid = 4x?> -> !tile.tile<8x8xi1, valid = ?x4>
  return %0, %1, %2 : !tile.tile<64x16xf32>, !tile.tile<64x16xbf16, valid = 32x?>, !tile.tile<8x8xi1, valid = ?x4>
}

// Tiles flow through regions and block arguments like any other value.
// CHECK-LABEL: func.func @in_loop(
// CHECK-SAME:    %[[M:[a-zA-Z0-9_]+]]: memref<16x256xf32>
// CHECK-SAME:    %[[N:[a-zA-Z0-9_]+]]: index
// CHECK-SAME:  ) -> !tile.tile<16x1xf32> {
// CHECK-NEXT:  %[[C0:[a-zA-Z0-9_]+]] = arith.constant 0 : index
// CHECK-NEXT:  %[[C64:[a-zA-Z0-9_]+]] = arith.constant 64 : index
// CHECK-NEXT:  %[[INIT:[a-zA-Z0-9_]+]] = tile.constant -inf : !tile.tile<16x1xf32>
// CHECK-NEXT:  %[[R:[a-zA-Z0-9_]+]] = scf.for %[[K:[a-zA-Z0-9_]+]] = %[[C0]] to %[[N]] step %[[C64]] iter_args(%[[ACC:[a-zA-Z0-9_]+]] = %[[INIT]]) -> (!tile.tile<16x1xf32>) {
// CHECK-NEXT:  %[[T:[a-zA-Z0-9_]+]] = tile.load %[[M]][%[[C0]], %[[K]]] : memref<16x256xf32> -> !tile.tile<16x64xf32>
// CHECK-NEXT:  %[[MX:[a-zA-Z0-9_]+]] = tile.row_reduce max %[[T]] : !tile.tile<16x64xf32> -> !tile.tile<16x1xf32>
// CHECK-NEXT:  %[[NEXT:[a-zA-Z0-9_]+]] = tile.max %[[ACC]], %[[MX]] : !tile.tile<16x1xf32>
// CHECK-NEXT:  scf.yield %[[NEXT]] : !tile.tile<16x1xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  return %[[R]] : !tile.tile<16x1xf32>
func.func @in_loop(%m: memref<16x256xf32>, %n: index) -> !tile.tile<16x1xf32> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %init = tile.constant -inf : !tile.tile<16x1xf32>
  %r = scf.for %k = %c0 to %n step %c64 iter_args(%acc = %init) -> (!tile.tile<16x1xf32>) {
    %t = tile.load %m[%c0, %k] : memref<16x256xf32> -> !tile.tile<16x64xf32>
    %mx = tile.row_reduce max %t : !tile.tile<16x64xf32> -> !tile.tile<16x1xf32>
    %next = tile.max %acc, %mx : !tile.tile<16x1xf32>
    scf.yield %next : !tile.tile<16x1xf32>
  }
  return %r : !tile.tile<16x1xf32>
}

// Floats whose 6-digit form would not read back print at full precision and
// survive the round trip (both RUN lines parse the printed form again).
// CHECK-LABEL: func.func @constant_float_exact
// CHECK-NEXT:    tile.constant 16777216.0 : !tile.tile<4x4xf32>
// CHECK-NEXT:    tile.constant 12345678.0 : !tile.tile<4x4xf32>
// CHECK-NEXT:    tile.constant 0.1 : !tile.tile<4x4xf32>
// CHECK-NEXT:    tile.constant 9.99999977E+22 : !tile.tile<4x4xf32>
func.func @constant_float_exact() -> (!tile.tile<4x4xf32>, !tile.tile<4x4xf32>, !tile.tile<4x4xf32>, !tile.tile<4x4xf32>) {
  %a = tile.constant 16777216.0 : !tile.tile<4x4xf32>
  %b = tile.constant 12345678.0 : !tile.tile<4x4xf32>
  %c = tile.constant 0.1 : !tile.tile<4x4xf32>
  %d = tile.constant 99999999999999999999999 : !tile.tile<4x4xf32>
  return %a, %b, %c, %d : !tile.tile<4x4xf32>, !tile.tile<4x4xf32>, !tile.tile<4x4xf32>, !tile.tile<4x4xf32>
}

// Valid regions: pad widens to a full tile, set_valid narrows.
// CHECK-LABEL: func.func @pad_set_valid
// CHECK-NEXT:    %[[P:.*]] = tile.pad %{{.*}}, %{{.*}} : !tile.tile<16x64xf32, valid = ?x64> -> !tile.tile<16x64xf32>
// CHECK-NEXT:    %[[S:.*]] = tile.set_valid %[[P]] valid [%{{.*}}] : !tile.tile<16x64xf32> -> !tile.tile<16x64xf32, valid = ?x64>
// CHECK-NEXT:    %[[T:.*]] = tile.set_valid %[[P]] : !tile.tile<16x64xf32> -> !tile.tile<16x64xf32, valid = 8x32>
// CHECK-NEXT:    return %[[P]], %[[S]], %[[T]]
func.func @pad_set_valid(%t: !tile.tile<16x64xf32, valid = ?x64>, %z: f32, %n: index) -> (!tile.tile<16x64xf32>, !tile.tile<16x64xf32, valid = ?x64>, !tile.tile<16x64xf32, valid = 8x32>) {
  %p = tile.pad %t, %z : !tile.tile<16x64xf32, valid = ?x64> -> !tile.tile<16x64xf32>
  %s = tile.set_valid %p valid [%n] : !tile.tile<16x64xf32> -> !tile.tile<16x64xf32, valid = ?x64>
  %u = tile.set_valid %p : !tile.tile<16x64xf32> -> !tile.tile<16x64xf32, valid = 8x32>
  return %p, %s, %u : !tile.tile<16x64xf32>, !tile.tile<16x64xf32, valid = ?x64>, !tile.tile<16x64xf32, valid = 8x32>
}

// An intrinsic of an intrinsic set, by name, on tiles and scalars.
// CHECK-LABEL: func.func @intrinsic
// CHECK-NEXT:    %[[S:.*]] = tile.intrinsic "pto.tadd"(%{{.*}}, %{{.*}}) : (!tile.tile<16x64xf32>, !tile.tile<16x64xf32>) -> !tile.tile<16x64xf32>
// CHECK-NEXT:    %[[T:.*]] = tile.intrinsic "pto.tadds"(%[[S]], %{{.*}}) : (!tile.tile<16x64xf32>, f32) -> !tile.tile<16x64xf32>
// CHECK-NEXT:    return %[[T]]
func.func @intrinsic(%a: !tile.tile<16x64xf32>, %b: !tile.tile<16x64xf32>, %k: f32) -> !tile.tile<16x64xf32> {
  %s = tile.intrinsic "pto.tadd"(%a, %b) : (!tile.tile<16x64xf32>, !tile.tile<16x64xf32>) -> !tile.tile<16x64xf32>
  %t = tile.intrinsic "pto.tadds"(%s, %k) : (!tile.tile<16x64xf32>, f32) -> !tile.tile<16x64xf32>
  return %t : !tile.tile<16x64xf32>
}

// An intrinsic with effects: scalars, tensors (a block's memref and indices)
// and tiles in, no result or one scalar.
// CHECK-LABEL: func.func @intrinsic_effect
// CHECK-NEXT:    %[[R:.*]] = tile.intrinsic_effect "comm.rank"() : () -> index
// CHECK-NEXT:    tile.intrinsic_effect "comm.put"(%[[R]], %{{.*}}, %[[R]], %{{.*}}, %{{.*}}, %{{.*}}) : (index, memref<4x16x64xf32>, index, index, index, !tile.tile<16x64xf32>) -> ()
// CHECK-NEXT:    tile.intrinsic_effect "comm.notify"(%[[R]], %{{.*}}, %[[R]], %{{.*}}) {op = "add"} : (index, memref<4xi32>, index, i32) -> ()
// CHECK-NEXT:    return %[[R]]
func.func @intrinsic_effect(%w: memref<4x16x64xf32>, %s: memref<4xi32>, %t: !tile.tile<16x64xf32>, %c0: index, %one: i32) -> index {
  %me = tile.intrinsic_effect "comm.rank"() : () -> index
  tile.intrinsic_effect "comm.put"(%me, %w, %me, %c0, %c0, %t) : (index, memref<4x16x64xf32>, index, index, index, !tile.tile<16x64xf32>) -> ()
  tile.intrinsic_effect "comm.notify"(%me, %s, %me, %one) {op = "add"} : (index, memref<4xi32>, index, i32) -> ()
  return %me : index
}

// CHECK-LABEL: func.func @relayout
// CHECK: tile.relayout %{{.*}} : !tile.tile<16x64xf32, valid = ?x64> -> !tile.tile<16x64xf32, valid = ?x64, layout = #layout.axe<[16@m:1] x [64@m:16]>>
// CHECK: tile.relayout %{{.*}} : !tile.tile<16x64xf32, valid = ?x64, layout = #layout.axe<[16@m:1] x [64@m:16]>> -> !tile.tile<16x64xf32, valid = ?x64>
func.func @relayout(%x: !tile.tile<16x64xf32, valid = ?x64>) -> !tile.tile<16x64xf32, valid = ?x64> {
  %d = tile.relayout %x : !tile.tile<16x64xf32, valid = ?x64> -> !tile.tile<16x64xf32, valid = ?x64, layout = #layout.axe<[16@m:1] x [64@m:16]>>
  %r = tile.relayout %d : !tile.tile<16x64xf32, valid = ?x64, layout = #layout.axe<[16@m:1] x [64@m:16]>> -> !tile.tile<16x64xf32, valid = ?x64>
  return %r : !tile.tile<16x64xf32, valid = ?x64>
}

// Shapes: blocks (every element or every n-th), joins, reshapes, and strided
// loads and stores.
// CHECK-LABEL: func.func @shapes
// CHECK-NEXT:    %[[H:.*]] = tile.slice %{{.*}} [0, 32] : !tile.tile<16x64xf32, valid = ?x64> -> !tile.tile<16x32xf32, valid = ?x32>
// CHECK-NEXT:    %[[E:.*]] = tile.slice %{{.*}} [0, 1] strides [1, 2] : !tile.tile<16x64xf32> -> !tile.tile<16x32xf32>
// CHECK-NEXT:    %[[C:.*]] = tile.concat %[[H]], %[[H]] axis 1 : !tile.tile<16x32xf32, valid = ?x32>, !tile.tile<16x32xf32, valid = ?x32> -> !tile.tile<16x64xf32, valid = ?x64>
// CHECK-NEXT:    %[[R:.*]] = tile.reshape %{{.*}} : !tile.tile<16x64xf32> -> !tile.tile<32x32xf32>
// CHECK-NEXT:    %[[L:.*]] = tile.load %{{.*}}[%{{.*}}, %{{.*}}] strides [1, 2] valid [%{{.*}}] : memref<?x256xf32> -> !tile.tile<16x128xf32, valid = ?x128>
// CHECK-NEXT:    tile.store %[[L]], %{{.*}}[%{{.*}}, %{{.*}}] strides [2, 1] : !tile.tile<16x128xf32, valid = ?x128>, memref<?x256xf32>
// CHECK-NEXT:    return %[[H]], %[[E]], %[[C]], %[[R]]
func.func @shapes(%x: !tile.tile<16x64xf32, valid = ?x64>, %y: !tile.tile<16x64xf32>, %m: memref<?x256xf32>, %i: index, %n: index) -> (!tile.tile<16x32xf32, valid = ?x32>, !tile.tile<16x32xf32>, !tile.tile<16x64xf32, valid = ?x64>, !tile.tile<32x32xf32>) {
  %h = tile.slice %x [0, 32] : !tile.tile<16x64xf32, valid = ?x64> -> !tile.tile<16x32xf32, valid = ?x32>
  %e = tile.slice %y [0, 1] strides [1, 2] : !tile.tile<16x64xf32> -> !tile.tile<16x32xf32>
  %c = tile.concat %h, %h axis 1 : !tile.tile<16x32xf32, valid = ?x32>, !tile.tile<16x32xf32, valid = ?x32> -> !tile.tile<16x64xf32, valid = ?x64>
  %r = tile.reshape %y : !tile.tile<16x64xf32> -> !tile.tile<32x32xf32>
  %l = tile.load %m[%i, %i] strides [1, 2] valid [%n] : memref<?x256xf32> -> !tile.tile<16x128xf32, valid = ?x128>
  tile.store %l, %m[%i, %i] strides [2, 1] : !tile.tile<16x128xf32, valid = ?x128>, memref<?x256xf32>
  return %h, %e, %c, %r : !tile.tile<16x32xf32, valid = ?x32>, !tile.tile<16x32xf32>, !tile.tile<16x64xf32, valid = ?x64>, !tile.tile<32x32xf32>
}
