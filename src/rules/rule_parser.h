// Reads rule files (protobuf text format against proto/rules.proto) into Rules,
// reporting every problem as "file:line:col: error: message".
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "proto/precompiled_rules.pb.h"
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

// A built-in file from its precompiled form (BuiltinRuleFileIndex::precompiled,
// made by ParseRuleText at build time): the same result as ParseRuleFile of
// `text`, without parsing the text again. `text` is still read, for the places
// of errors inside its string fields.
RuleFileResult ParsePrecompiledRuleFile(const std::string& display_name, const std::string& text,
                                        std::string_view precompiled, bool defer);

// The parse alone: the file's message and where each of its fields was. On
// failure appends "file:line:col: error: ..." lines and returns false.
bool ParseRuleText(const std::string& display_name, const std::string& text, rulefile::PrecompiledRuleFile* parsed,
                   std::vector<std::string>* errors);

// Compiles what ParseRuleFile deferred; an error lands in the alternative's
// (fragment's) compile_error. Not thread-safe: RuleSet serialises the calls.
void CompileDeferred(Rule* rule);
void CompileDeferred(Fragment* fragment);

}  // namespace remap
