// Saver: serializes a model and writes it atomically.
#pragma once

#include <functional>
#include <string>

#include <onnx/onnx_pb.h>

#include "core/status.h"

namespace remap {

// `serialized`, when given, runs once the model's bytes are made and before
// they are written: from then on the saver no longer reads the model, so the
// caller may free it while the file is written.
Status SaveModel(const onnx::ModelProto& model, const std::string& path, const std::function<void()>& serialized = {});

// The model's wire bytes into *bytes; false when they would pass protobuf's
// 2 GiB limit. One pass to size the messages and one to write them
// (SerializeToString sizes them twice).
bool SerializeModel(const onnx::ModelProto& model, std::string* bytes);

}  // namespace remap
