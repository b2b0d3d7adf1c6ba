// Reads the constant behind a scalar argument (a Constant node, an
// initializer, or an attribute) and converts it to the argument's type.
#pragma once

#include <string>

#include <onnx/onnx_pb.h>

#include "rules/signature.h"
#include "rules/value.h"

namespace remap {

// A Constant node the engine reads scalar arguments from and, once nothing
// uses it, removes: the default domain's, or prim::Constant (traced exports
// pass Device arguments so). Other domains' "Constant" are custom ops.
bool IsConstantProducer(const onnx::NodeProto& node);

// A node that builds a Tensor[] argument from its inputs: SequenceConstruct
// (opset >= 11) or prim::ListConstruct (opsets 9-10).
bool IsListProducer(const onnx::NodeProto& node);

// Either of the above: a node that exists only to pass arguments, removed when
// a rewrite leaves its outputs unused.
inline bool IsArgumentProducer(const onnx::NodeProto& node) { return IsConstantProducer(node) || IsListProducer(node); }

// The tensor as a Value: a 0-d tensor becomes a scalar, others a flat list.
// Floats (any precision) become kFloat, integers kInt, bool kBool, strings kString.
bool TensorToValue(const onnx::TensorProto& tensor, Value* out, std::string* why);

// The constant a Constant node produces (any of its value* attributes).
bool ConstantNodeValue(const onnx::NodeProto& node, Value* out, std::string* why);

// Why a node attribute that references an attribute of the enclosing function
// (`value_int = @alpha`) has no value here; "" when it is not such a reference.
std::string AttributeReference(const onnx::AttributeProto& attr);

// A node attribute as a Value. Fails for a reference to a function attribute.
bool AttributeToValue(const onnx::AttributeProto& attr, Value* out, std::string* why);

// Converts to what the signature declares: bool from 0/1, int[] from a
// scalar, a float from an int, Scalar kept as given; int[N] from one int is N
// copies of it (PyTorch's rule), from another length than 1 or N an error.
bool CoerceToArgument(const Value& in, const Argument& arg, Value* out, std::string* why);

}  // namespace remap
