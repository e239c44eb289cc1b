// A dialect defined in IRDL, loaded with --irdl-file (an extension's
// registry.dialect loads the same text into every HTP context).
irdl.dialect @demo {
  irdl.operation @fma {
    %tile = irdl.any
    irdl.operands(a: %tile, b: %tile, c: %tile)
    irdl.results(result: %tile)
  }
}
