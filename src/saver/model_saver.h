// Saver: serializes a model and writes it atomically.
#pragma once

#include <string>

#include <onnx/onnx_pb.h>

#include "core/status.h"

namespace remap {

Status SaveModel(const onnx::ModelProto& model, const std::string& path);

}  // namespace remap
