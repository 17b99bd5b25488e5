//===- KgenOps.cpp - kgen operations: verifiers and accessors -------------===//
//
// Every verifier failure names the operand (as spelled in KgenOps.td) and
// the expected shape or type. Shapes are printed [d0, d1, ...].
//
//===----------------------------------------------------------------------===//

#include "dialect/KgenOps.h"
#include "dialect/AttentionLegality.h"
#include "dialect/GemmLegality.h"
#include "dialect/GroupedGemmLegality.h"
#include "dialect/KgenTarget.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::kgen;

bool mlir::kgen::isSupportedFloatType(Type type) {
  return type.isF16() || type.isBF16() || type.isF32() ||
         isa<Float8E4M3FNType>(type);
}

//===----------------------------------------------------------------------===//
// Verifier helpers
//===----------------------------------------------------------------------===//

namespace {
std::string shapeString(ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (i)
      s += ", ";
    s += ShapedType::isDynamic(d) ? std::string("?") : std::to_string(d);
  }
  return s + "]";
}

/// Checks shared by every tensor a kgen op touches, in one place so the
/// messages read the same everywhere. `layout` names the dims, e.g. "[M, K]".
class TensorChecker {
public:
  explicit TensorChecker(Operation *op) : op(op) {}

  /// `value` is a static, non-empty tensor of one of the ranks in `ranks`.
  /// On success `type` is set.
  LogicalResult shaped(StringRef name, Value value, ArrayRef<int64_t> ranks,
                       StringRef layout, RankedTensorType &type) {
    type = cast<RankedTensorType>(value.getType());
    if (!llvm::is_contained(ranks, type.getRank()))
      return op->emitOpError() << "'" << name << "' must have rank "
                               << rankList(ranks) << " (" << layout
                               << "); got " << type;
    if (!type.hasStaticShape())
      return op->emitOpError() << "'" << name
                               << "' must have a static shape; got " << type;
    for (auto [i, d] : llvm::enumerate(type.getShape()))
      if (d == 0)
        return op->emitOpError() << "'" << name << "' dimension " << i
                                 << " is 0; kgen ops need non-empty tensors";
    return success();
  }

  /// Element type is one of kgen's compute float types.
  LogicalResult floatElem(StringRef name, RankedTensorType type) {
    if (isSupportedFloatType(type.getElementType()))
      return success();
    return op->emitOpError() << "'" << name << "' has element type "
                             << type.getElementType()
                             << "; expected f16, bf16, f32 or f8E4M3FN";
  }

  /// Element type equals `expected`; `why` says where that comes from.
  LogicalResult elem(StringRef name, RankedTensorType type, Type expected,
                     StringRef why = "") {
    if (type.getElementType() == expected)
      return success();
    InFlightDiagnostic diag = op->emitOpError()
                              << "'" << name << "' has element type "
                              << type.getElementType() << "; expected "
                              << expected;
    if (!why.empty())
      diag << " (" << why << ")";
    return diag;
  }

  /// Whole shape equals `expected`, described by `layout`.
  LogicalResult shape(StringRef name, RankedTensorType type,
                      ArrayRef<int64_t> expected, StringRef layout) {
    if (type.getShape() == expected)
      return success();
    return op->emitOpError() << "'" << name << "' has shape "
                             << shapeString(type.getShape()) << "; expected "
                             << shapeString(expected) << " (" << layout << ")";
  }

  /// One dimension equals `expected`; `dimName` and `source` explain it.
  LogicalResult dim(StringRef name, RankedTensorType type, int64_t index,
                    StringRef dimName, int64_t expected, StringRef source) {
    int64_t got = type.getDimSize(index);
    if (got == expected)
      return success();
    return op->emitOpError() << "'" << name << "' dimension " << index << " ("
                             << dimName << ") is " << got << "; expected "
                             << expected << " (" << source << ")";
  }

  /// a + b without signed overflow, or an error naming `what`.
  FailureOr<int64_t> add(int64_t a, int64_t b, StringRef what) {
    int64_t r;
    if (llvm::AddOverflow(a, b, r)) {
      InFlightDiagnostic diag = op->emitOpError();
      diag << what << " overflows a 64-bit size";
      return failure();
    }
    return r;
  }

  /// a * b without signed overflow, or an error naming `what`.
  FailureOr<int64_t> mul(int64_t a, int64_t b, StringRef what) {
    int64_t r;
    if (llvm::MulOverflow(a, b, r)) {
      InFlightDiagnostic diag = op->emitOpError();
      diag << what << " overflows a 64-bit size";
      return failure();
    }
    return r;
  }

  LogicalResult finite(StringRef name, std::optional<float> value) {
    if (!value || std::isfinite(*value))
      return success();
    return op->emitOpError() << "'" << name << "' must be finite";
  }

private:
  static std::string rankList(ArrayRef<int64_t> ranks) {
    std::string s;
    for (auto [i, r] : llvm::enumerate(ranks)) {
      if (i)
        s += i + 1 == ranks.size() ? " or " : ", ";
      s += std::to_string(r);
    }
    return s;
  }

  Operation *op;
};

/// Shape of an `i32` tensor of ids/positions/offsets.
LogicalResult indexTensor(TensorChecker &check, StringRef name, Value value,
                          ArrayRef<int64_t> expected, StringRef layout) {
  RankedTensorType type;
  if (failed(check.shaped(name, value, {(int64_t)expected.size()}, layout,
                          type)))
    return failure();
  if (failed(check.elem(name, type,
                        IntegerType::get(value.getContext(), 32))))
    return failure();
  return check.shape(name, type, expected, layout);
}

/// `top_k` lies in [1, experts].
LogicalResult checkTopK(Operation *op, int64_t topK, int64_t experts) {
  if (topK >= 1 && topK <= experts)
    return success();
  return op->emitOpError() << "'top_k' is " << topK
                           << "; expected between 1 and the number of "
                              "experts ("
                           << experts << ")";
}

/// The routing rules kgen.moe and kgen.moe_route share: the correction
/// bias, the expert groups and the scaling factor (`top_k` is checked
/// first, by checkTopK).
LogicalResult checkRouting(Operation *op, TensorChecker &check,
                           int64_t experts, const RouteParams &p,
                           std::optional<uint64_t> nGroup,
                           std::optional<uint64_t> topkGroup) {
  if (Value bias = p.correctionBias) {
    RankedTensorType t;
    if (failed(check.shaped("correction_bias", bias, {1}, "[E]", t)) ||
        failed(check.elem("correction_bias", t,
                          Float32Type::get(op->getContext()))) ||
        failed(check.shape("correction_bias", t, {experts},
                           "[E], one per expert")))
      return failure();
  }
  if (nGroup.has_value() != topkGroup.has_value())
    return op->emitOpError("'n_group' and 'topk_group' go together: give "
                           "both or neither");
  if (p.nGroup < 1 || experts % p.nGroup != 0)
    return op->emitOpError() << "'n_group' is " << p.nGroup
                             << "; expected a divisor of the number of "
                                "experts ("
                             << experts << ")";
  if (p.topkGroup < 1 || p.topkGroup > p.nGroup)
    return op->emitOpError() << "'topk_group' is " << p.topkGroup
                             << "; expected between 1 and 'n_group' ("
                             << p.nGroup << ")";
  int64_t groupSize = experts / p.nGroup;
  if (p.correctionBias && p.nGroup > 1 && groupSize < 2)
    return op->emitOpError()
           << "with 'correction_bias' a group is scored by its two best "
              "experts, but 'n_group' "
           << p.nGroup << " leaves " << groupSize << " expert per group";
  if (p.topK > p.topkGroup * groupSize)
    return op->emitOpError() << "'top_k' is " << p.topK << "; the "
                             << p.topkGroup << " kept group(s) of "
                             << groupSize << " experts hold only "
                             << p.topkGroup * groupSize;
  if (!std::isfinite(p.routedScalingFactor) || p.routedScalingFactor <= 0.0f)
    return op->emitOpError("'routed_scaling_factor' must be finite and "
                           "positive");
  return success();
}

/// Rank-`expected.size()` f32 block scales of the given shape.
LogicalResult checkScale(TensorChecker &check, StringRef name, Value value,
                         ArrayRef<int64_t> expected, StringRef layout) {
  RankedTensorType t;
  if (failed(check.shaped(name, value, {(int64_t)expected.size()}, layout,
                          t)) ||
      failed(check.elem(name, t, Float32Type::get(value.getContext()))) ||
      failed(check.shape(name, t, expected, layout)))
    return failure();
  return success();
}

/// With block scales the activations are f16, bf16 or f32 (quantised to
/// e4m3 on the fly).
LogicalResult checkScaledActivations(Operation *op, StringRef name,
                                     Type elem) {
  if (!isa<Float8E4M3FNType>(elem))
    return success();
  return op->emitOpError() << "with 'scales', '" << name
                           << "' must be f16, bf16 or f32 (quantised to "
                              "e4m3 per 128 columns); got "
                           << elem;
}
} // namespace

int64_t mlir::kgen::scaleBlocks(int64_t n) {
  return llvm::divideCeil(n, kScaleBlock);
}

//===----------------------------------------------------------------------===//
// GemmOp
//===----------------------------------------------------------------------===//

/// The checks of a gemm_config that depend on the operands: the instruction's
/// K for the element type and the shared memory of the pipeline stages.
LogicalResult mlir::kgen::verifyGemmConfig(GemmOp op, GemmConfigAttr config) {
  GemmOperands operands = GemmOperands::of(op);
  if (std::optional<GemmLegalityError> e =
          checkGemmLegality(GemmConfigFields::of(config), &operands))
    return op.emitOpError() << e->str();
  return success();
}

int64_t GemmOp::getBatch() {
  auto t = getA().getType();
  return t.getRank() == 3 ? t.getDimSize(0) : 1;
}
int64_t GemmOp::getM() {
  auto t = getA().getType();
  return t.getDimSize(t.getRank() - (getTransposeA() ? 1 : 2));
}
int64_t GemmOp::getK() {
  auto t = getA().getType();
  return t.getDimSize(t.getRank() - (getTransposeA() ? 2 : 1));
}
int64_t GemmOp::getN() {
  auto t = getB().getType();
  return t.getDimSize(t.getRank() - (getTransposeB() ? 2 : 1));
}
Type GemmOp::getAccumulatorType() {
  if (std::optional<Type> acc = getAccType())
    return *acc;
  return Float32Type::get(getContext());
}
float GemmOp::getBetaValue() {
  if (!getC())
    return 0.0f;
  return getBeta() ? getBeta()->convertToFloat() : 1.0f;
}

LogicalResult GemmOp::verify() {
  TensorChecker check(*this);
  RankedTensorType a, b, d;
  if (failed(check.shaped("a", getA(), {2, 3},
                          getTransposeA() ? "[K, M] or [batch, K, M]"
                                          : "[M, K] or [batch, M, K]",
                          a)) ||
      failed(check.floatElem("a", a)) ||
      failed(check.shaped("b", getB(), {2, 3},
                          getTransposeB() ? "[N, K] or [batch, N, K]"
                                          : "[K, N] or [batch, K, N]",
                          b)) ||
      failed(check.elem("b", b, a.getElementType(), "the element type of 'a'")))
    return failure();
  bool batched = a.getRank() == 3;
  if (b.getRank() == 3 && !batched)
    return emitOpError("'b' has a batch dimension but 'a' does not; only a "
                       "'b' without one is broadcast");
  if (b.getRank() == 3 &&
      failed(check.dim("b", b, 0, "batch", a.getDimSize(0), "batch of 'a'")))
    return failure();
  int64_t kDimB = b.getRank() - (getTransposeB() ? 1 : 2);
  if (failed(check.dim("b", b, kDimB, "K", getK(), "K of 'a'")))
    return failure();

  SmallVector<int64_t> outShape;
  if (batched)
    outShape.push_back(a.getDimSize(0));
  outShape.append({getM(), getN()});
  StringRef outLayout = batched ? "[batch, M, N]" : "[M, N]";
  if (failed(check.shaped("d", getD(), {a.getRank()}, outLayout, d)) ||
      failed(check.floatElem("d", d)) ||
      failed(check.shape("d", d, outShape, outLayout)))
    return failure();

  if (Value bias = getBias()) {
    RankedTensorType t;
    if (failed(check.shaped("bias", bias, {1}, "[N]", t)) ||
        failed(check.floatElem("bias", t)) ||
        failed(check.shape("bias", t, {getN()}, "[N]")))
      return failure();
  }
  if (Value c = getC()) {
    RankedTensorType t;
    if (failed(check.shaped("c", c, {a.getRank()}, outLayout, t)) ||
        failed(check.floatElem("c", t)) ||
        failed(check.shape("c", t, outShape, outLayout)))
      return failure();
  } else if (getBeta()) {
    return emitOpError("'beta' scales the residual and needs a residual "
                       "operand 'c'");
  }
  if (failed(check.finite("alpha", getAlpha().convertToFloat())) ||
      failed(check.finite("beta", getBetaValue())))
    return failure();

  if (std::optional<Type> acc = getAccType()) {
    if (!acc->isF32() && !acc->isF16())
      return emitOpError() << "'acc_type' is " << *acc
                           << "; expected f32 or f16";
    if (acc->isF16() && !a.getElementType().isF16())
      return emitOpError() << "'acc_type' f16 needs f16 operands; 'a' has "
                           << a.getElementType();
  }
  if (GemmConfigAttr config = getConfigAttr())
    return verifyGemmConfig(*this, config);
  return success();
}

//===----------------------------------------------------------------------===//
// AttentionOp
//===----------------------------------------------------------------------===//

std::optional<float> AttentionOp::getSoftcapValue() {
  if (std::optional<APFloat> cap = getSoftcap())
    return cap->convertToFloat();
  return std::nullopt;
}

std::optional<int64_t> AttentionOp::getLeftWindow() {
  if (std::optional<uint64_t> l = getWindowLeft())
    return int64_t(*l);
  if (std::optional<uint64_t> w = getSlidingWindow())
    return int64_t(*w) - 1;
  return std::nullopt;
}

std::optional<int64_t> AttentionOp::getRightWindow() {
  if (std::optional<uint64_t> r = getWindowRight())
    return int64_t(*r);
  return std::nullopt;
}
bool AttentionOp::isVarlen() { return bool(getCuSeqlensQ()); }
int64_t AttentionOp::getBatch() {
  if (isVarlen())
    return getCuSeqlensQ().getType().getDimSize(0) - 1;
  return getQ().getType().getDimSize(0);
}
int64_t AttentionOp::getQueryHeads() { return getQ().getType().getDimSize(1); }
int64_t AttentionOp::getKvHeads() {
  return getK().getType().getDimSize(getPagesNhd() ? 2 : 1);
}
int64_t AttentionOp::getSeqQ() {
  return getQ().getType().getDimSize(isVarlen() ? 0 : 2);
}
int64_t AttentionOp::getSeqKv() {
  if (Value table = getBlockTable()) // M * P, varlen or not
    return cast<RankedTensorType>(table.getType()).getDimSize(1) *
           getPageSize();
  if (isVarlen())
    return getK().getType().getDimSize(0);
  return getK().getType().getDimSize(2);
}
int64_t AttentionOp::getPageSize() {
  return getBlockTable() ? getK().getType().getDimSize(getPagesNhd() ? 1 : 2)
                         : 0;
}
int64_t AttentionOp::getNumPages() {
  return getBlockTable() ? getK().getType().getDimSize(0) : 0;
}
int64_t AttentionOp::getHeadDim() {
  RankedTensorType q = getQ().getType();
  return q.getDimSize(q.getRank() - 1);
}
float AttentionOp::getScaleValue() {
  if (std::optional<APFloat> s = getScale())
    return s->convertToFloat();
  return 1.0f / std::sqrt(static_cast<float>(getHeadDim()));
}

LogicalResult AttentionOp::verify() {
  TensorChecker check(*this);
  RankedTensorType q, k, v, o;
  bool paged = bool(getBlockTable());
  bool varlen = bool(getCuSeqlensQ());
  if (varlen != bool(getCuSeqlensK()))
    return emitOpError("'cu_seqlens_q' and 'cu_seqlens_k' come together");
  if (varlen && getKvLens())
    return emitOpError("cu_seqlens gives each sequence its lengths: not "
                       "with 'kv_lens'");
  // Token-major queries with cu_seqlens; K and V pages with a block table
  // (a varlen batch over a paged cache takes its key counts from
  // cu_seqlens_k), else token-major with cu_seqlens, else padded.
  int64_t rank = varlen ? 3 : 4, kvRank = paged || !varlen ? 4 : 3;
  const char *qShape = varlen ? "[Tq, Hq, D] (packed tokens)" : "[B, Hq, Sq, D]";
  if (getPagesNhd() && !paged)
    return emitOpError("'pages_nhd' orders the pages of a paged cache: give "
                       "a 'block_table'");
  const char *kvShape = paged    ? (getPagesNhd() ? "[N, P, Hkv, D] (NHD pages)"
                                                  : "[N, Hkv, P, D] (pages)")
                        : varlen ? "[Tk, Hkv, D] (packed tokens)"
                                 : "[B, Hkv, Skv, D]";
  if (failed(check.shaped("q", getQ(), {rank}, qShape, q)) ||
      failed(check.floatElem("q", q)) ||
      failed(check.shaped("k", getK(), {kvRank}, kvShape, k)) ||
      failed(check.shaped("v", getV(), {kvRank}, kvShape, v)))
    return failure();
  if (varlen) {
    RankedTensorType cq, ck;
    Type i32 = IntegerType::get(getContext(), 32);
    if (failed(check.shaped("cu_seqlens_q", getCuSeqlensQ(), {1}, "[B + 1]",
                            cq)) ||
        failed(check.elem("cu_seqlens_q", cq, i32)) ||
        failed(check.shaped("cu_seqlens_k", getCuSeqlensK(), {1}, "[B + 1]",
                            ck)) ||
        failed(check.elem("cu_seqlens_k", ck, i32)) ||
        failed(check.shape("cu_seqlens_k", ck, cq.getShape(),
                           "[B + 1], the shape of 'cu_seqlens_q'")))
      return failure();
    if (cq.getDimSize(0) < 2)
      return emitOpError("'cu_seqlens_q' holds no sequence: [B + 1] with "
                         "B >= 1");
  }
  // K and V: Q's element type, or an e4m3 cache read by 16-bit or e4m3
  // queries.
  Type qElem = q.getElementType(), kvElem = k.getElementType();
  bool e4m3Cache = isa<Float8E4M3FNType>(kvElem) && !qElem.isF32();
  if (kvElem != qElem && !e4m3Cache)
    return emitOpError() << "'k' has element type " << kvElem
                         << "; expected " << qElem
                         << " (the element type of 'q'), or f8E4M3FN (an "
                            "e4m3 cache) when 'q' is bf16, f16 or f8E4M3FN";
  if (failed(check.elem("v", v, kvElem, "the element type of 'k'")))
    return failure();
  for (auto [name, value, operand] :
       {std::tuple{"q_descale", getQDescale(), q},
        std::tuple{"k_descale", getKDescale(), k},
        std::tuple{"v_descale", getVDescale(), v}}) {
    if (!value)
      continue;
    if (!isa<Float8E4M3FNType>(operand.getElementType()))
      return emitOpError() << "'" << name << "' dequantises an f8E4M3FN "
                           << "operand, but '" << StringRef(name).take_front(1)
                           << "' is " << operand.getElementType();
    RankedTensorType t;
    if (failed(check.shaped(name, value, {1}, "[1]", t)) ||
        failed(check.elem(name, t, Float32Type::get(getContext()))) ||
        failed(check.shape(name, t, {1}, "[1], one factor per tensor")))
      return failure();
  }

  int64_t batch = getBatch(), hq = getQueryHeads(), hkv = getKvHeads();
  int64_t sq = getSeqQ(), hd = getHeadDim();
  if (hd < 32 || hd > 256 || hd % 8 != 0)
    return emitOpError() << "head_dim (dimension " << rank - 1
                         << " of 'q') is " << hd
                         << "; expected a multiple of 8 in [32, 256]";
  if (Value table = getBlockTable()) {
    // A paged cache: K and V hold N pages of P keys of every K/V head.
    int64_t pages = k.getDimSize(0), pageSize = getPageSize();
    RankedTensorType t;
    if (failed(check.shaped("block_table", table, {2}, "[B, M]", t)) ||
        failed(check.elem("block_table", t,
                          IntegerType::get(getContext(), 32))) ||
        failed(check.shape("block_table", t, {batch, t.getDimSize(1)},
                           varlen ? "[B, M] with B + 1 of 'cu_seqlens_q'"
                                  : "[B, M] with B of 'q'")))
      return failure();
    if (t.getDimSize(1) < 1)
      return emitOpError("'block_table' needs at least one page per "
                         "sequence (dimension 1)");
    bool nhd = getPagesNhd();
    if (pageSize < 1 || pageSize > 256)
      return emitOpError() << "page size (dimension " << (nhd ? 1 : 2)
                           << " of 'k') is " << pageSize
                           << "; expected 1 to 256";
    if (pages < 1)
      return emitOpError("'k' holds no page (dimension 0)");
    SmallVector<int64_t> pagesShape =
        nhd ? SmallVector<int64_t>{pages, pageSize, hkv, hd}
            : SmallVector<int64_t>{pages, hkv, pageSize, hd};
    std::string layout = nhd ? "[N, P, Hkv, D]" : "[N, Hkv, P, D]";
    if (failed(check.shape("k", k, pagesShape, layout + " with D of 'q'")) ||
        failed(check.shape("v", v, pagesShape, layout + ", the shape of 'k'")))
      return failure();
  } else if (varlen) {
    int64_t tk = getSeqKv();
    if (failed(check.shape("k", k, {tk, hkv, hd}, "[Tk, Hkv, D] with D of 'q'")) ||
        failed(check.shape("v", v, {tk, hkv, hd},
                           "[Tk, Hkv, D], the shape of 'k'")))
      return failure();
  } else if (failed(check.shape("k", k, {batch, hkv, getSeqKv(), hd},
                                "[B, Hkv, Skv, D] with B and D of 'q'")) ||
             failed(check.shape("v", v, {batch, hkv, getSeqKv(), hd},
                                "[B, Hkv, Skv, D], the shape of 'k'"))) {
    return failure();
  }
  if (hq % hkv != 0)
    return emitOpError() << "query heads (" << hq
                         << ") must be a multiple of key/value heads (" << hkv
                         << ")";

  const char *outShape = varlen ? "[Tq, Hq, D], as 'q'" : "[B, Hq, Sq, D], as 'q'";
  if (failed(check.shaped("out", getOut(), {rank}, outShape, o)) ||
      failed(check.floatElem("out", o)) ||
      failed(check.shape("out", o, q.getShape(), outShape)))
    return failure();
  if (isa<Float8E4M3FNType>(o.getElementType()))
    return emitOpError("'out' has element type f8E4M3FN; an attention's "
                       "output is bf16, f16 or f32");
  if (Value lse = getLse()) {
    RankedTensorType t;
    // FlashAttention's varlen log-sum-exp is head-major: [Hq, Tq].
    SmallVector<int64_t> lseShape =
        varlen ? SmallVector<int64_t>{hq, sq} : SmallVector<int64_t>{batch, hq, sq};
    const char *lseText = varlen ? "[Hq, Tq]" : "[B, Hq, Sq]";
    if (failed(check.shaped("lse", lse, {int64_t(lseShape.size())}, lseText,
                            t)) ||
        failed(check.elem("lse", t, Float32Type::get(getContext()))) ||
        failed(check.shape("lse", t, lseShape, lseText)))
      return failure();
  }
  if (Value lens = getKvLens())
    if (failed(indexTensor(check, "kv_lens", lens, {batch}, "[B]")))
      return failure();

  if (std::optional<APFloat> s = getScale())
    if (!s->isFinite() || s->isZero())
      return emitOpError("'scale' must be finite and non-zero");
  if (std::optional<float> cap = getSoftcapValue())
    if (!std::isfinite(*cap) || *cap <= 0.0f)
      return emitOpError("'softcap' must be finite and positive");
  if (std::optional<int64_t> w = getSlidingWindow()) {
    if (*w < 1)
      return emitOpError() << "'sliding_window' is " << *w
                           << "; expected at least 1";
    if (!getCausal())
      return emitOpError("'sliding_window' needs 'causal'");
  }
  for (auto [name, w] : {std::pair{"window_left", getWindowLeft()},
                         std::pair{"window_right", getWindowRight()}})
    if (w && int64_t(*w) < 0)
      return emitOpError() << "'" << name << "' is " << int64_t(*w)
                           << "; expected at least 0";
  if (getSlidingWindow() && getWindowLeft())
    return emitOpError("'sliding_window' is 'window_left' + 1 with "
                       "'causal': give one of them");
  if (Value slopes = getAlibiSlopes()) {
    RankedTensorType t;
    if (failed(check.shaped("alibi_slopes", slopes, {1}, "[Hq]", t)) ||
        failed(check.elem("alibi_slopes", t, Float32Type::get(getContext()))) ||
        failed(check.shape("alibi_slopes", t, {hq}, "[Hq], one per query head")))
      return failure();
  }
  if (AttentionConfigAttr config = getConfigAttr()) {
    AttentionOperands operands = AttentionOperands::of(*this);
    if (std::optional<AttentionLegalityError> e = checkAttentionLegality(
            AttentionConfigFields::of(config), &operands))
      return emitOpError() << e->str();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// MoE ops
//===----------------------------------------------------------------------===//

static Value operandOrNull(OperandRange range, unsigned i) {
  return i < range.size() ? range[i] : Value();
}

/// The routing attributes, which kgen.moe and kgen.moe_route spell alike.
template <typename OpT>
static RouteParams routeParamsOf(OpT op) {
  RouteParams p;
  p.topK = op.getTopK();
  p.renormalize = op.getRenormalize();
  p.scoring = op.getScoring();
  p.correctionBias = op.getCorrectionBias();
  p.nGroup = op.getNGroup() ? int64_t(*op.getNGroup()) : 1;
  p.topkGroup = op.getTopkGroup() ? int64_t(*op.getTopkGroup()) : 1;
  p.routedScalingFactor = op.getRoutedScalingFactor().convertToFloat();
  return p;
}

RouteParams MoeOp::getRouteParams() { return routeParamsOf(*this); }

bool MoeOp::isPlainSoftmaxMoe() {
  return getRouteParams().isPlainSoftmax() && getScales().empty() &&
         getShared().empty() && getSharedScales().empty();
}

Value MoeOp::getWGateScale() { return operandOrNull(getScales(), 0); }
Value MoeOp::getWUpScale() { return operandOrNull(getScales(), 1); }
Value MoeOp::getWDownScale() { return operandOrNull(getScales(), 2); }
Value MoeOp::getSharedGate() { return operandOrNull(getShared(), 0); }
Value MoeOp::getSharedUp() { return operandOrNull(getShared(), 1); }
Value MoeOp::getSharedDown() { return operandOrNull(getShared(), 2); }
Value MoeOp::getSharedGateScale() { return operandOrNull(getSharedScales(), 0); }
Value MoeOp::getSharedUpScale() { return operandOrNull(getSharedScales(), 1); }
Value MoeOp::getSharedDownScale() { return operandOrNull(getSharedScales(), 2); }

LogicalResult MoeOp::verify() {
  TensorChecker check(*this);
  RankedTensorType x, logits, wg, wu, wd, y;
  if (failed(check.shaped("x", getX(), {2}, "[T, H]", x)) ||
      failed(check.floatElem("x", x)) ||
      failed(check.shaped("router_logits", getRouterLogits(), {2}, "[T, E]",
                          logits)) ||
      failed(check.floatElem("router_logits", logits)) ||
      failed(check.dim("router_logits", logits, 0, "T", x.getDimSize(0),
                       "tokens of 'x'")))
    return failure();
  int64_t tokens = x.getDimSize(0), hidden = x.getDimSize(1);
  int64_t experts = logits.getDimSize(1);
  // The weights' element type: x's, or e4m3 with block scales.
  bool scaled = !getScales().empty();
  if (scaled && getScales().size() != 3)
    return emitOpError() << "'scales' takes 3 operands (the scales of "
                            "w_gate, w_up, w_down); got "
                         << getScales().size();
  if (scaled && failed(checkScaledActivations(*this, "x", x.getElementType())))
    return failure();
  Type wElem = scaled ? Type(Float8E4M3FNType::get(getContext()))
                      : x.getElementType();
  std::string why = scaled ? "the weights of 'scales' are e4m3"
                           : "the element type of 'x'";
  auto weightElem = [&](StringRef name, RankedTensorType t) {
    if (!scaled && isa<Float8E4M3FNType>(t.getElementType()) &&
        t.getElementType() != wElem)
      return check.elem(name, t, wElem,
                        why + "; e4m3 weights of another 'x' need 'scales'");
    return check.elem(name, t, wElem, why);
  };
  if (failed(check.shaped("w_gate", getWGate(), {3}, "[E, H, I]", wg)) ||
      failed(weightElem("w_gate", wg)))
    return failure();
  int64_t inter = wg.getDimSize(2);
  if (failed(check.shape("w_gate", wg, {experts, hidden, inter},
                         "[E, H, I] with E of 'router_logits', H of 'x'")) ||
      failed(check.shaped("w_up", getWUp(), {3}, "[E, H, I]", wu)) ||
      failed(weightElem("w_up", wu)) ||
      failed(check.shape("w_up", wu, wg.getShape(), "[E, H, I], as 'w_gate'")) ||
      failed(check.shaped("w_down", getWDown(), {3}, "[E, I, H]", wd)) ||
      failed(weightElem("w_down", wd)) ||
      failed(check.shape("w_down", wd, {experts, inter, hidden},
                         "[E, I, H] with E, I of 'w_gate'")) ||
      failed(check.shaped("y", getY(), {2}, "[T, H]", y)) ||
      failed(check.floatElem("y", y)) ||
      failed(check.shape("y", y, {tokens, hidden}, "[T, H], as 'x'")))
    return failure();
  int64_t hb = scaleBlocks(hidden), ib = scaleBlocks(inter);
  if (scaled &&
      (failed(checkScale(check, "w_gate scale", getWGateScale(),
                         {experts, hb, ib}, "[E, ceil(H/128), ceil(I/128)]")) ||
       failed(checkScale(check, "w_up scale", getWUpScale(), {experts, hb, ib},
                         "[E, ceil(H/128), ceil(I/128)]")) ||
       failed(checkScale(check, "w_down scale", getWDownScale(),
                         {experts, ib, hb}, "[E, ceil(I/128), ceil(H/128)]"))))
    return failure();

  // The shared expert: [H, Is], [H, Is], [Is, H] in the weights' type.
  if (!getShared().empty()) {
    if (getShared().size() != 3)
      return emitOpError() << "'shared' takes 3 operands (the shared "
                              "expert's gate, up and down weights); got "
                           << getShared().size();
    RankedTensorType sg, su, sd;
    if (failed(check.shaped("shared gate", getSharedGate(), {2}, "[H, Is]",
                            sg)) ||
        failed(weightElem("shared gate", sg)) ||
        failed(check.dim("shared gate", sg, 0, "H", hidden, "H of 'x'")))
      return failure();
    int64_t sInter = sg.getDimSize(1);
    if (failed(check.shaped("shared up", getSharedUp(), {2}, "[H, Is]", su)) ||
        failed(weightElem("shared up", su)) ||
        failed(check.shape("shared up", su, sg.getShape(),
                           "[H, Is], as the shared gate")) ||
        failed(check.shaped("shared down", getSharedDown(), {2}, "[Is, H]",
                            sd)) ||
        failed(weightElem("shared down", sd)) ||
        failed(check.shape("shared down", sd, {sInter, hidden},
                           "[Is, H] with Is of the shared gate")))
      return failure();
    if (scaled != !getSharedScales().empty())
      return emitOpError(scaled ? "the shared expert's e4m3 weights need "
                                  "'shared_scales', as the routed ones have "
                                  "'scales'"
                                : "'shared_scales' needs 'scales': the "
                                  "shared expert's weights are e4m3 only "
                                  "when the routed ones are");
    if (scaled) {
      if (getSharedScales().size() != 3)
        return emitOpError() << "'shared_scales' takes 3 operands (the "
                                "scales of the shared gate, up and down "
                                "weights); got "
                             << getSharedScales().size();
      int64_t sb = scaleBlocks(sInter);
      if (failed(checkScale(check, "shared gate scale", getSharedGateScale(),
                            {hb, sb}, "[ceil(H/128), ceil(Is/128)]")) ||
          failed(checkScale(check, "shared up scale", getSharedUpScale(),
                            {hb, sb}, "[ceil(H/128), ceil(Is/128)]")) ||
          failed(checkScale(check, "shared down scale", getSharedDownScale(),
                            {sb, hb}, "[ceil(Is/128), ceil(H/128)]")))
        return failure();
    }
  } else if (!getSharedScales().empty()) {
    return emitOpError("'shared_scales' needs a shared expert ('shared')");
  }

  if (getActivation() == Activation::none)
    return emitOpError("the gated FFN needs an activation: silu, gelu or relu");
  int64_t topK = static_cast<int64_t>(getTopK());
  if (failed(checkTopK(*this, topK, experts)) ||
      failed(checkRouting(*this, check, experts, getRouteParams(), getNGroup(),
                          getTopkGroup())) ||
      failed(check.mul(tokens, topK, "tokens * top_k")))
    return failure();
  // The expert GEMMs: [T * k, H] x [E, H, I] gated, [T * k, I] x [E, I, H]
  // (with block scales, over e4m3 operands: the quantised activations and
  // the weights).
  Type gemmElem = scaled ? getWGate().getType().getElementType()
                         : x.getElementType();
  Type aElem = scaled ? x.getElementType() : Type();
  GroupedGemmOperands gateUp{gemmElem, x.getElementType(), hidden, inter,
                             /*gated=*/true, scaled, aElem};
  GroupedGemmOperands down{gemmElem, x.getElementType(), inter, hidden,
                           /*gated=*/false, scaled, aElem};
  for (auto [name, config, operands] :
       {std::tuple<StringRef, GroupedGemmConfigAttr, GroupedGemmOperands>{
            "gate_up_config", getGateUpConfigAttr(), gateUp},
        {"down_config", getDownConfigAttr(), down}})
    if (config)
      if (std::optional<GroupedGemmLegalityError> e = checkGroupedGemmLegality(
              GroupedGemmConfigFields::of(config), &operands))
        return emitOpError() << "'" << name << "': " << e->str();
  return success();
}

RouteParams MoeRouteOp::getRouteParams() { return routeParamsOf(*this); }

LogicalResult MoeRouteOp::verify() {
  TensorChecker check(*this);
  RankedTensorType logits, w;
  if (failed(check.shaped("router_logits", getRouterLogits(), {2}, "[T, E]",
                          logits)) ||
      failed(check.floatElem("router_logits", logits)) ||
      failed(checkTopK(*this, static_cast<int64_t>(getTopK()),
                            logits.getDimSize(1))) ||
      failed(checkRouting(*this, check, logits.getDimSize(1),
                          getRouteParams(), getNGroup(), getTopkGroup())))
    return failure();
  SmallVector<int64_t> outShape = {logits.getDimSize(0),
                                  static_cast<int64_t>(getTopK())};
  if (failed(indexTensor(check, "expert_ids", getExpertIds(), outShape,
                         "[T, top_k]")) ||
      failed(check.shaped("weights", getWeights(), {2}, "[T, top_k]", w)) ||
      failed(check.elem("weights", w, Float32Type::get(getContext()))) ||
      failed(check.shape("weights", w, outShape, "[T, top_k]")))
    return failure();
  return success();
}

LogicalResult MoePermuteOp::verify() {
  TensorChecker check(*this);
  RankedTensorType x, ids, permuted;
  if (failed(check.shaped("x", getX(), {2}, "[T, H]", x)) ||
      failed(check.floatElem("x", x)) ||
      failed(check.shaped("expert_ids", getExpertIds(), {2}, "[T, k]", ids)) ||
      failed(check.elem("expert_ids", ids,
                        IntegerType::get(getContext(), 32))) ||
      failed(check.dim("expert_ids", ids, 0, "T", x.getDimSize(0),
                       "tokens of 'x'")))
    return failure();
  int64_t experts = getNumExperts();
  if (experts < 1)
    return emitOpError() << "'num_experts' is " << experts
                         << "; expected at least 1";
  FailureOr<int64_t> rows =
      check.mul(x.getDimSize(0), ids.getDimSize(1), "tokens * k");
  FailureOr<int64_t> offsetCount = check.add(experts, 1, "num_experts + 1");
  if (failed(rows) || failed(offsetCount) ||
      failed(check.shaped("permuted", getPermuted(), {2}, "[T * k, H]",
                          permuted)) ||
      failed(check.elem("permuted", permuted, x.getElementType(),
                        "the element type of 'x'")) ||
      failed(check.shape("permuted", permuted, {*rows, x.getDimSize(1)},
                         "[T * k, H]")) ||
      failed(indexTensor(check, "positions", getPositions(), ids.getShape(),
                         "[T, k], as 'expert_ids'")) ||
      failed(indexTensor(check, "expert_offsets", getExpertOffsets(),
                         {*offsetCount}, "[num_experts + 1]")))
    return failure();
  return success();
}

Value GroupedGemmOp::getBScale() { return operandOrNull(getScales(), 0); }
Value GroupedGemmOp::getBUpScale() { return operandOrNull(getScales(), 1); }

LogicalResult GroupedGemmOp::verify() {
  TensorChecker check(*this);
  RankedTensorType a, b, d;
  bool scaled = !getScales().empty();
  Type bElem = scaled ? Type(Float8E4M3FNType::get(getContext())) : Type();
  if (failed(check.shaped("a", getA(), {2}, "[R, K]", a)) ||
      failed(check.floatElem("a", a)) ||
      (scaled &&
       failed(checkScaledActivations(*this, "a", a.getElementType()))) ||
      failed(check.shaped("b", getB(), {3}, "[E, K, N]", b)) ||
      failed(scaled ? check.elem("b", b, bElem,
                                 "the weights of 'scales' are e4m3")
                    : check.elem("b", b, a.getElementType(),
                                 "the element type of 'a'")) ||
      failed(check.dim("b", b, 1, "K", a.getDimSize(1), "K of 'a'")))
    return failure();
  if (scaled) {
    unsigned want = getBUp() ? 2 : 1;
    if (getScales().size() != want)
      return emitOpError() << "'scales' takes " << want << " operand"
                           << (want == 2 ? "s (the scales of b and b_up)"
                                         : " (the scale of b)")
                           << "; got " << getScales().size();
    SmallVector<int64_t> shape = {b.getDimSize(0),
                                  scaleBlocks(b.getDimSize(1)),
                                  scaleBlocks(b.getDimSize(2))};
    StringRef layout = "[E, ceil(K/128), ceil(N/128)]";
    if (failed(checkScale(check, "b scale", getBScale(), shape, layout)) ||
        (getBUp() &&
         failed(checkScale(check, "b_up scale", getBUpScale(), shape, layout))))
      return failure();
  }
  FailureOr<int64_t> offsetCount = check.add(b.getDimSize(0), 1, "E + 1");
  if (failed(offsetCount) ||
      failed(indexTensor(check, "expert_offsets", getExpertOffsets(),
                         {*offsetCount}, "[E + 1] with E of 'b'")))
    return failure();
  if (Value up = getBUp()) {
    RankedTensorType t;
    if (failed(check.shaped("b_up", up, {3}, "[E, K, N]", t)) ||
        failed(check.elem("b_up", t, b.getElementType(),
                          "the element type of 'b'")) ||
        failed(check.shape("b_up", t, b.getShape(), "[E, K, N], as 'b'")))
      return failure();
  }
  if (failed(check.shaped("d", getD(), {2}, "[R, N]", d)) ||
      failed(check.floatElem("d", d)) ||
      failed(check.shape("d", d, {a.getDimSize(0), b.getDimSize(2)},
                         "[R, N]")))
    return failure();
  if (GroupedGemmConfigAttr config = getConfigAttr()) {
    GroupedGemmOperands operands{
        scaled ? b.getElementType() : a.getElementType(), d.getElementType(),
        a.getDimSize(1), b.getDimSize(2), getBUp() != nullptr, scaled,
        scaled ? a.getElementType() : Type()};
    if (std::optional<GroupedGemmLegalityError> e = checkGroupedGemmLegality(
            GroupedGemmConfigFields::of(config), &operands))
      return emitOpError() << e->str();
  }
  return success();
}

LogicalResult MoeCombineOp::verify() {
  TensorChecker check(*this);
  RankedTensorType eo, pos, w, y;
  if (failed(check.shaped("expert_out", getExpertOut(), {2}, "[T * k, H]",
                          eo)) ||
      failed(check.floatElem("expert_out", eo)) ||
      failed(check.shaped("positions", getPositions(), {2}, "[T, k]", pos)) ||
      failed(check.elem("positions", pos,
                        IntegerType::get(getContext(), 32))))
    return failure();
  int64_t tokens = pos.getDimSize(0), k = pos.getDimSize(1);
  FailureOr<int64_t> rows = check.mul(tokens, k, "tokens * k");
  if (failed(rows) ||
      failed(check.dim("expert_out", eo, 0, "T * k", *rows,
                       "tokens * k of 'positions'")) ||
      failed(check.shaped("weights", getWeights(), {2}, "[T, k]", w)) ||
      failed(check.floatElem("weights", w)) ||
      failed(check.shape("weights", w, pos.getShape(),
                         "[T, k], as 'positions'")) ||
      failed(check.shaped("y", getY(), {2}, "[T, H]", y)) ||
      failed(check.floatElem("y", y)) ||
      failed(check.shape("y", y, {tokens, eo.getDimSize(1)}, "[T, H]")))
    return failure();
  if (Value z = getSharedOut()) {
    RankedTensorType t;
    if (failed(check.shaped("shared_out", z, {2}, "[T, H]", t)) ||
        failed(check.floatElem("shared_out", t)) ||
        failed(check.shape("shared_out", t, y.getShape(), "[T, H], as 'y'")))
      return failure();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Work estimates
//===----------------------------------------------------------------------===//

std::optional<double> mlir::kgen::estimateFlops(Operation *op) {
  auto dims = [](Value v) {
    return cast<RankedTensorType>(v.getType()).getShape();
  };
  if (auto gemm = dyn_cast<GemmOp>(op))
    return 2.0 * gemm.getBatch() * gemm.getM() * gemm.getN() * gemm.getK();
  if (auto attn = dyn_cast<AttentionOp>(op)) {
    // Packed variable-length sequences count as B even ones (the lengths
    // are runtime values): Tq * Tk / B pairs; over a paged cache each
    // sequence's key capacity M * P: Tq * M * P.
    if (attn.isVarlen())
      return 4.0 * attn.getQueryHeads() * attn.getSeqQ() * attn.getSeqKv() *
             attn.getHeadDim() /
             (attn.getBlockTable() ? 1.0 : double(attn.getBatch()));
    return 4.0 * attn.getBatch() * attn.getQueryHeads() * attn.getSeqQ() *
           attn.getSeqKv() * attn.getHeadDim();
  }
  if (auto moe = dyn_cast<MoeOp>(op)) {
    ArrayRef<int64_t> wg = dims(moe.getWGate());
    double tokens = dims(moe.getX())[0];
    double flops = 6.0 * tokens * moe.getTopK() * wg[1] * wg[2];
    if (Value sg = moe.getSharedGate())
      flops += 6.0 * tokens * dims(sg)[0] * dims(sg)[1];
    return flops;
  }
  if (auto gg = dyn_cast<GroupedGemmOp>(op)) {
    ArrayRef<int64_t> b = dims(gg.getB());
    return (gg.getBUp() ? 4.0 : 2.0) * dims(gg.getA())[0] * b[1] * b[2];
  }
  return std::nullopt;
}

#define GET_OP_CLASSES
#include "dialect/KgenOps.cpp.inc"
