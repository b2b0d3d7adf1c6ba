#include <string>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/engine.h"
#include "model/opset_import.h"
#include "test_models.h"

using namespace remap;
using testing::ModelFromText;
using testing::RulesFromText;

namespace {

const std::string kRules = std::string(testing::kAsinhRule) + testing::kLogitRule + R"rule(
rule {
  id: "aten-tril"
  match { aten: "tril" }
  signature: "aten::tril(Tensor self, int diagonal=0) -> Tensor"
  alternative { min_opset: 14 replace: "k = Constant<value = ${diagonal}>()\n out = Trilu<upper = 0>(self, k)" }
}
rule {
  id: "custom-pool"
  match { domain: "custom" op_type: "pool" }
  signature: "custom::pool(Tensor x, int[2] k, int mode) -> Tensor"
  alternative {
    min_opset: 11
    replace: "out = MaxPool<kernel_shape = ${k}, pads = ${[0, 0] + [0, 0]}, auto_pad = ${['NOTSET', 'VALID'][mode]}>(x)"
  }
}
)rule";

std::vector<std::string> OpTypes(const google::protobuf::RepeatedPtrField<onnx::NodeProto>& nodes) {
  std::vector<std::string> out;
  for (const auto& n : nodes) out.push_back(n.op_type());
  return out;
}

bool Imports(const onnx::ModelProto& m, const std::string& domain) {
  for (const auto& op : m.opset_import()) {
    if (op.domain() == domain) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("ATen fallback with a Constant scalar: rewritten, constant removed, opset fixed", "[engine]") {
  RuleSet rules = RulesFromText(kRules);
  auto model = ModelFromText(R"(
    < ir_version: 7, opset_import: ["" : 13, "org.pytorch.aten" : 1] >
    g (float[4] x) => (float[4] y) {
      c = Constant<value = double {0.001}>()
      a = Relu(x)
      y0 = org.pytorch.aten.ATen<operator = "logit", overload_name = "">(a, c)
      y = Neg(y0)
    })");
  auto report = RewriteModel(&model, rules, {});
  REQUIRE(report.ok());
  REQUIRE(report->rewritten.size() == 1);
  CHECK(report->remaining.empty());
  CHECK(report->rewritten[0].rule == "aten-logit");
  // The float64 Constant fed only the ATen node: gone. Order stays topological.
  CHECK(OpTypes(model.graph().node()) ==
        std::vector<std::string>{"Relu", "Constant", "Constant", "Clip", "Constant", "Sub", "Div", "Log", "Neg"});
  CHECK(model.graph().node(7).output(0) == "y0");  // the ATen node's output name is kept
  CHECK_FALSE(Imports(model, "org.pytorch.aten"));
  // Bound float became a float32 tensor attribute.
  const auto& lo = model.graph().node(1).attribute(0);
  CHECK(lo.t().data_type() == onnx::TensorProto::FLOAT);
  CHECK(lo.t().float_data(0) == Approx(0.001f));
}

TEST_CASE("a scalar argument computed at run time is refused with a reason", "[engine]") {
  RuleSet rules = RulesFromText(kRules);
  auto model = ModelFromText(R"(
    < ir_version: 7, opset_import: ["" : 13, "org.pytorch.aten" : 1] >
    g (float[4] x, double e) => (float[4] y) {
      y = org.pytorch.aten.ATen<operator = "logit", overload_name = "">(x, e)
    })");
  auto report = RewriteModel(&model, rules, {});
  REQUIRE(report.ok());
  REQUIRE(report->remaining.size() == 1);
  CHECK(report->remaining[0].reason.find("argument 'eps' is not a constant: it is the graph input 'e'") != std::string::npos);
  CHECK(Imports(model, "org.pytorch.aten"));
}

TEST_CASE("typed attributes, custom domains and list arguments", "[engine]") {
  RuleSet rules = RulesFromText(kRules);
  auto model = ModelFromText(R"(
    < ir_version: 7, opset_import: ["" : 13, "custom" : 1, "org.pytorch.aten" : 1] >
    g (float[1,1,4,4] x) => (float[1,1,2,2] y, float[1,1,4,4] z) {
      y = custom.pool<k = [2, 2], mode = 1>(x)
      z = org.pytorch.aten.ATen<operator = "asinh", overload_name = "">(x)
    })");
  auto report = RewriteModel(&model, rules, {});
  REQUIRE(report.ok());
  CHECK(report->rewritten.size() == 2);
  const auto& pool = model.graph().node(0);
  CHECK(pool.op_type() == "MaxPool");
  REQUIRE(pool.attribute_size() == 3);
  CHECK(pool.attribute(0).ints_size() == 2);
  CHECK(pool.attribute(1).ints_size() == 4);
  CHECK(pool.attribute(2).s() == "VALID");
  CHECK_FALSE(Imports(model, "custom"));
  CHECK_FALSE(Imports(model, "org.pytorch.aten"));
}

TEST_CASE("nodes inside If branches are rewritten, outer constants cleaned up", "[engine]") {
  RuleSet rules = RulesFromText(kRules);
  auto model = ModelFromText(R"(
    < ir_version: 7, opset_import: ["" : 14, "org.pytorch.aten" : 1] >
    g (bool cond, float[3,3] x) => (float[3,3] y) {
      d = Constant<value = int64 {1}>()
      y = If(cond) <
        then_branch = t () => (float[3,3] a) { a = org.pytorch.aten.ATen<operator = "asinh", overload_name = "">(x) },
        else_branch = e () => (float[3,3] b) { b = org.pytorch.aten.ATen<operator = "tril", overload_name = "">(x, d) }
      >
    })");
  auto report = RewriteModel(&model, rules, {});
  REQUIRE(report.ok());
  CHECK(report->rewritten.size() == 2);
  CHECK(report->remaining.empty());
  CHECK(report->rewritten[0].graph == "g/.then_branch");
  REQUIRE(model.graph().node_size() == 1);  // the outer Constant fed only the tril node
  const auto& if_node = model.graph().node(0);
  CHECK(if_node.attribute(0).g().node(0).op_type() == "Asinh");
  CHECK(OpTypes(if_node.attribute(1).g().node()) == std::vector<std::string>{"Constant", "Trilu"});
}

TEST_CASE("model-local functions are rewritten in their own scope", "[engine]") {
  RuleSet rules = RulesFromText(kRules);
  auto model = ModelFromText(R"(
    < ir_version: 8, opset_import: ["" : 15, "org.pytorch.aten" : 1, "local" : 1] >
    g (float[4] x) => (float[4] y) {
      y = local.Block(x)
    }
    < domain: "local", opset_import: ["" : 15, "org.pytorch.aten" : 1] >
    Block (a) => (b) {
      t = Relu(a)
      b = org.pytorch.aten.ATen<operator = "asinh", overload_name = "">(t)
    })");
  auto report = RewriteModel(&model, rules, {});
  REQUIRE(report.ok());
  REQUIRE(report->rewritten.size() == 1);
  CHECK(report->rewritten[0].graph == "function local::Block");
  CHECK(OpTypes(model.functions(0).node()) == std::vector<std::string>{"Relu", "Asinh"});
  CHECK(report->remaining.empty());  // the call to local::Block is not an unmapped node
  for (const auto& op : model.functions(0).opset_import()) CHECK(op.domain() != "org.pytorch.aten");
  CHECK_FALSE(Imports(model, "org.pytorch.aten"));
}

TEST_CASE("opset: too low is reported, --opset raises when safe, refuses when not", "[engine][opset]") {
  RuleSet rules = RulesFromText(kRules);
  const char* text = R"(
    < ir_version: 7, opset_import: ["" : 13, "org.pytorch.aten" : 1] >
    g (float[3,3] x) => (float[3,3] y) {
      a = Relu(x)
      d = Constant<value = int64 {1}>()
      y = org.pytorch.aten.ATen<operator = "tril", overload_name = "">(a, d)
    })";
  auto low = ModelFromText(text);
  auto report = RewriteModel(&low, rules, {});
  REQUIRE(report.ok());
  REQUIRE(report->remaining.size() == 1);
  CHECK(report->remaining[0].needs_opset == 14);
  CHECK(report->remaining[0].reason.find("needs opset 14 (target is 13; --opset 14 allows raising it)") != std::string::npos);

  auto raised = ModelFromText(text);
  RewriteOptions options;
  options.target_opset = 14;
  report = RewriteModel(&raised, rules, options);
  REQUIRE(report.ok());
  CHECK(report->remaining.empty());
  CHECK(DefaultOpset(raised.opset_import()) == 14);

  // Raising converts the nodes whose operator changed on the way: ReduceMean's axes become an input at 18.
  auto reduce = ModelFromText(R"(
    < ir_version: 7, opset_import: ["" : 13] >
    g (float[3,3] x) => (float[3] y) {
      y = ReduceMean<keepdims = 0, axes = [1]>(x)
    })");
  options.target_opset = 18;
  auto converted = RewriteModel(&reduce, rules, options);
  REQUIRE(converted.ok());
  CHECK(DefaultOpset(reduce.opset_import()) == 18);
  REQUIRE(reduce.graph().node_size() == 2);
  CHECK(reduce.graph().node(0).op_type() == "Constant");
  CHECK(reduce.graph().node(1).input_size() == 2);
  CHECK(reduce.graph().node(1).attribute_size() == 1);  // keepdims only

  // A node that cannot be carried across is refused by name, and the model is left as it was.
  auto scan = ModelFromText(R"(
    < ir_version: 3, opset_import: ["" : 8] >
    g (float[2,3] x) => (float[2,3] y) {
      y = Relu(x)
    })");
  onnx::NodeProto* node = scan.mutable_graph()->mutable_node(0);
  node->set_op_type("Scan");
  node->set_name("the_scan");
  const std::string before = scan.SerializeAsString();
  options.target_opset = 9;
  auto refused = RewriteModel(&scan, rules, options);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.status().code() == ErrorCode::kOpsetRefused);
  CHECK(refused.status().message().find("'the_scan' (Scan)") != std::string::npos);
  CHECK(scan.SerializeAsString() == before);

  options.target_opset = 12;
  auto lower = ModelFromText(text);
  auto lowered = RewriteModel(&lower, rules, options);
  REQUIRE(lowered.ok());
  CHECK(DefaultOpset(lower.opset_import()) == 12);
}

TEST_CASE("a model importing no default-domain opset is rewritten, --opset imports it", "[engine][opset]") {
  RuleSet rules = RulesFromText(kRules);
  // Like ONNX's training tests (test_adam): only ai.onnx.preview.training is imported.
  auto training = ModelFromText(R"(
    < ir_version: 7, opset_import: ["ai.onnx.preview.training" : 1] >
    g (float r, int64 t, float[2] x, float[2] g, float[2] h) => (float[2] x_new, float[2] h_new) {
      x_new, h_new = ai.onnx.preview.training.Adagrad<decay_factor = 0.1, epsilon = 1e-5, norm_coefficient = 0.001>(r, t, x, g, h)
    })");
  const std::string before = training.SerializeAsString();
  auto report = RewriteModel(&training, rules, {});
  REQUIRE(report.ok());
  CHECK(report->opset_before == 0);
  CHECK(report->opset_after == 0);
  CHECK(training.SerializeAsString() == before);

  // An ATen node in such a model needs a default-domain opset for its replacement.
  const char* text = R"(
    < ir_version: 7, opset_import: ["org.pytorch.aten" : 1] >
    g (float[4] x) => (float[4] y) {
      y = org.pytorch.aten.ATen<operator = "asinh", overload_name = "">(x)
    })";
  auto left = ModelFromText(text);
  report = RewriteModel(&left, rules, {});
  REQUIRE(report.ok());
  REQUIRE(report->remaining.size() == 1);
  CHECK(report->remaining[0].needs_opset == 9);
  CHECK(report->remaining[0].reason.find("needs opset 9 (the model imports no default-domain opset; --opset 9 imports it)") !=
        std::string::npos);

  auto imported = ModelFromText(text);
  RewriteOptions options;
  options.target_opset = 13;
  report = RewriteModel(&imported, rules, options);
  REQUIRE(report.ok());
  CHECK(report->remaining.empty());
  CHECK(DefaultOpset(imported.opset_import()) == 13);
  CHECK_FALSE(Imports(imported, "org.pytorch.aten"));
  CHECK(report->notes == std::vector<std::string>{"default opset 13 imported"});
}

TEST_CASE("fresh names never collide with existing ones", "[engine]") {
  RuleSet rules = RulesFromText(kRules);
  auto model = ModelFromText(R"(
    < ir_version: 7, opset_import: ["" : 14, "org.pytorch.aten" : 1] >
    g (float[3,3] x) => (float[3,3] y, float[3,3] z) {
      d = Constant<value = int64 {0}>()
      y = org.pytorch.aten.ATen<operator = "tril", overload_name = "">(x, d)
      z = org.pytorch.aten.ATen<operator = "tril", overload_name = "">(y, d)
    })");
  // Both ATen nodes are unnamed: their replacements share a base name.
  auto report = RewriteModel(&model, rules, {});
  REQUIRE(report.ok());
  std::set<std::string> names, values;
  for (const auto& n : model.graph().node()) {
    CHECK(names.insert(n.name()).second);
    for (const auto& o : n.output()) CHECK(values.insert(o).second);
  }
  CHECK(model.graph().node_size() == 4);
}

TEST_CASE("ATen nodes in the default domain are recognised too", "[engine]") {
  RuleSet rules = RulesFromText(kRules);
  auto model = ModelFromText(R"(
    < ir_version: 7, opset_import: ["" : 13] >
    g (float[4] x) => (float[4] y) {
      y = ATen<operator = "asinh", overload_name = "">(x)
    })");
  auto report = RewriteModel(&model, rules, {});
  REQUIRE(report.ok());
  REQUIRE(report->rewritten.size() == 1);
  CHECK(report->rewritten[0].form == "aten-fallback");
  CHECK(model.graph().node(0).op_type() == "Asinh");
}

TEST_CASE("a default-domain op ONNX does not define is unmapped", "[engine]") {
  RuleSet rules = RulesFromText(kRules);
  auto model = ModelFromText(R"(
    < ir_version: 7, opset_import: ["" : 13] >
    g (float[4] x) => (float[4] y) {
      y = _DCNv2(x)
    })");
  auto report = RewriteModel(&model, rules, {});
  REQUIRE(report.ok());
  REQUIRE(report->remaining.size() == 1);
  CHECK(report->remaining[0].form == "custom");
  CHECK(report->remaining[0].reason == "no rule for _DCNv2");
}

namespace {

// One rule for aten::mm2 whose only alternative (opset 9) is guarded by `when`.
RuleSet GuardedMm2(const std::string& signature, const std::string& when, const std::string& replace) {
  return RulesFromText("rule { id: \"aten-mm2\" match { aten: \"mm2\" } signature: \"" + signature +
                       "\" alternative { min_opset: 9 when: \"" + when + "\" replace: \"" + replace + "\" } }");
}

}  // namespace

TEST_CASE("guards can read ranks and element types the model records", "[engine]") {
  RuleSet rules = GuardedMm2("aten::mm2(Tensor self, Tensor other) -> Tensor",
                             "rank(self) == 2 and dtype(other) == 'float32'", "out = MatMul(self, other)");
  auto model = ModelFromText(R"(
    < ir_version: 7, opset_import: ["" : 13, "org.pytorch.aten" : 1, "custom" : 1] >
    g (float[2,3] a, float[3,4] b, float[2,3,3] c) => (float[2,4] y, float[2,3,4] z, float[2,4] w) {
      y = org.pytorch.aten.ATen<operator = "mm2", overload_name = "">(a, b)
      z = org.pytorch.aten.ATen<operator = "mm2", overload_name = "">(c, b)
      u = custom.unknown(a)
      w = org.pytorch.aten.ATen<operator = "mm2", overload_name = "">(u, b)
    })");
  auto report = RewriteModel(&model, rules, {});
  REQUIRE(report.ok());
  CHECK(report->rewritten.size() == 1);
  REQUIRE(report->remaining.size() == 3);
  CHECK(report->remaining[0].reason.find("when 'rank(self) == 2 and dtype(other) == 'float32'' is false") != std::string::npos);
  // u comes out of an unmapped node: its rank is nowhere in the model.
  CHECK(report->remaining[2].reason.find("the rank of 'u' is not known") != std::string::npos);
}

TEST_CASE("ranks are inferred through diamonds: a producer read twice is typed before its consumers", "[engine]") {
  // torch's softmax-like exp(s - max(s)) records no shape: the oracle walks back
  // through Sub(Div, ReduceMax(Div)), where Div is reached along two paths.
  RuleSet rules = GuardedMm2("aten::mm2(Tensor self) -> Tensor", "rank(self) == 3", "out = Identity(self)");
  auto model = ModelFromText(R"(
    < ir_version: 7, opset_import: ["" : 11, "org.pytorch.aten" : 1] >
    g (float[2,5,5] s, float c) => (float y) {
      d = Div(s, c)
      m = ReduceMax<axes = [-1], keepdims = 1>(d)
      e = Sub(d, m)
      x = Exp(e)
      y = org.pytorch.aten.ATen<operator = "mm2", overload_name = "">(x)
    })");
  auto report = RewriteModel(&model, rules, {});
  REQUIRE(report.ok());
  INFO((report->remaining.empty() ? std::string() : report->remaining[0].reason));
  CHECK(report->rewritten.size() == 1);
  CHECK(report->remaining.empty());
}

TEST_CASE("a rank is inferred back through a long chain, each node typed once", "[engine]") {
  // 100,000 nodes between the typed input and the node whose rank a rule
  // reads: the walk keeps its own stack (not the call stack) and types each
  // node once; a binary op every 1,000 nodes takes ONNX's inference.
  RuleSet rules = GuardedMm2("aten::mm2(Tensor self) -> Tensor", "rank(self) == 2", "out = Identity(self)");
  auto model = ModelFromText(R"(
    < ir_version: 7, opset_import: ["" : 13, "org.pytorch.aten" : 1] >
    g (float[2,3] x) => (float y) {
      y = org.pytorch.aten.ATen<operator = "mm2", overload_name = "">(x)
    })");
  auto* graph = model.mutable_graph();
  const int count = 100000;
  std::vector<onnx::NodeProto> chain;
  std::string last = "x";
  for (int k = 0; k < count; ++k) {
    onnx::NodeProto n;
    const std::string out = "v" + std::to_string(k);
    n.set_op_type(k % 1000 == 999 ? "Add" : (k % 2 ? "Neg" : "Relu"));
    n.add_input(last);
    if (n.op_type() == "Add") n.add_input("x");
    n.add_output(out);
    chain.push_back(std::move(n));
    last = out;
  }
  onnx::NodeProto aten = graph->node(0);
  aten.set_input(0, last);
  graph->clear_node();
  for (auto& n : chain) *graph->add_node() = std::move(n);
  *graph->add_node() = aten;
  auto report = RewriteModel(&model, rules, {});
  REQUIRE(report.ok());
  INFO((report->remaining.empty() ? std::string() : report->remaining[0].reason));
  CHECK(report->rewritten.size() == 1);
  // The chain once, and the replacement.
  CHECK(report->nodes_typed == count + 1);
}

TEST_CASE("a one-input replacement its schema does not allow for the input's type is refused", "[engine]") {
  // Sqrt takes floats only: on int64 the first alternative fails strict
  // typing and the second (Abs, which takes ints) is used; on float the
  // first is. The output takes the input's type either way.
  RuleSet rules = RulesFromText(R"rule(rule { id: "aten-op1" match { aten: "op1" } signature: "aten::op1(Tensor self) -> Tensor"
    alternative { min_opset: 13 replace: "out = Sqrt(self)" }
    alternative { min_opset: 13 replace: "out = Abs(self)" } })rule");
  for (const auto& [dtype, op] : {std::pair<std::string, std::string>{"int64", "Abs"}, {"float", "Sqrt"}}) {
    auto model = ModelFromText(R"(
      < ir_version: 8, opset_import: ["" : 13, "org.pytorch.aten" : 1] >
      g ()" + dtype + R"([2,3] x) => ()" + dtype + R"( y) {
        y = org.pytorch.aten.ATen<operator = "op1", overload_name = "">(x)
      })");
    auto report = RewriteModel(&model, rules, {});
    REQUIRE(report.ok());
    INFO(dtype);
    REQUIRE(report->rewritten.size() == 1);
    CHECK(model.graph().node(0).op_type() == op);
    if (op == "Abs") {
      REQUIRE(report->rewritten[0].candidates.size() == 2);
      CHECK(report->rewritten[0].candidates[0].reason.find("unsupported type: tensor(int64)") != std::string::npos);
    }
  }
}

TEST_CASE("an emitted Constant has its tensor's type and dims for the strict typing of its consumers", "[engine]") {
  // Add(self, c) with c an int64[2, 3] Constant: ONNX's inference of the Add
  // accepts int64[3] (it broadcasts), refuses float[3] (B, the Constant, is
  // not of the type A binds) and int64[4] (3 against 4): each needs c's
  // element type and dims.
  RuleSet rules = RulesFromText(R"rule(rule { id: "aten-op1" match { aten: "op1" } signature: "aten::op1(Tensor self) -> Tensor"
    alternative { min_opset: 13 replace: "c = Constant<value = int64[2, 3] {1, 2, 3, 4, 5, 6}>()\nout = Add(self, c)" } })rule");
  const std::vector<std::tuple<std::string, std::string, std::string>> cases = {
      {"int64[3]", "", "int64"}, {"float[3]", "B has inconsistent type tensor(int64)", "float"},
      {"int64[4]", "Incompatible dimensions", "int64"}};
  for (const auto& [input, refusal, elem] : cases) {
    auto model = ModelFromText(R"(
      < ir_version: 8, opset_import: ["" : 13, "org.pytorch.aten" : 1] >
      g ()" + input + R"( x) => ()" + elem + R"( y) {
        y = org.pytorch.aten.ATen<operator = "op1", overload_name = "">(x)
      })");
    auto report = RewriteModel(&model, rules, {});
    REQUIRE(report.ok());
    INFO(input);
    if (refusal.empty()) {
      CHECK(report->rewritten.size() == 1);
    } else {
      REQUIRE(report->remaining.size() == 1);
      INFO(report->remaining[0].reason);
      CHECK(report->remaining[0].reason.find(refusal) != std::string::npos);
    }
  }
}

TEST_CASE("Trilu and CumSum take their first input's type, judged as ONNX 1.12 judges them", "[engine]") {
  // (And so do the one-input ops of the same shortcut: op4's Relu.)
  // The oracle types these without an inference context; what it accepts and
  // refuses must be what ONNX's inference does (onnx.shape_inference,
  // strict): the input types the schema allows, Trilu's rank of at least 2,
  // and the output's type and shape, which the Add after it checks.
  RuleSet rules = RulesFromText(R"rule(
    rule { id: "aten-op1" match { aten: "op1" } signature: "aten::op1(Tensor self) -> Tensor"
      alternative { min_opset: 14 replace: "k = Constant<value = int64 {1}>()\nt = Trilu<upper = 1>(self, k)\nc = Constant<value = int64[2, 3] {1, 2, 3, 4, 5, 6}>()\nout = Add(t, c)" } }
    rule { id: "aten-op2" match { aten: "op2" } signature: "aten::op2(Tensor self) -> Tensor"
      alternative { min_opset: 14 replace: "a = Constant<value = float {0}>()\nout = CumSum(self, a)" }
      alternative { min_opset: 14 replace: "a = Constant<value = int64 {0}>()\ns = CumSum(self, a)\nc = Constant<value = int64[4] {1, 2, 3, 4}>()\nout = Add(s, c)" } }
    rule { id: "aten-op3" match { aten: "op3" } signature: "aten::op3(Tensor self) -> Tensor"
      alternative { min_opset: 14 replace: "a = Constant<value = int64 {0}>()\nout = CumSum<strides = [0]>(self, a)" } }
    rule { id: "aten-op4" match { aten: "op4" } signature: "aten::op4(Tensor self) -> Tensor"
      alternative { min_opset: 14 replace: "out = Relu<strides = [0]>(self)" } })rule");
  const std::vector<std::tuple<std::string, std::string, std::string>> cases = {
      {"op1", "int64[2,3]", ""},
      {"op1", "int64[3]", "Input rank must be >= 2"},
      {"op1", "int64[3,3]", "Incompatible dimensions"},
      {"op1", "float[2,3]", "inconsistent type"},
      {"op2", "int64[4]", ""},
      {"op2", "int64[3]", "Incompatible dimensions"},
      // What the full inference refuses before it runs (SafeForShapeInference), the shortcut does too.
      {"op3", "int64[4]", "strides 0"},
      {"op4", "int64[4]", "strides 0"}};
  for (const auto& [op, input, refusal] : cases) {
    auto model = ModelFromText(R"(
      < ir_version: 8, opset_import: ["" : 14, "org.pytorch.aten" : 1] >
      g ()" + input + R"( x) => (int64 y) {
        y = org.pytorch.aten.ATen<operator = ")" + op + R"(", overload_name = "">(x)
      })");
    auto report = RewriteModel(&model, rules, {});
    REQUIRE(report.ok());
    INFO(op << " on " << input);
    if (refusal.empty()) {
      REQUIRE(report->rewritten.size() == 1);
      if (op == "op2") {
        // The first alternative's float axis is refused by CumSum's schema.
        REQUIRE(report->rewritten[0].candidates.size() == 2);
        CHECK(report->rewritten[0].candidates[0].reason.find("axis typestr: T2, has unsupported type: tensor(float)") !=
              std::string::npos);
      }
    } else {
      REQUIRE(report->remaining.size() == 1);
      INFO(report->remaining[0].reason);
      CHECK(report->remaining[0].reason.find(refusal) != std::string::npos);
    }
  }
}

TEST_CASE("a type the model records holds after its producer was walked for another output", "[engine]") {
  // The oracle keeps a node's walk state in the slot of its first output; a
  // walk that types nothing (no schema for custom.Split2) must not hide the
  // type the model records for that output from the inference of its
  // consumers (Relu, whose output the second mm2 reads).
  RuleSet rules = GuardedMm2("aten::mm2(Tensor self) -> Tensor", "rank(self) == 2", "out = Identity(self)");
  auto model = ModelFromText(R"(
    < ir_version: 7, opset_import: ["" : 13, "org.pytorch.aten" : 1, "custom" : 1] >
    g (float[2,3] x) => (float y, float z) <float[2,3] v> {
      v, w = custom.Split2(x)
      y = org.pytorch.aten.ATen<operator = "mm2", overload_name = "">(w)
      u = Relu(v)
      z = org.pytorch.aten.ATen<operator = "mm2", overload_name = "">(u)
    })");
  auto report = RewriteModel(&model, rules, {});
  REQUIRE(report.ok());
  // Left: Split2 itself (no rule) and the mm2 of `w`, which nothing types.
  REQUIRE(report->remaining.size() == 2);
  CHECK(report->remaining[0].op == "custom::Split2");
  CHECK(report->remaining[1].reason.find("the rank of 'w' is not known") != std::string::npos);
  CHECK(report->rewritten.size() == 1);
}

namespace {

// If and Loop outputs whose bodies read `u`, which nothing types (custom.Op
// has no schema): i = If with branches of [2,3] and [2, else_last_dim];
// s, k = Loop with s carried ([2,3]) and k a scan output; an mm2 ATen node
// reads each of i, s, k and u.
onnx::ModelProto BodiesModel(int else_last_dim) {
  return ModelFromText(fmt::format(R"(
    < ir_version: 7, opset_import: ["" : 13, "org.pytorch.aten" : 1, "custom" : 1] >
    g (bool c, float[2,3] x, int64 n) => (float y, float z, float w, float v) {{
      u = custom.Op(x)
      i = If(c) <
        then_branch = t () => (float[2,3] a) {{ a = Relu(u) }},
        else_branch = e () => (float[2,{}] b) {{ b = Neg(u) }}
      >
      s, k = Loop(n, c, x) <
        body = bd (int64 it, bool ci, float[2,3] xi) => (bool co, float[2,3] xo, float[2,3] ko) {{
          co = Identity(ci)
          xo = Add(xi, u)
          ko = Identity(xo)
        }}
      >
      y = org.pytorch.aten.ATen<operator = "mm2", overload_name = "">(i)
      z = org.pytorch.aten.ATen<operator = "mm2", overload_name = "">(s)
      w = org.pytorch.aten.ATen<operator = "mm2", overload_name = "">(k)
      v = org.pytorch.aten.ATen<operator = "mm2", overload_name = "">(u)
    }})", else_last_dim));
}

std::string RemainingText(const RewriteReport& report) {
  std::vector<std::string> left;
  for (const auto& r : report.remaining) left.push_back(r.op.str() + " " + r.reason);
  return fmt::format("{}", fmt::join(left, "\n"));
}

}  // namespace

TEST_CASE("If and Loop outputs take the types their bodies declare", "[engine]") {
  // The oracle types the If and Loop outputs from what their bodies declare,
  // as torch's exporter writes them, without inferring the bodies.
  RuleSet rules = GuardedMm2("aten::mm2(Tensor self) -> Tensor", "rank(self) == 2 and dtype(self) == 'float32'",
                             "out = Identity(self)");
  auto model = BodiesModel(4);
  auto report = RewriteModel(&model, rules, {});
  REQUIRE(report.ok());
  // i: float, rank 2 (the branches agree on the rank, not on the last dim);
  // s: the loop-carried [2,3]; k: a scan output, [iterations, 2, 3], rank 3.
  INFO(RemainingText(*report));
  CHECK(report->rewritten.size() == 2);
  REQUIRE(report->remaining.size() == 3);  // custom.Op, mm2(k) (rank 3), mm2(u) (untyped)
  CHECK(report->remaining[1].reason.find("rank(self) == 2") != std::string::npos);
  CHECK(report->remaining[2].reason.find("the rank of 'u' is not known") != std::string::npos);
}

TEST_CASE("If and Loop outputs keep their bodies' whole static shapes", "[engine]") {
  // Branches that agree give their type as it stands, a loop-carried value
  // its body's; branches that differ keep the dims they share, and a scan
  // output gains a leading dim of unknown size.
  RuleSet rules = GuardedMm2("aten::mm2(Tensor self) -> Tensor", "dims(self) == [2, 3]", "out = Identity(self)");
  {
    auto model = BodiesModel(3);
    auto report = RewriteModel(&model, rules, {});
    REQUIRE(report.ok());
    INFO(RemainingText(*report));
    CHECK(report->rewritten.size() == 2);  // mm2(i), mm2(s)
    REQUIRE(report->remaining.size() == 3);  // custom.Op, mm2(k): rank 3, mm2(u): untyped
    CHECK(report->remaining[1].reason.find("dims(self) == [2, 3]") != std::string::npos);
  }
  {
    auto model = BodiesModel(4);
    auto report = RewriteModel(&model, rules, {});
    REQUIRE(report.ok());
    INFO(RemainingText(*report));
    CHECK(report->rewritten.size() == 1);  // mm2(s)
    REQUIRE(report->remaining.size() == 4);  // custom.Op, mm2(i): [2, None], mm2(k), mm2(u)
    CHECK(report->remaining[1].reason.find("dims(self) == [2, 3]") != std::string::npos);
    CHECK(report->remaining[2].reason.find("dims(self) == [2, 3]") != std::string::npos);
  }
}

TEST_CASE("If outputs with symbolic dims are still inferred through the branches", "[engine]") {
  // The branches declare [N, 3]; ONNX's inference of them knows N is 2, which
  // dims() reads. The declared types alone would say None.
  RuleSet rules = GuardedMm2("aten::mm2(Tensor self) -> Tensor", "dims(self) == [2, 3]", "out = Identity(self)");
  auto model = ModelFromText(R"(
    < ir_version: 7, opset_import: ["" : 13, "org.pytorch.aten" : 1] >
    g (bool c, float[2,3] x) => (float y) {
      i = If(c) <
        then_branch = t () => (float[N,3] a) { a = Relu(x) },
        else_branch = e () => (float[N,3] b) { b = Neg(x) }
      >
      y = org.pytorch.aten.ATen<operator = "mm2", overload_name = "">(i)
    })");
  auto report = RewriteModel(&model, rules, {});
  REQUIRE(report.ok());
  INFO((report->remaining.empty() ? std::string() : report->remaining[0].reason));
  CHECK(report->rewritten.size() == 1);
}

TEST_CASE("dims() reads static sizes, None where a dim is symbolic, through standard nodes", "[engine]") {
  RuleSet rules = RulesFromText(R"rule(
rule {
  id: "aten-topk-all"
  match { aten: "sort_all" }
  signature: "aten::sort_all(Tensor self) -> Tensor"
  alternative {
    min_opset: 9
    when: "dims(self)[-1] is not None"
    replace: "out, idx = TopK<axis = -1, k = ${dims(self)[-1]}>(self)"
  }
}
)rule");
  auto model = ModelFromText(R"(
    < ir_version: 4, opset_import: ["" : 9, "org.pytorch.aten" : 1] >
    g (float[2,5] a, float[2,n] b) => (float[2,5] y, float[2,n] z, float[2,5] w) {
      y = org.pytorch.aten.ATen<operator = "sort_all", overload_name = "">(a)
      z = org.pytorch.aten.ATen<operator = "sort_all", overload_name = "">(b)
      r = Relu(a)
      w = org.pytorch.aten.ATen<operator = "sort_all", overload_name = "">(r)
    })");
  auto report = RewriteModel(&model, rules, {});
  REQUIRE(report.ok());
  CHECK(report->rewritten.size() == 2);
  REQUIRE(report->remaining.size() == 1);
  for (const auto& node : model.graph().node())
    if (node.output(0) == "z") CHECK(node.op_type() == "ATen");
  CHECK(report->remaining[0].reason.find("is false") != std::string::npos);
  int topk_with_k5 = 0;
  for (const auto& node : model.graph().node()) {
    if (node.op_type() != "TopK") continue;
    for (const auto& attr : node.attribute())
      if (attr.name() == "k" && attr.i() == 5) ++topk_with_k5;
  }
  // a (recorded) and r (inferred from Relu) both have a static last dim of 5.
  CHECK(topk_with_k5 == 2);
}

TEST_CASE("scalar arguments from initializers bind, and unused initializers go", "[engine]") {
  RuleSet rules = RulesFromText(kRules);
  auto model = ModelFromText(R"(
    < ir_version: 7, opset_import: ["" : 14, "org.pytorch.aten" : 1] >
    g (float[3,3] x) => (float[3,3] y, float[3,3] z)
    < int64 d = {-1}, int64 keep = {1} > {
      y = org.pytorch.aten.ATen<operator = "tril", overload_name = "">(x, d)
      z = org.pytorch.aten.ATen<operator = "tril", overload_name = "">(x, keep)
      w = Add(keep, keep)
    })");
  auto report = RewriteModel(&model, rules, {});
  REQUIRE(report.ok());
  CHECK(report->rewritten.size() == 2);
  // d fed only a rewritten node: removed. keep still feeds the Add: kept.
  REQUIRE(model.graph().initializer_size() == 1);
  CHECK(model.graph().initializer(0).name() == "keep");
  const auto& k = model.graph().node(0).attribute(0).t();  // k = Constant<value = ${diagonal}>
  CHECK(k.data_type() == onnx::TensorProto::INT64);
  CHECK(k.int64_data(0) == -1);
}
