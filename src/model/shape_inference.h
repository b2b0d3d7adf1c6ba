// ONNX shape inference, run only where the linked ONNX library (1.12) knows
// the model's IR and opset; it only adds value_info, never removes anything.
#pragma once

#include <string>

#include <onnx/onnx_pb.h>

namespace remap {

// Newest IR version and default opset the linked ONNX library knows.
int KnownIrVersion();
int KnownDefaultOpset();
bool WithinKnownRange(const onnx::ModelProto& model);

// Infers shapes into `model`. Returns false with `note` set when it was
// skipped (model too new) or stopped on an error.
bool InferShapesInPlace(onnx::ModelProto* model, std::string* note);

}  // namespace remap
