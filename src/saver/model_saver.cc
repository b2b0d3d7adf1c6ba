#include "saver/model_saver.h"

#include <cstdint>

#include <fmt/format.h>

#include "saver/atomic_writer.h"

namespace remap {

bool SerializeModel(const onnx::ModelProto& model, std::string* bytes) {
  // ByteSizeLong leaves each message's size cached; writing with the cached
  // sizes is then a single pass.
  const size_t size = model.ByteSizeLong();
  if (size > static_cast<size_t>(INT32_MAX)) return false;
  bytes->resize(size);
  auto* begin = reinterpret_cast<uint8_t*>(bytes->data());
  return model.SerializeWithCachedSizesToArray(begin) == begin + size;
}

Status SaveModel(const onnx::ModelProto& model, const std::string& path, const std::function<void()>& serialized) {
  std::string bytes;
  if (!SerializeModel(model, &bytes))
    return Status(ErrorCode::kOutputFailed,
                  fmt::format("{}: the model does not serialize (over protobuf's 2 GiB limit?)", path));
  if (serialized) serialized();
  return WriteFileAtomically(path, bytes);
}

}  // namespace remap
