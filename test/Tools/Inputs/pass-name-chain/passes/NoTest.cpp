// Fixture of pass-name-chain.test.
#define GEN_PASS_DEF_KGENNOTEST
