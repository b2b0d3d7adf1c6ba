// libFuzzer target: a model from arbitrary bytes through the whole pipeline
// with the built-in rules (load -> rewrite -> validate), as `onnx-remap check`
// runs it, then once more raising the opset, which reaches the opset
// rewriters. Nothing is written. A crash, leak, sanitizer report or a
// failed invariant below is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdlib.h>  // mkdtemp
#include <filesystem>
#include <optional>
#include <string>
#include <system_error>

#include "pipeline/pipeline.h"
#include "rules/rule_set.h"

namespace {

const remap::RuleSet& BuiltinRules() {
  static const remap::RuleSet* rules = [] {
    remap::RuleLoadResult loaded = remap::LoadRules(true, {});
    if (!loaded.errors.empty()) std::abort();  // the built-in rules must load
    return new remap::RuleSet(std::move(loaded.rules));
  }();
  return *rules;
}

// An empty folder of its own as the model's folder: external data a fuzzed
// model names resolves there (and is missing), never in the working directory.
// Removed when the fuzzer exits (libFuzzer ends a timed run with exit()).
const std::string& EmptyModelDir() {
  struct Folder {
    std::string path = (std::filesystem::temp_directory_path() / "onnx-remap-fuzz-XXXXXX").string();
    Folder() {
      if (!mkdtemp(path.data())) std::abort();
    }
    ~Folder() {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  };
  static const Folder dir;
  return dir.path;
}

void Run(const std::string& bytes, std::optional<int> target_opset) {
  remap::PipelineOptions options;
  options.mode = remap::PipelineMode::kCheck;
  options.target_opset = target_opset;
  remap::ModelResult r =
      remap::RunPipeline(remap::ModelSource{"fuzz.onnx", bytes, EmptyModelDir()}, "", BuiltinRules(), options);
  // The pipeline's contract: a failure names its stage and a reason; a
  // success has a report; check mode never writes.
  if (r.written) std::abort();
  if (r.outcome == remap::ModelOutcome::kFailed && (r.status.ok() || r.failed_at == remap::PipelineStage::kDone)) std::abort();
  if (r.outcome != remap::ModelOutcome::kFailed && !r.has_report) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  Run(bytes, std::nullopt);
  Run(bytes, 18);
  return 0;
}
