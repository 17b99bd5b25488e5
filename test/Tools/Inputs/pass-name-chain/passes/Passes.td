// Fixture of pass-name-chain.test: one pass per way a name chain holds or
// breaks. Not built.
def KgenGood : Pass<"kgen-good"> {}
def KgenMoved : Pass<"kgen-moved", "::mlir::ModuleOp"> {}
def KgenGreedy : Pass<"kgen-greedy"> {}
def KgenCanFail : Pass<"kgen-can-fail"> {}
def KgenMisnamed : Pass<"kgen-mis-named"> {}
def KgenNoSource : Pass<"kgen-no-source"> {}
def KgenNoTest : Pass<"kgen-no-test"> {}
def KgenNotRun : Pass<"kgen-not-run"> {}
