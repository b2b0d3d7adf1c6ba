// Builds models for unit tests from ONNX text syntax.
#pragma once

#include <string>

#include <catch2/catch.hpp>
#include <onnx/defs/parser.h>
#include <onnx/onnx_pb.h>

#include "rules/rule_parser.h"
#include "rules/rule_set.h"

namespace remap::testing {

inline onnx::ModelProto ModelFromText(const std::string& text) {
  onnx::ModelProto model;
  auto status = onnx::OnnxParser::Parse(model, text.c_str());
  INFO(status.ErrorMessage());
  REQUIRE(status.IsOK());
  return model;
}

// A RuleSet holding only the rules of `text` (no built-ins).
inline RuleSet RulesFromText(const std::string& text) {
  RuleFileResult parsed = ParseRuleFile("test.textproto", text, false);
  INFO((parsed.errors.empty() ? std::string() : parsed.errors[0]));
  REQUIRE(parsed.errors.empty());
  RuleSet set;
  set.AddFragments(std::move(parsed.fragments));
  set.Add(std::move(parsed.rules));
  std::vector<std::string> errors;
  set.Check(&errors);
  INFO((errors.empty() ? std::string() : errors[0]));
  REQUIRE(errors.empty());
  return set;
}

inline std::string SourceDir() { return ONNX_REMAP_SOURCE_DIR; }

}  // namespace remap::testing
