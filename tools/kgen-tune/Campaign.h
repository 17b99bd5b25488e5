//===- Campaign.h - kgen-tune campaign plan|submit|status|... ---*- C++ -*-===//
//
// Tuning campaigns over a Slurm cluster (docs/campaigns.md): the plan is
// made here, where MLIR is (packages prepared by kgen-tune itself); the
// shards run as a job array of `kgen-bench campaign task`, merged by a
// dependent `kgen-bench campaign merge`.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_TOOLS_KGEN_TUNE_CAMPAIGN_H
#define KGEN_TOOLS_KGEN_TUNE_CAMPAIGN_H

#include <string>
#include <vector>

namespace kgen::tune {

/// `kgen-tune campaign STEP ...` with the arguments after "campaign":
/// 0 done, 1 a step failed (sbatch refused, items missing, timed out),
/// 2 usage or input error.
int campaignMain(const std::vector<std::string> &args);

} // namespace kgen::tune

#endif // KGEN_TOOLS_KGEN_TUNE_CAMPAIGN_H
