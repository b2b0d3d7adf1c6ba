#include "pipeline/pipeline.h"

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "core/background_task.h"
#include "engine/engine.h"
#include "model/deferred_nodes.h"
#include "model/external_data_check.h"
#include "model/graph_index.h"
#include "model/model_loader.h"
#include "pipeline/pending_validation.h"
#include "saver/external_data.h"
#include "saver/model_saver.h"
#include "saver/model_validator.h"
#include "saver/spliced_writer.h"
#include "saver/weight_storage.h"

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
Status OutputIsDataFile(const std::vector<std::string>& data_files, const std::string& in_dir, const std::string& out_dir,
                        const std::string& output) {
  const fs::path out = fs::absolute(output).lexically_normal();
  std::error_code ec;
  for (const std::string& rel : data_files) {
    for (const std::string& dir : {in_dir, out_dir}) {
      const fs::path data = (fs::path(dir) / rel).lexically_normal();
      if (data == out || fs::equivalent(data, out, ec))
        return Status(ErrorCode::kOutputFailed,
                      fmt::format("{}: is the external data file '{}' the model refers to; nothing written", output, rel));
    }
  }
  return Status::Ok();
}

// The file the weights go to must be a plain relative name, and none of the
// files the model refers to (`data_files`: the input's data is never
// written), nor the output itself.
Status CheckDataFileName(const std::vector<std::string>& data_files, const std::string& in_dir,
                         const std::string& out_dir, const std::string& output, const std::string& name) {
  if (!ValidDataFileName(name))
    return Status(ErrorCode::kUsage,
                  fmt::format("--external-data-file '{}': expected a relative path without '..'", name));
  const fs::path data = (fs::path(out_dir) / name).lexically_normal();
  std::error_code ec;
  if (data == fs::absolute(output).lexically_normal() || fs::equivalent(data, output, ec))
    return Status(ErrorCode::kUsage, fmt::format("--external-data-file '{}' is the output model itself", name));
  for (const std::string& rel : data_files) {
    for (const std::string& dir : {in_dir, out_dir}) {
      const fs::path used = (fs::path(dir) / rel).lexically_normal();
      if (used == data || fs::equivalent(used, data, ec))
        return Status(ErrorCode::kOutputFailed,
                      fmt::format("{}: is the external data file '{}' the model refers to; choose another "
                                  "--external-data-file; nothing written",
                                  data.string(), rel));
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

// Where writing the output failed, and why; an ok status when it did not.
struct SaveFailure {
  PipelineStage stage = PipelineStage::kSave;
  Status status;
};

// The last stage of a rewrite: external data placed (copied, linked, moved
// to or from a data file) and the model written, or nothing left behind.
// With `pending`, the rewrite's check still runs: a plain save writes
// meanwhile and asks for its verdict before the file replaces anything;
// anything else (editing the model, writing a data file) waits for it first.
// `external_data`: false when the loaded model had no tensor stored as
// external data (a rewrite adds none).
SaveFailure WriteOutput(onnx::ModelProto* model, const ModelSource& source, const std::string& output,
                        const std::string& in_dir, bool external_data, const SplicedSource* spliced_source,
                        const DeferredNodes* deferred,
                        const PipelineOptions& options, uint64_t* spliced_bytes,
                        const std::function<void()>& serialized, PendingValidation* pending) {
  auto fail = [](PipelineStage stage, Status status) { return SaveFailure{stage, std::move(status)}; };
  auto verdict = [pending]() -> Status { return pending ? pending->Wait() : Status::Ok(); };
  if (spliced_source && !verdict().ok()) return fail(PipelineStage::kValidate, verdict());
  // The marks come off before anything copies or checks external data files.
  std::vector<SplicedInitializer> spliced;
  if (spliced_source) spliced = TakeSplicedMarks(model->mutable_graph(), *spliced_source);
  const std::string out_dir = fs::absolute(output).parent_path().string();
  // One walk over the model's tensors finds its data files for every check and the copy below.
  std::vector<std::string> data_files = external_data ? ExternalDataFiles(*model) : std::vector<std::string>();
  if (!data_files.empty() && !verdict().ok()) return fail(PipelineStage::kValidate, verdict());
  Status clash = OutputIsDataFile(data_files, in_dir, out_dir, output);
  if (!clash.ok()) return fail(PipelineStage::kCopyData, clash);
  if (options.weights == WeightStorage::kEmbedded) {
    Status embedded = EmbedExternalData(model, in_dir, kProtobufLimit);
    if (!embedded.ok())
      return fail(PipelineStage::kCopyData, Status(embedded.code(), fmt::format("{}: {}", output, embedded.message())));
    data_files.clear();  // every tensor is in the model now
  }
  // Before the data file is chosen: the model's own files must not be taken for it.
  uint64_t spliced_size = 0;
  for (const SplicedInitializer& s : spliced) spliced_size += s.length;
  SaveOptions save;
  save.serialized = serialized;
  save.durability = options.durability;
  save.deferred = deferred;
  save.before_commit = verdict;
  if (options.weights == WeightStorage::kAsIs) save.byte_size = model->ByteSizeLong();
  const bool externalize = options.weights == WeightStorage::kExternal ||
                           (save.byte_size && *save.byte_size + spliced_size > kProtobufLimit);
  // Spliced weights are not in memory to move: only a rewrite that grew a
  // model of nearly 2 GiB gets here, and loading it whole does it.
  if (externalize && !spliced.empty())
    return fail(PipelineStage::kSave,
                Status(ErrorCode::kOutputFailed,
                       fmt::format("{}: the result would pass 2 GiB; rerun with --save-external-data; nothing written", output)));
  if (externalize && !verdict().ok()) return fail(PipelineStage::kValidate, verdict());
  std::string data_name;
  if (externalize) {
    data_name = options.external_file.empty() ? fs::path(output).filename().string() + ".data" : options.external_file;
    Status name = CheckDataFileName(data_files, in_dir, out_dir, output, data_name);
    if (!name.ok()) return fail(PipelineStage::kCopyData, name);
  }
  std::vector<std::string> created;
  Status copied = CopyExternalDataFiles(data_files, in_dir, out_dir, &created, options.data_files, options.durability);
  if (!copied.ok()) {
    RemoveCreated(created);
    return fail(PipelineStage::kCopyData,
                Status(copied.code(), fmt::format("{}: {}; model not written", source.path, copied.message())));
  }
  if (externalize) {
    save.byte_size.reset();  // the weights leave the model
    Status moved = MoveWeightsToFile(model, out_dir, data_name, options.external_threshold, &created, options.durability);
    if (!moved.ok()) {
      RemoveCreated(created);
      return fail(PipelineStage::kSave, Status(moved.code(), moved.message() + "; model not written"));
    }
  }
  Status saved = spliced_source
                     ? SaveModelSpliced(*model, spliced, spliced_source->fd(), output, spliced_bytes, save)
                     : SaveModel(*model, output, save);
  if (!saved.ok()) {
    RemoveCreated(created);
    return fail(PipelineStage::kSave, saved);
  }
  return {};
}

// Models left to the process's exit (PipelineOptions::free_model): held, so
// that leak checkers count them reachable.
void LeaveToExit(std::unique_ptr<onnx::ModelProto> model) {
  static std::mutex mutex;
  static auto* held = new std::vector<std::unique_ptr<onnx::ModelProto>>();
  std::lock_guard<std::mutex> lock(mutex);
  held->push_back(std::move(model));
}

// Where a model's messages go once it is written: freed on another thread
// while this one writes its bytes (freeing the messages of a million-node
// graph takes about as long as writing and syncing its file), or left to the
// process's exit. Joins that thread when it goes.
class ModelRelease {
 public:
  explicit ModelRelease(bool free) : free_(free) {}
  ModelRelease(const ModelRelease&) = delete;
  ModelRelease& operator=(const ModelRelease&) = delete;

  // Takes the model's content (*model is left empty).
  void Release(onnx::ModelProto* model) {
    released_ = true;
    owned_ = std::make_unique<onnx::ModelProto>(std::move(*model));
    if (!free_) {
      LeaveToExit(std::move(owned_));
      return;
    }
    free_task_.Run([this] { owned_.reset(); });  // no thread to spare: freed here
  }
  bool released() const { return released_; }

 private:
  const bool free_;
  bool released_ = false;
  std::unique_ptr<onnx::ModelProto> owned_;
  BackgroundTask free_task_;  // after owned_: joined before owned_ goes
};

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
  ModelRelease release(options.free_model);  // joined last, after the model's (emptied) storage goes
  Run run(source, output, options);
  const Target* target = rules.FindTarget(options.target);
  if (!target)
    return run.Fail(PipelineStage::kLoad,
                    Status(ErrorCode::kUsage, fmt::format("unknown target '{}' (known targets: {})", options.target,
                                                          rules.TargetNames())));
  // Weights are bytes to move, not to parse, when they go from file to file
  // as they are (moving them to or from a data file needs them in memory).
  const bool splice = !source.bytes && source.model_dir.empty() && options.mode == PipelineMode::kRewrite &&
                      !options.dry_run && !options.keep_model && options.splice_min_bytes > 0 &&
                      options.weights == WeightStorage::kAsIs;
  // Nodes no rewrite can touch stay bytes when nothing needs every node parsed.
  const bool defer = !source.bytes && source.model_dir.empty() && options.mode == PipelineMode::kRewrite &&
                     !options.dry_run && !options.keep_model && !options.full_validation &&
                     !options.keep_inferred_types && !options.target_opset && options.defer_min_bytes > 0 &&
                     !rules.AnyDefaultDomainProducer();
  DeferredNodes deferred;
  const DeferOptions defer_options{defer ? &deferred : nullptr, options.defer_min_bytes};
  std::shared_ptr<SplicedSource> spliced_source;
  Expected<onnx::ModelProto> model = Status(ErrorCode::kInputUnreadable, "");
  // Built by the load's structure check, for the rewrite.
  GraphIndex main_index;
  if (splice) {
    auto loaded = LoadModelSpliced(source.path, options.splice_min_bytes, &main_index, defer_options);
    if (!loaded) return run.Fail(PipelineStage::kLoad, loaded.status());
    model = std::move(loaded->model);
    spliced_source = std::move(loaded->source);
  } else {
    model = source.bytes ? ParseModel(*source.bytes, source.path, &main_index)
                         : LoadModel(source.path, &main_index, defer_options);
  }
  if (!model) return run.Fail(PipelineStage::kLoad, model.status());
  const std::string in_dir = ModelDir(source);
  // The load's walk saw every tensor: with none stored as external data,
  // nothing walks the model again to look for data files.
  const bool external_data = main_index.may_hold_external_data();
  // Before validation or the saver reads or copies a data file. A scan reads no tensor data.
  if (options.mode != PipelineMode::kScan && external_data) {
    Status data = CheckExternalData(*model, in_dir);
    if (!data.ok())
      return run.Fail(PipelineStage::kLoad, Status(data.code(), fmt::format("{}: {}", source.path, data.message())));
  }

  RewriteOptions rewrite;
  rewrite.target_opset = options.target_opset;
  rewrite.target = target;
  std::vector<AddedNode> added;
  rewrite.added = &added;
  rewrite.main_index = &main_index;
  rewrite.memo_entries = options.memo_entries;
  rewrite.match_batch = options.match_batch;
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
  const bool full = options.full_validation || options.mode == PipelineMode::kCheck || options.keep_inferred_types ||
                    r.report.opset_after != r.report.opset_before;
  // ONNX's checker cannot read placeholders; `defer` rules out every reason for a full pass above.
  if (validate && full && deferred.run_count() > 0)
    return run.Fail(PipelineStage::kValidate,
                    Status(ErrorCode::kValidationFailed, fmt::format("{}: nodes left as bytes cannot be validated in full", source.path)));
  auto validation_failed = [&](const Status& valid) {
    const char* tail = options.mode == PipelineMode::kRewrite ? "; nothing written" : "";
    return run.Fail(PipelineStage::kValidate,
                    Status(valid.code(), fmt::format("{}: {}{}", source.path, valid.message(), tail)));
  };
  const bool save = options.mode == PipelineMode::kRewrite && !options.dry_run;
  // Many added nodes are checked while the output is written (pending_validation.h).
  std::vector<std::string> check_notes;
  std::optional<PendingValidation> pending;
  if (validate) {
    if (save && !full && added.size() >= options.check_apart_from) {
      pending.emplace([&] { return CheckAddedNodes(*model, added, &check_notes); });
    } else {
      Status valid = full ? InferAndCheck(&*model, in_dir, left, options.keep_inferred_types, &r.report.notes)
                          : CheckAddedNodes(*model, added, &r.report.notes);
      if (!valid.ok()) return validation_failed(valid);
    }
  }
  if (save) {
    std::function<void()> serialized;
    if (!options.keep_model) serialized = [&] {
      if (pending) pending->Wait();  // it reads the model
      release.Release(&*model);
    };
    SaveFailure failure = WriteOutput(&*model, source, output, in_dir, external_data, spliced_source.get(),
                                      deferred.run_count() > 0 ? &deferred : nullptr, options, &r.spliced_bytes, serialized,
                                      pending ? &*pending : nullptr);
    if (pending) {
      // The check's verdict comes first, as when it ran before the save.
      const Status valid = pending->Wait();
      r.report.notes.insert(r.report.notes.end(), check_notes.begin(), check_notes.end());
      if (!valid.ok()) return validation_failed(valid);
    }
    if (!failure.status.ok()) return run.Fail(failure.stage, failure.status);
    r.written = true;
  }
  if (options.keep_model)
    r.model = std::move(*model);
  else if (!options.free_model && !release.released())
    release.Release(&*model);
  return run.Finish();
}

}  // namespace remap
