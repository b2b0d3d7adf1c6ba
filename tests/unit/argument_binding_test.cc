// Binding a node's inputs and attributes to a signature: list broadcasting,
// defaults for empty inputs, function-attribute references and Tensor[] lists.
#include <catch2/catch.hpp>

#include "engine/argument_binding.h"
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
