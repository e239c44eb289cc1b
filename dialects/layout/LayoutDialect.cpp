//===- LayoutDialect.cpp - layout dialect registration -------------------===//

#include "layout/LayoutDialect.h"

using namespace mlir;
using namespace htp::layout;

#include "layout/LayoutDialect.cpp.inc"

void LayoutDialect::initialize() { registerAttributes(); }
