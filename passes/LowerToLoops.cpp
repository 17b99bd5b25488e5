//===- LowerToLoops.cpp - kgen ops -> scf loops (CPU reference) -----------===//
//
// Precondition: verified kgen ops on static tensors.
// Postcondition: no kgen op is left; each became
//
//   %buf = bufferization.to_buffer %operand read_only   (per operand)
//   %out = memref.alloc()                                (per result)
//   scf.for ... { memref.load / arith / math / memref.store }
//   %res = bufferization.to_tensor %out restrict writable
//
// Arithmetic is f32 throughout: every element is widened with arith.extf on
// load and rounded once with arith.truncf on store (the definition of each
// op in KgenOps.td says where its rounding points are). Reductions run in
// index order, so two ops with the same definition give identical bits.
// Data-dependent indices (expert ids, offsets, positions, kv_lens) are
// range-checked before any memory access: bad data never reads or writes out
// of bounds.
//
// Elementwise ops on static tensors around them (user IR: arith, math) that
// are not inside a loop become loops too, applying the same scalar op to
// each element, so the reference pipeline's compile time stays linear in
// the number of ops (through convert-elementwise-to-linalg, one-shot
// bufferization's in-place analysis of a chain of n ops is cubic in n: 1000
// took 49 s). Consecutive ones of one shape in a block share one loop nest
// (one nest per op would make convert-scf-to-cf quadratic). A result
// reuses an operand's buffer when that operand is the only use of a buffer
// this pass allocated in the same block (the op reads each element before
// writing it), so a chain runs in one buffer as before; otherwise it gets a
// fresh one. A tensor read only by such ops is read through one
// bufferization.to_buffer. Elementwise ops inside loops are left to
// convert-elementwise-to-linalg: a fresh buffer per iteration would never
// be freed.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/RefBuilder.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <limits>

namespace mlir::kgen {
#define GEN_PASS_DEF_KGENLOWERTOLOOPS
#include "passes/Passes.h.inc"
} // namespace mlir::kgen

using namespace mlir;
using namespace mlir::kgen;

namespace {
//===----------------------------------------------------------------------===//
// Per-op lowerings. Each returns the result tensors in op result order.
//===----------------------------------------------------------------------===//

/// D = act(alpha * op(A) op(B) + beta * C + bias), see KgenOps.td.
SmallVector<Value> lowerGemm(GemmOp op, RefBuilder &rb) {
  bool batched = op.getA().getType().getRank() == 3;
  bool batchedB = op.getB().getType().getRank() == 3;
  Value a = rb.buffer(op.getA()), b = rb.buffer(op.getB());
  Value bias = op.getBias() ? rb.buffer(op.getBias()) : Value();
  Value c = op.getC() ? rb.buffer(op.getC()) : Value();
  Value d = rb.alloc(op.getD().getType());
  bool f16Acc = op.getAccumulatorType().isF16();
  float alpha = op.getAlpha().convertToFloat(), beta = op.getBetaValue();

  rb.loop(op.getBatch(), [&](Value bt) {
    rb.loop(op.getM(), [&](Value m) {
      rb.loop(op.getN(), [&](Value n) {
        Value acc = rb.reduce(op.getK(), rb.f32(0.0), [&](Value k, Value acc) {
          SmallVector<Value> ia, ib;
          if (batched)
            ia.push_back(bt);
          if (batchedB)
            ib.push_back(bt);
          ia.append(op.getTransposeA() ? SmallVector<Value>{k, m}
                                       : SmallVector<Value>{m, k});
          ib.append(op.getTransposeB() ? SmallVector<Value>{n, k}
                                       : SmallVector<Value>{k, n});
          Value sum = rb.addf(acc, rb.mulf(rb.loadF32(a, ia), rb.loadF32(b, ib)));
          if (!f16Acc)
            return sum;
          Value h = arith::TruncFOp::create(rb.b, rb.b.getF16Type(), sum);
          return Value(arith::ExtFOp::create(rb.b, rb.b.getF32Type(), h));
        });
        SmallVector<Value> io;
        if (batched)
          io.push_back(bt);
        io.append({m, n});
        Value v = rb.mulf(rb.f32(alpha), acc);
        if (c)
          v = rb.addf(v, rb.mulf(rb.f32(beta), rb.loadF32(c, io)));
        if (bias)
          v = rb.addf(v, rb.loadF32(bias, n));
        rb.storeF32(rb.activation(op.getActivation(), v), d, io);
      });
    });
  });
  return {rb.tensor(d, op.getD().getType())};
}

/// One query row of kgen.attention (KgenOps.td), in three passes over a
/// scratch row of logits: logits and max, exp and sum, then the weighted
/// sum of V divided by the sum. The layouts differ only in where the
/// operands are, which the callbacks say.
struct AttentionRowRef {
  Value row, orow;        // scratch: p_j of the row, its summed output
  Value logitScale;       // scale * dq * dk
  Value outScale;         // dv, or null
  Value slopes;           // ALiBi, or null
  std::optional<float> cap;
  std::optional<int64_t> left, right;
  bool causal = false;
  int64_t headDim = 0;

  /// Keys j in [0, keys) (masked at j >= len), the query at position pos
  /// of head h; q(d) loads Q's element d, kv(j) the K and V indices of key
  /// j less the last, store(d, o) and storeLse(l) (null without an LSE)
  /// write the results.
  void run(RefBuilder &rb, Value keys, Value len, Value pos, Value h,
           function_ref<Value(Value)> q, function_ref<SmallVector<Value>(Value)> kv,
           Value k, Value v, function_ref<void(Value, Value)> store,
           function_ref<void(Value)> storeLse) {
    float negInf = -std::numeric_limits<float>::infinity();
    auto at = [&](Value j, Value d) {
      SmallVector<Value> idx = kv(j);
      idx.push_back(d);
      return idx;
    };
    // Pass 1: masked logits into `row`, and their max.
    Value mx = rb.reduce(rb.idx(0), keys, {rb.f32(negInf)},
                         [&](Value j, ValueRange acc) {
      Value dot = rb.reduce(headDim, rb.f32(0.0), [&](Value dd, Value sum) {
        return rb.addf(sum, rb.mulf(q(dd), rb.loadF32(k, at(j, dd))));
      });
      Value s = rb.mulf(logitScale, dot);
      if (cap)
        s = rb.mulf(rb.f32(*cap),
                    math::TanhOp::create(rb.b, rb.divf(s, rb.f32(*cap))));
      if (slopes) // ALiBi
        s = rb.subf(s, rb.alibiBias(rb.loadF32(slopes, {h}), pos, j));
      Value visible = rb.attentionVisible(j, len, pos, causal, left, right);
      s = rb.select(visible, s, rb.f32(negInf));
      memref::StoreOp::create(rb.b, s, row, j);
      return SmallVector<Value>{rb.maxf(acc[0], s)};
    })[0];
    // A row with no visible key has max -inf: use 0 so exp(-inf - 0) = 0.
    Value any = rb.cmpf(arith::CmpFPredicate::OGT, mx, rb.f32(negInf));
    Value shift = rb.select(any, mx, rb.f32(0.0));
    // Pass 2: p_j = exp(s_j - max) in place, and their sum.
    Value sum = rb.reduce(rb.idx(0), keys, {rb.f32(0.0)},
                          [&](Value j, ValueRange acc) {
      Value p = rb.exp(rb.subf(memref::LoadOp::create(rb.b, row, j), shift));
      memref::StoreOp::create(rb.b, p, row, j);
      return SmallVector<Value>{rb.addf(acc[0], p)};
    })[0];
    Value nonEmpty = rb.cmpf(arith::CmpFPredicate::OGT, sum, rb.f32(0.0));
    // Pass 3: O[i, d] = sum_j p_j V[j, d] / sum, the keys outermost (each
    // key's place found once) and each sum in j order.
    rb.loop(headDim, [&](Value dd) {
      memref::StoreOp::create(rb.b, rb.f32(0.0), orow, dd);
    });
    rb.loop(rb.idx(0), keys, [&](Value j) {
      Value p = memref::LoadOp::create(rb.b, row, j);
      SmallVector<Value> key = kv(j);
      rb.loop(headDim, [&](Value dd) {
        SmallVector<Value> idx = key;
        idx.push_back(dd);
        Value acc = memref::LoadOp::create(rb.b, orow, dd);
        acc = rb.addf(acc, rb.mulf(p, rb.loadF32(v, idx)));
        memref::StoreOp::create(rb.b, acc, orow, dd);
      });
    });
    rb.loop(headDim, [&](Value dd) {
      Value o = memref::LoadOp::create(rb.b, orow, dd);
      if (outScale)
        o = rb.mulf(o, outScale);
      store(dd, rb.select(nonEmpty, rb.divf(o, sum), rb.f32(0.0)));
    });
    if (!storeLse) // an op without the log-sum-exp
      return;
    Value l = rb.addf(shift, math::LogOp::create(rb.b, sum));
    storeLse(rb.select(nonEmpty, l, rb.f32(negInf)));
  }
};

/// The indices of key j of sequence bi, K/V head hk, in a paged cache
/// (every dimension but D, in the op's page order: [N, Hkv, P] or with
/// pages_nhd [N, P, Hkv]): the block table's entry for the key's page
/// (clamped into [0, N)) and row j mod P, for a visible key; a key j >= L
/// reads page 0, masked (its entry may be padding).
std::function<SmallVector<Value>(Value, Value)>
pagedKey(RefBuilder &rb, AttentionOp op, Value table, Value bi, Value len) {
  int64_t pageSize = op.getPageSize(), pages = op.getNumPages();
  bool nhd = op.getPagesNhd();
  return [&rb, table, bi, len, pageSize, pages, nhd](Value j, Value hk) {
    Value entry = rb.loadIndex(table, {bi, rb.divi(j, pageSize)});
    Value page = rb.clamp(entry, rb.idx(0), rb.idx(pages - 1));
    Value read = rb.cmpi(arith::CmpIPredicate::slt, j, len);
    page = rb.select(read, page, rb.idx(0));
    Value row = rb.remi(j, pageSize);
    return nhd ? SmallVector<Value>{page, row, hk}
               : SmallVector<Value>{page, hk, row};
  };
}

/// O = softmax(mask(softcap(scale Q K^T) - alibi)) V per (batch, head,
/// query row), one AttentionRowRef each: [B, H, S, D] (K and V through the
/// block table when paged), or token-major variable-length sequences.
SmallVector<Value> lowerAttention(AttentionOp op, RefBuilder &rb) {
  int64_t batch = op.getBatch(), hq = op.getQueryHeads();
  int64_t group = hq / op.getKvHeads();
  int64_t sq = op.getSeqQ(), skv = op.getSeqKv(), hd = op.getHeadDim();
  Value q = rb.buffer(op.getQ()), k = rb.buffer(op.getK()),
        v = rb.buffer(op.getV());
  Value lens = op.getKvLens() ? rb.buffer(op.getKvLens()) : Value();
  Value table = op.getBlockTable() ? rb.buffer(op.getBlockTable()) : Value();
  Value out = rb.alloc(op.getOut().getType());
  Value lse = op.getLse() ? rb.alloc(op.getLse().getType()) : Value();
  AttentionRowRef ref;
  ref.row = rb.alloc({skv}, rb.b.getF32Type());
  ref.orow = rb.alloc({hd}, rb.b.getF32Type());
  // Per-tensor descale factors of e4m3 operands (1 when absent): the
  // logits' factor scale * dq * dk, and the output's dv.
  auto factor = [&](Value descale) {
    return descale ? rb.loadF32(rb.buffer(descale), {rb.idx(0)}) : Value();
  };
  // scale * (dq * dk), grouped as the kernels compute it.
  Value descale;
  for (Value d : {factor(op.getQDescale()), factor(op.getKDescale())})
    if (d)
      descale = descale ? rb.mulf(descale, d) : d;
  ref.logitScale = rb.f32(op.getScaleValue());
  if (descale)
    ref.logitScale = rb.mulf(ref.logitScale, descale);
  ref.outScale = factor(op.getVDescale());
  ref.slopes = op.getAlibiSlopes() ? rb.buffer(op.getAlibiSlopes()) : Value();
  ref.cap = op.getSoftcapValue();
  ref.left = op.getLeftWindow();
  ref.right = op.getRightWindow();
  ref.causal = op.getCausal();
  ref.headDim = hd;

  if (op.isVarlen()) {
    // Sequence b: query tokens [qs, qe), key tokens [ks, ke) of the packed
    // [T, H, D] operands (offsets clamped); rows of no sequence keep 0 and
    // -inf.
    float negInf = -std::numeric_limits<float>::infinity();
    rb.fill(out, rb.zero(cast<MemRefType>(out.getType()).getElementType()));
    if (lse)
      rb.fill(lse, rb.f32(negInf));
    Value cuQ = rb.buffer(op.getCuSeqlensQ()),
          cuK = rb.buffer(op.getCuSeqlensK());
    auto span = [&](Value cu, Value bi, int64_t total) {
      Value first = rb.clamp(rb.loadIndex(cu, bi), rb.idx(0), rb.idx(total));
      Value last = rb.clamp(rb.loadIndex(cu, rb.addi(bi, rb.idx(1))), first,
                            rb.idx(total));
      return std::pair{first, last};
    };
    rb.loop(batch, [&](Value bi) {
      auto [qs, qe] = span(cuQ, bi, sq);
      Value ks, len;
      if (table) { // key counts only: min(max(ck[b + 1], s) - s, M * P)
        ks = rb.maxsi(rb.loadIndex(cuK, bi), rb.idx(0));
        Value ke = rb.maxsi(rb.loadIndex(cuK, rb.addi(bi, rb.idx(1))), ks);
        len = rb.minsi(rb.subi(ke, ks), rb.idx(skv));
      } else {
        auto [first, last] = span(cuK, bi, skv);
        ks = first;
        len = rb.subi(last, first);
      }
      Value rows = rb.subi(qe, qs);
      // Key j of the sequence: token ks + j, or through the block table.
      auto paged = pagedKey(rb, op, table, bi, len);
      rb.loop(hq, [&](Value h) {
        Value hk = rb.divi(h, group);
        rb.loop(qs, qe, [&](Value t) {
          Value pos = rb.subi(rb.addi(rb.subi(t, qs), len), rows);
          auto storeLse = [&](Value l) { rb.storeF32(l, lse, {h, t}); };
          ref.run(
              rb, len, len, pos, h,
              [&](Value d) { return rb.loadF32(q, {t, h, d}); },
              [&](Value j) {
                return table ? paged(j, hk)
                             : SmallVector<Value>{rb.addi(ks, j), hk};
              },
              k, v, [&](Value d, Value o) { rb.storeF32(o, out, {t, h, d}); },
              lse ? function_ref<void(Value)>(storeLse) : nullptr);
        });
      });
    });
  } else {
    rb.loop(batch, [&](Value bi) {
      Value len = lens ? rb.clamp(rb.loadIndex(lens, bi), rb.idx(0),
                                  rb.idx(skv))
                       : rb.idx(skv);
      // Key j in K and V: (b, hk, j), or through the block table.
      auto paged = pagedKey(rb, op, table, bi, len);
      rb.loop(hq, [&](Value h) {
        Value hk = rb.divi(h, group);
        rb.loop(sq, [&](Value i) {
          Value pos = rb.subi(rb.addi(i, len), rb.idx(sq)); // bottom-right
          auto storeLse = [&](Value l) { rb.storeF32(l, lse, {bi, h, i}); };
          ref.run(
              rb, rb.idx(skv), len, pos, h,
              [&](Value d) { return rb.loadF32(q, {bi, h, i, d}); },
              [&](Value j) {
                return table ? paged(j, hk) : SmallVector<Value>{bi, hk, j};
              },
              k, v,
              [&](Value d, Value o) { rb.storeF32(o, out, {bi, h, i, d}); },
              lse ? function_ref<void(Value)>(storeLse) : nullptr);
        });
      });
    });
  }
  memref::DeallocOp::create(rb.b, ref.row);
  memref::DeallocOp::create(rb.b, ref.orow);
  SmallVector<Value> results = {rb.tensor(out, op.getOut().getType())};
  if (lse)
    results.push_back(rb.tensor(lse, op.getLse().getType()));
  return results;
}

} // namespace

RouteScratch mlir::kgen::allocRouteScratch(RefBuilder &rb, int64_t experts,
                                           const RouteParams &p,
                                           Value biasBuffer) {
  RouteScratch scratch;
  scratch.scores = rb.alloc({experts}, rb.b.getF32Type());
  scratch.bias = biasBuffer;
  scratch.choice = biasBuffer ? rb.alloc({experts}, rb.b.getF32Type())
                              : scratch.scores;
  if (p.nGroup > 1) {
    scratch.groupScore = rb.alloc({p.nGroup}, rb.b.getF32Type());
    scratch.keep = rb.alloc({p.nGroup}, rb.b.getI1Type());
  }
  return scratch;
}

void mlir::kgen::deallocRouteScratch(RefBuilder &rb,
                                     const RouteScratch &scratch) {
  for (Value v : {scratch.scores, scratch.groupScore, scratch.keep})
    if (v)
      memref::DeallocOp::create(rb.b, v);
  if (scratch.choice != scratch.scores)
    memref::DeallocOp::create(rb.b, scratch.choice);
}

namespace {
/// The best of [0, n) by `score(i)` among those `eligible(i)` (strictly
/// greater wins, so ties go to the lower index); the first eligible one
/// when none compares greater (NaN scores). Returns the index (-1 when none
/// is eligible).
Value argmaxEligible(RefBuilder &rb, int64_t n,
                     function_ref<Value(Value)> score,
                     function_ref<Value(Value)> eligible) {
  using P = arith::CmpIPredicate;
  float negInf = -std::numeric_limits<float>::infinity();
  return rb.reduce(
      rb.idx(0), rb.idx(n), {rb.idx(-1), rb.f32(negInf)},
      [&](Value i, ValueRange cur) {
        Value v = score(i);
        Value better = rb.cmpf(arith::CmpFPredicate::OGT, v, cur[1]);
        Value none = rb.cmpi(P::slt, cur[0], rb.idx(0));
        Value take =
            rb.andi(eligible(i), arith::OrIOp::create(rb.b, better, none));
        return SmallVector<Value>{rb.select(take, i, cur[0]),
                                  rb.select(take, v, cur[1])};
      })[0];
}
} // namespace

/// kgen.moe_route's definition for token `t` (KgenOps.td): scores, choice
/// scores, group selection, top-k, then the weights.
void mlir::kgen::emitRoute(RefBuilder &rb, Value logits, Value t,
                           int64_t experts, const RouteParams &p,
                           const RouteScratch &scratch, Value ids,
                           Value weights) {
  float negInf = -std::numeric_limits<float>::infinity();
  using P = arith::CmpIPredicate;
  Value scores = scratch.scores, choice = scratch.choice;
  auto load = [&](Value mem, Value i) -> Value {
    return memref::LoadOp::create(rb.b, mem, i);
  };
  auto store = [&](Value v, Value mem, Value i) {
    memref::StoreOp::create(rb.b, v, mem, i);
  };
  // Scores s.
  if (p.scoring == Scoring::softmax) {
    Value mx = rb.reduce(experts, rb.f32(negInf), [&](Value e, Value acc) {
      return rb.maxf(acc, rb.loadF32(logits, {t, e}));
    });
    Value sum = rb.reduce(experts, rb.f32(0.0), [&](Value e, Value acc) {
      Value pe = rb.exp(rb.subf(rb.loadF32(logits, {t, e}), mx));
      store(pe, scores, e);
      return rb.addf(acc, pe);
    });
    rb.loop(experts,
            [&](Value e) { store(rb.divf(load(scores, e), sum), scores, e); });
  } else {
    rb.loop(experts, [&](Value e) {
      store(rb.sigmoid(rb.loadF32(logits, {t, e})), scores, e);
    });
  }
  // Choice scores c = s + bias.
  if (scratch.bias)
    rb.loop(experts, [&](Value e) {
      store(rb.addf(load(scores, e), load(scratch.bias, e)), choice, e);
    });
  // Group-limited: keep the topk_group best groups.
  int64_t groupSize = experts / p.nGroup;
  if (scratch.keep) {
    rb.loop(p.nGroup, [&](Value g) {
      Value lo = rb.muli(g, groupSize);
      // The two largest choice scores of the group, the larger first.
      SmallVector<Value> top2 = rb.reduce(
          lo, rb.addi(lo, rb.idx(groupSize)), {rb.f32(negInf), rb.f32(negInf)},
          [&](Value e, ValueRange m) {
            Value c = load(choice, e);
            Value above1 = rb.cmpf(arith::CmpFPredicate::OGT, c, m[0]);
            Value above2 = rb.cmpf(arith::CmpFPredicate::OGT, c, m[1]);
            return SmallVector<Value>{
                rb.select(above1, c, m[0]),
                rb.select(above1, m[0], rb.select(above2, c, m[1]))};
          });
      store(scratch.bias ? rb.addf(top2[0], top2[1]) : top2[0],
            scratch.groupScore, g);
      store(rb.boolean(false), scratch.keep, g);
    });
    rb.loop(p.topkGroup, [&](Value) {
      Value best = argmaxEligible(
          rb, p.nGroup, [&](Value g) { return load(scratch.groupScore, g); },
          [&](Value g) {
            return arith::XOrIOp::create(rb.b, load(scratch.keep, g),
                                         rb.boolean(true));
          });
      store(rb.boolean(true), scratch.keep, best);
    });
  }
  // Top-k by choice score among the kept experts; the weight is s.
  Value total = rb.reduce(p.topK, rb.f32(0.0), [&](Value s, Value acc) {
    Value best = argmaxEligible(
        rb, experts, [&](Value e) { return load(choice, e); },
        [&](Value e) {
          // free = e is not among ids[t, 0..s), and its group is kept
          Value taken = rb.reduce(rb.idx(0), s, {rb.boolean(false)},
                                  [&](Value s2, ValueRange tk) {
                                    Value id = rb.loadIndex(ids, {t, s2});
                                    return SmallVector<Value>{arith::OrIOp::create(
                                        rb.b, tk[0], rb.cmpi(P::eq, id, e))};
                                  })[0];
          Value free = arith::XOrIOp::create(rb.b, taken, rb.boolean(true));
          if (scratch.keep)
            free = rb.andi(free, load(scratch.keep, rb.divi(e, groupSize)));
          return free;
        });
    Value w = load(scores, best);
    rb.storeIndex(best, ids, {t, s});
    memref::StoreOp::create(rb.b, w, weights, ValueRange{t, s});
    return rb.addf(acc, w);
  });
  float scale = p.routedScalingFactor;
  if (p.renormalize || scale != 1.0f)
    rb.loop(p.topK, [&](Value s) {
      Value w = memref::LoadOp::create(rb.b, weights, ValueRange{t, s});
      if (p.renormalize)
        w = rb.divf(w, total);
      if (scale != 1.0f)
        w = rb.mulf(w, rb.f32(scale));
      memref::StoreOp::create(rb.b, w, weights, ValueRange{t, s});
    });
}

void mlir::kgen::emitRoute(RefBuilder &rb, Value logits, Value t,
                           int64_t experts, int64_t topK, bool renormalize,
                           Value probs, Value ids, Value weights) {
  RouteParams p;
  p.topK = topK;
  p.renormalize = renormalize;
  RouteScratch scratch;
  scratch.scores = scratch.choice = probs;
  emitRoute(rb, logits, t, experts, p, scratch, ids, weights);
}

namespace {
SmallVector<Value> lowerMoeRoute(MoeRouteOp op, RefBuilder &rb) {
  auto logitsType = op.getRouterLogits().getType();
  int64_t tokens = logitsType.getDimSize(0), experts = logitsType.getDimSize(1);
  RouteParams p = op.getRouteParams();
  Value logits = rb.buffer(op.getRouterLogits());
  Value ids = rb.alloc(op.getExpertIds().getType());
  Value weights = rb.alloc(op.getWeights().getType());
  RouteScratch scratch = allocRouteScratch(
      rb, experts, p, p.correctionBias ? rb.buffer(p.correctionBias) : Value());
  rb.loop(tokens, [&](Value t) {
    emitRoute(rb, logits, t, experts, p, scratch, ids, weights);
  });
  deallocRouteScratch(rb, scratch);
  return {rb.tensor(ids, op.getExpertIds().getType()),
          rb.tensor(weights, op.getWeights().getType())};
}

SmallVector<Value> lowerMoePermute(MoePermuteOp op, RefBuilder &rb) {
  auto xType = op.getX().getType();
  auto idsType = op.getExpertIds().getType();
  int64_t tokens = xType.getDimSize(0), hidden = xType.getDimSize(1);
  int64_t topK = idsType.getDimSize(1), experts = op.getNumExperts();
  Value x = rb.buffer(op.getX()), ids = rb.buffer(op.getExpertIds());
  Value permuted = rb.alloc(op.getPermuted().getType());
  Value positions = rb.alloc(op.getPositions().getType());
  Value offsets = rb.alloc(op.getExpertOffsets().getType());
  Value cursor = rb.alloc({experts}, rb.b.getIndexType());
  rb.fill(permuted, rb.zero(xType.getElementType()));
  rb.fill(cursor, rb.idx(0));
  auto eachValidCopy = [&](function_ref<void(Value t, Value s, Value e)> body) {
    rb.loop(tokens, [&](Value t) {
      rb.loop(topK, [&](Value s) {
        Value e = rb.loadIndex(ids, {t, s});
        rb.when(rb.inRange(e, rb.idx(0), rb.idx(experts)),
                [&] { body(t, s, e); });
      });
    });
  };
  // Count the copies of each expert in `cursor`, then prefix-sum into
  // offsets and turn `cursor` into each group's start.
  eachValidCopy([&](Value, Value, Value e) {
    Value n = memref::LoadOp::create(rb.b, cursor, e);
    memref::StoreOp::create(rb.b, rb.addi(n, rb.idx(1)), cursor, e);
  });
  rb.storeIndex(rb.idx(0), offsets, rb.idx(0));
  rb.reduce(rb.idx(0), rb.idx(experts), {rb.idx(0)}, [&](Value e, ValueRange acc) {
    Value n = memref::LoadOp::create(rb.b, cursor, e);
    memref::StoreOp::create(rb.b, acc[0], cursor, e);
    Value end = rb.addi(acc[0], n);
    rb.storeIndex(end, offsets, rb.addi(e, rb.idx(1)));
    return SmallVector<Value>{end};
  });
  rb.fill(positions, arith::ConstantOp::create(rb.b, rb.b.getI32IntegerAttr(-1)));
  eachValidCopy([&](Value t, Value s, Value e) {
    Value p = memref::LoadOp::create(rb.b, cursor, e);
    memref::StoreOp::create(rb.b, rb.addi(p, rb.idx(1)), cursor, e);
    rb.storeIndex(p, positions, {t, s});
    rb.loop(hidden, [&](Value hh) {
      Value val = memref::LoadOp::create(rb.b, x, ValueRange{t, hh});
      memref::StoreOp::create(rb.b, val, permuted, ValueRange{p, hh});
    });
  });
  memref::DeallocOp::create(rb.b, cursor);
  return {rb.tensor(permuted, op.getPermuted().getType()),
          rb.tensor(positions, op.getPositions().getType()),
          rb.tensor(offsets, op.getExpertOffsets().getType())};
}

/// The block scales of an expert GEMM's e4m3 weights and the scratch of
/// one quantised activation row (kgen.moe, kgen.grouped_gemm `scales`).
struct RowScales {
  Value b, bUp; // [E, ceil(K/128), ceil(N/128)] f32 (or without E)
  Value q;      // scratch [>= K] f32: the row quantised to e4m3 values
  Value sa;     // scratch [>= ceil(K/128)] f32: the row's scale per block
};

/// Scratch for RowScales of rows of up to `k` columns.
RowScales allocRowScratch(RefBuilder &rb, int64_t k) {
  RowScales s;
  s.q = rb.alloc({k}, rb.b.getF32Type());
  s.sa = rb.alloc({scaleBlocks(k)}, rb.b.getF32Type());
  return s;
}

/// One row of an expert GEMM: for each n, act(a[r] b[e]) (* a[r] b_up[e]),
/// rounded into d[r, n]. Shared by grouped_gemm and the fused moe. A null
/// `e` reads 2-D weights [K, N] (a shared expert). With `scales`, the row
/// is quantised and the products summed per 128-wide K block, each block's
/// sum scaled by sa[blk] * scale[e, blk, n / 128] (KgenOps.td, kgen.moe).
void emitExpertRow(RefBuilder &rb, Value a, ValueRange aRow, Value b,
                   Value bUp, Value e, int64_t kDim, int64_t nDim,
                   Activation act, Value d, ValueRange dRow,
                   const RowScales *scales = nullptr) {
  auto at = [&](ValueRange idx) {
    SmallVector<Value> i;
    if (e)
      i.push_back(e);
    i.append(idx.begin(), idx.end());
    return i;
  };
  if (scales)
    emitQuantiseRow(rb, a, aRow, kDim, scales->q, {}, scales->sa, {});
  rb.loop(nDim, [&](Value n) {
    SmallVector<Value> init = {rb.f32(0.0)};
    if (bUp)
      init.push_back(rb.f32(0.0));
    // The products of columns [lo, hi) of the row, from `init`.
    auto dot = [&](Value lo, Value hi, ValueRange init) {
      return rb.reduce(lo, hi, init, [&](Value k, ValueRange acc) {
        Value av;
        if (scales) {
          av = memref::LoadOp::create(rb.b, scales->q, k);
        } else {
          SmallVector<Value> ia(aRow);
          ia.push_back(k);
          av = rb.loadF32(a, ia);
        }
        SmallVector<Value> next = {
            rb.addf(acc[0], rb.mulf(av, rb.loadF32(b, at({k, n}))))};
        if (bUp)
          next.push_back(
              rb.addf(acc[1], rb.mulf(av, rb.loadF32(bUp, at({k, n})))));
        return next;
      });
    };
    SmallVector<Value> acc;
    if (!scales) {
      acc = dot(rb.idx(0), rb.idx(kDim), init);
    } else {
      Value nb = rb.divi(n, kScaleBlock);
      acc = rb.reduce(
          rb.idx(0), rb.idx(scaleBlocks(kDim)), init,
          [&](Value blk, ValueRange acc) {
            Value lo = rb.muli(blk, kScaleBlock);
            Value hi = rb.minsi(rb.addi(lo, rb.idx(kScaleBlock)), rb.idx(kDim));
            SmallVector<Value> zeros(acc.size(), rb.f32(0.0));
            SmallVector<Value> part = dot(lo, hi, zeros);
            Value sa = memref::LoadOp::create(rb.b, scales->sa, blk);
            SmallVector<Value> next;
            for (auto [i, w] : llvm::enumerate(SmallVector<Value>{
                     scales->b, scales->bUp})) {
              if (i >= acc.size())
                break;
              Value s = rb.mulf(sa, rb.loadF32(w, at({blk, nb})));
              next.push_back(rb.addf(acc[i], rb.mulf(part[i], s)));
            }
            return next;
          });
    }
    Value v = rb.activation(act, acc[0]);
    if (bUp)
      v = rb.mulf(v, acc[1]);
    SmallVector<Value> io(dRow);
    io.push_back(n);
    rb.storeF32(v, d, io);
  });
}

SmallVector<Value> lowerGroupedGemm(GroupedGemmOp op, RefBuilder &rb) {
  auto aType = op.getA().getType();
  auto bType = op.getB().getType();
  int64_t rows = aType.getDimSize(0), kDim = aType.getDimSize(1);
  int64_t experts = bType.getDimSize(0), nDim = bType.getDimSize(2);
  Value a = rb.buffer(op.getA()), b = rb.buffer(op.getB());
  Value bUp = op.getBUp() ? rb.buffer(op.getBUp()) : Value();
  Value offsets = rb.buffer(op.getExpertOffsets());
  std::optional<RowScales> scales;
  if (Value bs = op.getBScale()) {
    scales = allocRowScratch(rb, kDim);
    scales->b = rb.buffer(bs);
    if (Value us = op.getBUpScale())
      scales->bUp = rb.buffer(us);
  }
  Value d = rb.alloc(op.getD().getType());
  rb.fill(d, rb.zero(op.getD().getType().getElementType()));
  rb.loop(experts, [&](Value e) {
    Value lo = rb.clamp(rb.loadIndex(offsets, e), rb.idx(0), rb.idx(rows));
    Value hi = rb.clamp(rb.loadIndex(offsets, rb.addi(e, rb.idx(1))), lo,
                        rb.idx(rows));
    rb.loop(lo, hi, [&](Value r) {
      emitExpertRow(rb, a, r, b, bUp, e, kDim, nDim, op.getActivation(), d, r,
                    scales ? &*scales : nullptr);
    });
  });
  if (scales)
    for (Value scratch : {scales->q, scales->sa})
      memref::DeallocOp::create(rb.b, scratch);
  return {rb.tensor(d, op.getD().getType())};
}

/// y[t] = sum_s w[t, s] * expert_out[positions[t, s]] for valid positions
/// (+ shared_out[t]).
SmallVector<Value> lowerMoeCombine(MoeCombineOp op, RefBuilder &rb) {
  int64_t tokens = op.getPositions().getType().getDimSize(0);
  Value eo = rb.buffer(op.getExpertOut()), pos = rb.buffer(op.getPositions());
  Value w = rb.buffer(op.getWeights());
  Value z = op.getSharedOut() ? rb.buffer(op.getSharedOut()) : Value();
  Value y = rb.alloc(op.getY().getType());
  rb.loop(tokens, [&](Value t) { emitCombineRow(rb, eo, pos, w, z, y, t); });
  return {rb.tensor(y, op.getY().getType())};
}

} // namespace

void mlir::kgen::emitQuantiseRow(RefBuilder &rb, Value a, ValueRange aRow,
                                  int64_t kDim, Value q, ValueRange qRow,
                                  Value scale, ValueRange scaleRow) {
  auto f8 = Float8E4M3FNType::get(rb.b.getContext());
  auto with = [](ValueRange prefix, Value last) {
    SmallVector<Value> i(prefix);
    i.push_back(last);
    return i;
  };
  rb.loop(scaleBlocks(kDim), [&](Value blk) {
    Value lo = rb.muli(blk, kScaleBlock);
    Value hi = rb.minsi(rb.addi(lo, rb.idx(kScaleBlock)), rb.idx(kDim));
    auto at = [&](Value k) { return rb.loadF32(a, with(aRow, k)); };
    Value amax = rb.reduce(lo, hi, {rb.f32(0.0)}, [&](Value k, ValueRange m) {
      return SmallVector<Value>{rb.maxf(m[0], rb.absf(at(k)))};
    })[0];
    Value sa = rb.divf(rb.maxf(amax, rb.f32(1e-4)), rb.f32(448.0));
    memref::StoreOp::create(rb.b, sa, scale, with(scaleRow, blk));
    rb.loop(lo, hi, [&](Value k) {
      Value q8 = arith::TruncFOp::create(rb.b, f8, rb.divf(at(k), sa));
      rb.storeF32(arith::ExtFOp::create(rb.b, rb.b.getF32Type(), q8), q,
                  with(qRow, k));
    });
  });
}

void mlir::kgen::emitCombineRow(RefBuilder &rb, Value expertOut,
                                Value positions, Value weights, Value shared,
                                Value y, Value t) {
  auto eoType = cast<MemRefType>(expertOut.getType());
  int64_t topK = cast<MemRefType>(positions.getType()).getDimSize(1);
  int64_t rows = eoType.getDimSize(0), hidden = eoType.getDimSize(1);
  rb.loop(hidden, [&](Value h) {
    Value acc = rb.reduce(topK, rb.f32(0.0), [&](Value s, Value acc) {
      Value p = rb.loadIndex(positions, {t, s});
      Value valid = rb.inRange(p, rb.idx(0), rb.idx(rows));
      Value safe = rb.select(valid, p, rb.idx(0));
      Value term = rb.mulf(rb.loadF32(weights, {t, s}),
                           rb.loadF32(expertOut, {safe, h}));
      return rb.select(valid, rb.addf(acc, term), acc);
    });
    if (shared)
      acc = rb.addf(acc, rb.loadF32(shared, {t, h}));
    rb.storeF32(acc, y, {t, h});
  });
}

namespace {

/// The fused layer, with the same rounding points and summation order as
/// its decomposition (see DecomposeMoe.cpp), so both give identical bits.
SmallVector<Value> lowerMoe(MoeOp op, RefBuilder &rb) {
  auto xType = op.getX().getType();
  auto wgType = op.getWGate().getType();
  int64_t tokens = xType.getDimSize(0), hidden = xType.getDimSize(1);
  int64_t experts = wgType.getDimSize(0), inter = wgType.getDimSize(2);
  int64_t topK = op.getTopK();
  RouteParams p = op.getRouteParams();
  Type elem = xType.getElementType();
  Value x = rb.buffer(op.getX()), logits = rb.buffer(op.getRouterLogits());
  Value wg = rb.buffer(op.getWGate()), wu = rb.buffer(op.getWUp()),
        wd = rb.buffer(op.getWDown());
  auto bufferOrNull = [&](Value v) { return v ? rb.buffer(v) : Value(); };
  Value sg = bufferOrNull(op.getSharedGate()),
        su = bufferOrNull(op.getSharedUp()),
        sd = bufferOrNull(op.getSharedDown());
  int64_t sInter =
      sg ? cast<RankedTensorType>(op.getSharedGate().getType()).getDimSize(1)
         : 0;
  // Block scales: one scratch row as wide as the widest K.
  bool scaled = !op.getScales().empty();
  RowScales gateUpScales, downScales, sharedGateUpScales, sharedDownScales;
  if (scaled) {
    RowScales scratch =
        allocRowScratch(rb, std::max({hidden, inter, sInter}));
    for (RowScales *s : {&gateUpScales, &downScales, &sharedGateUpScales,
                         &sharedDownScales})
      *s = scratch;
    gateUpScales.b = rb.buffer(op.getWGateScale());
    gateUpScales.bUp = rb.buffer(op.getWUpScale());
    downScales.b = rb.buffer(op.getWDownScale());
    if (sg) {
      sharedGateUpScales.b = rb.buffer(op.getSharedGateScale());
      sharedGateUpScales.bUp = rb.buffer(op.getSharedUpScale());
      sharedDownScales.b = rb.buffer(op.getSharedDownScale());
    }
  }
  auto scalesOf = [&](RowScales &s) { return scaled ? &s : nullptr; };
  Value y = rb.alloc(op.getY().getType());
  RouteScratch route = allocRouteScratch(rb, experts, p,
                                         bufferOrNull(p.correctionBias));
  Value ids = rb.alloc({tokens, topK}, rb.b.getI32Type());
  Value weights = rb.alloc({tokens, topK}, rb.b.getF32Type());
  Value act = rb.alloc({1, std::max(inter, sInter)}, elem); // gated activation
  Value yExp = rb.alloc({1, hidden}, elem); // one expert's output row
  Value acc = rb.alloc({hidden}, rb.b.getF32Type());
  Value zero = rb.idx(0);
  rb.loop(tokens, [&](Value t) {
    emitRoute(rb, logits, t, experts, p, route, ids, weights);
    rb.fill(acc, rb.f32(0.0));
    rb.loop(topK, [&](Value s) {
      Value e = rb.loadIndex(ids, {t, s});
      emitExpertRow(rb, x, t, wg, wu, e, hidden, inter, op.getActivation(),
                    act, zero, scalesOf(gateUpScales));
      emitExpertRow(rb, act, zero, wd, Value(), e, inter, hidden,
                    Activation::none, yExp, zero, scalesOf(downScales));
      Value w = memref::LoadOp::create(rb.b, weights, ValueRange{t, s});
      rb.loop(hidden, [&](Value hh) {
        Value cur = memref::LoadOp::create(rb.b, acc, hh);
        Value term = rb.mulf(w, rb.loadF32(yExp, {zero, hh}));
        memref::StoreOp::create(rb.b, rb.addf(cur, term), acc, hh);
      });
    });
    if (sg) { // the shared expert, added after the routed slots
      emitExpertRow(rb, x, t, sg, su, Value(), hidden, sInter,
                    op.getActivation(), act, zero,
                    scalesOf(sharedGateUpScales));
      emitExpertRow(rb, act, zero, sd, Value(), Value(), sInter, hidden,
                    Activation::none, yExp, zero, scalesOf(sharedDownScales));
      rb.loop(hidden, [&](Value hh) {
        Value cur = memref::LoadOp::create(rb.b, acc, hh);
        Value z = rb.loadF32(yExp, {zero, hh});
        memref::StoreOp::create(rb.b, rb.addf(cur, z), acc, hh);
      });
    }
    rb.loop(hidden, [&](Value hh) {
      rb.storeF32(memref::LoadOp::create(rb.b, acc, hh), y, {t, hh});
    });
  });
  deallocRouteScratch(rb, route);
  for (Value scratch : {ids, weights, act, yExp, acc})
    memref::DeallocOp::create(rb.b, scratch);
  if (scaled)
    for (Value scratch : {gateUpScales.q, gateUpScales.sa})
      memref::DeallocOp::create(rb.b, scratch);
  return {rb.tensor(y, op.getY().getType())};
}

//===----------------------------------------------------------------------===//
// Elementwise ops on tensors (user IR around the kgen ops)
//===----------------------------------------------------------------------===//

/// Whether `op` is an elementwise op this pass lowers: ElementwiseMappable,
/// without regions, every operand and result a ranked tensor of one static
/// shape (no encoding), in a function and not inside a loop or a kgen op
/// (only scf.if, scf.index_switch and scf.execute_region in between, which
/// run their region at most once per run of the function).
bool isLowerableElementwise(Operation *op) {
  if (!OpTrait::hasElementwiseMappableTraits(op) || op->getNumRegions() ||
      op->getNumResults() == 0 || isa_and_nonnull<KgenDialect>(op->getDialect()))
    return false;
  std::optional<ArrayRef<int64_t>> shape;
  auto sameShape = [&](Type type) {
    auto t = dyn_cast<RankedTensorType>(type);
    if (!t || !t.hasStaticShape() || t.getEncoding())
      return false;
    if (!shape)
      shape = t.getShape();
    return t.getShape() == *shape;
  };
  if (!llvm::all_of(op->getOperandTypes(), sameShape) ||
      !llvm::all_of(op->getResultTypes(), sameShape))
    return false;
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp()) {
    if (isa<FunctionOpInterface>(parent))
      return true;
    if (!isa<scf::IfOp, scf::IndexSwitchOp, scf::ExecuteRegionOp>(parent))
      return false;
  }
  return false;
}

/// Whether a result tensor of `op`'s lowering (placed before `op`) may be
/// written in place: a to_tensor of a buffer the lowering allocated and
/// no op after the to_tensor uses (only the loops that filled it, before
/// it), so nothing reads or views the buffer once the tensor exists.
bool isOwnedResult(Value result, Operation *op) {
  auto toTensor = result.getDefiningOp<bufferization::ToTensorOp>();
  if (!toTensor || !toTensor.getRestrict() ||
      toTensor->getBlock() != op->getBlock())
    return false;
  Value buffer = toTensor.getBuffer();
  if (!buffer.getDefiningOp<memref::AllocOp>())
    return false;
  for (Operation *it = toTensor->getNextNode(); it && it != op;
       it = it->getNextNode()) {
    WalkResult uses = it->walk([&](Operation *inner) {
      return llvm::is_contained(inner->getOperands(), buffer)
                 ? WalkResult::interrupt()
                 : WalkResult::advance();
    });
    if (uses.wasInterrupted())
      return false;
  }
  return true;
}

/// A loop nest over one shape shared by elementwise ops of one block: each
/// op adds its scalar op to the body, so a chain of n ops is one nest (one
/// nest per op would make convert-scf-to-cf quadratic: it splits the block
/// at every loop, moving all the ops after it). The results are the same
/// bits: every element goes through the same scalar ops in the same order,
/// and no op reads an element another iteration writes.
struct ElementwiseNest {
  /// How many ops a nest takes at most: enough that the block holds few
  /// nests, few enough that LLVM's optimizer (kgen-run's JIT), whose time
  /// grows faster than linearly with the size of one loop body, sees small
  /// ones.
  static constexpr unsigned kMaxMembers = 128;
  /// The outermost loop; null when there is no nest.
  Operation *outer = nullptr;
  /// The ops in it.
  unsigned members = 0;
  SmallVector<int64_t> shape;
  SmallVector<Value> ivs;
  /// The innermost body: scalar code goes before its terminator.
  Block *body = nullptr;
  /// The last op the members left in the block (their result tensors).
  Operation *last = nullptr;
  /// Ops of the block between the nest and the members that stayed where
  /// they were: a member may not use their results.
  llvm::DenseSet<Operation *> between;
  /// Result tensor of a member -> the buffer the body writes it to.
  llvm::DenseMap<Value, Value> buffers;
};

/// The state of the elementwise lowering over one run of the pass.
struct ElementwiseState {
  /// The elementwise ops the pass lowers.
  llvm::DenseSet<Operation *> lowered;
  /// The tensors whose buffer an elementwise op may write in place: each
  /// is the only tensor of a buffer the pass allocated.
  llvm::DenseSet<Operation *> owned;
  /// Per tensor read by elementwise ops: the one read-only buffer they all
  /// read it through, or null when each needs one of its own.
  llvm::DenseMap<Value, Value> sharedBuffers;
  /// The nest the next op of the same block and shape may join.
  ElementwiseNest nest;
  /// The result tensors made, to erase those left without a use.
  llvm::DenseSet<Operation *> made;
};

/// Whether the lowered ops may all read `tensor` through one to_buffer
/// placed after its definition: all its users are elementwise ops the pass
/// lowers (once lowered, only reads remain, so nothing can write it in
/// place), and it aliases no other tensor (an argument of a function,
/// a constant, or a tensor the pass owns). A to_buffer per use instead
/// would cost one-shot bufferization's analysis time linear in the uses
/// for each of them: quadratic for one tensor read by n ops.
bool mayShareBuffer(Value tensor, const ElementwiseState &state) {
  for (Operation *user : tensor.getUsers())
    if (!state.lowered.contains(user))
      return false;
  if (auto arg = dyn_cast<BlockArgument>(tensor))
    return arg.getOwner()->isEntryBlock() &&
           isa<FunctionOpInterface>(arg.getOwner()->getParentOp());
  Operation *def = tensor.getDefiningOp();
  return isa<arith::ConstantOp>(def) || state.owned.contains(def);
}

/// The read-only buffer to read `tensor` through, made at `rb`'s position
/// unless one placed after the tensor's definition is shared.
Value readBuffer(Value tensor, RefBuilder &rb, ElementwiseState &state) {
  auto [it, fresh] = state.sharedBuffers.try_emplace(tensor, Value());
  if (fresh && mayShareBuffer(tensor, state)) {
    ImplicitLocOpBuilder b(tensor.getLoc(), tensor.getContext());
    b.setInsertionPointAfterValue(tensor);
    it->second = RefBuilder(b).buffer(tensor);
  }
  return it->second ? it->second : rb.buffer(tensor);
}

/// The buffer of `operand` if `op` may write its result of the same type
/// into it: `operand` is owned, in `op`'s block, and all its uses are in
/// `op` (members of a nest that read it read its buffer, before `op` writes
/// it in the same iteration).
Value reusableBuffer(Value operand, Operation *op,
                     const ElementwiseState &state) {
  auto toTensor = operand.getDefiningOp<bufferization::ToTensorOp>();
  if (!toTensor || !state.owned.contains(toTensor) ||
      toTensor->getBlock() != op->getBlock())
    return {};
  for (Operation *user : operand.getUsers())
    if (user != op)
      return {};
  return toTensor.getBuffer();
}

/// Whether `op` may join the current nest: same block and shape, and no
/// operand defined by an op between the nest and `op`, except constants,
/// which move before the nest (with their shared buffer).
bool joinNest(Operation *op, ElementwiseState &state) {
  ElementwiseNest &nest = state.nest;
  if (!nest.outer || nest.members >= ElementwiseNest::kMaxMembers ||
      nest.outer->getBlock() != op->getBlock() ||
      cast<RankedTensorType>(op->getResult(0).getType()).getShape() !=
          ArrayRef(nest.shape))
    return false;
  auto usedByOp = [&](Operation *def) {
    return llvm::any_of(op->getOperands(), [&](Value v) {
      return v.getDefiningOp() == def;
    });
  };
  SmallVector<Operation *> constants;
  for (Operation *it = nest.last->getNextNode(); it != op;
       it = it->getNextNode()) {
    if (!it) // `op` is not after the nest
      return false;
    if (!usedByOp(it)) {
      nest.between.insert(it);
      continue;
    }
    if (!isa<arith::ConstantOp>(it))
      return false;
    constants.push_back(it);
  }
  for (Value operand : op->getOperands())
    if (Operation *def = operand.getDefiningOp())
      if (nest.between.contains(def))
        return false;
  for (Operation *constant : constants) {
    constant->moveBefore(nest.outer);
    auto shared = state.sharedBuffers.find(constant->getResult(0));
    if (shared != state.sharedBuffers.end() && shared->second)
      shared->second.getDefiningOp()->moveAfter(constant);
  }
  return true;
}

/// Starts a nest over `shape` at `rb`'s position.
void startNest(ArrayRef<int64_t> shape, RefBuilder &rb,
               ElementwiseState &state) {
  ElementwiseNest &nest = state.nest;
  nest = ElementwiseNest();
  nest.shape.assign(shape.begin(), shape.end());
  Value zero = rb.idx(0), one = rb.idx(1);
  SmallVector<Value> bounds;
  for (int64_t size : shape)
    bounds.push_back(rb.idx(size));
  OpBuilder::InsertionGuard guard(rb.b);
  for (Value bound : bounds) {
    auto loop = scf::ForOp::create(rb.b, zero, bound, one);
    if (!nest.outer)
      nest.outer = loop;
    nest.ivs.push_back(loop.getInductionVar());
    nest.body = loop.getBody();
    rb.b.setInsertionPoint(nest.body->getTerminator());
  }
}

/// Lowers one elementwise op to the scalar op applied to every element:
/// `op` itself on element types (same name and attributes), as
/// convert-elementwise-to-linalg would put in a linalg.generic body, so
/// the values are the same bits. The op joins the current nest or starts
/// one (rank 0: no loop). A result writes into a reusable operand's buffer
/// (reusableBuffer), or a fresh one. The tensors whose buffer a result took
/// go into `dead`.
SmallVector<Value> lowerElementwise(Operation *op, RefBuilder &rb,
                                    ElementwiseState &state,
                                    SmallVectorImpl<Operation *> &dead) {
  ElementwiseNest &nest = state.nest;
  ArrayRef<int64_t> shape =
      cast<RankedTensorType>(op->getResult(0).getType()).getShape();
  bool inNest = !shape.empty();
  if (!inNest)
    nest = ElementwiseNest();
  else if (!joinNest(op, state))
    startNest(shape, rb, state);
  // Buffers are made before the nest, scalar code goes into its body.
  ImplicitLocOpBuilder before(op->getLoc(), op);
  if (inNest)
    before.setInsertionPoint(nest.outer);
  RefBuilder outside(before);

  SmallVector<Value> outBuffers;
  SmallVector<Value> reused; // operands whose buffer a result takes
  for (Value result : op->getResults()) {
    Value buffer;
    for (Value operand : op->getOperands()) {
      if (operand.getType() != result.getType() ||
          llvm::is_contained(reused, operand))
        continue;
      if ((buffer = reusableBuffer(operand, op, state))) {
        reused.push_back(operand);
        dead.push_back(operand.getDefiningOp());
        break;
      }
    }
    outBuffers.push_back(buffer ? buffer : outside.alloc(result.getType()));
  }
  SmallVector<Value> inBuffers;
  for (Value operand : op->getOperands()) {
    auto inner = nest.buffers.find(operand);
    if (inner != nest.buffers.end())
      inBuffers.push_back(inner->second);
    else if (llvm::is_contained(reused, operand))
      inBuffers.push_back(
          cast<bufferization::ToTensorOp>(operand.getDefiningOp())
              .getBuffer());
    else
      inBuffers.push_back(readBuffer(operand, outside, state));
  }
  SmallVector<Type> elemTypes;
  for (Type t : op->getResultTypes())
    elemTypes.push_back(cast<RankedTensorType>(t).getElementType());

  {
    OpBuilder::InsertionGuard guard(rb.b);
    if (inNest)
      rb.b.setInsertionPoint(nest.body->getTerminator());
    ValueRange ivs = inNest ? ValueRange(nest.ivs) : ValueRange();
    SmallVector<Value> scalars;
    for (Value buffer : inBuffers)
      scalars.push_back(memref::LoadOp::create(rb.b, buffer, ivs));
    OperationState scalarState(op->getLoc(), op->getName());
    scalarState.addOperands(scalars);
    scalarState.addTypes(elemTypes);
    scalarState.addAttributes(op->getAttrs());
    Operation *scalar = static_cast<OpBuilder &>(rb.b).create(scalarState);
    for (auto [value, buffer] : llvm::zip(scalar->getResults(), outBuffers))
      memref::StoreOp::create(rb.b, value, buffer, ivs);
  }

  SmallVector<Value> results;
  for (auto [buffer, type] : llvm::zip(outBuffers, op->getResultTypes())) {
    results.push_back(rb.tensor(buffer, type));
    Operation *toTensor = results.back().getDefiningOp();
    state.owned.insert(toTensor);
    state.made.insert(toTensor);
    if (inNest)
      nest.buffers[results.back()] = buffer;
    nest.last = toTensor;
  }
  ++nest.members;
  return results;
}

struct KgenLowerToLoopsPass
    : mlir::kgen::impl::KgenLowerToLoopsBase<KgenLowerToLoopsPass> {
  using KgenLowerToLoopsBase::KgenLowerToLoopsBase;

  void runOnOperation() override {
    SmallVector<Operation *> ops;
    ElementwiseState elementwise;
    getOperation()->walk([&](Operation *op) {
      if (isa_and_nonnull<KgenDialect>(op->getDialect())) {
        ops.push_back(op);
      } else if (isLowerableElementwise(op)) {
        ops.push_back(op);
        elementwise.lowered.insert(op);
      }
    });
    for (Operation *op : ops) {
      ImplicitLocOpBuilder b(op->getLoc(), op);
      RefBuilder rb(b);
      if (elementwise.lowered.contains(op)) {
        SmallVector<Operation *> dead;
        op->replaceAllUsesWith(lowerElementwise(op, rb, elementwise, dead));
        elementwise.lowered.erase(op);
        op->erase();
        for (Operation *toTensor : dead) {
          Value tensor = toTensor->getResult(0);
          elementwise.owned.erase(toTensor);
          elementwise.made.erase(toTensor);
          elementwise.sharedBuffers.erase(tensor);
          elementwise.nest.buffers.erase(tensor);
          toTensor->erase();
        }
        continue;
      }
      SmallVector<Value> results =
          llvm::TypeSwitch<Operation *, SmallVector<Value>>(op)
              .Case([&](GemmOp o) { return lowerGemm(o, rb); })
              .Case([&](AttentionOp o) { return lowerAttention(o, rb); })
              .Case([&](MoeOp o) { return lowerMoe(o, rb); })
              .Case([&](MoeRouteOp o) { return lowerMoeRoute(o, rb); })
              .Case([&](MoePermuteOp o) { return lowerMoePermute(o, rb); })
              .Case([&](GroupedGemmOp o) { return lowerGroupedGemm(o, rb); })
              .Case([&](MoeCombineOp o) { return lowerMoeCombine(o, rb); })
              .Default([&](Operation *) { return SmallVector<Value>(); });
      if (results.size() != op->getNumResults()) {
        op->emitOpError("has no reference lowering");
        return signalPassFailure();
      }
      for (Value result : results)
        if (isOwnedResult(result, op))
          elementwise.owned.insert(result.getDefiningOp());
      op->replaceAllUsesWith(results);
      op->erase();
    }
    // Member results read only inside their nest are left without a use.
    for (Operation *toTensor : elementwise.made)
      if (toTensor->use_empty())
        toTensor->erase();
  }
};
} // namespace
