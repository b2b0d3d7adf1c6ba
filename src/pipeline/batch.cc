#include "pipeline/batch.h"

#include <algorithm>
#include <filesystem>
#include <mutex>

#include <fmt/format.h>

#include "core/parallel_for.h"
#include "saver/atomic_writer.h"

namespace remap {

namespace fs = std::filesystem;

int ShardOf(const std::string& relative, int shard_count) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : relative) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return shard_count <= 1 ? 0 : static_cast<int>(h % static_cast<uint64_t>(shard_count));
}

namespace {

bool IsModelFile(const fs::path& p) { return p.extension() == ".onnx"; }

// True when `inner` is `outer` or below it (both made absolute and normal).
bool IsWithin(const fs::path& inner, const fs::path& outer) {
  std::error_code ec;
  fs::path a = fs::weakly_canonical(inner, ec), b = fs::weakly_canonical(outer, ec);
  auto [end, _] = std::mismatch(b.begin(), b.end(), a.begin(), a.end());
  return end == b.end();
}

struct Walk {
  std::vector<BatchEntry> models, others;
};

Status WalkFolder(const fs::path& root, const std::string& input, const fs::path& exclude, Walk* walk) {
  std::error_code ec;
  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
  if (ec) return Status(ErrorCode::kInputUnreadable, fmt::format("{}: cannot read folder: {}", input, ec.message()));
  for (; it != end; it.increment(ec)) {
    if (ec) return Status(ErrorCode::kInputUnreadable, fmt::format("{}: cannot read folder: {}", input, ec.message()));
    const fs::path& p = it->path();
    if (!exclude.empty() && it->is_directory(ec) && IsWithin(p, exclude)) {
      it.disable_recursion_pending();  // the output tree inside the input tree: not an input
      continue;
    }
    if (!it->is_regular_file(ec)) continue;
    const std::string name = p.filename().string();
    if (name.find(".tmp-") != std::string::npos && name.front() == '.') continue;  // a writer's temp file
    BatchEntry e{p.string(), p.lexically_relative(root).generic_string(), ""};
    (IsModelFile(p) ? walk->models : walk->others).push_back(std::move(e));
  }
  return Status::Ok();
}

}  // namespace

Expected<BatchPlan> PlanBatch(const std::vector<std::string>& inputs, const BatchOptions& options) {
  if (options.shard_count < 1 || options.shard_index < 0 || options.shard_index >= options.shard_count)
    return Status(ErrorCode::kUsage, fmt::format("shard {}/{} does not exist (shards are 0/N to N-1/N)",
                                                 options.shard_index, options.shard_count));
  const bool writes = options.pipeline.mode == PipelineMode::kRewrite && !options.pipeline.dry_run;
  if (writes && options.output.empty()) return Status(ErrorCode::kUsage, "an output path is needed (-o)");
  if (writes && inputs.size() != 1)
    return Status(ErrorCode::kUsage, "rewrite takes one model file or one folder (with -o FILE or -o FOLDER)");
  auto by_input = [](const BatchEntry& a, const BatchEntry& b) { return a.input < b.input; };
  Walk walk;
  bool single_file = false;
  for (const std::string& input : inputs) {
    std::error_code ec;
    fs::file_status st = fs::status(input, ec);
    if (fs::is_directory(st)) {
      const fs::path exclude = writes ? fs::path(options.output) : fs::path();
      Walk folder;
      Status s = WalkFolder(input, input, exclude, &folder);
      if (!s.ok()) return s;
      // A folder's models in path order; inputs in the order given.
      std::sort(folder.models.begin(), folder.models.end(), by_input);
      std::sort(folder.others.begin(), folder.others.end(), by_input);
      walk.models.insert(walk.models.end(), folder.models.begin(), folder.models.end());
      walk.others.insert(walk.others.end(), folder.others.begin(), folder.others.end());
    } else if (fs::exists(st)) {
      // A file named directly is a model whatever its extension.
      walk.models.push_back(BatchEntry{input, fs::path(input).filename().generic_string(), ""});
      single_file = inputs.size() == 1;
    } else {
      return Status(ErrorCode::kInputNotFound, fmt::format("{}: no such file", input));
    }
  }
  if (writes && !single_file && fs::exists(options.output) && !fs::is_directory(options.output))
    return Status(ErrorCode::kUsage, fmt::format("{}: the output of a folder must be a folder", options.output));

  BatchPlan plan;
  plan.models_in_all_shards = walk.models.size();
  auto place = [&](BatchEntry e) {
    if (writes) e.output = single_file ? options.output : (fs::path(options.output) / e.relative).string();
    e.make_folders = writes && !single_file;
    return e;
  };
  for (auto& e : walk.models) {
    if (ShardOf(e.relative, options.shard_count) == options.shard_index) plan.models.push_back(place(std::move(e)));
  }
  if (writes && options.other_files == OtherFiles::kCopy) {
    for (auto& e : walk.others) {
      if (ShardOf(e.relative, options.shard_count) == options.shard_index) plan.other_files.push_back(place(std::move(e)));
    }
  }
  return plan;
}

BatchResult RunBatch(const BatchPlan& plan, const RuleSet& rules, const BatchOptions& options,
                     const BatchProgress& progress) {
  BatchResult result;
  result.models.resize(plan.models.size());
  std::mutex report_mutex;
  size_t done = 0;
  ParallelFor(plan.models.size(), options.jobs > 0 ? options.jobs : CoreCount(), [&](size_t i) {
    const BatchEntry& e = plan.models[i];
    ModelResult r;
    std::error_code ec;
    if (options.skip_existing && !e.output.empty() && fs::exists(e.output, ec)) {
      r.input = e.input;
      r.output = e.output;
      r.outcome = ModelOutcome::kSkipped;
    } else {
      if (e.make_folders) fs::create_directories(fs::path(e.output).parent_path(), ec);
      r = RunPipeline(ModelSource{e.input, std::nullopt, ""}, e.output, rules, options.pipeline);
    }
    std::lock_guard<std::mutex> lock(report_mutex);
    result.models[i] = std::move(r);
    ++done;
    if (progress) progress(result.models[i], done, plan.models.size());
  });
  // Other files last: a model's external data is already there, and is not copied twice.
  for (const BatchEntry& e : plan.other_files) {
    std::error_code ec;
    if (fs::exists(e.output, ec)) continue;
    fs::create_directories(fs::path(e.output).parent_path(), ec);
    Status s = CopyFileAtomically(e.input, e.output, options.pipeline.durability);
    if (s.ok()) ++result.files_copied;
    else result.file_errors.push_back(s);
  }
  return result;
}

}  // namespace remap
