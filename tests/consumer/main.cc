// consumer MODEL OUT.onnx MODELS_DIR OUT_DIR
// What the onnx-remap CLI does, from another program through the installed
// library: load the built-in rules, rewrite one model and print its report
// as JSON, then convert a folder of models as a batch.
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "core/version.h"
#include "pipeline/batch.h"
#include "pipeline/pipeline.h"
#include "report/exit_codes.h"
#include "report/report_builder.h"
#include "rules/rule_set.h"

namespace {

int RewriteOne(const remap::RuleSet& rules, const std::string& model, const std::string& output) {
  const auto start = std::chrono::steady_clock::now();
  remap::PipelineOptions options;  // kRewrite, the model's own opset, target "onnx"
  remap::ModelResult result = remap::RunPipeline(remap::ModelSource{model, std::nullopt, ""}, output, rules, options);
  if (result.outcome == remap::ModelOutcome::kFailed) {
    std::fprintf(stderr, "consumer: %s failed at %s: %s\n", model.c_str(), remap::StageName(result.failed_at),
                 result.status.message().c_str());
    return remap::ExitCodeFor(result);
  }
  std::printf("single: %zu rewritten, %zu left, written %s\n", result.report.rewritten.size(),
              result.report.remaining.size(), result.written ? result.output.c_str() : "-");

  // The same versioned report `onnx-remap rewrite --json` prints.
  const int exit_code = remap::ExitCodeFor(result);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const remap::ReportHeader header{"rewrite", remap::Version(), options.target, options.target_opset};
  std::printf("%s\n", remap::ReportToJson(remap::BuildReport(header, {result}, {}, exit_code, seconds), false).c_str());
  return exit_code;
}

int RewriteFolder(const remap::RuleSet& rules, const std::string& folder, const std::string& output) {
  remap::BatchOptions options;
  options.output = output;  // the input tree is mirrored below it
  options.jobs = 2;
  auto plan = remap::PlanBatch({folder}, options);
  if (!plan) {
    std::fprintf(stderr, "consumer: %s\n", plan.status().message().c_str());
    return remap::ExitCodeFor(plan.status().code());
  }
  const remap::BatchResult batch = remap::RunBatch(*plan, rules, options);
  int exit_code = remap::kExitOk, clean = 0, written = 0;
  for (const remap::ModelResult& r : batch.models) {
    exit_code = remap::WorseExitCode(exit_code, remap::ExitCodeFor(r));
    clean += r.outcome == remap::ModelOutcome::kClean;
    written += r.written;
  }
  std::printf("batch: %zu models, %d clean, %d written\n", batch.models.size(), clean, written);
  return exit_code;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: consumer MODEL OUT.onnx MODELS_DIR OUT_DIR\n");
    return remap::kExitUsage;
  }
  // Built-in rules only; pass paths to add rule files or folders, as --rules does.
  remap::RuleLoadResult loaded = remap::LoadRules(true, {});
  for (const std::string& e : loaded.errors) std::fprintf(stderr, "%s\n", e.c_str());
  if (!loaded.errors.empty()) return remap::kExitRuleError;
  std::printf("library %s: %zu rules\n", remap::Version(), loaded.rules.All().size());

  const int single = RewriteOne(loaded.rules, argv[1], argv[2]);
  const int batch = RewriteFolder(loaded.rules, argv[3], argv[4]);
  return remap::WorseExitCode(single, batch);
}
