// The rule self-check finds what a rule would get wrong on inputs it claims.
#include <catch2/catch.hpp>

#include "check/rule_check.h"
#include "test_models.h"

using namespace remap;
using testing::RulesFromText;

namespace {

std::vector<std::string> Messages(const RuleCheckReport& r, RuleCheckFinding::Severity severity) {
  std::vector<std::string> out;
  for (const auto& f : r.findings) {
    if (f.severity == severity) out.push_back(f.location.ToString() + ": " + f.setting + ": " + f.message);
  }
  return out;
}

}  // namespace

TEST_CASE("a sound rule passes the self-check, validated by ONNX", "[rule_check]") {
  RuleSet rules = RulesFromText(R"rule(
    rule {
      id: "aten-tril"
      match { aten: "tril" }
      signature: "aten::tril(Tensor self, int diagonal=0) -> Tensor"
      alternative { min_opset: 14 replace: "k = Constant<value = ${diagonal}>()\nout = Trilu<upper = 0>(self, k)" }
    })rule");
  RuleCheckReport report = CheckRules(rules, {});
  INFO((report.findings.empty() ? "" : report.findings[0].message));
  CHECK(report.findings.empty());
  CHECK(report.alternatives == 1);
  CHECK(report.validated > 0);
}

TEST_CASE("an op used below the opset that defines it is an error at the alternative", "[rule_check]") {
  RuleSet rules = RulesFromText(R"rule(
    rule {
      id: "aten-tril"
      match { aten: "tril" }
      signature: "aten::tril(Tensor self, int diagonal=0) -> Tensor"
      alternative { min_opset: 9 replace: "k = Constant<value = ${diagonal}>()\nout = Trilu<upper = 0>(self, k)" }
    })rule");
  RuleCheckReport report = CheckRules(rules, {});
  auto errors = Messages(report, RuleCheckFinding::Severity::kError);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].find("test.textproto:6:7: opset 9, float32") == 0);
  CHECK(errors[0].find("No Op registered for Trilu with domain_version of 9") != std::string::npos);
}

TEST_CASE("a float32 constant is a warning for float64 and float16 inputs", "[rule_check]") {
  RuleSet rules = RulesFromText(R"rule(
    rule {
      id: "custom-inc"
      match { domain: "custom" op_type: "inc" }
      signature: "custom::inc(Tensor x) -> Tensor"
      alternative { min_opset: 9 replace: "one = Constant<value = float {1}>()\nout = Add(x, one)" }
    })rule");
  RuleCheckReport report = CheckRules(rules, {});
  CHECK(report.errors() == 0);
  auto warnings = Messages(report, RuleCheckFinding::Severity::kWarning);
  REQUIRE(warnings.size() == 2);
  CHECK(warnings[0].find("float64") != std::string::npos);
  CHECK(warnings[1].find("float16") != std::string::npos);
}

TEST_CASE("emit errors: an error with the defaults, a warning for an unusual enum value", "[rule_check]") {
  auto check = [](const std::string& default_mode) {
    return CheckRules(RulesFromText(R"rule(
      rule {
        id: "custom-mode"
        match { domain: "custom" op_type: "mode" }
        signature: "custom::mode(Tensor x, int mode=)rule" + default_mode + R"rule() -> Tensor"
        alternative {
          min_opset: 9
          replace: "@if mode == 2:\n  out = Identity(${['a', 'b'][mode]})\n@else:\n  out = Identity(x)\n@end"
        }
      })rule"), {});
  };
  RuleCheckReport with_default = check("2");
  auto errors = Messages(with_default, RuleCheckFinding::Severity::kError);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].find("mode=2") != std::string::npos);
  CHECK(errors[0].find("out of range") != std::string::npos);

  RuleCheckReport variation = check("0");
  CHECK(variation.errors() == 0);
  auto warnings = Messages(variation, RuleCheckFinding::Severity::kWarning);
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].find("mode=2") != std::string::npos);
}
