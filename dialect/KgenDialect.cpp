//===- KgenDialect.cpp - the kgen dialect ---------------------------------===//
#include "dialect/KgenDialect.h"
#include "dialect/KgenOps.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::kgen;

#include "dialect/KgenDialect.cpp.inc"
#include "dialect/KgenEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialect/KgenAttrs.cpp.inc"

void KgenDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialect/KgenOps.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "dialect/KgenTileOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialect/KgenAttrs.cpp.inc"
      >();
}
