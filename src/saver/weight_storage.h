// Where the output keeps its weights: moved out of the model into one
// external data file (a model past protobuf's 2 GiB limit can only be saved
// so; --save-external-data asks for it), or brought back in from external
// data files (--save-embedded).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "core/status.h"
#include "saver/durability.h"

namespace remap {

// The most bytes protobuf writes or reads as one message (2^31 - 1).
constexpr uint64_t kProtobufLimit = 2147483647;

// Initializers below this many bytes stay in the model: shapes, scalars and
// small constants that tools read without loading external data (onnx's own
// convert_model_to_external_data uses the same 1 KiB).
constexpr uint64_t kDefaultExternalThreshold = 1024;

// Offsets in the data file are multiples of this (a page), so runtimes can
// memory-map each tensor.
constexpr uint64_t kExternalDataAlignment = 4096;

// Whether `name` can be the data file's location: a relative path with no
// `..` that stays in the output's folder.
bool ValidDataFileName(const std::string& name);

// Moves the bytes of every initializer (at any depth) held in raw_data with at
// least `threshold` bytes into `dir`/`name`, at aligned offsets, and points the
// tensors there. The file is written whole before it replaces one of that name
// (the caller makes sure that is no file of the input's) and before the model
// is changed: on failure the model is as it was and no file is left. Its path
// goes to `created` once written. Writes nothing when no tensor qualifies.
// The file is synced before it is named unless `durability` says not to.
Status MoveWeightsToFile(onnx::ModelProto* model, const std::string& dir, const std::string& name,
                         uint64_t threshold, std::vector<std::string>* created,
                         Durability durability = Durability::kSynced);

// Reads every tensor stored as external data (relative to `dir`) back into
// its raw_data. When the model would then serialize to more than `limit`
// bytes it refuses (kOutputFailed) before reading anything, the model as it
// was.
Status EmbedExternalData(onnx::ModelProto* model, const std::string& dir, uint64_t limit);

}  // namespace remap
