// How a node's input arrives, for the comments of `onnx-remap rules new`:
// a graph input, an initializer, a Constant with its value, a list node, the
// output of another node, or empty (None). Also the signature type a rule
// would most likely declare for it when no schema is known.
#pragma once

#include <string>

#include <onnx/onnx_pb.h>

#include "model/graph_index.h"

namespace remap::cli {

struct Provenance {
  std::string text;       // "Constant int64 scalar = 1", "graph input float32 [2, 3]", "empty: None"
  std::string type;       // the guessed signature type: "Tensor", "Tensor?", "int", "float[]", "Tensor[]", ...
  std::string name_hint;  // an argument name the value's own name suggests ("x"); "" when none
};

Provenance DescribeInput(const std::string& value, const GraphIndex& index);

// "INT = 3", "INTS = [1, 2]", "STRING = \"mean\"", "INT = @alpha (function attribute)".
std::string DescribeAttribute(const onnx::AttributeProto& attr);

// The signature type for a node attribute bound by name: INT -> int, FLOATS -> float[], ...
std::string AttributeSignatureType(const onnx::AttributeProto& attr);

}  // namespace remap::cli
