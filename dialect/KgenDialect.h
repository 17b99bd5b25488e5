//===- KgenDialect.h - the kgen dialect -------------------------*- C++ -*-===//
#ifndef KGEN_DIALECT_KGENDIALECT_H
#define KGEN_DIALECT_KGENDIALECT_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"

#include "dialect/KgenDialect.h.inc"
#include "dialect/KgenEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialect/KgenAttrs.h.inc"

#endif // KGEN_DIALECT_KGENDIALECT_H
