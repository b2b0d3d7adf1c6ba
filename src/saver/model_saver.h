// Saver: serializes a model and writes it atomically.
#pragma once

#include <string>

#include <onnx/onnx_pb.h>

#include "core/status.h"

namespace remap {

Status SaveModel(const onnx::ModelProto& model, const std::string& path);

// The model's wire bytes into *bytes; false when they would pass protobuf's
// 2 GiB limit. One pass to size the messages and one to write them
// (SerializeToString sizes them twice).
bool SerializeModel(const onnx::ModelProto& model, std::string* bytes);

}  // namespace remap
