//===- LowerAttentionToTiles.cpp - kgen.attention + config -> tile kernels -===//
//
// Precondition: verified kgen.attention ops; those with an
// #kgen.attention_config are lowered, the others left to the reference.
// Postcondition: each lowered op became kgen.launch of one kernel
// (split_kv == 1) or of a partial kernel and a combine kernel, on the
// packed-GQA view of Q and O (docs/attention.md).
//
// Rows: plane (b, hk) of the view [B, Hkv, R = G * Sq, D] holds query head
// hk * G + r / Sq's query r mod Sq in row r. The block program, for block
// (bx, 1, bz), bx = plane * row tiles + tile (one grid dimension: x
// allows 2^31 - 1 blocks where y and z allow 65535):
//   pack_gqa:  (b, hk) = (plane / Hkv, plane % Hkv); rows [tile * BM, ..) < R
//   otherwise: (b, h) = (plane / Hq, plane % Hq), hk = h / G, g = h % G;
//              rows g * Sq + [tile * BM, ..) < (g + 1) * Sq
//   L          = clamp(kv_lens[b], 0, Skv), or Skv
//   key tiles  = [lo, hi): those holding a key some row of the block sees
//                (j < L; j <= the last row's position with causal; j > the
//                first row's position - W with a window), then split bz
//                of split_kv equal parts
//   Q tile -> sq (e4m3 Q: -> sq8, widened into sq; not with all-e4m3 on
//   wgmma, which reads e4m3 tiles); stats, acc = init
//   pipeline over the key tiles, `stages` deep:
//     load:    K, V boxes at (kt * BN, 0), bounds (L, D) -> sk, sv[stage]
//              (a paged cache: kgen.tile.load_paged, rows from the pages
//              of the block table)
//     compute: (e4m3 K and V: sk, sv[stage] widened into skw, svw, which
//              the MMAs read instead)
//              s = qk(sq, sk[stage]); online_softmax (scale * dq * dk);
//              acc += pv(s, sv[stage])
//   attention_store(acc, times dv) -> out (or, split: f32 o_partial[bz],
//   lse_partial[bz])
// The combine kernel: 16-row boxes of every plane, the splits combined in
// order. Boxes are masked at every edge, so any shape works; the rows of a
// block past its bound load zeros and are never stored.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialect/AttentionJson.h"
#include "dialect/AttentionLegality.h"
#include "passes/TileKernelBuilder.h"

#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::kgen {
#define GEN_PASS_DEF_KGENLOWERATTENTIONTOTILES
#include "passes/Passes.h.inc"
} // namespace mlir::kgen

using namespace mlir;
using namespace mlir::kgen;
using namespace mlir::kgen::tiles;

namespace {
/// Shapes of one attention and its config, read once.
struct AttentionPlan {
  AttentionOp op;
  AttentionConfigAttr config;
  int64_t batch, hq, hkv, groups, sq, skv, d, dp, bm, bn, stages, split;
  int64_t rows;   // R = G * Sq: rows of a (b, hk) plane
  int64_t tilesM; // row tiles per plane (pack_gqa) or per query head
  int64_t planes; // B * Hkv (pack_gqa) or B * Hq
  bool pack;
  // Variable-length sequences: sq and skv are the token totals Tq and Tk;
  // ceil(Tq / BM) + B row tiles cover every sequence's, one plane per
  // query head.
  bool varlen;

  explicit AttentionPlan(AttentionOp op)
      : op(op), config(op.getConfigAttr()), batch(op.getBatch()),
        hq(op.getQueryHeads()), hkv(op.getKvHeads()), groups(hq / hkv),
        sq(op.getSeqQ()), skv(op.getSeqKv()), d(op.getHeadDim()),
        dp(attentionTileHeadDim(d, config.getInstruction())),
        bm(config.getBlockM()),
        bn(config.getBlockN()), stages(config.getStages()),
        split(config.getSplitKv()), rows(groups * sq),
        pack(config.getPackGqa()), varlen(op.isVarlen()) {
    tilesM = llvm::divideCeil(pack ? rows : sq, bm);
    planes = batch * (pack ? hkv : hq);
    if (varlen) {
      tilesM = llvm::divideCeil(sq, bm) + batch;
      planes = hq;
    }
  }
  Type elem() { return op.getQ().getType().getElementType(); }
  Type kvElem() { return op.getK().getType().getElementType(); }
  Type outElem() { return op.getOut().getType().getElementType(); }
};

/// The block's plane and rows: (b, hk, r0, rhi).
struct BlockRows {
  Value b, hk, r0, rhi;
};

BlockRows blockRows(Ix &ix, AttentionPlan &p, Value bx) {
  Value by = ix.div(bx, p.tilesM); // the plane
  bx = ix.rem(bx, p.tilesM);       // the row tile in it
  if (p.pack)
    return {ix.div(by, p.hkv), ix.rem(by, p.hkv), ix.mul(bx, p.bm),
            ix.c(p.rows)};
  Value h = ix.rem(by, p.hq);
  Value g = ix.rem(h, p.groups);
  Value first = ix.mul(g, p.sq);
  return {ix.div(by, p.hq), ix.div(h, p.groups),
          ix.add(first, ix.mul(bx, p.bm)), ix.add(first, p.sq)};
}

/// The key tiles [lo, hi) some row of [r0, min(r0 + BM, rhi)) sees with
/// `len` valid keys and `sq` queries per head (a runtime value for a
/// variable-length sequence), before the split.
std::pair<Value, Value> visibleKeyTiles(Ix &ix, AttentionPlan &p,
                                        BlockRows &rows, Value len, Value sq) {
  Value zero = ix.c(0);
  Value hi = ix.ceilDiv(len, p.bn);
  Value lo = zero;
  std::optional<int64_t> left = p.op.getLeftWindow();
  std::optional<int64_t> right =
      p.op.getCausal() ? std::optional<int64_t>(0) : p.op.getRightWindow();
  if (!left && !right)
    return {lo, hi};
  // The block's last row (r0 for a variable-length batch's tile of no
  // sequence, rhi = 0, whose key range the caller empties).
  Value last = ix.smax(
      ix.sub(ix.smin(ix.add(rows.r0, p.bm), rows.rhi), ix.c(1)), rows.r0);
  // With pack_gqa they may span query heads: then the rows between cover
  // every position (spanRows of them).
  Value spanRows = zero;
  if (p.pack)
    spanRows = ix.mul(ix.sub(ix.div(last, sq), ix.div(rows.r0, sq)), sq);
  if (right) {
    // Query i sees keys j <= i + len - Sq + right: the last, up to maxI.
    Value maxI =
        ix.smin(ix.sub(sq, ix.c(1)), ix.add(ix.rem(last, sq), spanRows));
    Value seen =
        ix.smax(ix.sub(ix.add(maxI, ix.add(len, 1 + *right)), sq), zero);
    hi = ix.smin(hi, ix.ceilDiv(seen, p.bn));
  }
  if (left) {
    // ... and keys j >= i + len - Sq - left: the first query, from minI.
    Value minI = ix.smax(ix.sub(ix.rem(rows.r0, sq), spanRows), zero);
    Value first =
        ix.smax(ix.sub(ix.add(minI, len), ix.add(sq, *left)), zero);
    lo = ix.div(first, p.bn);
  }
  return {lo, hi};
}

/// Where a block's tiles are: its rows as online_softmax numbers them, the
/// keys and queries it sees, the Q (and output) box and the K/V boxes in
/// the kernel's parameters.
struct BlockFrame {
  BlockRows rows;
  Value len;    // valid keys of the sequence
  Value sq;     // queries per head of the sequence
  Value head0;  // varlen: the block's query head (ALiBi)
  SmallVector<Value> qAt; // Q / output box origin (every dimension)
  Value qRows, qCols;     // its bounds
  std::function<SmallVector<Value>(Value j0)> kAt; // K / V box of key j0 (none over pages)
  Value kRows, kCols;
  SmallVector<Value> lseAt; // lse_at (varlen), else empty
  Value valid;              // varlen: 0 for a tile of no sequence
};

/// The padded layout [B, H, S, D]: plane (b, hk) of the packed view.
BlockFrame paddedFrame(Ix &ix, AttentionPlan &p, Value bx, Value lens) {
  BlockFrame f;
  f.rows = blockRows(ix, p, bx);
  f.len = ix.c(p.skv);
  if (lens)
    f.len = ix.smin(ix.smax(ix.load(lens, f.rows.b), ix.c(0)), ix.c(p.skv));
  f.sq = ix.c(p.sq);
  Value zero = ix.c(0);
  f.qAt = {f.rows.b, f.rows.hk, f.rows.r0, zero};
  f.qRows = f.rows.rhi;
  f.qCols = f.kCols = ix.c(p.d);
  BlockRows rows = f.rows;
  f.kAt = [rows, zero](Value j0) {
    return SmallVector<Value>{rows.b, rows.hk, j0, zero};
  };
  f.kRows = f.len;
  return f;
}

/// Variable-length sequences, token-major, as [T, H * D] rows: block bx
/// is query head bx mod Hq of row tile bx / Hq, whose sequence
/// kgen.tile.sequence_tile finds from cu_seqlens_q; rows are numbered in
/// the sequence (one head: no packing), boxes start at its first token and
/// at the head's columns.
///
/// Over a paged cache (`paged`: K and V pages, read through the block
/// table) cu_seqlens_k gives the key counts only: min(max(ck[b + 1], s) -
/// s, M * P) with s = max(ck[b], 0), as the reference has them.
BlockFrame varlenFrame(Ix &ix, AttentionPlan &p, Value bx, Value cuQ,
                       Value cuK, bool paged) {
  ImplicitLocOpBuilder &b = ix.b;
  BlockFrame f;
  Value h = ix.rem(bx, p.hq);
  Type index = b.getIndexType();
  auto tile = TileSequenceTileOp::create(b, index, index, index, cuQ,
                                         ix.div(bx, p.hq),
                                         b.getI64IntegerAttr(p.bm));
  Value seq = tile.getSeq(), zero = ix.c(0);
  // The sequence's tokens, clamped into the totals as the reference has
  // them (offsets past the end read and write nothing outside).
  Value next = ix.add(seq, 1);
  auto clampTo = [&](Value x, Value lo, int64_t hi) {
    return ix.smin(ix.smax(x, lo), ix.c(hi));
  };
  Value qStart = clampTo(ix.load(cuQ, seq), zero, p.sq);
  Value queries = ix.sub(clampTo(ix.load(cuQ, next), qStart, p.sq), qStart);
  Value kStart;
  if (paged) {
    kStart = ix.smax(ix.load(cuK, seq), zero);
    f.len = ix.smin(ix.sub(ix.smax(ix.load(cuK, next), kStart), kStart),
                    ix.c(p.skv));
  } else {
    kStart = clampTo(ix.load(cuK, seq), zero, p.skv);
    f.len = ix.sub(clampTo(ix.load(cuK, next), kStart, p.skv), kStart);
  }
  f.valid = tile.getValid();
  // A tile of no sequence (valid = 0) names sequence 0, which may be empty:
  // its rows are none, and seq_q at least 1 keeps the row arithmetic
  // defined.
  f.sq = ix.smax(queries, ix.c(1));
  Value hk = ix.div(h, p.groups);
  f.rows = BlockRows{seq, hk, tile.getRow(), ix.mul(queries, f.valid)};
  f.head0 = h;
  Value qCol = ix.mul(h, p.d);
  f.qAt = {ix.add(qStart, f.rows.r0), qCol};
  f.qRows = ix.add(qStart, f.rows.rhi);
  f.qCols = ix.add(qCol, p.d);
  if (!paged) { // the K/V boxes in the token rows (pages: the table's)
    Value kCol = ix.mul(hk, p.d);
    f.kAt = [&ix, kStart, kCol](Value j0) {
      return SmallVector<Value>{ix.add(kStart, j0), kCol};
    };
    f.kRows = ix.add(kStart, f.len);
    f.kCols = ix.add(kCol, p.d);
  }
  f.lseAt = {h, f.qAt[0]};
  return f;
}

/// The main kernel's body. Parameters after (bx, by, bz): q, k, v,
/// [cu_seqlens_q, cu_seqlens_k], [kv_lens], [block_table], [alibi_slopes],
/// [q_descale], [k_descale], [v_descale], then out, [lse] (or o_partial,
/// lse_partial with a split).
void buildMainBody(ImplicitLocOpBuilder &b, AttentionPlan &p, Block *body) {
  Ix ix{b};
  Value bx = body->getArgument(0), bz = body->getArgument(2);
  Value q = body->getArgument(3), k = body->getArgument(4),
        v = body->getArgument(5);
  size_t i = 6;
  Value cuQ = p.varlen ? body->getArgument(i++) : Value();
  Value cuK = p.varlen ? body->getArgument(i++) : Value();
  Value lens = p.op.getKvLens() ? body->getArgument(i++) : Value();
  Value table = p.op.getBlockTable() ? body->getArgument(i++) : Value();
  Value slopes = p.op.getAlibiSlopes() ? body->getArgument(i++) : Value();
  // The descale factors as f32 scalars: the logits' dq * dk, the output's
  // dv (null when 1).
  Value logitDescale, outDescale;
  for (Value factor : {p.op.getQDescale(), p.op.getKDescale()})
    if (factor) {
      Value d = memref::LoadOp::create(b, body->getArgument(i++),
                                       ValueRange{ix.c(0)});
      logitDescale =
          logitDescale ? arith::MulFOp::create(b, logitDescale, d) : d;
    }
  if (p.op.getVDescale())
    outDescale = memref::LoadOp::create(b, body->getArgument(i++),
                                        ValueRange{ix.c(0)});
  Value out = body->getArgument(i++);
  Value lse = i < body->getNumArguments() ? body->getArgument(i) : Value();
  if (p.varlen) { // token-major [T, H, D] as [T, H * D] rows
    auto rowsOf = [&](Value m) -> Value {
      return memref::CollapseShapeOp::create(
          b, m, SmallVector<ReassociationIndices>{{0}, {1, 2}});
    };
    q = rowsOf(q);
    out = rowsOf(out);
    if (!table) { // (pages stay [N, Hkv, P, D])
      k = rowsOf(k);
      v = rowsOf(v);
    }
  }

  BlockFrame f = p.varlen ? varlenFrame(ix, p, bx, cuQ, cuK, bool(table))
                          : paddedFrame(ix, p, bx, lens);
  BlockRows &rows = f.rows;
  Value len = f.len;
  auto [visibleLo, visibleHi] = visibleKeyTiles(ix, p, rows, len, f.sq);
  Value lo = visibleLo, hi = visibleHi;
  if (f.valid) // a tile of no sequence: no key tile
    hi = ix.add(lo, ix.mul(ix.smax(ix.sub(hi, lo), ix.c(0)), f.valid));
  if (p.split > 1) {
    Value count = ix.smax(ix.sub(visibleHi, visibleLo), ix.c(0));
    Value per = ix.ceilDiv(count, p.split);
    lo = ix.add(visibleLo, arith::MulIOp::create(b, bz, per));
    hi = ix.smin(ix.add(lo, per), visibleHi);
  }

  // e4m3 operands are loaded as they are and widened to the compute type
  // (Q's, or f16 for e4m3 queries) in shared memory: Q once, K and V tile
  // by tile (AttentionLegality.h); all-e4m3 on wgmma, the tensor cores
  // read them as they are (P rounds to e4m3: kgen.tile.pv).
  AttentionOperands operands = AttentionOperands::of(p.op);
  Type wide = attentionMmaElem(p.config.getInstruction(), operands),
       f32 = b.getF32Type();
  Value sq = tileBuffer(b, {1, p.bm, p.dp}, wide, kSharedSpace);
  Value sk = tileBuffer(b, {p.stages, p.bn, p.dp}, p.kvElem(), kSharedSpace);
  Value sv = tileBuffer(b, {p.stages, p.bn, p.dp}, p.kvElem(), kSharedSpace);
  Value sq8 = wide != p.elem()
                  ? tileBuffer(b, {1, p.bm, p.dp}, p.elem(), kSharedSpace)
                  : Value();
  Value skw, svw; // the current K and V tiles, widened
  if (wide != p.kvElem()) {
    skw = tileBuffer(b, {1, p.bn, p.dp}, wide, kSharedSpace);
    svw = tileBuffer(b, {1, p.bn, p.dp}, wide, kSharedSpace);
  }
  Value s = tileBuffer(b, {p.bm, p.bn}, f32, kRegisterSpace);
  Value stats = tileBuffer(b, {2, p.bm}, f32, kRegisterSpace);
  Value acc = tileBuffer(b, {p.bm, p.dp}, f32, kRegisterSpace);
  Value zero = ix.c(0), dDim = ix.c(p.d);
  TileLoadOp::create(b, q, f.qAt, f.qRows, f.qCols, sq8 ? sq8 : sq, zero);
  if (sq8)
    TileWidenOp::create(b, sq8, zero, sq, zero);
  TileZeroOp::create(b, acc);
  TileSoftmaxInitOp::create(b, stats);

  auto pipeline = TilePipelineOp::create(b, lo, hi, p.stages);
  Location loc = b.getLoc();
  {
    Block *load = addPipelineStep(pipeline.getLoad(), loc);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(load);
    Value j0 = ix.mul(load->getArgument(0), p.bn);
    Value stage = load->getArgument(1);
    if (table) { // rows of the pages the block table names
      UnitAttr nhd = p.op.getPagesNhd() ? b.getUnitAttr() : UnitAttr();
      TileLoadPagedOp::create(b, k, rows.hk, table, rows.b, j0, len, dDim, sk,
                              stage, nhd);
      TileLoadPagedOp::create(b, v, rows.hk, table, rows.b, j0, len, dDim, sv,
                              stage, nhd);
    } else {
      SmallVector<Value> at = f.kAt(j0);
      TileLoadOp::create(b, k, at, f.kRows, f.kCols, sk, stage);
      TileLoadOp::create(b, v, at, f.kRows, f.kCols, sv, stage);
    }
  }
  {
    Block *compute = addPipelineStep(pipeline.getCompute(), loc);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(compute);
    Value j0 = ix.mul(compute->getArgument(0), p.bn);
    Value stage = compute->getArgument(1);
    // The K and V tiles the MMAs read: the stage, or its widened copy.
    Value kTile = sk, vTile = sv, kAt = stage;
    if (skw) {
      TileWidenOp::create(b, sk, stage, skw, zero);
      TileWidenOp::create(b, sv, stage, svw, zero);
      kTile = skw;
      vTile = svw;
      kAt = zero;
    }
    TileQkOp::create(b, sq, kTile, kAt, s);
    std::optional<int64_t> left = p.op.getLeftWindow();
    std::optional<int64_t> right = p.op.getRightWindow();
    std::optional<float> cap = p.op.getSoftcapValue();
    // The plane's first query head, for the ALiBi slope of a row.
    Value head0 = !slopes  ? Value()
                  : p.varlen ? f.head0
                             : ix.mul(rows.hk, p.groups);
    TileOnlineSoftmaxOp::create(
        b, s, stats, acc, rows.r0, j0, len, f.sq, slopes, head0, logitDescale,
        b.getF32FloatAttr(p.op.getScaleValue()),
        p.op.getCausal() ? b.getUnitAttr() : UnitAttr(),
        left ? b.getI64IntegerAttr(*left) : IntegerAttr(),
        right ? b.getI64IntegerAttr(*right) : IntegerAttr(),
        cap ? b.getF32FloatAttr(*cap) : FloatAttr());
    TilePvOp::create(b, s, vTile, kAt, acc);
  }

  SmallVector<Value> at;
  if (p.split > 1)
    at.push_back(bz);
  at.append(f.qAt);
  TileAttentionStoreOp::create(b, acc, stats, out, at, f.qRows, f.qCols, lse,
                               lse ? f.lseAt : SmallVector<Value>(),
                               outDescale);
}

/// The combine kernel's body: (o_partial, lse_partial) -> out, [lse].
void buildCombineBody(ImplicitLocOpBuilder &b, AttentionPlan &p, Block *body) {
  Ix ix{b};
  Value bx = body->getArgument(0);
  int64_t tiles = llvm::divideCeil(p.rows, kAttentionCombineRows);
  Value by = ix.div(bx, tiles); // the (b, hk) plane
  bx = ix.rem(bx, tiles);
  Value partial = body->getArgument(3), partialLse = body->getArgument(4);
  Value out = body->getArgument(5);
  Value lse = body->getNumArguments() > 6 ? body->getArgument(6) : Value();
  Value r0 = ix.mul(bx, kAttentionCombineRows);
  TileAttentionCombineOp::create(
      b, partial, partialLse, out,
      ValueRange{ix.div(by, p.hkv), ix.rem(by, p.hkv), r0, ix.c(0)},
      ix.c(p.rows), ix.c(p.d), lse,
      b.getI64IntegerAttr(kAttentionCombineRows));
}

std::string kernelName(AttentionPlan &p) {
  std::string elem;
  llvm::raw_string_ostream os(elem);
  os << p.elem();
  std::string name = "kgen_attention_" + elem;
  if (p.kvElem() != p.elem()) { // an e4m3 cache
    std::string kv;
    llvm::raw_string_ostream(kv) << p.kvElem();
    name += "_kv" + kv;
  }
  if (p.varlen) // q and kv are the token totals
    name += "_varlen";
  if (p.batch > 1)
    name += "_b" + std::to_string(p.batch);
  name += "_h" + std::to_string(p.hq) + "x" + std::to_string(p.hkv) + "_q" +
          std::to_string(p.sq) + "_kv" + std::to_string(p.skv) + "_d" +
          std::to_string(p.d);
  if (p.op.getCausal())
    name += "_causal";
  if (p.op.getBlockTable())
    name += "_page" + std::to_string(p.op.getPageSize()) +
            (p.op.getPagesNhd() ? "_nhd" : "");
  return name;
}

/// `t` ([B, Hq, Sq, ...]) as the packed view `toShape` ([B, Hkv, G * Sq,
/// ...], the same memory), or back: dimensions 1 and 2 collapsed, then
/// expanded to those of `toShape`.
Value reshapeHeads(OpBuilder &b, Location loc, Value t,
                   ArrayRef<int64_t> toShape) {
  auto type = cast<RankedTensorType>(t.getType());
  SmallVector<ReassociationIndices> assoc = {{0}, {1, 2}};
  SmallVector<int64_t> flat = {type.getDimSize(0),
                               type.getDimSize(1) * type.getDimSize(2)};
  for (int64_t i = 3; i < type.getRank(); ++i) {
    assoc.push_back({i});
    flat.push_back(type.getDimSize(i));
  }
  Value collapsed = tensor::CollapseShapeOp::create(
      b, loc, RankedTensorType::get(flat, type.getElementType()), t, assoc);
  return tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(toShape, type.getElementType()), collapsed,
      assoc);
}

/// Lowers one configured op. It cannot fail: the verifier has checked the
/// config against the op (dialect/AttentionLegality.h), and every shape
/// fits the grid (x takes 2^31 - 1 blocks, z at most 128 splits).
void lowerAttention(AttentionOp op, SymbolTable &symbols, OpBuilder &top) {
  AttentionPlan p(op);
  MLIRContext *ctx = op.getContext();
  Location loc = op.getLoc();
  Type f32 = Float32Type::get(ctx);
  AttentionConfigFields fields = AttentionConfigFields::of(p.config);
  int64_t smem =
      attentionSharedMemoryBytes(fields, AttentionOperands::of(op));
  std::string name = kernelName(p);
  DictionaryAttr signature = attentionSignature(op);

  OpBuilder b(op);
  // Q, O and the LSE as the packed view; K, V and kv_lens as they are.
  // Variable-length sequences: every operand as it is (the kernel views
  // the token-major ones as [T, H * D] rows).
  SmallVector<int64_t> viewShape = {p.batch, p.hkv, p.rows, p.d};
  SmallVector<int64_t> lseShape = {p.batch, p.hkv, p.rows};
  if (p.varlen) {
    viewShape = {p.sq, p.hq, p.d};
    lseShape = {p.hq, p.sq};
  }
  auto outView = RankedTensorType::get(viewShape, p.outElem());
  auto lseView = RankedTensorType::get(lseShape, f32);
  SmallVector<Value> inputs = {
      p.varlen ? op.getQ() : reshapeHeads(b, loc, op.getQ(), viewShape),
      op.getK(), op.getV()};
  SmallVector<StringRef> names = {"q", "k", "v"};
  if (p.varlen) {
    inputs.append({op.getCuSeqlensQ(), op.getCuSeqlensK()});
    names.append({"cu_seqlens_q", "cu_seqlens_k"});
  }
  if (Value lens = op.getKvLens()) {
    inputs.push_back(lens);
    names.push_back("kv_lens");
  }
  if (Value table = op.getBlockTable()) {
    inputs.push_back(table);
    names.push_back("block_table");
  }
  if (Value slopes = op.getAlibiSlopes()) {
    inputs.push_back(slopes);
    names.push_back("alibi_slopes");
  }
  for (auto [name, factor] : {std::pair{"q_descale", op.getQDescale()},
                              std::pair{"k_descale", op.getKDescale()},
                              std::pair{"v_descale", op.getVDescale()}})
    if (factor) {
      inputs.push_back(factor);
      names.push_back(name);
    }
  SmallVector<Type> params;
  for (Value v : inputs)
    params.push_back(memrefFor(v.getType()));

  SmallVector<Type> mainOuts;
  if (p.split > 1) {
    mainOuts = {RankedTensorType::get(
                    {p.split, p.batch, p.hkv, p.rows, p.d}, f32),
                RankedTensorType::get({p.split, p.batch, p.hkv, p.rows}, f32)};
    names.append({"o_partial", "lse_partial"});
  } else {
    mainOuts.push_back(outView);
    names.push_back("out");
    if (op.getLse()) {
      mainOuts.push_back(lseView);
      names.push_back("lse");
    }
  }
  for (Type t : mainOuts)
    params.push_back(memrefFor(t));
  auto [kernel, body] =
      createKernel(top, symbols, loc, name, {p.tilesM * p.planes, 1, p.split},
                   p.config.getThreads(), smem, p.config, params);
  describe(kernel, names, mainOuts.size(), signature);
  {
    ImplicitLocOpBuilder ib(loc, ctx);
    ib.setInsertionPointToStart(body);
    buildMainBody(ib, p, body);
  }
  SmallVector<Value> results(
      LaunchOp::create(b, loc, mainOuts, kernel.getSymName(), inputs)
          .getResults());

  if (p.split > 1) {
    SmallVector<Type> combineOuts = {outView};
    SmallVector<StringRef> combineNames = {"o_partial", "lse_partial", "out"};
    if (op.getLse()) {
      combineOuts.push_back(lseView);
      combineNames.push_back("lse");
    }
    SmallVector<Type> combineParams = {memrefFor(mainOuts[0]),
                                       memrefFor(mainOuts[1])};
    for (Type t : combineOuts)
      combineParams.push_back(memrefFor(t));
    auto [combine, cbody] = createKernel(
        top, symbols, loc, name + "_combine",
        {int64_t(llvm::divideCeil(p.rows, kAttentionCombineRows)) * p.batch *
             p.hkv,
         1, 1},
        kAttentionCombineThreads, /*smem=*/0, p.config, combineParams);
    // No signature: a continuation of the op (kgen-emit-packages puts it in
    // the partial kernel's package).
    describe(combine, combineNames, combineOuts.size(), DictionaryAttr());
    ImplicitLocOpBuilder ib(loc, ctx);
    ib.setInsertionPointToStart(cbody);
    buildCombineBody(ib, p, cbody);
    results = SmallVector<Value>(
        LaunchOp::create(b, loc, combineOuts, combine.getSymName(), results)
            .getResults());
  }

  auto outType = cast<RankedTensorType>(op.getOut().getType());
  if (p.varlen) { // the results as they are
    op.getOut().replaceAllUsesWith(results[0]);
    if (Value lse = op.getLse())
      lse.replaceAllUsesWith(results[1]);
    op.erase();
    return;
  }
  op.getOut().replaceAllUsesWith(
      reshapeHeads(b, loc, results[0], outType.getShape()));
  if (Value lse = op.getLse())
    lse.replaceAllUsesWith(reshapeHeads(
        b, loc, results[1], cast<RankedTensorType>(lse.getType()).getShape()));
  op.erase();
}

struct KgenLowerAttentionToTilesPass
    : mlir::kgen::impl::KgenLowerAttentionToTilesBase<
          KgenLowerAttentionToTilesPass> {
  using KgenLowerAttentionToTilesBase::KgenLowerAttentionToTilesBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<AttentionOp> ops;
    module.walk([&](AttentionOp op) {
      if (op.getConfigAttr())
        ops.push_back(op);
    });
    OpBuilder top(module.getContext());
    top.setInsertionPointToStart(module.getBody());
    for (AttentionOp op : ops)
      lowerAttention(op, symbols, top);
  }
};
} // namespace
