// The opset converter: each adapter carries a node across its operator's
// change (and back where the older form can express it); nodes in subgraphs
// and functions are converted too; what cannot cross is refused by name with
// the model left as it was. Numerics: tests/convert (ONNX's backend tests in
// onnxruntime at every opset).
#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <tuple>
#include <onnx/checker.h>

#include "convert/opset_converter.h"
#include "model/opset_import.h"
#include "test_models.h"

using namespace remap;
using remap::testing::ModelFromText;

namespace {

ConversionReport Convert(onnx::ModelProto* model, int to) {
  auto report = ConvertOpset(model, to);
  REQUIRE(report.ok());
  INFO((report->refused.empty() ? std::string() : DescribeRefusals(*report)));
  REQUIRE(report->refused.empty());
  REQUIRE(DefaultOpset(model->opset_import()) == to);
  return std::move(*report);
}

const onnx::NodeProto& Only(const onnx::GraphProto& g, const std::string& op_type) {
  const onnx::NodeProto* found = nullptr;
  for (const auto& n : g.node())
    if (n.op_type() == op_type) {
      REQUIRE(found == nullptr);
      found = &n;
    }
  REQUIRE(found != nullptr);
  return *found;
}

bool HasAttribute(const onnx::NodeProto& n, const std::string& name) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return true;
  return false;
}

const onnx::AttributeProto& Attribute(const onnx::NodeProto& n, const std::string& name) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return a;
  FAIL("no attribute " << name);
  return n.attribute(0);
}

// ONNX 1.12's checker (opsets up to 17), full check with shape inference.
void Check(const onnx::ModelProto& model) {
  REQUIRE_NOTHROW(onnx::checker::check_model(model));
}

}  // namespace

TEST_CASE("Squeeze/Unsqueeze axes become an input at 13 and an attribute again below", "[convert]") {
  auto model = ModelFromText(R"(
    < ir_version: 7, opset_import: ["" : 11] >
    g (float[1,3,1] x) => (float[1,3,1] y) {
      s = Squeeze<axes = [0, 2]>(x)
      y = Unsqueeze<axes = [0, 2]>(s)
    })");
  const std::string original = model.SerializeAsString();
  auto report = Convert(&model, 13);
  CHECK(report.converted.size() == 2);
  CHECK(Only(model.graph(), "Squeeze").input_size() == 2);
  CHECK_FALSE(HasAttribute(Only(model.graph(), "Squeeze"), "axes"));
  Check(model);
  Convert(&model, 11);
  CHECK(model.graph().node_size() == 2);  // the axes Constants went with their use
  CHECK(Attribute(Only(model.graph(), "Squeeze"), "axes").ints_size() == 2);
  Check(model);
}

TEST_CASE("ReduceMean axes move at 18, noop_with_empty_axes lowers to Identity", "[convert]") {
  auto model = ModelFromText(R"(
    < ir_version: 8, opset_import: ["" : 17] >
    g (float[2,3] x) => (float[2] y, float z) {
      y = ReduceMean<axes = [1], keepdims = 0>(x)
      z = ReduceMean<keepdims = 0>(x)
    })");
  Convert(&model, 18);
  int with_axes_input = 0;
  for (const auto& n : model.graph().node())
    if (n.op_type() == "ReduceMean") with_axes_input += n.input_size() == 2;
  CHECK(with_axes_input == 1);
  Convert(&model, 17);
  for (const auto& n : model.graph().node()) CHECK(n.op_type() == "ReduceMean");
  Check(model);

  auto noop = ModelFromText(R"(
    < ir_version: 8, opset_import: ["" : 18] >
    g (float[2,3] x) => (float[2,3] y) {
      y = ReduceSum<noop_with_empty_axes = 1>(x)
    })");
  Convert(&noop, 12);
  CHECK(Only(noop.graph(), "Identity").input_size() == 1);
}

TEST_CASE("Split: split becomes an input at 13, num_outputs at 18 where it was implicit", "[convert]") {
  auto model = ModelFromText(R"(
    < ir_version: 7, opset_import: ["" : 12] >
    g (float[6] x) => (float[2] a, float[4] b, float[3] c, float[3] d) {
      a, b = Split<split = [2, 4]>(x)
      c, d = Split(x)
    })");
  Convert(&model, 18);
  int num_outputs = 0, split_inputs = 0;
  for (const auto& n : model.graph().node()) {
    if (n.op_type() != "Split") continue;
    num_outputs += HasAttribute(n, "num_outputs");
    split_inputs += n.input_size() == 2;
    CHECK_FALSE(HasAttribute(n, "split"));
  }
  CHECK(num_outputs == 1);
  CHECK(split_inputs == 1);

  // num_outputs with a smaller last part, lowered: the sizes are spelled out.
  auto uneven = ModelFromText(R"(
    < ir_version: 8, opset_import: ["" : 18] >
    g (float[7] x) => (float[3] a, float[3] b, float[1] c) {
      a, b, c = Split<num_outputs = 3>(x)
    })");
  Convert(&uneven, 13);
  CHECK(Only(uneven.graph(), "Split").input_size() == 2);
  Check(uneven);
}

TEST_CASE("Slice, TopK, Pad, Clip: attributes become inputs and back", "[convert]") {
  auto model = ModelFromText(R"(
    < ir_version: 4, opset_import: ["" : 9] >
    g (float[4,5] x) => (float[2,5] s, float[4,2] v, int64[4,2] i, float[6,5] p, float[4,5] c) {
      s = Slice<starts = [1], ends = [3], axes = [0]>(x)
      v, i = TopK<k = 2>(x)
      p = Pad<pads = [1, 0, 1, 0], value = 2.5>(x)
      c = Clip<min = -1.0, max = 1.0>(x)
    })");
  Convert(&model, 11);
  CHECK(Only(model.graph(), "Slice").input_size() == 4);
  CHECK(Only(model.graph(), "TopK").input_size() == 2);
  CHECK(Only(model.graph(), "Pad").input_size() == 3);
  CHECK(Only(model.graph(), "Clip").input_size() == 3);
  Check(model);
  Convert(&model, 9);
  CHECK(model.graph().node_size() == 4);
  CHECK(Attribute(Only(model.graph(), "Pad"), "value").f() == 2.5f);
  CHECK(Attribute(Only(model.graph(), "TopK"), "k").i() == 2);
  Check(model);
}

TEST_CASE("Upsample becomes Resize with Resize-10's coordinate rules spelled out", "[convert]") {
  auto model = ModelFromText(R"(
    < ir_version: 3, opset_import: ["" : 8] >
    g (float[1,1,2,2] x) => (float[1,1,4,4] y) {
      y = Upsample<mode = "nearest", scales = [1.0, 1.0, 2.0, 2.0]>(x)
    })");
  Convert(&model, 13);
  const onnx::NodeProto& resize = Only(model.graph(), "Resize");
  CHECK(resize.input_size() == 3);
  CHECK(Attribute(resize, "coordinate_transformation_mode").s() == "asymmetric");
  CHECK(Attribute(resize, "nearest_mode").s() == "floor");
  Check(model);
  Convert(&model, 9);
  CHECK(Only(model.graph(), "Upsample").input_size() == 2);
  Check(model);
}

TEST_CASE("Dropout's mask keeps its type across 10, ratio becomes an input at 12", "[convert]") {
  auto model = ModelFromText(R"(
    < ir_version: 4, opset_import: ["" : 9] >
    g (float[3] x) => (float[3] y, float[3] m) {
      y, m = Dropout<ratio = 0.25>(x)
    })");
  Convert(&model, 12);
  const onnx::NodeProto& cast = Only(model.graph(), "Cast");
  CHECK(cast.output(0) == "m");
  CHECK(Attribute(cast, "to").i() == onnx::TensorProto::FLOAT);
  CHECK(Only(model.graph(), "Dropout").input_size() == 2);
  Check(model);
}

TEST_CASE("Softmax below 13 coerced to 2-D: flattened where the axis is not the last", "[convert]") {
  auto model = ModelFromText(R"(
    < ir_version: 7, opset_import: ["" : 12] >
    g (float[2,3,4] x) => (float[2,3,4] y, float[2,3,4] z) {
      y = Softmax<axis = 1>(x)
      z = LogSoftmax<axis = 2>(x)
    })");
  Convert(&model, 13);
  CHECK(Attribute(Only(model.graph(), "LogSoftmax"), "axis").i() == -1);
  CHECK(Only(model.graph(), "Flatten").output(0) == Only(model.graph(), "Softmax").input(0));
  CHECK(Only(model.graph(), "Reshape").output(0) == "y");
  Check(model);

  auto newer = ModelFromText(R"(
    < ir_version: 7, opset_import: ["" : 13] >
    g (float[2,3,4] x) => (float[2,3,4] y) {
      y = Softmax<axis = 1>(x)
    })");
  Convert(&newer, 11);
  CHECK(newer.graph().node_size() == 3);  // moved last by Transpose, and back
  CHECK(Attribute(Only(newer.graph(), "Softmax"), "axis").i() == 2);
  Check(newer);
}

TEST_CASE("OneHot, Scatter, BatchNormalization, RoiAlign, GridSample, DFT, GroupNormalization", "[convert]") {
  auto model = ModelFromText(R"(
    < ir_version: 4, opset_import: ["" : 10] >
    g (int64[3] i, float[2] depth_values, float[3,3] data, int64[1,3] idx, float[1,3] upd) => (float[3,4] o, float[3,3] s) {
      depth = Constant<value = int64 {4}>()
      o = OneHot(i, depth, depth_values)
      s = Scatter<axis = 0>(data, idx, upd)
    })");
  Convert(&model, 11);
  CHECK(Only(model.graph(), "Where").output(0) == Only(model.graph(), "OneHot").input(0));
  CHECK(Only(model.graph(), "ScatterElements").input_size() == 3);
  Check(model);

  auto bn = ModelFromText(R"(
    < ir_version: 3, opset_import: ["" : 8] >
    g (float[1,2,3] x, float[2] s, float[2] b, float[2] m, float[2] v) => (float[1,2,3] y) {
      y = BatchNormalization<spatial = 1>(x, s, b, m, v)
    })");
  Convert(&bn, 15);
  CHECK(Only(bn.graph(), "BatchNormalization").attribute_size() == 0);
  Check(bn);

  auto roi = ModelFromText(R"(
    < ir_version: 7, opset_import: ["" : 15] >
    g (float[1,1,4,4] x, float[1,4] rois, int64[1] batch) => (float[1,1,2,2] y) {
      y = RoiAlign<output_height = 2, output_width = 2, spatial_scale = 0.5>(x, rois, batch)
    })");
  Convert(&roi, 16);
  CHECK(Attribute(Only(roi.graph(), "RoiAlign"), "coordinate_transformation_mode").s() == "output_half_pixel");
  Convert(&roi, 15);
  CHECK_FALSE(HasAttribute(Only(roi.graph(), "RoiAlign"), "coordinate_transformation_mode"));
  Check(roi);

  auto grid = ModelFromText(R"(
    < ir_version: 8, opset_import: ["" : 16] >
    g (float[1,1,4,4] x, float[1,2,2,2] g) => (float[1,1,2,2] y) {
      y = GridSample<mode = "bicubic">(x, g)
    })");
  Convert(&grid, 20);
  CHECK(Attribute(Only(grid.graph(), "GridSample"), "mode").s() == "cubic");

  auto dft = ModelFromText(R"(
    < ir_version: 8, opset_import: ["" : 17] >
    g (float[1,8,1] x) => (float[1,8,2] y) {
      y = DFT(x)
    })");
  Convert(&dft, 20);
  CHECK(Only(dft.graph(), "DFT").input_size() == 3);
  CHECK(Only(dft.graph(), "DFT").input(1).empty());

  auto group = ModelFromText(R"(
    < ir_version: 8, opset_import: ["" : 18] >
    g (float[1,4,3] x, float[2] s, float[2] b) => (float[1,4,3] y) {
      y = GroupNormalization<num_groups = 2>(x, s, b)
    })");
  Convert(&group, 21);
  CHECK(Only(group.graph(), "GroupNormalization").input(1) != "s");
}

TEST_CASE("nodes in If branches and model-local functions are converted", "[convert]") {
  auto model = ModelFromText(R"(
    < ir_version: 8, opset_import: ["" : 12, "local" : 1] >
    g (bool c, float[1,3] x) => (float[3] y, float[1,1,3] z) {
      y = If(c) <
        then_branch = t () => (float[3] a) { a = Squeeze<axes = [0]>(x) },
        else_branch = e () => (float[3] b) { b = Squeeze<axes = [0]>(x) }
      >
      z = local.AddDim(x)
    }
    < domain: "local", opset_import: ["" : 12] >
    AddDim (v) => (w) {
      w = Unsqueeze<axes = [0]>(v)
    })");
  auto report = Convert(&model, 13);
  CHECK(report.converted.size() == 3);
  for (const auto& attr : model.graph().node(0).attribute()) {
    REQUIRE(attr.g().node_size() == 2);
    CHECK(attr.g().node(1).input_size() == 2);
  }
  REQUIRE(model.functions_size() == 1);
  CHECK(DefaultOpset(model.functions(0).opset_import()) == 13);
  int unsqueeze_inputs = 0;
  for (const auto& n : model.functions(0).node())
    if (n.op_type() == "Unsqueeze") unsqueeze_inputs = n.input_size();
  CHECK(unsqueeze_inputs == 2);
}

TEST_CASE("what cannot cross is refused by name, and the model is left as it was", "[convert]") {
  auto model = ModelFromText(R"(
    < ir_version: 8, opset_import: ["" : 17] >
    g (float[1,2,3] x, float[3] s) => (float[1,2,3] y) {
      y = LayerNormalization(x, s)
    })");
  model.mutable_graph()->mutable_node(0)->set_name("the_norm");
  const std::string before = model.SerializeAsString();
  auto report = ConvertOpset(&model, 13);
  REQUIRE(report.ok());
  REQUIRE(report->refused.size() == 1);
  CHECK(DescribeRefusals(*report).find("'the_norm' (LayerNormalization): LayerNormalization does not exist before opset 17") !=
        std::string::npos);
  CHECK(model.SerializeAsString() == before);

  auto transposed = ModelFromText(R"(
    < ir_version: 5, opset_import: ["" : 10] >
    g (float[1,1,3,3] x, float[1,1,3,3] w) => (float[1,1,6,6] y) {
      y = ConvTranspose<auto_pad = "SAME_UPPER", strides = [2, 2]>(x, w)
    })");
  auto refused = ConvertOpset(&transposed, 11);
  REQUIRE(refused.ok());
  REQUIRE(refused->refused.size() == 1);
  CHECK(refused->refused[0].refusal.find("auto_pad SAME_UPPER") != std::string::npos);

  CHECK_FALSE(ConvertOpset(&transposed, 6).ok());
  CHECK_FALSE(ConvertOpset(&transposed, 99).ok());
}

TEST_CASE("a node missing inputs its schema requires is refused before any adapter reads them", "[convert]") {
  // model_fuzzer found a Softmax with no input: its adapter read input 0 and aborted.
  for (auto [op, from, to] : {std::tuple{"Softmax", 11, 18}, std::tuple{"Softmax", 13, 11},
                               std::tuple{"Unsqueeze", 11, 13}, std::tuple{"ReduceMean", 17, 18}}) {
    INFO(op << " " << from << " -> " << to);
    auto model = ModelFromText(fmt::format(R"(
      < ir_version: 7, opset_import: ["" : {}] >
      g (float[2,3] x) => (float[2,3] y) {{
        y = Relu(x)
      }})", from));
    onnx::NodeProto* node = model.mutable_graph()->add_node();
    node->set_op_type(op);
    node->set_name("empty");
    node->add_output("z");
    const std::string before = model.SerializeAsString();
    auto report = ConvertOpset(&model, to);
    REQUIRE(report.ok());
    REQUIRE(report->refused.size() == 1);
    CHECK(report->refused[0].refusal ==
          fmt::format("{} has 0 inputs and 1 outputs where opset {} requires at least 1 and 1", op, from));
    CHECK(model.SerializeAsString() == before);
  }
}

TEST_CASE("lowering: optional inputs, added outputs, negative axes, types the older schema lacks", "[convert]") {
  auto gemm = ModelFromText(R"(
    < ir_version: 7, opset_import: ["" : 13] >
    g (float[2,3] a, float[3,4] b) => (float[2,4] y) {
      y = Gemm(a, b)
    })");
  Convert(&gemm, 9);
  CHECK(Only(gemm.graph(), "Gemm").input_size() == 3);  // a zero C
  Check(gemm);

  auto pool = ModelFromText(R"(
    < ir_version: 7, opset_import: ["" : 12] >
    g (float[1,1,4,4] x) => (float[1,1,2,2] y, int64[1,1,2,2] i) {
      y, i = MaxPool<kernel_shape = [2, 2], strides = [2, 2]>(x)
    })");
  auto refused = ConvertOpset(&pool, 7);
  REQUIRE(refused.ok());
  REQUIRE(refused->refused.size() == 1);
  CHECK(refused->refused[0].refusal.find("Indices output does not exist before opset 8") != std::string::npos);

  auto flat = ModelFromText(R"(
    < ir_version: 7, opset_import: ["" : 13] >
    g (float[2,3,4] x) => (float[6,4] y) {
      y = Flatten<axis = -1>(x)
    })");
  Convert(&flat, 9);
  CHECK(Attribute(Only(flat.graph(), "Flatten"), "axis").i() == 2);
  Check(flat);

  auto add = ModelFromText(R"(
    < ir_version: 7, opset_import: ["" : 14] >
    g (uint8[3] x, uint8[3] y) => (uint8[3] z) {
      z = Add(x, y)
    })");
  auto typed = ConvertOpset(&add, 13);
  REQUIRE(typed.ok());
  REQUIRE(typed->refused.size() == 1);
  CHECK(typed->refused[0].refusal.find("Add does not take tensor(uint8)") != std::string::npos);

  auto bn = ModelFromText(R"(
    < ir_version: 7, opset_import: ["" : 15] >
    g (float[2,2,3] x, float[2] s, float[2] b, float[2] m, float[2] v) => (float[2,2,3] y, float[2] rm, float[2] rv) {
      y, rm, rv = BatchNormalization<training_mode = 1>(x, s, b, m, v)
    })");
  Convert(&bn, 13);
  CHECK(Only(bn.graph(), "BatchNormalization").output_size() == 5);  // training: five outputs before 14
  CHECK_FALSE(HasAttribute(Only(bn.graph(), "BatchNormalization"), "training_mode"));
  Check(bn);

  auto resize = ModelFromText(R"(
    < ir_version: 7, opset_import: ["" : 13] >
    g (float[1,1,2,2] x, int64[4] sizes) => (float[1,1,4,4] y) {
      y = Resize<mode = "nearest">(x, , , sizes)
    })");
  Convert(&resize, 11);
  const onnx::NodeProto& r = Only(resize.graph(), "Resize");
  CHECK(!r.input(1).empty());
  CHECK(!r.input(2).empty());  // roi and scales are required before 13: empty tensors
  Check(resize);

  auto group = ModelFromText(R"(
    < ir_version: 10, opset_import: ["" : 21] >
    g (float[1,4,3] x) => (float[1,4,3] y) {
      s = Constant<value = float[4] {1.0, 1.0, 2.0, 2.0}>()
      b = Constant<value = float[4] {0.0, 0.0, 0.5, 0.5}>()
      y = GroupNormalization<num_groups = 2>(x, s, b)
    })");
  Convert(&group, 18);
  CHECK(Only(group.graph(), "GroupNormalization").input(1) != "s");
  auto uneven = ModelFromText(R"(
    < ir_version: 10, opset_import: ["" : 21] >
    g (float[1,4,3] x, float[4] s, float[4] b) => (float[1,4,3] y) {
      y = GroupNormalization<num_groups = 2>(x, s, b)
    })");
  auto per_channel = ConvertOpset(&uneven, 18);
  REQUIRE(per_channel.ok());
  CHECK(per_channel->refused.size() == 1);

  auto dft = ModelFromText(R"(
    < ir_version: 9, opset_import: ["" : 20] >
    g (float[1,8,1] x) => (float[1,8,2] y) {
      y = DFT(x, , )
    })");
  Convert(&dft, 17);
  CHECK(Attribute(Only(dft.graph(), "DFT"), "axis").i() == -2);

  auto grid = ModelFromText(R"(
    < ir_version: 9, opset_import: ["" : 20] >
    g (float[1,1,4,4] x, float[1,2,2,2] g) => (float[1,1,2,2] y) {
      y = GridSample<mode = "linear">(x, g)
    })");
  Convert(&grid, 16);
  CHECK(Attribute(Only(grid.graph(), "GridSample"), "mode").s() == "bilinear");
}
