// The rule files of rules/, compiled into the binary (see cmake/EmbedRules.cmake).
#pragma once

#include <vector>

namespace remap {

struct EmbeddedRuleFile {
  const char* path;     // "rules/aten/asinh.textproto"
  const char* content;
};

const std::vector<EmbeddedRuleFile>& BuiltinRuleFiles();

}  // namespace remap
