// Tensors stored outside the model file (`data_location: EXTERNAL`) are
// referenced by a path relative to the model. When the rewritten model goes to
// another folder, those files must follow it or the references break.
#pragma once

#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "core/status.h"
#include "saver/data_file_placer.h"

namespace remap {

// Relative locations of every external-data file the model references
// (initializers at any depth, sparse initializers, tensor attributes).
std::vector<std::string> ExternalDataFiles(const onnx::ModelProto& model);

// Puts those files from `source_dir` into `target_dir` (no-op when the folders
// are the same: the output then shares the input's files, which nothing
// writes), each reflinked, hard-linked or copied in the kernel as `mode` says
// (data_file_placer.h), and appearing whole or not at all. A file already at
// the target is never written to: the same file or the same bytes are kept,
// other content is an error. The paths of the files and folders this call
// created go to `created` (when given), so a caller whose model then fails to
// save can remove them again, in reverse order.
Status CopyExternalData(const onnx::ModelProto& model, const std::string& source_dir, const std::string& target_dir,
                        std::vector<std::string>* created = nullptr, DataFileMode mode = DataFileMode::kAuto,
                        Durability durability = Durability::kSynced);
// The same for `files`, what ExternalDataFiles gave for the model: a caller
// that needs the list anyway walks the model's nodes once.
Status CopyExternalDataFiles(const std::vector<std::string>& files, const std::string& source_dir,
                             const std::string& target_dir, std::vector<std::string>* created = nullptr,
                             DataFileMode mode = DataFileMode::kAuto, Durability durability = Durability::kSynced);

}  // namespace remap
