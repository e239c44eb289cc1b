//===- WSPOps.td - workload ops -----------------------------*- tablegen -*-===//

#ifndef HTP_WSP_OPS
#define HTP_WSP_OPS

include "WSPDialect.td"
include "WSPTypes.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

class WSP_Op<string mnemonic, list<Trait> traits = []> : Op<WSP_Dialect, mnemonic, traits>;

def WSP_IntegerTensor : AnyTypeOf<[MemRefRankOf<[AnySignlessInteger, Index], [1]>, MemRefRankOf<[AnySignlessInteger, Index], [2]>],
    "a 1-D (or 1xN) tensor of integers">;

//===----------------------------------------------------------------------===//
// Axes
//===----------------------------------------------------------------------===//

def WSP_DenseOp : WSP_Op<"dense", [Pure]> {
  let summary = "A dense axis of `size` elements";
  let arguments = (ins Index:$size);
  let results = (outs WSP_DenseAxisType:$axis);
  let assemblyFormat = "$size attr-dict";
}

def WSP_RaggedOp : WSP_Op<"ragged", [Pure]> {
  let summary = "A ragged axis: `size` elements, element i of `lengths[i]` positions";
  let description = [{
    Per-request lengths (KV lengths of a decode batch): a loop over the axis
    binds the element and a position below its length. `lengths` is read
    where the workload runs (on the host for cpu, in the orchestration for
    PTO); a length below zero counts as zero.
  }];
  let arguments = (ins Index:$size, WSP_IntegerTensor:$lengths);
  let results = (outs WSP_RaggedAxisType:$axis);
  let assemblyFormat = "$size `,` $lengths attr-dict `:` type($lengths)";
}

def WSP_SparseOp : WSP_Op<"sparse", [Pure]> {
  let summary = "A sparse (CSR) axis: `rows` rows, row i holding indices[indptr[i] .. indptr[i + 1]]";
  let arguments = (ins Index:$rows, WSP_IntegerTensor:$indptr, WSP_IntegerTensor:$indices);
  let results = (outs WSP_SparseAxisType:$axis);
  let assemblyFormat = "$rows `,` $indptr `,` $indices attr-dict `:` type($indptr) `,` type($indices)";
}

def WSP_CoresOp : WSP_Op<"cores", [Pure]> {
  let summary = "How many tasks can run at once where the workload runs";
  let description = [{
    What a planner in the workload divides work by (split-KV decode picks
    its chunk size from it): the schedule's workers on the cpu, the
    clusters pto-runtime reports on PTO (`rt_available_cluster_count`).
  }];
  let results = (outs Index:$count);
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// Loop constructors
//===----------------------------------------------------------------------===//

class WSP_LoopOp<string mnemonic, list<Trait> traits = []>
    : WSP_Op<mnemonic, !listconcat(traits, [SingleBlockImplicitTerminator<"YieldOp">, RecursiveMemoryEffects])> {
  let regions = (region SizedRegion<1>:$body);
  let hasVerifier = 1;
}

def WSP_ParallelOp : WSP_LoopOp<"parallel"> {
  let summary = "Tasks over the product of `axes`, independent by construction";
  let description = [{
    `for b, h in wsp.parallel(B, H)`: every point of the product of the
    axes; iterations do not depend on each other except through the data
    their tasks access. The body's block arguments are the indices: one per
    dense axis, two per ragged (element, position) or sparse (row, column)
    axis, in order.
  }];
  let arguments = (ins Variadic<WSP_AnyAxis>:$axes);
  let assemblyFormat = "`(` $axes `)` attr-dict-with-keyword `:` type($axes) $body";
}

def WSP_SequentialOp : WSP_LoopOp<"sequential"> {
  let summary = "Tasks over one axis, each iteration's after the previous iteration's";
  let arguments = (ins WSP_AnyAxis:$axis);
  let assemblyFormat = "`(` $axis `)` attr-dict-with-keyword `:` type($axis) $body";
}

def WSP_SelectOp : WSP_LoopOp<"select"> {
  let summary = "Tasks over the elements i < `size` whose `predicate[i]` is not zero";
  let description = [{
    `for e in wsp.select(E, counts)`: the experts that received tokens.
    Iterations are independent. The predicate is read when each selected
    iteration's tasks would be issued: on the CPU after the tasks writing
    it finished; on PTO the tasks of every i are submitted with a predicate
    on `predicate[i]`, evaluated by the scheduler (no blocking read).
  }];
  let arguments = (ins Index:$size, WSP_IntegerTensor:$predicate);
  let assemblyFormat = "`(` $size `,` $predicate `)` attr-dict-with-keyword `:` type($predicate) $body";
}

def WSP_WhenOp : WSP_Op<"when", [SingleBlockImplicitTerminator<"YieldOp">, RecursiveMemoryEffects]> {
  let summary = "Tasks issued only when `element` `predicate` `bound` holds";
  let description = [{
    `with wsp.when(wsp.element(counts, e) > t0):` — the condition reads one
    element of a tensor a task may compute. It is evaluated when the tasks
    inside would run (they depend on the element's producer), never by
    stalling the issue of other tasks: the predicated dispatch production
    pto-runtime code uses for MoE.
  }];
  let arguments = (ins AnyTypeOf<[AnySignlessInteger, Index, AnyFloat]>:$element, StrAttr:$predicate, AnyTypeOf<[AnySignlessInteger, Index, AnyFloat]>:$bound);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$element $predicate $bound attr-dict-with-keyword `:` type($element) `,` type($bound) $body";
  let hasVerifier = 1;
}

def WSP_ElementOp : WSP_Op<"element", [Pure]> {
  let summary = "One element of a tensor, read when the tasks it predicates run (a `wsp.when` condition only)";
  let arguments = (ins AnyMemRef:$tensor, Variadic<Index>:$indices);
  let results = (outs AnyTypeOf<[AnySignlessInteger, Index, AnyFloat]>:$value);
  let assemblyFormat = "$tensor `[` $indices `]` attr-dict `:` type($tensor) `->` type($value)";
  let hasVerifier = 1;
}

def WSP_YieldOp : WSP_Op<"yield", [Pure, Terminator, ParentOneOf<["ParallelOp", "SequentialOp", "SelectOp", "WhenOp",
    "PipeOp", "ProcessOp", "ProduceOp", "ConsumeOp"]>]> {
  let summary = "Ends the body of a loop constructor, `wsp.when` or a pipe construct";
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// Pipes: CSP's task level (docs/wsp.md, "Pipes")
//===----------------------------------------------------------------------===//

def WSP_ChannelOp : WSP_Op<"channel"> {
  let summary = "A channel of a pipe: a ring of `depth` tensors (dimension 0 of its type) the runtime allocates";
  let description = [{
    `staged = wsp.channel(f32, (16, 64), depth=2, name="staged")`: the
    result is the ring itself, `memref<2x16x64xf32>`, allocated once per
    call of the workload (a scratch buffer on the cpu, `alloc_tensors` in a
    PTO orchestration). Inside a `wsp.pipe`, one process fills its slots
    (`wsp.produce`) and another reads them (`wsp.consume`);
    `wsp-lower-pipes` turns both into views of the ring, and slot reuse
    orders the tasks (a slot is written again only after its reader ran).

    ```mlir
    %c = wsp.channel "staged" : memref<2x16x64xf32>
    ```
  }];
  let arguments = (ins StrAttr:$name);
  let results = (outs AnyStaticShapeMemRef:$ring);
  let assemblyFormat = "$name attr-dict `:` type($ring)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    int64_t getDepth() { return getRing().getType().getDimSize(0); }
  }];
}

def WSP_PipeOp : WSP_Op<"pipe", [SingleBlockImplicitTerminator<"YieldOp">, RecursiveMemoryEffects, NoRegionArguments]> {
  let summary = "Processes that run together, handing tensors over channels";
  let description = [{
    `with wsp.pipe():` holding `with wsp.process():` blocks. The processes
    iterate together (the same loop, or none): `wsp-lower-pipes` fuses
    them into one `wsp.parallel` loop whose iterations issue each process's
    tasks, producers before consumers, so that a stage of iteration i + 1
    runs while a later stage of iteration i does.
  }];
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "attr-dict-with-keyword $body";
  let hasVerifier = 1;
}

def WSP_ProcessOp : WSP_Op<"process", [SingleBlockImplicitTerminator<"YieldOp">, RecursiveMemoryEffects, NoRegionArguments,
    HasParent<"PipeOp">]> {
  let summary = "One process of a pipe: a chain of tasks, in order";
  let arguments = (ins StrAttr:$name);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$name attr-dict-with-keyword $body";
}

class WSP_SlotOp<string mnemonic, string what> : WSP_Op<mnemonic, [SingleBlockImplicitTerminator<"YieldOp">, RecursiveMemoryEffects]> {
  let summary = "The body's tasks " # what # " the channel's next slot, the body's argument";
  let arguments = (ins AnyStaticShapeMemRef:$channel);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$channel attr-dict-with-keyword `:` type($channel) $body";
  let hasVerifier = 1;
}

def WSP_ProduceOp : WSP_SlotOp<"produce", "write"> {
  let description = [{
    `with wsp.produce(staged) as slot:` (and `wsp.send(staged, kernel, ...)`,
    which passes the slot as the kernel's last argument). The slot is the
    body's one argument, a tensor of the channel's slot shape; it is taken
    when the channel's consumer has released it (its tasks ran).

    ```mlir
    wsp.produce %c : memref<2x16x64xf32> {
    ^bb0(%slot: memref<16x64xf32>):
      wsp.task @load[](%x, %slot) : (memref<16x64xf32>, memref<16x64xf32>) -> ()
    }
    ```
  }];
}

def WSP_ConsumeOp : WSP_SlotOp<"consume", "read"> {
  let description = [{
    `with wsp.consume(staged) as t:`: the oldest slot the producer filled;
    it goes back to the producer after the body's tasks.
  }];
}

//===----------------------------------------------------------------------===//
// Tasks
//===----------------------------------------------------------------------===//

def WSP_ViewOp : WSP_Op<"view", [Pure, AttrSizedOperandSegments]> {
  let summary = "A block of a tensor a task receives: its last `sizes.size()` dimensions from `offsets`";
  let description = [{
    `q[b, i:i + 16, :]` as a task argument: the dimensions before the
    block take one index each (the view drops them), the block's extents
    are `sizes` (the valid extents, smaller at a ragged edge). Strides are
    the tensor's. The result's static extents, where given, are what the
    view is known to hold.
  }];
  let arguments = (ins AnyMemRef:$tensor, Variadic<Index>:$offsets, Variadic<Index>:$sizes);
  let results = (outs AnyMemRef:$view);
  let assemblyFormat = "$tensor `[` $offsets `]` `sizes` `[` $sizes `]` attr-dict `:` type($tensor) `->` type($view)";
  let hasVerifier = 1;
}

def WSP_TaskOp : WSP_Op<"task", [AttrSizedOperandSegments, DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Calls the kernel `callee` as a task on `arguments` (tensor views and scalars), named by `keys`";
  let description = [{
    `wsp.task(attn, q[b:b + 1, :], kv[...], out[...], keys=(b, h))`. The
    arguments match the kernel's parameters one to one: a tensor view has
    the parameter's element type and rank, and its static extents where
    both are static; a scalar has the parameter's type. `keys` name the task
    (traces, placement functions); by default the indices of the enclosing
    loop constructors. `access` (one of "in", "out", "inout", "none" per
    argument; `wsp-infer-access` fills it from the kernel) is what
    dependency inference reads. `stream` puts the task on an in-order lane
    (tasks of one stream run in issue order), `worker` names where it
    runs: what a schedule's `stream_by` / `dispatch_by` functions compute
    from the keys.
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee, Variadic<Index>:$keys, Variadic<AnyType>:$arguments,
                       Optional<Index>:$stream, Optional<Index>:$worker, OptionalAttr<StrArrayAttr>:$access);
  let assemblyFormat = [{
    $callee `[` $keys `]` `(` $arguments `)` (`stream` $stream^)? (`worker` $worker^)? attr-dict `:` functional-type($arguments, results)
  }];
  let hasVerifier = 1;
}

#endif // HTP_WSP_OPS
