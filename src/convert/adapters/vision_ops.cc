// RoiAlign (16): coordinate_transformation_mode appeared with default
// "half_pixel"; before, boxes were not shifted ("output_half_pixel").
// GridSample (20): modes renamed (bilinear -> linear, bicubic -> cubic) and
// inputs of any rank allowed.
#include <fmt/format.h>

#include "convert/adapters/adapters.h"
#include "convert/opset_adapter.h"

namespace remap {

Status RoiAlignCoordinatesUp(onnx::NodeProto* node, AdapterContext*) {
  SetString(node, "coordinate_transformation_mode", "output_half_pixel");
  return Status::Ok();
}

Status RoiAlignCoordinatesDown(onnx::NodeProto* node, AdapterContext* ctx) {
  const onnx::AttributeProto* mode = FindAttribute(*node, "coordinate_transformation_mode");
  const std::string m = mode ? mode->s() : "half_pixel";
  DropAttribute(node, "coordinate_transformation_mode");
  if (m == "output_half_pixel") return Status::Ok();
  if (m != "half_pixel") return Refuse(fmt::format("coordinate_transformation_mode '{}' is unknown", m));
  // half_pixel samples at box * scale - 0.5: the same as shifting the boxes by -0.5 / scale.
  const onnx::AttributeProto* scale_attr = FindAttribute(*node, "spatial_scale");
  const double scale = scale_attr ? scale_attr->f() : 1.0;
  if (scale == 0) return Refuse("spatial_scale is 0");
  const std::string rois = node->input(1);
  const int type = ctx->ElemType(rois);
  if (type == 0) return Refuse(fmt::format("the type of its rois '{}' is not known", rois));
  const std::string base = node->name().empty() ? "RoiAlign" : node->name();
  const std::string shift = ctx->Scalar(0.5 / scale, type, base + "_half_pixel");
  onnx::NodeProto& sub = ctx->Before("Sub", base + "_half_pixel");
  sub.add_input(rois);
  sub.add_input(shift);
  sub.add_output(ctx->FreshValue(base + "_rois"));
  node->set_input(1, sub.output(0));
  return Status::Ok();
}

Status GridSampleModesUp(onnx::NodeProto* node, AdapterContext*) {
  if (const onnx::AttributeProto* mode = FindAttribute(*node, "mode")) {
    if (mode->s() == "bilinear") SetString(node, "mode", "linear");
    else if (mode->s() == "bicubic") SetString(node, "mode", "cubic");
  }
  return Status::Ok();
}

Status GridSampleModesDown(onnx::NodeProto* node, AdapterContext* ctx) {
  const int rank = ctx->Rank(node->input(0));
  if (rank >= 0 && rank != 4) return Refuse(fmt::format("its input has rank {}; before opset 20 GridSample takes 4-D input only", rank));
  const onnx::AttributeProto* mode = FindAttribute(*node, "mode");
  const std::string m = mode ? mode->s() : "linear";
  if (m == "linear") SetString(node, "mode", "bilinear");
  else if (m == "cubic") SetString(node, "mode", "bicubic");
  return Status::Ok();
}

}  // namespace remap
