#include "cli/rule_loading.h"

#include <fmt/format.h>

namespace remap::cli {

std::optional<RuleSet> LoadRulesOrReport(const RuleOptions& options, BuiltinCompile compile) {
  RuleLoadResult loaded = LoadRules(!options.no_builtin, options.paths, compile);
  if (!loaded.errors.empty()) {
    for (const auto& e : loaded.errors) fmt::print(stderr, "{}\n", e);
    return std::nullopt;
  }
  return std::move(loaded.rules);
}

const Target* FindTargetOrExplain(const RuleSet& rules, const std::string& name, std::string* message) {
  const Target* t = rules.FindTarget(name);
  if (!t)
    *message = fmt::format("unknown target '{}' (known targets: {}; see 'onnx-remap rules targets')", name,
                           rules.TargetNames());
  return t;
}

}  // namespace remap::cli
