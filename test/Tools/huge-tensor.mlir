// Shapes are only types to kgen-opt, however large; kgen-run refuses to
// allocate or compute absurd sizes, with a message naming the limit.
// RUN: kgen-opt %s --split-input-file | FileCheck %s --check-prefix=OPT
// RUN: kgen-opt %s --split-input-file --kgen-print-op-stats -o /dev/null | FileCheck %s --check-prefix=STATS
// RUN: grep -v '^//' %s | sed -n '/^func.func @huge/,/^}/p' > %t.huge.mlir
// RUN: not kgen-run %t.huge.mlir 2>&1 | FileCheck %s --check-prefix=ELEMENTS
// RUN: not kgen-run %t.huge.mlir --max-elements=9223372036854775807 2>&1 | FileCheck %s --check-prefix=ELEMENTS-MAX
// RUN: grep -v '^//' %s | sed -n '/^func.func @slow/,/^}/p' > %t.slow.mlir
// RUN: not kgen-run %t.slow.mlir 2>&1 | FileCheck %s --check-prefix=GFLOP
// RUN: grep -v '^//' %s | sed -n '/^func.func @small/,/^}/p' > %t.small.mlir
// RUN: not kgen-run %t.small.mlir --max-elements=100 2>&1 | FileCheck %s --check-prefix=SMALL-ELEMENTS
// RUN: not kgen-run %t.small.mlir --max-gflop=0.0000001 2>&1 | FileCheck %s --check-prefix=SMALL-GFLOP

// OPT: func.func @huge(%{{.+}}: tensor<100000000000x100000000000xf32>, %{{.+}}: tensor<100000000000x100000000000xf32>) -> tensor<100000000000x100000000000xf32>
// OPT:   kgen.gemm %{{.+}}, %{{.+}} : tensor<100000000000x100000000000xf32>, tensor<100000000000x100000000000xf32> -> tensor<100000000000x100000000000xf32>
// OPT: func.func @slow(
// OPT: func.func @small(

// 2 * (1e11)^3 = 2e33 FLOP = 2e24 GFLOP (25 digits).
// STATS: huge  kgen.gemm {{.+}}  {{[12][0-9]{24}[.]}}000 GFLOP
// STATS: slow  kgen.gemm {{.+}}  1099.512 GFLOP

// ELEMENTS-NOT: internal error
// ELEMENTS:     kgen-run: error: tensor<100000000000x100000000000xf32>: tensor of shape 100000000000x100000000000 has more than the limit of 268435456 elements (see --max-elements)
// ELEMENTS-NOT: internal error

// Even the largest limit: 1e22 elements do not fit in 64 bits.
// ELEMENTS-MAX: kgen-run: error: {{.*}}tensor of shape 100000000000x100000000000 has more than the limit of 9223372036854775807 elements (see --max-elements)

// 2 * 8192^3 = 1099511627776 FLOP.
// GFLOP-NOT: internal error
// GFLOP:     kgen-run: error: {{.*}}1099.5 GFLOP, more than the limit of 20{{(\.0+)?}} GFLOP for the CPU reference (see --max-gflop)
// GFLOP-NOT: internal error

// SMALL-ELEMENTS: kgen-run: error: tensor<16x{{[0-9]+}}xf32>: tensor of shape 16x{{[0-9]+}} has more than the limit of 100 elements (see --max-elements)
// 2 * 16 * 8 * 32 = 8192 FLOP, 8.192e-06 GFLOP; the message must show the
// work as a non-zero number and the limit as given.
// SMALL-GFLOP:    kgen-run: error: {{.*}} {{0?\.?0*[1-9][0-9.e+-]*}} GFLOP, more than the limit of {{(1(\.0*)?e-07|0\.00000010*)}} GFLOP for the CPU reference (see --max-gflop)

func.func @huge(%a: tensor<100000000000x100000000000xf32>, %b: tensor<100000000000x100000000000xf32>) -> tensor<100000000000x100000000000xf32> {
  %d = kgen.gemm %a, %b : tensor<100000000000x100000000000xf32>, tensor<100000000000x100000000000xf32> -> tensor<100000000000x100000000000xf32>
  return %d : tensor<100000000000x100000000000xf32>
}

// -----

func.func @slow(%a: tensor<8192x8192xbf16>, %b: tensor<8192x8192xbf16>) -> tensor<8192x8192xbf16> {
  %d = kgen.gemm %a, %b : tensor<8192x8192xbf16>, tensor<8192x8192xbf16> -> tensor<8192x8192xbf16>
  return %d : tensor<8192x8192xbf16>
}

// -----

func.func @small(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>) -> tensor<16x8xf32> {
  %d = kgen.gemm %a, %b : tensor<16x32xf32>, tensor<32x8xf32> -> tensor<16x8xf32>
  return %d : tensor<16x8xf32>
}
