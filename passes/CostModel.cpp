//===- CostModel.cpp - the analytical cost model of a gemm_config --------===//

#include "passes/CostModel.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::kgen;

unsigned mlir::kgen::familyIndex(InstructionFamily family) {
  switch (family) {
  case InstructionFamily::simt:
    return 0;
  case InstructionFamily::mma_sync:
    return 1;
  case InstructionFamily::wgmma:
    return 2;
  }
  return 0;
}

GemmProblem GemmProblem::of(GemmOp op) {
  GemmProblem p;
  p.batch = double(op.getBatch());
  p.m = double(op.getM());
  p.n = double(op.getN());
  p.k = double(op.getK());
  p.aBytes = op.getA().getType().getElementTypeBitWidth() / 8.0;
  p.dBytes = op.getD().getType().getElementTypeBitWidth() / 8.0;
  p.f32 = op.getA().getType().getElementType().isF32();
  if (Value c = op.getC())
    p.cBytes = cast<ShapedType>(c.getType()).getElementTypeBitWidth() / 8.0;
  if (Value bias = op.getBias())
    p.biasBytes =
        cast<ShapedType>(bias.getType()).getElementTypeBitWidth() / 8.0;
  p.activation = op.getActivation() != Activation::none;
  return p;
}

GemmCost mlir::kgen::predictGemmCost(const GemmProblem &p, GemmConfigAttr c,
                                     const MachineModel &machine) {
  double m = p.m, n = p.n, k = p.k, batch = p.batch;
  double eb = p.aBytes, ob = p.dBytes;
  double flops = 2 * batch * m * n * k;

  // Share of the 16-bit tensor-core rate each family reaches at best.
  double family = 0;
  switch (c.getInstruction()) {
  case InstructionFamily::wgmma:
    family = eb == 1 ? 1.7 : 0.9; // fp8 runs at twice the 16-bit rate
    break;
  case InstructionFamily::mma_sync:
    family = p.f32 ? 0.25 : 0.6;
    break;
  case InstructionFamily::simt:
    family = 0.07;
    break;
  }
  double bm = double(c.getBlockM()), bn = double(c.getBlockN());
  double tileShare = std::pow(std::min(1.0, bm * bn / (128.0 * 256.0)), 0.2);
  // Tile rows padded to whole clusters (kgen-lower-gemm-to-tiles).
  double cluster = double(c.getClusterM());
  double tileRows = std::ceil(std::ceil(m / bm) / cluster) * cluster;
  double tiles = batch * tileRows * std::ceil(n / bn);
  double blocks = tiles * double(c.getSplitK());
  // Wave quantisation: the last wave of blocks runs on part of the SMs.
  int64_t perSm = c.getWarpSpecialized() ? 1 : 2;
  double slots = double(machine.smCount * perSm);
  double waves = std::ceil(blocks / slots);
  double quantisation = waves * slots / blocks;
  // Padding of partial tiles does work on zeros.
  double padding = std::ceil(m / bm) * bm / m * std::ceil(n / bn) * bn / n;
  // The epilogue on the CUDA cores (about 1/12 of the tensor-core rate):
  // alpha, beta C, bias, the cast; an activation's exp/tanh about 20 more.
  double epilogueFlops =
      batch * m * n * (4 + (p.activation ? 20 : 0));
  GemmCost cost;
  cost.computeMs = (flops * padding * quantisation /
                        (machine.matmulTflops * 1e12 * family * tileShare) +
                    epilogueFlops / (machine.matmulTflops * 1e12 / 12)) *
                   1e3 * machine.computeScale[familyIndex(c.getInstruction())];

  // Each tile reads its A and B strips; L2 catches most re-reads within a
  // raster group.
  double minBytes = batch * ((m * k + k * n) * eb + m * n * (ob + p.cBytes)) +
                    n * p.biasBytes;
  // A cluster loads each B tile once for its blocks (multicast).
  double tileBytes = tiles * (bm + bn / cluster) * k * eb + batch * m * n * ob;
  double l2Miss = c.getRasterGroup() > 1 ? 0.1 : 0.25;
  double bytes = minBytes + std::max(0.0, tileBytes - minBytes) * l2Miss;
  cost.memoryMs =
      bytes / (machine.copyGBps * 1e9) * 1e3 * machine.memoryScale;

  // Pipeline fill: the first stages - 1 tiles are exposed per block.
  double kTiles = std::ceil(k / double(c.getBlockK()) / double(c.getSplitK()));
  double fill = std::min(1.0, double(c.getStages() - 1) / std::max(1.0, kTiles));
  double shallow = c.getStages() < 3 ? 1.15 : 1.0;
  cost.pipeline = shallow * (1 + 0.1 * fill);
  cost.overheadMs = machine.launchUs * 1e-3;
  if (c.getSplitK() > 1) // partials written and read back, one more launch
    cost.overheadMs += double(c.getSplitK()) * batch * m * n * 4 * 2 /
                           (machine.copyGBps * 1e9) * 1e3 +
                       machine.launchUs * 1e-3;
  cost.ms = std::max(cost.computeMs, cost.memoryMs) * cost.pipeline +
            cost.overheadMs;
  return cost;
}

double mlir::kgen::predictGemmMs(GemmOp op, GemmConfigAttr c,
                                 const MachineModel &machine) {
  return predictGemmCost(GemmProblem::of(op), c, machine).ms;
}

namespace {
double medianOf(SmallVector<double> v) {
  llvm::sort(v);
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
} // namespace

MachineModel mlir::kgen::fitMachineModel(ArrayRef<GemmMeasurement> measured,
                                         MachineModel start) {
  constexpr int kIterations = 8;
  constexpr double kMinScale = 0.02, kMaxScale = 50;
  MachineModel model = start;
  for (int it = 0; it < kIterations; ++it) {
    // ratios[0..2]: compute-bound measurements per family; [3]: memory.
    SmallVector<double> ratios[4];
    for (const GemmMeasurement &g : measured) {
      if (!(g.ms > 0) || !g.config)
        continue;
      GemmCost cost = predictGemmCost(g.problem, g.config, model);
      double work = (g.ms - cost.overheadMs) / cost.pipeline;
      if (!(work > 0))
        continue; // all overhead: says nothing about the rates
      unsigned f = familyIndex(g.config.getInstruction());
      if (cost.computeBound())
        ratios[f].push_back(work / (cost.computeMs / model.computeScale[f]));
      else
        ratios[3].push_back(work / (cost.memoryMs / model.memoryScale));
    }
    for (unsigned f = 0; f < 3; ++f)
      if (!ratios[f].empty())
        model.computeScale[f] =
            std::clamp(medianOf(ratios[f]), kMinScale, kMaxScale);
    if (!ratios[3].empty())
      model.memoryScale = std::clamp(medianOf(ratios[3]), kMinScale, kMaxScale);
  }
  return model;
}
