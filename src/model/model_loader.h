// Loader: reads a ModelProto from disk, keeping every field (unknown ones too,
// so IR 9/10 models and newer opsets survive a rewrite untouched).
#pragma once

#include <string>

#include <onnx/onnx_pb.h>

#include "core/status.h"

namespace remap {

Expected<onnx::ModelProto> LoadModel(const std::string& path);

// Parses bytes already in memory; `name` is used in messages.
Expected<onnx::ModelProto> ParseModel(const std::string& bytes, const std::string& name);

}  // namespace remap
