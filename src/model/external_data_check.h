// Checks every tensor stored as external data before anything reads or copies
// it: its `location` is a relative path that stays inside the model's folder
// (no `..`, not absolute, not a symbolic link leading out: ONNX's own
// external-data path-traversal CVEs are this class), the file exists, and the
// tensor's bytes (offset, length) lie within it. Only paths are resolved and
// sizes read; no tensor data is loaded.
#pragma once

#include <string>

#include <onnx/onnx_pb.h>

#include "core/status.h"

namespace remap {

// The message names the tensor, not the model file. Call after
// CheckModelStructure (the walk over subgraphs relies on its depth limit).
Status CheckExternalData(const onnx::ModelProto& model, const std::string& model_dir);

// Whether `location`, relative to `dir`, names a path inside `dir` once
// symbolic links are resolved; `why` says what is wrong when not.
bool LocationInside(const std::string& dir, const std::string& location, std::string* why);

}  // namespace remap
