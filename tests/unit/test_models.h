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

// A RuleSet holding only the rules of `text` (no built-in rules; the built-in
// targets, which every rewrite needs).
inline RuleSet RulesFromText(const std::string& text) {
  RuleLoadResult loaded = LoadRuleTexts(false, {{"test.textproto", text}});
  INFO((loaded.errors.empty() ? std::string() : loaded.errors[0]));
  REQUIRE(loaded.errors.empty());
  return std::move(loaded.rules);
}

// Rules several tests use: an ATen asinh as Asinh, and an ATen logit with an
// eps as its standard decomposition.
inline constexpr const char* kAsinhRule = R"rule(
rule {
  id: "aten-asinh"
  match { aten: "asinh" }
  signature: "aten::asinh(Tensor self) -> Tensor"
  alternative { min_opset: 9 replace: "out = Asinh(self)" }
}
)rule";
inline constexpr const char* kLogitRule = R"rule(
rule {
  id: "aten-logit"
  match { aten: "logit" }
  signature: "aten::logit(Tensor self, float? eps=None) -> Tensor"
  alternative {
    min_opset: 11
    when: "eps is not None"
    replace: "lo = Constant<value = ${eps}>()\n hi = Constant<value = ${1.0 - eps}>()\n z = Clip(self, lo, hi)\n"
             "one = Constant<value = ${1.0}>()\n d = Sub(one, z)\n r = Div(z, d)\n out = Log(r)"
  }
}
)rule";

// y = Add(x, w) with the initializer w (float[2]) stored as external data at `location`.
inline onnx::ModelProto ModelWithExternalWeight(const std::string& location) {
  auto model = ModelFromText(
      R"(< ir_version: 8, opset_import: ["" : 13] > g (float[2] x) => (float[2] y) { y = Add(x, w) })");
  auto* w = model.mutable_graph()->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(2);
  w->set_data_location(onnx::TensorProto::EXTERNAL);
  auto* loc = w->add_external_data();
  loc->set_key("location");
  loc->set_value(location);
  return model;
}

inline std::string SourceDir() { return ONNX_REMAP_SOURCE_DIR; }

// The folder of the committed corpus fixtures, with a trailing slash.
inline std::string CorpusFixtures() { return SourceDir() + "/tests/fixtures/corpus/"; }

// The built-in rules, loaded once per test process.
inline const RuleSet& BuiltinRules() {
  static const RuleSet rules = [] {
    RuleLoadResult loaded = LoadRules(true, {});
    REQUIRE(loaded.errors.empty());
    return std::move(loaded.rules);
  }();
  return rules;
}

}  // namespace remap::testing
