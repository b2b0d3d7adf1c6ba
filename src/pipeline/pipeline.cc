#include "pipeline/pipeline.h"

#include <chrono>
#include <filesystem>
#include <vector>

#include <fmt/format.h>

#include "engine/engine.h"
#include "model/external_data_check.h"
#include "model/model_loader.h"
#include "saver/external_data.h"
#include "saver/model_saver.h"
#include "saver/model_validator.h"

namespace remap {

namespace fs = std::filesystem;

const char* StageName(PipelineStage s) {
  switch (s) {
    case PipelineStage::kLoad: return "load";
    case PipelineStage::kRewrite: return "rewrite";
    case PipelineStage::kValidate: return "validate";
    case PipelineStage::kCopyData: return "copy-external-data";
    case PipelineStage::kSave: return "save";
    case PipelineStage::kDone: return "done";
  }
  return "unknown";
}

const char* OutcomeName(ModelOutcome o) {
  switch (o) {
    case ModelOutcome::kClean: return "clean";
    case ModelOutcome::kUnmappedLeft: return "unmapped-left";
    case ModelOutcome::kFailed: return "failed";
    case ModelOutcome::kSkipped: return "skipped";
  }
  return "unknown";
}

namespace {

// The folder relative paths in the model resolve against.
std::string ModelDir(const ModelSource& source) {
  if (!source.model_dir.empty()) return source.model_dir;
  if (source.path.empty()) return fs::current_path().string();
  return fs::absolute(source.path).parent_path().string();
}

// Writing the model to one of its own external data files would destroy the
// data it refers to (the input's, when written next to it).
Status OutputIsDataFile(const onnx::ModelProto& model, const std::string& in_dir, const std::string& out_dir,
                        const std::string& output) {
  const fs::path out = fs::absolute(output).lexically_normal();
  std::error_code ec;
  for (const std::string& rel : ExternalDataFiles(model)) {
    for (const std::string& dir : {in_dir, out_dir}) {
      const fs::path data = (fs::path(dir) / rel).lexically_normal();
      if (data == out || fs::equivalent(data, out, ec))
        return Status(ErrorCode::kOutputFailed,
                      fmt::format("{}: is the external data file '{}' the model refers to; nothing written", output, rel));
    }
  }
  return Status::Ok();
}

// Undoes a CopyExternalData whose model was not saved: a failed run leaves
// nothing behind. Files and folders in reverse order (a folder only if empty).
void RemoveCreated(const std::vector<std::string>& created) {
  std::error_code ec;
  for (auto it = created.rbegin(); it != created.rend(); ++it) fs::remove(*it, ec);
}

// One model's result as it is built, timed from construction.
class Run {
 public:
  Run(const ModelSource& source, const std::string& output, const PipelineOptions& options)
      : start_(std::chrono::steady_clock::now()) {
    result_.input = source.path;
    if (options.mode == PipelineMode::kRewrite) result_.output = output;
  }

  ModelResult Fail(PipelineStage stage, Status status) {
    result_.failed_at = stage;
    result_.status = std::move(status);
    result_.outcome = ModelOutcome::kFailed;
    return Finish();
  }

  ModelResult Finish() {
    result_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    return std::move(result_);
  }

  ModelResult& result() { return result_; }

 private:
  std::chrono::steady_clock::time_point start_;
  ModelResult result_;
};

}  // namespace

ModelResult RunPipeline(const ModelSource& source, const std::string& output, const RuleSet& rules,
                        const PipelineOptions& options) {
  Run run(source, output, options);
  const Target* target = rules.FindTarget(options.target);
  if (!target)
    return run.Fail(PipelineStage::kLoad,
                    Status(ErrorCode::kUsage, fmt::format("unknown target '{}' (known targets: {})", options.target,
                                                          rules.TargetNames())));
  auto model = source.bytes ? ParseModel(*source.bytes, source.path) : LoadModel(source.path);
  if (!model) return run.Fail(PipelineStage::kLoad, model.status());
  const std::string in_dir = ModelDir(source);
  // Before validation or the saver reads or copies a data file. A scan reads no tensor data.
  if (options.mode != PipelineMode::kScan) {
    Status data = CheckExternalData(*model, in_dir);
    if (!data.ok())
      return run.Fail(PipelineStage::kLoad, Status(data.code(), fmt::format("{}: {}", source.path, data.message())));
  }

  RewriteOptions rewrite;
  rewrite.target_opset = options.target_opset;
  rewrite.target = target;
  std::vector<AddedNode> added;
  rewrite.added = &added;
  auto report = RewriteModel(&*model, rules, rewrite);
  if (!report)
    return run.Fail(PipelineStage::kRewrite,
                    Status(report.status().code(), fmt::format("{}: {}", source.path, report.status().message())));
  ModelResult& r = run.result();
  r.has_report = true;
  r.report = std::move(*report);
  const bool left = !r.report.remaining.empty();
  r.outcome = left ? ModelOutcome::kUnmappedLeft : ModelOutcome::kClean;

  const bool validate = options.mode == PipelineMode::kCheck || (options.mode == PipelineMode::kRewrite && !options.dry_run);
  if (validate) {
    const bool full = options.full_validation || options.mode == PipelineMode::kCheck || options.keep_inferred_types ||
                      r.report.opset_after != r.report.opset_before;
    Status valid = full ? InferAndCheck(&*model, in_dir, left, options.keep_inferred_types, &r.report.notes)
                        : CheckAddedNodes(*model, added, &r.report.notes);
    if (!valid.ok()) {
      const char* tail = options.mode == PipelineMode::kRewrite ? "; nothing written" : "";
      return run.Fail(PipelineStage::kValidate,
                      Status(valid.code(), fmt::format("{}: {}{}", source.path, valid.message(), tail)));
    }
  }
  if (options.mode == PipelineMode::kRewrite && !options.dry_run) {
    const std::string out_dir = fs::absolute(output).parent_path().string();
    Status clash = OutputIsDataFile(*model, in_dir, out_dir, output);
    if (!clash.ok()) return run.Fail(PipelineStage::kCopyData, clash);
    std::vector<std::string> created;
    Status copied = CopyExternalData(*model, in_dir, out_dir, &created);
    if (!copied.ok()) {
      RemoveCreated(created);
      return run.Fail(PipelineStage::kCopyData,
                      Status(copied.code(), fmt::format("{}: {}; model not written", source.path, copied.message())));
    }
    Status saved = SaveModel(*model, output);
    if (!saved.ok()) {
      RemoveCreated(created);
      return run.Fail(PipelineStage::kSave, saved);
    }
    r.written = true;
  }
  if (options.keep_model) r.model = std::move(*model);
  return run.Finish();
}

}  // namespace remap
