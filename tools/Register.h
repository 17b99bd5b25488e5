//===- Register.h - one registration for every kgen tool --------*- C++ -*-===//
#ifndef KGEN_TOOLS_REGISTER_H
#define KGEN_TOOLS_REGISTER_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlir::kgen {
/// The kgen dialect, the upstream dialects kgen lowers through, and their
/// interface extensions (bufferization, LLVM translation, ...).
void registerKgenDialects(DialectRegistry &registry);

/// The kgen passes (generated registerKgenPasses) and pipelines, and the
/// upstream passes kgen uses.
void registerAllKgenPasses();
} // namespace mlir::kgen

#endif // KGEN_TOOLS_REGISTER_H
