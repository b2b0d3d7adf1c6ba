// onnx-remap rules check [--rules PATH] [--rule ID]: the rule self-check.
// Prints one line per finding, `file:line:col: error|warning: [rule] setting: message`,
// then a summary; exit 0 when no error was found, 4 (rule file error) otherwise.
#include <fmt/core.h>

#include "check/rule_check.h"
#include "cli/commands.h"
#include "report/exit_codes.h"
#include "cli/json_writer.h"
#include "cli/rule_loading.h"
#include "model/shape_inference.h"
#include "rules/element_types.h"

namespace remap::cli {

int RunRulesCheck(const RulesArgs& args) {
  auto rules = LoadRulesOrReport(args.rules);
  if (!rules) return kExitRuleError;
  RuleCheckOptions options;
  options.rule_ids = args.check_ids;
  if (!args.check_dtypes.empty()) {
    options.dtypes.clear();
    for (const std::string& name : args.check_dtypes) {
      int t = ElementTypeFromName(name);
      if (t == 0) {
        fmt::print(stderr, "onnx-remap: error: --dtype {}: not an element type name (float32, float64, float16, ...)\n", name);
        return kExitUsage;
      }
      options.dtypes.push_back(t);
    }
  }
  RuleCheckReport report = CheckRules(*rules, options);
  if (args.format == "json") {
    JsonWriter json;
    json.BeginObject().Key("tool").String("onnx-remap").Key("command").String("rules check");
    json.Key("alternatives").Int(report.alternatives).Key("models").Int(report.models);
    json.Key("rewritten").Int(report.rewritten).Key("validated").Int(report.validated);
    json.Key("beyond_onnx_1_12").Int(report.beyond_onnx);
    json.Key("findings").BeginArray();
    for (const auto& f : report.findings) {
      json.BeginObject();
      json.Key("severity").String(f.severity == RuleCheckFinding::Severity::kError ? "error" : "warning");
      json.Key("rule").String(f.rule_id).Key("location").String(f.location.ToString());
      json.Key("setting").String(f.setting).Key("message").String(f.message);
      json.EndObject();
    }
    json.EndArray();
    json.Key("errors").Int(static_cast<int64_t>(report.errors()));
    json.EndObject();
    fmt::print("{}\n", json.str());
  } else {
    for (const auto& f : report.findings) {
      fmt::print("{}: {}: [{}] {}: {}\n", f.location.ToString(),
                 f.severity == RuleCheckFinding::Severity::kError ? "error" : "warning", f.rule_id, f.setting, f.message);
    }
    fmt::print("checked {} alternatives in {} models: {} rewritten, {} validated by ONNX, {} above opset {} (rewritten, "
               "not validated); {} errors, {} warnings\n",
               report.alternatives, report.models, report.rewritten, report.validated, report.beyond_onnx,
               KnownDefaultOpset(), report.errors(), report.findings.size() - report.errors());
  }
  return report.errors() == 0 ? kExitOk : kExitRuleError;
}

}  // namespace remap::cli
