// Turns the value of a ${expr} into the attribute it stands for: its ONNX
// type follows the value, unless the operator's schema declares one.
#pragma once

#include <string>

#include <onnx/onnx_pb.h>

#include "rules/value.h"

namespace remap {

// Fills `attr` (whose name is set) from `v`. `declared` is the schema's type
// for the attribute, or UNDEFINED when ONNX does not know the operator.
bool ToAttribute(const Value& v, onnx::AttributeProto::AttributeType declared, onnx::AttributeProto* attr,
                 std::string* why);

}  // namespace remap
