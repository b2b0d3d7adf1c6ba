#include "cli/rule_loading.h"

#include <fmt/core.h>

namespace remap::cli {

std::optional<RuleSet> LoadRulesOrReport(const RuleOptions& options) {
  RuleLoadResult loaded = LoadRules(!options.no_builtin, options.paths);
  if (!loaded.errors.empty()) {
    for (const auto& e : loaded.errors) fmt::print(stderr, "{}\n", e);
    return std::nullopt;
  }
  return std::move(loaded.rules);
}

}  // namespace remap::cli
