// The conversion pipeline as one library call: load -> rewrite -> validate ->
// copy external data -> save, for one model. `rewrite`, `scan`, `check` and
// batch conversion are thin callers; what happened comes back as values.
#pragma once

#include <optional>
#include <string>

#include <onnx/onnx_pb.h>

#include "core/status.h"
#include "engine/rewrite_report.h"
#include "rules/rule_set.h"

namespace remap {

enum class PipelineMode {
  kRewrite,  // rewrite, validate, write the result (unless dry_run)
  kScan,     // rewrite in memory only, to see what the rules cover; no validation
  kCheck,    // rewrite and validate in memory; nothing written (a CI gate)
};

// How far a model got: the stage that failed, or kDone.
enum class PipelineStage { kLoad, kRewrite, kValidate, kCopyData, kSave, kDone };

// Stable names for reports: "load", "rewrite", ... "done".
const char* StageName(PipelineStage s);

struct PipelineOptions {
  PipelineMode mode = PipelineMode::kRewrite;
  // Default-domain opset of the result (unset: the model's own).
  std::optional<int> target_opset;
  // Runtime target, by name (see RuleSet::FindTarget).
  std::string target = kDefaultTargetName;
  // kRewrite only: report what would change, write nothing.
  bool dry_run = false;
  // Keep the value_info and output types ONNX shape inference adds while
  // validating (off: the model keeps the types its exporter wrote).
  bool keep_inferred_types = false;
  // Validate the whole result (ONNX shape inference and checker over every
  // graph, a second pass over the model). Off: kRewrite checks only the nodes
  // the rewrite added (CheckAddedNodes). kCheck, keep_inferred_types and an
  // opset conversion (it touches every node) always validate in full.
  bool full_validation = false;
  // Keep the rewritten model in the result (a library caller that wants the
  // proto rather than, or besides, a file).
  bool keep_model = false;
};

// A model to process: a path, or bytes already in memory. `path` names the
// model in messages, and its folder is where external data is looked up
// (bytes: set `model_dir` for that, or leave both empty when there is none).
struct ModelSource {
  std::string path;
  std::optional<std::string> bytes;
  std::string model_dir;  // defaults to the folder of `path`
};

enum class ModelOutcome {
  kClean,         // nothing unmapped remains
  kUnmappedLeft,  // done, but some unmapped nodes remain
  kFailed,        // a stage failed (see status)
  kSkipped,       // not processed (a batch's --skip-existing found the output)
};

const char* OutcomeName(ModelOutcome o);

struct ModelResult {
  std::string input;   // as given
  std::string output;  // where it was (or would be) written; "" for scan/check
  ModelOutcome outcome = ModelOutcome::kFailed;
  Status status;       // ok, or why `failed_at` failed
  PipelineStage failed_at = PipelineStage::kDone;
  bool has_report = false;  // the rewrite ran: `report` is filled
  RewriteReport report;
  bool written = false;
  double seconds = 0;  // wall time of this model
  std::optional<onnx::ModelProto> model;  // with keep_model, once rewritten
};

// Runs the pipeline for one model. `output` is the path to write (kRewrite
// without dry_run); ignored otherwise. Never throws; never writes a partial
// file; never modifies the input.
ModelResult RunPipeline(const ModelSource& source, const std::string& output, const RuleSet& rules,
                        const PipelineOptions& options);

}  // namespace remap
