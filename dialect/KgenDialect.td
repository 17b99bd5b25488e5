//===- KgenDialect.td - the kgen dialect ------------------------*- tablegen -*-===//
//
// The kgen dialect: building blocks of LLM workloads (GEMM, attention,
// mixture-of-experts) on ranked tensors, lowered by kgen's passes to tiled
// CUDA kernels and, for the golden reference, to loops on the CPU.
//
//===----------------------------------------------------------------------===//

#ifndef KGEN_DIALECT_TD
#define KGEN_DIALECT_TD

include "mlir/IR/OpBase.td"

def Kgen_Dialect : Dialect {
  let name = "kgen";
  let cppNamespace = "::mlir::kgen";
  let summary = "Kernel-generator ops for LLM workloads: GEMM, attention, MoE.";
  let description = [{
    Ops of the `kgen` dialect describe whole LLM building blocks on ranked,
    statically shaped tensors. Operands of the compute ops are `f16`, `bf16`,
    `f32` or `f8E4M3FN`; accumulation is in `f32`. Every op has exact
    reference semantics: computed in `f32` and rounded once to the declared
    result element type (round-to-nearest-even for `f16`/`bf16`, saturating
    round-to-nearest-even for `f8E4M3FN`), which is what the CPU reference
    pipeline (`kgen-reference-pipeline`) implements and what generated
    kernels are checked against.
  }];
  let useDefaultAttributePrinterParser = 1;
  let usePropertiesForAttributes = 1;
}

class Kgen_Op<string mnemonic, list<Trait> traits = []>
    : Op<Kgen_Dialect, mnemonic, traits>;

#endif // KGEN_DIALECT_TD
