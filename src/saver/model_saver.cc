#include "saver/model_saver.h"

#include <fmt/format.h>

#include "saver/atomic_writer.h"

namespace remap {

Status SaveModel(const onnx::ModelProto& model, const std::string& path) {
  std::string bytes;
  if (model.ByteSizeLong() > static_cast<size_t>(INT32_MAX) || !model.SerializeToString(&bytes))
    return Status(ErrorCode::kOutputFailed,
                  fmt::format("{}: the model does not serialize (over protobuf's 2 GiB limit?)", path));
  return WriteFileAtomically(path, bytes);
}

}  // namespace remap
