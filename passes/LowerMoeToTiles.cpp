//===- LowerMoeToTiles.cpp - kgen.moe / kgen.grouped_gemm -> tile kernels -===//
//
// Precondition: verified ops; a kgen.moe with both gate_up_config and
// down_config, a kgen.grouped_gemm with config (kgen-select-strategy writes
// them). Ops without them stay: the reference semantics still run them.
// Postcondition: each lowered op became kgen.launch ops of its kernels.
//
// A kgen.moe layer, T tokens, hidden H, intermediate I, E experts, top k,
// R = T * k copies, becomes six kernels, one package (docs/moe.md):
//
//   route    grid ceil(T / 4)         kgen.tile.moe_route   -> expert_ids, weights
//   rank     grid E                   kgen.tile.moe_rank    -> positions, expert_offsets
//   gather   grid ceil(R / 4)         kgen.tile.moe_gather  -> permuted [R, H]
//   gate_up  grid tiles(R) * I / BN   grouped GEMM, gated    -> h [R, I]
//   down     grid tiles(R) * H / BN   grouped GEMM           -> expert_out [R, H]
//   combine  grid ceil(T / 4)         kgen.tile.moe_combine -> y [T, H]
//
// DeepSeek layers (dialect/MoeLegality.h): route takes the correction bias
// as a second input and the routing attributes (sigmoid scoring, expert
// groups, the scaling factor); a shared expert adds, before combine,
//
//   (route          also kgen.tile.moe_single_group -> shared_offsets [0, T])
//   shared_gate_up  grid tiles(T) * Is / BN   grouped GEMM, gated  -> shared_h [T, Is]
//   shared_down     grid tiles(T) * H / BN    grouped GEMM         -> shared_out [T, H]
//
// (its weights as one expert, [1, H, Is] and [1, Is, H], on the layer's
// gate_up_config and down_config), and combine adds shared_out after the
// routed slots.
//
// Block-scaled e4m3 weights (`scales`, DeepSeek-V3's checkpoint): each
// expert GEMM's activations are quantised per (row, 128 columns) first
// (kgen.tile.act_quant, DeepSeek-V3's act_quant), by a kernel of their own
// (quant_permuted before gate_up, quant_h before down, quant_shared_h before
// shared_down) or, for the shared expert's x, by the routing kernel (its
// blocks' tokens), and the grouped GEMM's main loop sums each 128-wide K
// block's exact e4m3 products into a partial accumulator that
// kgen.tile.block_scale scales into the accumulator where the block ends
// (DeepGEMM's promotion; the weights' [E, KB, NB] scales beside them).
// The DeepSeek-V3 layer is then eleven kernels.
//
// The steps of kgen-decompose-moe, with the same rounding points, so the
// package computes exactly the op's reference. No kernel pads an expert's
// rows: the grouped GEMM's tile scheduler (kgen.tile.group_tile) gives each
// block one m tile of one expert, its rows bounded by the next expert's
// offset, so a decode step's few rows per expert take one 16-row tile each.
//
// A grouped GEMM block, bx of tiles(R) x ceil(N / BN) (m tile fastest, so a
// wave's blocks share an expert's B columns in L2):
//   (e, r0, r_end, live) = group_tile(offsets, bx mod tiles(R))
//   acc (, acc_up) = 0
//   pipeline over K tiles [0, live * ceil(K / BK)):
//     load A box (r0, k0) bounds (r_end, K), B box (e, k0, n0) (and B_up)
//     compute acc += A B (acc_up += A B_up)
//   epilogue act(acc) (gated: act(acc) * acc_up) -> d (r0, n0) bounds (r_end, N)
// tiles(R) = floor((R + G (BM - 1)) / BM), G = min(E + 2, R) the groups that
// can hold rows (experts, the rows before the first and after the last): no
// schedule has more tiles. Blocks past the last tile store nothing; tiles
// of rows in no group (live = 0) run no K loop and store zeros.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialect/GroupedGemmLegality.h"
#include "dialect/MoeJson.h"
#include "dialect/MoeLegality.h"
#include "passes/TileKernelBuilder.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::kgen {
#define GEN_PASS_DEF_KGENLOWERMOETOTILES
#include "passes/Passes.h.inc"
} // namespace mlir::kgen

using namespace mlir;
using namespace mlir::kgen;
using namespace mlir::kgen::tiles;

namespace {
/// Threads and work per block of the routing, permutation and combine
/// kernels: a warp per token row (route), a 16-byte chunk per thread and
/// step (gather, combine).
constexpr int64_t kRouteThreads = 128, kRouteRows = 4;
constexpr int64_t kRankThreads = 256;
constexpr int64_t kCopyThreads = 128, kGatherCopies = 4, kCombineTokens = 4;
/// The activation quantisation of block-scaled layers: a warp per (row,
/// 128-column block), kQuantRows rows a block.
constexpr int64_t kQuantThreads = 128, kQuantRows = 4;

/// The m tiles no schedule of `rows` rows over `experts` experts exceeds.
int64_t groupedTileBound(int64_t rows, int64_t experts, int64_t bm) {
  int64_t groups = std::min(experts + 2, rows);
  return (rows + groups * (bm - 1)) / bm;
}

/// The parameter names of a block-scaled operand: the activations `A`
/// quantised (A_q) and their scales (A_scale), a weight W's scales
/// (W_scale).
std::string quantisedName(StringRef a) { return (a + "_q").str(); }
std::string scaleName(StringRef operand) { return (operand + "_scale").str(); }

/// One grouped GEMM: d [R, N] = act(a [R, K] b[e] [K, N]) (gated: times
/// a b_up[e]) over the row groups of `offsets`. Block-scaled (aScale set):
/// `a` is the e4m3 rows kgen.tile.act_quant wrote of the activations named
/// aName (parameters quantisedName(aName) and scaleName(aName)), aScale
/// their scales [R, KB], bScale (bUpScale) the e4m3 weights' [E, KB, NB]
/// (scaleName(bName), scaleName(bUpName)).
struct GroupedGemm {
  Value a, b, bUp, offsets;     // tensors
  RankedTensorType dType;
  Activation act;
  GroupedGemmConfigAttr config;
  StringRef aName, bName, bUpName, dName;
  StringRef offsetsName = "expert_offsets";
  Value aScale, bScale, bUpScale;
};

/// Builds the grouped GEMM kernel and its launch at `launchAt`; returns the
/// launch's result.
Value buildGroupedGemm(GroupedGemm g, StringRef name, DictionaryAttr signature,
                       SymbolTable &symbols, OpBuilder &top,
                       OpBuilder &launchAt, Location loc) {
  auto aType = cast<RankedTensorType>(g.a.getType());
  auto bType = cast<RankedTensorType>(g.b.getType());
  int64_t rows = aType.getDimSize(0), k = aType.getDimSize(1);
  int64_t experts = bType.getDimSize(0), n = bType.getDimSize(2);
  GroupedGemmConfigFields c = GroupedGemmConfigFields::of(g.config);
  bool gated = bool(g.bUp), scaled = bool(g.aScale);
  Type elem = aType.getElementType();
  int64_t mTiles = groupedTileBound(rows, experts, c.blockM);
  int64_t nTiles = llvm::divideCeil(n, c.blockN);
  int64_t kTiles = llvm::divideCeil(k, c.blockK);
  int64_t smem = groupedGemmSharedMemoryBytes(
      c, elem.getIntOrFloatBitWidth() / 8, gated);

  // Parameters: a, (a_scale), b, (b_scale), (b_up, (b_up_scale)), offsets, d.
  std::string aParam = scaled ? quantisedName(g.aName) : g.aName.str(),
              aScaleParam = scaleName(g.aName), bScaleParam = scaleName(g.bName),
              bUpScaleParam = scaleName(g.bUpName);
  SmallVector<Value> inputs;
  SmallVector<StringRef> names;
  auto add = [&](Value v, StringRef paramName) {
    if (!v)
      return;
    inputs.push_back(v);
    names.push_back(paramName);
  };
  add(g.a, aParam);
  add(g.aScale, aScaleParam);
  add(g.b, g.bName);
  add(g.bScale, bScaleParam);
  add(g.bUp, g.bUpName);
  add(gated ? g.bUpScale : Value(), bUpScaleParam);
  add(g.offsets, g.offsetsName);
  names.push_back(g.dName);
  SmallVector<Type> params;
  for (Value v : inputs)
    params.push_back(memrefFor(v.getType()));
  params.push_back(memrefFor(g.dType));
  auto [kernel, body] =
      createKernel(top, symbols, loc, name, {mTiles * nTiles, 1, 1},
                   c.threads(), smem, g.config, params);
  describe(kernel, names, 1, signature);

  ImplicitLocOpBuilder b(loc, top.getContext());
  b.setInsertionPointToStart(body);
  Ix ix{b};
  Value bx = body->getArgument(0);
  // The parameters in order, those the form has (bx, by, bz first).
  auto args = body->getArguments().drop_front(3);
  auto param = [&args](bool present) {
    if (!present)
      return Value();
    Value v = args.front();
    args = args.drop_front();
    return v;
  };
  Value aMem = param(true), aScaleMem = param(scaled), bMem = param(true),
        bScaleMem = param(scaled), bUpMem = param(gated),
        bUpScaleMem = param(gated && scaled), offMem = param(true),
        dMem = param(true);
  Value n0 = ix.mul(ix.div(bx, mTiles), c.blockN);
  Type index = b.getIndexType();
  auto tile = TileGroupTileOp::create(b, TypeRange{index, index, index, index},
                                      offMem, ix.rem(bx, mTiles), ix.c(rows),
                                      c.blockM);
  Value e = tile.getExpert(), r0 = tile.getRow0(), rEnd = tile.getRowEnd();
  // Rows in no group (live = 0) run no K tile: their accumulators stay 0.
  Value ktEnd = arith::MulIOp::create(b, tile.getLive(), ix.c(kTiles));

  auto stageBuffer = [&](int64_t r, int64_t cols) {
    return tileBuffer(b, {c.stages, r, cols}, elem, kSharedSpace);
  };
  auto accumulator = [&] {
    Value acc = tileBuffer(b, {c.blockM, c.blockN}, b.getF32Type(),
                           kRegisterSpace);
    TileZeroOp::create(b, acc);
    return acc;
  };
  Value sA = stageBuffer(c.blockM, c.blockK);          // (S, BM, BK)
  Value sB = stageBuffer(c.blockK, c.blockN);          // (S, BK, BN)
  Value sBUp = gated ? stageBuffer(c.blockK, c.blockN) : Value();
  Value acc = accumulator(), accUp = gated ? accumulator() : Value();
  // Block-scaled: the MMAs sum one 128-wide K block's products into `part`
  // (exact e4m3 products, f32 sums), which kgen.tile.block_scale scales
  // into `acc` at the block's end (DeepGEMM's promotion).
  Value part = scaled ? accumulator() : acc;
  Value partUp = scaled && gated ? accumulator() : accUp;

  auto pipeline = TilePipelineOp::create(b, ix.c(0), ktEnd, c.stages);
  {
    Block *load = addPipelineStep(pipeline.getLoad(), loc);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(load);
    Value k0 = ix.mul(load->getArgument(0), c.blockK);
    Value stage = load->getArgument(1);
    TileLoadOp::create(b, aMem, ValueRange{r0, k0}, rEnd, ix.c(k), sA, stage);
    TileLoadOp::create(b, bMem, ValueRange{e, k0, n0}, ix.c(k), ix.c(n), sB,
                       stage);
    if (gated)
      TileLoadOp::create(b, bUpMem, ValueRange{e, k0, n0}, ix.c(k), ix.c(n),
                         sBUp, stage);
  }
  {
    Block *compute = addPipelineStep(pipeline.getCompute(), loc);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(compute);
    Value kt = compute->getArgument(0), stage = compute->getArgument(1);
    TileMmaOp::create(b, sA, sB, stage, part, false, false, false);
    if (gated)
      TileMmaOp::create(b, sA, sBUp, stage, partUp, false, false, false);
    if (scaled) {
      TileBlockScaleOp::create(b, part, acc, aScaleMem, bScaleMem, e, r0, n0,
                               rEnd, kt, c.blockK, kTiles);
      if (gated)
        TileBlockScaleOp::create(b, partUp, accUp, aScaleMem, bUpScaleMem, e,
                                 r0, n0, rEnd, kt, c.blockK, kTiles);
    }
  }
  if (gated)
    TileGatedEpilogueOp::create(b, acc, accUp, dMem, ValueRange{r0, n0}, rEnd,
                                ix.c(n), g.act);
  else
    TileEpilogueOp::create(b, acc, dMem, ValueRange{r0, n0}, rEnd, ix.c(n),
                           /*bias=*/Value(), /*residual=*/Value(),
                           b.getF32FloatAttr(1.0f), b.getF32FloatAttr(0.0f),
                           ActivationAttr::get(b.getContext(), g.act));
  return LaunchOp::create(launchAt, loc, TypeRange{g.dType},
                          kernel.getSymName(), inputs)
      .getResult(0);
}

/// The e4m3 activations of a block-scaled grouped GEMM and their scales.
struct Quantised {
  Value q, scale;
};

/// A kernel quantising `a` [R, K] (parameter `aName`) per (row, 128
/// columns) (kgen.tile.act_quant, kQuantRows rows a block) into
/// quantisedName(aName) [R, K] e4m3 and scaleName(aName) [R, ceil(K / 128)]
/// f32, launched at `launchAt`.
Quantised buildQuantise(Value a, StringRef aName, StringRef name,
                        GroupedGemmConfigAttr config, DictionaryAttr signature,
                        SymbolTable &symbols, OpBuilder &top,
                        OpBuilder &launchAt, Location loc) {
  auto aType = cast<RankedTensorType>(a.getType());
  int64_t rows = aType.getDimSize(0), k = aType.getDimSize(1);
  MLIRContext *ctx = a.getContext();
  auto qType = RankedTensorType::get({rows, k}, Float8E4M3FNType::get(ctx));
  auto scaleType =
      RankedTensorType::get({rows, scaleBlocks(k)}, Float32Type::get(ctx));
  int64_t blocks = llvm::divideCeil(rows, kQuantRows);
  auto [kernel, body] = createKernel(
      top, symbols, loc, name, {blocks, 1, 1}, kQuantThreads, /*smem=*/0,
      config,
      {memrefFor(aType), memrefFor(qType), memrefFor(scaleType)});
  std::string qParam = quantisedName(aName), scaleParam = scaleName(aName);
  describe(kernel, {aName, qParam, scaleParam}, 2, signature);
  auto b = ImplicitLocOpBuilder::atBlockBegin(loc, body);
  Ix ix{b};
  TileActQuantOp::create(b, body->getArgument(3),
                         ix.mul(body->getArgument(0), kQuantRows),
                         body->getArgument(4), body->getArgument(5),
                         kQuantRows);
  auto launch = LaunchOp::create(launchAt, loc, TypeRange{qType, scaleType},
                                 kernel.getSymName(), ValueRange{a});
  return {launch.getResult(0), launch.getResult(1)};
}

std::string elementName(Type t) {
  std::string s;
  llvm::raw_string_ostream(s) << t;
  return s;
}

void lowerMoe(MoeOp op, SymbolTable &symbols, OpBuilder &top) {
  GroupedGemmConfigAttr gateUpConfig = op.getGateUpConfigAttr(),
                        downConfig = op.getDownConfigAttr();
  Location loc = op.getLoc();
  MLIRContext *ctx = op.getContext();
  auto xType = cast<RankedTensorType>(op.getX().getType());
  auto wgType = cast<RankedTensorType>(op.getWGate().getType());
  int64_t tokens = xType.getDimSize(0), hidden = xType.getDimSize(1);
  int64_t experts = wgType.getDimSize(0), inter = wgType.getDimSize(2);
  int64_t topK = int64_t(op.getTopK()), copies = tokens * topK;
  Type elem = xType.getElementType();
  Type i32 = IntegerType::get(ctx, 32), f32 = Float32Type::get(ctx);
  auto idsType = RankedTensorType::get({tokens, topK}, i32);
  auto weightsType = RankedTensorType::get({tokens, topK}, f32);
  auto offsetsType = RankedTensorType::get({experts + 1}, i32);
  auto permutedType = RankedTensorType::get({copies, hidden}, elem);
  auto hType = RankedTensorType::get({copies, inter}, elem);
  bool scaled = !op.getScales().empty();
  std::string name = "kgen_moe_" + elementName(elem) +
                     (scaled ? "_e4m3" : "") + "_t" +
                     std::to_string(tokens) + "_e" + std::to_string(experts) +
                     "_k" + std::to_string(topK) + "_h" +
                     std::to_string(hidden) + "_i" + std::to_string(inter);
  if (Value sg = op.getSharedGate())
    name += "_s" + std::to_string(
                       cast<RankedTensorType>(sg.getType()).getDimSize(1));
  OpBuilder at(op);
  auto launch = [&](KernelOp kernel, TypeRange results, ValueRange inputs) {
    return LaunchOp::create(at, loc, results, kernel.getSymName(), inputs);
  };
  auto kernelOf = [&](StringRef suffix, int64_t grid, int64_t threads,
                      ArrayRef<Value> inputs, ArrayRef<Type> outputs) {
    SmallVector<Type> params;
    for (Value v : inputs)
      params.push_back(memrefFor(v.getType()));
    for (Type t : outputs)
      params.push_back(memrefFor(t));
    return createKernel(top, symbols, loc, name + suffix.str(), {grid, 1, 1},
                        threads, /*smem=*/0, gateUpConfig, params);
  };

  // Routing: a warp per token row; the package's first kernel carries the
  // layer's signature, the others continue it.
  // The DeepSeek routing reads the correction bias as a second input.
  SmallVector<Value> routeInputs = {op.getRouterLogits()};
  SmallVector<StringRef> routeNames = {"router_logits"};
  if (Value bias = op.getCorrectionBias()) {
    routeInputs.push_back(bias);
    routeNames.push_back("correction_bias");
  }
  // With a shared expert, routing also writes its grouped GEMMs' offsets;
  // block-scaled, it also quantises its tokens' rows of x, which the shared
  // expert's gate-up GEMM reads (per-token work of the same blocks, in the
  // package, as a kernel reading only x would not be).
  Value sg = op.getSharedGate();
  bool quantiseX = sg && scaled;
  std::string xQParam = quantisedName("x"), xScaleParam = scaleName("x");
  if (quantiseX) {
    routeInputs.push_back(op.getX());
    routeNames.push_back("x");
  }
  routeNames.append({"expert_ids", "weights"});
  auto singleOffsetsType = RankedTensorType::get({2}, i32);
  SmallVector<Type> routeOutputs = {idsType, weightsType};
  if (sg) {
    routeOutputs.push_back(singleOffsetsType);
    routeNames.push_back("shared_offsets");
  }
  if (quantiseX) {
    routeOutputs.push_back(
        RankedTensorType::get({tokens, hidden}, Float8E4M3FNType::get(ctx)));
    routeOutputs.push_back(
        RankedTensorType::get({tokens, scaleBlocks(hidden)}, f32));
    routeNames.append({xQParam, xScaleParam});
  }
  auto [route, routeBody] =
      kernelOf("", llvm::divideCeil(tokens, kRouteRows), kRouteThreads,
               routeInputs, routeOutputs);
  describe(route, routeNames, routeOutputs.size(), moeSignature(op));
  {
    auto b = ImplicitLocOpBuilder::atBlockBegin(loc, routeBody);
    Ix ix{b};
    bool biased = bool(op.getCorrectionBias());
    RouteParams p = op.getRouteParams();
    unsigned out = 3 + routeInputs.size();
    TileMoeRouteOp::create(
        b, routeBody->getArgument(3),
        biased ? routeBody->getArgument(4) : Value(),
        ix.mul(routeBody->getArgument(0), kRouteRows),
        routeBody->getArgument(out), routeBody->getArgument(out + 1),
        kRouteRows, op.getRenormalize(), p.scoring, p.nGroup, p.topkGroup,
        APFloat(p.routedScalingFactor));
    if (sg)
      TileMoeSingleGroupOp::create(b, routeBody->getArgument(out + 2),
                                   tokens);
    if (quantiseX)
      TileActQuantOp::create(b, routeBody->getArgument(out - 1),
                             ix.mul(routeBody->getArgument(0), kRouteRows),
                             routeBody->getArgument(out + 3),
                             routeBody->getArgument(out + 4), kRouteRows);
  }
  auto routed = launch(route, routeOutputs, routeInputs);
  Value ids = routed.getResult(0), weights = routed.getResult(1);

  // Ranking: a block per expert.
  auto [rank, rankBody] =
      kernelOf("_rank", experts, kRankThreads, {ids}, {idsType, offsetsType});
  describe(rank, {"expert_ids", "positions", "expert_offsets"}, 2);
  {
    auto b = ImplicitLocOpBuilder::atBlockBegin(loc, rankBody);
    TileMoeRankOp::create(b, rankBody->getArgument(3), rankBody->getArgument(0),
                          rankBody->getArgument(4), rankBody->getArgument(5));
  }
  auto ranked = launch(rank, {idsType, offsetsType}, {ids});
  Value positions = ranked.getResult(0), offsets = ranked.getResult(1);

  // Gather: token copies to their expert-sorted rows.
  auto [gather, gatherBody] =
      kernelOf("_gather", llvm::divideCeil(copies, kGatherCopies),
               kCopyThreads, {op.getX(), positions, offsets}, {permutedType});
  describe(gather, {"x", "positions", "expert_offsets", "permuted"}, 1);
  {
    auto b = ImplicitLocOpBuilder::atBlockBegin(loc, gatherBody);
    Ix ix{b};
    TileMoeGatherOp::create(
        b, gatherBody->getArgument(3), gatherBody->getArgument(4),
        gatherBody->getArgument(5),
        ix.mul(gatherBody->getArgument(0), kGatherCopies),
        gatherBody->getArgument(6), kGatherCopies);
  }
  Value permuted = launch(gather, {permutedType},
                          {op.getX(), positions, offsets})
                       .getResult(0);

  // An expert GEMM; with block-scaled e4m3 weights, a kernel quantising its
  // activations (`A` to `A_q`, `A_scale`) first, and the weights' scales
  // (`W_scale` of weights `W`) beside them.
  auto expertGemm = [&](GroupedGemm g, Value bScale, Value bUpScale,
                        StringRef suffix, Quantised given = {}) {
    if (scaled) {
      Quantised q = given.q ? given
                            : buildQuantise(g.a, g.aName,
                                            name + "_quant_" + g.aName.str(),
                                            g.config, {}, symbols, top, at,
                                            loc);
      g.a = q.q;
      g.aScale = q.scale;
      g.bScale = bScale;
      g.bUpScale = bUpScale;
    }
    return buildGroupedGemm(g, name + suffix.str(), {}, symbols, top, at,
                            loc);
  };

  // The expert GEMMs.
  Value h = expertGemm({permuted, op.getWGate(), op.getWUp(), offsets, hType,
                        op.getActivation(), gateUpConfig, "permuted",
                        "w_gate", "w_up", "h"},
                       op.getWGateScale(), op.getWUpScale(), "_gate_up");
  Value expertOut = expertGemm({h, op.getWDown(), Value(), offsets,
                                permutedType, Activation::none, downConfig,
                                "h", "w_down", "", "expert_out"},
                               op.getWDownScale(), Value(), "_down");

  // The shared expert: the same two grouped GEMMs over every token as one
  // group (expert 0 of its weights seen as [1, H, Is] and [1, Is, H]), on
  // the offsets [0, T] the routing kernel wrote (kgen-decompose-moe's form).
  Value sharedOut;
  if (sg) {
    Value all = routed.getResult(2);
    auto asOneExpert = [&](Value w) -> Value {
      if (!w)
        return Value();
      auto t = cast<RankedTensorType>(w.getType());
      auto type = RankedTensorType::get({1, t.getDimSize(0), t.getDimSize(1)},
                                        t.getElementType());
      return tensor::ExpandShapeOp::create(
          at, loc, type, w, ArrayRef<ReassociationIndices>{{0, 1}, {2}});
    };
    int64_t sInter = cast<RankedTensorType>(sg.getType()).getDimSize(1);
    Value sharedH = expertGemm(
        {op.getX(), asOneExpert(sg), asOneExpert(op.getSharedUp()), all,
         RankedTensorType::get({tokens, sInter}, elem), op.getActivation(),
         gateUpConfig, "x", "shared_gate", "shared_up", "shared_h",
         "shared_offsets"},
        asOneExpert(op.getSharedGateScale()),
        asOneExpert(op.getSharedUpScale()), "_shared_gate_up",
        quantiseX ? Quantised{routed.getResult(3), routed.getResult(4)}
                  : Quantised{});
    sharedOut = expertGemm(
        {sharedH, asOneExpert(op.getSharedDown()), Value(), all,
         RankedTensorType::get({tokens, hidden}, elem), Activation::none,
         downConfig, "shared_h", "shared_down", "", "shared_out",
         "shared_offsets"},
        asOneExpert(op.getSharedDownScale()), Value(), "_shared_down");
  }

  // Combine: the weighted sum of each token's expert rows, in slot order,
  // then the shared expert's row.
  auto yType = cast<RankedTensorType>(op.getY().getType());
  SmallVector<Value> combineInputs = {expertOut, positions, weights};
  SmallVector<StringRef> combineNames = {"expert_out", "positions", "weights"};
  if (sharedOut) {
    combineInputs.push_back(sharedOut);
    combineNames.push_back("shared_out");
  }
  combineNames.push_back("y");
  auto [combine, combineBody] =
      kernelOf("_combine", llvm::divideCeil(tokens, kCombineTokens),
               kCopyThreads, combineInputs, {yType});
  describe(combine, combineNames, 1);
  {
    auto b = ImplicitLocOpBuilder::atBlockBegin(loc, combineBody);
    Ix ix{b};
    unsigned out = sharedOut ? 7 : 6;
    TileMoeCombineOp::create(
        b, combineBody->getArgument(3), combineBody->getArgument(4),
        combineBody->getArgument(5),
        sharedOut ? combineBody->getArgument(6) : Value(),
        ix.mul(combineBody->getArgument(0), kCombineTokens),
        combineBody->getArgument(out), kCombineTokens);
  }
  Value y = launch(combine, {yType}, combineInputs).getResult(0);
  op.getY().replaceAllUsesWith(y);
  op.erase();
}

void lowerGroupedGemmOp(GroupedGemmOp op, SymbolTable &symbols,
                        OpBuilder &top) {
  auto a = cast<RankedTensorType>(op.getA().getType());
  auto w = cast<RankedTensorType>(op.getB().getType());
  std::string name = "kgen_grouped_gemm_" + elementName(a.getElementType()) +
                     "_r" + std::to_string(a.getDimSize(0)) + "_e" +
                     std::to_string(w.getDimSize(0)) + "_k" +
                     std::to_string(a.getDimSize(1)) + "_n" +
                     std::to_string(w.getDimSize(2));
  OpBuilder at(op);
  GroupedGemm g{op.getA(), op.getB(), op.getBUp(), op.getExpertOffsets(),
                cast<RankedTensorType>(op.getD().getType()),
                op.getActivation(), op.getConfigAttr(), "A", "B", "B_up",
                "D"};
  DictionaryAttr signature = groupedGemmSignature(op);
  // Block-scaled e4m3 weights: a kernel quantising A first (the package's
  // first kernel, named after it and carrying the signature), then the
  // GEMM.
  if (!op.getScales().empty()) {
    name += "_e4m3";
    Quantised q = buildQuantise(op.getA(), "A", name, op.getConfigAttr(),
                                signature, symbols, top, at, op.getLoc());
    signature = {};
    g.a = q.q;
    g.aScale = q.scale;
    g.bScale = op.getBScale();
    g.bUpScale = op.getBUpScale();
    name += "_gemm";
  }
  Value d = buildGroupedGemm(g, name, signature, symbols, top, at,
                             op.getLoc());
  op.getD().replaceAllUsesWith(d);
  op.erase();
}

struct KgenLowerMoeToTilesPass
    : mlir::kgen::impl::KgenLowerMoeToTilesBase<KgenLowerMoeToTilesPass> {
  using KgenLowerMoeToTilesBase::KgenLowerMoeToTilesBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    OpBuilder top(module.getContext());
    top.setInsertionPointToStart(module.getBody());
    SmallVector<MoeOp> layers;
    SmallVector<GroupedGemmOp> gemms;
    WalkResult refused = module.walk([&](MoeOp op) {
      std::optional<std::string> why = moeKernelsRefuse(op);
      if ((op.getGateUpConfigAttr() || op.getDownConfigAttr()) && why) {
        op.emitOpError() << "has configs, but " << *why
                         << ": drop the configs to run it on the reference "
                            "path";
        return WalkResult::interrupt();
      }
      if (bool(op.getGateUpConfigAttr()) != bool(op.getDownConfigAttr())) {
        op.emitOpError("needs both gate_up_config and down_config to be "
                       "lowered (kgen-select-strategy writes both); it has "
                       "one");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (refused.wasInterrupted())
      return signalPassFailure();
    module.walk([&](Operation *op) {
      if (auto moe = dyn_cast<MoeOp>(op);
          moe && moe.getGateUpConfigAttr() && moe.getDownConfigAttr())
        layers.push_back(moe);
      else if (auto g = dyn_cast<GroupedGemmOp>(op); g && g.getConfigAttr())
        gemms.push_back(g);
    });
    for (MoeOp op : layers)
      lowerMoe(op, symbols, top);
    for (GroupedGemmOp op : gemms)
      lowerGroupedGemmOp(op, symbols, top);
  }
};
} // namespace
