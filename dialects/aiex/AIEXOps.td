//===- AIEXOps.td - HTP aiex dialect operations ------------*- tablegen -*-===//
//
// mlir-aie's assembly formats (include/aie/Dialect/AIEX/IR/AIEX.td at the
// pin). Every verifier rule has a case in test/lit/Dialect/aiex/invalid.mlir.
//
//===----------------------------------------------------------------------===//

#ifndef HTP_AIEX_OPS
#define HTP_AIEX_OPS

include "mlir/IR/OpBase.td"
include "AIEXDialect.td"

def AIEX_NpuDmaMemcpyNdOp : AIEX_Op<"npu.dma_memcpy_nd", [
    AttrSizedOperandSegments, HasParent<"::htp::aie::RuntimeSequenceOp">
  ]> {
  let summary = "A strided host transfer through a FIFO's shim DMA";
  let description = [{
    ```
    aiex.npu.dma_memcpy_nd(%a[0, 0, 0, 0][1, 1, 4, 256][0, 0, 256, 1]) {id = 0 : i64, issue_token = true, metadata = @in} : memref<1024xf32>
    ```
    Offsets, sizes and strides are in elements, outermost first, four of
    each (static here; mlir-aie also takes i64 values). When the FIFO's
    producer is the shim tile the data goes from the host buffer into the
    array, when a consumer is, from the array into the buffer. The window
    must lie inside the buffer, the innermost stride must be 1, and the
    sizes must fit the shim buffer descriptor (innermost at most 1023
    32-bit words, the next at most 1023, the outermost at most 64).
  }];
  let arguments = (ins AnyMemRef:$memref,
                       Variadic<I64>:$offsets,
                       Variadic<I64>:$sizes,
                       Variadic<I64>:$strides,
                       ConfinedAttr<DenseI64ArrayAttr, [DenseArrayCount<4>]>:$static_offsets,
                       ConfinedAttr<DenseI64ArrayAttr, [DenseArrayCount<4>]>:$static_sizes,
                       ConfinedAttr<DenseI64ArrayAttr, [DenseArrayCount<4>]>:$static_strides,
                       SymbolRefAttr:$metadata,
                       I64Attr:$id,
                       DefaultValuedOptionalAttr<BoolAttr, "false">:$issue_token);
  let assemblyFormat = [{
    `(` $memref ``
    custom<DynamicIndexList>($offsets, $static_offsets) ``
    custom<DynamicIndexList>($sizes, $static_sizes) ``
    custom<DynamicIndexList>($strides, $static_strides) `)`
    attr-dict `:` type($memref)
  }];
  let hasVerifier = 1;
}

def AIEX_NpuDmaWaitOp : AIEX_Op<"npu.dma_wait", [HasParent<"::htp::aie::RuntimeSequenceOp">]> {
  let summary = "Waits for the host transfers on a FIFO's shim DMA";
  let description = [{
    `aiex.npu.dma_wait {symbol = @out}`
  }];
  let arguments = (ins FlatSymbolRefAttr:$symbol);
  let assemblyFormat = [{ attr-dict }];
  let hasVerifier = 1;
}

#endif // HTP_AIEX_OPS
