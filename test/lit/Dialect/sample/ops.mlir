// The sample backend's dialect (lib/htp-backend-sample/dialect/sample),
// registered by its crate through htp_dialects::register_dialect only.
// RUN: htp-opt %s | htp-opt | FileCheck %s

// CHECK-LABEL: func.func @f
// CHECK: sample.kernel_info {tile_ops = 3 : i64}
// CHECK: sample.kernel_info {tile_ops = 0 : i64}
func.func @f() {
  sample.kernel_info {tile_ops = 3 : i64}
  sample.kernel_info {tile_ops = 0 : i64}
  return
}
