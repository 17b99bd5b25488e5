// A stack overflow ends like any other fault: in the tool's one-line
// message and a non-zero exit, never in a raw SIGSEGV (exit 139). The
// handlers run on an alternate signal stack, since an overflow leaves no
// stack to run them on.
//
// In the generated code: kgen-run's guarded call reports it as an error of
// the run (exit 1). @main below recurses without end (each call squares its
// callee's result, so no call is a tail call and every frame stays).
// RUN: sh -c 'ulimit -s 1024; kgen-run %s --timeout=60; echo "exit code $?"' 2>&1 | FileCheck %s --check-prefix=RUN-OVERFLOW
// RUN-OVERFLOW: kgen-run: error: running @main failed: the generated code overflowed the stack ({{[0-9]+}} KiB; see `ulimit -s`)
// RUN-OVERFLOW-NEXT: exit code 1
//
// In a tool itself (here MLIR's recursive parser on 10000 nested regions,
// with the nesting limit that refuses them lifted; see input-limits.test):
// the crash handler's internal error (exit 70), kgen-opt and kgen-run alike.
// RUN: %python -c "n = 10000; print('func.func @main() {\n' + 'scf.execute_region {\n' * n + 'scf.yield\n}\n' * n + 'return\n}')" > %t.deep.mlir
// RUN: sh -c 'ulimit -s 1024; kgen-opt %t.deep.mlir --max-nesting-depth=0 -o /dev/null; echo "exit code $?"' 2>&1 | FileCheck %s --check-prefix=OPT-OVERFLOW
// RUN: sh -c 'ulimit -s 1024; kgen-run %t.deep.mlir --max-nesting-depth=0; echo "exit code $?"' 2>&1 | FileCheck %s --check-prefix=TOOL-OVERFLOW
// OPT-OVERFLOW: kgen-opt: internal error: the process hit a crash signal; this is a bug, please report it with the input. Stack trace:
// OPT-OVERFLOW: exit code 70
// TOOL-OVERFLOW: kgen-run: internal error: the process hit a crash signal; this is a bug, please report it with the input. Stack trace:
// TOOL-OVERFLOW: exit code 70

func.func private @deeper(%n: i64) -> i64 {
  %one = arith.constant 1 : i64
  %next = arith.addi %n, %one : i64
  %r = func.call @deeper(%next) : (i64) -> i64
  %sq = arith.muli %r, %r : i64
  %s = arith.addi %sq, %n : i64
  return %s : i64
}

func.func @main(%x: tensor<4xi64>) -> tensor<4xi64> {
  %c0 = arith.constant 0 : index
  %v = tensor.extract %x[%c0] : tensor<4xi64>
  %r = func.call @deeper(%v) : (i64) -> i64
  %y = tensor.insert %r into %x[%c0] : tensor<4xi64>
  return %y : tensor<4xi64>
}
