// kgen-run refuses bad entry points, options and input files with a message
// naming the problem, before running anything it cannot run.
//
// The module at the bottom: @main (a 2x4 by 4x3 gemm) and @scalar.
// RUN: grep -v -e '^//' %s > %t.mlir
//
// A well-formed run with .npy inputs written byte by byte (format 1.0,
// header length 58): a = [[1, 2, 3, 4], [1, 1, 1, 1]], b = ones(4, 3).
// RUN: printf '\x93NUMPY\x01\x00\x3a\x00{"descr": "<f4", "fortran_order": False, "shape": (2, 4)}\n\x00\x00\x80\x3f\x00\x00\x00\x40\x00\x00\x40\x40\x00\x00\x80\x40\x00\x00\x80\x3f\x00\x00\x80\x3f\x00\x00\x80\x3f\x00\x00\x80\x3f' > %t.a.npy
// RUN: printf '\x93NUMPY\x01\x00\x3a\x00{"descr": "<f4", "fortran_order": False, "shape": (4, 3)}\n\x00\x00\x80\x3f\x00\x00\x80\x3f\x00\x00\x80\x3f\x00\x00\x80\x3f\x00\x00\x80\x3f\x00\x00\x80\x3f\x00\x00\x80\x3f\x00\x00\x80\x3f\x00\x00\x80\x3f\x00\x00\x80\x3f\x00\x00\x80\x3f\x00\x00\x80\x3f' > %t.b.npy
// RUN: kgen-run %t.mlir --input=%t.a.npy,%t.b.npy --print-values | FileCheck %s --check-prefix=OK
// OK:      ran @main
// OK-NEXT: result 0: tensor<2x3xf32> sum=42 l2={{.+}} nan=0
// OK-NEXT:   10 10 10
// OK-NEXT:   4 4 4

//===--- entry points -------------------------------------------------===//

// RUN: not kgen-run %t.mlir --entry=scalar 2>&1 | FileCheck %s --check-prefix=SCALAR
// SCALAR: kgen-run: error: argument 0 has type f32; kgen-run passes only statically shaped tensors
// RUN: not kgen-run %t.mlir --entry=nope 2>&1 | FileCheck %s --check-prefix=NOPE
// NOPE: kgen-run: error: no function @nope with a body in the module
// RUN: not kgen-run %t.mlir --entry=decl 2>&1 | FileCheck %s --check-prefix=DECL
// DECL: kgen-run: error: no function @decl with a body in the module

// Without @main and with several public functions, kgen-run asks for --entry.
// RUN: sed 's/@main/@first/' %t.mlir > %t.several.mlir
// RUN: not kgen-run %t.several.mlir 2>&1 | FileCheck %s --check-prefix=SEVERAL
// SEVERAL: kgen-run: error: several public functions and no @main: pick one with --entry

//===--- options ------------------------------------------------------===//

// RUN: not kgen-run %t.mlir --int-range=5:1 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not kgen-run %t.mlir --int-range=3:3 2>&1 | FileCheck %s --check-prefix=EQUAL-RANGE
// RUN: not kgen-run %t.mlir --int-range=5 2>&1 | FileCheck %s --check-prefix=RANGE-FORM
// RANGE:       kgen-run: error: --int-range must be lo:hi with lo < hi; got '5:1'
// EQUAL-RANGE: kgen-run: error: --int-range must be lo:hi with lo < hi; got '3:3'
// RANGE-FORM:  kgen-run: error: --int-range must be lo:hi with lo < hi; got '5'

// RUN: not kgen-run %t.mlir --compare=0:7 2>&1 | FileCheck %s --check-prefix=COMPARE
// COMPARE: kgen-run: error: --compare needs I:J with result indices below 1; got '0:7'
// RUN: not kgen-run %t.mlir --compare-file=3:%t.a.npy 2>&1 | FileCheck %s --check-prefix=COMPARE-FILE
// COMPARE-FILE: kgen-run: error: --compare-file needs I:PATH with a result index below 1; got '3:{{.*}}.a.npy'

//===--- input files --------------------------------------------------===//

// RUN: not kgen-run %t.mlir --input=%t.a.npy 2>&1 | FileCheck %s --check-prefix=COUNT
// RUN: not kgen-run %t.mlir --input=%t.a.npy,%t.b.npy,%t.b.npy 2>&1 | FileCheck %s --check-prefix=COUNT3
// COUNT:  kgen-run: error: @main takes 2 arguments; --input gave 1 files
// COUNT3: kgen-run: error: @main takes 2 arguments; --input gave 3 files

// Swapped inputs: a 4x3 file for the 2x4 argument.
// RUN: not kgen-run %t.mlir --input=%t.b.npy,%t.a.npy 2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: kgen-run: error: {{.*}}.b.npy has shape 4x3; argument 0 needs 2x4

// Not a .npy file at all, an empty file, a missing file, a directory.
// RUN: printf 'PK\x03\x04garbage' > %t.zip.npy
// RUN: not kgen-run %t.mlir --input=%t.zip.npy,%t.b.npy 2>&1 | FileCheck %s --check-prefix=MAGIC
// RUN: printf '' > %t.empty.npy
// RUN: not kgen-run %t.mlir --input=%t.empty.npy,%t.b.npy 2>&1 | FileCheck %s --check-prefix=MAGIC
// MAGIC: kgen-run: error: {{.*}}.npy: not a .npy file (bad magic)
// RUN: not kgen-run %t.mlir --input=%t.missing.npy,%t.b.npy 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: kgen-run: error: {{.*}}.missing.npy: cannot open: No such file or directory
// RUN: rm -rf %t.dir.npy && mkdir %t.dir.npy
// RUN: not kgen-run %t.mlir --input=%t.dir.npy,%t.b.npy 2>&1 | FileCheck %s --check-prefix=DIR
// DIR: kgen-run: error: {{.*}}.dir.npy: is a directory, not a file

// Corrupt preambles and headers.
// RUN: printf '\x93NUMPY\x01' > %t.preamble.npy
// RUN: not kgen-run %t.mlir --input=%t.preamble.npy,%t.b.npy 2>&1 | FileCheck %s --check-prefix=PREAMBLE
// PREAMBLE: kgen-run: error: {{.*}}.preamble.npy: truncated .npy preamble
// RUN: printf '\x93NUMPY\x03\x00' > %t.version.npy
// RUN: not kgen-run %t.mlir --input=%t.version.npy,%t.b.npy 2>&1 | FileCheck %s --check-prefix=VERSION
// VERSION: kgen-run: error: {{.*}}.version.npy: unsupported .npy format version 3.0 (1.0 and 2.0 are supported)
// RUN: printf '\x93NUMPY\x01\x00\xff\x7f{"descr"' > %t.header-length.npy
// RUN: not kgen-run %t.mlir --input=%t.header-length.npy,%t.b.npy 2>&1 | FileCheck %s --check-prefix=HEADER-LENGTH
// HEADER-LENGTH: kgen-run: error: {{.*}}.header-length.npy: truncated header (32767 bytes declared, 8 present)
// RUN: printf '\x93NUMPY\x01\x00\x10\x00{"descr": "<f4"\n' > %t.header.npy
// RUN: not kgen-run %t.mlir --input=%t.header.npy,%t.b.npy 2>&1 | FileCheck %s --check-prefix=HEADER
// HEADER: kgen-run: error: {{.*}}.header.npy: malformed header: expected ',' or '}' after a value at byte 16
// RUN: printf '\x93NUMPY\x01\x00\x3a\x00{"descr": "<c8", "fortran_order": False, "shape": (2, 4)}\n' > %t.dtype.npy
// RUN: not kgen-run %t.mlir --input=%t.dtype.npy,%t.b.npy 2>&1 | FileCheck %s --check-prefix=DTYPE
// DTYPE: kgen-run: error: {{.*}}.dtype.npy: unsupported dtype '<c8' (supported: <f4 <f2 <f8 <i8 <i4 <i2 |i1 |b1)
// RUN: printf '\x93NUMPY\x01\x00\x3b\x00{"descr": "<f4", "fortran_order": False, "shape": (-2, 4)}\n' > %t.negative.npy
// RUN: not kgen-run %t.mlir --input=%t.negative.npy,%t.b.npy 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// NEGATIVE: kgen-run: error: {{.*}}.negative.npy: tensor of shape -2x4 has a negative dimension -2
// RUN: printf '\x93NUMPY\x01\x00\x4d\x00{"descr": "<f4", "fortran_order": False, "shape": (99999999999999999999, 4)}\n' > %t.dim64.npy
// RUN: not kgen-run %t.mlir --input=%t.dim64.npy,%t.b.npy 2>&1 | FileCheck %s --check-prefix=DIM64
// DIM64: kgen-run: error: {{.*}}.dim64.npy: malformed header: shape dimension does not fit in 64 bits at byte {{[0-9]+}}
// RUN: printf '\x93NUMPY\x01\x00\x44\x00{"descr": "<f4", "fortran_order": False, "shape": (100000, 100000)}\n' > %t.large.npy
// RUN: not kgen-run %t.mlir --input=%t.large.npy,%t.b.npy 2>&1 | FileCheck %s --check-prefix=LARGE
// LARGE: kgen-run: error: {{.*}}.large.npy: tensor of shape 100000x100000 has more than the limit of 268435456 elements

// A header that promises more data than the file holds.
// RUN: printf '\x93NUMPY\x01\x00\x3a\x00{"descr": "<f4", "fortran_order": False, "shape": (2, 4)}\n\x00\x00' > %t.short.npy
// RUN: not kgen-run %t.mlir --input=%t.short.npy,%t.b.npy 2>&1 | FileCheck %s --check-prefix=SHORT
// SHORT: kgen-run: error: {{.*}}.short.npy: data is 2 bytes but shape 2x4 of <f4 needs 8 x 4 bytes

// No run may crash.
// RUN: not kgen-run %t.mlir --input=%t.short.npy,%t.b.npy 2>&1 | FileCheck %s --check-prefix=NO-CRASH
// RUN: not kgen-run %t.mlir --entry=scalar 2>&1 | FileCheck %s --check-prefix=NO-CRASH
// NO-CRASH-NOT: internal error
// NO-CRASH:     kgen-run: error:
// NO-CRASH-NOT: internal error

// A @main that is only a declaration is not run (as with --entry=decl).
// RUN: sed -e 's/@main/@gemm/' -e 's/@decl/@main/' %t.mlir > %t.decl-main.mlir
// RUN: not kgen-run %t.decl-main.mlir 2>&1 | FileCheck %s --check-prefix=DECL-MAIN
// DECL-MAIN-NOT: Symbols not found
// DECL-MAIN:     kgen-run: error: {{.*}}@main{{.*}} with a body
// DECL-MAIN-NOT: Symbols not found

func.func @main(%a: tensor<2x4xf32>, %b: tensor<4x3xf32>) -> tensor<2x3xf32> {
  %d = kgen.gemm %a, %b : tensor<2x4xf32>, tensor<4x3xf32> -> tensor<2x3xf32>
  return %d : tensor<2x3xf32>
}
func.func @scalar(%x: f32) -> f32 {
  return %x : f32
}
func.func private @decl(tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
