//===- CSPOps.td - process and channel ops --------------------*- tablegen -*-===//

#ifndef HTP_CSP_OPS
#define HTP_CSP_OPS

include "CSPDialect.td"
include "CSPTypes.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

class CSP_Op<string mnemonic, list<Trait> traits = []> : Op<CSP_Dialect, mnemonic, traits>;

def CSP_ChannelOp : CSP_Op<"channel"> {
  let summary = "A channel (or `count` channels) holding up to `depth` elements each";
  let description = [{
    `a = csp.channel(f32, (16, 256), depth=2)` in a `@csp.program`. Made at
    the top of the program, before its processes; each channel has one
    sending and one receiving process (a replicated process uses an array
    of channels, one per replica). `name` is what diagnostics and traces
    call it.

    `pad` (`pad=0.0`): a tile sent with a smaller valid region (a block cut
    by a tensor's edge) travels padded with this value, as
    `htp.pad(t, value)` would; without it such a send is an error.

    ```mlir
    %a = csp.channel "a" depth 2 : !csp.channel<!tile.tile<16x256xf32>>
    %b = csp.channel "b" depth 2 {pad = 0.0 : f32} : !csp.channel<!tile.tile<16x256xf32>>
    ```
  }];
  let arguments = (ins StrAttr:$name, I64Attr:$depth, OptionalAttr<TypedAttrInterface>:$pad);
  let results = (outs CSP_ChannelType:$channel);
  let assemblyFormat = "$name `depth` $depth attr-dict `:` qualified(type($channel))";
  let hasVerifier = 1;
}

def CSP_ProcessOp : CSP_Op<"process", [SingleBlockImplicitTerminator<"YieldOp">, RecursiveMemoryEffects]> {
  let summary = "A process of the program (`replicas` copies, each given its index)";
  let description = [{
    `with csp.process(name="loader"):` or `for w in csp.processes(4):` in a
    `@csp.program`. The body runs concurrently with the other processes;
    it reads the program's tensors and scalars, writes its output tensors,
    and talks to other processes only through channels. A replicated
    process's body takes its replica index as its one argument.

    ```mlir
    csp.process "worker" replicas 4 {
    ^bb0(%w: index):
      %t = csp.recv %in[%w] : !csp.channel<!tile.tile<16x64xf32>, 4> -> !tile.tile<16x64xf32>
    }
    ```
  }];
  let arguments = (ins StrAttr:$name, DefaultValuedAttr<I64Attr, "1">:$replicas);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$name (`replicas` $replicas^)? attr-dict-with-keyword $body";
  let hasVerifier = 1;
}

def CSP_SendOp : CSP_Op<"send"> {
  let summary = "Sends `value` on `channel` (element `index` of an array), blocking while it is full";
  let arguments = (ins CSP_ChannelType:$channel, Optional<Index>:$index, AnyType:$value);
  let assemblyFormat = "$channel (`[` $index^ `]`)? `,` $value attr-dict `:` qualified(type($channel)) `,` qualified(type($value))";
  let hasVerifier = 1;
}

def CSP_RecvOp : CSP_Op<"recv"> {
  let summary = "Receives the next element of `channel` (element `index` of an array), blocking while it is empty";
  let arguments = (ins CSP_ChannelType:$channel, Optional<Index>:$index);
  let results = (outs AnyType:$value);
  let assemblyFormat = "$channel (`[` $index^ `]`)? attr-dict `:` qualified(type($channel)) `->` qualified(type($value))";
  let hasVerifier = 1;
}

def CSP_ConsumeOp : CSP_Op<"consume", [AttrSizedOperandSegments, SingleBlockImplicitTerminator<"YieldOp">, RecursiveMemoryEffects]> {
  let summary = "Receives the next element of `channel` and holds its slot while the body uses it";
  let description = [{
    `with csp.consume(c) as t:` — the body's first argument is the element,
    used in place: the slot is released (the sender may refill it) when the
    body ends. The other arguments and the results carry the variables the
    body reassigns (`inits`), as `scf.for`'s iter_args do.

    ```mlir
    %acc2 = csp.consume %c (%acc) : !csp.channel<!tile.tile<8x8xf32>>, !tile.tile<8x8xf32> -> !tile.tile<8x8xf32> {
    ^bb0(%t: !tile.tile<8x8xf32>, %a: !tile.tile<8x8xf32>):
      %s = tile.add %a, %t : ...
      csp.yield %s : !tile.tile<8x8xf32>
    }
    ```
  }];
  let arguments = (ins CSP_ChannelType:$channel, Optional<Index>:$index, Variadic<AnyType>:$inits);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $channel (`[` $index^ `]`)? `(` $inits `)` attr-dict-with-keyword `:` qualified(type($channel)) (`,` type($inits)^)? (`->` type($results)^)? $body
  }];
  let hasVerifier = 1;
}

def CSP_YieldOp : CSP_Op<"yield", [Pure, Terminator, ParentOneOf<["ProcessOp", "ConsumeOp"]>]> {
  let summary = "Ends a process's body, or a consume's body with the carried values";
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
  let builders = [OpBuilder<(ins), [{ build($_builder, $_state, ::mlir::ValueRange()); }]>];
}

#endif // HTP_CSP_OPS
