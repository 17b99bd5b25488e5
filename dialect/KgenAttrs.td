//===- KgenAttrs.td - kgen attributes ---------------------------*- tablegen -*-===//

#ifndef KGEN_ATTRS_TD
#define KGEN_ATTRS_TD

include "dialect/KgenDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Kgen_ActivationNone : I32EnumAttrCase<"none", 0>;
def Kgen_ActivationRelu : I32EnumAttrCase<"relu", 1>;
def Kgen_ActivationGelu : I32EnumAttrCase<"gelu", 2>;
def Kgen_ActivationSilu : I32EnumAttrCase<"silu", 3>;

// gelu is the tanh form: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
// silu is x / (1 + exp(-x)).
def Kgen_Activation : I32EnumAttr<"Activation", "elementwise activation",
    [Kgen_ActivationNone, Kgen_ActivationRelu, Kgen_ActivationGelu,
     Kgen_ActivationSilu]> {
  let cppNamespace = "::mlir::kgen";
  let genSpecializedAttr = 0;
}

def Kgen_ActivationAttr : EnumAttr<Kgen_Dialect, Kgen_Activation, "activation"> {
  let assemblyFormat = "`<` $value `>`";
}

#endif // KGEN_ATTRS_TD
