// The replacement language: directives, interpolated names, tensor spreads,
// subgraph bodies and fragments, instantiated on small models and checked by
// the ONNX checker.
#include <catch2/catch.hpp>
#include <onnx/checker.h>

#include "engine/engine.h"
#include "test_models.h"

using namespace remap;
using testing::ModelFromText;
using testing::RulesFromText;

namespace {

std::vector<std::string> OpTypes(const google::protobuf::RepeatedPtrField<onnx::NodeProto>& nodes) {
  std::vector<std::string> out;
  for (const auto& n : nodes) out.push_back(n.op_type());
  return out;
}

const onnx::AttributeProto* Attr(const onnx::NodeProto& n, const std::string& name) {
  for (const auto& a : n.attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

// One custom::op node taking x (and the given extra inputs/attributes), rewritten with `rules`.
onnx::ModelProto Rewrite(const RuleSet& rules, const std::string& node, RewriteReport* report = nullptr,
                         const std::string& extra_inputs = "") {
  auto model = ModelFromText(R"(
    < ir_version: 8, opset_import: ["" : 13, "custom" : 1] >
    g (float[2, 3] x)" + extra_inputs + R"() => (float[2, 3] y) {
      )" + node + R"(
    })");
  auto r = RewriteModel(&model, rules, {});
  REQUIRE(r.ok());
  if (report) *report = *r;
  return model;
}

}  // namespace

TEST_CASE("@for repeats nodes and builds names from the loop variable", "[template]") {
  RuleSet rules = RulesFromText(R"rule(
    rule {
      id: "custom-series"
      match { domain: "custom" op_type: "series" }
      signature: "custom::series(Tensor x, int n) -> Tensor"
      alternative {
        min_opset: 9
        replace: "acc0 = Identity(x)\n"
                 "@for k in range(1, n + 1):\n"
                 "  acc${k} = Add(acc${k - 1}, x)\n"
                 "@end\n"
                 "out = Identity(acc${n})"
      }
    })rule");
  RewriteReport report;
  auto model = Rewrite(rules, "y = custom.series<n = 3>(x)", &report);
  REQUIRE(report.remaining.empty());
  CHECK(OpTypes(model.graph().node()) == std::vector<std::string>{"Identity", "Add", "Add", "Add", "Identity"});
  // each Add reads the previous accumulator
  const auto& nodes = model.graph().node();
  for (int k = 1; k <= 3; ++k) CHECK(nodes[k].input(0) == nodes[k - 1].output(0));
  CHECK(nodes[4].output(0) == "y");
  onnx::checker::check_model(model);
}

TEST_CASE("@if / @elif / @else choose nodes by a constant argument", "[template]") {
  RuleSet rules = RulesFromText(R"rule(
    rule {
      id: "custom-reduce"
      match { domain: "custom" op_type: "loss" }
      signature: "custom::loss(Tensor x, int reduction=1) -> Tensor"
      alternative {
        min_opset: 13
        replace: "l = Abs(x)\n"
                 "@if reduction == 0:\n"
                 "  out = Identity(l)\n"
                 "@elif reduction == 1:\n"
                 "  out = ReduceMean<keepdims = 0>(l)\n"
                 "@else\n"
                 "  out = ReduceSum<keepdims = 0>(l)\n"
                 "@end"
      }
    })rule");
  for (auto [reduction, op] : std::vector<std::pair<int, std::string>>{{0, "Identity"}, {1, "ReduceMean"}, {2, "ReduceSum"}}) {
    RewriteReport report;
    auto model = Rewrite(rules, "y = custom.loss<reduction = " + std::to_string(reduction) + ">(x)", &report);
    REQUIRE(report.remaining.empty());
    CHECK(OpTypes(model.graph().node()) == std::vector<std::string>{"Abs", op});
  }
}

TEST_CASE("@let names a value for later expressions", "[template]") {
  RuleSet rules = RulesFromText(R"rule(
    rule {
      id: "custom-scale"
      match { domain: "custom" op_type: "scale" }
      signature: "custom::scale(Tensor x, float s) -> Tensor"
      alternative {
        min_opset: 9
        replace: "@let twice = 2.0 * s\n"
                 "c = Constant<value = ${twice}>()\n"
                 "out = Mul(x, c)"
      }
    })rule");
  auto model = Rewrite(rules, "y = custom.scale<s = 1.5>(x)");
  const auto* value = Attr(model.graph().node(0), "value");
  REQUIRE(value);
  CHECK(value->t().float_data(0) == 3.0f);
}

TEST_CASE("a whole ${...} giving a tensor list spreads into inputs, ${t[i]} picks one", "[template]") {
  RuleSet rules = RulesFromText(R"rule(
    rule {
      id: "custom-cat"
      match { domain: "custom" op_type: "cat3" }
      signature: "custom::cat3(Tensor a, Tensor b, Tensor c) -> Tensor"
      alternative {
        min_opset: 9
        replace: "second = Identity(${[a, b, c][1]})\n"
                 "out = Concat<axis = 0>(${[a, b, c]})"
      }
    })rule");
  auto model = ModelFromText(R"(
    < ir_version: 8, opset_import: ["" : 13, "custom" : 1] >
    g (float[2] a, float[2] b, float[2] c) => (float[6] y) {
      y = custom.cat3(a, b, c)
    })");
  auto report = RewriteModel(&model, rules, {});
  REQUIRE(report.ok());
  REQUIRE(report->remaining.empty());
  CHECK(model.graph().node(0).input(0) == "b");
  const auto& concat = model.graph().node(1);
  CHECK(std::vector<std::string>(concat.input().begin(), concat.input().end()) == std::vector<std::string>{"a", "b", "c"});
}

TEST_CASE("If and Loop bodies in a replacement get fresh names and capture outer values", "[template]") {
  RuleSet rules = RulesFromText(R"rule(
    rule {
      id: "custom-cumsum"
      match { domain: "custom" op_type: "runsum" }
      signature: "custom::runsum(Tensor x) -> Tensor"
      alternative {
        min_opset: 13
        replace: "zero = Constant<value = float {0}>()\n"
                 "n = Constant<value = int64 {3}>()\n"
                 "total, steps = Loop<body = step (int64 i, bool cond, float acc) => (bool c2, float acc2, float snap) {\n"
                 "    c2 = Identity(cond)\n"
                 "    acc2 = Add(acc, x)\n"
                 "    snap = Identity(acc2)\n"
                 "  }>(n, , zero)\n"
                 "out = Add(x, total)"
      }
    })rule");
  // Two nodes: the body's names must differ between the two instances.
  auto model = ModelFromText(R"(
    < ir_version: 8, opset_import: ["" : 13, "custom" : 1] >
    g (float x) => (float y) {
      t = custom.runsum(x)
      y = custom.runsum(t)
    })");
  auto report = RewriteModel(&model, rules, {});
  REQUIRE(report.ok());
  REQUIRE(report->remaining.empty());
  std::vector<const onnx::NodeProto*> loops;
  for (const auto& n : model.graph().node()) {
    if (n.op_type() == "Loop") loops.push_back(&n);
  }
  REQUIRE(loops.size() == 2);
  const auto& b0 = Attr(*loops[0], "body")->g();
  const auto& b1 = Attr(*loops[1], "body")->g();
  CHECK(b0.input(2).name() != b1.input(2).name());
  CHECK(b0.node(1).input(1) == "x");   // captured outer value
  CHECK(b1.node(1).input(1) == "t");   // the second instance captures the first's output
  onnx::checker::check_model(model);
}

TEST_CASE("fragments expand inline with their own arguments", "[template]") {
  RuleSet rules = RulesFromText(R"rule(
    fragment {
      name: "AxPlusB"
      signature: "AxPlusB(Tensor x, float a, float b=0.0) -> Tensor"
      replace: "ca = Constant<value = ${a}>()\n"
               "cb = Constant<value = ${b}>()\n"
               "m = Mul(x, ca)\n"
               "out = Add(m, cb)"
    }
    fragment {
      name: "Twice"
      signature: "Twice(Tensor x, float a) -> Tensor"
      replace: "h = AxPlusB<a = ${a}>(x)\n"
               "out = AxPlusB<a = ${a}, b = 1.0>(h)"
    }
    rule {
      id: "custom-poly"
      match { domain: "custom" op_type: "poly" }
      signature: "custom::poly(Tensor x, float k) -> Tensor"
      alternative { min_opset: 9 replace: "out = Twice<a = ${k * 2.0}>(x)" }
    })rule");
  RewriteReport report;
  auto model = Rewrite(rules, "y = custom.poly<k = 1.5>(x)", &report);
  REQUIRE(report.remaining.empty());
  CHECK(OpTypes(model.graph().node()) ==
        std::vector<std::string>{"Constant", "Constant", "Mul", "Add", "Constant", "Constant", "Mul", "Add"});
  CHECK(Attr(model.graph().node(0), "value")->t().float_data(0) == 3.0f);
  CHECK(Attr(model.graph().node(5), "value")->t().float_data(0) == 1.0f);
  CHECK(model.graph().node(7).output(0) == "y");
  onnx::checker::check_model(model);
}

TEST_CASE("fragment errors: cycles, ONNX op names, missing imports", "[template]") {
  auto load = [](const std::string& text) {
    RuleFileResult parsed = ParseRuleFile("f.textproto", text, false);
    std::vector<std::string> errors = parsed.errors;
    RuleSet set;
    set.AddFragments(std::move(parsed.fragments));
    set.Add(std::move(parsed.rules));
    set.Check(&errors);
    return errors;
  };
  auto errors = load(R"rule(fragment { name: "Relu" signature: "Relu(Tensor x) -> Tensor" replace: "out = Abs(x)" })rule");
  REQUIRE(errors.size() == 1);
  CHECK(errors[0] == "f.textproto:1:12: error: fragment name 'Relu' is an ONNX operator");

  errors = load(R"rule(fragment { name: "A" signature: "A(Tensor x) -> Tensor" replace: "out = B(x)" }
fragment { name: "B" signature: "B(Tensor x) -> Tensor" replace: "out = A(x)" })rule");
  REQUIRE(!errors.empty());
  CHECK(errors[0].find("calls itself") != std::string::npos);

  errors = load(R"rule(fragment { name: "Fast" signature: "Fast(Tensor x) -> Tensor" replace: "out = com.example.Fast(x)" }
rule { id: "r" match { domain: "custom" op_type: "f" } signature: "custom::f(Tensor x) -> Tensor"
  alternative { min_opset: 9 replace: "out = Fast(x)" } })rule");
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].find("f.textproto:3:3: error: replace emits domain 'com.example' (through a fragment)") == 0);
}

TEST_CASE("a name used before it is assigned leaves the node with a reason", "[template]") {
  RuleSet rules = RulesFromText(R"rule(
    rule {
      id: "custom-bad"
      match { domain: "custom" op_type: "bad" }
      signature: "custom::bad(Tensor x, int n) -> Tensor"
      alternative {
        min_opset: 9
        replace: "@for k in range(n):\n  acc${k} = Add(acc${k + 1}, x)\n@end\nout = Identity(x)"
      }
    })rule");
  RewriteReport report;
  Rewrite(rules, "y = custom.bad<n = 2>(x)", &report);
  REQUIRE(report.remaining.size() == 1);
  CHECK(report.remaining[0].reason.find("'acc1' is used before it is assigned") != std::string::npos);
}

TEST_CASE("a return left unassigned by the chosen branch leaves the node", "[template]") {
  RuleSet rules = RulesFromText(R"rule(
    rule {
      id: "custom-half"
      match { domain: "custom" op_type: "half" }
      signature: "custom::half(Tensor x, int n) -> Tensor"
      alternative { min_opset: 9 replace: "@if n > 0\nout = Identity(x)\n@end" }
    })rule");
  RewriteReport report;
  Rewrite(rules, "y = custom.half<n = 0>(x)", &report);
  REQUIRE(report.remaining.size() == 1);
  CHECK(report.remaining[0].reason.find("did not assign 'out'") != std::string::npos);
  Rewrite(rules, "y = custom.half<n = 1>(x)", &report);
  CHECK(report.remaining.empty());
}

TEST_CASE("a replacement with a type error is refused, and the next alternative is used", "[template]") {
  // float32 constant added to a float64 input: ONNX's inference rejects it.
  RuleSet rules = RulesFromText(R"rule(
    rule {
      id: "custom-inc"
      match { domain: "custom" op_type: "inc" }
      signature: "custom::inc(Tensor x) -> Tensor"
      alternative { min_opset: 9 replace: "one = Constant<value = float {1}>()\nout = Add(x, one)" }
      alternative { min_opset: 13 replace: "one = Constant<value = float {1}>()\nc = CastLike(one, x)\nout = Add(x, c)" }
    })rule");
  auto model = ModelFromText(R"(
    < ir_version: 8, opset_import: ["" : 15, "custom" : 1] >
    g (double[3] x) => (double[3] y) {
      y = custom.inc(x)
    })");
  auto report = RewriteModel(&model, rules, {});
  REQUIRE(report.ok());
  REQUIRE(report->remaining.empty());
  CHECK(OpTypes(model.graph().node()) == std::vector<std::string>{"Constant", "CastLike", "Add"});

  // Only the float32-only alternative at opset 11: the node is left, saying why.
  auto old = ModelFromText(R"(
    < ir_version: 8, opset_import: ["" : 11, "custom" : 1] >
    g (double[3] x) => (double[3] y) {
      y = custom.inc(x)
    })");
  report = RewriteModel(&old, rules, {});
  REQUIRE(report.ok());
  REQUIRE(report->remaining.size() == 1);
  CHECK(report->remaining[0].reason.find("not type-correct") != std::string::npos);
}

TEST_CASE("rank() and dtype() see through values computed by earlier rewrites and standard nodes", "[template]") {
  // asinh feeds Relu feeds triu: the model records no type for either.
  RuleSet rules = RulesFromText(R"rule(
    rule {
      id: "aten-asinh"
      match { aten: "asinh" }
      signature: "aten::asinh(Tensor self) -> Tensor"
      alternative { min_opset: 9 replace: "out = Asinh(self)" }
    }
    rule {
      id: "aten-triu"
      match { aten: "triu" }
      signature: "aten::triu(Tensor self, int diagonal=0) -> Tensor"
      alternative {
        min_opset: 14
        when: "rank(self) == 3 and dtype(self) == 'float32'"
        replace: "k = Constant<value = ${diagonal}>()\nout = Trilu<upper = 1>(self, k)"
      }
    })rule");
  auto model = ModelFromText(R"(
    < ir_version: 8, opset_import: ["" : 14, "org.pytorch.aten" : 1] >
    g (float[2, 3, 4] x) => (float[2, 3, 4] y) {
      a = org.pytorch.aten.ATen<operator = "asinh", overload_name = "">(x)
      r = Relu(a)
      y = org.pytorch.aten.ATen<operator = "triu", overload_name = "">(r)
    })");
  auto report = RewriteModel(&model, rules, {});
  REQUIRE(report.ok());
  INFO((report->remaining.empty() ? "" : report->remaining[0].reason));
  CHECK(report->remaining.empty());
  CHECK(report->rewritten.size() == 2);
}

TEST_CASE("a producer pattern rewrites a node with the node feeding it, and only when nothing else uses it", "[template]") {
  RuleSet rules = RulesFromText(R"rule(
    rule {
      id: "aten-view-as-real-fft-rfft"
      match { aten: "view_as_real" }
      signature: "aten::view_as_real(Tensor self) -> Tensor"
      producer {
        argument: "self"
        match { aten: "fft_rfft" }
        signature: "aten::fft_rfft(Tensor x, int? n=None, int dim=-1, str? norm=None) -> Tensor"
      }
      alternative { min_opset: 17 replace: "last = Constant<value = int64[1] {-1}>()\nxc = Unsqueeze(x, last)\nout = DFT<axis = ${dim % rank(x)}, onesided = 1>(xc)" }
    })rule");
  auto model = ModelFromText(R"(
    < ir_version: 8, opset_import: ["" : 17, "org.pytorch.aten" : 1] >
    g (float[2, 8] x) => (float[2, 5, 2] y) {
      d = Constant<value = int64 {-1}>()
      c = org.pytorch.aten.ATen<operator = "fft_rfft", overload_name = "">(x, , d, )
      y = org.pytorch.aten.ATen<operator = "view_as_real", overload_name = "">(c)
    })");
  auto report = RewriteModel(&model, rules, {});
  REQUIRE(report.ok());
  INFO((report->remaining.empty() ? "" : report->remaining[0].reason));
  CHECK(report->remaining.empty());  // fft_rfft was left by itself, then absorbed
  CHECK(OpTypes(model.graph().node()) == std::vector<std::string>{"Constant", "Unsqueeze", "DFT"});
  CHECK(model.graph().node(2).attribute(0).i() == 1);  // dim -1 of a rank-2 input

  // The complex value also feeds another node: the pair is not rewritten.
  auto shared = ModelFromText(R"(
    < ir_version: 8, opset_import: ["" : 17, "org.pytorch.aten" : 1] >
    g (float[2, 8] x) => (float[2, 5, 2] y, float[2, 5, 2] z) {
      d = Constant<value = int64 {-1}>()
      c = org.pytorch.aten.ATen<operator = "fft_rfft", overload_name = "">(x, , d, )
      y = org.pytorch.aten.ATen<operator = "view_as_real", overload_name = "">(c)
      z = org.pytorch.aten.ATen<operator = "view_as_real", overload_name = "">(c)
    })");
  report = RewriteModel(&shared, rules, {});
  REQUIRE(report.ok());
  REQUIRE(report->remaining.size() == 3);
  CHECK(report->remaining[1].reason.find("is used elsewhere") != std::string::npos);
}

TEST_CASE("names built in a loop can be read back by their plain name", "[template]") {
  RuleSet rules = RulesFromText(R"rule(
    rule {
      id: "custom-pair"
      match { domain: "custom" op_type: "pair" }
      signature: "custom::pair(Tensor x) -> Tensor"
      alternative { min_opset: 9 replace: "@for k in range(2):\n  acc${k} = Neg(x)\n@end\nout = Add(acc0, acc1)" }
    })rule");
  RewriteReport report;
  auto model = Rewrite(rules, "y = custom.pair(x)", &report);
  REQUIRE(report.remaining.empty());
  CHECK(OpTypes(model.graph().node()) == std::vector<std::string>{"Neg", "Neg", "Add"});
}

TEST_CASE("a fragment reads the dtype of a value the replacement computed before calling it", "[template]") {
  RuleSet rules = RulesFromText(R"rule(
    fragment {
      name: "AddHalf"
      signature: "AddHalf(Tensor x) -> Tensor"
      replace: "h = Constant<value = ${tensor(0.5, x)}>()\nout = Add(x, h)"
    }
    rule {
      id: "custom-abshalf"
      match { domain: "custom" op_type: "abshalf" }
      signature: "custom::abshalf(Tensor self) -> Tensor"
      alternative { min_opset: 9 replace: "a = Abs(self)\nout = AddHalf(a)" }
    })rule");
  auto model = ModelFromText(R"(
    < ir_version: 8, opset_import: ["" : 13, "custom" : 1] >
    g (double[3] x) => (double[3] y) {
      y = custom.abshalf(x)
    })");
  auto report = RewriteModel(&model, rules, {});
  REQUIRE(report.ok());
  INFO((report->remaining.empty() ? "" : report->remaining[0].reason));
  REQUIRE(report->remaining.empty());
  CHECK(model.graph().node(1).attribute(0).t().data_type() == onnx::TensorProto::DOUBLE);
}

TEST_CASE("a replacement of many fragment calls types each emitted node once", "[template]") {
  // Each fragment call may read rank()/dtype() of what came before it, so the
  // nodes emitted so far are typed before it; typing them all again at every
  // call made a 2,586-node adaptive_avg_pool1d replacement take 8.6 s.
  RuleSet rules = RulesFromText(R"rule(
    fragment {
      name: "Step"
      signature: "Step(Tensor x) -> Tensor"
      replace: "out = Relu(x)"
    }
    rule {
      id: "custom-steps"
      match { domain: "custom" op_type: "steps" }
      signature: "custom::steps(Tensor x, int n) -> Tensor"
      alternative {
        min_opset: 9
        replace: "acc0 = Identity(x)\n"
                 "@for k in range(1, n + 1):\n"
                 "  acc${k} = Step(acc${k - 1})\n"
                 "@end\n"
                 "out = Identity(acc${n})"
      }
    })rule");
  RewriteReport report;
  auto model = Rewrite(rules, "y = custom.steps<n = 300>(x)", &report);
  REQUIRE(report.remaining.empty());
  REQUIRE(model.graph().node_size() == 302);
  // Once as the fragments are called, once as the replacement is checked.
  CHECK(report.nodes_typed <= 2 * 302);
  onnx::checker::check_model(model);
}
