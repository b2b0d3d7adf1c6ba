#include "rules/element_types.h"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include <onnx/onnx_pb.h>

#include "rules/numeric.h"

namespace remap {

namespace {

// Rounds |d| to a binary format with `exp_bits` exponent and `mant_bits`
// fraction bits, returning its bits without the sign (false on overflow).
bool EncodeMagnitude(double a, int exp_bits, int mant_bits, uint32_t* bits) {
  const uint32_t exp_all_ones = (1u << exp_bits) - 1;
  if (std::isnan(a)) {
    *bits = (exp_all_ones << mant_bits) | (1u << (mant_bits - 1));
    return true;
  }
  if (std::isinf(a)) {
    *bits = exp_all_ones << mant_bits;
    return true;
  }
  if (a == 0.0) {
    *bits = 0;
    return true;
  }
  const int bias = (1 << (exp_bits - 1)) - 1;
  const int emin = 1 - bias;
  int e;
  std::frexp(a, &e);
  int exponent = e - 1;  // a = 1.f * 2^exponent
  bool subnormal = exponent < emin;
  // Multiples of the format's quantum at this exponent; scaling by a power of two is exact.
  double q = std::ldexp(a, -((subnormal ? emin : exponent) - mant_bits));
  double n = std::floor(q);
  double rest = q - n;  // exact
  if (rest > 0.5 || (rest == 0.5 && std::fmod(n, 2.0) != 0.0)) n += 1.0;
  uint32_t m = static_cast<uint32_t>(n);
  if (subnormal) {
    *bits = m;  // rounding up to 1 << mant_bits yields the smallest normal: the same bits
    return true;
  }
  if (m == (2u << mant_bits)) {  // rounded up to the next binade
    m >>= 1;
    ++exponent;
  }
  uint32_t field = static_cast<uint32_t>(exponent + bias);
  if (field >= exp_all_ones) return false;
  *bits = (field << mant_bits) | (m - (1u << mant_bits));
  return true;
}

bool Encode(double d, int exp_bits, int mant_bits, uint16_t* bits) {
  uint32_t magnitude;
  if (!EncodeMagnitude(std::fabs(d), exp_bits, mant_bits, &magnitude)) return false;
  bool negative = std::signbit(d) && !std::isnan(d);
  *bits = static_cast<uint16_t>(magnitude | (negative ? 0x8000u : 0u));
  return true;
}

}  // namespace

const char* ElementTypeName(int elem_type) {
  static const char* names[] = {"undefined", "float32", "uint8", "int8", "uint16", "int16", "int32", "int64", "string",
                                "bool", "float16", "float64", "uint32", "uint64", "complex64", "complex128", "bfloat16"};
  return elem_type >= 0 && elem_type < static_cast<int>(sizeof(names) / sizeof(names[0])) ? names[elem_type] : "other";
}

int ElementTypeFromName(const std::string& name) {
  using TP = onnx::TensorProto;
  static const TP::DataType types[] = {TP::FLOAT16, TP::BFLOAT16, TP::FLOAT, TP::DOUBLE, TP::INT8, TP::INT16, TP::INT32,
                                       TP::INT64, TP::UINT8, TP::UINT16, TP::UINT32, TP::UINT64, TP::BOOL};
  for (TP::DataType t : types) {
    if (name == ElementTypeName(t)) return t;
  }
  return 0;
}

const char* ElementTypeNames() {
  return "float16, bfloat16, float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64, bool";
}

bool DoubleToFloat16Bits(double d, uint16_t* bits) { return Encode(d, 5, 10, bits); }

bool CheckFitsElementType(const Value& v, int elem_type, std::string* why) {
  using TP = onnx::TensorProto;
  const char* type = ElementTypeName(elem_type);
  if (!v.is_number()) {
    *why = fmt::format("{} is not a number (for a {} tensor)", ToString(v), type);
    return false;
  }
  uint16_t bits;
  switch (elem_type) {
    case TP::DOUBLE: return true;
    case TP::FLOAT:
      // Compared before converting: a double beyond float's range converts with UB.
      if (std::isfinite(v.as_double()) && std::fabs(v.as_double()) > std::numeric_limits<float>::max()) break;
      return true;
    case TP::FLOAT16:
      if (!DoubleToFloat16Bits(v.as_double(), &bits)) break;
      return true;
    case TP::BFLOAT16:
      if (!DoubleToBfloat16Bits(v.as_double(), &bits)) break;
      return true;
    default: {
      int64_t i = v.as_int();
      if (v.kind == Value::Kind::kFloat && (!DoubleToInt64(v.f, &i) || static_cast<double>(i) != v.f)) {
        *why = fmt::format("{} is not an integer (for a {} tensor)", ToString(v), type);
        return false;
      }
      int64_t lo = 0, hi = std::numeric_limits<int64_t>::max();
      switch (elem_type) {
        case TP::BOOL: hi = 1; break;
        case TP::INT8: lo = -128; hi = 127; break;
        case TP::UINT8: hi = 255; break;
        case TP::INT16: lo = -32768; hi = 32767; break;
        case TP::UINT16: hi = 65535; break;
        case TP::INT32: lo = std::numeric_limits<int32_t>::min(); hi = std::numeric_limits<int32_t>::max(); break;
        case TP::UINT32: hi = std::numeric_limits<uint32_t>::max(); break;
        case TP::INT64: lo = std::numeric_limits<int64_t>::min(); break;
        case TP::UINT64: break;
        default:
          *why = fmt::format("cannot make a {} tensor", type);
          return false;
      }
      if (i >= lo && i <= hi) return true;
      *why = fmt::format("{} is out of range for {}", ToString(v), type);
      return false;
    }
  }
  *why = fmt::format("{} does not fit in {}", ToString(v), type);
  return false;
}
bool DoubleToBfloat16Bits(double d, uint16_t* bits) { return Encode(d, 8, 7, bits); }

}  // namespace remap
