// Tensors stored outside the model file (`data_location: EXTERNAL`) are
// referenced by a path relative to the model. When the rewritten model goes to
// another folder, those files must follow it or the references break.
#pragma once

#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "core/status.h"

namespace remap {

// Relative locations of every external-data file the model references
// (initializers at any depth, sparse initializers, tensor attributes).
std::vector<std::string> ExternalDataFiles(const onnx::ModelProto& model);

// Copies those files from `source_dir` to `target_dir` (no-op when the folders
// are the same), each written atomically. A file already at the target with
// other content is an error, not overwritten; one with the same content is
// kept. The paths of the files and folders this call created go to `created`
// (when given), so a caller whose model then fails to save can remove them
// again, in reverse order.
Status CopyExternalData(const onnx::ModelProto& model, const std::string& source_dir, const std::string& target_dir,
                        std::vector<std::string>* created = nullptr);

}  // namespace remap
