// Upsample: scales moved to an input (9), then the operator was replaced by
// Resize (10). Resize gained roi/sizes inputs and coordinate modes (11, where
// Resize-10's behaviour is "asymmetric", and "floor" for nearest), and lost
// tf_half_pixel_for_nn while roi and scales became optional (13).
#include <fmt/format.h>

#include "convert/adapters/adapters.h"
#include "convert/adapters/attribute_moves.h"
#include "convert/opset_adapter.h"

namespace remap {

namespace {

std::string StringAttribute(const onnx::NodeProto& node, const char* name, const char* fallback) {
  const onnx::AttributeProto* a = FindAttribute(node, name);
  return a ? a->s() : fallback;
}

bool Present(const onnx::NodeProto& node, int index) { return index < node.input_size() && !node.input(index).empty(); }

std::string EmptyFloats(AdapterContext* ctx, const onnx::NodeProto& node, const char* what) {
  onnx::TensorProto t;
  t.set_data_type(onnx::TensorProto::FLOAT);
  t.add_dims(0);
  return ctx->Constant(std::move(t), fmt::format("{}_{}", node.name().empty() ? node.op_type() : node.name(), what));
}

}  // namespace

Status UpsampleScalesUp(onnx::NodeProto* node, AdapterContext* ctx) { return FloatsAttributeToInput(node, ctx, "scales", 1); }
Status UpsampleScalesDown(onnx::NodeProto* node, AdapterContext* ctx) { return InputToFloatsAttribute(node, ctx, 1, "scales"); }

Status UpsampleToResize(onnx::NodeProto* node, AdapterContext*) {
  const std::string mode = StringAttribute(*node, "mode", "nearest");
  if (mode != "nearest" && mode != "linear") return Refuse(fmt::format("mode '{}' is not one Resize has", mode));
  node->set_op_type("Resize");
  return Status::Ok();
}

Status ResizeToUpsample(onnx::NodeProto* node, AdapterContext*) {
  node->set_op_type("Upsample");
  return Status::Ok();
}

Status Resize11Up(onnx::NodeProto* node, AdapterContext* ctx) {
  const std::string mode = StringAttribute(*node, "mode", "nearest");
  const std::string scales = node->input_size() > 1 ? node->input(1) : "";
  SetInput(node, 1, EmptyFloats(ctx, *node, "roi"));
  SetInput(node, 2, scales);
  SetString(node, "coordinate_transformation_mode", "asymmetric");
  if (mode == "nearest") SetString(node, "nearest_mode", "floor");
  return Status::Ok();
}

Status Resize11Down(onnx::NodeProto* node, AdapterContext*) {
  const std::string mode = StringAttribute(*node, "mode", "nearest");
  if (mode != "nearest" && mode != "linear") return Refuse(fmt::format("mode '{}' does not exist before opset 11", mode));
  const std::string coords = StringAttribute(*node, "coordinate_transformation_mode", "half_pixel");
  if (coords != "asymmetric")
    return Refuse(fmt::format("coordinate_transformation_mode '{}': before opset 11 Resize maps coordinates only as 'asymmetric'", coords));
  if (mode == "nearest" && StringAttribute(*node, "nearest_mode", "round_prefer_floor") != "floor")
    return Refuse("nearest_mode other than 'floor': before opset 11 nearest rounds down");
  if (Present(*node, 3)) return Refuse("it gives output sizes, which Resize before opset 11 cannot take (only scales)");
  if (const onnx::AttributeProto* a = FindAttribute(*node, "exclude_outside"); a && a->i() != 0)
    return Refuse("exclude_outside=1 does not exist before opset 11");
  const std::string scales = node->input(2);
  node->mutable_input()->DeleteSubrange(1, node->input_size() - 1);
  node->add_input(scales);
  for (const char* attr : {"coordinate_transformation_mode", "nearest_mode", "cubic_coeff_a", "exclude_outside", "extrapolation_value"})
    DropAttribute(node, attr);
  return Status::Ok();
}

Status Resize13Up(onnx::NodeProto* node, AdapterContext*) {
  if (StringAttribute(*node, "coordinate_transformation_mode", "") == "tf_half_pixel_for_nn")
    return Refuse("coordinate_transformation_mode 'tf_half_pixel_for_nn' was removed at opset 13");
  return Status::Ok();
}

Status Resize13Down(onnx::NodeProto* node, AdapterContext* ctx) {
  // Before 13, roi and scales are required inputs (empty when unused).
  if (!Present(*node, 1)) SetInput(node, 1, EmptyFloats(ctx, *node, "roi"));
  if (!Present(*node, 2)) SetInput(node, 2, EmptyFloats(ctx, *node, "scales"));
  return Status::Ok();
}

}  // namespace remap
