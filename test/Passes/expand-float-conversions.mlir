// Scalar arith.extf / arith.truncf between f32 and f16, bf16 or f8E4M3FN
// become i32 bit manipulation; every other conversion is left alone.
// RUN: kgen-opt %s --split-input-file --kgen-expand-float-conversions | FileCheck %s

// f32 -> f16: round-to-nearest-even on the bits, subnormals through the
// add-and-subtract trick, overflow to inf (0x7C00), NaN to 0x7E00.
// CHECK-LABEL: func.func @trunc_f16(
// CHECK-SAME:    %[[X:.+]]: f32) -> f16
// CHECK-NOT:     arith.truncf
// CHECK:         %[[BITS:.+]] = arith.bitcast %[[X]] : f32 to i32
// CHECK-DAG:     arith.constant -2147483648 : i32
// CHECK-DAG:     arith.constant 2147483647 : i32
// CHECK-DAG:     arith.constant 2139095040 : i32
// CHECK-DAG:     arith.constant 13 : i32
// CHECK-DAG:     arith.constant 4095 : i32
// CHECK-DAG:     arith.constant 114688 : i32
// CHECK-DAG:     arith.constant 947912704 : i32
// CHECK-DAG:     arith.constant 1199562752 : i32
// CHECK-DAG:     arith.constant 31744 : i32
// CHECK-DAG:     arith.constant 32256 : i32
// CHECK-DAG:     arith.andi %[[BITS]], %{{.+}} : i32
// CHECK-DAG:     arith.shrui
// CHECK-DAG:     arith.cmpi ugt
// CHECK-DAG:     arith.cmpi ult
// CHECK-DAG:     arith.addi
// CHECK-DAG:     arith.subi
// CHECK-DAG:     arith.addf
// CHECK-DAG:     arith.subf
// CHECK-DAG:     arith.fptoui
// CHECK-DAG:     arith.select
// CHECK:         %[[ENC:.+]] = arith.ori %{{.+}}, %{{.+}} : i32
// CHECK-NEXT:    %[[NARROW:.+]] = arith.trunci %[[ENC]] : i32 to i16
// CHECK-NEXT:    %[[R:.+]] = arith.bitcast %[[NARROW]] : i16 to f16
// CHECK-NOT:     arith.truncf
// CHECK-NEXT:    return %[[R]] : f16
func.func @trunc_f16(%x: f32) -> f16 {
  %0 = arith.truncf %x : f32 to f16
  return %0 : f16
}

// -----

// f32 -> bf16: the top half of the f32 bits, rounded; no subnormal or
// overflow path is needed (same exponent range).
// CHECK-LABEL: func.func @trunc_bf16(
// CHECK-SAME:    %[[X:.+]]: f32) -> bf16
// CHECK-NOT:     arith.truncf
// CHECK:         %[[BITS:.+]] = arith.bitcast %[[X]] : f32 to i32
// CHECK-DAG:     arith.constant 16 : i32
// CHECK-DAG:     arith.constant 32767 : i32
// CHECK-DAG:     arith.constant 32704 : i32
// CHECK-DAG:     arith.andi %[[BITS]], %{{.+}} : i32
// CHECK-DAG:     arith.shrui
// CHECK-DAG:     arith.addi
// CHECK-DAG:     arith.select
// CHECK-NOT:     arith.fptoui
// CHECK:         %[[ENC:.+]] = arith.ori %{{.+}}, %{{.+}} : i32
// CHECK-NEXT:    %[[NARROW:.+]] = arith.trunci %[[ENC]] : i32 to i16
// CHECK-NEXT:    %[[R:.+]] = arith.bitcast %[[NARROW]] : i16 to bf16
// CHECK-NEXT:    return %[[R]] : bf16
func.func @trunc_bf16(%x: f32) -> bf16 {
  %0 = arith.truncf %x : f32 to bf16
  return %0 : bf16
}

// -----

// f32 -> f8E4M3FN: saturating, overflow goes to +-448 (encoding 126), never
// to an infinity encoding (120); NaN to 0x7F.
// CHECK-LABEL: func.func @trunc_f8(
// CHECK-SAME:    %[[X:.+]]: f32) -> f8E4M3FN
// CHECK-NOT:     arith.truncf
// CHECK:         %[[BITS:.+]] = arith.bitcast %[[X]] : f32 to i32
// CHECK-DAG:     arith.constant 24 : i32
// CHECK-DAG:     arith.constant 20 : i32
// CHECK-DAG:     arith.constant 524287 : i32
// CHECK-DAG:     arith.constant 960 : i32
// CHECK-DAG:     arith.constant 1015021568 : i32
// CHECK-DAG:     arith.constant 1138753536 : i32
// CHECK-DAG:     arith.constant 126 : i32
// CHECK-DAG:     arith.constant 127 : i32
// CHECK-DAG:     arith.fptoui
// CHECK-NOT:     arith.constant 120 : i32
// CHECK:         %[[ENC:.+]] = arith.ori %{{.+}}, %{{.+}} : i32
// CHECK-NEXT:    %[[NARROW:.+]] = arith.trunci %[[ENC]] : i32 to i8
// CHECK-NEXT:    %[[R:.+]] = arith.bitcast %[[NARROW]] : i8 to f8E4M3FN
// CHECK-NEXT:    return %[[R]] : f8E4M3FN
func.func @trunc_f8(%x: f32) -> f8E4M3FN {
  %0 = arith.truncf %x : f32 to f8E4M3FN
  return %0 : f8E4M3FN
}

// -----

// f16 -> f32: rebias normals (+112 << 23), subnormals as f * 2^-24, inf and
// NaN from the all-ones exponent.
// CHECK-LABEL: func.func @ext_f16(
// CHECK-SAME:    %[[X:.+]]: f16) -> f32
// CHECK-NOT:     arith.extf
// CHECK:         %[[NARROW:.+]] = arith.bitcast %[[X]] : f16 to i16
// CHECK-NEXT:    %[[U:.+]] = arith.extui %[[NARROW]] : i16 to i32
// CHECK-DAG:     arith.constant 939524096 : i32
// CHECK-DAG:     arith.constant 5.96046448E-8 : f32
// CHECK-DAG:     arith.constant 2139095040 : i32
// CHECK-DAG:     arith.constant 2143289344 : i32
// CHECK-DAG:     arith.constant 31 : i32
// CHECK-DAG:     arith.shli
// CHECK-DAG:     arith.shrui %[[U]]
// CHECK-DAG:     arith.uitofp
// CHECK-DAG:     arith.mulf
// CHECK-DAG:     arith.cmpi eq
// CHECK-DAG:     arith.select
// CHECK:         %[[BITS:.+]] = arith.ori %{{.+}}, %{{.+}} : i32
// CHECK-NEXT:    %[[R:.+]] = arith.bitcast %[[BITS]] : i32 to f32
// CHECK-NOT:     arith.extf
// CHECK-NEXT:    return %[[R]] : f32
func.func @ext_f16(%x: f16) -> f32 {
  %0 = arith.extf %x : f16 to f32
  return %0 : f32
}

// -----

// bf16 -> f32 is a shift.
// CHECK-LABEL: func.func @ext_bf16(
// CHECK-SAME:    %[[X:.+]]: bf16) -> f32
// CHECK-NEXT:    %[[NARROW:.+]] = arith.bitcast %[[X]] : bf16 to i16
// CHECK-NEXT:    %[[U:.+]] = arith.extui %[[NARROW]] : i16 to i32
// CHECK-NEXT:    %[[SIXTEEN:.+]] = arith.constant 16 : i32
// CHECK-NEXT:    %[[W:.+]] = arith.shli %[[U]], %[[SIXTEEN]] : i32
// CHECK-NEXT:    %[[R:.+]] = arith.bitcast %[[W]] : i32 to f32
// CHECK-NEXT:    return %[[R]] : f32
func.func @ext_bf16(%x: bf16) -> f32 {
  %0 = arith.extf %x : bf16 to f32
  return %0 : f32
}

// -----

// f8E4M3FN -> f32: no infinity, only 0x7F / 0xFF are NaN.
// CHECK-LABEL: func.func @ext_f8(
// CHECK-SAME:    %[[X:.+]]: f8E4M3FN) -> f32
// CHECK-NOT:     arith.extf
// CHECK:         %[[NARROW:.+]] = arith.bitcast %[[X]] : f8E4M3FN to i8
// CHECK-NEXT:    %[[U:.+]] = arith.extui %[[NARROW]] : i8 to i32
// CHECK-DAG:     arith.constant 1006632960 : i32
// CHECK-DAG:     arith.constant 0.001953125 : f32
// CHECK-DAG:     arith.constant 127 : i32
// CHECK-DAG:     arith.constant 2143289344 : i32
// CHECK-NOT:     arith.constant 2139095040 : i32
// CHECK:         %[[BITS:.+]] = arith.ori %{{.+}}, %{{.+}} : i32
// CHECK-NEXT:    %[[R:.+]] = arith.bitcast %[[BITS]] : i32 to f32
// CHECK-NEXT:    return %[[R]] : f32
func.func @ext_f8(%x: f8E4M3FN) -> f32 {
  %0 = arith.extf %x : f8E4M3FN to f32
  return %0 : f32
}

// -----

// Round trips and conversions nested in regions are expanded too; nothing
// narrow is left behind.
// CHECK-LABEL: func.func @nested(
// CHECK-NOT:     arith.extf {{.+}} : {{(f16|bf16|f8E4M3FN)}} to f32
// CHECK-NOT:     arith.truncf {{.+}} : f32 to {{(f16|bf16|f8E4M3FN)}}
// CHECK:         scf.if
// CHECK:           arith.bitcast {{.+}} : f32 to i32
// CHECK:           arith.bitcast {{.+}} : i16 to bf16
// CHECK:           arith.bitcast {{.+}} : bf16 to i16
// CHECK:           arith.bitcast {{.+}} : i32 to f32
// CHECK:           scf.yield
// CHECK:         } else {
// CHECK:           arith.bitcast {{.+}} : f8E4M3FN to i8
// CHECK:           arith.bitcast {{.+}} : i32 to f32
// CHECK:           scf.yield
// CHECK-NOT:     arith.extf {{.+}} : {{(f16|bf16|f8E4M3FN)}} to f32
// CHECK-NOT:     arith.truncf {{.+}} : f32 to {{(f16|bf16|f8E4M3FN)}}
// CHECK:         return
func.func @nested(%c: i1, %x: f32, %e: f8E4M3FN) -> f32 {
  %r = scf.if %c -> f32 {
    %b = arith.truncf %x : f32 to bf16
    %w = arith.extf %b : bf16 to f32
    scf.yield %w : f32
  } else {
    %w = arith.extf %e : f8E4M3FN to f32
    scf.yield %w : f32
  }
  return %r : f32
}

// -----

// Conversions that do not have f32 on one side and f16/bf16/f8E4M3FN on the
// other, or that are not scalar, are left alone.
// CHECK-LABEL: func.func @left_alone(
// CHECK-SAME:    %[[F32:[^:]+]]: f32, %[[F16:[^:]+]]: f16, %[[F64:[^:]+]]: f64, %[[V:[^:]+]]: vector<4xf32>, %[[VH:[^:]+]]: vector<4xbf16>, %[[E5:[^:]+]]: f8E5M2)
// CHECK-NOT:     arith.bitcast
// CHECK:         %[[A:.+]] = arith.extf %[[F32]] : f32 to f64
// CHECK-NEXT:    %[[B:.+]] = arith.extf %[[F16]] : f16 to f64
// CHECK-NEXT:    %[[C:.+]] = arith.truncf %[[F64]] : f64 to f32
// CHECK-NEXT:    %[[D:.+]] = arith.truncf %[[F64]] : f64 to f16
// CHECK-NEXT:    %[[E:.+]] = arith.truncf %[[V]] : vector<4xf32> to vector<4xf16>
// CHECK-NEXT:    %[[F:.+]] = arith.extf %[[VH]] : vector<4xbf16> to vector<4xf32>
// CHECK-NEXT:    %[[G:.+]] = arith.extf %[[E5]] : f8E5M2 to f32
// CHECK-NEXT:    %[[H:.+]] = arith.truncf %[[F32]] : f32 to f8E5M2
// CHECK-NOT:     arith.bitcast
// CHECK-NEXT:    return %[[A]], %[[B]], %[[C]], %[[D]], %[[E]], %[[F]], %[[G]], %[[H]]
func.func @left_alone(%x: f32, %h: f16, %d: f64, %v: vector<4xf32>, %vh: vector<4xbf16>, %e5: f8E5M2)
    -> (f64, f64, f32, f16, vector<4xf16>, vector<4xf32>, f32, f8E5M2) {
  %0 = arith.extf %x : f32 to f64
  %1 = arith.extf %h : f16 to f64
  %2 = arith.truncf %d : f64 to f32
  %3 = arith.truncf %d : f64 to f16
  %4 = arith.truncf %v : vector<4xf32> to vector<4xf16>
  %5 = arith.extf %vh : vector<4xbf16> to vector<4xf32>
  %6 = arith.extf %e5 : f8E5M2 to f32
  %7 = arith.truncf %x : f32 to f8E5M2
  return %0, %1, %2, %3, %4, %5, %6, %7 : f64, f64, f32, f16, vector<4xf16>, vector<4xf32>, f32, f8E5M2
}

// -----

// The expansion rounds to nearest even; a truncf with another rounding mode
// must not be rewritten into it.
// CHECK-LABEL: func.func @other_rounding_mode(
// CHECK-SAME:    %[[X:.+]]: f32)
// CHECK-NOT:     arith.bitcast
// CHECK:         %[[R:.+]] = arith.truncf %[[X]] toward_zero : f32 to f16
// CHECK-NOT:     arith.bitcast
// CHECK:         return %[[R]]
func.func @other_rounding_mode(%x: f32) -> f16 {
  %0 = arith.truncf %x toward_zero : f32 to f16
  return %0 : f16
}
