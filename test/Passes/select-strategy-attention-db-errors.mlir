// Attention tuning databases that cannot be used, whole or in part: a
// warning naming the file and the field, and the selection goes on.
// A corrupt database (an attention key without q_heads) is skipped whole:
// the cost model decides.
// RUN: kgen-opt %s --kgen-select-strategy="target=sm_90a db=%S/Inputs/corrupt-attention-tuning-db.json" 2>&1 | FileCheck %s --check-prefix=CORRUPT
// CORRUPT: warning: kgen-select-strategy: skipping tuning database: {{.*}}corrupt-attention-tuning-db.json: entries[0].key.op.q_heads: missing
// CORRUPT: source = model
// Before it, a readable database is used as if the corrupt one were not
// there.
// RUN: kgen-opt %s --kgen-select-strategy="target=sm_90a db=%S/Inputs/corrupt-attention-tuning-db.json,%S/Inputs/synthetic-attention-tuning-db.json" 2>&1 | FileCheck %s --check-prefix=SKIPPED
// SKIPPED: warning: kgen-select-strategy: skipping tuning database: {{.*}}corrupt-attention-tuning-db.json
// SKIPPED: source = measured
// An entry's fastest candidate that this attention cannot have (block_n 64
// at head dim 256): warned about, naming the file, the candidate, the
// field and the legality; the next legal candidate is taken.
// RUN: kgen-opt %s --kgen-select-strategy="target=sm_90a db=%S/Inputs/synthetic-attention-tuning-db.json" 2>&1 | FileCheck %s --check-prefix=ILLEGAL
// ILLEGAL: warning: kgen-select-strategy: tuning database {{.*}}synthetic-attention-tuning-db.json: entries[5].candidates[0].config.block_n: is 64; with head dim 256 {{.*}} (attention legality, for this attention); candidate skipped
// ILLEGAL: block_m = 64, block_n = 32, warps_m = 4, stages = 1, {{.*}} source = measured, entry = "{{.*}}: b1 q4096 kv4096 h32/8 d256 on NVIDIA H200">

func.func @exact_illegal_skipped(%q: tensor<1x32x4096x256xbf16>, %k: tensor<1x8x4096x256xbf16>, %v: tensor<1x8x4096x256xbf16>) -> tensor<1x32x4096x256xbf16> {
  %o = kgen.attention %q, %k, %v {causal} : tensor<1x32x4096x256xbf16>, tensor<1x8x4096x256xbf16>, tensor<1x8x4096x256xbf16> -> tensor<1x32x4096x256xbf16>
  return %o : tensor<1x32x4096x256xbf16>
}
