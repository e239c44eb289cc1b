// Scalar state in a tile kernel (what CSP's dissolved channels make): a
// cursor kept in a kernel-local array (memref.alloca) and a scf.while that
// searches on from it. Per 16-row block i of y, the kernel finds the next
// block t >= cursor of x with t mod 3 == 1, stopping at the first block
// that does not fit whole in x (x's rows are a bound it reads from the
// array inside the search), copies x's block t (its valid rows) to y's
// block i and leaves the cursor after t; an i32 counter in another array
// counts the blocks found where the search started. The arrays are plain C++ arrays
// on the scalar unit, not tensors, and the loop is not split into tasks:
// the cursor passes from one iteration to the next.
// (lib/htp-backend-pto/src/metrics/tests.rs and lib/htp-backend-cpu/tests/scalar_state.rs
// run this kernel too: its static metrics, and on the cpu target.)
// RUN: htp-opt %s %pto_pipeline | htp-translate --pto-to-cpp | FileCheck %s
// RUN: htp-opt %s %pto_pipeline | FileCheck %s --check-prefix=IR

// CHECK-LABEL: // ----- kernels/aiv/search_aiv.cpp
// CHECK:      void kernel_entry(__gm__ int64_t *args) {
// CHECK-NOT:  task_begin
// CHECK:      int64_t [[CUR:array[_0-9]*]][2] = {};
// CHECK-NEXT: [[CUR]][0] = 0;
// CHECK-NEXT: [[CUR]][1] = [[ROWS:extent[_0-9]*]];
// CHECK-NEXT: int32_t [[HITS:array_[0-9]+]][1] = {};
// CHECK-NEXT: [[HITS]][0] = 0;
// CHECK:      for (int64_t [[I:i[_0-9]*]] = 0; [[I]] < [[N:extent_[0-9]+]]; [[I]] += 16) {
// CHECK-NEXT:     const int64_t [[START:v[_0-9]*]] = [[CUR]][0];
// CHECK-NEXT:     int64_t [[K:carried[_0-9]*]] = [[START]];
// CHECK-NEXT:     int64_t [[T:found[_0-9]*]];
// CHECK:          while (true) {
// CHECK-NEXT:         const int64_t [[LIMIT:v[_0-9]*]] = [[CUR]][1];
// CHECK-NEXT:         const int64_t [[K1:v_[0-9]+]] = [[K]] + 1;
// CHECK-NEXT:         const int64_t [[END:v_[0-9]+]] = [[K1]] * 16;
// CHECK-NEXT:         const bool [[INSIDE:v_[0-9]+]] = [[END]] <= [[LIMIT]];
// CHECK-NEXT:         const int64_t [[R:v_[0-9]+]] = [[K]] % 3;
// CHECK-NEXT:         const bool [[MISS:v_[0-9]+]] = [[R]] != 1;
// CHECK-NEXT:         const bool [[GO:v_[0-9]+]] = [[INSIDE]] & [[MISS]];
// CHECK-NEXT:         [[T]] = [[K]];
// CHECK-NEXT:         if (!([[GO]])) break;
// CHECK-NEXT:         const int64_t [[NEXT:v_[0-9]+]] = [[T]] + 1;
// CHECK-NEXT:         [[K]] = [[NEXT]];
// CHECK-NEXT:     }
// CHECK-NEXT:     const bool [[FIRST:v_[0-9]+]] = [[T]] == [[START]];
// CHECK-NEXT:     if ([[FIRST]]) {
// CHECK-NEXT:         const int32_t [[H:v_[0-9]+]] = [[HITS]][0];
// CHECK-NEXT:         const int32_t [[H1:v_[0-9]+]] = [[H]] + 1;
// CHECK-NEXT:         [[HITS]][0] = [[H1]];
// CHECK-NEXT:     }
// CHECK-NEXT:     const int64_t [[ROW:v_[0-9]+]] = [[T]] * 16;
// CHECK:          gm_t gm(arg0 + [[ROW]] * (64), {{.*}});
// CHECK:          TLOAD(load, gm);
// CHECK:          gm_1_t gm_1(arg1 + [[I]] * (64), {{.*}});
// CHECK:          TSTORE(gm_1, load);
// CHECK:          const int64_t [[AFTER:v_[0-9]+]] = [[T]] + 1;
// CHECK-NEXT:     [[CUR]][0] = [[AFTER]];
// CHECK-NEXT: }

// One task: no loop over chunks of the kernel's loop, no task bounds.
// CHECK-LABEL: // ----- orchestration/search.cpp
// CHECK:      void aicpu_orchestration_entry(
// CHECK-NOT:  for (
// CHECK:      task.add_input(arg0);
// CHECK-NEXT: task.add_inout(arg1);
// CHECK-NEXT: rt_submit_aiv_task(0, task);  // search_aiv
// CHECK-NEXT: }

// The arrays are no kernel parameters or task arguments.
// CHECK-LABEL: // ----- manifest.json
// CHECK: "signature": ["in", "inout"]

// IR-LABEL: func.func @search_aiv(%{{.*}}: memref<?x64xf32>, %{{.*}}: memref<?x64xf32>) attributes {pto.core = "aiv"}
// IR:         memref.alloca() : memref<2xindex>
// IR:         scf.for
// IR:           scf.while
// IR-LABEL: func.func @search(
// IR-NOT:     scf.for
// IR:         pto.submit @search_aiv
// IR-NOT:     pto.submit
module {
  func.func @search(%x: memref<?x64xf32>, %y: memref<?x64xf32>) attributes {htp.kernel, htp.outputs = array<i64: 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c16 = arith.constant 16 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %rows = memref.dim %x, %c0 : memref<?x64xf32>
    %n = memref.dim %y, %c0 : memref<?x64xf32>
    %cur = memref.alloca() : memref<2xindex>
    memref.store %c0, %cur[%c0] : memref<2xindex>
    memref.store %rows, %cur[%c1] : memref<2xindex>
    %hits = memref.alloca() : memref<1xi32>
    memref.store %zero, %hits[%c0] : memref<1xi32>
    scf.for %i = %c0 to %n step %c16 {
      %start = memref.load %cur[%c0] : memref<2xindex>
      %t = scf.while (%k = %start) : (index) -> index {
        %limit = memref.load %cur[%c1] : memref<2xindex>
        %k1 = arith.addi %k, %c1 : index
        %end = arith.muli %k1, %c16 : index
        %inside = arith.cmpi sle, %end, %limit : index
        %r = arith.remsi %k, %c3 : index
        %miss = arith.cmpi ne, %r, %c1 : index
        %go = arith.andi %inside, %miss : i1
        scf.condition(%go) %k : index
      } do {
      ^bb0(%k: index):
        %next = arith.addi %k, %c1 : index
        scf.yield %next : index
      }
      %first = arith.cmpi eq, %t, %start : index
      scf.if %first {
        %h = memref.load %hits[%c0] : memref<1xi32>
        %h1 = arith.addi %h, %one : i32
        memref.store %h1, %hits[%c0] : memref<1xi32>
      }
      %row = arith.muli %t, %c16 : index
      %left = arith.subi %rows, %row : index
      %valid = arith.minsi %left, %c16 : index
      %tile = tile.load %x[%row, %c0] valid [%valid] : memref<?x64xf32> -> !tile.tile<16x64xf32, valid = ?x64>
      tile.store %tile, %y[%i, %c0] : !tile.tile<16x64xf32, valid = ?x64>, memref<?x64xf32>
      %after = arith.addi %t, %c1 : index
      memref.store %after, %cur[%c0] : memref<2xindex>
    }
    return
  }
}
