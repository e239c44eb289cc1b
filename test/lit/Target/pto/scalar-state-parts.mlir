// A kernel body large enough to be written as noinline parts (emit/parts.rs)
// with scalar state in it: the kernel-local array is declared in the entry
// and passed to the parts that use it as a pointer; its loads and stores,
// and the scf.while, stay in the entry in program order, after the parts
// before them (a part may read or write the same array). 2 x 100
// tile.exp ops are generated in place of the EXPS lines.
// RUN: python3 -c "import sys; t = open(sys.argv[1]).read(); e = lambda a, b: ''.join('      %%e{} = tile.exp %%e{} : !tile.tile<16x64xf32>\n'.format(k, k - 1) for k in range(a, b)); print(t.replace('// EXPS-A\n', e(1, 101)).replace('// EXPS-B\n', e(101, 201)))" %s > %t.mlir
// RUN: htp-opt %t.mlir %pto_pipeline | htp-translate --pto-to-cpp | FileCheck %s

// CHECK-LABEL: // ----- kernels/aiv/long_aiv.cpp
// The part with the `if` that updates the array takes it as a pointer.
// CHECK:      static __aicore__ __attribute__((noinline)) void kernel_part_[[P:[0-9]+]]({{.*}}int64_t *[[CUR:array[_0-9]*]]{{.*}}) {
// CHECK:          const int64_t [[Q:v_[0-9]+]] = [[CUR]][0];
// CHECK:          [[CUR]][0] = {{v_[0-9]+}};
// CHECK:      void kernel_entry(__gm__ int64_t *args) {
// CHECK:      int64_t [[CUR]][1] = {};
// CHECK-NEXT: [[CUR]][0] = 0;
// CHECK:      for (int64_t [[I:i[_0-9]*]] = 0;
// CHECK-NEXT:     kernel_part_{{[0-9]+}}(
// CHECK-NEXT:     const int64_t [[S:v[_0-9]*]] = [[CUR]][0];
// CHECK-NEXT:     const int64_t [[S1:v_[0-9]+]] = [[S]] + 1;
// CHECK-NEXT:     [[CUR]][0] = [[S1]];
// CHECK-NEXT:     int64_t [[K:carried[_0-9]*]] = [[S1]];
// CHECK-NEXT:     int64_t [[W:found[_0-9]*]];
// CHECK:          while (true) {
// CHECK:          }
// CHECK-NEXT:     kernel_part_{{[0-9]+}}();
// CHECK-NOT:      [[CUR]]
// CHECK:          const int64_t [[R:v_[0-9]+]] = [[CUR]][0];
// CHECK-NEXT:     const bool [[C:v_[0-9]+]] = [[W]] < [[R]];
// CHECK-NEXT:     kernel_part_[[P]]({{.*}}[[CUR]]{{.*}});
// CHECK:      pipe_sync();
module {
  func.func @long(%x: memref<?x64xf32>, %y: memref<?x64xf32>) attributes {htp.kernel, htp.outputs = array<i64: 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %n = memref.dim %y, %c0 : memref<?x64xf32>
    %cur = memref.alloca() : memref<1xindex>
    memref.store %c0, %cur[%c0] : memref<1xindex>
    scf.for %i = %c0 to %n step %c16 {
      %e0 = tile.load %x[%i, %c0] : memref<?x64xf32> -> !tile.tile<16x64xf32>
      %s = memref.load %cur[%c0] : memref<1xindex>
      %s1 = arith.addi %s, %c1 : index
      memref.store %s1, %cur[%c0] : memref<1xindex>
      %w = scf.while (%k = %s1) : (index) -> index {
        %more = arith.cmpi slt, %k, %c16 : index
        scf.condition(%more) %k : index
      } do {
      ^bb0(%k: index):
        %next = arith.addi %k, %c1 : index
        scf.yield %next : index
      }
// EXPS-A
      %r = memref.load %cur[%c0] : memref<1xindex>
      %behind = arith.cmpi slt, %w, %r : index
      scf.if %behind {
        %q = memref.load %cur[%c0] : memref<1xindex>
        %q1 = arith.addi %q, %w : index
        memref.store %q1, %cur[%c0] : memref<1xindex>
      }
// EXPS-B
      tile.store %e200, %y[%i, %c0] : !tile.tile<16x64xf32>, memref<?x64xf32>
    }
    return
  }
}
