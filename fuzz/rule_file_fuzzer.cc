// libFuzzer target: a rule file from arbitrary bytes, loaded as `--rules FILE
// --no-builtin` loads it (text format, rule and fragment checks, expression
// and template parsing, target resolution). Every problem must come back as
// an error value; a crash, leak or sanitizer report is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "rules/rule_set.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::pair<std::string, std::string>> files;
  files.emplace_back("fuzz.textproto", std::string(reinterpret_cast<const char*>(data), size));
  remap::RuleLoadResult loaded = remap::LoadRuleTexts(false, files);
  // Errors are one line each, "file:line:col: error: ..." or "file: error: ...".
  for (const std::string& e : loaded.errors) {
    if (e.empty() || e.rfind("fuzz.textproto", 0) != 0) std::abort();
  }
  return 0;
}
