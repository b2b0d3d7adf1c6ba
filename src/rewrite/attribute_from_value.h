// Turns the value of a ${expr} into the attribute it stands for: its ONNX
// type follows the value, unless the operator's schema declares one. A value
// made by tensor(v, dtype) (Value::tensor_elem_type) becomes a TENSOR of that
// dtype, encoded where onnx::TensorProto puts it (float16/bfloat16 bits and
// the small integer types in int32_data, uint32/uint64 in uint64_data).
#pragma once

#include <string>

#include <onnx/onnx_pb.h>

#include "rules/value.h"

namespace remap {

// Fills `attr` (whose name is set) from `v`. `declared` is the schema's type
// for the attribute, or UNDEFINED when ONNX does not know the operator
// (then tensor() values still give a TENSOR).
bool ToAttribute(const Value& v, onnx::AttributeProto::AttributeType declared, onnx::AttributeProto* attr,
                 std::string* why);

}  // namespace remap
