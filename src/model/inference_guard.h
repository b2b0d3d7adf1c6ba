// ONNX 1.12's shape inference divides by the strides, dilations and kernel
// sizes of convolution and pooling nodes without checking them: a 0 there (a
// hostile model, or a rule handed such a constant) kills the process with
// SIGFPE. Every node is checked here before it reaches that inference.
#pragma once

#include <string>

#include <onnx/onnx_pb.h>

namespace remap {

// False, with *why naming the attribute, when a node must not be given to
// ONNX's inference.
bool SafeForShapeInference(const onnx::NodeProto& node, std::string* why);

// The same for every node of the model: main graph, subgraphs, functions.
bool ModelSafeForShapeInference(const onnx::ModelProto& model, std::string* why);

}  // namespace remap
