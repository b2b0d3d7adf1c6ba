// libFuzzer target: a rule file from arbitrary bytes, parsed as a --rules file
// is (text format, rules, fragments, targets, guard expressions, replacement
// templates), then put in a RuleSet and checked across its rules (fragment
// call cycles, domains). It calls ParseRuleFile rather than LoadRuleTexts,
// which parses every built-in rule file again on each call and would leave
// the fuzzer a few executions a second. Every problem must come back as an
// error value; a crash, leak or sanitizer report is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "rules/rule_parser.h"
#include "rules/rule_set.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  remap::RuleFileResult file = remap::ParseRuleFile("fuzz.textproto", text, false);
  // Errors are one line each, and name the file.
  for (const std::string& e : file.errors) {
    if (e.rfind("fuzz.textproto", 0) != 0) std::abort();
  }
  remap::RuleSet rules;
  for (auto& t : file.targets) rules.AddTarget(std::move(t));
  rules.AddFragments(std::move(file.fragments));
  rules.Add(std::move(file.rules));
  std::vector<std::string> errors;
  rules.Check(&errors);
  return 0;
}
