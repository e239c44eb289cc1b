// The emitted C++ of iota / compare / select: TCI takes its tile type and
// element type as template arguments and runs on the scalar pipe (S -> V
// flag before the vector read); masks are uint8_t tiles; i32 `ge` compares
// in f32 (TCVT, static_cast of the scalar); TSEL has a uint32_t scratch.
// RUN: htp-opt %s %pto_pipeline | htp-translate --pto-to-cpp | FileCheck %s

// CHECK-LABEL: // ----- kernels/aiv/masked_aiv.cpp
// CHECK:      TCI<Tile<TileType::Vec, int32_t, 1, 64, BLayout::RowMajor, 1, 64, SLayout::NoneBox, 512, PadValue::Null>, int32_t, 0>([[ROW:ci[_0-9]*]], 0);
// CHECK-NEXT: set_flag(PIPE_S, PIPE_V, EVENT_ID[[E:[0-9]]]);
// CHECK-NEXT: wait_flag(PIPE_S, PIPE_V, EVENT_ID[[E]]);
// CHECK:      TCOLEXPAND({{.*}}, [[ROW]]);
// CHECK:      TCI<Tile<TileType::Vec, int32_t, 1, 16, {{.*}}>, int32_t, 0>([[COL:ci_[0-9]+]], 0);
// CHECK:      Tile<TileType::Vec, int32_t, 16, 1, BLayout::ColMajor, 16, 1, {{.*}}> [[VIEW:view[_0-9]*]];
// CHECK:      TROWEXPAND({{.*}}, [[VIEW]]);
// CHECK:      TADDS(
// CHECK:      TCVT([[F:cvt[_0-9]*]], {{.*}}, RoundMode::CAST_RINT);
// CHECK:      Tile<TileType::Vec, uint8_t, 16, 32, BLayout::RowMajor, 16, 8, SLayout::NoneBox, 512, PadValue::Null> [[MASK:cmps[_0-9]*]];
// CHECK:      const float [[S:v_[0-9]+]] = static_cast<float>(arg2);
// CHECK:      TCMPS([[MASK]], [[F]], [[S]], CmpMode::GE);
// CHECK:      TCMP({{.*}}, CmpMode::GT);
// CHECK:      TCMPS({{.*}}, {{.*}}, arg2, CmpMode::EQ);
// CHECK:      Tile<TileType::Vec, uint32_t, 1, 8, BLayout::RowMajor, 1, 8, SLayout::NoneBox, 512, PadValue::Null> [[TMP:scratch[_0-9]*]];
// CHECK:      TSEL({{.*}}, [[MASK]], {{.*}}, {{.*}}, [[TMP]]);
module {
  func.func @masked(%arg0: memref<?x64xf32>, %arg1: memref<?x64xf32>, %arg2: i32) attributes {htp.kernel, htp.outputs = array<i64: 1>} {
    %c0 = arith.constant 0 : index
    %dim = memref.dim %arg0, %c0 : memref<?x64xf32>
    %c16 = arith.constant 16 : index
    scf.for %i = %c0 to %dim step %c16 {
      %0 = arith.subi %dim, %i : index
      %1 = arith.minsi %0, %c16 : index
      %t = tile.load %arg0[%i, %c0] valid [%1] : memref<?x64xf32> -> !tile.tile<16x64xf32, valid = ?x64>
      %cols = tile.iota 1 : !tile.tile<16x64xi32>
      %rows = tile.iota 0 : !tile.tile<16x64xi32>
      %j = arith.constant 3 : i32
      %shifted = tile.add %cols, %j : !tile.tile<16x64xi32>, i32
      %m1 = tile.cmp ge, %shifted, %arg2 : !tile.tile<16x64xi32>, i32
      %m2 = tile.cmp gt, %cols, %rows : !tile.tile<16x64xi32>
      %m3 = tile.cmp eq, %cols, %arg2 : !tile.tile<16x64xi32>, i32
      %m4 = tile.cmp lt, %t, %t : !tile.tile<16x64xf32, valid = ?x64>
      %big = tile.constant -1.0e30 : !tile.tile<16x64xf32>
      %zero = tile.constant 0.0 : !tile.tile<16x64xf32>
      %s1 = tile.select %m1, %big, %zero : !tile.tile<16x64xf32>
      %s2 = tile.select %m2, %s1, %big : !tile.tile<16x64xf32>
      %s3 = tile.select %m3, %s2, %zero : !tile.tile<16x64xf32>
      tile.store %s3, %arg1[%i, %c0] : !tile.tile<16x64xf32>, memref<?x64xf32>
    }
    return
  }
}
