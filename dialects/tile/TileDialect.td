//===- TileDialect.td - HTP tile dialect definition --------*- tablegen -*-===//
//
// The `tile` dialect is HTP's target-neutral tile algebra: the level at which
// users' kernels are expressed before any target decides where a tile lives.
//
//===----------------------------------------------------------------------===//

#ifndef HTP_TILE_DIALECT
#define HTP_TILE_DIALECT

include "mlir/IR/OpBase.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::htp::tile";
  let summary = "Target-neutral 2-D tile algebra for HTP kernels.";
  let description = [{
    A tile is a small, statically shaped 2-D block of elements that a kernel
    holds on chip. Tiles are values: ops take tiles and produce new tiles,
    and only `tile.load`, `tile.store`, `tile.gather` and `tile.scatter` touch
    memory. A tile may carry a *valid region*, the leading rows and columns
    that hold data; elements outside it are padding whose values are
    unspecified. Targets (PTO, AIE, CPU) decide placement, layout and
    synchronisation later.
  }];
  let useDefaultTypePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect", "::htp::layout::LayoutDialect"];
  let extraClassDeclaration = [{
    void registerTypes();
  }];
}

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

#endif // HTP_TILE_DIALECT
