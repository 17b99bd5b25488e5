//===- MoeChild.cpp - verify and time moe packages of one op --------------===//
//
// The moe op's HostCheck (HostCheckedChild.h): the inputs are moeInput's
// scaled weights (e4m3 ones with their block scales, when block-scaled)
// and tie-free router logits; the reference is the host's
// mirror (Moe.h) at moeCheckedTokens (every token of a small layer; the
// first, the last and seeded tokens reaching as many experts as they can of
// a big one). y is judged at the checked tokens and, when the package has
// the expert_ids workspace, the routing of every token exactly.
//
//===----------------------------------------------------------------------===//

#include "HostCheckedChild.h"

#include "kgen/runtime/Moe.h"
#include "kgen/runtime/cuda/Reference.h"

namespace kgen::rt {

namespace {

class MoeCheck : public HostCheck {
public:
  MoeCheck(const MoeSpec &spec, uint64_t seed) : spec_(spec), seed_(seed) {}

  const char *checkedOutput() const override { return "y"; }

  void computeReference(
      const std::map<std::string, const HostTensor *> &inputs) override {
    logits_ = *inputs.at("router_logits");
    // The DeepSeek inputs and the block scales, where the package has them
    // (the bias is kept: judge routes again).
    MoeExtras extras = moeExtras([&](const char *name) -> const HostTensor * {
      auto it = inputs.find(name);
      return it == inputs.end() ? nullptr : it->second;
    });
    if (extras.bias) {
      bias_ = *extras.bias;
      extras.bias = &bias_;
    }
    routing_.bias = extras.bias;
    tokens_ = moeCheckedTokens(spec_, logits_, seed_, extras);
    expected_ = moeExpected(spec_, *inputs.at("x"), logits_,
                            *inputs.at("w_gate"), *inputs.at("w_up"),
                            *inputs.at("w_down"), tokens_, extras);
  }

  /// y at the checked tokens by relative Frobenius error; then expert_ids,
  /// when the package has it, against the host's routing of every token.
  bool judge(const HostTensor &y, const PackageLaunch &kernels,
             KernelResult &result) override {
    if (!rt::judge(gatherRows(y, tokens_, spec_.hidden), expected_.y,
                   moeTolerance(spec_), result))
      return false;
    const Arena *ids = kernels.workspace("expert_ids");
    if (ids == nullptr)
      return true;
    HostTensor got = makeZeros(ElemType::I32, moeShapeRoute(spec_));
    std::string err;
    if (!download(ids->slot(0), got, err)) {
      markFailed(result, err);
      return false;
    }
    std::string why;
    if (!checkMoeRouting(spec_, logits_, got, why, routing_)) {
      markWrong(result, why);
      return false;
    }
    return true;
  }

private:
  const MoeSpec &spec_;
  const uint64_t seed_;
  HostTensor logits_;
  HostTensor bias_;               // correction_bias, when the layer has one
  MoeExtras routing_;             // what routing reads besides logits_
  std::vector<int64_t> tokens_; // the tokens whose y is checked
  MoeExpected expected_;         // the reference at tokens_
};

} // namespace

int moeGroupChild(const std::vector<const PreparedPackage *> &group,
                  const BenchOptions &options, CudaSession &session, int fd) {
  MoeCheck check(*group.front()->moe, options.seed);
  return hostCheckedGroupChild(group, options, session, fd, check);
}

} // namespace kgen::rt
