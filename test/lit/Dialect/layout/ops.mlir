// RUN: htp-opt %s | FileCheck %s
// RUN: htp-opt %s | htp-opt | FileCheck %s

// The layout dialect has attributes only: Axe layouts, round-tripped on
// function attributes (printed in name order) and in tile types.

// CHECK-LABEL: func.func @facets
// CHECK-SAME: dn = #layout.axe<[16@m:1] x [64@m:16]>
// CHECK-SAME: nd = #layout.axe<[16@m:64] x [64@m:1]>
// CHECK-SAME: nz = #layout.axe<[2@m:256, 16@m:16] x [2@m:512, 16@m:1]>
// CHECK-SAME: spread = #layout.axe<[?@core:1, 64@m:64] x [64@m:1], replica = [lane]>
// CHECK-SAME: strided = #layout.axe<[?@m:1] x [64@m:?], offset = 8>
// CHECK-SAME: three = #layout.axe<[2@m:4096] x [32@m:128] x [128@m:1]>
func.func @facets() attributes {
  nd = #layout.axe<[16@m:64] x [64@m:1]>,
  dn = #layout.axe<[16@m:1] x [64@m:16]>,
  nz = #layout.axe<[2@m:256, 16@m:16] x [2@m:512, 16@m:1]>,
  spread = #layout.axe<[?@core:1, 64@m:64] x [64@m:1], replica = [lane]>,
  strided = #layout.axe<[?@m:1] x [64@m:?], offset = 8>,
  three = #layout.axe<[2@m:4096] x [32@m:128] x [128@m:1], offset = 0>
} {
  return
}

// A tile with a layout (after its valid region).
// CHECK-LABEL: func.func @tiles
// CHECK-SAME: !tile.tile<16x64xf32, layout = #layout.axe<[16@m:1] x [64@m:16]>>
// CHECK-SAME: !tile.tile<32x32xf16, valid = ?x32, layout = #layout.axe<[2@m:256, 16@m:16] x [2@m:512, 16@m:1]>>
func.func @tiles(%a: !tile.tile<16x64xf32, layout = #layout.axe<[16@m:1] x [64@m:16]>>,
                 %b: !tile.tile<32x32xf16, valid = ?x32, layout = #layout.axe<[2@m:256, 16@m:16] x [2@m:512, 16@m:1]>>) {
  return
}
