// Fixture of pass-name-chain.test: a pass outside passes/.
#define GEN_PASS_DEF_KGENMOVED
