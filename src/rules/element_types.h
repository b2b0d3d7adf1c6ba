// ONNX tensor element types by name ("float16", "int64", ...) and the
// encodings a rule's constants need: double -> float16 / bfloat16 bits.
#pragma once

#include <cstdint>
#include <string>

#include "rules/value.h"

namespace remap {

// "float32", "int64", ... for an onnx::TensorProto::DataType; "other" if unknown.
const char* ElementTypeName(int elem_type);

// The onnx::TensorProto::DataType for a name tensor() accepts (float16,
// bfloat16, float32, float64, int8..int64, uint8..uint64, bool); 0 otherwise.
int ElementTypeFromName(const std::string& name);

// The names ElementTypeFromName accepts, for messages.
const char* ElementTypeNames();

// IEEE float16 / bfloat16 bits of `d`, rounded to nearest even directly from
// the double (no double rounding through float32). False when a finite `d`
// rounds beyond the largest finite value. NaN becomes the canonical quiet NaN.
bool DoubleToFloat16Bits(double d, uint16_t* bits);
bool DoubleToBfloat16Bits(double d, uint16_t* bits);

// Whether number `v` can be stored as `elem_type` (an ElementTypeFromName
// type) without changing its meaning: integers must be integral and in range
// (0.5 or 300 are not uint8), bool takes 0 and 1, float16/bfloat16/float32
// take what does not overflow to infinity.
bool CheckFitsElementType(const Value& v, int elem_type, std::string* why);

}  // namespace remap
