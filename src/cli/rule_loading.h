// Loads built-in and user rules for a command, printing rule errors.
#pragma once

#include <optional>

#include "cli/commands.h"
#include "rules/rule_set.h"

namespace remap::cli {

// Prints every rule error to stderr and returns nothing when there were any.
std::optional<RuleSet> LoadRulesOrReport(const RuleOptions& options);

}  // namespace remap::cli
