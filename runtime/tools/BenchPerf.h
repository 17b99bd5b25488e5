//===- BenchPerf.h - kgen-bench compare, history, report --------*- C++ -*-===//
//
// The performance-history modes of kgen-bench, compare, history and report
// (docs/performance-history.md): host-only, no CUDA device or library
// call. kgen-bench's main hands them the arguments after the mode's name.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_RUNTIME_TOOLS_BENCHPERF_H
#define KGEN_RUNTIME_TOOLS_BENCHPERF_H

#include <string>
#include <vector>

namespace kgen::rt {

/// kgen-bench compare BASE NEW ...: 0 nothing regressed, 1 a kernel
/// regressed, 2 usage or input error.
int compareMain(const std::vector<std::string> &args);

/// kgen-bench history add|list|show|series ...: 0 done, 1 the history
/// file is corrupt, foreign or unusable, 2 usage or input error.
int historyMain(const std::vector<std::string> &args);

/// kgen-bench report F.json... [--html|--markdown|--csv OUT] ...: 0 done,
/// 1 a kernel regressed against --compare's run, 2 usage or input error.
int reportMain(const std::vector<std::string> &args);

/// kgen-bench campaign task|merge ...: the steps of a tuning campaign that
/// run on the cluster (BenchCampaign.cpp; docs/campaigns.md).
int campaignMain(const std::vector<std::string> &args);

} // namespace kgen::rt

#endif // KGEN_RUNTIME_TOOLS_BENCHPERF_H
