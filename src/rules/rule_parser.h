// Reads rule files (protobuf text format against proto/rules.proto) into Rules,
// reporting every problem as "file:line:col: error: message".
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "rules/fragment.h"
#include "rules/rule.h"
#include "rules/target.h"

namespace remap {

struct RuleFileResult {
  std::vector<std::unique_ptr<Rule>> rules;
  std::vector<std::unique_ptr<Fragment>> fragments;
  std::vector<std::unique_ptr<Target>> targets;
  std::vector<std::string> errors;  // "file:line:col: error: ..."
};

// `display_name` is used in messages; `text` is the file content. Target names
// listed by alternatives are only recorded here: they may name targets of other
// files, so LoadRules resolves them once every file is read.
// `defer`: the `when` and `replace` texts of rules and fragments are kept
// uncompiled (Rule::deferred), to be compiled by CompileDeferred when first
// used; their errors are then not reported here. Only for files known to
// compile (the built-in rules, which the tests compile).
RuleFileResult ParseRuleFile(const std::string& display_name, const std::string& text, bool builtin,
                             bool defer = false);

// Compiles what ParseRuleFile deferred; an error lands in the alternative's
// (fragment's) compile_error. Not thread-safe: RuleSet serialises the calls.
void CompileDeferred(Rule* rule);
void CompileDeferred(Fragment* fragment);

}  // namespace remap
