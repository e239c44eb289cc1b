//===- CSPTypes.td - channels ---------------------------------*- tablegen -*-===//

#ifndef HTP_CSP_TYPES
#define HTP_CSP_TYPES

include "CSPDialect.td"
include "mlir/IR/AttrTypeBase.td"

def CSP_ChannelType : TypeDef<CSP_Dialect, "Channel"> {
  let mnemonic = "channel";
  let summary = "A bounded channel of `element` values, or an array of `count` such channels";
  let description = [{
    `!csp.channel<!tile.tile<16x256xf32>>` carries whole 16x256 f32 tiles;
    `!csp.channel<!tile.tile<16x256xf32>, 4>` is four such channels, one
    per replica of a process (`csp.send %c[%w], %t`). The depth (how many
    elements a channel holds before its sender blocks) is the
    `csp.channel` op's.
  }];
  let parameters = (ins "::mlir::Type":$element, DefaultValuedParameter<"int64_t", "1">:$count);
  let assemblyFormat = "`<` $element (`,` $count^)? `>`";
  let genVerifyDecl = 1;
}

#endif // HTP_CSP_TYPES
