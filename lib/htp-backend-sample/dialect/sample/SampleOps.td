//===- SampleOps.td - the sample backend's ops --------------*- tablegen -*-===//

#ifndef HTP_SAMPLE_OPS
#define HTP_SAMPLE_OPS

include "SampleDialect.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Sample_KernelInfoOp : Op<Sample_Dialect, "kernel_info", [Pure]> {
  let summary = "How many tile ops a kernel's IR holds";
  let description = [{
    Written by `sample-count-tile-ops` at the start of each kernel and read
    back by the `sample` target, which reports it as a static metric.

    ```mlir
    sample.kernel_info {tile_ops = 3 : i64}
    ```
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$tile_ops);
  let assemblyFormat = "attr-dict";
}

#endif // HTP_SAMPLE_OPS
