// RUN: htp-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(cpu-split-large-bodies{max-body-ops=42}))' | FileCheck %s
// RUN: htp-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(cpu-split-large-bodies))' | FileCheck %s --check-prefix=DEFAULT
// RUN: not htp-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(cpu-split-large-bodies{max-body-ops=0}))' 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: error: cpu-split-large-bodies: max-body-ops must be a positive integer, got '0'
// A typed option: a value that is not a number is an error of the pipeline, naming the option.
// RUN: not htp-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(cpu-split-large-bodies{max-body-ops=lots}))' 2>&1 | FileCheck %s --check-prefix=NOTNUMBER
// NOTNUMBER: error: cpu-split-large-bodies: max-body-ops must be a positive integer, got 'lots'
// --help lists the option with its type and default.
// RUN: htp-opt --help | FileCheck %s --check-prefix=HELP
// HELP: --cpu-split-large-bodies
// HELP-NEXT: --max-body-ops=<a positive integer> - the largest body weight (ops, math.exp counted as its polynomial) left in one generic (default: 1024)

// A body of weight 45 (math.exp counts 40) with a budget of 42: two generics over the same space. The
// first yields what the second reads (%a2, and %s of the first slice is
// read only there); a broadcast input keeps its map; the init's element read
// in the last slice stays its block argument; constants move above.
// CHECK-LABEL: func.func @chain
// CHECK: %[[INIT:.*]] = tensor.empty(%[[N:.*]]) : tensor<?x64xf32>
// CHECK: %[[C:.*]] = arith.constant 2.0
// CHECK: %[[T2:.*]] = tensor.empty(%[[N]]) : tensor<?x64xf32>
// CHECK: %[[T3:.*]] = tensor.empty(%[[N]]) : tensor<?x64xf32>
// CHECK: %[[FIRST:.*]]:2 = linalg.generic {indexing_maps = [#[[ID:[^,]*]], #[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%{{.*}} : tensor<?x64xf32>) outs(%[[T2]], %[[T3]] : tensor<?x64xf32>, tensor<?x64xf32>)
// CHECK: ^bb0(%[[X:[^:]*]]: f32, %{{[^:]*}}: f32, %{{[^:]*}}: f32):
// CHECK-NEXT: %[[A1:.*]] = arith.mulf %[[X]], %[[C]]
// CHECK-NEXT: %[[A2:.*]] = arith.addf %[[A1]], %[[X]]
// CHECK-NEXT: %[[A3:.*]] = math.exp %[[A2]]
// CHECK-NEXT: linalg.yield %[[A2]], %[[A3]] : f32, f32
// CHECK: %[[LAST:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]], #[[ROW:[^,]*]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[FIRST]]#1, %[[FIRST]]#0, %{{.*}} : tensor<?x64xf32>, tensor<?x64xf32>, tensor<1x64xf32>) outs(%[[INIT]] : tensor<?x64xf32>)
// CHECK: ^bb0(%[[B3:[^:]*]]: f32, %[[B2:[^:]*]]: f32, %[[R:[^:]*]]: f32, %[[OUT:[^:]*]]: f32):
// CHECK-NEXT: %[[A4:.*]] = arith.subf %[[B3]], %[[B2]]
// CHECK-NEXT: %[[A5:.*]] = arith.mulf %[[A4]], %[[R]]
// CHECK-NEXT: %[[A6:.*]] = arith.addf %[[A5]], %[[OUT]]
// CHECK-NEXT: linalg.yield %[[A6]] : f32
// CHECK: return %[[LAST]]
// DEFAULT-LABEL: func.func @chain
// DEFAULT-COUNT-1: linalg.generic
// DEFAULT-NOT: linalg.generic
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (0, d1)>
func.func @chain(%x: tensor<?x64xf32>, %r: tensor<1x64xf32>, %n: index) -> tensor<?x64xf32> {
  %init = tensor.empty(%n) : tensor<?x64xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %r : tensor<?x64xf32>, tensor<1x64xf32>) outs(%init : tensor<?x64xf32>) {
  ^bb0(%xe: f32, %re: f32, %out: f32):
    %c = arith.constant 2.0 : f32
    %a1 = arith.mulf %xe, %c : f32
    %a2 = arith.addf %a1, %xe : f32
    %a3 = math.exp %a2 : f32
    %a4 = arith.subf %a3, %a2 : f32
    %a5 = arith.mulf %a4, %re : f32
    %a6 = arith.addf %a5, %out : f32
    linalg.yield %a6 : f32
  } -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}

// -----

// A reduction is never split (its body's values are per reduction step).
// CHECK-LABEL: func.func @reduction
// DEFAULT-LABEL: func.func @reduction
// CHECK-COUNT-1: linalg.generic
// CHECK-NOT: linalg.generic
#id = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>
func.func @reduction(%x: tensor<16x64xf32>, %acc: tensor<16xf32>) -> tensor<16xf32> {
  %y = linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<16x64xf32>) outs(%acc : tensor<16xf32>) {
  ^bb0(%xe: f32, %out: f32):
    %a1 = arith.mulf %xe, %xe : f32
    %a2 = arith.addf %a1, %xe : f32
    %a3 = arith.mulf %a2, %a2 : f32
    %a4 = arith.addf %a3, %out : f32
    linalg.yield %a4 : f32
  } -> tensor<16xf32>
  return %y : tensor<16xf32>
}
