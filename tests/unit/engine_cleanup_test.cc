// What happens around a rewritten node: outputs the signature does not return,
// and the constant / list producers that fed it.
#include <catch2/catch.hpp>

#include "engine/engine.h"
#include "test_models.h"

using namespace remap;
using testing::ModelFromText;
using testing::RulesFromText;

namespace {

const char* kRules = R"rule(
rule {
  id: "aten-asinh"
  match { aten: "asinh" }
  signature: "aten::asinh(Tensor self) -> Tensor"
  alternative { min_opset: 9 replace: "out = Asinh(self)" }
}
rule {
  id: "aten-tril"
  match { aten: "tril" }
  signature: "aten::tril(Tensor self, int diagonal=0) -> Tensor"
  alternative { min_opset: 14 replace: "k = Constant<value = ${diagonal}>()\n out = Trilu<upper = 0>(self, k)" }
}
rule {
  id: "aten-pick"
  match { aten: "pick" }
  signature: "aten::pick(Tensor[] tensors, Tensor self) -> Tensor"
  alternative { min_opset: 9 replace: "out = Identity(self)" }
}
rule {
  id: "aten-kaiser"
  match { aten: "kaiser" }
  signature: "aten::kaiser(Tensor self, Device? device=None) -> Tensor"
  alternative { min_opset: 9 replace: "out = Identity(self)" }
}
)rule";


}  // namespace

TEST_CASE("a node with outputs the signature does not return is refused when they are used", "[engine][outputs]") {
  RuleSet rules = RulesFromText(kRules);
  SECTION("a graph output") {
    auto model = ModelFromText(R"(
      < ir_version: 7, opset_import: ["" : 13, "org.pytorch.aten" : 1] >
      g (float[4] x) => (float[4] y, float[4] extra) {
        y, extra = org.pytorch.aten.ATen<operator = "asinh", overload_name = "">(x)
      })");
    auto report = RewriteModel(&model, rules, {});
    REQUIRE(report.ok());
    CHECK(report->rewritten.empty());
    REQUIRE(report->remaining.size() == 1);
    CHECK(report->remaining[0].reason == "[aten-asinh] the node has 2 outputs, the signature returns 1; output 'extra' is used");
    CHECK(model.graph().node(0).op_type() == "ATen");
  }
  SECTION("consumed inside a subgraph") {
    auto model = ModelFromText(R"(
      < ir_version: 7, opset_import: ["" : 13, "org.pytorch.aten" : 1] >
      g (bool cond, float[4] x) => (float[4] y, float[4] w) {
        y, extra = org.pytorch.aten.ATen<operator = "asinh", overload_name = "">(x)
        w = If(cond) <
          then_branch = t () => (float[4] a) { a = Relu(extra) },
          else_branch = e () => (float[4] b) { b = Relu(x) }
        >
      })");
    auto report = RewriteModel(&model, rules, {});
    REQUIRE(report.ok());
    REQUIRE(report->remaining.size() == 1);
    CHECK(report->remaining[0].reason.find("output 'extra' is used") != std::string::npos);
  }
  SECTION("unused extra outputs are dropped") {
    auto model = ModelFromText(R"(
      < ir_version: 7, opset_import: ["" : 13, "org.pytorch.aten" : 1] >
      g (float[4] x) => (float[4] y) {
        y, extra = org.pytorch.aten.ATen<operator = "asinh", overload_name = "">(x)
      })");
    auto report = RewriteModel(&model, rules, {});
    REQUIRE(report.ok());
    CHECK(report->rewritten.size() == 1);
    REQUIRE(model.graph().node_size() == 1);
    CHECK(model.graph().node(0).output_size() == 1);
  }
}
