// Loader: reads a ModelProto from disk, keeping every field (unknown ones too,
// so IR 9/10 models and newer opsets survive a rewrite untouched).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <onnx/onnx_pb.h>

#include "core/status.h"
#include "model/spliced_source.h"

namespace remap {

class DeferredNodes;
class GraphIndex;

// Whether plain main-graph nodes may stay bytes (deferred_nodes.h): into
// `nodes` (null: never), when they make at least `min_bytes`. The caller keeps
// `nodes` while the model lives, and hands it to the saver.
struct DeferOptions {
  DeferredNodes* nodes = nullptr;
  uint64_t min_bytes = 0;
};

// The load checks the model's structure (model_structure.h), building the
// main graph's GraphIndex in the same walk; with `main_index`, a loaded
// model's index is kept there for the rewrite (RewriteOptions::main_index).
// It points into the model: it holds while the model's graph is not edited.
Expected<onnx::ModelProto> LoadModel(const std::string& path, GraphIndex* main_index = nullptr,
                                     const DeferOptions& defer = {});

// Parses bytes already in memory; `name` is used in messages.
Expected<onnx::ModelProto> ParseModel(const std::string& bytes, const std::string& name, GraphIndex* main_index = nullptr);

// A model loaded with its large weights left in the file.
struct SplicedModel {
  onnx::ModelProto model;
  // The input file and the marks (model/spliced_source.h); null when nothing
  // was left out and the model is whole.
  std::shared_ptr<SplicedSource> source;
};

// LoadModel, except that main-graph initializers with at least `min_bytes`
// of raw_data keep it in the file: they are marked (spliced_source.h) and
// cost no memory. A model this does not handle (a pipe, a symbolic link,
// anything malformed) is loaded whole by LoadModel, with its errors.
// `defer`: as for LoadModel, for a model with no weights to leave in the file.
Expected<SplicedModel> LoadModelSpliced(const std::string& path, uint64_t min_bytes, GraphIndex* main_index = nullptr,
                                        const DeferOptions& defer = {});

}  // namespace remap
