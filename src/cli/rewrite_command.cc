// onnx-remap rewrite IN.onnx -o OUT.onnx
#include <filesystem>

#include <fmt/core.h>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/json_writer.h"
#include "cli/report_render.h"
#include "cli/rule_loading.h"
#include "engine/engine.h"
#include "model/model_loader.h"
#include "saver/external_data.h"
#include "saver/model_saver.h"
#include "saver/model_validator.h"

namespace remap::cli {

namespace {

// One line on stderr; with --json also an object on stdout, so a CI step
// parsing stdout always gets JSON.
int Fail(const RewriteArgs& args, const Status& s) {
  fmt::print(stderr, "onnx-remap: error: {}\n", s.message());
  const int code = ExitCodeFor(s.code());
  if (args.json) {
    JsonWriter json;
    json.BeginObject().Key("tool").String("onnx-remap").Key("command").String("rewrite");
    json.Key("input").String(args.input).Key("error").String(s.message()).Key("exit_code").Int(code).EndObject();
    fmt::print("{}\n", json.str());
  }
  return code;
}

}  // namespace

int RunRewrite(const RewriteArgs& args) {
  auto rules = LoadRulesOrReport(args.rules);
  if (!rules) return Fail(args, Status(ErrorCode::kRuleSyntax, "rule files have errors (listed above)"));
  std::string unknown;
  const Target* target = FindTargetOrExplain(*rules, args.target, &unknown);
  if (!target) return Fail(args, Status(ErrorCode::kUsage, unknown));
  auto model = LoadModel(args.input);
  if (!model) return Fail(args, model.status());
  RewriteOptions options;
  options.target_opset = args.opset;
  options.target = target;
  auto report = RewriteModel(&*model, *rules, options);
  if (!report) return Fail(args, Status(report.status().code(), fmt::format("{}: {}", args.input, report.status().message())));
  const bool left = !report->remaining.empty();
  if (!args.dry_run) {
    namespace fs = std::filesystem;
    const fs::path in_dir = fs::absolute(args.input).parent_path(), out_dir = fs::absolute(args.output).parent_path();
    Status valid = InferAndCheck(&*model, in_dir.string(), left, &report->notes);
    if (!valid.ok()) return Fail(args, Status(valid.code(), fmt::format("{}: {}; nothing written", args.input, valid.message())));
    Status copied = CopyExternalData(*model, in_dir.string(), out_dir.string());
    if (!copied.ok()) return Fail(args, Status(copied.code(), fmt::format("{}: {}; model not written", args.input, copied.message())));
    Status saved = SaveModel(*model, args.output);
    if (!saved.ok()) return Fail(args, saved);
  }
  if (args.json) {
    JsonWriter json;
    json.BeginObject();
    json.Key("tool").String("onnx-remap");
    json.Key("command").String("rewrite");
    json.Key("input").String(args.input);
    json.Key("output");
    args.dry_run ? json.Null() : json.String(args.output);
    json.Key("target").String(target->name);
    json.Key("opset_before").Int(report->opset_before);
    json.Key("opset_after").Int(report->opset_after);
    json.Key("ir_version_before").Int(report->ir_before);
    json.Key("ir_version_after").Int(report->ir_after);
    json.Key("rewritten").BeginArray();
    for (const auto& n : report->rewritten) WriteNodeOutcome(json, n);
    json.EndArray();
    json.Key("remaining").BeginArray();
    for (const auto& n : report->remaining) WriteNodeOutcome(json, n);
    json.EndArray();
    json.Key("notes").StringArray(report->notes);
    json.Key("exit_code").Int(left ? kExitUnmappedLeft : kExitOk);
    json.EndObject();
    fmt::print("{}\n", json.str());
  } else {
    fmt::print("{}", RenderRewriteText(args.input, *report));
    if (args.dry_run) fmt::print("dry run: nothing written\n");
    else fmt::print("wrote {}\n", args.output);
  }
  return left ? kExitUnmappedLeft : kExitOk;
}

}  // namespace remap::cli
