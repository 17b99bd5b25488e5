// Found by kgen-fuzz-mlir-pipeline: crashes MLIR 22 itself (libMLIR.so), in
// any tool that registers the linalg dialect (kgen-opt, mlir-opt-22).
// linalg.broadcast's `dimensions = ` (and linalg.transpose's
// `permutation = `, linalg.reduce's `dimensions = `) go through
// parseDenseI64ArrayAttr in mlir/lib/Dialect/Linalg/IR/LinalgOps.cpp, which
// stores DenseI64ArrayAttr::parse's result without checking it: after the
// parse error ("expected '['") a null attribute is set and
// NamedAttrList::set dereferences it (SEGV in mlir::Attribute::getContext).
// mlir-pipeline.cpp skips such inputs (knownUpstreamCrash);
// test/Tools/fuzz-upstream-linalg-broadcast.test expects a plain error.
func.func @f(%b: tensor<48xf32>, %i: tensor<64x48xf32>) -> tensor<64x48xf32> {
  %bb = linalg.broadcast ins(%b : tensor<48xf32>) outs(%i : tensor<64x48xf32>) dimensions = x
  return %bb : tensor<64x48xf32>
}
