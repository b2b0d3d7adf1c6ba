// Batch conversion: the pipeline over folders of models, mirrored into an
// output tree, in parallel, resumable, and split into deterministic shards.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/status.h"
#include "pipeline/pipeline.h"

namespace remap {

enum class OtherFiles {
  kSkip,  // only models (and their external data) reach the output tree
  kCopy,  // every other file is copied too
};

struct BatchOptions {
  PipelineOptions pipeline;
  // kRewrite without dry_run: the output tree's root, or the output file when
  // the only input is one model file.
  std::string output;
  OtherFiles other_files = OtherFiles::kSkip;
  int jobs = 0;  // worker threads; 0: one per core
  bool skip_existing = false;  // a model whose output exists is not redone
  // This run takes the models whose shard (a hash of the path relative to its
  // input folder) is shard_index, of shard_count.
  int shard_index = 0;
  int shard_count = 1;
};

struct BatchEntry {
  std::string input;     // path as the walk found it (the input folder joined with `relative`)
  std::string relative;  // path below the input folder ('/'-separated), or the file name
  std::string output;    // where it goes ("" when nothing is written)
  bool make_folders = false;  // create the output's folders (a mirrored tree), not for a single named output file
};

struct BatchPlan {
  std::vector<BatchEntry> models;       // this shard's models: inputs in the order given, a folder's in path order
  std::vector<BatchEntry> other_files;  // with OtherFiles::kCopy (this shard's share)
  size_t models_in_all_shards = 0;
};

// Which shard a relative path belongs to (FNV-1a of its bytes, modulo count):
// the same on every machine, and stable when other models are added.
int ShardOf(const std::string& relative, int shard_count);

// Walks the inputs (model files or folders, recursively: every *.onnx) and
// assigns outputs. Errors: an input that does not exist, a folder input
// without an output root, several inputs with one output file.
Expected<BatchPlan> PlanBatch(const std::vector<std::string>& inputs, const BatchOptions& options);

// Called once per finished model, from one thread at a time, in completion order.
using BatchProgress = std::function<void(const ModelResult& result, size_t done, size_t total)>;

struct BatchResult {
  std::vector<ModelResult> models;  // in plan order, whatever the completion order
  std::vector<Status> file_errors;  // other files that could not be copied
  size_t files_copied = 0;
};

// Runs the plan on `jobs` threads. A failed model is reported and the rest go
// on. Outputs do not depend on the number of jobs.
BatchResult RunBatch(const BatchPlan& plan, const RuleSet& rules, const BatchOptions& options,
                     const BatchProgress& progress = nullptr);

}  // namespace remap
