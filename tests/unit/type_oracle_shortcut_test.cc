// The type oracle skips ONNX's inference for the operators InfersFromFirstInput
// names (it copies input 0's type to the output), and for those
// UntypedWithoutFirstInput names when input 0 has no type (it leaves the node
// untyped, where ONNX would throw). Both rest on what ONNX 1.12's inference
// functions do; this checks them against the linked library, schema version
// by schema version.
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include <catch2/catch.hpp>
#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include "model/graph_index.h"
#include "model/type_oracle.h"
#include "test_models.h"

namespace {

onnx::TypeProto Tensor(int elem_type, int rank) {
  onnx::TypeProto t;
  t.mutable_tensor_type()->set_elem_type(elem_type);
  auto* shape = t.mutable_tensor_type()->mutable_shape();
  for (int k = 0; k < rank; ++k) shape->add_dim()->set_dim_value(3 + k);
  return t;
}

}  // namespace

TEST_CASE("ONNX infers the operators the oracle propagates from input 0 as it assumes", "[type_oracle]") {
  int checked = 0;
  int untyped = 0;
  for (const onnx::OpSchema& schema : onnx::OpSchemaRegistry::get_all_schemas_with_history()) {
    if (!schema.domain().empty() || !schema.has_type_and_shape_inference_function()) continue;
    onnx::NodeProto node;
    node.set_op_type(schema.Name());
    for (int k = 0; k < std::max(1, schema.min_input()); ++k) node.add_input("in" + std::to_string(k));
    node.add_output("y");
    if (!remap::InfersFromFirstInput(node, schema)) continue;
    ++checked;
    INFO(schema.Name() << "-" << schema.since_version());
    // The other inputs (CumSum's axis) typed as ONNX allows them.
    onnx::TypeProto axis = Tensor(onnx::TensorProto::INT64, 0);
    std::unordered_map<std::string, onnx::TypeProto*> types;
    for (int k = 1; k < node.input_size(); ++k) types[node.input(k)] = &axis;

    // Input 0 untyped: ONNX throws, so the node types nothing; where it
    // does not (Not types its output bool), the oracle calls it.
    {
      onnx::shape_inference::InferenceContextImpl ctx(node, types, {}, {}, nullptr, nullptr);
      if (remap::UntypedWithoutFirstInput(node, schema)) {
        ++untyped;
        CHECK_THROWS(schema.GetTypeAndShapeInferenceFunction()(ctx));
      } else {
        CHECK_NOTHROW(schema.GetTypeAndShapeInferenceFunction()(ctx));
      }
    }
    // Input 0 typed (a type every such operator allows, at the rank Trilu needs):
    // the output gets exactly that type.
    onnx::TypeProto in = Tensor(schema.Name() == "Not" ? onnx::TensorProto::BOOL : onnx::TensorProto::FLOAT, 2);
    types[node.input(0)] = &in;
    onnx::shape_inference::InferenceContextImpl ctx(node, types, {}, {}, nullptr, nullptr);
    REQUIRE_NOTHROW(schema.GetTypeAndShapeInferenceFunction()(ctx));
    const onnx::TypeProto* out = ctx.getOutputType(0);
    REQUIRE(out != nullptr);
    CHECK(out->SerializeAsString() == in.SerializeAsString());
  }
  // The 35 same-type unary operators at each of their versions, CumSum 11 and 14, Trilu 14.
  CHECK(checked >= 40);
  CHECK(untyped >= 40);
}

TEST_CASE("past a value no rule types, the oracle leaves a chain untyped and still types what ONNX types", "[type_oracle]") {
  // u comes from an operator nobody types; after it, Relu and Trilu (which
  // ONNX cannot type without their input's type) stay untyped, Not is bool
  // whatever its input (ONNX's inference of it runs), and a Cast has the type
  // it names.
  auto model = remap::testing::ModelFromText(R"(
    < ir_version: 8, opset_import: ["" : 14, "org.pytorch.aten" : 1] >
    g (float[2, 3] x) => (float[2, 3] y) {
      u = org.pytorch.aten.ATen<operator = "no_such_op">(x)
      r = Relu(u)
      t = Trilu(r)
      n = Not(t)
      c = Cast<to = 7>(t)
      y = Sigmoid(x)
    })");
  remap::GraphIndex index = remap::GraphIndex::ForGraph(model.graph());
  remap::TypeOracle oracle(&index, {{"", 14}, {"org.pytorch.aten", 1}});
  index.AttachTypeOracle(&oracle);
  CHECK(oracle.TypeOf("r").elem_type == 0);
  CHECK(oracle.TypeOf("t").elem_type == 0);
  CHECK(oracle.TypeOf("n").elem_type == onnx::TensorProto::BOOL);
  CHECK(oracle.TypeOf("c").elem_type == onnx::TensorProto::INT64);
  const remap::TensorType y = oracle.TypeOf("y");
  CHECK(y.elem_type == onnx::TensorProto::FLOAT);
  CHECK(y.rank == 2);
}

TEST_CASE("the same-type unary operators are 35 ONNX operator names, matched whole", "[type_oracle]") {
  std::set<std::string> named;
  for (const onnx::OpSchema& schema : onnx::OpSchemaRegistry::get_all_schemas_with_history()) {
    if (schema.domain().empty() && remap::SameTypeAsInput(schema.Name())) named.insert(schema.Name());
  }
  CHECK(named.size() == 35);
  // Each is matched as a whole name, in its own case.
  for (const std::string& op : named) {
    INFO(op);
    const std::string shorter = op.substr(0, op.size() - 1);  // Acosh's is Acos, itself one
    CHECK(remap::SameTypeAsInput(shorter) == (named.count(shorter) > 0));
    CHECK_FALSE(remap::SameTypeAsInput(op + "x"));
    std::string lower = op;
    lower[0] = static_cast<char>(lower[0] - 'A' + 'a');
    CHECK_FALSE(remap::SameTypeAsInput(lower));
  }
  CHECK_FALSE(remap::SameTypeAsInput(""));
  CHECK_FALSE(remap::SameTypeAsInput("Relu6"));
  CHECK_FALSE(remap::SameTypeAsInput("Shrink"));
}

TEST_CASE("ONNX infers the two-input operators the oracle types from equal inputs as it assumes", "[type_oracle]") {
  int checked = 0;
  for (const onnx::OpSchema& schema : onnx::OpSchemaRegistry::get_all_schemas_with_history()) {
    if (!schema.domain().empty() || !remap::SameTypeAsEqualInputs(schema.Name()) ||
        !schema.has_type_and_shape_inference_function())
      continue;
    ++checked;
    INFO(schema.Name() << "-" << schema.since_version());
    for (int elem_type : {onnx::TensorProto::FLOAT, onnx::TensorProto::INT64, onnx::TensorProto::DOUBLE}) {
      for (int rank : {0, 1, 3}) {
        onnx::NodeProto node;
        node.set_op_type(schema.Name());
        node.add_input("a");
        node.add_input("b");
        node.add_output("y");
        onnx::TypeProto a = Tensor(elem_type, rank);
        onnx::TypeProto b = Tensor(elem_type, rank);
        std::unordered_map<std::string, onnx::TypeProto*> types{{"a", &a}, {"b", &b}};
        onnx::shape_inference::InferenceContextImpl ctx(node, types, {}, {}, nullptr, nullptr);
        REQUIRE_NOTHROW(schema.GetTypeAndShapeInferenceFunction()(ctx));
        const onnx::TypeProto* out = ctx.getOutputType(0);
        REQUIRE(out != nullptr);
        CHECK(out->SerializeAsString() == a.SerializeAsString());
      }
    }
  }
  // Add, Sub, Mul and Div at 6, 7, 13 and 14 (1 has no inference function).
  CHECK(checked >= 16);
}

TEST_CASE("the oracle types a two-input elementwise node from equal static inputs, and leaves the rest to ONNX",
          "[type_oracle]") {
  auto model = remap::testing::ModelFromText(R"(
    < ir_version: 8, opset_import: ["" : 14] >
    g (float[2, 3] x, float[2, 3] z, float[2, 1] c, float[N, 3] s, int64[2, 3] i) => (float[2, 3] y) {
      same = Add(x, x)
      equal = Mul(x, z)
      broadcast = Sub(x, c)
      symbolic = Div(s, s)
      mixed = Add(x, i)
      y = Relu(same)
    })");
  remap::GraphIndex index = remap::GraphIndex::ForGraph(model.graph());
  remap::TypeOracle oracle(&index, {{"", 14}});
  index.AttachTypeOracle(&oracle);
  // The shortcut hands on input 0's own type object; ONNX's inference makes
  // a new one.
  const onnx::TypeProto& x = model.graph().input(0).type();
  CHECK(oracle.TypeProtoOf("same") == &x);
  CHECK(oracle.TypeProtoOf("equal") == &x);
  // Broadcast, symbolic dims, mixed element types: ONNX's inference, as before.
  bool known = false;
  CHECK(index.StaticDims("broadcast", &known) == std::vector<int64_t>{2, 3});
  CHECK(known);
  CHECK(oracle.TypeProtoOf("broadcast") != &x);
  const remap::TensorType symbolic = oracle.TypeOf("symbolic");
  CHECK(symbolic.elem_type == onnx::TensorProto::FLOAT);
  CHECK(symbolic.rank == 2);
  CHECK(oracle.TypeProtoOf("symbolic") != &model.graph().input(3).type());
  CHECK(oracle.TypeProtoOf("mixed") != &x);
}

TEST_CASE("the oracle types a chain of same-type operators through its entries' links", "[type_oracle]") {
  // d ends a chain from x; c and d pass on b's recorded type, not x's; past
  // the untyped u, Tanh stays untyped but Not is bool whatever its input
  // (ONNX's inference of it runs, as without links).
  auto model = remap::testing::ModelFromText(R"(
    < ir_version: 8, opset_import: ["" : 14, "org.pytorch.aten" : 1] >
    g (float[2, 3] x) => (float[2, 3] y) {
      a = Relu(x)
      b = Neg(a)
      c = Sigmoid(b)
      d = Abs(c)
      u = org.pytorch.aten.ATen<operator = "no_such_op">(x)
      r1 = Relu(u)
      r2 = Tanh(r1)
      n = Not(r2)
      y = Relu(x)
    })");
  // b's type recorded as [2, N] (the parser of ONNX 1.12 writes no value_info).
  onnx::ValueInfoProto* b_info = model.mutable_graph()->add_value_info();
  b_info->set_name("b");
  b_info->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  auto* b_shape = b_info->mutable_type()->mutable_tensor_type()->mutable_shape();
  b_shape->add_dim()->set_dim_value(2);
  b_shape->add_dim()->set_dim_param("N");
  remap::GraphIndex index = remap::GraphIndex::ForGraph(model.graph());
  const remap::GraphIndex& entries = index;
  // Links where the model records no type; b's recorded type stands instead.
  REQUIRE(entries.Find("a")->same_type_as() == entries.Find("x"));
  CHECK(entries.Find("b")->same_type_as() == nullptr);
  CHECK(entries.Find("d")->same_type_as() == entries.Find("c"));
  CHECK(entries.Find("u")->same_type_as() == nullptr);
  CHECK(entries.Find("n")->same_type_as() == entries.Find("r2"));
  remap::TypeOracle oracle(&index, {{"", 14}, {"org.pytorch.aten", 1}});
  index.AttachTypeOracle(&oracle);

  const onnx::TypeProto* d = oracle.TypeProtoOf("d");
  REQUIRE(d != nullptr);
  CHECK(d->SerializeAsString() == b_info->type().SerializeAsString());
  CHECK(oracle.nodes_typed() == 2);  // c and d: b is recorded
  CHECK(oracle.TypeProtoOf("c") == d);
  CHECK(oracle.nodes_typed() == 2);
  const remap::TensorType a = oracle.TypeOf("a");
  CHECK(a.elem_type == onnx::TensorProto::FLOAT);
  CHECK(a.rank == 2);

  CHECK(oracle.TypeProtoOf("r2") == nullptr);
  CHECK(oracle.TypeProtoOf("r1") == nullptr);
  CHECK(oracle.TypeOf("n").elem_type == onnx::TensorProto::BOOL);

  // A new producer may not pass its input's type on: the link goes with the old one.
  index.ForgetProducer("d");
  CHECK(entries.Find("d")->same_type_as() == nullptr);
}

TEST_CASE("links around a cycle, which only a broken graph has, end the walk untyped", "[type_oracle]") {
  auto model = remap::testing::ModelFromText(R"(
    < ir_version: 8, opset_import: ["" : 14] >
    g (float[2] x) => (float[2] y) {
      a = Relu(b)
      b = Neg(a)
      y = Relu(x)
    })");
  remap::GraphIndex index = remap::GraphIndex::ForGraph(model.graph());
  const remap::GraphIndex& entries = index;
  REQUIRE(entries.Find("a")->same_type_as() == entries.Find("b"));
  REQUIRE(entries.Find("b")->same_type_as() == entries.Find("a"));
  remap::TypeOracle oracle(&index, {{"", 14}});
  index.AttachTypeOracle(&oracle);
  CHECK(oracle.TypeProtoOf("a") == nullptr);
  CHECK(oracle.TypeProtoOf("b") == nullptr);
  CHECK(oracle.TypeOf("y").elem_type == onnx::TensorProto::FLOAT);
}

TEST_CASE("TypeAndDims answers as TypeOf and StaticDims do, in one lookup", "[type_oracle]") {
  // Recorded, partly recorded, inferred (through links, from an initializer,
  // by ONNX), symbolic, scalar, untyped and unknown values.
  auto model = remap::testing::ModelFromText(R"(
    < ir_version: 8, opset_import: ["" : 14, "org.pytorch.aten" : 1] >
    g (float[2, 3] x, float[N, 3] s, float k) => (float[2, 3] y)
      < float[3] w = {1, 2, 3} > {
      r = Relu(x)
      rs = Neg(s)
      a = Add(w, w)
      p = Relu(x)
      m = MatMul(x, w)
      u = org.pytorch.aten.ATen<operator = "no_such_op">(x)
      ru = Relu(u)
      kk = Neg(k)
      y = Relu(r)
    })");
  // p recorded as float with no shape: the record stands, with no rank.
  onnx::ValueInfoProto* p_info = model.mutable_graph()->add_value_info();
  p_info->set_name("p");
  p_info->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  const std::vector<std::string> names = {"x", "s", "k", "w", "r", "rs", "a", "p", "m", "u", "ru", "kk", "y", "none"};

  for (bool with_oracle : {true, false}) {
    // The same questions, in the same order, of two like indexes: the walks
    // one makes leave the same types behind as the other's.
    remap::GraphIndex apart = remap::GraphIndex::ForGraph(model.graph());
    remap::GraphIndex fused = remap::GraphIndex::ForGraph(model.graph());
    const std::unordered_map<std::string, int> opsets = {{"", 14}, {"org.pytorch.aten", 1}};
    remap::TypeOracle apart_oracle(&apart, opsets), fused_oracle(&fused, opsets);
    if (with_oracle) {
      apart.AttachTypeOracle(&apart_oracle);
      fused.AttachTypeOracle(&fused_oracle);
    }
    for (const std::string& name : names) {
      CAPTURE(with_oracle, name);
      const remap::TensorType type = apart.TypeOf(name);
      std::vector<int64_t> dims;
      if (type.rank > 0) {
        bool known = false;
        std::vector<int64_t> static_dims = apart.StaticDims(name, &known);
        if (known && static_cast<int>(static_dims.size()) == type.rank) dims = std::move(static_dims);
      }
      std::vector<int64_t> fused_dims;
      const remap::TensorType fused_type = fused.TypeAndDims(name, &fused_dims);
      CHECK(fused_type.elem_type == type.elem_type);
      CHECK(fused_type.rank == type.rank);
      CHECK(fused_dims == dims);
    }
    if (with_oracle) {
      // The cases are the ones meant: dims from a shape, symbolic, from an initializer, none.
      std::vector<int64_t> dims;
      CHECK(fused.TypeAndDims("m", &dims).rank == 1);
      CHECK(dims == std::vector<int64_t>{2});
      dims.clear();
      CHECK(fused.TypeAndDims("rs", &dims).rank == 2);
      CHECK(dims == std::vector<int64_t>{-1, 3});
      dims.clear();
      CHECK(fused.TypeAndDims("w", &dims).rank == 1);
      CHECK(dims == std::vector<int64_t>{3});
      dims.clear();
      CHECK(fused.TypeAndDims("p", &dims).rank == -1);
      CHECK(dims.empty());
      CHECK(fused.TypeAndDims("ru", &dims).rank == -1);
      CHECK(fused.TypeAndDims("kk", &dims).rank == 0);
      CHECK(dims.empty());
    }
  }
}
