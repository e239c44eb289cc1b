//===- LayoutDialect.td - HTP layout dialect definition ----*- tablegen -*-===//
//
// The `layout` dialect holds HTP's layout facets: attributes that say how the
// logical coordinates of a tile or tensor map onto named hardware axes.
//
//===----------------------------------------------------------------------===//

#ifndef HTP_LAYOUT_DIALECT
#define HTP_LAYOUT_DIALECT

include "mlir/IR/OpBase.td"

def Layout_Dialect : Dialect {
  let name = "layout";
  let cppNamespace = "::htp::layout";
  let summary = "Layout facets: logical coordinates mapped to named hardware axes (Axe).";
  let description = [{
    A layout maps each logical coordinate of a tile or tensor to coordinates
    on named hardware axes, after Axe (Hou et al., 2026): every logical
    dimension is split, outermost first, into parts; each part sends its
    digit to one axis with a stride. The axis `m` is memory (an element
    offset in the buffer); any other name is a parallel axis of the target's
    architecture model (`core`, `cluster`, `lane`, ...), so one notion covers
    on-chip tiling, fractal layouts and distribution over cores. Replica axes
    hold a copy of the data each.
  }];
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
    void registerAttributes();
  }];
}

#endif // HTP_LAYOUT_DIALECT
