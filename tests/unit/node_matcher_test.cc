// Choosing among a rule's alternatives when the preferred one fails to emit.
#include <catch2/catch.hpp>

#include "engine/engine.h"
#include "test_models.h"

using namespace remap;
using testing::ModelFromText;
using testing::RulesFromText;

namespace {

// For i = 0 all three alternatives fit; for i = 5 the first one's ${...}
// fails at emission (index out of range).
const char* kRules = R"rule(
rule {
  id: "aten-sel"
  match { aten: "sel" }
  signature: "aten::sel(Tensor self, int i) -> Tensor"
  alternative { min_opset: 9 replace: "out = Identity(self)" }
  alternative { min_opset: 11 replace: "out = Neg(self)\n k = Constant<value = ${[1.0, 2.0][i]}>()" }
  alternative { min_opset: 11 replace: "out = Abs(self)" }
}
rule {
  id: "aten-bad"
  match { aten: "bad" }
  signature: "aten::bad(Tensor self, int i) -> Tensor"
  alternative { min_opset: 9 replace: "out = Constant<value = ${[1][i]}>()" }
  alternative { min_opset: 11 replace: "out = Constant<value = ${[1, 2][i]}>()" }
}
)rule";

// Rewrites a one-node model `op`(x, i) and returns the op types left.
std::vector<std::string> Rewrite(const std::string& op, int64_t i, RewriteReport* report) {
  RuleSet rules = RulesFromText(kRules);
  auto model = ModelFromText(R"(
    < ir_version: 7, opset_import: ["" : 13, "org.pytorch.aten" : 1] >
    g (float[2] x) => (float[2] y) {
      c = Constant<value = int64 {)" + std::to_string(i) + R"(}>()
      y = org.pytorch.aten.ATen<operator = ")" + op + R"(", overload_name = "">(x, c)
    })");
  auto result = RewriteModel(&model, rules, {});
  REQUIRE(result.ok());
  *report = *result;
  std::vector<std::string> out;
  for (const auto& n : model.graph().node()) out.push_back(n.op_type());
  return out;
}

size_t Count(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("the preferred alternative wins when it emits", "[matcher]") {
  RewriteReport report;
  // Highest min_opset first; of the two at 11, the first in the file.
  CHECK(Rewrite("sel", 0, &report) == std::vector<std::string>{"Neg", "Constant"});
  REQUIRE(report.rewritten.size() == 1);
  CHECK(report.rewritten[0].rule_location.line == 7);
}

TEST_CASE("an alternative that fails to emit gives way to the next fitting one", "[matcher]") {
  RewriteReport report;
  // The first opset-11 alternative fails; the second opset-11 one is next, before opset 9.
  CHECK(Rewrite("sel", 5, &report) == std::vector<std::string>{"Abs"});
  REQUIRE(report.rewritten.size() == 1);
  CHECK(report.rewritten[0].rule_location.line == 8);
  CHECK(report.remaining.empty());
}

TEST_CASE("when every fitting alternative fails to emit, every reason is reported", "[matcher]") {
  RewriteReport report;
  CHECK(Rewrite("bad", 5, &report) == std::vector<std::string>{"Constant", "ATen"});
  REQUIRE(report.remaining.size() == 1);
  const std::string& reason = report.remaining[0].reason;
  CHECK(Count(reason, "is out of range") == 2);
  // Tried in preference order: the opset-11 alternative (line 15) first.
  CHECK(reason.find("index 5 is out of range for [1, 2]") < reason.find("index 5 is out of range for [1]"));
}

namespace {

// aten::svd has no standard form; aten::inv has one only for a runtime, and
// says why the standard target has none.
const char* kNoStandardFormRules = R"rule(
rule {
  id: "aten-svd"
  match { aten: "svd" }
  signature: "aten::svd(Tensor self, int i) -> Tensor"
  no_standard_form: "needs an iterative eigen-solver"
}
rule {
  id: "aten-inv"
  match { aten: "inv" }
  signature: "aten::inv(Tensor self, int i) -> Tensor"
  no_standard_form: "no matrix inverse op"
  alternative { min_opset: 1 target: "onnxruntime" import { domain: "com.microsoft" version: 1 } replace: "out = com.microsoft.Inverse(self)" }
}
)rule";

// With the built-in rules, for their targets.
RuleSet WithBuiltins(const char* text) {
  RuleLoadResult loaded = LoadRuleTexts(true, {{"test.textproto", text}});
  REQUIRE(loaded.errors.empty());
  return std::move(loaded.rules);
}

RewriteReport RewriteWith(const char* rules_text, const std::string& op, const std::string& target) {
  RuleSet rules = WithBuiltins(rules_text);
  auto model = ModelFromText(R"(
    < ir_version: 7, opset_import: ["" : 13, "org.pytorch.aten" : 1] >
    g (float[2,2] x) => (float[2,2] y) {
      c = Constant<value = int64 {0}>()
      y = org.pytorch.aten.ATen<operator = ")" + op + R"(", overload_name = "">(x, c)
    })");
  RewriteOptions options;
  options.target = rules.FindTarget(target);
  REQUIRE(options.target);
  auto result = RewriteModel(&model, rules, options);
  REQUIRE(result.ok());
  return *result;
}

}  // namespace

TEST_CASE("a rule without a standard form refuses the node and says why", "[matcher]") {
  RewriteReport report = RewriteWith(kNoStandardFormRules, "svd", "onnx");
  REQUIRE(report.rewritten.empty());
  REQUIRE(report.remaining.size() == 1);
  const NodeOutcome& n = report.remaining[0];
  CHECK(n.refusal == Refusal::kNoStandardForm);
  CHECK(n.refused_by == "aten-svd");
  CHECK(n.reason == "aten::svd has no standard ONNX equivalent: needs an iterative eigen-solver");
  CHECK(std::string(RefusalName(n.refusal)) == "no-standard-form");
}

TEST_CASE("no_standard_form speaks for the standard target, the runtime's alternative still applies", "[matcher]") {
  RewriteReport onnx = RewriteWith(kNoStandardFormRules, "inv", "onnx");
  REQUIRE(onnx.remaining.size() == 1);
  CHECK(onnx.remaining[0].refusal == Refusal::kNoStandardForm);
  CHECK(Count(onnx.remaining[0].reason, "has no standard ONNX equivalent: no matrix inverse op") == 1);
  CHECK(Count(onnx.remaining[0].reason, "for targets onnxruntime only") == 1);

  RewriteReport ort = RewriteWith(kNoStandardFormRules, "inv", "onnxruntime");
  CHECK(ort.remaining.empty());
  REQUIRE(ort.rewritten.size() == 1);
  CHECK(ort.rewritten[0].rule == "aten-inv");
}
