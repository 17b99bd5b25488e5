// kgen-tune names each attention's layout in its listing (an e4m3 cache,
// a variable-length batch, a paged cache) and ranks only configs their
// legality accepts: mma_sync for all three on sm_90a (wgmma takes none of
// them), no packed view or split for the variable-length batch.
// RUN: kgen-tune %s --target=sm_90a --all | FileCheck %s
// CHECK: attention 0: b4 h8/2 q1 kv4096 d128 bf16 kv f8E4M3FN, {{[0-9]+}} valid configs for sm_90a
// CHECK-NOT: wgmma
// CHECK: attention 1: b3 h8/2 q90 kv120 d64 bf16 varlen causal, {{[0-9]+}} valid configs for sm_90a
// CHECK-NOT: {{pack|split([2-9]|[1-9][0-9])|wgmma}}
// CHECK: attention 2: b2 h8/2 q1 kv256 d64 bf16 paged 16, {{[0-9]+}} valid configs for sm_90a
// CHECK-NOT: wgmma
func.func @layouts(%q: tensor<4x8x1x128xbf16>, %k: tensor<4x2x4096x128xf8E4M3FN>, %v: tensor<4x2x4096x128xf8E4M3FN>, %dk: tensor<1xf32>, %dv: tensor<1xf32>,
                   %vq: tensor<90x8x64xbf16>, %vk: tensor<120x2x64xbf16>, %vv: tensor<120x2x64xbf16>, %cq: tensor<4xi32>, %ck: tensor<4xi32>,
                   %pq: tensor<2x8x1x64xbf16>, %pk: tensor<40x2x16x64xbf16>, %pv: tensor<40x2x16x64xbf16>, %bt: tensor<2x16xi32>)
    -> (tensor<4x8x1x128xbf16>, tensor<90x8x64xbf16>, tensor<2x8x1x64xbf16>) {
  %a = kgen.attention %q, %k, %v k_descale(%dk : tensor<1xf32>) v_descale(%dv : tensor<1xf32>) : tensor<4x8x1x128xbf16>, tensor<4x2x4096x128xf8E4M3FN>, tensor<4x2x4096x128xf8E4M3FN> -> tensor<4x8x1x128xbf16>
  %b = kgen.attention %vq, %vk, %vv cu_seqlens(%cq, %ck : tensor<4xi32>, tensor<4xi32>) {causal} : tensor<90x8x64xbf16>, tensor<120x2x64xbf16>, tensor<120x2x64xbf16> -> tensor<90x8x64xbf16>
  %c = kgen.attention %pq, %pk, %pv block_table(%bt : tensor<2x16xi32>) : tensor<2x8x1x64xbf16>, tensor<40x2x16x64xbf16>, tensor<40x2x16x64xbf16> -> tensor<2x8x1x64xbf16>
  return %a, %b, %c : tensor<4x8x1x128xbf16>, tensor<90x8x64xbf16>, tensor<2x8x1x64xbf16>
}
