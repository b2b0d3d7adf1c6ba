// Runtime targets: parsing, load-time checks, classification per target and
// the skipping of alternatives meant for other targets.
#include <catch2/catch.hpp>

#include "engine/engine.h"
#include "match/node_form.h"
#include "rules/rule_parser.h"
#include "rules/target_check.h"
#include "test_models.h"

using namespace remap;
using testing::ModelFromText;
using testing::RulesFromText;

namespace {

const char* kInverseRule = R"rule(
rule {
  id: "aten-linalg-inv"
  match { aten: "linalg_inv" }
  signature: "aten::linalg_inv(Tensor A) -> Tensor"
  alternative {
    min_opset: 1
    target: "onnxruntime"
    import { domain: "com.microsoft" version: 1 }
    replace: "out = com.microsoft.Inverse(A)"
  }
}
)rule";

const char* kInverseModel = R"(
  < ir_version: 7, opset_import: ["" : 13, "org.pytorch.aten" : 1] >
  g (float[3, 3] x) => (float[3, 3] y) {
    y = org.pytorch.aten.ATen<operator = "linalg_inv", overload_name = "">(x)
  })";

onnx::NodeProto Node(const std::string& domain, const std::string& op_type) {
  onnx::NodeProto n;
  n.set_domain(domain);
  n.set_op_type(op_type);
  return n;
}

NodeForm::Kind KindUnder(const RuleSet& rules, const std::string& target, const onnx::NodeProto& node) {
  ClassifyContext context;
  context.target = rules.FindTarget(target);
  REQUIRE(context.target);
  context.emitted_domains = rules.DomainsEmittedForEveryTarget();
  return ClassifyNode(node, context).kind;
}

}  // namespace

TEST_CASE("a target block compiles into domains and ops", "[target]") {
  RuleFileResult r = ParseRuleFile("t.textproto", R"(
    target {
      name: "my-runtime"
      doc: "a runtime"
      domain: "com.example"
      op: "ai.onnx::MyNms"
      op: "::MyRoiAlign"
      op: "trt.plugins::MyRoiAlign"
    })", false);
  REQUIRE(r.errors.empty());
  REQUIRE(r.targets.size() == 1);
  const Target& t = *r.targets[0];
  CHECK(t.name == "my-runtime");
  CHECK(t.location.ToString() == "t.textproto:2:5");
  CHECK(t.Runs("com.example", "Anything"));
  CHECK(t.Runs("", "MyNms"));  // ai.onnx is the default domain
  CHECK(t.Runs("ai.onnx", "MyRoiAlign"));
  CHECK(t.Runs("trt.plugins", "MyRoiAlign"));
  CHECK_FALSE(t.Runs("trt.plugins", "MyNms"));
  CHECK_FALSE(t.Runs("com.other", "Anything"));
}

TEST_CASE("built-in targets load even without built-in rules", "[target]") {
  RuleLoadResult loaded = LoadRules(false, {});
  REQUIRE(loaded.errors.empty());
  CHECK(loaded.rules.All().empty());
  CHECK(loaded.rules.TargetNames() == "onnx, onnxruntime, tensorrt");
  const Target* ort = loaded.rules.FindTarget("onnxruntime");
  REQUIRE(ort);
  CHECK(ort->builtin);
  CHECK(ort->Runs("com.microsoft", "Inverse"));
  CHECK_FALSE(loaded.rules.FindTarget("onnx")->Runs("com.microsoft", "Inverse"));
  CHECK(loaded.rules.FindTarget("tensorrt")->Runs("", "EfficientNMS_TRT"));
}

TEST_CASE("a built-in alternative emitting a custom domain must list its targets", "[target]") {
  RuleFileResult r = ParseRuleFile("rules/aten/inv.textproto", R"rule(
    rule {
      id: "aten-linalg-inv"
      match { aten: "linalg_inv" }
      signature: "aten::linalg_inv(Tensor A) -> Tensor"
      alternative {
        min_opset: 1
        import { domain: "com.microsoft" version: 1 }
        replace: "out = com.microsoft.Inverse(A)"
      }
    })rule", true);
  REQUIRE(r.errors.empty());
  RuleSet targets = RulesFromText("target { name: \"unused\" }");
  std::vector<std::string> errors;
  CheckAlternativeTargets(*r.rules[0], [&](const std::string& n) { return targets.FindTarget(n); }, targets.TargetNames(),
                          &errors);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].rfind("rules/aten/inv.textproto:9:9: error: replace emits com.microsoft::Inverse", 0) == 0);

  // The same alternative in a user rule is fine: its domain runs everywhere.
  RuleSet user = RulesFromText(R"rule(
    rule {
      id: "inv-plugin"
      match { aten: "linalg_inv" }
      signature: "aten::linalg_inv(Tensor A) -> Tensor"
      alternative { min_opset: 1 import { domain: "com.example" version: 1 } replace: "out = com.example.Inv(A)" }
    })rule");
  CHECK(user.DomainsEmittedForEveryTarget() == std::vector<std::string>{"com.example"});
  CHECK(KindUnder(user, "onnx", Node("com.example", "Inv")) == NodeForm::Kind::kStandard);
}

TEST_CASE("classification follows the target", "[target]") {
  RuleSet rules = RulesFromText(kInverseRule);
  const auto inverse = Node("com.microsoft", "Inverse");
  CHECK(KindUnder(rules, "onnx", inverse) == NodeForm::Kind::kCustom);
  CHECK(KindUnder(rules, "onnxruntime", inverse) == NodeForm::Kind::kStandard);
  CHECK(KindUnder(rules, "tensorrt", inverse) == NodeForm::Kind::kCustom);
  // A domain emitted only by a targeted alternative is not runnable elsewhere.
  CHECK(rules.DomainsEmittedForEveryTarget().empty());

  const auto nms = Node("", "EfficientNMS_TRT");
  CHECK(KindUnder(rules, "onnx", nms) == NodeForm::Kind::kCustom);
  CHECK(KindUnder(rules, "tensorrt", nms) == NodeForm::Kind::kStandard);
  CHECK(KindUnder(rules, "tensorrt", Node("trt.plugins", "EfficientNMS_TRT")) == NodeForm::Kind::kStandard);

  for (const char* target : {"onnx", "onnxruntime", "tensorrt"})
    CHECK(KindUnder(rules, target, Node("", "Relu")) == NodeForm::Kind::kStandard);
  const auto tree = Node("ai.onnx.ml", "TreeEnsembleClassifier");
  CHECK(KindUnder(rules, "onnx", tree) == NodeForm::Kind::kStandard);
  CHECK(KindUnder(rules, "onnxruntime", tree) == NodeForm::Kind::kStandard);
  CHECK(KindUnder(rules, "tensorrt", tree) == NodeForm::Kind::kCustom);  // the parser has no ONNX-ML importers
}

TEST_CASE("alternatives for other targets are skipped, with the reason", "[target]") {
  RuleSet rules = RulesFromText(kInverseRule);
  SECTION("default target onnx: left, naming the target") {
    auto model = ModelFromText(kInverseModel);
    auto report = RewriteModel(&model, rules, {});
    REQUIRE(report.ok());
    REQUIRE(report->remaining.size() == 1);
    CHECK(report->remaining[0].reason ==
          "[aten-linalg-inv] test.textproto:6:3: for targets onnxruntime only (target is onnx)");
    CHECK(report->remaining[0].needs_opset == 0);
  }
  SECTION("target onnxruntime: rewritten to com.microsoft::Inverse") {
    auto model = ModelFromText(kInverseModel);
    RewriteOptions options;
    options.target_name = "onnxruntime";
    auto report = RewriteModel(&model, rules, options);
    REQUIRE(report.ok());
    REQUIRE(report->rewritten.size() == 1);
    CHECK(report->rewritten[0].emitted == std::vector<std::string>{"com.microsoft::Inverse"});
    CHECK(model.graph().node(0).domain() == "com.microsoft");
  }
  SECTION("a Target given directly") {
    auto model = ModelFromText(kInverseModel);
    RewriteOptions options;
    options.target_name = "ignored";
    options.target = rules.FindTarget("onnxruntime");
    auto report = RewriteModel(&model, rules, options);
    REQUIRE(report.ok());
    CHECK(report->rewritten.size() == 1);
  }
  SECTION("an unknown target is a usage error") {
    auto model = ModelFromText(kInverseModel);
    RewriteOptions options;
    options.target_name = "ort";
    auto report = RewriteModel(&model, rules, options);
    REQUIRE_FALSE(report.ok());
    CHECK(report.status().code() == ErrorCode::kUsage);
    CHECK(report.status().message() == "unknown target 'ort' (known targets: onnx, onnxruntime, tensorrt)");
  }
}

TEST_CASE("a user target makes its domain runnable and can be listed by alternatives", "[target]") {
  RuleSet rules = RulesFromText(R"rule(
    target { name: "mmcv-ort" doc: "onnxruntime with mmcv's custom ops" domain: "com.microsoft" domain: "mmcv" }
    rule {
      id: "deform-mmcv"
      match { domain: "custom" op_type: "deform" }
      signature: "custom::deform(Tensor x) -> Tensor"
      alternative { min_opset: 1 target: "mmcv-ort" import { domain: "mmcv" version: 1 } replace: "out = mmcv.Deform(x)" }
    })rule");
  CHECK(KindUnder(rules, "mmcv-ort", Node("mmcv", "Deform")) == NodeForm::Kind::kStandard);
  CHECK(KindUnder(rules, "onnxruntime", Node("mmcv", "Deform")) == NodeForm::Kind::kCustom);
}
