//===- GroupedGemmChild.cpp - verify and time grouped_gemm packages -------===//
//
// The grouped_gemm op's HostCheck (HostCheckedChild.h): the inputs are
// groupedGemmInput's (B scaled, or e4m3 with varying block scales;
// non-decreasing seeded expert_offsets); the
// reference is the host's mirror (GroupedGemm.h) at groupedGemmCheckedRows
// (every row of a small op; the first, the last, the rows at the bounds of
// seeded experts' groups and seeded rows of a big one). D is judged at the
// checked rows by relative Frobenius error, and at every row: zero in no
// group, no NaN (an element no kernel wrote).
//
//===----------------------------------------------------------------------===//

#include "HostCheckedChild.h"

#include "kgen/runtime/GroupedGemm.h"
#include "kgen/runtime/cuda/Reference.h"

namespace kgen::rt {

namespace {

class GroupedGemmCheck : public HostCheck {
public:
  GroupedGemmCheck(const GroupedGemmSpec &spec, uint64_t seed)
      : spec_(spec), seed_(seed) {}

  const char *checkedOutput() const override { return "D"; }

  void computeReference(
      const std::map<std::string, const HostTensor *> &inputs) override {
    offsets_ = *inputs.at("expert_offsets");
    rows_ = groupedGemmCheckedRows(spec_, offsets_, seed_);
    auto input = [&](const char *name) -> const HostTensor * {
      const auto it = inputs.find(name);
      return it == inputs.end() ? nullptr : it->second;
    };
    expected_ = groupedGemmExpected(
        spec_, *inputs.at("A"), *inputs.at("B"), input("B_up"), offsets_,
        rows_, WeightScales{input("B_scale"), input("B_up_scale")});
  }

  bool judge(const HostTensor &d, const PackageLaunch &, KernelResult &result)
      override {
    if (!rt::judge(gatherRows(d, rows_, spec_.n), expected_,
                   groupedGemmTolerance(spec_), result))
      return false;
    std::string why;
    if (!checkGroupedGemmCoverage(spec_, offsets_, d, why)) {
      markWrong(result, why);
      return false;
    }
    return true;
  }

private:
  const GroupedGemmSpec &spec_;
  const uint64_t seed_;
  HostTensor offsets_;
  std::vector<int64_t> rows_; // the rows whose D is checked
  HostTensor expected_;       // the reference at rows_
};

} // namespace

int groupedGemmGroupChild(const std::vector<const PreparedPackage *> &group,
                          const BenchOptions &options, CudaSession &session,
                          int fd) {
  GroupedGemmCheck check(*group.front()->groupedGemm, options.seed);
  return hostCheckedGroupChild(group, options, session, fd, check);
}

} // namespace kgen::rt
