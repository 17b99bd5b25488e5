// arith.truncf f32 -> bf16 / f16 / f8E4M3FN on the CPU reference, bit for bit
// against reference.py's integer rounding (round to nearest, ties to even;
// f8E4M3FN saturates to +-448 and has no infinity).
//
// rt::compare (runtime/lib/HostTensor.cpp) calls any two NaNs equal, -0 equal
// to +0, and, once the reference holds an infinity, divides by an infinite
// norm so that finite errors elsewhere read as 0. So @bits returns the bit
// patterns as integers: exact compare, sign of zero and infinities included.
// Its input (reference.py tricky_values, then random bit patterns) holds no
// NaN; NaN inputs go to @nans, whose float results are compared NaN-to-NaN
// and whose bit patterns must be quiet NaNs of either sign. @hand checks a
// few values worked out by hand, @input_bits kgen-run's own --input rounding.

// RUN: rm -rf %t && %python %S/Inputs/reference.py gen float_conversions --dir %t --seed 1
// RUN: kgen-run %s --entry=bits --input=%t/x.npy \
// RUN:   --compare-file=0:%t/expected0.npy,1:%t/expected1.npy,2:%t/expected2.npy \
// RUN:   | FileCheck %s --check-prefix=BITS
// RUN: kgen-run %s --entry=nans --input=%t/nans.npy --print-values \
// RUN:   --compare-file=0:%t/nans.npy,1:%t/nans.npy,2:%t/nans.npy \
// RUN:   | FileCheck %s --check-prefix=NANS
// RUN: kgen-run %s --entry=hand --print-values | FileCheck %s --check-prefix=HAND
// RUN: kgen-run %s --entry=input_bits --input=%t/x.npy,%t/x.npy,%t/x.npy \
// RUN:   --compare-file=0:%t/expected0.npy,1:%t/expected1.npy,2:%t/expected2.npy \
// RUN:   | FileCheck %s --check-prefix=BITS

// BITS: compare 0:{{.*}}expected0.npy: OK rel_frob=0.000e+00
// BITS: compare 1:{{.*}}expected1.npy: OK rel_frob=0.000e+00
// BITS: compare 2:{{.*}}expected2.npy: OK rel_frob=0.000e+00
func.func @bits(%x: tensor<4096xf32>)
    -> (tensor<4096xi16>, tensor<4096xi16>, tensor<4096xi8>) {
  %bf16 = arith.truncf %x : tensor<4096xf32> to tensor<4096xbf16>
  %f16 = arith.truncf %x : tensor<4096xf32> to tensor<4096xf16>
  %f8 = arith.truncf %x : tensor<4096xf32> to tensor<4096xf8E4M3FN>
  %bf16_bits = arith.bitcast %bf16 : tensor<4096xbf16> to tensor<4096xi16>
  %f16_bits = arith.bitcast %f16 : tensor<4096xf16> to tensor<4096xi16>
  %f8_bits = arith.bitcast %f8 : tensor<4096xf8E4M3FN> to tensor<4096xi8>
  return %bf16_bits, %f16_bits, %f8_bits
      : tensor<4096xi16>, tensor<4096xi16>, tensor<4096xi8>
}

// The same rounding on kgen-run's side: --input converts the float32 .npy
// values to the argument types (runtime/lib/Float.cpp).
func.func @input_bits(%bf16: tensor<4096xbf16>, %f16: tensor<4096xf16>,
                      %f8: tensor<4096xf8E4M3FN>)
    -> (tensor<4096xi16>, tensor<4096xi16>, tensor<4096xi8>) {
  %bf16_bits = arith.bitcast %bf16 : tensor<4096xbf16> to tensor<4096xi16>
  %f16_bits = arith.bitcast %f16 : tensor<4096xf16> to tensor<4096xi16>
  %f8_bits = arith.bitcast %f8 : tensor<4096xf8E4M3FN> to tensor<4096xi8>
  return %bf16_bits, %f16_bits, %f8_bits
      : tensor<4096xi16>, tensor<4096xi16>, tensor<4096xi8>
}

// The five NaNs: quiet +-NaN, a signalling NaN, all-ones payload, and a
// negative one with a payload. Quiet NaN codes: bf16 0x7FC0 (32704) or
// 0xFFC0 (-64), f16 0x7E00 (32256) or 0xFE00 (-512), f8E4M3FN 0x7F (127)
// or 0xFF (-1), the only NaN codes it has.
// NANS: result 3: tensor<5xi16>
// NANS-NEXT: {{^( (32704|-64)){5}$}}
// NANS-NEXT: result 4: tensor<5xi16>
// NANS-NEXT: {{^( (32256|-512)){5}$}}
// NANS-NEXT: result 5: tensor<5xi8>
// NANS-NEXT: {{^( (127|-1)){5}$}}
// NANS: compare 0:{{.*}}nans.npy: OK {{.*}} nonfinite_mismatches=0
// NANS: compare 1:{{.*}}nans.npy: OK {{.*}} nonfinite_mismatches=0
// NANS: compare 2:{{.*}}nans.npy: OK {{.*}} nonfinite_mismatches=0
func.func @nans(%x: tensor<5xf32>)
    -> (tensor<5xbf16>, tensor<5xf16>, tensor<5xf8E4M3FN>,
        tensor<5xi16>, tensor<5xi16>, tensor<5xi8>) {
  %bf16 = arith.truncf %x : tensor<5xf32> to tensor<5xbf16>
  %f16 = arith.truncf %x : tensor<5xf32> to tensor<5xf16>
  %f8 = arith.truncf %x : tensor<5xf32> to tensor<5xf8E4M3FN>
  %bf16_bits = arith.bitcast %bf16 : tensor<5xbf16> to tensor<5xi16>
  %f16_bits = arith.bitcast %f16 : tensor<5xf16> to tensor<5xi16>
  %f8_bits = arith.bitcast %f8 : tensor<5xf8E4M3FN> to tensor<5xi8>
  return %bf16, %f16, %f8, %bf16_bits, %f16_bits, %f8_bits
      : tensor<5xbf16>, tensor<5xf16>, tensor<5xf8E4M3FN>,
        tensor<5xi16>, tensor<5xi16>, tensor<5xi8>
}

// A few values worked out by hand, as anchors that do not depend on
// reference.py. Inputs: 1 + 2^-8, 1 + 3 * 2^-8, 464, 1e9, +inf, -inf, -0,
// 2^-10, 3 * 2^-10, 65520, 65519.
// bf16 (8 significant bits): 1 + 2^-8 is a tie to the even 1, 1 + 3 * 2^-8
//   a tie to the even 1.015625; 464 = 1.8125 * 2^8 is exact; 1e9 has ulp
//   2^22 and 1e9 / 2^22 = 238.42 -> 238 * 2^22 = 998244352; 65520 and 65519
//   have ulp 2^8 and round up to 65536; the rest are exact.
// f16 (11 significant bits, max 65504): the first three are exact; 1e9
//   overflows to inf; 65520 is the tie between 65504 and 65536 (= inf) and
//   goes to the even inf; 65519 rounds down to 65504.
// f8E4M3FN (4 significant bits, max 448, smallest subnormal 2^-9): 1 + 2^-8
//   and 1 + 3 * 2^-8 round to 1; 464 is the tie between 448 and 480 (the NaN
//   code) and saturates to 448, as do 1e9, inf, 65520 and 65519; -inf gives
//   -448; 2^-10 is the tie between 0 and 2^-9, to the even 0; 3 * 2^-10 the
//   tie between 2^-9 (odd) and 2^-8 (even): 2^-8 = 0.00390625.
// HAND:      result 0: tensor<11xbf16>
// HAND-NEXT: {{^}} 1 1.015625 464 998244352 inf -inf -0 0.0009765625 0.0029296875 65536 65536{{$}}
// HAND-NEXT: result 1: tensor<11xf16>
// HAND-NEXT: {{^}} 1.00390625 1.01171875 464 inf inf -inf -0 0.0009765625 0.0029296875 inf 65504{{$}}
// HAND-NEXT: result 2: tensor<11xf8E4M3FN>
// HAND-NEXT: {{^}} 1 1 448 448 448 -448 -0 0 0.00390625 448 448{{$}}
func.func @hand() -> (tensor<11xbf16>, tensor<11xf16>, tensor<11xf8E4M3FN>) {
  %x = arith.constant dense<[1.00390625, 1.01171875, 464.0, 1.0e9, 0x7F800000,
                             0xFF800000, -0.0, 9.765625e-04, 2.9296875e-03,
                             65520.0, 65519.0]> : tensor<11xf32>
  %bf16 = arith.truncf %x : tensor<11xf32> to tensor<11xbf16>
  %f16 = arith.truncf %x : tensor<11xf32> to tensor<11xf16>
  %f8 = arith.truncf %x : tensor<11xf32> to tensor<11xf8E4M3FN>
  return %bf16, %f16, %f8 : tensor<11xbf16>, tensor<11xf16>, tensor<11xf8E4M3FN>
}
