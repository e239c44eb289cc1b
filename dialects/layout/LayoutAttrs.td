//===- LayoutAttrs.td - HTP layout attributes --------------*- tablegen -*-===//

#ifndef HTP_LAYOUT_ATTRS
#define HTP_LAYOUT_ATTRS

include "mlir/IR/AttrTypeBase.td"
include "LayoutDialect.td"

def Layout_AxeAttr : AttrDef<Layout_Dialect, "Axe"> {
  let mnemonic = "axe";
  let summary = "A layout: each logical dimension's parts on named axes, with strides";
  let description = [{
    `#layout.axe<[E@axis:S, ...] x [E@axis:S, ...], replica = [axis, ...], offset = O>`
    lists, per logical dimension (outermost dimension first), its parts
    (outermost part first): a part of extent `E` (or `?`, known at run time)
    places its digit on hardware axis `axis` with stride `S`. A logical index
    `i` of a dimension with parts `E0, E1, ..., En` has the digits
    `i = d0 (E1 ... En) + ... + dn`; the coordinate on axis `a` is the sum of
    `d_p * S_p` over the parts on `a` (plus `offset` on `m`). `replica` lists
    axes that each hold a whole copy. `replica` and `offset` may be omitted.

    ```mlir
    // 16x64 row-major (PTO's ND)
    #layout.axe<[16@m:64] x [64@m:1]>
    // 16x64 column-major (DN)
    #layout.axe<[16@m:1] x [64@m:16]>
    // 32x32 f16 in 16x16 fractals, blocks column-major, rows inside (NZ)
    #layout.axe<[2@m:256, 16@m:16] x [2@m:512, 16@m:1]>
    // rows spread over cores in blocks of 64, replicated over the lanes
    #layout.axe<[?@core:1, 64@m:64] x [64@m:1], replica = [lane]>
    // a loop's trips over 24 clusters, consecutive trips per cluster
    // (`htp.distribution`, htp_transforms::distribution)
    #layout.axe<[24@cluster:1, ?@iter:1]>
    ```
  }];
  let parameters = (ins
    ArrayRefParameter<"int64_t", "parts per logical dimension">:$partsPerDim,
    ArrayRefParameter<"int64_t", "extent of each part (ShapedType::kDynamic for ?)">:$extents,
    ArrayRefParameter<"::mlir::StringAttr", "hardware axis of each part">:$axes,
    ArrayRefParameter<"int64_t", "stride of each part on its axis">:$strides,
    ArrayRefParameter<"::mlir::StringAttr", "axes holding a copy each">:$replicas,
    "int64_t":$offset
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Number of logical dimensions.
    unsigned getRank() const { return getPartsPerDim().size(); }
    /// The index of the first part of logical dimension `dim`.
    unsigned getFirstPart(unsigned dim) const;
    /// The logical size of dimension `dim`: the product of its extents, or
    /// ShapedType::kDynamic when one is `?`.
    int64_t getDimSize(unsigned dim) const;
    /// Whether every part is on the memory axis `m` and nothing is replicated.
    bool isMemoryOnly() const;
  }];
}

#endif // HTP_LAYOUT_ATTRS
