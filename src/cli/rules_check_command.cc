// onnx-remap rules check [--rules PATH] [--rule ID]: the rule self-check.
// Prints one line per finding, `file:line:col: error|warning: [rule] setting: message`,
// then a summary; exit 0 when no error was found, 4 (rule file error) otherwise.
#include <fmt/core.h>

#include "check/rule_check.h"
#include "cli/commands.h"
#include "report/exit_codes.h"
#include "report/listing_builder.h"
#include "report/proto_json.h"
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
    fmt::print("{}", MessageToJson(RuleCheckSummaryOf(report), false));
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
