// tile.add(tile.mul(a, b), c) -> demo.fma(a, b, c), for htp-apply-pdl.mlir
// (demo.fma is defined in IRDL: Inputs/demo.irdl.mlir).
pdl.pattern @fuse_fma : benefit(1) {
  %type = pdl.type
  %a = pdl.operand
  %b = pdl.operand
  %c = pdl.operand
  %mul = pdl.operation "tile.mul"(%a, %b : !pdl.value, !pdl.value) -> (%type : !pdl.type)
  %product = pdl.result 0 of %mul
  %add = pdl.operation "tile.add"(%product, %c : !pdl.value, !pdl.value) -> (%type : !pdl.type)
  pdl.rewrite %add {
    %fma = pdl.operation "demo.fma"(%a, %b, %c : !pdl.value, !pdl.value, !pdl.value) -> (%type : !pdl.type)
    pdl.replace %add with %fma
  }
}
