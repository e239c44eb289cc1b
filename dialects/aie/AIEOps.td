//===- AIEOps.td - HTP aie dialect operations --------------*- tablegen -*-===//
//
// mlir-aie's object-FIFO level, with mlir-aie's assembly formats (read from
// include/aie/Dialect/AIE/IR/AIEOps.td at the pin of
// docs/targets/aie-contract.md): HTP prints text that aie-opt parses. Only
// the attributes HTP emits or checks are modelled; every verifier rule has a
// case in test/lit/Dialect/aie/invalid.mlir.
//
//===----------------------------------------------------------------------===//

#ifndef HTP_AIE_OPS
#define HTP_AIE_OPS

include "mlir/IR/OpBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "AIEDialect.td"
include "AIETypes.td"

//===----------------------------------------------------------------------===//
// Enums (mlir-aie's names and values)
//===----------------------------------------------------------------------===//

def AIE_Device : I32EnumAttr<"AIEDevice", "an NPU device (a whole NPU or its first N columns)", [
    I32EnumAttrCase<"npu1", 4>,
    I32EnumAttrCase<"npu1_1col", 5>,
    I32EnumAttrCase<"npu1_2col", 6>,
    I32EnumAttrCase<"npu1_3col", 7>,
    I32EnumAttrCase<"npu2", 8>,
    I32EnumAttrCase<"npu2_1col", 9>,
    I32EnumAttrCase<"npu2_2col", 10>,
    I32EnumAttrCase<"npu2_3col", 11>,
    I32EnumAttrCase<"npu2_4col", 12>,
    I32EnumAttrCase<"npu2_5col", 13>,
    I32EnumAttrCase<"npu2_6col", 14>,
    I32EnumAttrCase<"npu2_7col", 15>
  ]> {
  let cppNamespace = "::htp::aie";
}

def AIE_ObjectFifoPort : I32EnumAttr<"ObjectFifoPort", "an end of an object FIFO", [
    I32EnumAttrCase<"Produce", 0>,
    I32EnumAttrCase<"Consume", 1>
  ]> {
  let cppNamespace = "::htp::aie";
}

// mlir-aie's depth is `AnyAttrOf<[i32, array]>`, so it prints with its
// type (`2 : i32`); HTP models the i32 form only.
def AIE_Depth : AnyAttrOf<[ConfinedAttr<I32Attr, [IntMinValue<1>]>]>;

//===----------------------------------------------------------------------===//
// Device and tiles
//===----------------------------------------------------------------------===//

def AIE_DeviceOp : AIE_Op<"device", [
    Symbol, SymbolTable, IsolatedFromAbove, HasParent<"mlir::ModuleOp">,
    SingleBlockImplicitTerminator<"EndOp">
  ]> {
  let summary = "A design on one NPU device";
  let description = [{
    ```
    aie.device(npu1_1col) {
      %t = aie.tile(0, 2)
      ...
    }
    ```
    Tiles, FIFOs, cores, external kernels (`func.func private`) and the
    runtime sequence live in its one block. Its region verifier holds the
    rules that need the whole design: each tile's data memory (the buffers
    of every FIFO end on it, its `aie.buffer`s and its core's stack) and its
    DMA channels per direction (docs/targets/aie-contract.md).
  }];
  let arguments = (ins AIE_Device:$device,
                       DefaultValuedAttr<SymbolNameAttr, "\"main\"">:$sym_name);
  let regions = (region SizedRegion<1>:$body_region);
  let assemblyFormat = [{
    `(` $device `)` ($sym_name^)? regions attr-dict
  }];
  let hasRegionVerifier = 1;
}

def AIE_EndOp : AIE_Op<"end", [Terminator]> {
  let summary = "Ends an aie region";
  let assemblyFormat = [{ attr-dict }];
}

def AIE_TileOp : AIE_Op<"tile", [
    Pure, HasParent<"DeviceOp">,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>
  ]> {
  let summary = "A tile of the array: (column, row)";
  let description = [{
    `%t = aie.tile(col, row)`: row 0 is the shim (the array's interface to
    host memory), row 1 the memtile, rows 2-5 compute tiles. The
    coordinates must lie inside the device.
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntMinValue<0>]>:$col,
                       ConfinedAttr<I32Attr, [IntMinValue<0>]>:$row);
  let results = (outs Index:$result);
  let assemblyFormat = [{ `(` $col `,` $row `)` attr-dict }];
  let hasVerifier = 1;
}

def AIE_CoreOp : AIE_Op<"core", [HasParent<"DeviceOp">, AutomaticAllocationScope]> {
  let summary = "The code a compute tile runs";
  let description = [{
    ```
    %core = aie.core(%t) {
      ...
      aie.end
    }
    ```
    Its body acquires and releases FIFO objects and computes on them with
    arith/scf/memref/vector ops or calls external kernels. The verifier
    requires a compute tile and, for every FIFO and port, as many objects
    released as acquired in each loop body, branch and the core's body
    itself (an unbalanced iteration hangs the array or its partner).
  }];
  let arguments = (ins Index:$tile,
                       OptionalAttr<ConfinedAttr<I32Attr, [IntMinValue<1>]>>:$stack_size,
                       OptionalAttr<StrAttr>:$link_with);
  let results = (outs Index:$result);
  let regions = (region AnyRegion:$body);
  let assemblyFormat = [{ `(` $tile `)` regions attr-dict }];
  let hasVerifier = 1;
  // The protocol check, after the acquires' and releases' own verifiers.
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// The stack mlir-aie reserves at the bottom of the tile's memory.
    uint32_t getEffectiveStackSize() { return getStackSize().value_or(1024); }
  }];
}

def AIE_BufferOp : AIE_Op<"buffer", [HasParent<"DeviceOp">]> {
  let summary = "A buffer in a tile's memory";
  let description = [{
    `%b = aie.buffer(%t) {sym_name = "acc"} : memref<16xf32>`: counted
    against the tile's memory.
  }];
  let arguments = (ins Index:$tile, OptionalAttr<StrAttr>:$sym_name);
  let results = (outs AnyStaticShapeMemRef:$buffer);
  let assemblyFormat = [{ `(` $tile `)` attr-dict `:` type($buffer) }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Object FIFOs
//===----------------------------------------------------------------------===//

def AIE_ObjectFifoCreateOp : AIE_Op<"objectfifo", [HasParent<"DeviceOp">, Symbol]> {
  let summary = "A FIFO of `depth` objects from one tile to one or more";
  let description = [{
    ```
    aie.objectfifo @in(%shim, {%mem}, 2 : i32) : !aie.objectfifo<memref<256xf32>>
    ```
    Each end holds `depth` objects of the element type in its tile's memory
    (a shim end holds none: it streams host memory). Ends that do not share
    memory are connected by DMA: one output channel (MM2S) at the producer,
    one input channel (S2MM) at each consumer.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       Index:$producerTile,
                       Variadic<Index>:$consumerTiles,
                       AIE_Depth:$elemNumber,
                       TypeAttrOf<AIE_ObjectFifoType>:$elemType);
  let assemblyFormat = [{
    $sym_name `(` $producerTile `,` `{` $consumerTiles `}` `,` $elemNumber `)`
    attr-dict `:` $elemType
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    int64_t getDepth() { return ::llvm::cast<::mlir::IntegerAttr>(getElemNumber()).getInt(); }
    ::mlir::MemRefType getElementMemRef() {
      return ::llvm::cast<AIEObjectFifoType>(getElemType()).getMemref();
    }
  }];
}

def AIE_ObjectFifoLinkOp : AIE_Op<"objectfifo.link", [HasParent<"DeviceOp">]> {
  let summary = "Forwards FIFOs through the tile they share (split/join)";
  let description = [{
    ```
    aie.objectfifo.link [@in] -> [@a, @b] ([] [0, 128])
    ```
    The inputs' consumer and the outputs' producer are one tile (a
    memtile, usually). Several outputs split each input object at the
    destination offsets (in elements); several inputs are joined at the
    source offsets.
  }];
  let arguments = (ins SymbolRefArrayAttr:$fifoIns,
                       SymbolRefArrayAttr:$fifoOuts,
                       I64ArrayAttr:$src_offsets,
                       I64ArrayAttr:$dst_offsets);
  let assemblyFormat = [{
    $fifoIns `->` $fifoOuts `(` $src_offsets $dst_offsets `)` attr-dict
  }];
  let hasVerifier = 1;
}

def AIE_ObjectFifoAcquireOp : AIE_Op<"objectfifo.acquire", []> {
  let summary = "Waits for `size` objects of a FIFO's end and returns them";
  let description = [{
    ```
    %s = aie.objectfifo.acquire @in(Consume, 1) : !aie.objectfifosubview<memref<256xf32>>
    ```
    In the core of the tile at that end. `size` is at most the FIFO's depth
    (mlir-aie would silently enlarge the consumer's buffers).
  }];
  let arguments = (ins AIE_ObjectFifoPort:$port,
                       FlatSymbolRefAttr:$objFifo_name,
                       ConfinedAttr<I32Attr, [IntMinValue<1>]>:$size);
  let results = (outs AIE_ObjectFifoSubviewType:$subview);
  let assemblyFormat = [{
    attr-dict $objFifo_name `(` $port `,` $size `)` `:` qualified(type($subview))
  }];
  let hasVerifier = 1;
}

def AIE_ObjectFifoReleaseOp : AIE_Op<"objectfifo.release", []> {
  let summary = "Hands `size` objects of a FIFO's end back";
  let description = [{
    `aie.objectfifo.release @out(Produce, 1)`: the producer's objects go to
    the consumers, the consumer's back to the producer.
  }];
  let arguments = (ins AIE_ObjectFifoPort:$port,
                       FlatSymbolRefAttr:$objFifo_name,
                       ConfinedAttr<I32Attr, [IntMinValue<1>]>:$size);
  let assemblyFormat = [{
    attr-dict $objFifo_name `(` $port `,` $size `)`
  }];
  let hasVerifier = 1;
}

def AIE_ObjectFifoSubviewAccessOp : AIE_Op<"objectfifo.subview.access", [Pure]> {
  let summary = "One object of an acquired subview";
  let description = [{
    ```
    %o = aie.objectfifo.subview.access %s[0] : !aie.objectfifosubview<memref<256xf32>> -> memref<256xf32>
    ```
  }];
  let arguments = (ins AIE_ObjectFifoSubviewType:$subview,
                       ConfinedAttr<I32Attr, [IntMinValue<0>]>:$index);
  let results = (outs AnyMemRef:$output);
  let assemblyFormat = [{
    $subview `[` $index `]` attr-dict `:` qualified(type($subview)) `->` qualified(type($output))
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Host side
//===----------------------------------------------------------------------===//

def AIE_RuntimeSequenceOp : AIE_Op<"runtime_sequence", [
    Symbol, NoTerminator, HasParent<"DeviceOp">
  ]> {
  let summary = "What the host's command processor runs per call";
  let description = [{
    ```
    aie.runtime_sequence(%a: memref<1024xf32>, %c: memref<1024xf32>) {
      aiex.npu.dma_memcpy_nd(%a[0, 0, 0, 0][1, 1, 1, 1024][0, 0, 0, 1]) {id = 0 : i64, issue_token = true, metadata = @in} : memref<1024xf32>
      aiex.npu.dma_wait {symbol = @in}
    }
    ```
    Its arguments are the host buffers of a call; its body moves them
    through the shim tiles' DMAs (`aiex`). The name (default `sequence`)
    is printed only when it is not the default, as mlir-aie does.
  }];
  let arguments = (ins DefaultValuedAttr<SymbolNameAttr, "\"sequence\"">:$sym_name);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

#endif // HTP_AIE_OPS
