//===- PTOEnums.td - HTP pto dialect enums -----------------*- tablegen -*-===//
//
// Included by PTOTypes.td, PTOAttrs.td and PTOOps.td; the C++ enums are
// generated once, from PTOOps.td (-gen-enum-decls).
//
//===----------------------------------------------------------------------===//

#ifndef HTP_PTO_ENUMS
#define HTP_PTO_ENUMS

include "mlir/IR/EnumAttr.td"

// Type parameters (PTO-ISA's TileType, BLayout, SLayout, PadValue, Layout).

def PTO_Location : I32EnumAttr<"TileLocation", "where a tile lives (PTO-ISA TileType)", [
    I32EnumAttrCase<"vec", 0>,   // UB, vector core
    I32EnumAttrCase<"mat", 1>,   // L1 (CBUF), cube core
    I32EnumAttrCase<"left", 2>,  // L0A
    I32EnumAttrCase<"right", 3>, // L0B
    I32EnumAttrCase<"acc", 4>,   // L0C
    I32EnumAttrCase<"bias", 5>   // bias table
  ]> {
  let cppNamespace = "::htp::pto";
  let genSpecializedAttr = 0;
}

def PTO_BLayout : I32EnumAttr<"BLayout", "a tile's block layout", [
    I32EnumAttrCase<"row_major", 0>,
    I32EnumAttrCase<"col_major", 1>
  ]> {
  let cppNamespace = "::htp::pto";
  let genSpecializedAttr = 0;
}

def PTO_SLayout : I32EnumAttr<"SLayout", "a tile's inner (fractal box) layout", [
    I32EnumAttrCase<"none", 0>,
    I32EnumAttrCase<"row_major", 1>,
    I32EnumAttrCase<"col_major", 2>
  ]> {
  let cppNamespace = "::htp::pto";
  let genSpecializedAttr = 0;
}

def PTO_PadValue : I32EnumAttr<"PadValue", "what TFILLPAD writes outside the valid region", [
    I32EnumAttrCase<"null", 0>,
    I32EnumAttrCase<"zero", 1>,
    I32EnumAttrCase<"max", 2>,
    I32EnumAttrCase<"min", 3>
  ]> {
  let cppNamespace = "::htp::pto";
  let genSpecializedAttr = 0;
}

def PTO_GTLayout : I32EnumAttr<"GTLayout", "a GM tensor's layout", [
    I32EnumAttrCase<"nd", 0>, // row-major
    I32EnumAttrCase<"dn", 1>, // column-major
    I32EnumAttrCase<"nz", 2>  // cube fractal
  ]> {
  let cppNamespace = "::htp::pto";
  let genSpecializedAttr = 0;
}

// Op attributes.

def PTO_Pipe : I32EnumAttr<"Pipe", "a hardware pipe (set_flag/wait_flag/pipe_barrier)", [
    I32EnumAttrCase<"s", 0>,
    I32EnumAttrCase<"v", 1>,
    I32EnumAttrCase<"mte1", 2>,
    I32EnumAttrCase<"mte2", 3>,
    I32EnumAttrCase<"mte3", 4>,
    I32EnumAttrCase<"m", 5>,
    I32EnumAttrCase<"fix", 6>,
    I32EnumAttrCase<"all", 7>
  ]> {
  let cppNamespace = "::htp::pto";
  let genSpecializedAttr = 0;
}

def PTO_CrossCore : I32EnumAttr<"CrossCore", "direction of a cross-core pipe (TPipe Direction)", [
    I32EnumAttrCase<"c2v", 0>, // cube (AIC) produces, vector (AIV) consumes
    I32EnumAttrCase<"v2c", 1>  // vector (AIV) produces, cube (AIC) consumes
  ]> {
  let cppNamespace = "::htp::pto";
}

def PTO_CmpMode : I32EnumAttr<"CmpMode", "TCMP/TCMPS comparison (CmpMode)", [
    I32EnumAttrCase<"eq", 0>,
    I32EnumAttrCase<"ne", 1>,
    I32EnumAttrCase<"lt", 2>,
    I32EnumAttrCase<"le", 3>,
    I32EnumAttrCase<"gt", 4>,
    I32EnumAttrCase<"ge", 5>
  ]> {
  let cppNamespace = "::htp::pto";
}

def PTO_RoundMode : I32EnumAttr<"RoundMode", "TCVT rounding (RoundMode::CAST_*)", [
    I32EnumAttrCase<"none", 0>,
    I32EnumAttrCase<"rint", 1>,
    I32EnumAttrCase<"round", 2>,
    I32EnumAttrCase<"floor", 3>,
    I32EnumAttrCase<"ceil", 4>,
    I32EnumAttrCase<"trunc", 5>,
    I32EnumAttrCase<"odd", 6>
  ]> {
  let cppNamespace = "::htp::pto";
}

def PTO_ExpandKind : I32EnumAttr<"ExpandKind",
    "the operation of a fused row/column expand (TROWEXPAND<KIND>)", [
    I32EnumAttrCase<"add", 0>,
    I32EnumAttrCase<"sub", 1>,
    I32EnumAttrCase<"mul", 2>,
    I32EnumAttrCase<"div", 3>,
    I32EnumAttrCase<"max", 4>,
    I32EnumAttrCase<"min", 5>,
    I32EnumAttrCase<"expdif", 6>
  ]> {
  let cppNamespace = "::htp::pto";
}

def PTO_MaskPattern : I32EnumAttr<"MaskPattern",
    "which elements of each group TGATHER keeps (PTO-ISA MaskPattern::P*)", [
    I32EnumAttrCase<"p0101", 1>, // the first of every 2
    I32EnumAttrCase<"p1010", 2>, // the second of every 2
    I32EnumAttrCase<"p0001", 3>, // the first of every 4
    I32EnumAttrCase<"p0010", 4>, // the second of every 4
    I32EnumAttrCase<"p0100", 5>, // the third of every 4
    I32EnumAttrCase<"p1000", 6>  // the fourth of every 4
  ]> {
  let cppNamespace = "::htp::pto";
}

#endif // HTP_PTO_ENUMS
