// The sample model's dialect (lib/htp-model-sample/dialect/cells), registered
// by its crate through htp_dialects::register_dialect only.
// RUN: htp-opt %s | htp-opt | FileCheck %s

// CHECK-LABEL: func.func @cells
func.func @cells(%x: f32, %n: i32) -> f32 {
  // CHECK: %[[C:.+]] = cells.new %{{.+}} : f32
  %c = cells.new %x : f32
  // CHECK: cells.put %[[C]], %{{.+}} : <f32>
  cells.put %c, %x : !cells.cell<f32>
  // CHECK: cells.get %[[C]] : <f32>
  %v = cells.get %c : !cells.cell<f32>
  // CHECK: cells.new %{{.+}} : i32
  %d = cells.new %n : i32
  return %v : f32
}
