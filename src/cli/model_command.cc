// onnx-remap rewrite | scan | check: thin callers of the pipeline. Plans the
// models (files or folders), runs them as a batch, renders what came back
// for people (text) and machines (--json, --report), and picks the exit code.
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <tuple>

#include <fmt/core.h>

#include "cli/commands.h"
#include "cli/progress_display.h"
#include "cli/rule_loading.h"
#include "cli/text_render.h"
#include "core/version.h"
#include "pipeline/batch.h"
#include "report/exit_codes.h"
#include "report/junit_writer.h"
#include "report/report_builder.h"
#include "saver/atomic_writer.h"

namespace remap::cli {

namespace {

namespace fs = std::filesystem;

const char* CommandName(ModelCommand c) {
  switch (c) {
    case ModelCommand::kRewrite: return "rewrite";
    case ModelCommand::kScan: return "scan";
    case ModelCommand::kCheck: return "check";
    case ModelCommand::kConvert: return "convert";
  }
  return "?";
}

PipelineMode ModeOf(ModelCommand c) {
  switch (c) {
    case ModelCommand::kRewrite: return PipelineMode::kRewrite;
    case ModelCommand::kScan: return PipelineMode::kScan;
    case ModelCommand::kCheck: return PipelineMode::kCheck;
    case ModelCommand::kConvert: return PipelineMode::kRewrite;
  }
  return PipelineMode::kScan;
}

// A count from the environment variable `name` into *count, when it is set.
// `what` names it in the error: "a byte count", "a count".
Status CountFromEnvironment(const char* name, const char* what, uint64_t* count) {
  const char* value = std::getenv(name);
  if (!value) return Status::Ok();
  const std::string text = value;
  if (text.empty() || text.size() > 19 || text.find_first_not_of("0123456789") != std::string::npos)
    return Status(ErrorCode::kUsage, fmt::format("{}={}: expected {}", name, text, what));
  *count = std::stoull(text);
  return Status::Ok();
}

// "I/N" -> (I, N).
bool ParseShard(const std::string& text, int* index, int* count) {
  const size_t slash = text.find('/');
  if (slash == std::string::npos) return false;
  try {
    size_t used = 0;
    *index = std::stoi(text.substr(0, slash), &used);
    if (used != slash) return false;
    const std::string n = text.substr(slash + 1);
    *count = std::stoi(n, &used);
    return used == n.size() && *count >= 1 && *index >= 0 && *index < *count;
  } catch (...) {
    return false;
  }
}

class Command {
 public:
  Command(ModelCommand command, const ModelArgs& args)
      : command_(command), args_(args), out_style_(TerminalStyle::For(stdout)), err_style_(TerminalStyle::For(stderr)),
        start_(std::chrono::steady_clock::now()) {}

  int Run() {
    // A model run touches a few rules: the built-in ones compile when first matched.
    auto rules = LoadRulesOrReport(args_.rules, BuiltinCompile::kOnDemand);
    if (!rules) return Fail(Status(ErrorCode::kRuleSyntax, "rule files have errors (listed above)"));
    std::string unknown;
    if (!FindTargetOrExplain(*rules, args_.target, &unknown)) return Fail(Status(ErrorCode::kUsage, unknown));

    BatchOptions options;
    options.pipeline.mode = ModeOf(command_);
    options.pipeline.target_opset = args_.opset;
    options.pipeline.target = args_.target;
    options.pipeline.dry_run = args_.dry_run;
    options.pipeline.keep_inferred_types = args_.infer_shapes;
    ParseDataFileMode(args_.data_files, &options.pipeline.data_files);  // CLI11 checked the name
    options.pipeline.weights = args_.save_external_data ? WeightStorage::kExternal
                               : args_.save_embedded      ? WeightStorage::kEmbedded
                                                          : WeightStorage::kAsIs;
    options.pipeline.external_threshold = args_.external_threshold;
    options.pipeline.external_file = args_.external_file;
    options.pipeline.durability = args_.no_fsync ? Durability::kUnsynced : Durability::kSynced;
    // Tests set these low to send small fixtures through the spliced save and
    // through nodes left as bytes, the memo's size to 0 to compare
    // replacements made afresh with replayed ones, and the match batch to 1
    // to compare the two-stage rewrite with one node at a time.
    for (auto [name, bytes] : {std::pair{"ONNX_REMAP_SPLICE_MIN_BYTES", &options.pipeline.splice_min_bytes},
                               std::pair{"ONNX_REMAP_DEFER_MIN_BYTES", &options.pipeline.defer_min_bytes}}) {
      Status read = CountFromEnvironment(name, "a byte count (0: never)", bytes);
      if (!read.ok()) return Fail(read);
    }
    for (auto [name, what, count] :
         {std::tuple{"ONNX_REMAP_MEMO_ENTRIES", "a count (0: never)", &options.pipeline.memo_entries},
          std::tuple{"ONNX_REMAP_MATCH_BATCH", "a count (0 or 1: one node at a time)", &options.pipeline.match_batch}}) {
      Status read = CountFromEnvironment(name, what, count);
      if (!read.ok()) return Fail(read);
    }
    options.pipeline.full_validation = args_.validate == "full";
    options.output = args_.output;
    options.other_files = args_.other_files == "copy" ? OtherFiles::kCopy : OtherFiles::kSkip;
    options.jobs = args_.jobs;
    options.skip_existing = args_.skip_existing;
    if (!args_.shard.empty() && !ParseShard(args_.shard, &options.shard_index, &options.shard_count))
      return Fail(Status(ErrorCode::kUsage, fmt::format("--shard {}: expected I/N with 0 <= I < N", args_.shard)));
    auto plan = PlanBatch(args_.inputs, options);
    if (!plan) return Fail(plan.status());
    // One model, and the process ends once it is written: its messages are
    // left to the exit rather than freed.
    options.pipeline.free_model = plan->models.size() != 1;
    std::error_code ec;
    batch_ = args_.inputs.size() > 1 || fs::is_directory(args_.inputs[0], ec);

    ProgressDisplay progress(plan->models.size(), err_style_);
    const bool show_progress = batch_ && args_.verbosity >= 0 && !args_.json;
    BatchResult result = RunBatch(*plan, *rules, options, [&](const ModelResult& r, size_t done, size_t total) {
      if (r.outcome == ModelOutcome::kFailed) {
        progress.Finish();
        PrintError(r.status.message());
      }
      if (!show_progress) return;
      progress.Update(r, done);
      if (!progress.active() && IsWriting()) fmt::print("{}", PlainLine(r, done, total));
    });
    progress.Finish();
    for (const Status& s : result.file_errors) PrintError(s.message());

    int exit_code = kExitOk;
    for (const ModelResult& r : result.models) {
      // convert applies no rules: nodes it leaves unmapped are the input's, not a failure.
      if (command_ == ModelCommand::kConvert && r.outcome == ModelOutcome::kUnmappedLeft) continue;
      exit_code = WorseExitCode(exit_code, ExitCodeFor(r));
    }
    if (!result.file_errors.empty()) exit_code = WorseExitCode(exit_code, kExitOutputError);
    errors_ = result.file_errors;

    if (!args_.explain.empty()) {
      std::string text;
      for (const ModelResult& r : result.models) text += RenderExplain(r, args_.explain, out_style_);
      if (text.empty()) {
        exit_code = WorseExitCode(exit_code, kExitUsage);
        PrintError(fmt::format("--explain {}: no unmapped node has that name", args_.explain));
      } else if (!args_.json) {
        fmt::print("{}", text);
      }
    } else if (!args_.json && args_.verbosity >= 0) {
      PrintText(result);
    }
    return Finish(result.models, exit_code);
  }

 private:
  void PrintError(const std::string& message) {
    fmt::print(stderr, "onnx-remap: {} {}\n", err_style_.Paint("error:", Color::kRed), message);
  }

  // A batch without a terminal: one line per model as it finishes.
  static std::string PlainLine(const ModelResult& r, size_t done, size_t total) {
    std::string what;
    switch (r.outcome) {
      case ModelOutcome::kFailed: what = fmt::format("failed at {}", StageName(r.failed_at)); break;
      case ModelOutcome::kSkipped: what = "skipped (output exists)"; break;
      default:
        what = fmt::format("{} rewritten, {} left", r.report.rewritten.size(), r.report.remaining.size());
        if (r.written) what += fmt::format(" -> {}", r.output);
    }
    return fmt::format("[{}/{}] {}: {}\n", done, total, r.input, what);
  }

  void PrintText(const BatchResult& result) {
    const bool verbose = args_.verbosity > 0;
    for (const ModelResult& r : result.models) {
      if (command_ == ModelCommand::kScan) {
        fmt::print("{}", RenderScanText(r, args_.target, out_style_));
      } else if (!batch_ || verbose || command_ == ModelCommand::kCheck) {
        fmt::print("{}", RenderModelText(r, command_, verbose, out_style_));
      }
      if (!batch_ && IsWriting() && r.outcome != ModelOutcome::kFailed) {
        if (args_.dry_run) fmt::print("dry run: nothing written\n");
        else fmt::print("wrote {}\n", r.output);
      }
    }
    if (batch_ && command_ != ModelCommand::kScan) fmt::print("{}", RenderBatchSummary(result.models, Seconds(), out_style_));
    if (result.files_copied) fmt::print("{} other file{} copied\n", result.files_copied, result.files_copied == 1 ? "" : "s");
  }

  bool IsWriting() const { return command_ == ModelCommand::kRewrite || command_ == ModelCommand::kConvert; }

  double Seconds() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }

  // A failure before any model ran (rules, options, the inputs themselves).
  int Fail(const Status& s) {
    PrintError(s.message());
    errors_.push_back(s);
    return Finish({}, ExitCodeFor(s.code()));
  }

  int Finish(const std::vector<ModelResult>& models, int exit_code) {
    if (!args_.json && args_.report_path.empty()) return exit_code;
    ReportHeader header{CommandName(command_), Version(), args_.target, args_.opset};
    report::Report rep = BuildReport(header, models, errors_, exit_code, Seconds());
    if (args_.json) fmt::print("{}", ReportToJson(rep, false));
    if (!args_.report_path.empty()) {
      const std::string text = args_.report_format == "junit" ? ReportToJUnit(rep) : ReportToJson(rep, true);
      Status written = WriteFileAtomically(args_.report_path, text);
      if (!written.ok()) {
        PrintError(fmt::format("report not written: {}", written.message()));
        return WorseExitCode(exit_code, kExitOutputError);
      }
    }
    return exit_code;
  }

  ModelCommand command_;
  const ModelArgs& args_;
  TerminalStyle out_style_, err_style_;
  std::chrono::steady_clock::time_point start_;
  bool batch_ = false;
  std::vector<Status> errors_;
};

}  // namespace

int RunModelCommand(ModelCommand command, const ModelArgs& args) { return Command(command, args).Run(); }

}  // namespace remap::cli
