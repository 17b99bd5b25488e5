// Fixture of pass-name-chain.test.
#define GEN_PASS_DEF_KGENCANFAIL
void run() {
  op->emitOpError("refused");
  return signalPassFailure();
}
