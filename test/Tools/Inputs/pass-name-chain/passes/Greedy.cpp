// Fixture of pass-name-chain.test.
#define GEN_PASS_DEF_KGENGREEDY
// A greedy driver that does not converge is no error of the pass's own.
void run() {
  if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
    signalPassFailure();
}
