# Each parameter kind: tensors (static, symbolic, 1-D, output), scalars, constants (not arguments).
# RUN: htp-translate --import-python %s | FileCheck %s
import htp

# CHECK-LABEL: func.func @params(
# CHECK-SAME: %arg0: memref<?x64xf16>, %arg1: memref<?xi32>, %arg2: memref<8x?xf32>, %arg3: f32, %arg4: i32, %arg5: i64, %arg6: i1, %arg7: bf16)
# CHECK-SAME: attributes {htp.kernel, htp.outputs = array<i64: 2>, llvm.emit_c_interface}
# CHECK: memref.dim %arg0, %{{.*}} : memref<?x64xf16>
# CHECK: memref.expand_shape %arg1 {{\[\[}}0, 1]] output_shape [1, %{{.*}}] : memref<?xi32> into memref<1x?xi32>
# CHECK: return
@htp.kernel
def params(a: htp.Tensor[htp.f16, "N", 64], idx: htp.Tensor[htp.i32, "N"], out: htp.Out[htp.Tensor[htp.f32, 8, "M"]],
           s: htp.f32, n: htp.i32, m: int, flag: bool, h: htp.bf16, BLOCK: htp.Const[int] = 16):
    pass

# A string dimension naming an int constant is static.
# CHECK-LABEL: func.func @const_dims(%arg0: memref<32x128xf32>)
# CHECK-SAME: htp.outputs = array<i64>
@htp.kernel
def const_dims(x: htp.Tensor[htp.f32, "R", "C"], R: htp.Const[int] = 32, C: htp.Const = 128):
    pass

# `htp.InOut` outputs are listed apart: what the kernel does not write keeps its value.
# CHECK-LABEL: func.func @in_out(%arg0: memref<16xf32>, %arg1: memref<16xf32>, %arg2: memref<16xf32>)
# CHECK-SAME: attributes {htp.in_outs = array<i64: 2>, htp.kernel, htp.outputs = array<i64: 1, 2>
@htp.kernel
def in_out(x: htp.Tensor[htp.f32, 16], y: htp.Out[htp.f32, 16], z: htp.InOut[htp.f32, 16]):
    pass
