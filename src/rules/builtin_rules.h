// The rule files of rules/, compiled into the binary (see cmake/EmbedRules.cmake),
// and what each one holds (see src/build_tools/rule_index_generator.cc).
#pragma once

#include <string_view>
#include <vector>

namespace remap {

struct EmbeddedRuleFile {
  const char* path;     // "rules/aten/asinh.textproto"
  const char* content;
};

const std::vector<EmbeddedRuleFile>& BuiltinRuleFiles();

// What a built-in rule file holds, read at build time by parsing it, so that
// a model run parses only the files whose rules its nodes can match.
struct BuiltinRuleFileIndex {
  const char* path;  // as in EmbeddedRuleFile
  // Parsed at every load: the file defines a target, or emits a domain under
  // every target (RuleSet::DomainsEmittedForEveryTarget); or it shares a match
  // key, or fragments, with such a file.
  bool eager;
  std::vector<const char*> keys;       // MatchKeyOf of each of its rules' matches
  std::vector<const char*> fragments;  // the fragments it defines
  // The other built-in files whose fragments its rules and fragments call,
  // directly or through other fragments.
  std::vector<const char*> needs;
  // The file as parsed at build time (rulefile::PrecompiledRuleFile's bytes),
  // for ParsePrecompiledRuleFile: reading it costs a small part of parsing
  // the text.
  std::string_view precompiled;
};

// One entry per built-in rule file; nullptr where there is no index (the
// generator itself), and every file is then parsed at load.
const std::vector<BuiltinRuleFileIndex>* BuiltinRuleIndex();

}  // namespace remap
