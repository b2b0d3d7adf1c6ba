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

std::vector<std::string> OpNames(const google::protobuf::RepeatedPtrField<onnx::NodeProto>& nodes) {
  std::vector<std::string> out;
  for (const auto& n : nodes) out.push_back(n.domain().empty() ? n.op_type() : n.domain() + "::" + n.op_type());
  return out;
}

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

TEST_CASE("list and constant producers that fed only rewritten nodes are removed", "[engine][cleanup]") {
  RuleSet rules = RulesFromText(kRules);
  SECTION("SequenceConstruct, and the Constant that fed only it") {
    auto model = ModelFromText(R"(
      < ir_version: 7, opset_import: ["" : 13, "org.pytorch.aten" : 1] >
      g (float[2] x) => (float[2] y) {
        c = Constant<value = float[2] {1, 2}>()
        s = SequenceConstruct(x, c)
        y = org.pytorch.aten.ATen<operator = "pick", overload_name = "">(s, x)
      })");
    auto report = RewriteModel(&model, rules, {});
    REQUIRE(report.ok());
    CHECK(report->remaining.empty());
    CHECK(OpNames(model.graph().node()) == std::vector<std::string>{"Identity"});
  }
  SECTION("prim::ListConstruct at opset 10: removed, and not reported as unmapped") {
    auto model = ModelFromText(R"(
      < ir_version: 5, opset_import: ["" : 10, "org.pytorch.aten" : 1, "prim" : 1] >
      g (float[2] x, float[2] w) => (float[2] y, float[2] v) {
        l = prim.ListConstruct(x, w)
        y = org.pytorch.aten.ATen<operator = "pick", overload_name = "">(l, x)
        v = Relu(w)
      })");
    auto report = RewriteModel(&model, rules, {});
    REQUIRE(report.ok());
    CHECK(report->rewritten.size() == 1);
    CHECK(report->remaining.empty());
    CHECK(OpNames(model.graph().node()) == std::vector<std::string>{"Identity", "Relu"});
    for (const auto& op : model.opset_import()) CHECK(op.domain() != "prim");
  }
  SECTION("prim::Constant (a Device argument) is removed; prim::Constant scalars are read") {
    auto model = ModelFromText(R"(
      < ir_version: 7, opset_import: ["" : 14, "org.pytorch.aten" : 1, "prim" : 1] >
      g (float[3,3] x) => (float[3,3] y, float[3,3] z) {
        d = prim.Constant<value = "cpu">()
        y = org.pytorch.aten.ATen<operator = "kaiser", overload_name = "">(x, d)
        n = prim.Constant<value = int64 {-1}>()
        z = org.pytorch.aten.ATen<operator = "tril", overload_name = "">(x, n)
      })");
    auto report = RewriteModel(&model, rules, {});
    REQUIRE(report.ok());
    CHECK(report->rewritten.size() == 2);
    CHECK(report->remaining.empty());
    CHECK(OpNames(model.graph().node()) == std::vector<std::string>{"Identity", "Constant", "Trilu"});
    CHECK(model.graph().node(1).attribute(0).t().int64_data(0) == -1);
  }
  SECTION("dead producers go, and a node of the model's own without op_type stays") {
    // Dead nodes are emptied when they die; an empty node the model brought is no dead one.
    auto model = ModelFromText(R"(
      < ir_version: 7, opset_import: ["" : 14, "org.pytorch.aten" : 1] >
      g (float[3,3] x) => (float[3,3] y, float[3,3] z) {
        n = Constant<value = int64 {-1}>()
        y = org.pytorch.aten.ATen<operator = "tril", overload_name = "">(x, n)
        z = Relu(x)
      })");
    onnx::NodeProto* bare = model.mutable_graph()->add_node();
    bare->add_input("x");
    bare->add_output("w");
    auto report = RewriteModel(&model, rules, {});
    REQUIRE(report.ok());
    CHECK(report->rewritten.size() == 1);
    REQUIRE(OpNames(model.graph().node()) == std::vector<std::string>{"Constant", "Trilu", "Relu", ""});
    CHECK(model.graph().node(3).output(0) == "w");
  }
  SECTION("a producer something else still uses stays, and so do its inputs") {
    auto model = ModelFromText(R"(
      < ir_version: 7, opset_import: ["" : 13, "org.pytorch.aten" : 1] >
      g (float[2] x) => (float[2] y, int64 n) {
        c = Constant<value = float[2] {1, 2}>()
        s = SequenceConstruct(x, c)
        y = org.pytorch.aten.ATen<operator = "pick", overload_name = "">(s, x)
        n = SequenceLength(s)
      })");
    auto report = RewriteModel(&model, rules, {});
    REQUIRE(report.ok());
    CHECK(OpNames(model.graph().node()) == std::vector<std::string>{"Constant", "SequenceConstruct", "Identity", "SequenceLength"});
  }
  SECTION("a Constant of another domain is neither read nor removed") {
    auto model = ModelFromText(R"(
      < ir_version: 7, opset_import: ["" : 14, "org.pytorch.aten" : 1, "custom" : 1] >
      g (float[2] x) => (float[2] y) {
        c = custom.Constant<value = "cpu">()
        y = org.pytorch.aten.ATen<operator = "kaiser", overload_name = "">(x, c)
      })");
    auto report = RewriteModel(&model, rules, {});
    REQUIRE(report.ok());
    CHECK(report->rewritten.size() == 1);
    REQUIRE(report->remaining.size() == 1);
    CHECK(report->remaining[0].reason == "no rule for custom::Constant");
    CHECK(OpNames(model.graph().node()) == std::vector<std::string>{"custom::Constant", "Identity"});
  }
  SECTION("in a model-local function's If branch too") {
    auto model = ModelFromText(R"(
      < ir_version: 8, opset_import: ["" : 15, "local" : 1] >
      g (bool b, float[3,3] x) => (float[3,3] y) {
        y = local.Block(b, x)
      }
      < domain: "local", opset_import: ["" : 15, "org.pytorch.aten" : 1] >
      Block (cond, a) => (r) {
        r = If(cond) <
          then_branch = t () => (float[3,3] p) {
            d = Constant<value = int64 {1}>()
            p = org.pytorch.aten.ATen<operator = "tril", overload_name = "">(a, d)
          },
          else_branch = e () => (float[3,3] q) { q = Relu(a) }
        >
      })");
    auto report = RewriteModel(&model, rules, {});
    REQUIRE(report.ok());
    CHECK(report->rewritten.size() == 1);
    const auto& then_branch = model.functions(0).node(0).attribute(0).g();
    CHECK(OpNames(then_branch.node()) == std::vector<std::string>{"Constant", "Trilu"});
  }
}
