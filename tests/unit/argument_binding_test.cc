// Binding a node's inputs and attributes to a signature: list broadcasting,
// defaults for empty inputs, function-attribute references and Tensor[] lists.
#include <catch2/catch.hpp>

#include "match/argument_binding.h"
#include "engine/engine.h"
#include "test_models.h"

using namespace remap;
using testing::ModelFromText;
using testing::RulesFromText;

namespace {

// Binds the last node of the main graph to `signature_text`. Keeps the model,
// index and signature alive for the binding, which points into them.
struct BindCase {
  BindCase(onnx::ModelProto m, const std::string& signature_text) : model(std::move(m)) {
    SignatureError e;
    INFO(e.message);
    REQUIRE(ParseSignature(signature_text, &signature, &e));
  }
  bool Bind() {
    index = GraphIndex::ForGraph(model.graph());
    const onnx::NodeProto& node = model.graph().node(model.graph().node_size() - 1);
    NodeForm form = ClassifyNode(node, ClassifyContext{});
    REQUIRE(form.unmapped());
    return BindArguments(node, form, signature, index, &binding, &why);
  }
  const Value& operator[](const std::string& name) const {
    const BoundArgument* b = binding.Find(name);
    REQUIRE(b != nullptr);
    return b->value;
  }

  onnx::ModelProto model;
  Signature signature;
  GraphIndex index;
  Binding binding;
  std::string why;
};

bool Contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("int[N] given one int (scalar, 1-element list or attribute) means N copies", "[binding]") {
  const char* sig = "aten::pool2(Tensor self, int[2] k, int[2] s=1) -> Tensor";
  SECTION("0-d Constant") {
    BindCase c(ModelFromText(R"(
      < ir_version: 7, opset_import: ["" : 13, "org.pytorch.aten" : 1] >
      g (float[1,1,4,4] x) => (float[1,1,2,2] y) {
        k = Constant<value = int64 {3}>()
        y = org.pytorch.aten.ATen<operator = "pool2", overload_name = "">(x, k)
      })"), sig);
    REQUIRE(c.Bind());
    CHECK(ToString(c["k"]) == "[3, 3]");
    CHECK(ToString(c["s"]) == "[1, 1]");
  }
  SECTION("1-element Constant") {
    BindCase c(ModelFromText(R"(
      < ir_version: 7, opset_import: ["" : 13, "org.pytorch.aten" : 1] >
      g (float[1,1,4,4] x) => (float[1,1,2,2] y) {
        k = Constant<value = int64[1] {3}>()
        y = org.pytorch.aten.ATen<operator = "pool2", overload_name = "">(x, k)
      })"), sig);
    REQUIRE(c.Bind());
    CHECK(ToString(c["k"]) == "[3, 3]");
  }
  SECTION("attributes, INT and 1-element INTS") {
    BindCase c(ModelFromText(R"(
      < ir_version: 7, opset_import: ["" : 13, "custom" : 1] >
      g (float[1,1,4,4] x) => (float[1,1,2,2] y) {
        y = custom.pool2<k = 3, s = [2]>(x)
      })"), sig);
    REQUIRE(c.Bind());
    CHECK(ToString(c["k"]) == "[3, 3]");
    CHECK(ToString(c["s"]) == "[2, 2]");
  }
  SECTION("a list of another length is refused") {
    BindCase c(ModelFromText(R"(
      < ir_version: 7, opset_import: ["" : 13, "org.pytorch.aten" : 1] >
      g (float[1,1,4,4] x) => (float[1,1,2,2] y) {
        k = Constant<value = int64[3] {1, 2, 3}>()
        y = org.pytorch.aten.ATen<operator = "pool2", overload_name = "">(x, k)
      })"), sig);
    REQUIRE_FALSE(c.Bind());
    CHECK(c.why == "argument 'k' (int[2]) has 3 elements ([1, 2, 3]); int[2] takes 2, or 1 to repeat");
  }
  SECTION("an empty list binds as empty when the default is [] (max_pool's stride=None)") {
    BindCase c(ModelFromText(R"(
      < ir_version: 7, opset_import: ["" : 13, "org.pytorch.aten" : 1] >
      g (float[1,1,4,4] x) => (float[1,1,2,2] y) {
        k = Constant<value = int64 {2}>()
        s = Constant<value = int64[0] {}>()
        y = org.pytorch.aten.ATen<operator = "pool2", overload_name = "">(x, k, s)
      })"), "aten::pool2(Tensor self, int[2] k, int[2] s=[]) -> Tensor");
    REQUIRE(c.Bind());
    CHECK(ToString(c["s"]) == "[]");
  }
  SECTION("an empty list is refused when the default is not []") {
    BindCase c(ModelFromText(R"(
      < ir_version: 7, opset_import: ["" : 13, "org.pytorch.aten" : 1] >
      g (float[1,1,4,4] x) => (float[1,1,2,2] y) {
        k = Constant<value = int64 {2}>()
        s = Constant<value = int64[0] {}>()
        y = org.pytorch.aten.ATen<operator = "pool2", overload_name = "">(x, k, s)
      })"), sig);
    REQUIRE_FALSE(c.Bind());
  }
  SECTION("int[] without a size takes any length") {
    BindCase c(ModelFromText(R"(
      < ir_version: 7, opset_import: ["" : 13, "org.pytorch.aten" : 1] >
      g (float[1,1,4,4] x) => (float[1,1,2,2] y) {
        k = Constant<value = int64[3] {1, 2, 3}>()
        y = org.pytorch.aten.ATen<operator = "pool2", overload_name = "">(x, k)
      })"), "aten::pool2(Tensor self, int[] k) -> Tensor");
    REQUIRE(c.Bind());
    CHECK(ToString(c["k"]) == "[1, 2, 3]");
  }
}

TEST_CASE("an empty input for an argument with a default takes the default", "[binding]") {
  auto model = ModelFromText(R"(
    < ir_version: 7, opset_import: ["" : 13, "org.pytorch.aten" : 1] >
    g (float[3,3] x) => (float[3,3] y) {
      y = org.pytorch.aten.ATen<operator = "tril", overload_name = "">(x, x)
    })");
  model.mutable_graph()->mutable_node(0)->set_input(1, "");
  BindCase c(model, "aten::tril(Tensor self, int diagonal=1) -> Tensor");
  REQUIRE(c.Bind());
  CHECK(ToString(c["diagonal"]) == "1");

  BindCase none(model, "aten::tril(Tensor self, int diagonal) -> Tensor");
  REQUIRE_FALSE(none.Bind());
  CHECK(none.why == "argument 'diagonal' (int) is None but not optional and has no default");

  BindCase optional(model, "aten::tril(Tensor self, int? diagonal=1) -> Tensor");
  REQUIRE(optional.Bind());
  CHECK(optional["diagonal"].is_none());  // None was passed explicitly
}

TEST_CASE("function attribute references are not read as constants", "[binding][function]") {
  RuleSet rules = RulesFromText(R"rule(
rule {
  id: "aten-tril"
  match { aten: "tril" }
  signature: "aten::tril(Tensor self, int diagonal=0) -> Tensor"
  alternative { min_opset: 14 replace: "k = Constant<value = ${diagonal}>()\n out = Trilu<upper = 0>(self, k)" }
}
rule {
  id: "custom-pool"
  match { domain: "custom" op_type: "pool" }
  signature: "custom::pool(Tensor x, int[2] k) -> Tensor"
  alternative { min_opset: 11 replace: "out = MaxPool<kernel_shape = ${k}>(x)" }
}
)rule");
  auto model = ModelFromText(R"(
    < ir_version: 8, opset_import: ["" : 15, "local" : 1] >
    g (float[1,1,4,4] x) => (float[1,1,4,4] y, float[1,1,2,2] z) {
      y = local.Block<alpha = 1, kk = [2, 2]>(x)
      z = local.Pool<kk = [2, 2]>(x)
    }
    < domain: "local", opset_import: ["" : 15, "org.pytorch.aten" : 1] >
    Block <alpha> (a) => (b) {
      c = Constant<value_int = @alpha>()
      b = org.pytorch.aten.ATen<operator = "tril", overload_name = "">(a, c)
    }
    < domain: "local", opset_import: ["" : 15, "custom" : 1] >
    Pool <kk> (a) => (b) {
      b = custom.pool<k = @kk>(a)
    })");
  // Exporters write the referenced attribute's type; the parser leaves it unset.
  model.mutable_functions(0)->mutable_node(0)->mutable_attribute(0)->set_type(onnx::AttributeProto::INT);
  model.mutable_functions(1)->mutable_node(0)->mutable_attribute(0)->set_type(onnx::AttributeProto::INTS);
  auto report = RewriteModel(&model, rules, {});
  REQUIRE(report.ok());
  CHECK(report->rewritten.empty());
  REQUIRE(report->remaining.size() == 2);
  CHECK(Contains(report->remaining[0].reason,
                 "argument 'diagonal' is not a constant: it is the function attribute @alpha, known only per call site"));
  CHECK(Contains(report->remaining[1].reason,
                 "argument 'k' is not a constant: it is the function attribute @kk, known only per call site"));
  CHECK(model.functions(0).node_size() == 2);  // left as it was
}

TEST_CASE("Tensor[] from SequenceConstruct or prim::ListConstruct binds as a list of tensors", "[binding][list]") {
  const char* sig = "aten::cat2(Tensor[] tensors, int dim=0) -> Tensor";
  SECTION("SequenceConstruct (opset >= 11)") {
    BindCase c(ModelFromText(R"(
      < ir_version: 7, opset_import: ["" : 13, "org.pytorch.aten" : 1] >
      g (float[2,3] x, int64[4] y) => (float[6,3] z) {
        s = SequenceConstruct(x, y)
        z = org.pytorch.aten.ATen<operator = "cat2", overload_name = "">(s)
      })"), sig);
    REQUIRE(c.Bind());
    const Value& v = c["tensors"];
    REQUIRE(v.kind == Value::Kind::kList);
    REQUIRE(v.list.size() == 2);
    CHECK(v.list[0].kind == Value::Kind::kTensor);
    CHECK(v.list[0].s == "x");
    CHECK(v.list[0].elem_type == onnx::TensorProto::FLOAT);
    CHECK(v.list[0].rank == 2);
    CHECK(v.list[1].s == "y");
    CHECK(v.list[1].elem_type == onnx::TensorProto::INT64);
    CHECK(v.list[1].rank == 1);
    CHECK(c.binding.Find("tensors")->input == "s");
  }
  SECTION("prim::ListConstruct (opset 9-10)") {
    BindCase c(ModelFromText(R"(
      < ir_version: 5, opset_import: ["" : 10, "org.pytorch.aten" : 1, "prim" : 1] >
      g (float[2,3] x, float[3,4] y) => (float[2,4] z) {
        l = prim.ListConstruct(x, y)
        z = org.pytorch.aten.ATen<operator = "cat2", overload_name = "">(l)
      })"), sig);
    REQUIRE(c.Bind());
    REQUIRE(c["tensors"].list.size() == 2);
    CHECK(c["tensors"].list[1].s == "y");
    CHECK(c["tensors"].list[1].rank == 2);
  }
  SECTION("Tensor?[]: an empty element is None; in Tensor[] it is refused") {
    auto model = ModelFromText(R"(
      < ir_version: 7, opset_import: ["" : 13, "org.pytorch.aten" : 1] >
      g (float[2,3] x, int64[2] i) => (float[2] z) {
        s = SequenceConstruct(i, , i)
        z = org.pytorch.aten.ATen<operator = "index", overload_name = "">(x, s)
      })");
    BindCase c(model, "aten::index(Tensor self, Tensor?[] indices) -> Tensor");
    REQUIRE(c.Bind());
    REQUIRE(c["indices"].list.size() == 3);
    CHECK(c["indices"].list[0].s == "i");
    CHECK(c["indices"].list[1].is_none());
    BindCase strict(model, "aten::index(Tensor self, Tensor[] indices) -> Tensor");
    REQUIRE_FALSE(strict.Bind());
    CHECK(strict.why == "argument 'indices' (Tensor[]): element 1 is None, but the elements are not optional (Tensor?[])");
  }
  SECTION("from anything else: refused") {
    auto model = ModelFromText(R"(
      < ir_version: 7, opset_import: ["" : 13, "org.pytorch.aten" : 1] >
      g (float[6,3] x) => (float[6,3] z) {
        s = SplitToSequence<axis = 0>(x)
        z = org.pytorch.aten.ATen<operator = "cat2", overload_name = "">(s)
      })");
    BindCase computed(model, sig);
    REQUIRE_FALSE(computed.Bind());
    CHECK(computed.why == "argument 'tensors' (Tensor[]) must come from a SequenceConstruct or prim::ListConstruct node "
                          "to know its elements: it is computed by node '' (SplitToSequence)");

    // A graph input of sequence type (the ONNX 1.12 text parser has no seq types).
    auto* graph = model.mutable_graph();
    graph->mutable_node()->DeleteSubrange(0, 1);
    auto* in = graph->add_input();
    in->set_name("s");
    in->mutable_type()->mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type()->set_elem_type(1);
    BindCase input(model, sig);
    REQUIRE_FALSE(input.Bind());
    CHECK(input.why == "argument 'tensors' (Tensor[]) must come from a SequenceConstruct or prim::ListConstruct node "
                       "to know its elements: it is the graph input 's'");
  }
}

TEST_CASE("rule expressions see Tensor[] as a list: len() and indexing", "[binding][list]") {
  RuleSet rules = RulesFromText(R"rule(
rule {
  id: "aten-cat2"
  match { aten: "cat2" }
  signature: "aten::cat2(Tensor[] tensors, int dim=0) -> Tensor"
  alternative {
    min_opset: 11
    when: "len(tensors) == 2 and rank(tensors[1]) == 2"
    replace: "out = ConcatFromSequence<axis = ${dim + len(tensors) - 2}>(tensors)"
  }
}
)rule");
  auto model = ModelFromText(R"(
    < ir_version: 7, opset_import: ["" : 13, "org.pytorch.aten" : 1] >
    g (float[2,3] x, float[4,3] y, float[4] w) => (float[6,3] z, float[6] v) {
      s = SequenceConstruct(x, y)
      z = org.pytorch.aten.ATen<operator = "cat2", overload_name = "">(s)
      t = SequenceConstruct(w, w)
      v = org.pytorch.aten.ATen<operator = "cat2", overload_name = "">(t)
    })");
  auto report = RewriteModel(&model, rules, {});
  REQUIRE(report.ok());
  REQUIRE(report->rewritten.size() == 1);
  REQUIRE(report->remaining.size() == 1);
  CHECK(Contains(report->remaining[0].reason, "when 'len(tensors) == 2 and rank(tensors[1]) == 2' is false"));
  // The replacement uses the sequence whole: its SequenceConstruct stays.
  const auto& nodes = model.graph().node();
  REQUIRE(nodes.size() == 4);
  CHECK(nodes[0].op_type() == "SequenceConstruct");
  CHECK(nodes[1].op_type() == "ConcatFromSequence");
  CHECK(nodes[1].input(0) == "s");
  CHECK(nodes[1].attribute(0).i() == 0);
}
