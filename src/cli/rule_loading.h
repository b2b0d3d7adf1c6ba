// Loads built-in and user rules for a command, printing rule errors.
#pragma once

#include <optional>
#include <string>

#include "cli/commands.h"
#include "rules/rule_set.h"

namespace remap::cli {

// Prints every rule error to stderr and returns nothing when there were any.
std::optional<RuleSet> LoadRulesOrReport(const RuleOptions& options,
                                         BuiltinCompile compile = BuiltinCompile::kAtLoad);

// The --target NAME the rules define, or nothing with `message` saying which exist.
const Target* FindTargetOrExplain(const RuleSet& rules, const std::string& name, std::string* message);

}  // namespace remap::cli
