// A module cut at several points (mid type, mid operand, mid attribute,
// mid result type, before the terminator, before the closing brace): each
// cut is a parse error naming the position, never a crash.
// RUN: grep -v -e '^//' -e '^$' %s > %t.full.mlir
// RUN: kgen-opt %t.full.mlir -o /dev/null
//
// RUN: head -c 51 %t.full.mlir > %t.1.mlir
// RUN: not kgen-opt %t.1.mlir 2>&1 | FileCheck %s --check-prefix=CUT1
// RUN: not kgen-run %t.1.mlir 2>&1 | FileCheck %s --check-prefixes=CUT1,RUNERR
// CUT1: .1.mlir:1:51: error: expected 'x' in dimension list
//
// RUN: head -c 137 %t.full.mlir > %t.2.mlir
// RUN: not kgen-opt %t.2.mlir 2>&1 | FileCheck %s --check-prefix=CUT2
// RUN: not kgen-run %t.2.mlir 2>&1 | FileCheck %s --check-prefixes=CUT2,RUNERR
// CUT2: .2.mlir:2:32: error: expected ':'
//
// RUN: head -c 190 %t.full.mlir > %t.3.mlir
// RUN: not kgen-opt %t.3.mlir 2>&1 | FileCheck %s --check-prefix=CUT3
// RUN: not kgen-run %t.3.mlir 2>&1 | FileCheck %s --check-prefixes=CUT3,RUNERR
// CUT3: .3.mlir:2:83: error: unbalanced '<' character in pretty dialect name
//
// RUN: head -c 236 %t.full.mlir > %t.4.mlir
// RUN: not kgen-opt %t.4.mlir 2>&1 | FileCheck %s --check-prefix=CUT4
// RUN: not kgen-run %t.4.mlir 2>&1 | FileCheck %s --check-prefixes=CUT4,RUNERR
// CUT4: .4.mlir:2:131: error: expected non-function type
//
// RUN: head -c 253 %t.full.mlir > %t.5.mlir
// RUN: not kgen-opt %t.5.mlir 2>&1 | FileCheck %s --check-prefix=CUT5
// RUN: not kgen-run %t.5.mlir 2>&1 | FileCheck %s --check-prefixes=CUT5,RUNERR
// CUT5: .5.mlir:2:148: error: expected operation name in quotes
//
// RUN: head -c 284 %t.full.mlir > %t.6.mlir
// RUN: not kgen-opt %t.6.mlir 2>&1 | FileCheck %s --check-prefix=CUT6
// RUN: not kgen-run %t.6.mlir 2>&1 | FileCheck %s --check-prefixes=CUT6,RUNERR
// CUT6: .6.mlir:3:31: error: expected operation name in quotes
//
// RUNERR:     kgen-run: error: could not parse {{.*}}.mlir
// RUNERR-NOT: internal error
func.func @main(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>, %bias: tensor<8xf32>) -> tensor<16x8xf32> {
  %d = kgen.gemm %a, %b bias(%bias : tensor<8xf32>) {activation = #kgen.activation<relu>} : tensor<16x32xf32>, tensor<32x8xf32> -> tensor<16x8xf32>
  return %d : tensor<16x8xf32>
}
