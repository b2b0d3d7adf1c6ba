#include "saver/model_saver.h"

#include <cstdint>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "model/deferred_nodes.h"
#include "saver/atomic_writer.h"

namespace remap {

namespace {

// The size to write the model with: the given one when it is the size
// protobuf cached for the model itself (writing with sizes that do not hold
// would overrun the buffer), else the model sized afresh. ByteSizeLong
// leaves each message's size cached, so the write is then a single pass.
// Nullopt past protobuf's 2 GiB limit.
std::optional<size_t> SizeToWrite(const onnx::ModelProto& model, std::optional<size_t> byte_size) {
  const bool sized = byte_size && *byte_size == static_cast<size_t>(model.GetCachedSize());
  const size_t size = sized ? *byte_size : model.ByteSizeLong();
  if (size > static_cast<size_t>(INT32_MAX)) return std::nullopt;
  return size;
}

bool WriteWithCachedSizes(const onnx::ModelProto& model, char* data, size_t size) {
  auto* begin = reinterpret_cast<uint8_t*>(data);
  return model.SerializeWithCachedSizesToArray(begin) == begin + size;
}

}  // namespace

bool SerializeModel(const onnx::ModelProto& model, std::string* bytes, std::optional<size_t> byte_size) {
  const std::optional<size_t> size = SizeToWrite(model, byte_size);
  if (!size) return false;
  bytes->resize(*size);
  return WriteWithCachedSizes(model, bytes->data(), *size);
}

bool SerializeModel(const onnx::ModelProto& model, ModelBytes* bytes, std::optional<size_t> byte_size) {
  const std::optional<size_t> size = SizeToWrite(model, byte_size);
  if (!size) return false;
  // Left uninitialised: protobuf writes every byte.
  bytes->data.reset(new char[*size]);
  bytes->size = *size;
  return WriteWithCachedSizes(model, bytes->data.get(), *size);
}

bool SerializeModelWith(const onnx::ModelProto& model, const SaveOptions& options, std::string* bytes) {
  if (!SerializeModel(model, bytes, options.byte_size)) return false;
  if (!options.deferred) return true;
  return ExpandDeferredRuns(*options.deferred, bytes) && bytes->size() <= static_cast<size_t>(INT32_MAX);
}

Status SaveModel(const onnx::ModelProto& model, const std::string& path, const SaveOptions& options) {
  const Status too_big(ErrorCode::kOutputFailed,
                       fmt::format("{}: the model does not serialize (over protobuf's 2 GiB limit?)", path));
  ModelBytes bytes;
  if (!SerializeModel(model, &bytes, options.byte_size)) return too_big;
  // With nodes left as bytes, the runs are written from where they are, not
  // copied into one buffer with the rest first.
  std::string length_prefix;
  std::vector<std::string_view> pieces{bytes.view()};
  if (options.deferred) {
    if (!DeferredRunPieces(*options.deferred, bytes.view(), &length_prefix, &pieces)) return too_big;
    size_t size = 0;
    for (std::string_view piece : pieces) size += piece.size();
    if (size > static_cast<size_t>(INT32_MAX)) return too_big;
  }
  if (options.serialized) options.serialized();
  return WriteFileAtomically(path, pieces, options.durability, options.before_commit);
}

}  // namespace remap
