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
