// Saver: serializes a model and writes it atomically.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <onnx/onnx_pb.h>

#include "core/status.h"
#include "saver/atomic_writer.h"
#include "saver/durability.h"

namespace remap {

class DeferredNodes;

struct SaveOptions {
  // What model.ByteSizeLong() returned, when nothing has changed the model
  // since: protobuf then holds every message's size, and the saver does not
  // size the model again (a pass over every message of a large graph). A
  // size other than the one protobuf cached for the model is ignored.
  std::optional<size_t> byte_size;
  // Runs once the model's bytes are made and before they are written: from
  // then on the saver no longer reads the model, so the caller may free it
  // while the file is written.
  std::function<void()> serialized;
  // Whether the file is synced before it replaces the destination.
  Durability durability = Durability::kSynced;
  // The model's nodes left as bytes (model/deferred_nodes.h), when it was
  // loaded so: each placeholder node is written as its run's bytes.
  const DeferredNodes* deferred = nullptr;
  // Asked before the written file replaces `path` (atomic_writer.h): a
  // status other than ok leaves nothing written and is returned.
  CommitGate before_commit;
};

Status SaveModel(const onnx::ModelProto& model, const std::string& path, const SaveOptions& options = {});

// The model's wire bytes into *bytes; false when they would pass protobuf's
// 2 GiB limit. One pass to size the messages (none when `byte_size` is
// given, as in SaveOptions) and one to write them (SerializeToString sizes
// them twice).
bool SerializeModel(const onnx::ModelProto& model, std::string* bytes, std::optional<size_t> byte_size = std::nullopt);

// The same bytes in a buffer that is not zeroed before protobuf writes it,
// as a std::string's would be: a pass over the whole output saved.
struct ModelBytes {
  std::unique_ptr<char[]> data;
  size_t size = 0;
  std::string_view view() const { return {data.get(), size}; }
};
bool SerializeModel(const onnx::ModelProto& model, ModelBytes* bytes, std::optional<size_t> byte_size = std::nullopt);

// SerializeModel, then the placeholders of `deferred` (when given) written
// as their runs' bytes. False past the 2 GiB limit, or when the placeholders
// are not the runs'.
bool SerializeModelWith(const onnx::ModelProto& model, const SaveOptions& options, std::string* bytes);

}  // namespace remap
